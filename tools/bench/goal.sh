#!/usr/bin/env bash
# Reading and running a big GOAL schedule: a ring over RANKS ranks with
# OPS operations in all (each send requiring the receive before it, as a
# ring allreduce's messages), generated with awk, then run under `cpu`.
# One line: ops=1000000 ranks=64 file_bytes=... wall_s=... peak_rss_bytes=...
# bytes_per_op=... sim_time=...
# Usage: tools/bench/goal.sh [OPS, default 1000000] [RANKS, default 64]
set -euo pipefail
cd "$(dirname "$0")/../.."
ops=${1:-1000000} ranks=${2:-64}
build=${BUILD_DIR:-build}
[ -x "$build/trigsim" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$build" -j2 --target trigsim >/dev/null; }
command -v /usr/bin/time >/dev/null || { echo "goal.sh: needs GNU time (Debian package time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
steps=$((ops / ranks / 2))
awk -v n="$ranks" -v steps="$steps" 'BEGIN {
  print "num_ranks " n
  for (r = 0; r < n; r++) {
    print "rank " r " {"
    for (s = 0; s < steps; s++) {
      print "s" s ": send 1024b to " (r + 1) % n " tag 0"
      print "r" s ": recv 1024b from " (r + n - 1) % n " tag 0"
      if (s) print "s" s " requires r" (s - 1)
    }
    print "}"
  }
}' >"$tmp/big.goal"
cat >"$tmp/big.yaml" <<YAML
workload: {kind: goal, file: big.goal}
hardware: {network: {nodes: $ranks}}
policies: [cpu]
YAML
/usr/bin/time -f "%e %M" -o "$tmp/time" "$build/trigsim" run -f csv "$tmp/big.yaml" >"$tmp/out.csv"
read -r wall kib <"$tmp/time"
total=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="total_time_ps") t=i} NR==2{print $t}' "$tmp/out.csv")
n=$((steps * ranks * 2))
echo "ops=$n ranks=$ranks file_bytes=$(stat -c %s "$tmp/big.goal") wall_s=$wall peak_rss_bytes=$((kib * 1024)) bytes_per_op=$((kib * 1024 / n)) total_time_ps=$total"
