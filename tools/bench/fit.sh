#!/usr/bin/env bash
# The cost of `trigsim fit` where it is largest (tools/bench/README.md
# "trigsim fit"): stage 3 of tools/cpufree-fit.sh, the SpMV parts of 17
# catalogue matrices at 8 GPUs and the CPU-Free code's 1-GPU runs of the
# same 17 (two scenarios, 51 runs an evaluation), cut to one iteration of
# the fit (19 evaluations: its start, central differences in 4 values,
# the trial steps). Prints each binary's wall and CPU time and peak memory,
# and that the two fragments agree.
# Usage: tools/bench/fit.sh [BASE_TRIGSIM]
#   BUILD_DIR (default build): its trigsim is measured, and its
#   cpufree-fit/spmv.fit.yaml (written by tools/cpufree-fit.sh BUILD_DIR)
#   is the fit. BASE_TRIGSIM, another build's trigsim (e.g. an older
#   commit's, `git worktree add`), is measured first on the same fit for
#   the ratio; it must read the same scenario keys.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
fit="$build/cpufree-fit/spmv.fit.yaml"
[ -f "$fit" ] || { echo "fit.sh: expected $fit (run tools/cpufree-fit.sh $build first)" >&2; exit 2; }
cut="$build/cpufree-fit/bench.fit.yaml"
sed 's/max_iterations: [0-9]*/max_iterations: 1/' "$fit" > "$cut"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bins=()
[ $# -ge 1 ] && bins+=("$1")
bins+=("$build/trigsim")
i=0
for b in "${bins[@]}"; do
  /usr/bin/time -f "$b: %e s wall, %U s user, %M KB peak" "$b" fit "$cut" -q -j 2 -o "$out/$i.yaml"
  grep -v '^#' "$out/$i.yaml" | grep -v '^  fit:' > "$out/$i.values"
  i=$((i + 1))
done
if [ $i -eq 2 ]; then
  cmp -s "$out/0.values" "$out/1.values" && echo "fit.sh: the two fragments agree" ||
    echo "fit.sh: the two fragments differ"
fi
