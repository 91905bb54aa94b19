#!/usr/bin/env bash
# Mutation pass (issue 27 item 4): each one-line change to a model rule in
# the list below is applied alone to a scratch copy of the working tree
# (never the tree itself), built, and the model unit suites (SUITES, run
# with ctest -R; not the goldens) are run on it. Prints per mutation
# "killed" (a suite failed: it names them) or "survived" (every suite
# passed). Exit 0 when every mutation run was killed, 1 when one survived,
# 2 when the unmutated copy fails its suites or a mutation no longer
# applies (its text is not found exactly once where it says, or the mutant
# does not build): update its line.
# Usage: tools/mutate.sh [-j N] [--list] [--keep] [NAME...]
#   NAME: run only these mutations (default: all). --list: print the list.
#   --keep: keep the scratch folder (MUTATE_DIR, default a new /tmp/trigsim-mutate.*).
#   SUITES: the ctest names run per mutation (default below).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# ---- the mutations ----
# m NAME WHERE OLD NEW WHAT
#   WHERE: a file or a folder (searched recursively, *.c and *.h) in which
#     OLD, a literal piece of one line, must occur on exactly one line, so
#     that a rule moving to another file of the folder needs no edit here.
#   NEW replaces OLD on that line. WHAT: the rule it breaks.
names=() wheres=() olds=() news=() whats=()
m() { names+=("$1") wheres+=("$2") olds+=("$3") news+=("$4") whats+=("$5"); }

# CPU (models/cpu.c) and the host side of the lowering.
m roofline-min workloads \
  'return MAX(tf, tb);' 'return MIN(tf, tb);' \
  'CPU roofline: the smaller of compute and memory time, not the larger'
m roofline-flops-only workloads \
  'return MAX(tf, tb);' 'return tf;' \
  'CPU roofline: the memory term dropped'
m roofline-floor workloads/ir \
  'return (int64_t)((num + den - 1) / den);' 'return (int64_t)(num / den);' \
  'CPU roofline: each term rounded down to a ps, not up'
m roofline-ceil-plus-one workloads/ir \
  'return (int64_t)((num + den - 1) / den);' 'return (int64_t)((num + den) / den);' \
  'CPU roofline: a whole number of ps rounded up one ps more'
m cpu-switch-poll-tick models/cpu.c \
  'return start + (arrival - start + p - 1) / p * p;' 'return start + (arrival - start + p) / p * p;' \
  'kernel-completion poll: a record arriving exactly on a tick is seen a tick later'
m cpu-helper-poll-tick models/cpu.c \
  'return p > 0 ? (t + p - 1) / p * p : t;' 'return p > 0 ? (t + p) / p * p : t;' \
  'helper-thread poll: a request arriving exactly on a tick is taken a tick later'
m cpu-interrupt-latency models/cpu.c \
  'sim_time t = arrival + cfg->interrupt_latency;' 'sim_time t = arrival;' \
  'interrupt mode: the interrupt latency dropped'
m cpu-recv-cost models/cpu.c \
  'd = st->two_sided ? cfg->recv : 0;' 'd = 0;' \
  'a two-sided receive completes without the recv cost'

# Lowering (workloads/policies).
m put-part-remainder workloads/policies \
  'c.bytes = part + 1 < o->parts ? piece : o->bytes - piece * (o->parts - 1);' 'c.bytes = piece;' \
  'split send: the last piece loses the remainder bytes'
m gputn-threshold-stores workloads/policies \
  'c.threshold = (o->parts > 1 ? per_part : selected) * o->stores;' \
  'c.threshold = (o->parts > 1 ? per_part : selected);' \
  'gputn: a triggered put fires after one store per WG, not per work-item store'

# GPU (models/gpu.c).
m gpu-poll-tick models/gpu.c \
  'tick = w->wait_start + (now - w->wait_start + p - 1) / p * p;' \
  'tick = w->wait_start + (now - w->wait_start + p) / p * p;' \
  'WG flag poll: a flag arriving exactly on a tick is seen a tick later'
m gpu-fence models/gpu.c \
  'd = cfg->fence_latency;' 'd = 0;' \
  'a trigger store or device command leaves the WG without the fence'
m gpu-teardown models/gpu.c \
  'gpu_schedule(c, cfg->teardown_latency, EV_TEARDOWN_DONE, qi);' \
  'gpu_schedule(c, 0, EV_TEARDOWN_DONE, qi);' \
  'a kernel completes without its teardown latency'

# NIC (models/nic.c) and trigger list (models/trigger_list.c).
m nic-packets-floor models/nic.c \
  'int64_t n = bytes == 0 ? 1 : (bytes + mtu - 1) / mtu;' \
  'int64_t n = bytes == 0 ? 1 : bytes / mtu;' \
  'segmentation: a message of k MTUs and a bit is k packets, not k + 1'
m nic-cmd-cost models/nic.c \
  'sim_schedule(c, cfg->cmd_cost, EV_CMD_DONE, 0);' 'sim_schedule(c, 0, EV_CMD_DONE, 0);' \
  'a NIC command is served at no cost'
m nic-match-per-store models/nic.c \
  'cfg->match_latency * (sim_time)it->count' 'cfg->match_latency' \
  'a trigger carrying several stores pays one match, not one per store'
m tl-threshold models/trigger_list.c \
  'if (!e->op || e->counter < e->threshold) return;' \
  'if (!e->op || e->counter <= e->threshold) return;' \
  'an entry fires at counter > threshold, not >='
m tl-stall-spills models/trigger_list.c \
  'if (t->mode == TL_STALL) {' 'if (false) {' \
  'full list in stall mode spills to the overflow instead of stalling'
m tl-no-refill models/trigger_list.c \
  'if (!g_queue_is_empty(&t->overflow)) {' 'if (false) {' \
  'a freed on-NIC entry is not refilled from the overflow'

# Bus (models/bus.c).
m bus-latency models/bus.c \
  'sim_time at = bus_serialize(c, dst, m->bytes, now, m->kind) + cfg->latency;' \
  'sim_time at = bus_serialize(c, dst, m->bytes, now, m->kind);' \
  'a device-to-device message crosses the bus without its latency'
m bus-mem-latency models/bus.c \
  'bus_serialize(c, src, m->bytes, now + cfg->mem_latency, PK_DMA_DATA)' \
  'bus_serialize(c, src, m->bytes, now, PK_DMA_DATA)' \
  'a DMA read without the memory latency'
m bus-posted-order models/bus.c \
  'if (at < s->last_from[src]) at = s->last_from[src];' ';' \
  'posted writes from one source may overtake each other (a flag before its data)'

# Switch (models/switch.c) and the egress rule it shares (models/net.h).
m switch-no-serialization models/switch.c \
  'p->busy_until = q.busy_until;' ';' \
  'a switch output port never gets busy: packets to one port do not queue'
m switch-latency models/switch.c \
  'sim_time latency = f->net->switch_latency;' 'sim_time latency = 0;' \
  'a packet crosses a switch without its latency'
m net-store-forward models/net.h \
  'return (start - now) + (switching == NET_STORE_FORWARD ? *ser : 0);' 'return start - now;' \
  'store-and-forward behaves as cut-through'

# ---- the run ----
jobs=2
keep=0
list=0
picked=()
while [ $# -gt 0 ]; do
  case "$1" in
    -j) shift; jobs=${1:?-j: expected a count} ;;
    -j*) jobs=${1#-j} ;;
    --keep) keep=1 ;;
    --list) list=1 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "mutate.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) picked+=("$1") ;;
  esac
  shift
done
if [ $list = 1 ]; then
  for i in "${!names[@]}"; do
    printf '%-24s %-20s %s\n' "${names[$i]}" "${wheres[$i]}" "${whats[$i]}"
  done
  exit 0
fi
run=()
if [ ${#picked[@]} -eq 0 ]; then
  run=("${!names[@]}")
else
  for p in "${picked[@]}"; do
    known=0
    for i in "${!names[@]}"; do
      if [ "${names[$i]}" = "$p" ]; then run+=("$i"); known=1; fi
    done
    [ $known = 1 ] || { echo "mutate.sh: no mutation named $p (see --list)" >&2; exit 2; }
  done
fi
# The model and lowering suites: a few seconds together (test_goal and
# test_ranges, a minute and more, are left out).
suites=${SUITES:-test_cpu test_gpu test_nic test_trigger_list test_bus test_network test_system test_policy test_baselines test_loops test_coll}
regex="^($(echo "$suites" | tr -s ' ' '|'))\$"

dir=${MUTATE_DIR:-$(mktemp -d /tmp/trigsim-mutate.XXXXXX)}
src=$dir/src bld=$dir/build
if [ $keep = 0 ]; then trap 'rm -rf "$dir"' EXIT; fi
rm -rf "$src"
mkdir -p "$src"
# The working tree as it is (tracked and untracked files git does not ignore).
(cd "$root" && git ls-files -z -co --exclude-standard |
   tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -C "$src" -xf -
# Where each mutation's OLD occurs (file, line): exactly once, else it is
# stale, said now, before the build.
stale=0 found=() files=() lines=()
for i in "${run[@]}"; do
  name=${names[$i]} where=${wheres[$i]}
  if [ ! -e "$src/$where" ]; then
    printf '%-24s STALE     %s does not exist\n' "$name" "$where"
    stale=$((stale + 1)); continue
  fi
  mapfile -t hits < <(cd "$src" || exit
    grep -rnHF --include='*.c' --include='*.h' -- "${olds[$i]}" "$where" || true)
  if [ ${#hits[@]} -ne 1 ]; then
    printf '%-24s STALE     its text is on %d lines under %s: %s\n' "$name" "${#hits[@]}" \
      "$where" "${olds[$i]}"
    stale=$((stale + 1)); continue
  fi
  found+=("$i")
  files[i]=${hits[0]%%:*}
  rest=${hits[0]#*:}
  lines[i]=${rest%%:*}
done
if [ ${#found[@]} -eq 0 ]; then exit 2; fi
start=$(date +%s)
# No link-time optimisation (the CMakeLists turns it on for every build type
# but Debug), so a mutant relinks in seconds; -O2 as a release build.
gen=()
if command -v ninja >/dev/null; then gen=(-G Ninja); fi
cmake -S "$src" -B "$bld" "${gen[@]}" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-O2 \
  -DTRIGSIM_OPENCL=OFF -DTRIGSIM_MPI=OFF >"$dir/configure.log" 2>&1 ||
  { echo "mutate.sh: configure failed: $dir/configure.log" >&2; trap - EXIT; exit 2; }
# shellcheck disable=SC2086
build() { cmake --build "$bld" -j"$jobs" --target trigsim $suites >"$1" 2>&1; }
# Runs the suites; prints those that failed (none: empty).
suites_failing() {
  rm -f "$bld/Testing/Temporary/LastTestsFailed.log"
  if ctest --test-dir "$bld" -R "$regex" -j"$jobs" --timeout 120 >"$1" 2>&1; then return 0; fi
  if [ -f "$bld/Testing/Temporary/LastTestsFailed.log" ]; then
    cut -d: -f2- "$bld/Testing/Temporary/LastTestsFailed.log" | tr '\n' ' '
  else
    echo "(ctest failed: $1)"
  fi
}
if ! build "$dir/build.log"; then
  echo "mutate.sh: the unmutated copy does not build: $dir/build.log" >&2
  trap - EXIT; exit 2
fi
bad=$(suites_failing "$dir/baseline.log")
if [ -n "$bad" ]; then
  echo "mutate.sh: the unmutated copy fails $bad($dir/baseline.log)" >&2
  trap - EXIT; exit 2
fi
echo "built and checked the unmutated copy in $(( $(date +%s) - start )) s; suites: $suites"

killed=0 survived=0
for i in "${found[@]}"; do
  name=${names[$i]} file=${files[$i]} line=${lines[$i]}
  t0=$(date +%s)
  cp -p "$src/$file" "$dir/orig"
  OLD=${olds[$i]} NEW=${news[$i]} awk -v n="$line" '
    NR == n { k = index($0, ENVIRON["OLD"])
              $0 = substr($0, 1, k - 1) ENVIRON["NEW"] substr($0, k + length(ENVIRON["OLD"])) }
    { print }' "$dir/orig" >"$src/$file"
  log=$dir/$name
  if ! build "$log.build.log"; then
    printf '%-24s STALE     the mutant of %s:%s does not build (%s)\n' "$name" "$file" "$line" \
      "$log.build.log"
    stale=$((stale + 1)); keep=1
  else
    bad=$(suites_failing "$log.test.log")
    if [ -n "$bad" ]; then
      printf '%-24s killed    %s:%s by %s(%d s)\n' "$name" "$file" "$line" "$bad" $(( $(date +%s) - t0 ))
      killed=$((killed + 1))
    else
      printf '%-24s SURVIVED  %s:%s: %s (%d s)\n' "$name" "$file" "$line" "${whats[$i]}" \
        $(( $(date +%s) - t0 ))
      survived=$((survived + 1))
    fi
  fi
  # Back to the original text, with a new mtime so that it is rebuilt.
  cp "$dir/orig" "$src/$file"
  touch "$src/$file"
done
echo "$killed killed, $survived survived, $stale stale of ${#run[@]} mutations in $(( $(date +%s) - start )) s"
if [ $keep = 1 ]; then trap - EXIT; echo "scratch tree and logs: $dir"; fi
if [ $stale -gt 0 ]; then exit 2; fi
if [ $survived -gt 0 ]; then exit 1; fi
exit 0
