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
#: 128): their own modules run them; the tests that run a case on every ISA leave them to the deep run.
WIDTH_VARIANTS = {"sve128": "sve", "sve512": "sve", "rvv256": "rvv"}
#: The modules that run the width variants in the README's run
WIDTH_MODULES = {"test_sve.py", "test_rvv.py"}
#: Cross products whose other ISAs only the deep run takes (test function -> the ISAs of the README's
#: run): every BOSCC mode of every corpus function and loop kernel on every ISA (the default mode runs on
#: every ISA in test_matrix.py, and the modes' own tests in test_boscc.py), the kernel suite with mathlib's
#: vector libm on the new ISAs (per-lane libm calls on SVE and RVV too: the README's run verifies the suite
#: there, the matrix's suite rows, in test_kernel_suite.py only), and the vector libm's functions against
#: their glibc sources on the SVE and RVV tables, and the fuzz regressions on RVV at VLEN 256 (at VLEN 128
#: in the README's run: the same table at another vector length).
FIXED_WIDTH = {"sse2", "sse4.1", "avx2", "avx512", "neon", "altivec", "generic"}  # (the tables before SVE and RVV)
DEEP_CASES = {
    "test_every_function_every_isa_verifies": {"avx2", "neon"},
    "test_loop_corpus_verifies_in_every_boscc_mode": {"avx2", "neon"},
    "test_kernel_verifies_per_lane_libm": FIXED_WIDTH | {"sve", "rvv"},
    "test_kernel_verifies_with_vector_libm": FIXED_WIDTH,
    "test_every_function_equals_the_glibc_source": {"avx2", "sse4.1", "neon", "altivec"},
    "test_sample_equals_the_glibc_source_scalable": set(),
    "test_fuzz_regressions": {"rvv"},
}
#: The marker expression word that selects the deep run: python3 -m pytest -m deep -n 2
DEEP = "deep"


def deep_case(item) -> bool:
    """Whether ``item`` is left to the deep run: a width variant outside WIDTH_MODULES, another ISA of
    a DEEP_CASES cross product, or a test marked ``deep``."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    isas = [v for v in params.values() if isinstance(v, str) and v in ISAS]
    if any(v in WIDTH_VARIANTS for v in isas) and item.path.name not in WIDTH_MODULES:
        return True
    if item.get_closest_marker(DEEP) is not None:  # (a test marked deep itself: the deep fuzz run)
        return True
    keep = DEEP_CASES.get(getattr(item, "originalname", item.name))
    return keep is not None and any(v not in keep for v in isas)


def pytest_collection_modifyitems(config, items) -> None:
    """Mark the deep run's cases ``deep`` (``deep_case``); without ``-m deep`` (any marker expression naming
    it) they are deselected (pytest reports them as deselected), with it only they run."""
    deep = DEEP in (config.getoption("markexpr") or "")
    keep, drop = [], []
    for item in items:
        if deep_case(item):
            item.add_marker(DEEP)
            (keep if deep else drop).append(item)
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
