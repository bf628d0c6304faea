#!/usr/bin/env bash
# Installs the Debian 12 packages Orrery builds and tests with (as root, or
# through sudo). Safe to run again: packages already there are kept.
set -euo pipefail
packages=(
  build-essential cmake pkg-config gfortran
  libopenmpi-dev openmpi-bin
  libhdf5-dev hdf5-tools
  libotf2-trace-dev otf2-tools
  libcli11-dev nlohmann-json3-dev libcpp-httplib-dev libfmt-dev libdw-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev libomp-dev
  python3 python3-h5py python3-numpy python3-pandas libxml2-utils
  nodejs npm chromium
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node may come from elsewhere than Debian; then its npm is there too.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
read -r -a missing <<<"${missing[*]}"
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
