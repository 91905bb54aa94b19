#!/usr/bin/env bash
# How much a profile's estimates move what it reproduces (issue 28, "every
# profile value has a source"): for each PARAM, every scenario is run at
# the parameter's resolved value x 0.8 and x 1.2 (`--set`), and for each
# the largest relative change of any of its results (each point and
# policy's total_time_ps) is printed with its sign beside the value, with
# the scenario and row where the largest of all moved. A scenario with a
# sweep: section is swept (trigsim sweep). Times, bandwidths, sizes and
# plain numbers scale; integers round. Ratios of results (speedups) are
# not computed: each total is compared with its own baseline.
#   usage: tools/sensitivity.sh [-b BUILD_DIR] [-s [SCENARIO|]PATH=VALUE]... SCENARIO[,SCENARIO...] PARAM...
#   -s: a --set every run of SCENARIO gets (every scenario's without
#       `SCENARIO|`), e.g. to sweep fewer points of a slow scenario
#   e.g.   tools/sensitivity.sh configs/gputn-sc17/latency.yaml hardware.cpu.recv
#          tools/sensitivity.sh -s 'configs/cpufree-ics23/cg-pipelined.yaml|sweep.axes=[{path: workload.matrix, values: [ecology2]}]' \
#              configs/cpufree-ics23/cg-pipelined.yaml hardware.gpu.teardown_latency
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
sets=()
while [ $# -gt 0 ]; do
  case $1 in
    -b) build=$2; shift 2 ;;
    -s) sets+=("$2"); shift 2 ;;
    *) break ;;
  esac
done
scen=${1:?usage: sensitivity.sh [-b BUILD_DIR] [-s [SCENARIO|]PATH=VALUE]... SCENARIO[,SCENARIO...] PARAM...}
shift
[ -x "$build/trigsim" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null;
                             cmake --build "$build" -j "$(nproc)" --target trigsim >/dev/null; }
python3 - "$build/trigsim" "$scen" "${#sets[@]}" "${sets[@]}" "$@" <<'PY'
import csv, io, re, subprocess, sys
trigsim, scenarios = sys.argv[1], sys.argv[2].split(",")
nsets = int(sys.argv[3])
sets, params = sys.argv[4:4 + nsets], sys.argv[4 + nsets:]
def base_sets(sc):
    out = []
    for s in sets:
        target, bar, rest = s.partition("|")
        if not bar:
            out.append(s)
        elif target == sc:
            out.append(rest)
    return [a for s in out for a in ("--set", s)]
def run(sc, extra):
    text = open(sc).read()
    cmd = [trigsim, "sweep" if re.search(r"^sweep:", text, re.M) else "run", sc, "-f", "csv", "-q",
           "--counters", "none"] + base_sets(sc)
    for s in extra:
        cmd += ["--set", s]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    key = [k for k in rows[0]
           if k not in ("total_time_ps", "policy_end_ps", "events", "scenario", "workload", "seed")
           and not k.startswith(("phase_", "cp_"))]
    return {tuple(f"{k}={r[k]}" for k in key): float(r["total_time_ps"]) for r in rows}
def value(sc, path):
    out = subprocess.run([trigsim, "run", sc, "--dump-config"] + base_sets(sc),
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
def name(sc):
    return sc.split("/")[-1][:-5]
base = {sc: run(sc, []) for sc in scenarios}
print(f"{'parameter':34s} {'value':>10s} " + " ".join(f"{name(sc)[:15]:>15s}" for sc in scenarios)
      + "  largest (x0.8 / x1.2): where")
for p in params:
    vals = {sc: value(sc, p) for sc in scenarios}
    cells, top = [], (0.0, "")
    for sc in scenarios:
        signed = []
        for x in (0.8, 1.2):
            got = run(sc, [f"{p}={scaled(vals[sc], x)}"])
            best, where = 0.0, ""
            for k, t in base[sc].items():
                if k in got and t > 0:
                    d = (got[k] - t) / t
                    if abs(d) > abs(best):
                        best, where = d, " ".join(k)
            signed.append(best)
            if abs(best) > abs(top[0]):
                top = (best, f"{name(sc)} x{x} {where}")
        cells.append(f"{100 * signed[0]:+6.1f}/{100 * signed[1]:+6.1f}%")
    v = vals[scenarios[0]] if len(set(vals.values())) == 1 else "varies"
    print(f"{p:34s} {v:>10s} " + " ".join(f"{c:>15s}" for c in cells) + f"  {top[1]}", flush=True)
PY
