#!/usr/bin/env bash
# The prediction-error table of results/prediction-error.md: every validation
# schedule predicted from FILE and replayed (`halfperf predict --run`), the
# message parameters measured again before and after each replay. P = 2
# pinned over both thread transports; P = 4 and 8 sharing the CPUs.
# Usage: scripts/prediction-error.sh RESULT.json OUTDIR [TRANSPORTS] [PS]
set -euo pipefail
from=$1
out=$2
transports=${3:-mailbox channel}
ps=${4:-2 4 8}
exe=${HALFPERF:-target/release/halfperf}
mkdir -p "$out"
for p in $ps; do
  for t in $transports; do
    for g in workloads/p$p/*.goal; do
      name=$(basename "$g" .goal)
      load=$(cut -d' ' -f1 /proc/loadavg)
      trials=20
      [ "$p" -gt 2 ] && trials=10
      if "$exe" predict "$g" --from "$from" --transport "$t" --placement auto \
          --run --trials "$trials" --json > "$out/p$p-$t-$name.json" 2> "$out/p$p-$t-$name.err"; then
        echo "$load" > "$out/p$p-$t-$name.load"
        echo "p$p $t $name ok (load $load)"
      else
        echo "p$p $t $name FAILED: $(tail -1 "$out/p$p-$t-$name.err")"
      fi
    done
  done
done
