#!/usr/bin/env bash
# One command: install what is missing, build with warnings as errors, run
# every test, then build and run them again under AddressSanitizer and
# UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/deps.sh
trigsim_install_deps
jobs=$(nproc)

echo "== build and test (release)"
cmake -S . -B build/check -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRIGSIM_WERROR=ON >/dev/null
cmake --build build/check -j"$jobs"
ctest --test-dir build/check --output-on-failure -j"$jobs"

echo "== calibrate the OpenCL device (PoCL's CPU device in CI), validate against real runs"
tools/calib-ci.sh build/check/trigsim build/check/calib

echo "== build and test (AddressSanitizer + UndefinedBehaviorSanitizer)"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DTRIGSIM_WERROR=ON -DTRIGSIM_SANITIZE=ON >/dev/null
cmake --build build/asan -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/asan --output-on-failure -j"$jobs"

if command -v clang >/dev/null || command -v clang-14 >/dev/null; then
  echo "== fuzz each harness briefly (tests/fuzz/; longer: tools/fuzz.sh SECONDS)"
  FUZZ_JOBS=$jobs tools/fuzz.sh "${FUZZ_SECONDS:-20}"
else
  echo "== fuzzing skipped: no clang (tools/deps.sh installs clang-14)"
fi
