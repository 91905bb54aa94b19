#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/, clang) in build/fuzz and runs
# each for SECONDS (default 60) on its committed seed corpus
# (tests/fuzz/corpus/NAME, replayed first: the regression inputs of every
# crash found so far) and a scratch corpus in build/fuzz/corpus/NAME.
#   tools/fuzz.sh 300            # five minutes each
#   tools/fuzz.sh 10 units       # one harness
# A crash stops with the reproducer in build/fuzz/crash-*: fix it, then
# copy the input into tests/fuzz/corpus/NAME/ as a regression input.
# Prints per harness: executions, coverage (libFuzzer's cov: edges, ft:
# features) and the corpus size. Exit 1 on a crash.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
names=("$@")
# The GOAL reader (workloads/inputs/goal.c, being written) gets its harness as
# tests/fuzz/fuzz_goal.c with seeds in tests/fuzz/corpus/goal: both are
# picked up here and in tests/fuzz/CMakeLists.txt once they exist.
if [ ${#names[@]} -eq 0 ]; then
  names=(scenario units matrix chakra)
  [ -f tests/fuzz/fuzz_goal.c ] && names+=(goal)
fi
cc=$(command -v clang || command -v clang-14) ||
  { echo "fuzz.sh: clang not found (tools/deps.sh installs clang-14)"; exit 1; }
cmake -S . -B build/fuzz -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTRIGSIM_FUZZ=ON -DBUILD_TESTING=OFF -DTRIGSIM_MPI=OFF -DTRIGSIM_OPENCL=OFF >/dev/null
targets=()
for n in "${names[@]}"; do targets+=(fuzz_"$n"); done
cmake --build build/fuzz -j"${FUZZ_JOBS:-2}" --target "${targets[@]}" >/dev/null
status=0
for n in "${names[@]}"; do
  mkdir -p build/fuzz/corpus/"$n" tests/fuzz/corpus/"$n"
  log=build/fuzz/fuzz_"$n".log
  # -rss_limit_mb and -timeout: a bounded run is a finding otherwise.
  if ! (cd build/fuzz && ./tests/fuzz/fuzz_"$n" -max_total_time="$seconds" -timeout=10 \
          -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
          corpus/"$n" ../../tests/fuzz/corpus/"$n") >"$log" 2>&1; then
    echo "fuzz_$n: FAILED (see $log; reproducer in build/fuzz/crash-* or leak-*/timeout-*/oom-*)"
    status=1
  fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo ?)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1 || echo "cov: ?")
  echo "fuzz_$n: ${seconds}s, $execs executions, $cov"
done
exit $status
