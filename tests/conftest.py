"""What the test run ran with: the resolved versions of the parsers and compilers, the CPU, and which
ISAs this host runs (emit/host.py), printed at the top of every pytest run (without -q) and by
``python3 tests/conftest.py`` (which tests/setup-and-run.sh runs first); and which ISAs the tests that
run a case on every ISA leave to the ISA's own module (WIDTH_VARIANTS)."""

from __future__ import annotations

import importlib.metadata as md
import os
import shutil
import subprocess

from emit import ISAS, cpu_model, why_not_here
from emit.host import HIDE_VAR
from expand.cli import QUIET_CAVEATS

# The tests compare what expand prints on stderr: no table caveat there (tests/test_rvv.py checks it)
os.environ[QUIET_CAVEATS] = "1"


def _pkg(name: str) -> str:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "not installed"


def _tool(cmd: list[str]) -> str:
    if shutil.which(cmd[0]) is None:
        return "not installed"
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return out.splitlines()[0].strip() if out.strip() else "?"


def environment() -> list[str]:
    """One line per fact: package and tool versions, the CPU, the ISAs run here and why not the others."""
    pkgs = ", ".join(f"{n} {_pkg(n)}" for n in ("pycparser", "pycparserext", "libclang", "pytest"))
    tools = [f"{c}: {_tool([c, '--version'])}" for c in
             ("gcc", "aarch64-linux-gnu-gcc", "powerpc64le-linux-gnu-gcc", "qemu-aarch64", "qemu-ppc64le")]
    runs = [n for n in ISAS if why_not_here(n) is None]
    lines = [f"expand: {pkgs}", *(f"expand: {t}" for t in tools), f"expand: CPU {cpu_model()}",
             f"expand: ISAs run here: {', '.join(runs)}"]
    lines += [f"expand: {n} compiled, not run: {why_not_here(n)}" for n in ISAS if n not in runs]
    if HIDE_VAR in os.environ:
        lines.append(f"expand: {HIDE_VAR}={os.environ[HIDE_VAR]}")
    return lines


def pytest_report_header(config) -> list[str]:
    return environment()


if __name__ == "__main__":
    print("\n".join(environment()))


#: Tables that are another vector length of a table the suite runs everywhere (sve: 256 bits, rvv: VLEN
#: 128): their own modules and the corpus matrix run them; the tests that run a case on every ISA leave
#: them to those (each would add a qemu run per case and ISA: about 190 cases each).
WIDTH_VARIANTS = {"sve128": "sve", "sve512": "sve", "rvv256": "rvv"}
#: The modules that do run the width variants
WIDTH_MODULES = {"test_sve.py", "test_rvv.py", "test_matrix.py"}


def pytest_collection_modifyitems(config, items) -> None:
    """Deselect the cases of WIDTH_VARIANTS outside WIDTH_MODULES (pytest reports them as deselected)."""
    keep, drop = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        variant = any(isinstance(v, str) and v in WIDTH_VARIANTS for v in params.values())
        (drop if variant and item.path.name not in WIDTH_MODULES else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
