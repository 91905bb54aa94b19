#!/usr/bin/env bash
# The CPU-free study's own logs against trigsim's predictions (issue 28):
# ParCoreLab/CPU-Free-model's CG/results/cg_runtime_8A100.csv gives, for
# the 18 Table 1 matrices, seconds for 5000 iterations of standard and
# pipelined CG, CPU-controlled and CPU-free, on 8 A100s (its 8-GPU column;
# CG/scripts/measure_runtime.py, 5000 iterations). Each is divided by 5000
# and printed beside the prediction of configs/cpufree-ics23/cg-standard
# and cg-pipelined (policies gds: CPU-controlled, cpufree: CPU-free; the
# counter cg.time_per_iteration_ps), with the error in us and in percent,
# then the median and the worst |error| over the 72, relative and absolute. Nothing here is fitted: the
# A100 profile's kernel classes and launch costs come from the study's
# per-operation measurements (tools/cpufree-fit.sh), never from these.
#   usage: [GPUS=N] tools/cpufree-logs.sh [BUILD_DIR [--set PATH=VALUE ...]]   (default build)
# Any --set after BUILD_DIR goes to both sweeps (e.g. what one value moves:
# --set hardware.cpu.wake_jitter=0ps). GPUS (1 - 8, default 8, issue 28's
# check) compares the log's column of that many GPUs instead, the scenarios
# on one node of that many A100s (network.nodes = network.gpus_per_node =
# GPUS); the logs' 2-GPU CPU-controlled runs take 0.54 - 2.46x their 1-GPU
# time and 2.5 - 5.0x their 3-GPU time (configs/cpufree-ics23/README.md).
# The logs are read from a clone of the study's public repository,
# https://github.com/ParCoreLab/CPU-Free-model (CPUFREE_REPO, default
# /work/.mirror/ParCoreLab+CPU-Free-model/repo), at CPUFREE_REV (HEAD).
set -euo pipefail
cd "$(dirname "$0")/.."
gpus=${GPUS:-8}
case $gpus in
  [1-8]) ;;
  *) echo "cpufree-logs: GPUS: expected 1 to 8 (the logs' columns), got '$gpus'" >&2; exit 2 ;;
esac
nodes=()
[ "$gpus" = 8 ] || nodes=(--set "hardware.network.nodes=$gpus" --set "hardware.network.gpus_per_node=$gpus")
build=${1:-build}
shift $(( $# > 0 ? 1 : 0 ))
repo=${CPUFREE_REPO:-/work/.mirror/ParCoreLab+CPU-Free-model/repo}
rev=${CPUFREE_REV:-HEAD}
logs=$(git -C "$repo" show "$rev:CG/results/cg_runtime_8A100.csv" 2>/dev/null) || {
  echo "cpufree-logs: expected a clone of https://github.com/ParCoreLab/CPU-Free-model at" \
       "CPUFREE_REPO ($repo), got none" >&2
  exit 2
}
if [ ! -x "$build/trigsim" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j "$(nproc)" --target trigsim >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for v in standard pipelined; do
  "$build/trigsim" sweep "configs/cpufree-ics23/cg-$v.yaml" --set 'policies=[gds, cpufree]' \
    -c all -f csv -q -o "$tmp/$v.csv" ${nodes[@]+"${nodes[@]}"} "$@"
done
python3 - "$tmp" "$gpus" <<EOF
import csv, statistics, sys
tmp, gpus = sys.argv[1], int(sys.argv[2])
logs = """$logs""".splitlines()
rows = list(csv.reader(logs[1:]))
head, data = rows[0], rows[1:]
col = head.index("1 GPU" if gpus == 1 else f"{gpus} GPUs")
want = {}
for r in data:
    variant = "standard" if "Standard" in r[1] else "pipelined"
    policy = "cpufree" if "CPU-Free" in r[1] else "gds"
    want[(r[0], variant, policy)] = float(r[col]) / 5000 * 1e6
pred = {}
for v in ("standard", "pipelined"):
    for r in csv.DictReader(open(f"{tmp}/{v}.csv")):
        pred[(r["workload.matrix"], v, r["policy"])] = float(r["cg.time_per_iteration_ps"]) / 1e6
print(f"{'matrix':16s} {'variant':9s} {'version':14s} {'logs us':>9s} {'trigsim us':>10s} "
      f"{'error us':>9s} {'error':>7s}")
errs, abs_us, names = [], [], []
for (m, v, p), w in want.items():
    if (m, v, p) not in pred:
        continue  # tridiagonal: not a Table 1 matrix
    got = pred[(m, v, p)]
    e = (got - w) / w
    errs.append(abs(e))
    abs_us.append(abs(got - w))
    name = "CPU-free" if p == "cpufree" else "CPU-controlled"
    names.append(f"{m} {v} {name}")
    print(f"{m:16s} {v:9s} {name:14s} {w:9.1f} {got:10.1f} {got - w:+9.1f} {100 * e:+6.1f}%")
r, a = errs.index(max(errs)), abs_us.index(max(abs_us))
print(f"# {len(errs)} per-iteration times on {gpus} GPU{'s' if gpus > 1 else ''}: |error| median {100 * statistics.median(errs):.1f}%, "
      f"worst {100 * errs[r]:.1f}% ({names[r]}, {abs_us[r]:.1f} us); absolute |error| median "
      f"{statistics.median(abs_us):.1f} us, worst {abs_us[a]:.1f} us ({names[a]}, "
      f"{100 * errs[a]:.1f}%)")
EOF
