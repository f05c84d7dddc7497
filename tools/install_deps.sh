#!/usr/bin/env bash
# Installs what building and testing streamscope needs on Debian 12 (apt).
# The CUDA toolkit (13.0) is not a Debian package: where it is absent, only
# the analyzer is built and GPU tests are skipped.
#
#   tools/install_deps.sh [PACKAGE...]   # also these (the sanitizer step's clang)
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
PKGS=(build-essential cmake ninja-build pkg-config git python3 python3-venv sqlite3
      libsqlite3-dev zlib1g-dev libabsl-dev libgtest-dev libgmock-dev nlohmann-json3-dev
      libcli11-dev libprotobuf-dev protobuf-compiler chromium dpkg-dev file
      clang-format lld "$@")
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "streamscope: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
