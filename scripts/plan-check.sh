#!/usr/bin/env bash
# The plan's estimate against a measured quick run, kernel by kernel: for
# each kernel of the quick suite, `halfperf run --plan --quick --json KERNEL`
# (its estimate, with the run's fixed costs) beside the wall time of
# `halfperf run --quick KERNEL`; then the whole suite the same way. Prints
# one row a kernel (estimate, measured, measured / estimate, within 25 %?),
# the load average before and after, and each kernel's `elapsed_s` from its
# result file (the figure the plan's per-kernel calibration is made of); and
# for the whole suite, where each kernel's time went (`HALFPERF_PHASES`:
# idle sample, probes, calibration batches not kept, the rest).
#
# Run with:  scripts/plan-check.sh [KERNEL ...]     (on a quiet machine; needs jq)
# Exit status: 0 when the whole suite is within 25 % of its plan, 1 if not.
#
# Or:        scripts/plan-check.sh --against RESULT.json[.gz]
# sets the plan of the run that wrote RESULT (its kernels, --quick or not,
# --repeat) beside each kernel's measured time in it (`elapsed_s`, the
# median over its repetitions) and the run's whole time; nothing is run.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/halfperf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "${1:-}" = "--against" ]; then
  file=${2:?usage: plan-check.sh --against RESULT.json[.gz]}
  case "$file" in
    *.gz) zcat "$file" > "$tmp/run.json" ;;
    *) cp "$file" "$tmp/run.json" ;;
  esac
  mapfile -t ks < <(jq -r '.config.kernels[]' "$tmp/run.json")
  quick=$(jq -r '.config.run.quick' "$tmp/run.json")
  repeat=$(jq -r '.config.repeat // 1' "$tmp/run.json")
  args=(run --plan --json --repeat "$repeat" --max-minutes 100000 "${ks[@]}")
  [ "$quick" = true ] && args+=(--quick)
  "$bin" "${args[@]}" > "$tmp/plan.json"
  # A kernel's results share its `elapsed_s`: one run of a kernel is a run
  # of consecutive results with one elapsed_s and one repetition.
  jq -r '[.kernels[] | {r: (.repetition // 1), e: .elapsed_s}]
         | reduce .[] as $x ([]; if (length > 0 and .[-1] == $x) then . else . + [$x] end)
         | .[] | "\(.r) \(.e)"' "$tmp/run.json" > "$tmp/runs.txt"
  n=${#ks[@]}
  printf "%-26s %9s %9s %7s  %-4s\n" kernel "plan s" "run s" ratio "25%"
  i=0
  for k in "${ks[@]}"; do
    est=$(jq --arg k "$k" '.kernels[] | select(.kernel == $k) | .estimate_s' "$tmp/plan.json")
    # The kernel's runs are every n-th line from its place.
    med=$(awk -v i="$i" -v n="$n" '(NR - 1) % n == i { print $2 }' "$tmp/runs.txt" \
      | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    awk -v k="$k" -v e="$est" -v m="$med" 'BEGIN {
      r = m / e; ok = (r >= 0.75 && r <= 1.25) ? "yes" : "NO";
      printf "%-26s %9.2f %9.2f %7.2f  %s\n", k, e, m, r, ok }'
    i=$((i + 1))
  done
  total=$(jq '.total_s' "$tmp/plan.json")
  ran=$(awk '{ s += $2 } END { print s }' "$tmp/runs.txt")
  awk -v e="$total" -v m="$ran" -v r="$repeat" 'BEGIN {
    printf "%-26s %9.2f %9.2f %7.2f  (kernels only, %d repetitions)\n", "(the whole run)", e, m, m / e, r }'
  exit 0
fi

if [ $# -gt 0 ]; then
  kernels=("$@")
else
  mapfile -t kernels < <("$bin" run --plan --quick --json | jq -r '.kernels[].kernel')
fi

now() { date +%s.%N; }
load() { cut -d' ' -f1 /proc/loadavg; }

# One row: NAME ESTIMATE MEASURED, and whether it is within 25 %.
row() {
  awk -v k="$1" -v e="$2" -v m="$3" -v x="$4" 'BEGIN {
    r = m / e; ok = (r >= 0.75 && r <= 1.25) ? "yes" : "NO";
    printf "%-26s %9.2f %9.2f %7.2f  %-4s %s\n", k, e, m, r, ok, x }'
}

echo "load average (1 min) before: $(load)"
printf "%-26s %9s %9s %7s  %-4s %s\n" kernel "plan s" "wall s" ratio "25%" "elapsed_s in its result"
for k in "${kernels[@]}"; do
  est=$("$bin" run --plan --quick --json "$k" | jq '.total_s')
  t0=$(now)
  "$bin" run --quick "$k" --out "$tmp/$k.json" --force > /dev/null
  t1=$(now)
  elapsed=$(jq -r '[.kernels[].elapsed_s] | unique | map(. * 100 | round / 100 | tostring) | join(",")' "$tmp/$k.json")
  row "$k" "$est" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$elapsed"
done

est=$("$bin" run --plan --quick --json "${kernels[@]}" | jq '.total_s')
t0=$(now)
HALFPERF_PHASES=1 "$bin" run --quick "${kernels[@]}" --out "$tmp/suite.json" --force \
  > /dev/null 2> "$tmp/phases.txt"
t1=$(now)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
row "(all of them, one run)" "$est" "$wall" ""
echo "load average (1 min) after: $(load)"
echo "where the whole run's time went, kernel by kernel:"
grep '^phases' "$tmp/phases.txt" || true
awk -v e="$est" -v m="$wall" 'BEGIN { r = m / e; exit !(r >= 0.75 && r <= 1.25) }'
