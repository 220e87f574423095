#!/usr/bin/env bash
# The discrete-event engine's speed: events per second of Lamanna's all-to-all
# (eq. 9 model, hypercube, R = N - 1) at 256, 1024, 2048 and 4096 nodes, and the
# same GOAL files through halfperf and LogGOPSim in the same run.
#
#   scripts/engine-rate.sh [RUNS]            (default 3 runs of each figure)
#
# LogGOPSim: set LOGGOPSIM_DIR to a directory holding its built `LogGOPSim` and
# `txt2bin`; otherwise the script clones github.com/spcl/LogGOPSim into
# target/loggopsim and builds both with g++ -O3 (needs git, gengetopt, re2c,
# g++ and libcgraph).
# Without either, the comparison is skipped with a line saying so.
#
# Each figure is printed per run and as the median with the range. The rates
# are events over wall time (the engine's own clock) and over user CPU time
# (/usr/bin/time), which a loaded machine distorts less. Nothing here is a test.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "engine-rate: RUNS must be a positive whole number" >&2; exit 2; }
cargo build --release --quiet
cargo build --release --quiet --example goal_schedule
hp=target/release/halfperf
gen=target/release/examples/goal_schedule
work=target/engine-rate
mkdir -p "$work"

# median and range of the numbers on stdin
stats() { sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "median %.3g  range %.3g .. %.3g  (%d runs)\n", m, v[1], v[NR], NR }'; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)  CPUs: $(nproc)"
echo "== Lamanna all-to-all, eq. 9 model (halfperf simulate --params eq9 --nodes N --runs 1)"
for n in 256 1024 2048 4096; do
  : > "$work/wall-$n" ; : > "$work/cpu-$n"
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%U %M" -o "$work/time" "$hp" simulate --params eq9 --nodes "$n" --runs 1 --json > "$work/out.json"
    read -r user kb < "$work/time"
    value() { grep -m1 "\"$1\":" "$work/out.json" | sed -E 's/.*: *([-0-9.eE+]+).*/\1/'; }
    events=$(value events)
    rate=$(value events_per_second)
    cpu_rate=$(awk -v e="$events" -v u="$user" 'BEGIN { printf "%.4g", (u > 0) ? e / u : 0 }')
    echo "N=$n events $events  wall rate $rate ev/s  user ${user}s -> $cpu_rate ev/CPU-s  peak ${kb} KB"
    echo "$rate" >> "$work/wall-$n"
    # A run of under half a CPU-second is a few ticks of the 10 ms clock
    # `time` reads: its rate per CPU-second is left out.
    awk -v u="$user" 'BEGIN { exit !(u >= 0.5) }' && echo "$cpu_rate" >> "$work/cpu-$n"
  done
  echo "N=$n wall rate:    $(stats < "$work/wall-$n")"
  if [[ -s "$work/cpu-$n" ]]; then
    echo "N=$n per CPU-s:    $(stats < "$work/cpu-$n")"
  else
    echo "N=$n per CPU-s:    not taken (runs under 0.5 CPU-s)"
  fi
done
# Flatness: each size's median rate over the best size's (the target: every
# size within 10 % of the best).
for kind in wall cpu; do
  for n in 256 1024 2048 4096; do
    [[ -s "$work/$kind-$n" ]] || continue
    echo "$n $(sort -g "$work/$kind-$n" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')"
  done | awk -v kind="$kind" '{ n[NR] = $1; m[NR] = $2; if ($2 > best) best = $2 }
    END { printf "flatness (%s rate medians over the best): ", kind
          for (i = 1; i <= NR; i++) printf "N=%s %.3f  ", n[i], (best > 0) ? m[i] / best : 0; print "" }'
done

lgs=${LOGGOPSIM_DIR:-}
if [[ -z "$lgs" ]]; then
  lgs=target/loggopsim/src/LogGOPSim
  if [[ ! -x "$lgs/LogGOPSim" ]] && command -v git > /dev/null && command -v g++ > /dev/null; then
    rm -rf target/loggopsim
    git clone --quiet https://github.com/spcl/LogGOPSim target/loggopsim || true
    (cd "$lgs" && gengetopt -F loggopsim_cmdline -i loggopsim_cmdline.ggo \
      && gengetopt -F txt2bin_cmdline -i txt2bin_cmdline.ggo && re2c -o txt2bin.cpp txt2bin.re \
      && g++ -std=c++11 -O3 -w LogGOPSim.cpp loggopsim_cmdline.c -o LogGOPSim -lcgraph \
      && g++ -O3 -w txt2bin.cpp txt2bin_cmdline.c -o txt2bin) || true
  fi
fi
if [[ ! -x "$lgs/LogGOPSim" || ! -x "$lgs/txt2bin" ]]; then
  echo "== LogGOPSim comparison skipped: no LogGOPSim and txt2bin in $lgs (set LOGGOPSIM_DIR)"
  exit 0
fi
echo "== same GOAL file, LogGOPSim defaults (L=2500 o=1500 g=1000 G=6 O=0 S=65535)"
# txt2bin rejects indented lines: both simulators read the unindented file.
# Three times each: LogGOPSim's run on its binary file, and from the text (txt2bin
# plus the run); halfperf's whole run from the text (read, check, simulate), and
# its engine alone (events over the engine's own rate: wall time, so a loaded
# machine inflates it).
for spec in "lamanna-alltoall 256" "recursive-doubling-allreduce 4096"; do
  set -- $spec
  f="$work/$1-$2.goal"
  "$gen" "$1" "$2" | sed 's/^[[:space:]]*//' > "$f"
  /usr/bin/time -f "%e %U %S" -o "$work/t2b" "$lgs/txt2bin" -i "$f" -o "$f.bin" > /dev/null
  read -r _ t2b_user t2b_sys < "$work/t2b"
  : > "$work/lgs-cpu"; : > "$work/hp-cpu"; : > "$work/lgs-text"; : > "$work/hp-engine"
  : > "$work/lgs-text-all"; : > "$work/hp-all"
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S" -o "$work/tl" "$lgs/LogGOPSim" -f "$f.bin" > "$work/lgs.out"
    /usr/bin/time -f "%e %U %S" -o "$work/th" "$hp" simulate "$f" --loggp L=2500 > "$work/hp.out"
    read -r lw lu lsys < "$work/tl"; read -r hw hu hsys < "$work/th"
    # Up to 16 ranks LogGOPSim prints every host; above, the maximum alone.
    lend=$(awk '/^(Host|max) [0-9]+/ { t = $NF + 0; if (t > m) m = t }
      /^Maximum finishing time/ { t = $7 + 0; if (t > m) m = t } END { print m + 0 }' "$work/lgs.out")
    hend=$(awk '/^end/ { print $2 }' "$work/hp.out")
    levents=$(grep -o 'Events: [0-9]*' "$work/lgs.out" | tr -dc '0-9')
    hevents=$(awk '/^events/ { print $2 }' "$work/hp.out")
    hengine=$(awk '/^events/ { printf "%.4g", ($5 > 0) ? $2 / $5 : 0 }' "$work/hp.out")
    echo "$1 P=$2: LogGOPSim ${lw}s wall ${lu}s user (txt2bin apart: $(cat "$work/t2b")), end $lend ns, $levents events;" \
      "halfperf ${hw}s wall ${hu}s user (text read included; engine alone ${hengine}s), end $hend ns, $hevents events;" \
      "$([[ "$lend" == "$hend" ]] && echo 'ends equal' || echo 'ENDS DIFFER')"
    echo "$lu" >> "$work/lgs-cpu"; echo "$hu" >> "$work/hp-cpu"; echo "$hengine" >> "$work/hp-engine"
    awk -v a="$lu" -v b="$t2b_user" 'BEGIN { print a + b }' >> "$work/lgs-text"
    awk -v a="$lu" -v b="$t2b_user" -v c="$lsys" -v d="$t2b_sys" 'BEGIN { print a + b + c + d }' >> "$work/lgs-text-all"
    awk -v a="$hu" -v b="$hsys" 'BEGIN { print a + b }' >> "$work/hp-all"
  done
  echo "$1 P=$2 LogGOPSim user s, binary file:      $(stats < "$work/lgs-cpu")"
  echo "$1 P=$2 LogGOPSim user s, txt2bin + run:    $(stats < "$work/lgs-text")"
  echo "$1 P=$2 halfperf user s, text to finish:    $(stats < "$work/hp-cpu")"
  echo "$1 P=$2 halfperf engine s (its own clock):  $(stats < "$work/hp-engine")"
  echo "$1 P=$2 user + system s, LogGOPSim txt2bin + run: $(stats < "$work/lgs-text-all")"
  echo "$1 P=$2 user + system s, halfperf text to finish: $(stats < "$work/hp-all")"
done
