#!/usr/bin/env bash
# Do `cargo bench`'s parameters agree with `halfperf run --quick` on this
# machine? Runs the benches' quick pass (a fresh target/criterion/halfperf.json),
# then `halfperf run --quick` of the same kernels, then compares the two cards
# with `halfperf compare`: a parameter whose two 95 % intervals overlap agrees;
# one marked `~` differs but moved with its probe (the machine moved); one
# marked `*` differs and the probe does not explain it. Ends in the counts:
#
#   counts: N rows in both files: A agree, U not resolved in one or both, M moved with the probes (~), D apart (*)
#
#   scripts/bench-agreement.sh [--no-bench] [-o DIR] [KERNEL...]
#
#   --no-bench  take the bench's existing result file instead of running the quick pass
#   -o DIR      where the run's file and the comparison go (default: a new directory under /tmp)
#   KERNEL...   the kernels to run (default: hockney-vector hockney-sync pingpong comet-barrier)
#
# Run it on a quiet machine (it prints the load before and after each part):
# under load both sides move, and the figure says more about the load than
# about the bench. It takes the build, about 3 min of benches and the quick
# run on 2 CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."

bench=1
dir=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --no-bench) bench=0; shift ;;
        -o) [[ $# -ge 2 ]] || { echo "bench-agreement: -o needs a directory" >&2; exit 2; }
            dir="$2"; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        -*) echo "bench-agreement: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
kernels=("$@")
[[ ${#kernels[@]} -gt 0 ]] || kernels=(hockney-vector hockney-sync pingpong comet-barrier)
dir=${dir:-$(mktemp -d /tmp/halfperf-agreement.XXXXXX)}
mkdir -p "$dir"
file=${HALFPERF_BENCH_OUT:-${CARGO_TARGET_DIR:-target}/criterion/halfperf.json}
load() { echo "load $1: $(cut -d' ' -f1-3 /proc/loadavg)"; }

cargo build --release --quiet
if [[ $bench -eq 1 ]]; then
    cargo bench --no-run --quiet
    rm -f "$file"
    load "before the benches"
    start=$(date +%s)
    HALFPERF_BENCH_QUICK=1 cargo bench --quiet > "$dir/bench.log"
    echo "bench quick pass: $(( $(date +%s) - start )) s (log: $dir/bench.log)"
fi
test -f "$file" || { echo "bench-agreement: no $file" >&2; exit 1; }
load "before the run"
target/release/halfperf run "${kernels[@]}" --quick --out "$dir/run.json" --force > /dev/null
load "after the run"
target/release/halfperf compare "$file" "$dir/run.json" | tee "$dir/compare.txt"
target/release/halfperf compare --csv "$file" "$dir/run.json" > "$dir/compare.csv"
echo
echo "bench ($file) against halfperf run --quick ($dir/run.json):"
python3 - "$dir/compare.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
both = [r for r in rows if r["[1] value"] and r["[2] value"]]
unresolved = [r for r in both if "not resolved" in (r["[1] trust"], r["[2] trust"])]
resolved = [r for r in both if r not in unresolved]
moved = [r for r in resolved if r["[2] differs"] == "~"]
apart = [r for r in resolved if r["[2] differs"] == "*"]
agree = len(resolved) - len(moved) - len(apart)
print(f"counts: {len(both)} rows in both files: {agree} agree, {len(unresolved)} not resolved"
      f" in one or both, {len(moved)} moved with the probes (~), {len(apart)} apart (*)")
for r in apart:
    print(f"  apart: {r['kernel']} {r['name']} {r['of']}".rstrip())
EOF
echo "files in $dir"
