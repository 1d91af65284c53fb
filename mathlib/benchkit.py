"""What the two benchmarks share (``python -m mathlib.bench`` and its ``--kernels`` suite,
mathlib/kbench.py): the host, the flags, building, and the run-time proof that each column calls
what it names (every program prints, through ``dladdr``, the object each entry point lives in, and
``lives_in`` checks it: the program itself, or a named shared library such as libmvec.so.1)."""

from __future__ import annotations

import os
import platform
import re
import statistics
import subprocess
import sys
from pathlib import Path

from emit import runs_here

X86_ISAS = ("sse4.1", "avx2", "avx512")

SCALAR_FLAGS = ["-O2", "-fno-tree-vectorize", "-ffp-contract=off"]
VECTOR_FLAGS = ["-O2", "-ffp-contract=off"]
#: Added to every compile: each function and loop starts a 64-byte line, so that where the linker
#: happens to put a variant (the same instructions 20% apart here otherwise) matters less.
ALIGN_FLAGS = ["-falign-functions=64", "-falign-loops=64"]


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                fam = mod = ""
                for ln in Path("/proc/cpuinfo").read_text().splitlines():
                    if ln.startswith("cpu family") and not fam:
                        fam = ln.split(":", 1)[1].strip()
                    elif re.match(r"model\s*:", ln) and not mod:
                        mod = ln.split(":", 1)[1].strip()
                return f"{name} (family {fam}, model {mod})" if fam else name
    except OSError:
        pass
    return platform.processor() or platform.machine()


def gcc_version() -> str:
    try:
        return subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        return "gcc ?"


def host_isas() -> list[str]:
    """The x86 ISAs of X86_ISAS this host runs (emit/host.py)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return []
    return [i for i in X86_ISAS if runs_here(i)]


class WrongEntryPoint(Exception):
    """A column does not call what it names (found at run time): the benchmark stops."""


class BuildError(Exception):
    pass


def run(cmd: list[str], cwd: Path) -> str:
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise BuildError(f"$ {' '.join(cmd)}\n{(p.stdout + p.stderr)[-4000:]}")
    return p.stdout


def paired_speed(a: dict, b: dict) -> float:
    """How much faster variant ``a`` runs than ``b``: the median over rounds of b's time / a's time in
    the same round of the same process (the two ran back to back, so a slow spell of the machine
    or a slow process moves both and cancels, which the ratio of two medians does not do)."""
    return statistics.median(y / x for x, y in zip(a["samples"], b["samples"]) if x > 0)


def pyplot(path: Path):
    """(matplotlib, matplotlib.pyplot) drawing to files, or None (saying so) when matplotlib is missing:
    no ``path`` then."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"bench: matplotlib is not installed: no {path.name} (pip install matplotlib)", file=sys.stderr)
        return None
    return matplotlib, plt


def fmt_ns(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}" if x < 1000 else f"{x:.0f}"


#: C: ``where(series, symbol, address)`` prints the object an entry point lives in (needs <dlfcn.h>, <stdio.h>).
WHERE_C = r"""/* where an entry point lives: the program itself or a shared library (the columns call what they name) */
static void where(const char *series, const char *sym, const void *p)
{
    Dl_info d;
    printf("entry %s %s %s\n", series, sym, dladdr(p, &d) && d.dli_fname ? d.dli_fname : "?");
}

"""


def entries_code(entries: dict[str, tuple[str, str]]) -> str:
    """C statements printing, for each series, the object its entry point lives in (dladdr)."""
    return "".join(f'    where("{series}", "{sym}", (const void *)&{sym});\n' for series, (sym, _) in entries.items())


def entry_lines(out: str) -> dict[str, tuple[str, str]]:
    """The ``entry SERIES SYMBOL OBJECT`` lines a program printed: {series: (symbol, object)}."""
    seen = {}
    for line in out.splitlines():
        parts = line.split(" ", 3)
        if parts[0] == "entry" and len(parts) == 4:
            seen[parts[1]] = (parts[2], parts[3])
    return seen


def lives_in(obj: str, lib: str, exe: Path) -> bool:
    """Whether ``obj`` (dladdr's object of an entry point) is where it must be: ``exe`` itself for
    ``lib == "exe"``, else the shared library ``lib`` (``libmvec``: libmvec.so, libmvec.so.1)."""
    if lib == "exe":
        return os.path.realpath(obj) == os.path.realpath(exe)
    return re.fullmatch(rf"{re.escape(lib)}\.so(\.\d+)*", os.path.basename(obj)) is not None
