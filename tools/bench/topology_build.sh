#!/usr/bin/env bash
# Build time and resident memory of whole systems (CPU, GPU, NIC and bus per
# node, plus the network), one line per system:
#   nodes=4096 topology=fat-tree build_s=0.012 bytes_per_node=2048
# then 1024 GPUs, 8 to a physical node (network.gpus_per_node), on a
# fat-tree: the 1024-GPU system of configs/hw/a100-nvlink.yaml's shape.
# Usage: tools/bench/topology_build.sh [nodes, default 4096]
set -euo pipefail
cd "$(dirname "$0")/../.."
nodes=${1:-4096}
build=${BUILD_DIR:-build}
# The bench targets exist only with TRIGSIM_BENCH (a new folder: Release).
if [ -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DTRIGSIM_BENCH=ON >/dev/null
else
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTRIGSIM_BENCH=ON >/dev/null
fi
cmake --build "$build" -j2 --target topology_build >/dev/null
for topo in star fat-tree torus dragonfly; do
  "$build/tools/bench/topology_build" "$nodes" "$topo"
done
"$build/tools/bench/topology_build" 1024 fat-tree 8
