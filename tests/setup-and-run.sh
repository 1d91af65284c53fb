#!/usr/bin/env bash
# Install everything the tests need, then run them:
#   Debian: gcc, glibc-source (the corpus), cross compilers for AArch64 and ppc64le, qemu-user;
#   PyPI:   this package with its test extras.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
PKGS="gcc glibc-source gcc-aarch64-linux-gnu gcc-powerpc64le-linux-gnu qemu-user libsleef-dev"
missing=""
for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
python3 -m pip install -q -e '.[test]' 2>/dev/null || python3 -m pip install -q --break-system-packages -e '.[test]'
python3 tests/conftest.py  # the versions, the CPU and the ISAs this run can run
# every test, the slow ones included (the daily loop while working: python3 -m pytest -m "not slow" -n 2)
python3 -m pytest -q -n 2 --durations=25 "$@"
