#!/usr/bin/env bash
# Do `cargo bench`'s parameters agree with `halfperf run --quick` on this
# machine? Takes the bench's result file (target/criterion/halfperf.json, or
# runs the benches in their quick mode first when it is missing or with
# --bench), runs the same kernels with `halfperf run --quick`, and compares the
# two cards with `halfperf compare`: a parameter whose two 95 % intervals
# overlap agrees; one marked `~` differs but moved with its probe (the machine
# moved); one marked `*` differs and the probe does not explain it.
#
#   scripts/bench-agreement.sh [--bench] [-o DIR] [KERNEL...]
#
#   --bench   run `HALFPERF_BENCH_QUICK=1 cargo bench` first, even if the file exists
#   -o DIR    where the run's file and the comparison go (default: a new directory under /tmp)
#   KERNEL... the kernels to run (default: hockney-vector hockney-sync pingpong comet-barrier)
#
# Check the machine is quiet first (uptime): under load both sides move, and
# the figure says more about the load than about the bench.
set -euo pipefail
cd "$(dirname "$0")/.."

bench=0
dir=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --bench) bench=1; shift ;;
        -o) dir="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
        -*) echo "bench-agreement: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
kernels=("$@")
[[ ${#kernels[@]} -gt 0 ]] || kernels=(hockney-vector hockney-sync pingpong comet-barrier)
dir=${dir:-$(mktemp -d /tmp/halfperf-agreement.XXXXXX)}
mkdir -p "$dir"
file=${HALFPERF_BENCH_OUT:-${CARGO_TARGET_DIR:-target}/criterion/halfperf.json}

if [[ $bench -eq 1 || ! -f $file ]]; then
    HALFPERF_BENCH_QUICK=1 cargo bench --bench hockney_vector --bench hockney_sync --bench transport --bench comet
fi
test -f "$file" || { echo "bench-agreement: no $file after the benches" >&2; exit 1; }
cargo build --release --quiet
echo "load before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
target/release/halfperf run "${kernels[@]}" --quick --out "$dir/run.json" --force > /dev/null
echo "load after the run:  $(cut -d' ' -f1-3 /proc/loadavg)"
target/release/halfperf compare "$file" "$dir/run.json" | tee "$dir/compare.txt"
target/release/halfperf compare --csv "$file" "$dir/run.json" > "$dir/compare.csv"
# A row's mark ends its line (`x5.69*`, `x1.30~`); the legend's lines do not.
apart=$(grep -cE '[^ *]\*$' "$dir/compare.txt" || true)
moved=$(grep -cE '[^ ~]~$' "$dir/compare.txt" || true)
echo
echo "bench ($file) against halfperf run --quick ($dir/run.json):"
echo "  rows with intervals apart, not explained by the probes (*): $apart"
echo "  rows apart where the probes moved with them (~): $moved"
echo "  every other row agrees within the two intervals; files in $dir"
