#!/usr/bin/env bash
# Writes the Chakra traces of configs/chakra/ from their YAML programs:
# configs/chakra/NAME.program.yaml -> configs/chakra/traces/NAME.<rank>.et
# (trigsim export-chakra). tests/test_chakra.c checks that the committed
# traces are what this writes.
#   tools/chakra-traces.sh            BUILD_DIR (default build) is built if needed
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j2 --target trigsim >/dev/null
for src in configs/chakra/*.program.yaml; do
  name=$(basename "$src" .program.yaml)
  rm -f configs/chakra/traces/"$name".*.et
  "$build"/trigsim export-chakra "$src" -o configs/chakra/traces/"$name"
  echo "$src -> configs/chakra/traces/$name.*.et ($(ls configs/chakra/traces/"$name".*.et | wc -l) ranks)"
done
