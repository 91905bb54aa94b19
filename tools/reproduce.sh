#!/usr/bin/env bash
# Regenerates the figures of a folder of scenarios: for every DIR/*.yaml (or
# configs/PAPER/*.yaml) with a `sweep:` or `plot:` section, runs `trigsim
# sweep` into NAME.csv, then plots NAME.png with tools/plot.sh from the
# file's `plot:` section (default: x the first axis, or policy; y
# total_time_ps; series policy; facet and where as written) and writes the
# same numbers as a markdown table NAME.md; a `plot:` list (each with a
# name) makes NAME-<name>.png and .md from the one sweep. Prints the time
# taken.
# NAME.fit.yaml files are `trigsim fit` files, not scenarios: skipped. A
# folder may list more scenarios in DIR/scenarios.list and summarise its
# CSVs with DIR/summary.sh OUT (OUT/summary.md).
#   tools/reproduce.sh gputn-sc17|DIR [--out OUT] [-j N]
# A folder that exists is taken as it is (your own scenarios, anywhere);
# else the name of one under configs/. OUT defaults to
# build/reproduce/NAME (NAME: the folder's base name). TRIGSIM names the
# binary (default build/trigsim, built first every time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "reproduce.sh: $*" >&2; exit 2; }

[ $# -ge 1 ] || die "usage: tools/reproduce.sh PAPER|DIR [--out OUT] [-j N]"
paper=$1
shift
out="" jobs=""
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=${2-}; shift 2 ;;
    -j) jobs=${2-}; shift 2 ;;
    *) die "unknown option '$1'" ;;
  esac
done
if [ -d "$paper" ]; then
  dir=$(cd "$paper" && pwd)
  paper=$(basename "$dir")
else
  dir="$root/configs/$paper"
  [ -d "$dir" ] || die "expected a folder of scenarios or one of configs/ ($(cd "$root/configs" && ls -d */ | tr -d / | tr '\n' ' ')), got $paper"
fi
out=${out:-$root/build/reproduce/$paper}
trigsim=${TRIGSIM:-$root/build/trigsim}
start=$(date +%s.%N)
# Built every time (a no-op when up to date): a binary older than the
# sources would read today's scenarios with yesterday's parameters.
if [ -z "${TRIGSIM:-}" ]; then
  [ -f "$root/build/CMakeCache.txt" ] ||
    cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$root/build" -j"$(nproc)" --target trigsim >/dev/null
fi
mkdir -p "$out"

# configs/PAPER/scenarios.list: more scenarios, one glob a line relative to
# configs/ (a paper whose runs live beside other uses, e.g. fused/*.yaml).
extra=()
if [ -f "$dir/scenarios.list" ]; then
  while read -r g; do
    case $g in ''|'#'*) continue ;; esac
    for f in "$root"/configs/$g; do [ -e "$f" ] && extra+=("$f"); done
  done < "$dir/scenarios.list"
fi
figures=0
# Plots $out/$name.csv as $out/$2.png and .md from the plan's keys "$1.*"
# (p, name, paper, f: the loop's).
plot_one() {
  local pre=$1 fig=$2 x args series
  x=${p[$pre.x]:-}
  if [ -z "$x" ]; then
    x=policy
    for i in 0 1 2 3 4 5 6 7; do
      a=${p[axis$i]:-}
      if [ -n "$a" ] && [ "$a" != policy ]; then x=$a; break; fi
    done
  fi
  local y=${p[$pre.y]:-total_time_ps}
  if [ -n "${p[$pre.stack]:-}" ]; then   # one stacked bar per x (plot.sh --stack)
    args=(--x "$x" --stack "${p[$pre.stack]}")
    y="${p[$pre.stack]}, stacked"
  else
    args=(--x "$x" --y "$y")
    series=${p[$pre.series]:-policy}
    [ "$series" = "$x" ] || args+=(--series "$series")
  fi
  [ "${p[$pre.logx]:-false}" = true ] && args+=(--logx)
  [ "${p[$pre.logy]:-false}" = true ] && args+=(--logy)
  [ -n "${p[$pre.title]:-}" ] && args+=(--title "${p[$pre.title]}")
  [ -n "${p[$pre.xlabel]:-}" ] && args+=(--xlabel "${p[$pre.xlabel]}")
  [ -n "${p[$pre.ylabel]:-}" ] && args+=(--ylabel "${p[$pre.ylabel]}")
  [ -n "${p[$pre.speedup_over]:-}" ] && args+=(--speedup-over "${p[$pre.speedup_over]}")
  [ -n "${p[$pre.facet]:-}" ] && args+=(--facet "${p[$pre.facet]}")
  for i in $(seq 0 63); do
    [ -n "${p[$pre.where.$i]:-}" ] || break
    args+=(--where "${p[$pre.where.$i]}")
  done
  "$root/tools/plot.sh" "$out/$name.csv" "${args[@]}" --out "$out/$fig.png" --table "$out/$fig.md.body"
  { echo "# ${p[$pre.title]:-$fig}"; echo; echo "From \`${f#"$root"/}\` (${p[points]} points); y: $y$(case ${p[$pre.speedup_over]:-}:$y in :*_ps|:*_ps,\ stacked) echo " in us" ;; esac)${p[$pre.speedup_over]:+, speedup over ${p[$pre.speedup_over]}}."; echo; cat "$out/$fig.md.body"; } > "$out/$fig.md.tmp"
  rm -f "$out/$fig.md.body"
  mv -f "$out/$fig.md.tmp" "$out/$fig.md"
  echo "$fig: $out/$fig.png, $out/$fig.md, $out/$name.csv"
  figures=$((figures + 1))
}
for f in "$dir"/*.yaml "${extra[@]}"; do
  [ -e "$f" ] || continue
  case $f in *.fit.yaml) continue ;; esac   # fit files (trigsim fit), not scenarios
  name=$(basename "$f" .yaml)
  # A hardware profile beside the scenarios (fused/hw.yaml) has no
  # workload: skipped; any other error stops the run.
  if ! plan=$("$trigsim" validate --plan "$f" 2> "$out/.validate.err"); then
    if grep -q "workload: expected a 'workload' mapping with a 'kind', got nothing" \
         "$out/.validate.err"; then
      echo "$name: skipped (a hardware profile: no workload)"
      rm -f "$out/.validate.err"
      continue
    fi
    cat "$out/.validate.err" >&2
    rm -f "$out/.validate.err"
    exit 2
  fi
  rm -f "$out/.validate.err"
  declare -A p=()
  while IFS='=' read -r k v; do p[$k]=$v; done <<< "$plan"
  if [ "${p[sweep]}" = 0 ] && ! grep -q '^plot[0-9]*\.' <<< "$plan"; then
    echo "$name: skipped (no sweep: or plot: section)"
    unset p
    continue
  fi
  # -c summary: a plot may draw a counter (cg.time_per_iteration_ps); the
  # default CSV is narrow (issue 33)
  "$trigsim" sweep "$f" -q -c summary ${jobs:+-j "$jobs"} -o "$out/$name.csv"
  if [ -n "${p[plots]:-}" ]; then   # a list of plots: one figure each, NAME-<name>.png
    for ((k = 0; k < p[plots]; k++)); do plot_one "plot$k" "$name-${p[plot$k.name]}"; done
  else
    plot_one plot "$name"
  fi
  unset p
done
# configs/PAPER/summary.sh OUT: the paper's figures from the CSVs (OUT/summary.md).
if [ -f "$dir/summary.sh" ]; then
  bash "$dir/summary.sh" "$out" || die "$paper: summary.sh failed"
  echo "summary: $out/summary.md"
fi
end=$(date +%s.%N)
[ "$figures" -gt 0 ] || { echo "reproduce.sh: $paper: no figure made (no scenario with a sweep: or plot: section)" >&2; exit 1; }
awk -v p="$paper" -v n="$figures" -v a="$start" -v b="$end" 'BEGIN { printf "%s: %d figure(s) in %.2f s\n", p, n, b - a }'
