#!/usr/bin/env bash
# Golden outputs: every scenario under configs/ (a YAML file `trigsim
# validate` accepts; hardware profiles are not scenarios) run as
# tests/test_golden.c runs it (`trigsim run SCENARIO -f csv -q -c summary`), in
# parallel, its CSV less the `events` column (engine bookkeeping, which
# every engine optimisation moves: reported, not compared) compared with
# tests/golden/<path>.csv (default: a diff per scenario that moved, exit 1)
# or written there (--update: the goldens are replaced only when every
# scenario ran; goldens of scenarios that no longer exist are removed).
# Review the diff before committing; commit goldens on their own, saying why.
# Each run keeps the events per row in BUILD_DIR/golden-events.tsv and
# names the rows whose events moved since the last run there.
# Usage: tools/golden.sh [--update] [-j N] [SCENARIO.yaml...]
#        tools/golden.sh --check-history [REV]
#   BUILD_DIR (default build) is configured and built if needed.
#   --check-history: every commit from the one that introduced this check
#   to REV (default HEAD) that changes tests/golden/ is no merge (a merge
#   takes each golden whole from one of its parents) and names the goldens
#   in its message; exit 1 naming the commits that break it (0 outside a
#   git checkout, or when the history is too shallow to hold the check).
set -euo pipefail
cd "$(dirname "$0")/.."

# ---- --check-history ----
check_history() {
  local rev=${1:-HEAD}
  if ! command -v git >/dev/null || ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "golden.sh: not a git checkout: golden history not checked"
    return 0
  fi
  # The commit that introduced this check: older history is as it was
  # (merges before it did move goldens), newer history keeps the rule.
  local base
  base=$(git log --format=%H --reverse -S'check_history()' "$rev" -- tools/golden.sh | head -n 1)
  if [ -z "$base" ]; then
    echo "golden.sh: the commit that introduced --check-history is not in this history (a shallow clone?): not checked"
    return 0
  fi
  local bad=0 n=0 c parents files
  for c in $(git rev-list "$base..$rev"); do
    parents=$(git rev-list --parents -n 1 "$c" | wc -w)
    if [ "$parents" -gt 2 ]; then
      # Files of tests/golden/ that differ from every parent: made in the merge.
      files=$(git diff-tree -r -c --no-commit-id --name-only "$c" -- tests/golden)
      if [ -n "$files" ]; then
        echo "golden.sh: $(git log -1 --format='%h %s' "$c" | cut -c1-100): a merge that changes goldens (take each from one parent; regenerate in a commit of its own that says why):" >&2
        echo "$files" | sed 's/^/  /' >&2
        bad=$((bad + 1))
      fi
    else
      files=$(git diff-tree -r --no-commit-id --name-only "$c" -- tests/golden)
      [ -n "$files" ] || continue
      n=$((n + 1))
      if ! git log -1 --format=%B "$c" | grep -qi golden; then
        echo "golden.sh: $(git log -1 --format='%h %s' "$c" | cut -c1-100): changes goldens without naming them in its message (say which moved and why)" >&2
        bad=$((bad + 1))
      fi
    fi
  done
  echo "golden.sh: history since $(git log -1 --format=%h "$base"): $n commit(s) changed goldens; $bad broke the rule"
  [ $bad -eq 0 ]
}
if [ "${1:-}" = "--check-history" ]; then
  shift
  check_history "$@"
  exit $?
fi

update=0
jobs=$(nproc)
picked=()
while [ $# -gt 0 ]; do
  case "$1" in
    --update) update=1 ;;
    -j) shift; jobs=${1:?-j: expected a count} ;;
    -j*) jobs=${1#-j} ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "golden.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) picked+=("$1") ;;
  esac
  shift
done
build=${BUILD_DIR:-build}
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j"$jobs" --target trigsim >/dev/null
bin=$(cd "$build" && pwd)/trigsim
start=$(date +%s.%N)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ ${#picked[@]} -eq 0 ]; then
  mapfile -t picked < <(find configs -name '*.yaml' | LC_ALL=C sort)
  all=1
else
  all=0
fi
# The printed CSV on stdin without its `events` column (to stdout) and the
# events per row, "ROW<tab>EVENTS", to file $1. Fields split by RFC 4180
# quoting, as tools/app/report.c writes them; the others are kept as printed.
strip_events() {
  awk -v evfile="$1" '
    function csvsplit(line, f,    n, i, c, q, cur) {
      n = 0; cur = ""; q = 0
      for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\"") q = !q
        if (c == "," && !q) { f[++n] = cur; cur = "" } else cur = cur c
      }
      f[++n] = cur
      return n
    }
    {
      n = csvsplit($0, f)
      if (NR == 1) for (i = 1; i <= n; i++) if (f[i] == "events") ev = i
      line = ""; first = 1
      for (i = 1; i <= n; i++) {
        if (i == ev) continue
        line = first ? f[i] : line "," f[i]
        first = 0
      }
      print line
      if (NR > 1 && ev) printf "%d\t%s\n", NR - 1, f[ev] > evfile
    }'
}
# One scenario: configs/DIR/NAME.yaml -> $out/DIR/NAME.csv and .events (or
# .skip, .fail).
run_one() {
  local yaml=$1 rel=${1#configs/}
  rel=${rel%.yaml}
  mkdir -p "$out/$(dirname "$rel")"
  if ! "$bin" validate "$yaml" >/dev/null 2>&1; then
    : >"$out/$rel.skip"
    return 0
  fi
  if "$bin" run "$yaml" -f csv -q -c summary -o "$out/$rel.full" 2>"$out/$rel.err"; then
    strip_events "$out/$rel.events" <"$out/$rel.full" >"$out/$rel.csv"
  else
    mv "$out/$rel.err" "$out/$rel.fail"
  fi
  rm -f "$out/$rel.err" "$out/$rel.full"
}
export -f run_one strip_events
export bin out
printf '%s\n' "${picked[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$1"' _ {}

status=0
for f in $(cd "$out" && find . -name '*.fail' | LC_ALL=C sort); do
  echo "golden.sh: configs/${f#./}: the run failed:" | sed 's/\.fail:/.yaml:/' >&2
  cat "$out/$f" >&2
  status=1
done
[ $status -eq 0 ] || { echo "golden.sh: goldens left as they were" >&2; exit 1; }

# The cells that moved, as the test names them: scenario, row (axes and
# policy), column, golden and printed values; at most 20 per scenario.
celldiff() {
  if [ ! -f "$1" ]; then echo "$3: no golden yet"; return; fi
  awk -F, -v name="$3" '
    FNR == 1 { for (i = 1; i <= NF; i++) { if (FILENAME == ARGV[1]) wh[i] = $i; else gh[$i] = i }; next }
    FILENAME == ARGV[1] { want[FNR] = $0; nw = FNR; next }
    { got[FNR] = $0; ng = FNR }
    END {
      for (i in wh) if (!(wh[i] in gh)) report(sprintf("column %s: in the golden, no longer printed", wh[i]))
      if (nw != ng) report(sprintf("%d rows in the golden, %d printed", nw - 1, ng - 1))
      for (r = 2; r <= nw && r <= ng; r++) {
        nf = split(want[r], w, ","); split(got[r], g, ",")
        row = ""
        for (c = 4; c <= nf; c++) { row = row (row ? ", " : "") wh[c] "=" w[c]; if (wh[c] == "policy") break }
        for (c = 1; c <= nf; c++) if (wh[c] in gh && w[c] != g[gh[wh[c]]])
          report(sprintf("row %d (%s): %s: golden %s, printed %s", r - 1, row, wh[c], w[c], g[gh[wh[c]]]))
      }
      if (n > 20) printf "%s: ... %d differences in all\n", name, n
    }
    function report(s) { if (++n <= 20) printf "%s: %s\n", name, s }' "$1" "$2"
}

n=0 moved=0
for f in $(cd "$out" && find . -name '*.csv' | LC_ALL=C sort); do
  rel=${f#./}
  n=$((n + 1))
  if ! cmp -s "$out/$rel" "tests/golden/$rel" 2>/dev/null; then
    moved=$((moved + 1))
    if [ $update -eq 0 ]; then
      celldiff "tests/golden/$rel" "$out/$rel" "${rel%.csv}"
    fi
  fi
done
stale=()
if [ $all -eq 1 ] && [ -d tests/golden ]; then
  for g in $(cd tests/golden && find . -name '*.csv' | LC_ALL=C sort); do
    [ -f "$out/${g#./}" ] || stale+=("${g#./}")
  done
fi
if [ $update -eq 1 ]; then
  for f in $(cd "$out" && find . -name '*.csv'); do
    mkdir -p "tests/golden/$(dirname "${f#./}")"
    cp "$out/${f#./}" "tests/golden/${f#./}"
  done
  for g in "${stale[@]}"; do rm -f "tests/golden/$g"; done
  find tests/golden -type d -empty -delete
fi
# Events: engine bookkeeping, reported against the last run in this build
# directory, never compared with a golden.
events_now=$(mktemp)
for f in $(cd "$out" && find . -name '*.events' | LC_ALL=C sort); do
  rel=${f#./}
  sed "s|^|${rel%.events}\t|" "$out/$rel" >>"$events_now"
done
events_file="$build/golden-events.tsv"
if [ -f "$events_file" ]; then
  awk -F'\t' -v b="$build" '
    FNR == NR { was[$1 "\t" $2] = $3; next }
    ($1 "\t" $2) in was && was[$1 "\t" $2] != $3 {
      if (++n <= 10) printf "golden.sh: events (not compared): %s row %s: %s -> %s\n", $1, $2, was[$1 "\t" $2], $3
    }
    END { if (n > 10) printf "golden.sh: events (not compared): ... %d rows moved since the last run in %s\n", n, b }' \
    "$events_file" "$events_now"
fi
cp "$events_now" "$events_file"
rm -f "$events_now"
end=$(date +%s.%N)
verb=$([ $update -eq 1 ] && echo "rewritten" || echo "differ")
awk -v n="$n" -v m="$moved" -v s="${#stale[@]}" -v v="$verb" -v a="$start" -v b="$end" \
  'BEGIN { printf "golden.sh: %d scenarios in %.1f s; %d %s; %d stale golden(s)%s\n", n, b - a, m, v, s, (v == "rewritten" && s) ? " removed" : "" }'
if [ $update -eq 0 ] && { [ $moved -gt 0 ] || [ ${#stale[@]} -gt 0 ]; }; then
  for g in "${stale[@]}"; do echo "golden.sh: tests/golden/$g: no such scenario" >&2; done
  exit 1
fi
exit 0
