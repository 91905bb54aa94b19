#!/usr/bin/env bash
# Regenerates the figures of a folder of scenarios: for every DIR/*.yaml (or
# configs/PAPER/*.yaml) with a `sweep:` or `plot:` section, runs `trigsim
# sweep` into NAME.csv, then plots NAME.png with tools/plot.sh from the
# file's `plot:` section (default: x the first axis, or policy; y
# total_time_ps; series policy; facet and where as written) and writes the
# same numbers as a markdown table NAME.md. Prints the time taken.
# NAME.fit.yaml files are `trigsim fit` files, not scenarios: skipped.
#   tools/reproduce.sh gputn-sc17|DIR [--out OUT] [-j N]
# A folder that exists is taken as it is (your own scenarios, anywhere);
# else the name of one under configs/. OUT defaults to
# build/reproduce/NAME (NAME: the folder's base name). TRIGSIM names the
# binary (default build/trigsim, built first when missing).
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
if [ ! -x "$trigsim" ]; then
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$root/build" -j"$(nproc)" --target trigsim >/dev/null
fi
mkdir -p "$out"

figures=0
for f in "$dir"/*.yaml; do
  [ -e "$f" ] || continue
  case $f in *.fit.yaml) continue ;; esac   # fit files (trigsim fit), not scenarios
  name=$(basename "$f" .yaml)
  plan=$("$trigsim" validate --plan "$f") || exit 2
  declare -A p=()
  while IFS='=' read -r k v; do p[$k]=$v; done <<< "$plan"
  if [ "${p[sweep]}" = 0 ] && ! grep -q '^plot\.' <<< "$plan"; then
    echo "$name: skipped (no sweep: or plot: section)"
    unset p
    continue
  fi
  "$trigsim" sweep "$f" -q ${jobs:+-j "$jobs"} -o "$out/$name.csv"
  x=${p[plot.x]:-}
  if [ -z "$x" ]; then
    x=policy
    for i in 0 1 2 3 4 5 6 7; do
      a=${p[axis$i]:-}
      if [ -n "$a" ] && [ "$a" != policy ]; then x=$a; break; fi
    done
  fi
  args=(--x "$x" --y "${p[plot.y]:-total_time_ps}")
  series=${p[plot.series]:-policy}
  [ "$series" = "$x" ] || args+=(--series "$series")
  [ "${p[plot.logx]:-false}" = true ] && args+=(--logx)
  [ "${p[plot.logy]:-false}" = true ] && args+=(--logy)
  [ -n "${p[plot.title]:-}" ] && args+=(--title "${p[plot.title]}")
  [ -n "${p[plot.xlabel]:-}" ] && args+=(--xlabel "${p[plot.xlabel]}")
  [ -n "${p[plot.ylabel]:-}" ] && args+=(--ylabel "${p[plot.ylabel]}")
  [ -n "${p[plot.speedup_over]:-}" ] && args+=(--speedup-over "${p[plot.speedup_over]}")
  [ -n "${p[plot.facet]:-}" ] && args+=(--facet "${p[plot.facet]}")
  for i in $(seq 0 63); do
    [ -n "${p[plot.where.$i]:-}" ] || break
    args+=(--where "${p[plot.where.$i]}")
  done
  "$root/tools/plot.sh" "$out/$name.csv" "${args[@]}" --out "$out/$name.png" --table "$out/$name.md.body"
  { echo "# ${p[plot.title]:-$name}"; echo; echo "From \`${dir#"$root"/}/$name.yaml\` (${p[points]} points); y: ${p[plot.y]:-total_time_ps}$(case ${p[plot.speedup_over]:-}:${p[plot.y]:-total_time_ps} in :*_ps) echo " in us" ;; esac)${p[plot.speedup_over]:+, speedup over ${p[plot.speedup_over]}}."; echo; cat "$out/$name.md.body"; } > "$out/$name.md.tmp"
  rm -f "$out/$name.md.body"
  mv -f "$out/$name.md.tmp" "$out/$name.md"
  echo "$name: $out/$name.png, $out/$name.md, $out/$name.csv"
  figures=$((figures + 1))
  unset p
done
end=$(date +%s.%N)
[ "$figures" -gt 0 ] || { echo "reproduce.sh: $paper: no figure made (no scenario with a sweep: or plot: section)" >&2; exit 1; }
awk -v p="$paper" -v n="$figures" -v a="$start" -v b="$end" 'BEGIN { printf "%s: %d figure(s) in %.2f s\n", p, n, b - a }'
