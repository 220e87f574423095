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
#
#   scripts/mpi-baseline.sh [-n N] [-o DIR] [--quick]
#
#   -n N     alternations (default 5)
#   -o DIR   where the C program and the result files go (default: a new
#            directory under /tmp)
#   --quick  halfperf's quick batches (default: full batches)
#
# Needs a build with MPI (cargo build --release --features mpi), mpicc and
# mpirun. Check the machine is quiet first (uptime): the ratios are taken
# between neighbouring runs, but a busy machine moves every figure.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=5
dir=""
quick=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        -n) runs="${2:-}"; shift 2 ;;
        -o) dir="${2:-}"; shift 2 ;;
        --quick) quick=(--quick); shift ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "mpi-baseline: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
if ! [[ "$runs" =~ ^[0-9]+$ ]] || (( runs < 1 )); then
    echo "mpi-baseline: -n needs a whole number of at least 1, not '$runs'" >&2
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

echo "load before: $(uptime)"
plains=("$(plain)")
for i in $(seq 1 "$runs"); do
    "${launch[@]}" "$bin" run pingpong --transport mpi --sizes 8 "${quick[@]}" \
        --out "$dir/pp$i.json" --force > /dev/null 2>&1
    plains+=("$(plain)")
done
echo "load after: $(uptime)"

python3 - "$dir" "$runs" "${plains[@]}" <<'PY'
import json, statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
plains = [tuple(float(x) for x in p.split(",")) for p in sys.argv[3:]]
def at_8(doc, transport, stat):
    for k in doc["kernels"]:
        if k["kernel"] == "pingpong" and k.get("transport") == transport:
            for p in k["points"]:
                if p.get("size_bytes") == 8:
                    return p["one_way_ns"][stat]
    raise SystemExit(f"no pingpong/{transport} at 8 B in {d}")
for j, stat in enumerate(["min", "median"]):
    rows = []
    print(f"\n{stat} of the trials, one-way ns at 8 B")
    print(f"{'run':>3} {'plain':>8} {'mpi':>8} {'raw':>8} {'mpi/plain':>9} {'raw/plain':>9} {'mpi/raw':>8}")
    for i in range(1, n + 1):
        doc = json.load(open(f"{d}/pp{i}.json"))
        plain = (plains[i - 1][j] + plains[i][j]) / 2
        mpi, raw = at_8(doc, "mpi", stat), at_8(doc, "mpi-raw", stat)
        rows.append((mpi / plain, raw / plain, mpi / raw))
        print(f"{i:>3} {plain:8.1f} {mpi:8.1f} {raw:8.1f} {mpi / plain:9.3f} {raw / plain:9.3f} {mpi / raw:8.3f}")
    for c, name in enumerate(["mpi/plain", "raw/plain", "mpi/raw"]):
        r = [row[c] for row in rows]
        print(f"{name}: median {statistics.median(r):.3f}, min {min(r):.3f}, max {max(r):.3f} over {n} pairs")
PY
