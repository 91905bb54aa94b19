#!/usr/bin/env bash
# The tie experiment (issue 17; tools/bench/README.md "Ties between
# components"): runs scenarios as tools/golden.sh does, once in the engine's
# usual order and once per SALT with same-instant events of different
# components in a shuffled order (build option TRIGSIM_TIE_SHUFFLE, salt in
# TRIGSIM_TIE_SALT), and names each scenario whose output moved, with the
# columns that moved. A result that moves depends on how the engine breaks
# ties between components, which a fold of a hop into its sender changes.
# Usage: tools/bench/ties.sh [--arbitrate] [SCENARIO.yaml...]
#   (default: every scenario under configs/). --arbitrate sets
#   TRIGSIM_TIE_ARBITRATE in every run: switch outputs take the packets of
#   one instant by input port. SALTS (default "0 7"). BUILD_DIR (default
#   build/ties) is configured with the option and built when needed.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build/ties}
salts=${SALTS:-0 7}
if [ "${1:-}" = --arbitrate ]; then
  export TRIGSIM_TIE_ARBITRATE=1
  shift
fi
if ! grep -q '^TRIGSIM_TIE_SHUFFLE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRIGSIM_TIE_SHUFFLE=ON >/dev/null
fi
cmake --build "$build" -j2 --target trigsim >/dev/null
bin=$build/trigsim
picked=("$@")
[ ${#picked[@]} -gt 0 ] || mapfile -t picked < <(find configs -name '*.yaml' | LC_ALL=C sort)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
moved=0 ran=0
for y in "${picked[@]}"; do
  "$bin" validate "$y" >/dev/null 2>&1 || continue
  ran=$((ran + 1))
  env -u TRIGSIM_TIE_SALT "$bin" run "$y" -f csv -q -o "$tmp/base.csv"
  for s in $salts; do
    TRIGSIM_TIE_SALT=$s "$bin" run "$y" -f csv -q -o "$tmp/shuf.csv"
    cmp -s "$tmp/base.csv" "$tmp/shuf.csv" && continue
    moved=$((moved + 1))
    # Row by row, the columns whose values differ.
    awk -F, -v y="$y" -v s="$s" 'NR == FNR { a[FNR] = $0; next }
      FNR == 1 { n = split($0, h, ","); next }
      { split(a[FNR], o, ","); d = ""
        for (i = 1; i <= n; i++) if (o[i] != $i) d = d " " h[i] "(" o[i] "->" $i ")"
        if (d != "") printf "%s salt %s row %d:%s\n", y, s, FNR - 1, d }' \
      "$tmp/base.csv" "$tmp/shuf.csv" | cut -c1-400
  done
done
echo "ties.sh: $ran scenarios, salts $salts${TRIGSIM_TIE_ARBITRATE:+, --arbitrate}: $moved run(s) moved"
[ "$moved" -eq 0 ]
