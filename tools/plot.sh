#!/usr/bin/env bash
# Plots a column of a sweep CSV (trigsim sweep / trigsim run -f csv) against
# another with gnuplot: one curve per value of a series column, rows that
# share (series, x) averaged (repetitions), PNG or SVG by the file's suffix.
#   tools/plot.sh CSV --x COL --y COL [--series COL] [--logx] [--logy]
#                 [--title T] [--xlabel T] [--ylabel T] [--speedup-over S]
#                 [--table FILE.md] --out FILE.png|FILE.svg
# x values with units (8B, 1KiB, 1.5us, 100Gbps) are plotted in base units
# (bytes, ps, bps); non-numeric x (policy names) become categories. An x
# or y column ending in _ps is shown in microseconds. --speedup-over S plots, for
# each x, (y of series S) / y: the speedup over S.
set -euo pipefail

die() { echo "plot.sh: $*" >&2; exit 2; }

csv="" x="" y="" series="" logx=0 logy=0 title="" xlabel="" ylabel="" out="" base="" table=""
[ $# -ge 1 ] || die "usage: tools/plot.sh CSV --x COL --y COL [--series COL] [--logx] [--logy] [--title T] [--speedup-over S] [--table FILE.md] --out FILE.png|.svg"
csv=$1
shift
while [ $# -gt 0 ]; do
  case $1 in
    --x) x=${2-}; shift 2 ;;
    --y) y=${2-}; shift 2 ;;
    --series) series=${2-}; shift 2 ;;
    --logx) logx=1; shift ;;
    --logy) logy=1; shift ;;
    --title) title=${2-}; shift 2 ;;
    --xlabel) xlabel=${2-}; shift 2 ;;
    --ylabel) ylabel=${2-}; shift 2 ;;
    --speedup-over) base=${2-}; shift 2 ;;
    --table) table=${2-}; shift 2 ;;
    --out) out=${2-}; shift 2 ;;
    *) die "unknown option '$1'" ;;
  esac
done
[ -r "$csv" ] || die "$csv: cannot read"
[ -n "$x" ] || die "--x: expected a column name"
[ -n "$y" ] || die "--y: expected a column name"
[ -n "$out" ] || die "--out: expected FILE.png or FILE.svg"
case $out in
  *.png) term="pngcairo size 900,600 font ',11'" ;;
  *.svg) term="svg size 900,600 dynamic font 'sans,11'" ;;
  *) die "--out: expected FILE.png or FILE.svg, got $out" ;;
esac
command -v gnuplot >/dev/null || die "gnuplot not found (Debian: apt-get install gnuplot-nox)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One block per series ("# series" then "xnum y xlabel" lines), blocks split
# by two blank lines; x units and scales on stdout's first line (meta).
awk -v X="$x" -v Y="$y" -v S="$series" -v BASE="$base" -v DATA="$tmp/data" \
    -v META="$tmp/meta" -v TABLE="$tmp/table" '
function split_csv(line, f,    n, i, c, q, cur) {
  n = 0; cur = ""; q = 0
  for (i = 1; i <= length(line); i++) {
    c = substr(line, i, 1)
    if (q) {
      if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ } else q = 0 }
      else cur = cur c
    } else if (c == "\"") q = 1
    else if (c == ",") { f[++n] = cur; cur = "" }
    else cur = cur c
  }
  f[++n] = cur
  return n
}
# Value with a unit in base units; sets UNIT; "" when not a number.
function to_num(s,    m, num, u) {
  if (!match(s, /^-?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?/)) return ""
  num = substr(s, 1, RLENGTH) + 0; u = substr(s, RLENGTH + 1)
  if (u == "") { UNIT = ""; return num }
  m["ps"] = 1; m["ns"] = 1e3; m["us"] = 1e6; m["ms"] = 1e9; m["s"] = 1e12
  m["B"] = 1; m["KB"] = 1e3; m["MB"] = 1e6; m["GB"] = 1e9
  m["KiB"] = 1024; m["MiB"] = 1048576; m["GiB"] = 1073741824
  m["bps"] = 1; m["Kbps"] = 1e3; m["Mbps"] = 1e6; m["Gbps"] = 1e9; m["Tbps"] = 1e12
  m["Hz"] = 1; m["kHz"] = 1e3; m["KHz"] = 1e3; m["MHz"] = 1e6; m["GHz"] = 1e9
  if (!(u in m)) return ""
  UNIT = (u ~ /s$/ && u !~ /bps$/) ? "ps" : (u ~ /B$/) ? "B" : (u ~ /bps$/) ? "bps" : "Hz"
  return num * m[u]
}
NR == 1 {
  n = split_csv($0, h)
  for (i = 1; i <= n; i++) col[h[i]] = i
  if (!(X in col)) { print "plot.sh: --x: no column \"" X "\" in the CSV" > "/dev/stderr"; bad = 1; exit 2 }
  if (!(Y in col)) { print "plot.sh: --y: no column \"" Y "\" in the CSV" > "/dev/stderr"; bad = 1; exit 2 }
  if (S != "" && !(S in col)) { print "plot.sh: --series: no column \"" S "\" in the CSV" > "/dev/stderr"; bad = 1; exit 2 }
  next
}
{
  split_csv($0, f)
  xv = f[col[X]]; yv = f[col[Y]]; sv = S != "" ? f[col[S]] : Y
  if (yv == "") next
  if (!(sv in sidx)) { sidx[sv] = ++ns; sname[ns] = sv }
  if (!(xv in xidx)) { xidx[xv] = ++nx; xname[nx] = xv }
  k = sidx[sv] SUBSEP xidx[xv]
  sum[k] += yv; cnt[k]++
}
END {
  if (bad) exit 2
  numeric = 1; xunit = ""
  for (i = 1; i <= nx; i++) {
    UNIT = ""; v = to_num(xname[i])
    if (v == "") { numeric = 0; break }
    xnum[i] = v; if (UNIT != "") xunit = UNIT
  }
  if (numeric && (xunit == "ps" || (xunit == "" && X ~ /_ps$/))) { for (i = 1; i <= nx; i++) xnum[i] /= 1e6; xunit = "us" }
  yscale = (Y ~ /_ps$/ && BASE == "") ? 1e-6 : 1
  if (S == "" && yscale != 1) sname[1] = substr(Y, 1, length(Y) - 3) " (us)"
  if (BASE != "" && !(BASE in sidx)) { print "plot.sh: --speedup-over: no series \"" BASE "\"" > "/dev/stderr"; exit 2 }
  for (s = 1; s <= ns; s++) {
    if (BASE != "" && sname[s] == BASE) continue
    printf "# %s\n", sname[s] > DATA
    for (i = 1; i <= nx; i++) {
      k = s SUBSEP i
      if (!(k in cnt)) continue
      v = sum[k] / cnt[k]
      if (BASE != "") {
        b = sidx[BASE] SUBSEP i
        if (!(b in cnt) || v == 0) continue
        v = (sum[b] / cnt[b]) / v
      }
      val[k] = v * yscale
      printf "%.10g %.10g \"%s\"\n", numeric ? xnum[i] : i - 1, v * yscale, xname[i] > DATA
    }
    printf "\n\n" > DATA
    titles = titles (titles == "" ? "" : "\t") sname[s]
  }
  print numeric, (xunit == "" ? "-" : xunit), (BASE != "" ? "speedup" : yscale != 1 ? "us" : "-") > META
  print titles > META
  # The markdown table: one row per x, one column per series.
  line = "| " X " |"; sep = "|---|"
  for (s = 1; s <= ns; s++) if (BASE == "" || sname[s] != BASE) { line = line " " sname[s] " |"; sep = sep "---|" }
  print line > TABLE; print sep > TABLE
  for (i = 1; i <= nx; i++) {
    line = "| " xname[i] " |"
    for (s = 1; s <= ns; s++) {
      if (BASE != "" && sname[s] == BASE) continue
      k = s SUBSEP i
      line = line " " ((k in val) ? sprintf("%.4g", val[k]) : "-") " |"
    }
    print line > TABLE
  }
}' "$csv" || exit 2

read -r numeric xunit yunit < "$tmp/meta"
[ "$xunit" != - ] || xunit=""
IFS=$'\t' read -r -a titles < <(sed -n 2p "$tmp/meta")
[ ${#titles[@]} -gt 0 ] || die "$csv: no rows to plot"
[ -n "$xlabel" ] || xlabel="$x${xunit:+ ($xunit)}"
if [ -z "$ylabel" ]; then
  case $yunit in
    speedup) ylabel="speedup over $base" ;;
    us) ylabel="${y%_ps} (us)" ;;
    *) ylabel=$y ;;
  esac
fi
q() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }

{
  echo "set terminal $term"
  echo "set output \"$(q "$out.tmp")\""
  echo "set title \"$(q "$title")\" noenhanced"
  echo "set xlabel \"$(q "$xlabel")\" noenhanced"
  echo "set ylabel \"$(q "$ylabel")\" noenhanced"
  echo "set key outside right top noenhanced"
  echo "set grid"
  [ "$logx" = 1 ] && [ "$numeric" = 1 ] && echo "set logscale x 2"
  [ "$logy" = 1 ] && echo "set logscale y"
  if [ "$numeric" = 1 ]; then
    printf 'plot'
    for i in "${!titles[@]}"; do
      printf '%s "%s" index %d using 1:2 with linespoints lw 2 title "%s"' \
        "$([ "$i" -gt 0 ] && echo ,)" "$(q "$tmp/data")" "$i" "$(q "${titles[$i]}")"
    done
    echo
  else
    echo "set style data histograms"
    echo "set style histogram clustered gap 1"
    echo "set style fill solid 0.8 border -1"
    echo "set boxwidth 0.9"
    echo "set yrange [0:*]"
    printf 'plot'
    for i in "${!titles[@]}"; do
      printf '%s "%s" index %d using 2:xtic(3) title "%s"' \
        "$([ "$i" -gt 0 ] && echo ,)" "$(q "$tmp/data")" "$i" "$(q "${titles[$i]}")"
    done
    echo
  fi
} > "$tmp/plot.gp"

gnuplot "$tmp/plot.gp" || die "gnuplot failed on $csv"
mv -f "$out.tmp" "$out"
if [ -n "$table" ]; then
  cp "$tmp/table" "$table.tmp" && mv -f "$table.tmp" "$table"
fi
