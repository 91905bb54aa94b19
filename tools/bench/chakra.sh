#!/usr/bin/env bash
# Memory of a long Chakra trace, streamed against read whole (issue 32:
# "a large trace needs memory for what is in flight, not the whole
# trace"). A training loop of STEPS steps on RANKS ranks (4 GPUs on 2
# nodes, configs/hw/a100-nvlink.yaml), each step a forward and a backward
# compute and an allreduce of SIZE of the gradients, each after the step
# before, is written as a YAML program, exported with
# `trigsim export-chakra` (one .et file a rank) and run under each
# POLICY:LIBRARY of RUNS: streamed (workload.read: stream, the collectives
# written out op by op) and read whole (read: whole), one run each. One
# line per run:
# steps=1000 nodes=12000 policy=hdn library=nccl path=streamed wall_s=... peak_rss_bytes=... total_time_ps=...
# then whether the two CSVs (every counter but the engine's events) are the
# same bytes.
# Usage: [RUNS="hdn:nccl gds:nccl gputn:gputn cpufree:nvshmem"] [SIZE=64KiB] tools/bench/chakra.sh [STEPS...] (default 1000 4000)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
[ -x "$build/trigsim" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$build" -j2 --target trigsim >/dev/null; }
command -v /usr/bin/time >/dev/null || { echo "chakra.sh: needs GNU time (Debian package time)" >&2; exit 1; }
bin=$(cd "$build" && pwd)/trigsim hw=$(pwd)/configs/hw/a100-nvlink.yaml
runs=${RUNS:-hdn:nccl gds:nccl gputn:gputn cpufree:nvshmem} size=${SIZE:-64KiB}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
steps_list=("$@")
[ ${#steps_list[@]} -gt 0 ] || steps_list=(1000 4000)
for steps in "${steps_list[@]}"; do
  {
    printf 'include: %s\nname: loop\nworkload:\n  kind: program\n  groups:\n    - ops:\n' "$hw"
    awk -v n="$steps" -v size="$size" 'BEGIN {
      for (i = 0; i < n; i++) {
        printf "        - compute: {wgs: 108, flops: 2000000, bytes: 64KiB}\n"
        printf "          label: f%d\n", i
        if (i > 0) printf "          after: g%d\n", i - 1
        printf "        - compute: {wgs: 108, flops: 4000000, bytes: 128KiB}\n"
        printf "          label: b%d\n", i
        printf "          after: f%d\n", i
        printf "        - allreduce: {size: %s, wgs: 108}\n", size
        printf "          label: g%d\n", i
        printf "          after: b%d\n", i
      } }'
    printf 'hardware:\n  network: {nodes: 4, gpus_per_node: 2}\n  cpu: {helper_threads: 1}\npolicies: [cpu]\n'
  } >"$tmp/loop.program.yaml"
  "$bin" export-chakra "$tmp/loop.program.yaml" -o "$tmp/loop"
  nodes=$(( steps * 3 * 4 ))
  for run in $runs; do
    pol=${run%%:*} library=${run#*:}
    for path in streamed whole; do
      read_mode=stream
      [ "$path" = whole ] && read_mode=whole
      printf 'include: %s\nname: loop\nworkload: {kind: chakra, files: loop, read: %s}\nhardware:\n  network: {nodes: 4, gpus_per_node: 2}\n  cpu: {helper_threads: 1}\n  comm: {library: %s}\npolicies: [%s]\n' \
        "$hw" "$read_mode" "$library" "$pol" >"$tmp/$path.yaml"
      /usr/bin/time -f "%e %M" -o "$tmp/$path.time" "$bin" run -f csv "$tmp/$path.yaml" >"$tmp/$path.csv"
      read -r wall kib <"$tmp/$path.time"
      total=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="total_time_ps") t=i} NR==2{print $t}' "$tmp/$path.csv")
      echo "steps=$steps nodes=$nodes policy=$pol library=$library path=$path wall_s=$wall peak_rss_bytes=$((kib * 1024)) total_time_ps=$total"
      awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="events") e=i} {s=""; for(i=1;i<=NF;i++) if(i!=e) s=s (s==""?"":",") $i; print s}' \
        "$tmp/$path.csv" >"$tmp/$path.cmp"
    done
    if cmp -s "$tmp/streamed.cmp" "$tmp/whole.cmp"; then
      echo "steps=$steps policy=$pol library=$library: streamed and whole CSVs the same bytes (events aside)"
    else
      echo "steps=$steps policy=$pol library=$library: streamed and whole CSVs DIFFER"
    fi
  done
done
