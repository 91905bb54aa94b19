#!/usr/bin/env bash
# Installs the Debian 12 packages trigsim needs, only those that are missing.
# Sourced by quickstart.sh and check.sh; uses sudo when not root.
set -euo pipefail

trigsim_packages=(
  build-essential cmake pkg-config
  libglib2.0-dev libgsl-dev libyaml-dev libcunit1-dev
  gnuplot-nox libopenmpi-dev openmpi-bin
  ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd
  libmetis-dev
  protobuf-c-compiler libprotobuf-c-dev   # Chakra traces (workloads/inputs/chakra.proto)
  time
  clang-14 libclang-rt-14-dev   # tools/fuzz.sh: libFuzzer harnesses (tests/fuzz/)
)

trigsim_install_deps() {
  local missing=()
  for p in "${trigsim_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
