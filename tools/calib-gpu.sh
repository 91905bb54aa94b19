#!/usr/bin/env bash
# A GPU machine's calibration round (configs/hw/README.md, "Measured
# profiles"): the CUDA probe of the launch and signal paths, built with nvcc
# where there is one (tools/calib/cuda_probe.cu), then `calibrate --cuda`,
# then `validate-real` at 100 and 1000 iterations; and graph replay
# (tools/calib/graph_probe.cu, read by hand: gpu.graph_launch and
# cpu.graph_launch); and the parts of the sync loop on OpenCL
# (tools/calib/probes/sync_parts.c, read by hand). Everything lands in
# OUTDIR: NAME.yaml (the profile), NAME.log (their notes), NAME-cuda.yaml,
# NAME-graph.txt, NAME-validate-100.txt, NAME-validate-1000.txt,
# NAME-sync-parts.txt.
#   usage: tools/calib-gpu.sh 'TRIGSIM COMMAND' OUTDIR [NAME]
# TRIGSIM COMMAND may hold words (a bundled trigsim run through its
# gpu-env.sh: '.carry/trigsim/gpu-env.sh .carry/trigsim/trigsim').
set -euo pipefail
read -r -a bin <<<"${1:?usage: calib-gpu.sh 'TRIGSIM COMMAND' OUTDIR [NAME]}"
out=${2:?usage: calib-gpu.sh 'TRIGSIM COMMAND' OUTDIR [NAME]}
name=${3:-gpu}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cuda=()
if command -v nvcc >/dev/null 2>&1 && command -v nvidia-smi >/dev/null 2>&1; then
  probe=$(mktemp -d)/trigsim-cuda-probe
  if { nvcc -O2 -arch=native -o "$probe" "$here/calib/cuda_probe.cu" ||
       nvcc -O2 -arch=sm_90 -o "$probe" "$here/calib/cuda_probe.cu"; } &&
     "$probe" -o "$out/$name-cuda.yaml"; then
    cuda=(--cuda "$out/$name-cuda.yaml")
  else
    echo "calib-gpu: the CUDA probe failed; calibrating without it" >&2
  fi
  gprobe=$(dirname "$probe")/graph_probe
  if { nvcc -O2 -arch=native -o "$gprobe" "$here/calib/graph_probe.cu" ||
       nvcc -O2 -arch=sm_90 -o "$gprobe" "$here/calib/graph_probe.cu"; }; then
    "$gprobe" > "$out/$name-graph.txt" || echo "calib-gpu: the graph probe failed" >&2
  fi
fi
# stderr (calibrate's notes: the host's state, the persistent loop's clock
# and placement on NVIDIA; validate-real's slow clocks) kept in NAME.log
"${bin[@]}" calibrate "${cuda[@]}" --out "$out/$name.yaml" 2> >(tee "$out/$name.log" >&2)
"${bin[@]}" validate-real "${cuda[@]}" "$out/$name.yaml" 2> >(tee -a "$out/$name.log" >&2) |
  tee "$out/$name-validate-100.txt"
"${bin[@]}" validate-real "${cuda[@]}" --iters 1000 "$out/$name.yaml" \
  2> >(tee -a "$out/$name.log" >&2) > "$out/$name-validate-1000.txt"
tail -1 "$out/$name-validate-1000.txt"
sp=$(mktemp -d)/sync_parts
if gcc -O2 -std=c11 -o "$sp" "$here/calib/probes/sync_parts.c" -lOpenCL 2>/dev/null; then
  "$sp" > "$out/$name-sync-parts.txt" || echo "calib-gpu: the sync-parts probe failed" >&2
fi
