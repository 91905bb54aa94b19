#!/usr/bin/env bash
# Plots a column of a results CSV (trigsim sweep / trigsim run -f csv), or of
# a scenario it sweeps first, against another with gnuplot: one curve per
# value of the series column(s), one panel per value of a facet column,
# rows filtered by --where; PNG or SVG by the file's suffix.
#   tools/plot.sh CSV|SCENARIO.yaml --x COL --y COL [--series COL[,COL]]
#                 [--facet COL] [--where COL=VALUE]... [--logx] [--logy]
#                 [--title T] [--xlabel T] [--ylabel T] [--speedup-over S]
#                 [--table FILE.md] [--csv FILE] --out FILE.png|FILE.svg
# x values with units (8B, 1KiB, 1.5us, 100Gbps) are plotted in base units
# (bytes, ps, bps); non-numeric x (policy names) become categories. An x
# or y column ending in _ps is shown in microseconds. --speedup-over S plots, for
# each x, (y of series S) / y: the speedup over S. --where keeps the rows
# whose COL is VALUE (as written, or the same quantity: 1us matches
# 1000ns); repeat it for several. Rows that share (facet, series, x) are
# averaged: the repetitions of a point (`rep`) silently; rows that differ in
# another sweep axis (a column before `policy`) with a warning that names
# it, since the mean of two configurations is rarely what is meant.
# A SCENARIO is swept first (trigsim sweep, TRIGSIM or build/trigsim) into
# --csv FILE or a temporary file.
#   tools/plot.sh CSV|SCENARIO.yaml --x COL --stack COL,COL...|PATTERN ...
# draws instead one stacked bar per x value whose segments are the columns
# listed (or those PATTERN, with *, matches: 'cp_*_ps', the critical
# path's categories, GPU-TN Fig. 8 as the paper draws it); columns that are
# 0 or empty in every bar are left out; --where and --facet-less only.
set -euo pipefail

die() { echo "plot.sh: $*" >&2; exit 2; }
usage="usage: tools/plot.sh CSV|SCENARIO.yaml --x COL --y COL|--stack COLS [--series COL[,COL]] [--facet COL] [--where COL=V]... [--logx] [--logy] [--title T] [--speedup-over S] [--table FILE.md] [--csv FILE] --out FILE.png|.svg"

input="" x="" y="" series="" facet="" logx=0 logy=0 title="" xlabel="" ylabel="" out="" base="" table="" keep_csv="" stack=""
wheres=()
[ $# -ge 1 ] || die "$usage"
input=$1
shift
need() { [ $# -ge 2 ] || die "$1: expected a value"; }
while [ $# -gt 0 ]; do
  case $1 in
    --x) need "$@"; x=$2; shift 2 ;;
    --y) need "$@"; y=$2; shift 2 ;;
    --series) need "$@"; series=$2; shift 2 ;;
    --facet) need "$@"; facet=$2; shift 2 ;;
    --stack) need "$@"; stack=$2; shift 2 ;;
    --where) need "$@"; case $2 in *=*) ;; *) die "--where: expected COL=VALUE, got '$2'" ;; esac
             wheres+=("$2"); shift 2 ;;
    --logx) logx=1; shift ;;
    --logy) logy=1; shift ;;
    --title) need "$@"; title=$2; shift 2 ;;
    --xlabel) need "$@"; xlabel=$2; shift 2 ;;
    --ylabel) need "$@"; ylabel=$2; shift 2 ;;
    --speedup-over) need "$@"; base=$2; shift 2 ;;
    --table) need "$@"; table=$2; shift 2 ;;
    --csv) need "$@"; keep_csv=$2; shift 2 ;;
    --out) need "$@"; out=$2; shift 2 ;;
    *) die "unknown option '$1'" ;;
  esac
done
[ -r "$input" ] || die "$input: cannot read"
[ -n "$x" ] || die "--x: expected a column name"
if [ -n "$stack" ]; then
  [ -z "$y" ] || die "--stack: expected no --y with it (the segments are the y), got --y $y"
  for o in "$series:--series" "$facet:--facet" "$base:--speedup-over"; do
    [ -z "${o%:*}" ] || die "--stack: expected no ${o#*:} with it (one bar per x)"
  done
  [ "$logx$logy" = 00 ] || die "--stack: expected no --logx or --logy with it"
else
  [ -n "$y" ] || die "--y: expected a column name"
fi
[ -n "$out" ] || die "--out: expected FILE.png or FILE.svg"
case $out in
  *.png) term="pngcairo size 900,600 font ',11'" ;;
  *.svg) term="svg size 900,600 dynamic font 'sans,11'" ;;
  *) die "--out: expected FILE.png or FILE.svg, got $out" ;;
esac
[ -z "$facet" ] || [ "$facet" != "$x" ] || die "--facet: expected a column other than --x ($x)"
command -v gnuplot >/dev/null || die "gnuplot not found (Debian: apt-get install gnuplot-nox)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

csv=$input
case $input in
  *.yaml|*.yml)
    root=$(cd "$(dirname "$0")/.." && pwd)
    trigsim=${TRIGSIM:-$root/build/trigsim}
    [ -x "$trigsim" ] || die "$trigsim: no trigsim to sweep $input with (set TRIGSIM)"
    csv=${keep_csv:-$tmp/sweep.csv}
    "$trigsim" sweep -q -c summary "$input" -o "$csv" || exit $?  # counters too: --y may name one
    ;;
esac

where_text=$(printf '%s\n' "${wheres[@]+"${wheres[@]}"}")

if [ -n "$stack" ]; then
  # One row per x: its label, then each kept column's mean over the rows
  # of that x (in us when every column is a *_ps time); META: the kept
  # columns' names, TAB-separated, and the y unit.
  awk -v X="$x" -v STACK="$stack" -v WHERE="$where_text" -v DATA="$tmp/stack.dat" \
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
function no_col(opt, c) {
  printf "plot.sh: %s: no column \"%s\" in the CSV\n", opt, c > "/dev/stderr"; bad = 1; exit 2
}
NR == 1 {
  nh = split_csv($0, h)
  for (i = 1; i <= nh; i++) col[h[i]] = i
  if (!(X in col)) no_col("--x", X)
  n = split(STACK, want, ",")
  for (j = 1; j <= n; j++) {
    if (index(want[j], "*")) { # a pattern: the columns it matches, in order
      re = want[j]; gsub(/[.+?()|^$\[\]{}]/, "\\\\&", re); gsub(/\*/, ".*", re); re = "^" re "$"
      hit = 0
      for (i = 1; i <= nh; i++) if (h[i] ~ re && !(i in picked)) { seg[++ns] = i; picked[i] = 1; hit = 1 }
      if (!hit) no_col("--stack", want[j])
    } else {
      if (!(want[j] in col)) no_col("--stack", want[j])
      seg[++ns] = col[want[j]]
    }
  }
  nw = WHERE == "" ? 0 : split(WHERE, wl, "\n")
  for (i = 1; i <= nw; i++) {
    k = index(wl[i], "="); wcol[i] = substr(wl[i], 1, k - 1); wval[i] = substr(wl[i], k + 1)
    if (!(wcol[i] in col)) no_col("--where", wcol[i])
  }
  pol = ("policy" in col) ? col["policy"] : 0
  first = ("seed" in col) ? col["seed"] + 1 : 1
  for (i = first; pol && i <= pol; i++)
    if (h[i] != "rep" && h[i] != "scenario" && h[i] != "workload" && h[i] != X) axis[i] = 1
  next
}
{
  split_csv($0, f)
  for (i = 1; i <= nw; i++) if (f[col[wcol[i]]] != wval[i]) next
  xv = f[col[X]]
  if (!(xv in xidx)) { xidx[xv] = ++nx; xname[nx] = xv }
  cnt[xv]++
  for (j = 1; j <= ns; j++) { v = f[seg[j]]; sum[xv, j] += v; if (v != "" && v != 0) used[j] = 1 }
  for (i in axis) {
    if (!((xv, i) in first_v)) first_v[xv, i] = f[i]
    else if (first_v[xv, i] != f[i] && !(i in mixed)) mixed[i] = first_v[xv, i] ", " f[i]
  }
}
END {
  if (bad) exit 2
  for (i in mixed)
    printf "plot.sh: warning: averaging rows that differ in %s (%s, ...) at one bar: pick one with --where %s=VALUE\n", h[i], mixed[i], h[i] > "/dev/stderr"
  if (!nx) exit 0
  ps = 1
  for (j = 1; j <= ns; j++) if (used[j] && h[seg[j]] !~ /_ps$/) ps = 0
  names = ""; line = "| " X " |"; sep = "|---|"
  for (j = 1; j <= ns; j++) {
    if (!used[j]) continue
    name = h[seg[j]]
    if (ps) { sub(/_ps$/, "", name); sub(/^cp_/, "", name) }
    names = names (names == "" ? "" : "\t") name
    line = line " " name " |"; sep = sep "---|"
  }
  print names > META
  print (ps ? "us" : "-") > META
  print line " total |" > TABLE; print sep "---|" > TABLE
  for (i = 1; i <= nx; i++) {
    xv = xname[i]; row = "| " xv " |"; out = "\"" xv "\""; tot = 0
    for (j = 1; j <= ns; j++) {
      if (!used[j]) continue
      v = sum[xv, j] / cnt[xv] * (ps ? 1e-6 : 1); tot += v
      out = out " " sprintf("%.10g", v)
      row = row " " (v == 0 ? "-" : sprintf("%.4g", v)) " |"
    }
    print out > DATA
    print row " " sprintf("%.4g", tot) " |" > TABLE
  }
}' "$csv" || exit 2
  [ -s "$tmp/stack.dat" ] || die "$csv: no rows to plot"
  IFS=$'\t' read -r -a segs < <(head -n 1 "$tmp/meta")
  yunit=$(sed -n 2p "$tmp/meta")
  [ -n "$xlabel" ] || xlabel=$x
  [ -n "$ylabel" ] || ylabel="time (${yunit/-/})"
  [ "$yunit" != - ] || [ -n "$ylabel" ] || ylabel="value"
  q() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
  {
    echo "set terminal $term"
    echo "set output \"$(q "$out.tmp")\""
    echo "set title \"$(q "$title")\" noenhanced"
    echo "set xlabel \"$(q "$xlabel")\" noenhanced"
    echo "set ylabel \"$(q "$ylabel")\" noenhanced"
    echo "set key outside right top noenhanced invert"
    echo "set grid ytics"
    echo "set style data histograms"
    echo "set style histogram rowstacked"
    echo "set style fill solid 0.85 border -1"
    echo "set boxwidth 0.6"
    echo "set yrange [0:*]"
    # twelve distinct fills (Tableau 10, then two more), one per segment
    colors=(4e79a7 f28e2b e15759 76b7b2 59a14f edc948 b07aa1 ff9da7 9c755f bab0ac 17becf 8c564b)
    printf 'plot'
    for ((i = 0; i < ${#segs[@]}; i++)); do
      printf '%s "%s" using %d%s title "%s" lc rgb "#%s"' "$([ "$i" -gt 0 ] && echo ,)" \
        "$(q "$tmp/stack.dat")" $((i + 2)) "$([ "$i" -eq 0 ] && echo ':xtic(1)')" \
        "$(q "${segs[$i]}")" "${colors[$((i % ${#colors[@]}))]}"
    done
    echo
  } > "$tmp/plot.gp"
  gnuplot "$tmp/plot.gp" || die "gnuplot failed on $csv"
  mv -f "$out.tmp" "$out"
  if [ -n "$table" ]; then cp "$tmp/table" "$table.tmp" && mv -f "$table.tmp" "$table"; fi
  exit 0
fi

# Per facet a data file ("# series" then "xnum y xlabel" lines, series
# blocks split by two blank lines); META: numeric xunit yunit nfacets, then
# per facet "label<TAB>series<TAB>series...". Warnings on stderr.
awk -v X="$x" -v Y="$y" -v S="$series" -v F="$facet" -v BASE="$base" -v WHERE="$where_text" \
    -v DIR="$tmp" -v META="$tmp/meta" -v TABLE="$tmp/table" '
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
# Whether cell V is the value W: the same text, or the same quantity.
function same(v, w,    a, b, ua, ub) {
  if (v == w) return 1
  UNIT = ""; a = to_num(v); ua = UNIT
  UNIT = ""; b = to_num(w); ub = UNIT
  if (a == "" || b == "" || ua != ub) return 0
  return a == b || (a - b) * (a - b) <= 1e-18 * (a * a + b * b)
}
function no_col(opt, c) {
  printf "plot.sh: %s: no column \"%s\" in the CSV\n", opt, c > "/dev/stderr"; bad = 1; exit 2
}
NR == 1 {
  nh = split_csv($0, h)
  for (i = 1; i <= nh; i++) col[h[i]] = i
  if (!(X in col)) no_col("--x", X)
  if (!(Y in col)) no_col("--y", Y)
  ns_cols = S == "" ? 0 : split(S, scol, ",")
  for (i = 1; i <= ns_cols; i++) if (!(scol[i] in col)) no_col("--series", scol[i])
  if (F != "" && !(F in col)) no_col("--facet", F)
  nw = WHERE == "" ? 0 : split(WHERE, wl, "\n")
  for (i = 1; i <= nw; i++) {
    k = index(wl[i], "="); wcol[i] = substr(wl[i], 1, k - 1); wval[i] = substr(wl[i], k + 1)
    if (!(wcol[i] in col)) no_col("--where", wcol[i])
  }
  # The sweep axes: the columns between seed (or the start) and policy,
  # and policy; rep is a repetition, averaged silently.
  pol = ("policy" in col) ? col["policy"] : 0
  first = ("seed" in col) ? col["seed"] + 1 : 1
  for (i = first; pol && i <= pol; i++)
    if (h[i] != "rep" && h[i] != "scenario" && h[i] != "workload") axis[i] = 1
  next
}
{
  split_csv($0, f)
  for (i = 1; i <= nw; i++) {
    if (!nseen[i]++) seenv[i] = f[col[wcol[i]]]
    else if (!index(SUBSEP seenv[i] SUBSEP, SUBSEP f[col[wcol[i]]] SUBSEP))
      seenv[i] = seenv[i] SUBSEP f[col[wcol[i]]]
    if (!same(f[col[wcol[i]]], wval[i])) next
    matched[i]++
  }
  kept++
  xv = f[col[X]]; yv = f[col[Y]]
  if (ns_cols == 0) sv = Y
  else if (ns_cols == 1) sv = f[col[scol[1]]]
  else { sv = ""; for (i = 1; i <= ns_cols; i++) sv = sv (i > 1 ? ", " : "") scol[i] "=" f[col[scol[i]]] }
  fv = F != "" ? f[col[F]] : ""
  if (yv == "") next
  if (!(fv in fidx)) { fidx[fv] = ++nf; fname[nf] = fv }
  if (!(sv in sidx)) { sidx[sv] = ++ns; sname[ns] = sv }
  if (!(xv in xidx)) { xidx[xv] = ++nx; xname[nx] = xv }
  k = fidx[fv] SUBSEP sidx[sv] SUBSEP xidx[xv]
  sum[k] += yv; cnt[k]++
  # Another axis whose value differs among the rows of one point.
  for (i in axis) {
    if (h[i] == X || h[i] == F) continue
    skip = 0; for (j = 1; j <= ns_cols; j++) if (h[i] == scol[j]) skip = 1
    if (skip) continue
    if (!((k, i) in first_v)) first_v[k, i] = f[i]
    else if (first_v[k, i] != f[i] && !(i in mixed)) { mixed[i] = first_v[k, i] ", " f[i] }
  }
}
END {
  if (bad) exit 2
  for (i = 1; i <= nw && !kept; i++)
    if (!matched[i]) {
      gsub(SUBSEP, ", ", seenv[i])
      printf "plot.sh: --where: expected a value %s takes (%s%s), got %s\n", wcol[i], seenv[i], (i > 1 ? ", in the rows the --where before it left" : ""), wval[i] > "/dev/stderr"
      exit 2
    }
  for (i in mixed)
    printf "plot.sh: warning: averaging rows that differ in %s (%s, ...) at a point: pick one with --where %s=VALUE, or draw each with --series %s or --facet %s\n", h[i], mixed[i], h[i], h[i], h[i] > "/dev/stderr"
  numeric = 1; xunit = ""
  for (i = 1; i <= nx; i++) {
    UNIT = ""; v = to_num(xname[i])
    if (v == "") { numeric = 0; break }
    xnum[i] = v; if (UNIT != "") xunit = UNIT
  }
  if (numeric && (xunit == "ps" || (xunit == "" && X ~ /_ps$/))) { for (i = 1; i <= nx; i++) xnum[i] /= 1e6; xunit = "us" }
  yscale = (Y ~ /_ps$/ && BASE == "") ? 1e-6 : 1
  if (ns_cols == 0 && yscale != 1) sname[1] = substr(Y, 1, length(Y) - 3) " (us)"
  if (BASE != "" && !(BASE in sidx)) { print "plot.sh: --speedup-over: no series \"" BASE "\"" > "/dev/stderr"; exit 2 }
  print numeric, (xunit == "" ? "-" : xunit), (BASE != "" ? "speedup" : yscale != 1 ? "us" : "-"), nf > META
  for (g = 1; g <= nf; g++) {
    data = DIR "/facet" g ".dat"
    titles = ""
    for (s = 1; s <= ns; s++) {
      if (BASE != "" && sname[s] == BASE) continue
      any = 0
      for (i = 1; i <= nx; i++) if ((g, s, i) in cnt) any = 1
      if (!any) continue
      printf "# %s\n", sname[s] > data
      for (i = 1; i <= nx; i++) {
        k = g SUBSEP s SUBSEP i
        if (!(k in cnt)) continue
        v = sum[k] / cnt[k]
        if (BASE != "") {
          b = g SUBSEP sidx[BASE] SUBSEP i
          if (!(b in cnt) || v == 0) continue
          v = (sum[b] / cnt[b]) / v
        }
        val[k] = v * yscale
        printf "%.10g %.10g \"%s\"\n", numeric ? xnum[i] : i - 1, v * yscale, xname[i] > data
      }
      printf "\n\n" > data
      titles = titles "\t" sname[s]
      inf[g, s] = 1
    }
    close(data)
    print (F == "" ? "-" : F "=" fname[g]) titles > META
    # The markdown table: one row per x, one column per series; a heading
    # per facet.
    if (F != "") print (g > 1 ? "\n" : "") "**" F " = " fname[g] "**\n" > TABLE
    line = "| " X " |"; sep = "|---|"
    for (s = 1; s <= ns; s++) if ((g, s) in inf) { line = line " " sname[s] " |"; sep = sep "---|" }
    print line > TABLE; print sep > TABLE
    for (i = 1; i <= nx; i++) {
      row = "| " xname[i] " |"; some = 0
      for (s = 1; s <= ns; s++) {
        if (!((g, s) in inf)) continue
        k = g SUBSEP s SUBSEP i
        if (k in val) some = 1
        row = row " " ((k in val) ? sprintf("%.4g", val[k]) : "-") " |"
      }
      if (some) print row > TABLE
    }
  }
}' "$csv" || exit 2

read -r numeric xunit yunit nfacets < "$tmp/meta"
[ "$xunit" != - ] || xunit=""
[ "$nfacets" -gt 0 ] || die "$csv: no rows to plot"
[ -n "$xlabel" ] || xlabel="$x${xunit:+ ($xunit)}"
if [ -z "$ylabel" ]; then
  case $yunit in
    speedup) ylabel="speedup over $base" ;;
    us) ylabel="${y%_ps} (us)" ;;
    *) ylabel=$y ;;
  esac
fi
q() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }

cols=$(( nfacets <= 1 ? 1 : nfacets <= 4 ? 2 : 3 ))
rows=$(( (nfacets + cols - 1) / cols ))
{
  echo "set terminal ${term/size 900,600/size $((cols == 1 ? 900 : 560 * cols)),$((rows == 1 ? 600 : 420 * rows))}"
  echo "set output \"$(q "$out.tmp")\""
  echo "set xlabel \"$(q "$xlabel")\" noenhanced"
  echo "set ylabel \"$(q "$ylabel")\" noenhanced"
  echo "set key outside right top noenhanced"
  echo "set grid"
  [ "$logx" = 1 ] && [ "$numeric" = 1 ] && echo "set logscale x 2"
  [ "$logy" = 1 ] && echo "set logscale y"
  if [ "$nfacets" -gt 1 ]; then
    echo "set multiplot layout $rows,$cols title \"$(q "$title")\" noenhanced"
  fi
  if [ "$numeric" != 1 ]; then
    echo "set style data histograms"
    echo "set style histogram clustered gap 1"
    echo "set style fill solid 0.8 border -1"
    echo "set boxwidth 0.9"
    echo "set yrange [0:*]"
  fi
  g=0
  while IFS=$'\t' read -r -a line; do
    g=$((g + 1))
    label=${line[0]}
    if [ "$nfacets" -gt 1 ]; then echo "set title \"$(q "$label")\" noenhanced"
    else echo "set title \"$(q "$title")\" noenhanced"; fi
    printf 'plot'
    for ((i = 1; i < ${#line[@]}; i++)); do
      if [ "$numeric" = 1 ]; then
        printf '%s "%s" index %d using 1:2 with linespoints lw 2 title "%s"' \
          "$([ "$i" -gt 1 ] && echo ,)" "$(q "$tmp/facet$g.dat")" "$((i - 1))" "$(q "${line[$i]}")"
      else
        printf '%s "%s" index %d using 2:xtic(3) title "%s"' \
          "$([ "$i" -gt 1 ] && echo ,)" "$(q "$tmp/facet$g.dat")" "$((i - 1))" "$(q "${line[$i]}")"
      fi
    done
    echo
  done < <(tail -n +2 "$tmp/meta")
  [ "$nfacets" -le 1 ] || echo "unset multiplot"
} > "$tmp/plot.gp"

gnuplot "$tmp/plot.gp" || die "gnuplot failed on $csv"
mv -f "$out.tmp" "$out"
if [ -n "$table" ]; then
  cp "$tmp/table" "$table.tmp" && mv -f "$table.tmp" "$table"
fi
