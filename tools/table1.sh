#!/usr/bin/env bash
# CPU-free ICS23 Table 1 against the paper: runs configs/cpufree-ics23/
# cg-standard.yaml and cg-pipelined.yaml (the catalogue's generated
# matrices), prints per matrix the time per iteration (us) of gds, overlap
# and cpufree, the speedups cpufree / gds for both variants with the
# paper's pipelined column, the nnz imbalance, largest halo, most remote
# reads (non-zeros whose x another GPU owns) and longest row over the
# ranks, and
# then the geometric means and Spearman's rank correlation (tools/rankcorr.c,
# GSL) of the pipelined speedups with the paper's.
#   tools/table1.sh [--out DIR]        # DIR: build/table1
# TRIGSIM and RANKCORR name the binaries (default build/trigsim, build/rankcorr).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/table1
[ "${1-}" = --out ] && out=$2
trigsim=${TRIGSIM:-$root/build/trigsim}
rankcorr=${RANKCORR:-$root/build/rankcorr}
if [ ! -x "$trigsim" ] || [ ! -x "$rankcorr" ]; then
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$root/build" -j"$(nproc)" --target trigsim rankcorr >/dev/null
fi
mkdir -p "$out"
for v in standard pipelined; do
  "$trigsim" run "$root/configs/cpufree-ics23/cg-$v.yaml" -f csv -c summary -o "$out/$v.csv"
done
# matrix policy us imbalance halo_in_max max_row remote_nnz_max, per variant
extract() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
           { printf "%s %s %.1f %.2f %d %d %d\n", $c["workload.matrix"], $c["policy"],
               $c["cg.time_per_iteration_ps"] / 1e6, $c["cg.nnz_imbalance"], $c["node.cg.halo_in.max"],
               $c["node.cg.max_row.max"], $c["node.cg.remote_nnz.max"] }' "$1"
}
extract "$out/standard.csv" >"$out/standard.txt"
extract "$out/pipelined.csv" >"$out/pipelined.txt"
paper=$root/configs/cpufree-ics23/table1-paper.txt
awk -v S="$out/standard.txt" -v P="$out/pipelined.txt" -v out="$out" '
  BEGIN {
    while ((getline l < S) > 0) { split(l, f, " "); s[f[1], f[2]] = f[3] }
    while ((getline l < P) > 0) { split(l, f, " "); p[f[1], f[2]] = f[3]; imb[f[1]] = f[4]; halo[f[1]] = f[5]; lr[f[1]] = f[6]; rem[f[1]] = f[7] }
    print "| matrix | nnz imbalance | largest halo | most remote reads | longest row | pipelined: gds | overlap | cpufree | cpufree / gds | paper | standard: cpufree / gds |"
    print "|---|---|---|---|---|---|---|---|---|---|---|"
  }
  /^#/ || NF < 2 { next }
  { m = $1
    sp = p[m, "gds"] / p[m, "cpufree"]; ss = s[m, "gds"] / s[m, "cpufree"]
    printf "| %s | %.2f | %d | %d | %d | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f |\n", m, imb[m], halo[m], rem[m], lr[m],
      p[m, "gds"], p[m, "overlap"], p[m, "cpufree"], sp, $2, ss
    printf "%s %.4f %.4f\n", m, sp, $2 > (out "/pipelined-vs-paper.txt")
    printf "%s %.4f %.4f\n", m, ss, $2 > (out "/standard-vs-paper.txt")
  }' "$paper"
echo
echo "pipelined (x: ours, y: paper): $("$rankcorr" "$out/pipelined-vs-paper.txt")"
echo "standard  (x: ours, y: paper's pipelined column; the paper's standard geomean is 1.54): $("$rankcorr" "$out/standard-vs-paper.txt")"
