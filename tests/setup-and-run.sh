#!/usr/bin/env bash
# Install everything the tests need, then run them:
#   Debian: gcc, glibc-source (the corpus), newlib-source (a second libm, tests/test_realworld.py), cross compilers for AArch64 and ppc64le, qemu-user;
#           clang-16, lld-16 and the riscv64 cross GCC's libraries (the rvv tables), and Debian 13's
#           qemu-riscv64 (10.0: Debian 12's 7.2 aborts on RVV float-to-int conversions, emit/rvv.py);
#   PyPI:   this package with its test extras.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
PKGS="gcc glibc-source gcc-aarch64-linux-gnu gcc-powerpc64le-linux-gnu qemu-user libsleef-dev
      clang-16 lld-16 gcc-riscv64-linux-gnu libc6-dev-riscv64-cross newlib-source"
missing=""
for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
if ! qemu-riscv64 --version 2>/dev/null | grep -qE "version ([89]|[1-9][0-9])\."; then
  # Debian 13's qemu-user is statically linked: its qemu-riscv64 runs on Debian 12 (in /usr/local/bin,
  # ahead of /usr/bin on PATH; the other emulators stay Debian 12's)
  t="$(mktemp -d)"
  mkdir -p "$t/lists/partial" "$t/cache/archives/partial"
  echo "deb http://deb.debian.org/debian trixie main" > "$t/sources.list"
  apt_t=(-o Dir::Etc::sourcelist="$t/sources.list" -o Dir::Etc::sourceparts=- -o Dir::State::Lists="$t/lists"
         -o Dir::Cache="$t/cache")
  $SUDO apt-get "${apt_t[@]}" update -qq
  (cd "$t" && $SUDO apt-get "${apt_t[@]}" download -qq qemu-user 2>/dev/null)
  dpkg-deb -x "$t"/qemu-user_*.deb "$t/x"
  $SUDO install -m 755 "$t/x/usr/bin/qemu-riscv64" /usr/local/bin/qemu-riscv64
  $SUDO rm -rf "$t"
fi
python3 -m pip install -q -e '.[test]' 2>/dev/null || python3 -m pip install -q --break-system-packages -e '.[test]'
# bytecode for the package once: where PYTHONDONTWRITEBYTECODE is set (as on our machines) every expand
# process the tests start would compile its modules again (half of a small expand run's time)
python3 -m compileall -q -x '/glibc/' expand frontends predication emit mathlib >/dev/null || true  # (a speed-up only)
python3 tests/conftest.py  # the versions, the CPU and the ISAs this run can run
# every test, the slow ones included, but the deep cross products (tests/conftest.py: python3 -m pytest -m deep -n 2);
# the daily loop while working: python3 -m pytest -m "not slow" -n 2
python3 -m pytest -q -n 2 --durations=25 "$@"
