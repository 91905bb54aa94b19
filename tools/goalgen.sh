#!/usr/bin/env bash
# Writes a GOAL schedule (LogGOPSim/Schedgen text) of one collective as
# trigsim's program workload expands it (workloads/ir/coll.h), so the same
# pattern can run as a YAML program, as GOAL here, or in LogGOPSim:
#   tools/goalgen.sh COLLECTIVE RANKS SIZE [ALGORITHM] > out.goal
# COLLECTIVE: allreduce, reduce_scatter, allgather, bcast, reduce, alltoall,
# barrier; SIZE with a unit (1MiB); ALGORITHM as in configs/README.md
# (default auto). A reduction's calc is its time on the CPU of
# configs/hw/gputn-sc17.yaml, in ns. TRIGSIM names the binary (default
# build/trigsim).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
trigsim=${TRIGSIM:-$root/build/trigsim}
if [ $# -lt 3 ] || [ $# -gt 4 ]; then
  echo "usage: tools/goalgen.sh COLLECTIVE RANKS SIZE [ALGORITHM]" >&2
  exit 2
fi
coll=$1 ranks=$2 size=$3 alg=${4:-auto}
case $ranks in '' | *[!0-9]*) echo "goalgen: expected a rank count, got '$ranks'" >&2; exit 2 ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/coll.yaml" <<YAML
include: $root/configs/hw/gputn-sc17.yaml
name: goalgen
workload:
  kind: program
  groups:
    - ops:
        - $coll: {size: "$size", algorithm: "$alg"}
hardware:
  network: {nodes: $ranks}
policies: [cpu]
YAML
[ "$coll" = barrier ] && sed -i 's/{size: "[^"]*", /{/' "$tmp/coll.yaml"
exec "$trigsim" export-goal "$tmp/coll.yaml"
