#!/usr/bin/env bash
# One command on a fresh Debian 12 machine: install what is missing, build,
# and run the default scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/deps.sh
trigsim_install_deps
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target trigsim
echo
echo "\$ build/trigsim run configs/default.yaml"
build/trigsim run configs/default.yaml
