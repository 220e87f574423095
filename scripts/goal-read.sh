#!/usr/bin/env bash
# Reading a GOAL file: halfperf's whole run from the text (read, check, simulate)
# against LogGOPSim's txt2bin and its run of the binary file, on the same file in
# the same run, as medians of N runs of each.
#
#   scripts/goal-read.sh [RUNS] [P]     (default 9 runs, P = 4096 ranks)
#
# The file is the P-rank recursive-doubling allreduce of examples/goal_schedule.rs,
# unindented (txt2bin rejects indented lines). LogGOPSim: set LOGGOPSIM_DIR to a
# directory holding its built `LogGOPSim` and `txt2bin` (scripts/engine-rate.sh
# says how to build them); without them only halfperf's figures are printed.
#
# Figures are user + system CPU seconds (/usr/bin/time), which a loaded machine
# distorts less than wall time; wall medians are printed beside them. halfperf's
# engine alone is its events over its own rate. The finish times must agree.
# Nothing here is a test.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-9}
p=${2:-4096}
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "goal-read: RUNS must be a positive whole number" >&2; exit 2; }
[[ "$p" =~ ^[0-9]+$ ]] && (( p >= 2 && (p & (p - 1)) == 0 )) \
  || { echo "goal-read: P must be a power of two, at least 2" >&2; exit 2; }
cargo build --release --quiet
cargo build --release --quiet --example goal_schedule
hp=target/release/halfperf
work=target/goal-read
mkdir -p "$work"
f="$work/recursive-doubling-allreduce-$p.goal"
target/release/examples/goal_schedule recursive-doubling-allreduce "$p" | sed 's/^[[:space:]]*//' > "$f"

# median of the numbers on stdin, then the range
stats() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "median %.3f s  range %.3f .. %.3f  (%d runs)\n", m, v[1], v[NR], NR }'; }
# runs "$@" under /usr/bin/time; appends user + system to $1's file, wall to $1.wall
timed() {
  local out=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$work/t" "$@" > "$work/out"
  awk '{ print $2 + $3 }' "$work/t" >> "$work/$out"
  awk '{ print $1 }' "$work/t" >> "$work/$out.wall"
}

lgs=${LOGGOPSIM_DIR:-target/loggopsim/src/LogGOPSim}
have_lgs=0
[[ -x "$lgs/LogGOPSim" && -x "$lgs/txt2bin" ]] && have_lgs=1
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)  CPUs: $(nproc)  file: $f ($(wc -l < "$f") lines, $(wc -c < "$f") bytes)"
for k in hp hp-engine t2b lgs lgs-text; do : > "$work/$k"; : > "$work/$k.wall"; done
for _ in $(seq "$runs"); do
  timed hp "$hp" simulate "$f" --loggp L=2500
  hend=$(awk '/^end/ { print $2 }' "$work/out")
  awk '/^events/ { printf "%.4f\n", ($5 > 0) ? $2 / $5 : 0 }' "$work/out" >> "$work/hp-engine"
  if (( have_lgs )); then
    timed t2b "$lgs/txt2bin" -i "$f" -o "$f.bin"
    timed lgs "$lgs/LogGOPSim" -f "$f.bin"
    lend=$(awk '/^(Host|max) [0-9]+/ { t = $NF + 0; if (t > m) m = t }
      /^Maximum finishing time/ { t = $7 + 0; if (t > m) m = t } END { print m + 0 }' "$work/out")
    [[ "$lend" == "$hend" ]] || echo "ENDS DIFFER: LogGOPSim $lend ns, halfperf $hend ns"
    paste -d' ' <(tail -n1 "$work/t2b") <(tail -n1 "$work/lgs") | awk '{ print $1 + $2 }' >> "$work/lgs-text"
  fi
done
echo "end $hend ns"
echo "halfperf, text to finish (user + system):   $(stats < "$work/hp")"
echo "halfperf, text to finish (wall):            $(stats < "$work/hp.wall")"
echo "halfperf, engine alone (its own clock):     $(stats < "$work/hp-engine")"
if (( have_lgs )); then
  echo "LogGOPSim, binary file run (user + system): $(stats < "$work/lgs")"
  echo "LogGOPSim, txt2bin (user + system):         $(stats < "$work/t2b")"
  echo "LogGOPSim, txt2bin + run (user + system):   $(stats < "$work/lgs-text")"
else
  echo "LogGOPSim figures skipped: no LogGOPSim and txt2bin in $lgs (set LOGGOPSIM_DIR)"
fi
