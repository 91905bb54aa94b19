#!/usr/bin/env bash
# Scale (issue 17's benchmark): the 8 MiB ring allreduce of
# configs/gputn-sc17/allreduce.yaml at 256, 1024 and 4096 nodes under cpu,
# hdn, gds and gputn, and pipelined CG (5000 iterations) on 1024 A100s
# (configs/cpufree-ics23/cg-scale-fast.yaml's system). One line each:
#   case=allreduce nodes=1024 policy=cpu cp=on status=0 wall_s=7.2 user_s=7.0 events=32500000 events_per_s=4.5e6 peak_rss_bytes=...
# status is trigsim's exit status (2: the input is refused, e.g. over the
# program size limit; 124: it ran past LIMIT_S). Needs GNU time.
# Usage: tools/bench/scale.sh [NODES...]   (default: 256 1024 4096)
# LIMIT_S (default 600) bounds each run. CASES (default "allreduce cg")
# picks the cases: CASES=cg runs only the two CG lines. CP (default on,
# trigsim's default) is passed as --critical-path: CP=off measures the
# engine without the critical path's tracking (its cost: bench/README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
limit=${LIMIT_S:-600}
cp=${CP:-on}
[ -x "$build/trigsim" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$build" -j2 --target trigsim >/dev/null; }
command -v /usr/bin/time >/dev/null || { echo "scale.sh: needs GNU time (Debian package time)" >&2; exit 1; }
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(256 1024 4096)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# measure CASE NODES POLICY SCENARIO SETS...
measure() {
  local case=$1 nodes=$2 policy=$3 scenario=$4
  shift 4
  local status=0
  # The scenarios sweep node counts: one point of that axis.
  timeout "$limit" /usr/bin/time -f "%e %M %U" -o "$tmp/time" "$build/trigsim" run -f csv --counters none -q \
    --critical-path "$cp" \
    "$scenario" --set "sweep.axes=[{path: hardware.network.nodes, values: [$nodes]}]" \
    --set "policies=[$policy]" "$@" >"$tmp/out.csv" 2>"$tmp/err" || status=$?
  local wall=- kib=0 user=- events=-
  [ -s "$tmp/time" ] && read -r wall kib user < <(tail -1 "$tmp/time")
  if [ "$status" -eq 0 ]; then
    events=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="events") e=i} NR==2{print $e}' "$tmp/out.csv")
  fi
  local rate=-
  [ "$events" != - ] && rate=$(awk -v e="$events" -v w="$wall" 'BEGIN{printf "%.3g", (w > 0 ? e / w : 0)}')
  local why=""
  [ "$status" -ne 0 ] && why=" why=\"$(head -c 200 "$tmp/err" | head -1)\""
  echo "case=$case nodes=$nodes policy=$policy cp=$cp status=$status wall_s=$wall user_s=$user events=$events events_per_s=$rate peak_rss_bytes=$((kib * 1024))$why"
  rm -f "$tmp/time"
}

cases=" ${CASES:-allreduce cg} "
if [[ $cases == *" allreduce "* ]]; then
  for n in "${sizes[@]}"; do
    for p in cpu hdn gds gputn; do
      measure allreduce "$n" "$p" configs/gputn-sc17/allreduce.yaml
    done
  done
fi
if [[ $cases == *" cg "* ]]; then
  measure cg 1024 gds configs/cpufree-ics23/cg-scale-fast.yaml --set workload.iterations=5000
  measure cg 1024 cpufree configs/cpufree-ics23/cg-scale-fast.yaml --set workload.iterations=5000
fi
