#!/usr/bin/env bash
# PHOLD queue benchmark: the shipped queue and the alternatives at 1k, 64k and
# 1M pending events, each measurement in its own process, best of $REPEATS.
# Usage: tools/bench/phold.sh [events per run, default 5000000]
# PROGRESS=1: with a progress hook set, as `trigsim run` sets on a
# terminal (the engine then runs in slices of 2^20 events): its cost.
set -euo pipefail
cd "$(dirname "$0")/../.."
events=${1:-5000000}
repeats=${REPEATS:-1}
build=${BUILD_DIR:-build}
progs=(phold_bench phold_bench_4ary phold_bench_binary phold_bench_pairing phold_bench_calendar phold_bench_ladder phold_bench_keyheap)

# A new build folder is configured as Release; an existing one keeps its
# settings but is reconfigured with the bench targets on (TRIGSIM_BENCH).
if [ -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DTRIGSIM_BENCH=ON >/dev/null
else
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTRIGSIM_BENCH=ON >/dev/null
fi
cmake --build "$build" -j2 --target "${progs[@]}" >/dev/null

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# Best of $repeats runs (highest events/s) of one program at one size.
measure() {
  local best="" rate bestrate=0 line
  for _ in $(seq "$repeats"); do
    line=$("$build/tools/bench/$1" --pending "$2" --events "$events" ${PROGRESS:+--progress})
    rate=$(field events_per_s "$line")
    if [ "$rate" -gt "$bestrate" ]; then bestrate=$rate; best=$line; fi
  done
  echo "$best"
}

for pending in 1024 65536 1048576; do
  line=$(measure phold_bench "$pending")
  shipped=$(field events_per_s "$line")
  echo "pending=$(field pending "$line") events_per_s=$shipped" \
       "cpu_events_per_s=$(field cpu_events_per_s "$line")" \
       "peak_rss_bytes=$(field peak_rss_bytes "$line")" \
       "queue_bytes_per_event=$(field queue_bytes_per_event "$line")"
  best=0 bestname=""
  for prog in "${progs[@]:1}"; do
    line=$(measure "$prog" "$pending")
    name=${line%% *}; name=${name#queue=}
    rate=$(field events_per_s "$line")
    echo "  $name pending=$(field pending "$line") events_per_s=$rate" \
         "cpu_events_per_s=$(field cpu_events_per_s "$line")" \
         "peak_rss_bytes=$(field peak_rss_bytes "$line")" \
         "queue_bytes_per_event=$(field queue_bytes_per_event "$line")"
    if [ "$rate" -gt "$best" ]; then best=$rate; bestname=$name; fi
  done
  awk -v p="$pending" -v s="$shipped" -v b="$best" -v n="$bestname" \
    'BEGIN { printf "summary pending=%s shipped/best-alternative=%.2f (best alternative: %s)\n", p, s / b, n }'
done
