#!/usr/bin/env bash
# Runs the same quick halfperf command N times as separate processes and prints,
# per headline parameter, the values of every run with the probe of the machine's
# state beside them, their CV, the probe's CV and a verdict; then how many
# card parameters each run differs from the first in, as `compare` marks them
# (* intervals apart and the probe does not explain it; ~ moved with the probe).
#
#   scripts/repeat-runs.sh [-n N] [-o DIR] [--spinner CPU] [--] [KERNEL...] [RUN OPTION...]
#
#   -n N           runs (default 5)
#   -o DIR         where the result files go (default: a new directory under /tmp)
#   --spinner CPU  after the N runs, one more run with a busy loop pinned to CPU
#                  (give the CPU beside the measured one, e.g. the second of a
#                  pair): it must differ from the first run in the latencies it
#                  inflates
#   KERNEL...      the kernels and any further `halfperf run` options (default:
#                  hockney-sync pingpong); --quick is always added
#
# Check the machine is quiet first (uptime); the load of every run is printed.
set -euo pipefail

runs=5
dir=""
spinner=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -n) runs="$2"; shift 2 ;;
        -o) dir="$2"; shift 2 ;;
        --spinner) spinner="$2"; shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
if ! [[ "$runs" =~ ^[0-9]+$ ]] || (( runs < 2 )); then
    echo "repeat-runs: -n needs a whole number of at least 2, not '$runs'" >&2
    exit 2
fi
args=("$@")
if [[ ${#args[@]} -eq 0 ]]; then
    args=(hockney-sync pingpong)
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${dir:-$(mktemp -d /tmp/halfperf-repeat.XXXXXX)}"
mkdir -p "$dir"

cargo build --release --quiet --manifest-path "$root/Cargo.toml" --bin halfperf --example spread
bin="$root/target/release/halfperf"
spread="$root/target/release/examples/spread"

files=()
for i in $(seq 1 "$runs"); do
    out="$dir/run-$i.json"
    echo "run $i of $runs: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    "$bin" run "${args[@]}" --quick --force --out "$out" >/dev/null
    files+=("$out")
done

spin_pid=""
cleanup() { [[ -n "$spin_pid" ]] && kill "$spin_pid" 2>/dev/null || true; }
trap cleanup EXIT
if [[ -n "$spinner" ]]; then
    out="$dir/spinner-cpu$spinner.json"
    taskset -c "$spinner" sh -c 'while :; do :; done' &
    spin_pid=$!
    echo "run with a busy loop on CPU $spinner: load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
    "$bin" run "${args[@]}" --quick --force --out "$out" >/dev/null
    kill "$spin_pid"
    spin_pid=""
fi

echo "result files in $dir" >&2
"$spread" "${files[@]}"
if [[ -n "$spinner" ]]; then
    echo
    echo "With the busy loop on CPU $spinner:"
    "$spread" --compare-only "$dir/run-1.json" "$dir/spinner-cpu$spinner.json"
fi
