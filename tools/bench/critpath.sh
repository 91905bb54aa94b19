#!/usr/bin/env bash
# The critical path's cost (issue 33: at most 10% of a run, or a switch):
# the same runs with tracking off and on, interleaved (off, on, off, on ...),
# in one invocation, so that both modes see the same machine load.
#  - allreduce: the 8 MiB ring allreduce of configs/gputn-sc17/allreduce.yaml
#    (tools/bench/scale.sh's case) at NODES under cpu, hdn, gds and gputn;
#    user seconds of `trigsim run --critical-path off|on`.
#  - phold: phold_bench at 1k, 64k and 1M pending events (no --cp, --cp 1), CPU
#    events per second of the run loop alone.
# One line per case: the median of REPEATS runs per mode and on/off (for
# phold: the time ratio, off rate / on rate; 1.00 is free), and the same
# ratio of the best runs (least disturbed by other load: the steadier
# figure on a shared machine). Needs GNU time.
# Usage: tools/bench/critpath.sh [NODES]   (default 256)
#   REPEATS (default 3), EVENTS (phold events per run, default 3000000),
#   CASES (default "allreduce phold"), POLICIES (default "cpu hdn gds gputn").
#   BUILD_DIR (default build/rel; configured Release when new, with
#   TRIGSIM_BENCH) is built first.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build/rel}
nodes=${1:-256}
repeats=${REPEATS:-3}
events=${EVENTS:-3000000}
cases=" ${CASES:-allreduce phold} "
policies=${POLICIES:-cpu hdn gds gputn}
command -v /usr/bin/time >/dev/null || { echo "critpath.sh: needs GNU time (Debian package time)" >&2; exit 1; }
# Built every time (a no-op when up to date); NOBUILD=1 takes the programs
# as they are (copied to a machine without the sources' dependencies).
if [ -z "${NOBUILD:-}" ]; then
  if [ -f "$build/CMakeCache.txt" ]; then
    cmake -S . -B "$build" -DTRIGSIM_BENCH=ON >/dev/null
  else
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTRIGSIM_BENCH=ON >/dev/null
  fi
  cmake --build "$build" -j2 --target trigsim phold_bench >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
best() { tr " " "\n" | grep -v "^$" | sort -g | head -1; }  # the least
maxof() { tr ' ' '\n' | grep -v '^$' | sort -g | tail -1; }

# allreduce POLICY CP: user seconds of one run (prints "user events")
allreduce() {
  /usr/bin/time -f "%U" -o "$tmp/time" "$build/trigsim" run -f csv --counters none -q \
    --critical-path "$2" configs/gputn-sc17/allreduce.yaml \
    --set "sweep.axes=[{path: hardware.network.nodes, values: [$nodes]}]" \
    --set "policies=[$1]" >"$tmp/out.csv"
  local ev
  ev=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="events") e=i} NR==2{print $e}' "$tmp/out.csv")
  echo "$(tail -1 "$tmp/time") $ev"
}

if [[ $cases == *" allreduce "* ]]; then
  for p in $policies; do
    off="" on="" ev=""
    for _ in $(seq "$repeats"); do
      read -r u ev < <(allreduce "$p" off)
      off+=" $u"
      read -r u ev < <(allreduce "$p" on)
      on+=" $u"
    done
    mo=$(median <<<"$off") mn=$(median <<<"$on") bo=$(best <<<"$off") bn=$(best <<<"$on")
    awk -v n="$nodes" -v p="$p" -v ev="$ev" -v o="$mo" -v m="$mn" -v bo="$bo" -v bn="$bn" -v ol="${off# }" -v ml="${on# }" \
      'BEGIN {printf "case=allreduce nodes=%s policy=%s events=%s off_user_s=%s on_user_s=%s on_over_off=%.2f best_off=%s best_on=%s best_on_over_off=%.2f runs_off=\"%s\" runs_on=\"%s\"\n", n, p, ev, o, m, (o > 0 ? m / o : 0), bo, bn, (bo > 0 ? bn / bo : 0), ol, ml}'
  done
fi

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
if [[ $cases == *" phold "* ]]; then
  for pending in 1024 65536 1048576; do
    off="" on="" rss_off="" rss_on=""
    for _ in $(seq "$repeats"); do
      line=$("$build/tools/bench/phold_bench" --pending "$pending" --events "$events")
      off+=" $(field cpu_events_per_s "$line")"
      rss_off=$(field peak_rss_bytes "$line")
      line=$("$build/tools/bench/phold_bench" --pending "$pending" --events "$events" --cp 1)
      on+=" $(field cpu_events_per_s "$line")"
      rss_on=$(field peak_rss_bytes "$line")
    done
    mo=$(median <<<"$off") mn=$(median <<<"$on") bo=$(maxof <<<"$off") bn=$(maxof <<<"$on")
    awk -v n="$pending" -v o="$mo" -v m="$mn" -v bo="$bo" -v bn="$bn" -v ro="$rss_off" -v rn="$rss_on" \
      'BEGIN {printf "case=phold pending=%s off_events_per_s=%.3g on_events_per_s=%.3g on_over_off=%.2f best_on_over_off=%.2f peak_rss_off_mb=%.1f peak_rss_on_mb=%.1f\n", n, o, m, (m > 0 ? o / m : 0), (bn > 0 ? bo / bn : 0), ro / 1048576, rn / 1048576}'
  done
fi
