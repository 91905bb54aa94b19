#!/usr/bin/env bash
# Same-instant events in other orders (issue 29; tools/bench/README.md "Ties
# between components"): runs scenarios through tests/test_ties, the models
# linked against a test-only event queue (tests/tie_queue.c) that runs the
# events of one instant grouped by destination in an order a salt shuffles,
# and checks that each gives the same CSV bytes (every component's counters,
# events included) in the engine's order and with three salts. Nothing of it
# is in the trigsim program. test_ties names each scenario that moved, where.
# Usage: tools/bench/ties.sh [SCENARIO.yaml...]   (default: every scenario
#   under configs/ that `trigsim validate` accepts; the largest take minutes:
#   the test queue is a balanced tree, not the engine's radix heap)
#   BUILD_DIR (default build) is configured and built when needed.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target trigsim test_ties >/dev/null
picked=("$@")
[ ${#picked[@]} -gt 0 ] || mapfile -t picked < <(find configs -name '*.yaml' | LC_ALL=C sort)
run=()
for y in "${picked[@]}"; do
  "$build/trigsim" validate "$y" >/dev/null 2>&1 && run+=("$y")
done
echo "ties.sh: ${#run[@]} scenarios, each in the engine's order and shuffled three ways"
"$build/tests/test_ties" "${run[@]}"
