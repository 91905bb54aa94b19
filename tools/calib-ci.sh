#!/usr/bin/env bash
# CI's calibration round: measure the attached OpenCL device quickly (PoCL's
# CPU device on a CI machine), check the simulator's Jacobi-loop predictions
# against real runs on it, then run a scenario that includes the fresh
# profile. validate-real's errors are printed, not judged: a shared CI
# machine's timing noise is no model error.
#   usage: tools/calib-ci.sh TRIGSIM OUTDIR
set -euo pipefail
bin=${1:?usage: calib-ci.sh TRIGSIM OUTDIR}
out=${2:?usage: calib-ci.sh TRIGSIM OUTDIR}
mkdir -p "$out"
"$bin" calibrate --quick --out "$out/profile.yaml"
"$bin" validate-real --quick "$out/profile.yaml" | tee "$out/validate.txt"
# It brackets its cases with the host's empty round trip, measured then.
grep -q '^# host: empty round trip .* over the cases' "$out/validate.txt" || {
  echo "calib-ci: expected validate-real's '# host: empty round trip' summary line" >&2
  exit 1
}
cat > "$out/scenario.yaml" <<'YAML'
# A Jacobi loop on the profile just measured (tools/calib-ci.sh).
include: profile.yaml
workload:
  kind: kloop
  grid: 256
  iterations: 20
policies: [hdn]
YAML
"$bin" run "$out/scenario.yaml"
"$bin" run "$out/scenario.yaml" --set workload.sync=false
