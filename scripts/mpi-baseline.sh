#!/usr/bin/env bash
# Holds halfperf's mpi transport and its raw-MPI baseline row against a plain
# C MPI_Send/MPI_Recv ping-pong (scripts/mpi-pingpong.c) on the same two
# pinned CPUs: builds the C program with mpicc, then runs it and
# `halfperf run pingpong --transport mpi --sizes 8` in turn, N times each,
# alternating, so that each halfperf run has a plain run on each side of it.
# Prints, per pair of neighbouring runs, the plain program's one-way time,
# halfperf's transport (`mpi`) and baseline (`mpi-raw`) and their ratios to
# the plain program, each the least of its trials (a trial is a batch's
# mean; the least is the floor a busy machine moves least), then the same
# with the medians; then the ratios' median, min and max over the pairs.
# The column `paired` is the run's own `mpi_over_baseline` (the median of
# its rounds' transport/raw ratios, each round's two batches milliseconds
# apart): the figure a busy machine moves least.
#
# With --poll, each alternation also runs halfperf with HALFPERF_MPI_POLL=1
# (no watchdog: the transport polls MPI_Test under the deadline, as before
# the watchdog), between the same two plain runs, as rows `poll`.
#
# With --variants K, then K jobs of the C program alone timing, trial by
# trial in one job, the ways a ping-pong can wait (mpi-pingpong.c's
# `variants`: send-recv, test, persistent, blocking, status, count), one
# line each.
#
#   scripts/mpi-baseline.sh [-n N] [-o DIR] [--quick] [--poll] [--variants K]
#
#   -n N          alternations (default 5)
#   -o DIR        where the C program and the result files go (default: a
#                 new directory under /tmp)
#   --quick       halfperf's quick batches (default: full batches)
#   --poll        also the polled transport, each alternation
#   --variants K  K jobs of the C variants after the pairs (default 0)
#
# Needs a build with MPI (cargo build --release --features mpi), mpicc and
# mpirun. Check the machine is quiet first (uptime): the ratios are taken
# between neighbouring runs, but a busy machine moves every figure.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=5
dir=""
quick=()
variants=0
poll=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        -n) runs="${2:-}"; shift 2 ;;
        -o) dir="${2:-}"; shift 2 ;;
        --quick) quick=(--quick); shift ;;
        --variants) variants="${2:-}"; shift 2 ;;
        --poll) poll=1; shift ;;
        -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
        *) echo "mpi-baseline: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
if ! [[ "$runs" =~ ^[0-9]+$ ]] || (( runs < 1 )); then
    echo "mpi-baseline: -n needs a whole number of at least 1, not '$runs'" >&2
    exit 2
fi
if ! [[ "$variants" =~ ^[0-9]+$ ]]; then
    echo "mpi-baseline: --variants needs a whole number, not '$variants'" >&2
    exit 2
fi
bin=target/release/halfperf
for tool in mpicc mpirun python3; do
    command -v "$tool" > /dev/null || { echo "mpi-baseline: $tool is missing" >&2; exit 2; }
done
[[ -x "$bin" ]] || { echo "mpi-baseline: build first: cargo build --release --features mpi" >&2; exit 2; }
dir="${dir:-$(mktemp -d /tmp/halfperf-mpi-baseline.XXXXXX)}"
mkdir -p "$dir"
mpicc -O2 -o "$dir/mpi-pingpong" scripts/mpi-pingpong.c
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch=(timeout -k 10 300 mpirun -n 2 --bind-to none)

plain() {
    "${launch[@]}" "$dir/mpi-pingpong" 30 2000 |
        sed -n 's/.* min \([0-9.]*\) median \([0-9.]*\) .*/\1,\2/p'
}

halfperf() { # OUT [ENV=VALUE]
    env ${2:-} "${launch[@]}" "$bin" run pingpong --transport mpi --sizes 8 "${quick[@]}" \
        --out "$1" --force > /dev/null 2>&1
}

echo "load before: $(uptime)"
plains=("$(plain)")
for i in $(seq 1 "$runs"); do
    halfperf "$dir/pp$i.json"
    if (( poll )); then
        halfperf "$dir/poll$i.json" HALFPERF_MPI_POLL=1
    fi
    plains+=("$(plain)")
done
echo "load after: $(uptime)"

python3 - "$dir" "$runs" "$poll" "${plains[@]}" <<'PY'
import json, statistics, sys
d, n, poll = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
plains = [tuple(float(x) for x in p.split(",")) for p in sys.argv[4:]]
def point(doc, transport):
    for k in doc["kernels"]:
        if k["kernel"] == "pingpong" and k.get("transport") == transport:
            for p in k["points"]:
                if p.get("size_bytes") == 8:
                    return p
    raise SystemExit(f"no pingpong/{transport} at 8 B in {d}")
kinds = ["pp"] + (["poll"] if poll else [])
for j, stat in enumerate(["min", "median"]):
    print(f"\n{stat} of the trials, one-way ns at 8 B")
    print(f"{'run':>7} {'plain':>8} {'mpi':>8} {'raw':>8} {'mpi/plain':>9} {'raw/plain':>9} {'mpi/raw':>8} {'paired':>7}")
    for kind in kinds:
        rows = []
        for i in range(1, n + 1):
            doc = json.load(open(f"{d}/{kind}{i}.json"))
            plain = (plains[i - 1][j] + plains[i][j]) / 2
            base = point(doc, "mpi-raw")
            mpi, raw = point(doc, "mpi")["one_way_ns"][stat], base["one_way_ns"][stat]
            paired = base.get("mpi_over_baseline", float("nan"))
            rows.append((mpi / plain, raw / plain, mpi / raw, paired))
            name = f"{'poll' if kind == 'poll' else 'run'} {i}"
            print(f"{name:>7} {plain:8.1f} {mpi:8.1f} {raw:8.1f} {mpi / plain:9.3f} {raw / plain:9.3f} {mpi / raw:8.3f} {paired:7.3f}")
        label = "polled " if kind == "poll" else ""
        for c, name in enumerate(["mpi/plain", "raw/plain", "mpi/raw", "paired"]):
            r = [row[c] for row in rows]
            print(f"{label}{name}: median {statistics.median(r):.3f}, min {min(r):.3f}, max {max(r):.3f} over {n} pairs")
PY
for i in $(seq 1 "$variants"); do
    echo
    echo "C variants, job $i (least, median and greatest of 30 trials of 2000 round trips):"
    "${launch[@]}" "$dir/mpi-pingpong" 30 2000 variants
done
