#!/usr/bin/env bash
# Golden outputs: every scenario under configs/ (a YAML file `trigsim
# validate` accepts; hardware profiles are not scenarios) run as
# tests/test_golden.c runs it (`trigsim run SCENARIO -f csv -q`), in
# parallel, compared with tests/golden/<path>.csv (default: a diff per
# scenario that moved, exit 1) or written there (--update: the goldens are
# replaced only when every scenario ran; goldens of scenarios that no
# longer exist are removed). Review the diff before committing.
# Usage: tools/golden.sh [--update] [-j N] [SCENARIO.yaml...]
#   BUILD_DIR (default build) is configured and built if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
update=0
jobs=$(nproc)
picked=()
while [ $# -gt 0 ]; do
  case "$1" in
    --update) update=1 ;;
    -j) shift; jobs=${1:?-j: expected a count} ;;
    -j*) jobs=${1#-j} ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
# One scenario: configs/DIR/NAME.yaml -> $out/DIR/NAME.csv (or .skip, .fail).
run_one() {
  local yaml=$1 rel=${1#configs/}
  rel=${rel%.yaml}
  mkdir -p "$out/$(dirname "$rel")"
  if ! "$bin" validate "$yaml" >/dev/null 2>&1; then
    : >"$out/$rel.skip"
    return 0
  fi
  if ! "$bin" run "$yaml" -f csv -q -o "$out/$rel.csv" 2>"$out/$rel.err"; then
    mv "$out/$rel.err" "$out/$rel.fail"
  fi
  rm -f "$out/$rel.err"
}
export -f run_one
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
end=$(date +%s.%N)
verb=$([ $update -eq 1 ] && echo "rewritten" || echo "differ")
awk -v n="$n" -v m="$moved" -v s="${#stale[@]}" -v v="$verb" -v a="$start" -v b="$end" \
  'BEGIN { printf "golden.sh: %d scenarios in %.1f s; %d %s; %d stale golden(s)%s\n", n, b - a, m, v, s, (v == "rewritten" && s) ? " removed" : "" }'
if [ $update -eq 0 ] && { [ $moved -gt 0 ] || [ ${#stale[@]} -gt 0 ]; }; then
  for g in "${stale[@]}"; do echo "golden.sh: tests/golden/$g: no such scenario" >&2; done
  exit 1
fi
exit 0
