#!/usr/bin/env bash
# The prediction-error table of results/prediction-error.md: every validation
# schedule predicted from FILE and replayed (`halfperf predict --run`), the
# message parameters (pingpong, oneway, and overheads' pinned S and R) measured
# again just before and just after each replay. P = 2 pinned over both thread
# transports; P = 4 and 8 sharing the CPUs. Then prints the markdown table (one
# per P) and each transport's median and largest |error|, with the load average
# each row ran under; a row whose state changed also gives the error of the
# other prediction. The headline is predicted from the parameters measured
# before the replay, or after it where the state changed and the pair's probes
# right around the replay match the state after (`src/workload/validate.rs`).
# FILE holds what the replay does not measure again: hockney-sync's t0 of the
# `//@ sync` meetings and, for schedules with vector calcs, hockney-vector
# (ranks sharing CPUs: the CPU's yield turn is measured before each prediction):
#   halfperf run overheads pingpong oneway hockney-sync --quick --out card.json
# Usage: scripts/prediction-error.sh RESULT.json OUTDIR [TRANSPORTS] [PS]
#        scripts/prediction-error.sh --table OUTDIR   (the table of a past run)
set -euo pipefail
table() {
  python3 - "$1" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(out, "p*-*-*.json"))):
    base = os.path.basename(f)[:-5]
    p, t, name = base.split("-", 2)
    try:
        d = json.load(open(f))
    except ValueError:
        continue
    v = d.get("validation")
    if not v:
        continue
    load = open(f[:-5] + ".load").read().strip() if os.path.exists(f[:-5] + ".load") else "?"
    rows.setdefault(int(p[1:]), []).append((t, name, d, v, load))
def us(x):
    return "%.2f" % (x / 1000)
for p in sorted(rows):
    kind = "pinned, one rank a CPU" if p <= os.cpu_count() else "ranks sharing the CPUs"
    print(f"\n### P = {p} ({kind})\n")
    print("| schedule | transport | measured median us [95 %] | min us | predicted us [95 %] | error (median) | error (min) | covered | state | o ns, L ns, O ns/B (S, R from) | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    by_t = {}
    for t, name, d, v, load in sorted(rows[p], key=lambda r: (r[0], r[1])):
        lo, hi = v["measured_ci95_ns"]
        plo, phi = v["predicted_ci95_ns"]
        state = "changed" if v.get("state_changed") else ("same" if v.get("probe_ns") else "not checked")
        other = v.get("error_other")
        if v.get("predicted_from") == "after":
            # The replay's own probes matched the state measured after it: the
            # headline is the prediction from after; the one from before beside.
            state += f", from after (before: {100 * other:+.1f} %)"
        elif v.get("state_changed") and other is not None:
            # Across a change of state: also the error of the prediction from
            # the parameters measured just after the replay.
            state += f" (after: {100 * other:+.1f} %)"
        pred = d.get("prediction") or {}
        lg = pred.get("loggops") or {}
        rows_in = (pred.get("inputs") or {}).get("rows") or [{}]
        src = rows_in[0].get("kernel", "?").split("/")[0]
        costs = (f"{lg.get('o_ns', float('nan')):.0f}, {lg.get('l_ns', float('nan')):.0f}, "
                 f"{lg.get('big_o_ns_per_byte', float('nan')):.3f} ({src})")
        print(f"| {name} | {t} | {us(v['measured_ns'])} [{us(lo)}, {us(hi)}] | {us(v['measured_min_ns'])} | "
              f"{us(v['predicted_ns'])} [{us(plo)}, {us(phi)}] | {100 * v['error']:+.1f} % | "
              f"{100 * v['error_vs_min']:+.1f} % | {'yes' if v['covered'] else 'no'} | {state} | {costs} | {load} |")
        by_t.setdefault(t, []).append((abs(100 * v["error"]), abs(100 * v["error_vs_min"]), name))
    for t, e in sorted(by_t.items()):
        med = statistics.median(x[0] for x in e)
        worst = max(e)
        print(f"| **{t}: median abs error** | | | | | **{med:.1f} %** (max {worst[0]:.1f} %, {worst[2]}) "
              f"| **{statistics.median(x[1] for x in e):.1f} %** | | | | |")
    allp = [x[0] for e in by_t.values() for x in e]
    print(f"\nP = {p}, all transports: median |error| {statistics.median(allp):.1f} %, "
          f"{sum(x > 20 for x in allp)} of {len(allp)} beyond 20 %, largest {max(allp):.1f} %")
PY
}
if [[ "${1:-}" == "--table" ]]; then
  table "$2"
  exit 0
fi
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
table "$out"
