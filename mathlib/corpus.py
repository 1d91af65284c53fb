"""The scalar corpus of EXPAND's Table 1 plus the paper's two examples.

The 12 glibc functions come from Debian's ``glibc-source`` package at run time
(never stored in the repo): only ``glibc-<ver>/sysdeps/ieee754/flt-32/`` is
extracted, once, into a cache directory (``mathlib/glibc/``, git-ignored;
override with the environment variable ``EXPAND_GLIBC_DIR``).  They compile
against our shim of glibc's internal headers in ``mathlib/glibc-shim/``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

MATHLIB_DIR = Path(__file__).resolve().parent
GLIBC_SOURCE_DIR = Path("/usr/src/glibc")
FLT32_SUBDIR = "sysdeps/ieee754/flt-32"

#: Flags that compile every corpus file cleanly (add ``-I`` for ``include_dirs``).
CFLAGS: list[str] = ["-O2", "-Wall", "-Werror", "-ffp-contract=off"]
#: Preprocessor flags whose output parses with pycparserext's ``GnuCParser``.  Do not add
#: ``-D_GNU_SOURCE``: math.h then declares _Float32/_Float64x functions GnuCParser rejects, and
#: ``issignaling`` becomes libm's ``__issignalingf`` instead of the shim's inline one.
CPPFLAGS: list[str] = ["-E", "-std=c11", "-D_Float128=double"]


@dataclass
class CorpusFunction:
    """One scalar function of the corpus and what it takes to build it."""

    name: str
    source: Path
    func: str
    include_dirs: list[Path] = field(default_factory=list)
    link: list[Path] = field(default_factory=list)
    libs: list[str] = field(default_factory=list)
    #: --verify ranges of integer parameters that index memory (``verify(bounds=...)``)
    bounds: dict[str, tuple[int, int]] = field(default_factory=dict)

    def include_flags(self) -> list[str]:
        """``-I`` flags for this function's include dirs."""
        return [f"-I{d}" for d in self.include_dirs]


def shim_dir() -> Path:
    """Directory of our glibc internal-header shim."""
    return MATHLIB_DIR / "glibc-shim"


def cache_dir() -> Path:
    """Where the glibc sources (and newlib's: ``newlib_math``) are extracted (``EXPAND_GLIBC_DIR`` or
    ``mathlib/glibc``)."""
    env = os.environ.get("EXPAND_GLIBC_DIR")
    return Path(env).expanduser().resolve() if env else MATHLIB_DIR / "glibc"


def _version_key(path: Path) -> tuple[int, ...]:
    """Sort key for ``glibc-X.Y[.Z].tar.xz`` by numeric version."""
    return tuple(int(n) for n in re.findall(r"\d+", path.name))


def _find_tarball() -> Path | None:
    """Newest ``/usr/src/glibc/glibc-*.tar.xz``, or None."""
    found = sorted(GLIBC_SOURCE_DIR.glob("glibc-*.tar.xz"), key=_version_key)
    return found[-1] if found else None


def glibc_tarball() -> Path:
    """Locate the glibc source tarball, installing ``glibc-source`` if root and missing."""
    tarball = _find_tarball()
    if tarball is not None:
        return tarball
    if hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "glibc-source"], check=True, env=env)
        tarball = _find_tarball()
        if tarball is not None:
            return tarball
    raise RuntimeError(
        f"no {GLIBC_SOURCE_DIR}/glibc-*.tar.xz: the scalar corpus needs Debian's 'glibc-source' "
        "package (run as root: apt-get update && apt-get install -y glibc-source)"
    )


def glibc_flt32_dir() -> Path:
    """The extracted ``sysdeps/ieee754/flt-32`` directory, extracting it once if needed."""
    tarball = glibc_tarball()
    top = tarball.name.removesuffix(".tar.xz")  # e.g. glibc-2.36
    dest = cache_dir() / top / FLT32_SUBDIR
    if (dest / "math_config.h").is_file():
        return dest
    prefix = f"{top}/{FLT32_SUBDIR}/"
    cache = cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    # Extract into a private temp dir, then rename into place, so concurrent callers never see half a tree.
    with tempfile.TemporaryDirectory(dir=cache, prefix=".extract-") as tmp:
        with tarfile.open(tarball, "r:xz") as tar:
            members = [m for m in tar if m.name.startswith(prefix) and (m.isfile() or m.isdir())]
            tar.extractall(tmp, members=members, filter="data")
        extracted = Path(tmp) / top / FLT32_SUBDIR
        if not (extracted / "math_config.h").is_file():
            raise RuntimeError(f"{tarball} has no {prefix}math_config.h")
        dest.parent.mkdir(parents=True, exist_ok=True)
        try:
            extracted.rename(dest)
        except OSError:
            if not (dest / "math_config.h").is_file():  # not just a concurrent winner
                raise
    return dest


# (short name, file in flt-32, C function, link files in flt-32, libs)
_GLIBC: list[tuple[str, str, str, list[str], list[str]]] = [
    ("isinff", "s_isinff.c", "__isinff", [], []),
    ("finitef", "s_finitef.c", "__finitef", [], []),
    ("fabsf", "s_fabsf.c", "__fabsf", [], []),
    ("isnanf", "s_isnanf.c", "__isnanf", [], []),
    ("copysignf", "s_copysignf.c", "__copysignf", [], []),
    ("truncf", "s_truncf.c", "__truncf", [], []),
    ("ceilf", "s_ceilf.c", "__ceilf", [], []),
    # copysignf is a gcc builtin (inlined at -O2) but a libm call at -O0.
    ("scalbnf", "s_scalbnf.c", "__scalbnf", [], ["m"]),
    ("floorf", "s_floorf.c", "__floorf", [], []),
    ("roundf", "s_roundf.c", "__roundf", [], []),
    ("logf", "e_logf.c", "__logf", ["e_logf_data.c", "math_errf.c"], []),
    ("powf", "e_powf.c", "__powf", ["e_powf_log2_data.c", "e_exp2f_data.c", "math_errf.c"], []),
]


def corpus() -> list[CorpusFunction]:
    """All 14 corpus functions (12 glibc + mot + chroma); extracts glibc sources if needed."""
    flt32 = glibc_flt32_dir()
    incs = [shim_dir(), flt32]
    out = [
        CorpusFunction(name, flt32 / src, func, list(incs), [flt32 / f for f in link], list(libs))
        for name, src, func, link, libs in _GLIBC
    ]
    out.append(CorpusFunction("mot", MATHLIB_DIR / "mot.c", "mot", [], [], ["m"]))
    out.append(CorpusFunction("chroma", MATHLIB_DIR / "chroma.c", "chroma", [], [], []))
    for fn in out:
        if not fn.source.is_file():
            raise FileNotFoundError(f"corpus source missing: {fn.source}")
    return out


def main() -> int:
    """Print the corpus with paths (``python -m mathlib.corpus``)."""
    fns = corpus()
    print(f"shim:   {shim_dir()}")
    print(f"flt-32: {glibc_flt32_dir()}")
    print(f"cflags: {' '.join(CFLAGS)}    cpp: gcc {' '.join(CPPFLAGS)}")
    for fn in fns:
        link = " ".join(p.name for p in fn.link) or "-"
        libs = " ".join(f"-l{lib}" for lib in fn.libs) or "-"
        print(f"{fn.name:10} {fn.func:12} {fn.source}  link: {link}  libs: {libs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# ------------------------------------------------------------------ newlib's libm (real code nobody here wrote)

NEWLIB_TARBALL = Path("/usr/src/newlib/newlib-3.3.0.tar.xz")  # (Debian's newlib-source)

#: how newlib's configure leaves libm/math's wrappers (w_*.c) by default: _LIB_VERSION is _POSIX_
#: (newlib's math.h names the enum; the system's glibc headers do not)
NEWLIB_DEFINES = ["_LIB_VERSION=2", "_IEEE_=-1", "_SVID_=0", "_XOPEN_=1", "_POSIX_=2"]


def newlib_math() -> tuple[Path, list[str]]:
    """newlib's ``libm/math`` directory (fdlibm's e_*, k_*, s_*, w_* files in double and float), extracted
    once into ``cache_dir()/newlib``, and the include directories its files need with the system's
    headers: ``libm/common`` (fdlibm.h) and one with only newlib's ``machine/ieeefp.h``."""
    if not NEWLIB_TARBALL.is_file():
        raise RuntimeError(f"no {NEWLIB_TARBALL}: install Debian's 'newlib-source' (tests/setup-and-run.sh does)")
    dest = cache_dir() / "newlib"
    top = dest / "newlib-salsa/newlib"
    incs = [str(top / "libm/common"), str(dest / "machine-only")]
    if (dest / ".done").is_file():
        return top / "libm/math", incs
    cache_dir().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir(), prefix=".extract-newlib-") as tmp:
        with tarfile.open(NEWLIB_TARBALL, "r:xz") as tar:
            want = ("newlib-salsa/newlib/libm/math/", "newlib-salsa/newlib/libm/common/",
                    "newlib-salsa/newlib/libc/include/machine/ieeefp.h")
            members = [m for m in tar if m.name.startswith(want) and (m.isfile() or m.isdir())]
            tar.extractall(Path(tmp) / "x", members=members, filter="data")
        t = Path(tmp) / "x"
        (t / "machine-only/machine").mkdir(parents=True)
        shutil.copyfile(t / "newlib-salsa/newlib/libc/include/machine/ieeefp.h", t / "machine-only/machine/ieeefp.h")
        (t / ".done").write_text("newlib 3.3.0: libm/math, libm/common, machine/ieeefp.h\n")
        try:
            t.rename(dest)
        except OSError:
            if not (dest / ".done").is_file():
                raise
    return top / "libm/math", incs
