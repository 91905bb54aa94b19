#!/usr/bin/env bash
# How much a profile's estimates move what it reproduces (issue 28, "every
# profile value has a source"): for each PARAM, every scenario is run at
# the parameter's resolved value x 0.8 and x 1.2 (`--set`), and the largest
# relative change of any of its results (each point and policy's
# total_time_ps) is printed beside the value. A scenario with a sweep:
# section is swept (trigsim sweep). Times, bandwidths, sizes and plain
# numbers scale; integers round.
#   usage: tools/sensitivity.sh [-b BUILD_DIR] SCENARIO[,SCENARIO...] PARAM...
#   e.g.   tools/sensitivity.sh configs/gputn-sc17/latency.yaml hardware.cpu.recv
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
if [ "${1:-}" = -b ]; then build=$2; shift 2; fi
scen=${1:?usage: sensitivity.sh [-b BUILD_DIR] SCENARIO[,SCENARIO...] PARAM...}
shift
[ -x "$build/trigsim" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null;
                             cmake --build "$build" -j "$(nproc)" --target trigsim >/dev/null; }
python3 - "$build/trigsim" "$scen" "$@" <<'PY'
import csv, io, json, re, subprocess, sys
trigsim, scenarios, params = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
def run(sc, sets):
    text = open(sc).read()
    cmd = [trigsim, "sweep" if re.search(r"^sweep:", text, re.M) else "run", sc, "-f", "csv", "-q",
           "--counters", "none"]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    key = [k for k in rows[0] if k not in ("total_time_ps", "events") and not k.startswith("phase_")]
    return {tuple(r[k] for k in key): float(r["total_time_ps"]) for r in rows}
def value(sc, path):
    out = subprocess.run([trigsim, "run", sc, "--dump-config"],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        k, _, rest = line.partition(":")
        if k.strip() == path:
            return rest.split("#")[0].strip()
    raise SystemExit(f"sensitivity: {path}: not a parameter of {sc}")
def scaled(v, x):
    m = re.fullmatch(r"([0-9.eE+-]+)([A-Za-z]*)", v)
    if not m:
        raise SystemExit(f"sensitivity: cannot scale {v}")
    num, unit = float(m.group(1)), m.group(2)
    if unit == "" and "." not in m.group(1):
        return str(max(1, round(num * x)))
    if unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        mult = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[unit]
        return f"{round(num * mult * x)}B"
    return f"{num * x:.6g}{unit}"
base = {sc: run(sc, []) for sc in scenarios}
print(f"{'parameter':40s} {'value':>12s} " + " ".join(f"{sc.split('/')[-1][:-5]:>14s}" for sc in scenarios))
for p in params:
    v = value(scenarios[0], p)
    cells = []
    for sc in scenarios:
        worst = 0.0
        for x in (0.8, 1.2):
            got = run(sc, [f"{p}={scaled(v, x)}"])
            for k, t in base[sc].items():
                if k in got and t > 0:
                    worst = max(worst, abs(got[k] - t) / t)
        cells.append(f"{100 * worst:13.1f}%")
    print(f"{p:40s} {v:>12s} " + " ".join(cells), flush=True)
PY
