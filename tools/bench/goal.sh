#!/usr/bin/env bash
# Reading and running a big GOAL schedule: a ring over RANKS ranks with
# OPS operations in all (each send requiring the receive before it, as a
# ring allreduce's messages), generated with awk, then run under each of
# POLICIES (default: cpu gputn cpufree gds), streamed (the default,
# workload.stream_window: 256) and, with WHOLE=1 (the default up to 2M
# ops), read whole first (stream_window: 0) in the same run, to compare.
# (The GPU-driven policies order a rank within the window, read whole or
# not; this ring's order is the same under any window, so window 0 is the
# whole run of window 256.) One line per policy and way:
# policy=cpu ops=1000000 ranks=64 file_bytes=... path=streamed wall_s=... peak_rss_bytes=...
# bytes_per_op=... total_time_ps=...
# then, with both, the ratios and whether the CSVs (every counter) are the
# same bytes (configs/README.md: what streams where). CALC=N (ns) puts a
# calc of N after each receive, which the next send requires (a kernel
# per step under gds; OPS counts it too). LIBRARY=nccl (or nvshmem, mpi)
# runs under that library instead of each policy's own (with a helper
# thread for its proxy across nodes). TRIGGERED_OPS=N sets
# hardware.nic.triggered_ops (the host's registrations the NIC holds before
# the host waits, which bounds gputn's memory).
# Usage: [WHOLE=0|1] [CALC=N] [POLICIES="cpu gputn ..."] [LIBRARY=...] [TRIGGERED_OPS=N] tools/bench/goal.sh [OPS, default 1000000] [RANKS, default 64]
#
# tools/bench/goal.sh ring [RANKS...] (default 1024 4096): issue 27's
# per-event check. The 8 MiB ring allreduce of
# configs/gputn-sc17/allreduce.yaml at RANKS nodes is written as GOAL by
# `trigsim export-goal`, then run under cpu twice, one run each: the
# built-in `allreduce` workload and the GOAL schedule streamed (the same
# events). The schedule goes to a temporary folder (mktemp -d: TMPDIR):
# 257 MB at 1024 ranks, 4.3 GB at 4096 (export-goal holds the program
# written out, ~5.5 GB, while it writes it). One line per way and a ratio
# line:
# ring ranks=1024 path=builtin wall_s=... user_s=... events=... ns_per_event=... total_time_ps=...
# ring ranks=1024 goal/builtin: wall per event 1.4x, user per event 1.3x (goal_bytes=...)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = ring ]; then
  shift
  build=${BUILD_DIR:-build}
  [ -x "$build/trigsim" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$build" -j2 --target trigsim >/dev/null; }
  command -v /usr/bin/time >/dev/null || { echo "goal.sh: needs GNU time (Debian package time)" >&2; exit 1; }
  bin=$(cd "$build" && pwd)/trigsim hw=$(pwd)/configs/hw/gputn-sc17-fitted.yaml
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  sizes=("$@")
  [ ${#sizes[@]} -gt 0 ] || sizes=(1024 4096)
  for n in "${sizes[@]}"; do
    # the workload of configs/gputn-sc17/allreduce.yaml, one point of its sweep
    printf 'include: %s\nname: ring\nworkload: {kind: allreduce, size: 8MiB, granularity: work-group, wgs: 24}\nhardware: {network: {nodes: %s}}\npolicies: [cpu]\n' \
      "$hw" "$n" >"$tmp/builtin.yaml"
    "$bin" export-goal "$tmp/builtin.yaml" -o "$tmp/ring.goal"
    printf 'include: %s\nname: ring\nworkload: {kind: goal, file: ring.goal}\nhardware: {network: {nodes: %s}}\npolicies: [cpu]\n' \
      "$hw" "$n" >"$tmp/goal.yaml"
    for way in builtin goal; do
      /usr/bin/time -f "%e %U %M" -o "$tmp/$way.time" "$bin" run -f csv --counters none "$tmp/$way.yaml" >"$tmp/$way.csv"
      read -r wall user kib <"$tmp/$way.time"
      read -r events total < <(awk -F, 'NR==1{for(i=1;i<=NF;i++){if($i=="events")e=i; if($i=="total_time_ps")t=i}} NR==2{print $e, $t}' "$tmp/$way.csv")
      echo "ring ranks=$n path=$way wall_s=$wall user_s=$user events=$events ns_per_event=$(awk -v w="$wall" -v e="$events" 'BEGIN{printf "%.1f", w * 1e9 / e}') peak_rss_bytes=$((kib * 1024)) total_time_ps=$total"
      echo "$wall $user $events" >"$tmp/$way.fig"
    done
    read -r wb ub eb <"$tmp/builtin.fig"
    read -r wg ug eg <"$tmp/goal.fig"
    awk -v n="$n" -v wb="$wb" -v ub="$ub" -v eb="$eb" -v wg="$wg" -v ug="$ug" -v eg="$eg" -v gb="$(stat -c %s "$tmp/ring.goal")" 'BEGIN {
      printf "ring ranks=%s goal/builtin: wall per event %.2fx, user per event %.2fx (goal_bytes=%s)\n", n, (wg / eg) / (wb / eb), (ug / eg) / (ub / eb), gb }'
    rm -f "$tmp/ring.goal"
  done
  exit 0
fi
ops=${1:-1000000} ranks=${2:-64}
whole=${WHOLE:-$([ "$ops" -le 2000000 ] && echo 1 || echo 0)}
build=${BUILD_DIR:-build}
[ -x "$build/trigsim" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$build" -j2 --target trigsim >/dev/null; }
command -v /usr/bin/time >/dev/null || { echo "goal.sh: needs GNU time (Debian package time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
calc=${CALC:-0}
per=$([ "$calc" -gt 0 ] && echo 3 || echo 2)
steps=$((ops / ranks / per))
awk -v n="$ranks" -v steps="$steps" -v calc="$calc" 'BEGIN {
  print "num_ranks " n
  for (r = 0; r < n; r++) {
    print "rank " r " {"
    for (s = 0; s < steps; s++) {
      print "s" s ": send 1024b to " (r + 1) % n " tag 0"
      print "r" s ": recv 1024b from " (r + n - 1) % n " tag 0"
      if (calc) print "c" s ": calc " calc "\nc" s " requires r" s
      if (s) print "s" s " requires " (calc ? "c" : "r") (s - 1)
    }
    print "}"
  }
}' >"$tmp/big.goal"
n=$((steps * ranks * per))
bytes=$(stat -c %s "$tmp/big.goal")
# run POLICY NAME WINDOW: one line; the CSV in $tmp/POLICY.NAME.csv, wall and KiB in $tmp/POLICY.NAME.time
run() {
  cat >"$tmp/big.yaml" <<YAML
name: big
workload: {kind: goal, file: big.goal, stream_window: $3}
hardware: {network: {nodes: $ranks}$( { [ "$1" = ghn ] || [ -n "${LIBRARY:-}" ]; } && echo ", cpu: {helper_threads: 1}")$([ -n "${LIBRARY:-}" ] && echo ", comm: {library: $LIBRARY}")$([ -n "${TRIGGERED_OPS:-}" ] && echo ", nic: {triggered_ops: $TRIGGERED_OPS}")}
policies: [$1]
YAML
  /usr/bin/time -f "%e %M" -o "$tmp/$1.$2.time" "$build/trigsim" run -f csv "$tmp/big.yaml" >"$tmp/$1.$2.csv"
  local wall kib total
  read -r wall kib <"$tmp/$1.$2.time"
  total=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="total_time_ps") t=i} NR==2{print $t}' "$tmp/$1.$2.csv")
  echo "policy=$1 ops=$n ranks=$ranks file_bytes=$bytes path=$2 wall_s=$wall peak_rss_bytes=$((kib * 1024)) bytes_per_op=$((kib * 1024 / n)) total_time_ps=$total"
}
for pol in ${POLICIES:-cpu gputn cpufree gds}; do
  run "$pol" streamed 256
  if [ "$whole" = 1 ]; then
    run "$pol" whole 0
    read -r ws ks <"$tmp/$pol.streamed.time"
    read -r ww kw <"$tmp/$pol.whole.time"
    same=no
    cmp -s "$tmp/$pol.streamed.csv" "$tmp/$pol.whole.csv" && same=yes
    awk -v p="$pol" -v ws="$ws" -v ww="$ww" -v ks="$ks" -v kw="$kw" -v same="$same" 'BEGIN {
      printf "policy=%s whole/streamed: wall %.2fx peak_rss %.1fx same_csv=%s\n", p, ww / ws, kw / ks, same }'
  fi
done
