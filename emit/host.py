"""Which ISAs this host can run: the one place the tests, ``--verify``, the fuzzer and the benchmark ask.

Code for a table with a ``run_prefix`` (NEON, AltiVec) runs under that emulator (qemu-user), so it
runs where the emulator is installed. Any other table's code runs natively, when the CPU has the
table's ``CPU_FEATURES`` (the flags ``/proc/cpuinfo`` lists: ``avx512f avx512bw avx512dq avx512vl``
for AVX-512). ``EXPAND_HOST_ISAS=sse2,sse4.1,avx2`` (a comma-separated list) takes the CPU to run no
native ISA outside the list, so that a machine with AVX-512 can show what one without it does;
``generic`` and the emulated ISAs are not affected by it.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

from .isa import Isa
from .registry import ISAS, get_isa

#: The environment variable that hides native ISAs from this module.
HIDE_VAR = "EXPAND_HOST_ISAS"
#: The exit status of every command (expand --verify, expand-fuzz, mathlib.bench) whose code compiled
#: and linked but could not run here: neither success nor a mismatch nor a crash.
EXIT_NOT_RUN = 3


@cache
def _cpuinfo_flags() -> frozenset[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def cpu_flags() -> set[str]:
    """The host's CPU feature flags (from /proc/cpuinfo; empty elsewhere)."""
    return set(_cpuinfo_flags())


def cpu_model() -> str:
    """The CPU's model name as /proc/cpuinfo gives it (the machine type elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@cache
def emulator_version(cmd: str) -> tuple[int, ...]:
    """The version ``cmd --version`` prints (``qemu-riscv64 version 10.0.13 (...)``: (10, 0, 13)), or ()."""
    try:
        out = subprocess.run([cmd, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ()
    m = re.search(r"version (\d+(?:\.\d+)*)", out)
    return tuple(int(x) for x in m.group(1).split(".")) if m else ()


def _allowed() -> set[str] | None:
    v = os.environ.get(HIDE_VAR)
    if v is None:
        return None
    return {s.strip() for s in v.split(",") if s.strip()}


def why_not_here(isa: Isa | str) -> str | None:
    """None when this host runs ``isa``'s code (a table or an ISA name), else why not (a sentence
    without a final period)."""
    if isinstance(isa, str):

        isa = get_isa(isa)
    if isa.run_prefix:
        if shutil.which(isa.run_prefix[0]) is None:
            return f"{isa.run_prefix[0]} is not installed, which runs {isa.name} code here"
        if type(isa).RUN_MIN_VERSION:
            least, why = type(isa).RUN_MIN_VERSION
            have = emulator_version(isa.run_prefix[0])
            if have < least:
                return (f"{isa.run_prefix[0]} {'.'.join(map(str, have)) or '(version unknown)'} cannot run "
                        f"{isa.name} code: {why}; install {'.'.join(map(str, least))} or later "
                        f"(tests/setup-and-run.sh does)")
        return None
    need = set(getattr(type(isa), "CPU_FEATURES", ()))
    if not need:
        return None
    missing = sorted(need - _cpuinfo_flags())
    if missing:
        return (f"this CPU ({cpu_model()}) cannot run {isa.name} code: it lacks {' '.join(missing)}")
    allowed = _allowed()
    if allowed is not None and isa.name not in allowed:
        return f"{isa.name} is hidden from this host by {HIDE_VAR}={os.environ[HIDE_VAR]}"
    return None


def runs_here(isa: Isa | str) -> bool:
    """Whether this host runs ``isa``'s code (natively, or under its emulator)."""
    return why_not_here(isa) is None


def default_isa() -> str:
    """The best ISA this host runs (emit/host.py) among those with a table here."""
    m = platform.machine().lower()
    order: list[str] = []
    if m in ("x86_64", "amd64"):
        order += ["avx512", "avx2", "sse4.1", "sse2"]
    elif m in ("aarch64", "arm64"):
        order.append("neon")
    elif m.startswith("ppc64"):
        order.append("altivec")
    order = [n for n in order if n in ISAS and (n in ("neon", "altivec") or runs_here(n))]
    return next(iter(order), "generic" if "generic" in ISAS else next(iter(ISAS)))
