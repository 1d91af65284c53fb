#!/usr/bin/env bash
# Install everything the tests need (Debian: glibc-source; PyPI: the package and pytest), then run them.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
if ! dpkg -s glibc-source >/dev/null 2>&1; then
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq glibc-source gcc >/dev/null
fi
python3 -m pip install -q -e '.[test]' 2>/dev/null || python3 -m pip install -q --break-system-packages -e '.[test]'
python3 -m pytest -q "$@"
