#!/usr/bin/env bash
# Does a change leave halfperf's presentation byte-identical? Runs two builds
# of halfperf (BEFORE and AFTER, paths to their binaries) on the committed
# result files and compares everything they print and write:
#   - every --help and -h (the top level, each command, each model command),
#   - list (table and --json), schema,
#   - card (table and --json) of every committed result file,
#   - compare of the reference files against each other, in every format
#     (table, --json, --csv, each with and without --points, and --floor 0),
#   - report (its whole output folder) of each file alone and of all together,
#   - index of the committed files.
# Each command's stdout, stderr and exit code go to OUT/before and OUT/after;
# the script ends with `diff -r` of the two and exits 1 if they differ.
#
# Usage: scripts/same-output.sh BEFORE AFTER [OUT]   (from the repository root)
# e.g.   git worktree add ../halfperf-main main && (cd ../halfperf-main && cargo build --release)
#        cargo build --release
#        scripts/same-output.sh ../halfperf-main/target/release/halfperf target/release/halfperf
set -euo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: $0 BEFORE AFTER [OUT]" >&2
    exit 2
fi
before=$(realpath "$1")
after=$(realpath "$2")
out=$(realpath -m "${3:-target/same-output}")
root=$(pwd)
for bin in "$before" "$after"; do
    [[ -x $bin ]] || { echo "$bin: not an executable" >&2; exit 2; }
done
[[ -d results ]] || { echo "run it from the repository root" >&2; exit 2; }

files=()
for f in results/*.json results/machines/*.json.gz tests/data/*.json; do
    [[ $(basename "$f") == schema.json ]] && continue
    [[ -e $f ]] && files+=("$root/$f")
done
refs=()
for f in results/*.json results/machines/*.json.gz; do
    [[ $(basename "$f") == schema.json ]] && continue
    refs+=("$root/$f")
done

# The commands, one per line, arguments separated by tabs.
commands=$(mktemp)
trap 'rm -f "$commands"' EXIT
emit() { local IFS=$'\t'; echo "$*" >>"$commands"; }

subcommands() {
    "$before" "$@" --help | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}' |
        grep -v '^help$'
}
emit --help
emit -h
emit --version
for c in $(subcommands); do
    emit "$c" --help
    emit "$c" -h
done
for m in $(subcommands model); do
    emit model "$m" --help
done
emit list
emit list --json
emit schema
for f in "${files[@]}"; do
    emit card "$f"
    emit card --json "$f"
done
n=${#refs[@]}
for ((i = 0; i < n; i++)); do
    for ((j = i + 1; j < n; j++)); do
        for fmt in "" --json --csv; do
            for points in "" --points; do
                emit compare ${fmt:+"$fmt"} ${points:+"$points"} "${refs[i]}" "${refs[j]}"
            done
        done
        emit compare --floor 0 "${refs[i]}" "${refs[j]}"
    done
done
emit compare "${refs[@]}"
k=0
for f in "${files[@]}"; do
    emit report --out "report-$k" "$f"
    k=$((k + 1))
done
emit report --out report-all "${refs[@]}"
emit index "${refs[@]}"

run_all() {
    local bin=$1 dir=$2 k=0
    rm -rf "$dir"
    mkdir -p "$dir"
    while IFS=$'\t' read -r -a args; do
        k=$((k + 1))
        local name
        name=$(printf '%04d' "$k")
        printf '%s\n' "${args[*]}" >"$dir/$name.cmd"
        # The binary's own name (in usage lines) is not part of the output
        # under test: both run as `halfperf`.
        local rc=0
        (cd "$dir" && exec -a halfperf "$bin" "${args[@]}") >"$dir/$name.out" 2>"$dir/$name.err" ||
            rc=$?
        echo "$rc" >"$dir/$name.rc"
    done <"$commands"
    echo "$k commands"
}

echo "before: $(run_all "$before" "$out/before")"
echo "after:  $(run_all "$after" "$out/after")"
if diff -r "$out/before" "$out/after" >"$out/diff.txt"; then
    echo "identical: $(ls "$out/before"/*.cmd | wc -l) commands, every output and written file"
else
    echo "DIFFERENT: see $out/diff.txt" >&2
    head -40 "$out/diff.txt" >&2
    exit 1
fi
