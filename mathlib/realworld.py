"""Run expand and its verifier on every ``.c`` file of a real libm source directory.

    python -m mathlib.realworld DIR --isa ISA [--jobs N] [-I DIR ...] [-D NAME[=V] ...] [--random N]
                                [--out OUTDIR] [--files a.c,b.c] [--timeout S]

Every file of DIR gets the same flags (no per-file tuning) and one row of a table, written as
``OUTDIR/realworld-<dirname>-<isa>.md`` and ``.json`` (default OUTDIR ``mathlib/results``):

* ``verified``: every function with external linkage the file defines expanded, the output compiled
  with the ISA's compiler and ``-Wall -Wextra -Werror``, and ``--verify`` found 0 mismatches;
* ``diagnostic: <message>``: expand stopped with a ``file:line:col: error:`` diagnostic (the message's
  first line without its position, so that equal causes group together);
* ``FAIL: <what>``: expand gave no diagnostic but its output did not compile, mismatched, crashed,
  or expand raised another exception (``traceback: ...``): always a bug of expand;
* ``not run: <why>``: the output compiled and linked, but this host cannot run the ISA;
* ``scalar code: <summary>``: the scalar function itself crashes, or has undefined behaviour for the
  mismatching inputs (``VerifyReport.verdict`` ``scalar-crash``/``scalar-ub``);
* ``scalar build: <what>``: the scalar file (or a companion it needs) does not compile or link with
  the flags: not expand's doing;
* ``timeout``: the file took longer than ``--timeout`` seconds (default 300), or a function's
  verification did not end in the time left (``timeout: f: the run did not end within ...``, naming
  the inputs it was running). Integer parameters a loop's trip count depends on are drawn from
  ``expand.verify.TRIP_BOUNDS``, as ``expand --verify`` draws them without ``--range``;
* ``no function``: the compiled file defines no function with external linkage (a data table such
  as ``e_logf_data.c``, or every function ``static`` or ``#if``'d out under the flags).

The summary line ``verified V of N (P%)`` counts in N every row but ``no function``. Exit status 1
if any row is FAIL, else 0.

**Companions.** Every file of DIR is compiled once with the flags (``gcc -c``); ``nm --defined-only``
and ``nm -u`` give what each object defines and needs. A file is linked (``verify(link_files=...)``)
with the transitive closure of the files that define the symbols it needs, except symbols the
target's ``libm.so.6``/``libc.so.6`` export (those come from ``-lm``/libc): ``e_logf.c`` gets
``e_logf_data.c`` and ``math_errf.c``. The objects of that compile are what is linked.

**Isolation.** Each file runs in its own Python process (``--jobs`` at a time), in its own process
group, killed with everything it started when the timeout expires; a worker that dies is a FAIL row.
Expansion uses the Python API as ``expand --verify`` does (``read_file_any``, ``expand_module`` with
the default ``--vector-math expand``, ``verify`` per function with ``scalar_static``), so every
verdict is classified from ``VerifyReport.verdict`` and the build step that failed, not from text.

**glibc's flags** (``glibc_flags``, used when DIR lies inside a ``glibc-X.Y`` source tree and no
``-I``/``-D`` is given): glibc's own headers, as its build uses them, not the hand-written shim of
``mathlib/glibc-shim`` (with the shim, expand's frontend reads 34 of flt-32's 89 files; with these
flags 51, and 86 compile: the shim lacks fenv_private.h, math-underflow.h, shlib-compat.h, ...).
The rest of the glibc tarball (``/usr/src/glibc/glibc-X.Y.tar.xz``, Debian's ``glibc-source``) is
extracted into the tree the corpus made (``mathlib/glibc/glibc-X.Y``) once, without the locale,
iconv, po, benchtests and libm-test data. What we chose, and why:

* Include order: ``include/``, a directory of generated headers, then every sysdeps directory in the
  order glibc 2.36's ``configure`` computes for ``x86_64-linux-gnu`` (``aarch64-linux-gnu`` for
  neon, ``powerpc64le-linux-gnu`` for altivec; ``_sysdeps_dirs`` replays its walk of the ``Implies``
  files, each directory preceded by its ``include/``), multiarch left out (``USE_MULTIARCH`` unset:
  the generic C, not the ifunc variants), then the top directory, ``libio`` and ``math`` (the
  directory libm's files are compiled in). DIR itself comes first: the frontend reads the file from
  standard input, where gcc has no including file's directory, and ``#include "math_config.h"``
  must find DIR's, not dbl-64's, in the frontend as in the compiler (an angle include of a header
  DIR has then takes DIR's too: in flt-32 ``<sincosf_poly.h>``, whose x86 version uses vector types
  expand does not read).
* Defines as glibc's Makeconfig gives libm's files: ``-D_LIBC_REENTRANT -DMODULE_NAME=libm``, with
  ``-include libc-modules.h -include include/libc-symbols.h`` (which defines ``_LIBC`` and
  ``_GNU_SOURCE`` and includes ``config.h``), ``-std=gnu11 -fgnu89-inline`` (``include/math.h``'s
  ``extern inline`` functions need gnu89 inline semantics) and libm's ``-frounding-math
  -fno-math-errno``. Not ``SHARED``/``PIC`` (a static libm: no symbol versions).
* Generated headers, written into ``<tree>/.expand-realworld/``: ``config.h`` is ``config.h.in`` as
  it stands (every feature undefined), ``libc-modules.h`` numbers the modules as
  ``scripts/gen-libc-modules.awk`` would, ``first-versions.h`` and ``abi-versions.h`` are empty (a
  static build uses no symbol versions), ``libc-abis.h`` has no ABI tag (powerpc's ldsodefs.h).
  Headers the build would generate beyond these (``bits/stdio_lim.h``, ...) come from the system's
  installed glibc (no ``-nostdinc``).
* For expand's frontend only (its ``gcc -E -std=c11`` and pycparser/libclang do not take every GNU
  C spelling of the compiler's): the force-included headers become ``#include`` lines in front of
  the file's text, followed by a line marker so that positions stay the file's (``read_file_any``
  has no ``-include``); ``__OPTIMIZE__`` is defined (libc-symbols.h refuses to compile without
  optimisation); ``asm``/``typeof`` are spelled ``__asm__``/``__typeof__`` (keywords of gnu11, not of
  c11) and ``__signed__`` ``signed`` (in the kernel headers powerpc's math_private.h pulls in);
  ``__thread`` is dropped (pycparser cannot parse include/errno.h's ``extern __thread int errno``)
  and with it ``tls_model`` becomes ``section`` (an attribute libclang takes on a plain variable); a
  ``bits/floatn.h`` wrapper says the ``_Float16/32/64/32x/64x`` types do not exist (their
  declarations in math.h are what the parsers cannot read; ``_Float128`` stays, as the frontend's
  ``-D_Float128=double`` has it), and ``__FLT128_*__`` constants are ``0.0`` (their ``F128``
  suffix does not lex). The compiler, verifier and output see glibc's headers unchanged.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = Path(__file__).resolve().parent / "results"
DEFAULT_TIMEOUT = 300.0
#: Random inputs per function: natively, and under qemu (neon, altivec)
RANDOM_NATIVE, RANDOM_EMULATED = 20_000, 5_000
#: Parts of the glibc tarball not extracted (no headers or sources a libm file includes)
_SKIP_TOP = {"localedata", "iconvdata", "po", "benchtests", "manual", "ChangeLog.old"}
_SKIP_PREFIX = ("math/auto-libm-test-", "math/libm-test-")
#: glibc's machine directory per architecture (after sysdeps/<cpu>/preconfigure)
_MACHINE = {"x86_64": "x86_64/64", "aarch64": "aarch64", "ppc64le": "powerpc/powerpc64/le"}
#: Modules of libc-modules.h: the non-library ones first, then LIBS_BEGIN, then the libraries
_MODULES = ["iconvprogs", "iconvdata", "ldconfig", "lddlibc4", "libmemusage", "libSegFault", "libpcprofile",
            "librpcsvc", "locale_programs", "memusagestat", "nonlib", "nscd", "extramodules", "libnldbl",
            "libsupport", "testsuite", "testsuite_internal", "LIBS_BEGIN", "rtld", "libc", "libm", "libmvec",
            "libpthread", "libdl", "librt", "libutil", "libresolv", "libanl", "libnsl", "libcrypt",
            "libthread_db", "libBrokenLocale", "libc_malloc_debug"]
_FLOATN_WRAPPER = """\
/* expand realworld (mathlib/realworld.py): expand's frontend's view of <bits/floatn.h>.  glibc's,
   then no _Float16/_Float32/_Float64/_Float32x/_Float64x/_Float128x: math.h's declarations of them
   are what its parsers cannot read.  The compiler never sees this file.  */
#include_next <bits/floatn.h>
#ifndef _EXPAND_REALWORLD_FLOATN_H
#define _EXPAND_REALWORLD_FLOATN_H
#undef __HAVE_FLOAT16
#undef __HAVE_FLOAT32
#undef __HAVE_FLOAT64
#undef __HAVE_FLOAT32X
#undef __HAVE_FLOAT64X
#undef __HAVE_FLOAT128X
#define __HAVE_FLOAT16 0
#define __HAVE_FLOAT32 0
#define __HAVE_FLOAT64 0
#define __HAVE_FLOAT32X 0
#define __HAVE_FLOAT64X 0
#define __HAVE_FLOAT128X 0
#endif
"""
_FRONTEND_DEFINES = ["__OPTIMIZE__=1", "asm=__asm__", "typeof=__typeof__", "__signed__=signed", "__thread=",
                     "tls_model=section",
                     *(f"__FLT128_{n}__=0.0" for n in ("MAX", "MIN", "EPSILON", "DENORM_MIN", "NORM_MAX"))]
#: Order of severity when a file's functions end differently (the first wins)
_SEVERITY = ["FAIL", "timeout", "scalar build", "scalar code", "not run", "verified"]


# ----------------------------------------------------------------------------- flags


@dataclass
class Flags:
    """One set of flags for every file of a directory."""

    include_dirs: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    undefs: list[str] = field(default_factory=list)
    #: compiler flags beyond the preprocessor's (scalar files, companions, the output, the harness)
    cflags: list[str] = field(default_factory=list)
    #: for expand's frontend only: include dirs before ``include_dirs``, more defines, and lines put
    #: in front of the file's text (what ``-include`` does for the compiler)
    frontend_include_dirs: list[str] = field(default_factory=list)
    frontend_defines: list[str] = field(default_factory=list)
    frontend_prelude: list[str] = field(default_factory=list)
    origin: str = "given"

    def cpp(self) -> list[str]:
        """The preprocessor flags of the compiler."""
        return ([f"-I{d}" for d in self.include_dirs] + [f"-D{d}" for d in self.defines]
                + [f"-U{u}" for u in self.undefs])

    def describe(self) -> str:
        """The compiler's flags, then the frontend's extras, as one line."""
        text = shlex.join(self.cflags + self.cpp())
        extra = [f"-I{d}" for d in self.frontend_include_dirs] + [f"-D{d}" for d in self.frontend_defines]
        if extra or self.frontend_prelude:
            text += (f" (frontend also: {shlex.join(extra)}; text prefixed by {len(self.frontend_prelude)}"
                     " #include lines)")
        return text


def glibc_root(path: Path) -> Path | None:
    """The ``glibc-X.Y`` source tree that ``path`` lies in, or None."""
    for p in [path, *path.parents]:
        if re.fullmatch(r"glibc-\d+(\.\d+)+", p.name) and (p / "sysdeps").is_dir():
            return p
    return None


def _tarball_for(version_dir: Path) -> Path:
    from .corpus import GLIBC_SOURCE_DIR

    tarball = GLIBC_SOURCE_DIR / f"{version_dir.name}.tar.xz"
    if not tarball.is_file():
        raise RuntimeError(f"{version_dir} has no include/libc-symbols.h and there is no {tarball} to extract it "
                           "from (Debian's glibc-source package); give -I/-D flags instead")
    return tarball


def _merge(src: Path, dst: Path) -> None:
    """Move what ``src`` has and ``dst`` lacks into ``dst`` (files already there stay)."""
    for entry in src.iterdir():
        target = dst / entry.name
        if not target.exists():
            try:
                entry.rename(target)
            except OSError:
                if not target.exists():
                    raise
        elif entry.is_dir() and target.is_dir():
            _merge(entry, target)


def ensure_glibc_tree(version_dir: Path) -> Path:
    """Make sure ``version_dir`` holds glibc's headers and sources, extracting the rest of its tarball
    once (the corpus extracts flt-32 only); returns ``version_dir``."""
    marker = version_dir / ".expand-realworld-tree"
    if marker.is_file() or ((version_dir / "include/libc-symbols.h").is_file()
                            and (version_dir / "config.h.in").is_file() and (version_dir / "math/math.h").is_file()):
        return version_dir
    tarball = _tarball_for(version_dir)
    top = version_dir.name
    with tempfile.TemporaryDirectory(dir=version_dir.parent, prefix=".extract-") as tmp:
        with tarfile.open(tarball, "r:xz") as tar:
            def wanted(m: tarfile.TarInfo) -> bool:
                rel = m.name.partition("/")[2]
                return (m.isfile() or m.isdir()) and m.name.startswith(f"{top}/") \
                    and rel.split("/")[0] not in _SKIP_TOP and not rel.startswith(_SKIP_PREFIX)
            tar.extractall(tmp, members=(m for m in tar if wanted(m)), filter="data")
        _merge(Path(tmp) / top, version_dir)
    marker.write_text(f"extracted from {tarball}\n")
    return version_dir


def _implied(root: Path, name: str, kind: str) -> list[str]:
    f = root / name / kind
    if not f.is_file():
        return []
    words = " ".join(line.split("#")[0] for line in f.read_text().splitlines()).split()
    return [f"sysdeps/{w}" for w in words if (root / "sysdeps" / w).is_dir()]


def _sysdeps_dirs(root: Path, machine: str, os_name: str = "linux-gnu", base_os: str = "unix/sysv",
                  vendor: str = "pc") -> list[str]:
    """glibc's sysdeps directories in the order its ``configure`` lists them (``sysnames``), without
    multiarch: the directories that exist among base x machine x os, then each one's ``Implies``
    (before the rest), ``Implies-before``, parent and ``Implies-after``, and ``sysdeps/generic``."""
    ostry = [os_name] + ([os_name.split("-")[0]] if "-" in os_name else [])
    base = ["/" + "/".join(base_os.split("/")[:i]) for i in range(len(base_os.split("/")), 0, -1)]
    parts = machine.split("/")
    mach = [f"/{'/'.join(parts[:i])}{fp}" for i in range(len(parts), 0, -1) for fp in ("/fpu", "")]
    names: list[str] = []
    for b in [*base, ""]:
        for m0 in [*mach, ""]:
            for v in (f"/{vendor}", ""):
                for o in [*(f"/{x}" for x in ostry), ""]:
                    for m in [*mach, ""]:
                        suffix = m0 + b + v + o + m
                        if suffix and (root / f"sysdeps{suffix}").is_dir() and f"sysdeps{suffix}" not in names:
                            names.append(f"sysdeps{suffix}")
    out: list[str] = []
    todo = names
    while todo:
        name, todo = todo[0], todo[1:]
        if name in out:
            continue
        out.append(name)
        parent = name.rsplit("/", 1)[0]
        todo = (_implied(root, name, "Implies") + todo + _implied(root, name, "Implies-before")
                + ([parent] if parent != "sysdeps" else []) + _implied(root, name, "Implies-after"))
    return [*out, "sysdeps/generic"]


def _write(path: Path, text: str) -> None:
    """Write ``text`` unless the file already holds it (atomically: parallel runs share the files)."""
    if path.is_file() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def _generated_dir(version_dir: Path) -> Path:
    """The generated headers (config.h, libc-modules.h, ...) and the frontend's wrappers."""
    gen = version_dir / ".expand-realworld"
    try:
        gen.mkdir(exist_ok=True)
        probe = gen / f".probe.{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError:  # a read-only tree: a directory of our own
        key = hashlib.sha256(str(version_dir).encode()).hexdigest()[:12]
        gen = Path(tempfile.gettempdir()) / f"expand-realworld-{key}"
        gen.mkdir(exist_ok=True)
    config = (version_dir / "config.h.in").read_text()
    _write(gen / "build/config.h", "/* expand realworld: config.h.in as it stands (a configure run that defines"
                                   " nothing) */\n" + config)
    mods = "".join(f"#define MODULE_{n} {i}\n" for i, n in enumerate(_MODULES, 1))
    _write(gen / "build/libc-modules.h", "/* expand realworld: as scripts/gen-libc-modules.awk numbers them */\n"
           "#ifndef _EXPAND_REALWORLD_LIBC_MODULES_H\n#define _EXPAND_REALWORLD_LIBC_MODULES_H\n"
           f"{mods}#endif\n")
    for name in ("first-versions.h", "abi-versions.h"):
        _write(gen / "build" / name, "/* expand realworld: empty (a static build uses no symbol versions) */\n")
    _write(gen / "build/libc-abis.h", "/* expand realworld: as scripts/gen-libc-abis writes it with no ABI tags */\n"
           "#ifndef _LIBC_ABIS_H\n#define _LIBC_ABIS_H 1\nenum { LIBC_ABI_DEFAULT = 0, LIBC_ABI_MAX };\n#endif\n")
    _write(gen / "frontend/bits/floatn.h", _FLOATN_WRAPPER)
    return gen


def _arch(isa) -> str:
    if isa.arch:
        return isa.arch
    import platform
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64", "ppc64el": "ppc64le"}.get(m, m)


def glibc_flags(version_dir: Path, isa) -> Flags:
    """The flags every file of a glibc source tree is compiled with (see the module docstring): glibc's
    own headers in its build's order for ``isa``'s architecture, its libm defines and force-included
    headers, and what expand's frontend needs besides."""
    version_dir = ensure_glibc_tree(Path(version_dir).resolve())
    arch = _arch(isa)
    if arch not in _MACHINE:
        raise ValueError(f"no glibc sysdeps machine for architecture {arch}")
    gen = _generated_dir(version_dir)
    build = gen / "build"
    incs = [version_dir / "include", build]
    for d in _sysdeps_dirs(version_dir, _MACHINE[arch]):
        if (version_dir / d / "include").is_dir():
            incs.append(version_dir / d / "include")
        incs.append(version_dir / d)
    incs += [version_dir, version_dir / "libio", version_dir / "math"]
    modules, symbols = build / "libc-modules.h", version_dir / "include/libc-symbols.h"
    return Flags(include_dirs=[str(d) for d in incs], defines=["_LIBC_REENTRANT", "MODULE_NAME=libm"],
                 cflags=["-std=gnu11", "-fgnu89-inline", "-frounding-math", "-fno-math-errno",
                         "-include", str(modules), "-include", str(symbols)],
                 frontend_include_dirs=[str(gen / "frontend")], frontend_defines=list(_FRONTEND_DEFINES),
                 frontend_prelude=[f'#include "{modules}"', f'#include "{symbols}"'],
                 origin=f"{version_dir.name}'s own headers (glibc_flags)")


# ----------------------------------------------------------------------------- companions


@dataclass
class Scalar:
    """One file of the directory compiled on its own with the flags."""

    name: str
    obj: str = ""
    error: str = ""  # the compile's first error line ("" when it compiled)
    defined: dict[str, str] = field(default_factory=dict)  # symbol -> nm type letter
    undefined: list[str] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)  # external text symbols


def _tool(cc: list[str], name: str) -> str:
    """``name`` (nm) of the compiler's binutils (``aarch64-linux-gnu-nm``), else the plain one."""
    if cc[0].endswith("gcc"):
        cross = cc[0][:-3] + name
        if cross != name and shutil.which(cross):
            return cross
    return name


def _short(text: str, *prefixes: str) -> str:
    """``text`` with the given directory prefixes removed (messages group by content, not by where
    the tree happens to be)."""
    for p in sorted((p for p in prefixes if p), key=len, reverse=True):
        text = text.replace(p.rstrip("/") + "/", "")
    return text


def _first_error(output: str) -> str:
    lines = output.splitlines()
    line = next((ln for ln in lines if " error: " in ln or "error:" in ln), lines[0] if lines else "")
    return line.strip()


def compile_scalar(src: Path, obj: Path, isa, flags: Flags, extra_incs: list[str]) -> Scalar:
    """Compile ``src`` as ``verify`` compiles scalar sources and read its symbols."""
    from expand.verify import COMPILE_FLAGS

    s = Scalar(src.name, str(obj))
    cmd = [*isa.cc, *COMPILE_FLAGS, *isa.cflags, *flags.cflags, *[f"-I{d}" for d in extra_incs], *flags.cpp(),
           "-c", str(src), "-o", str(obj)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        s.error = f"{exc}"
        return s
    if p.returncode != 0:
        s.error = _first_error(p.stderr) or f"exit status {p.returncode}"
        return s
    nm = _tool(list(isa.cc), "nm")
    out = subprocess.run([nm, "--defined-only", str(obj)], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1].isupper():  # (global; lowercase letters are local)
            s.defined[parts[2]] = parts[1]
            if parts[1] in ("T", "W"):
                s.functions.append(parts[2])
    out = subprocess.run([nm, "-u", str(obj)], capture_output=True, text=True).stdout
    s.undefined = [ln.split()[-1] for ln in out.splitlines() if ln.strip()]
    return s


def scan(directory: Path, isa, flags: Flags, work: Path, jobs: int = 2) -> dict[str, Scalar]:
    """Every ``.c`` file of ``directory`` compiled into ``work`` (``compile_scalar``, the directory
    searched first), by file name: what each defines and needs (``companions`` takes it from there)."""
    sources = sorted(Path(directory).glob("*.c"))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        built = list(pool.map(lambda s: compile_scalar(s, Path(work) / f"{s.stem}.o", isa, flags,
                                                       [str(directory)]), sources))
    return {s.name: s for s in built}


def system_symbols(isa) -> set[str]:
    """What the target's ``libm.so.6`` and ``libc.so.6`` export (linked from -lm and libc)."""
    out: set[str] = set()
    nm = _tool(list(isa.cc), "nm")
    for lib in ("libm.so.6", "libc.so.6"):
        try:
            path = subprocess.run([*isa.cc, f"-print-file-name={lib}"], capture_output=True, text=True).stdout.strip()
        except OSError:
            continue
        if not path or not Path(path).is_file():
            continue
        text = subprocess.run([nm, "-D", "--defined-only", path], capture_output=True, text=True).stdout
        out.update(ln.split()[-1].split("@")[0] for ln in text.splitlines() if len(ln.split()) >= 3)
    return out


def companions(scalars: dict[str, Scalar], system: set[str]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """For each file, the files it links with (the transitive closure of the definers of what it
    needs, symbols of ``system`` excepted) and the symbols nobody defines."""
    definers: dict[str, list[str]] = {}
    for s in scalars.values():
        for sym, kind in s.defined.items():
            definers.setdefault(sym, []).append(s.name)
    for sym, names in definers.items():  # a strong definition before weak ones, then by name
        names.sort(key=lambda n: (scalars[n].defined[sym] in "VWvw", n))
    links: dict[str, list[str]] = {}
    missing: dict[str, list[str]] = {}
    for name, s in scalars.items():
        if s.error:
            continue
        chosen: list[str] = []
        lost: list[str] = []
        have = set(s.defined)
        todo = list(s.undefined)
        while todo:
            sym = todo.pop(0)
            if sym in have or sym in system:
                continue
            who = [n for n in definers.get(sym, []) if n != name]
            if not who:
                if sym not in lost:
                    lost.append(sym)
                continue
            chosen.append(who[0])
            have |= set(scalars[who[0]].defined)
            todo += scalars[who[0]].undefined
        links[name] = chosen
        missing[name] = lost
    return links, missing


# ----------------------------------------------------------------------------- one file (in a worker)


@dataclass
class Row:
    """One file's outcome."""

    file: str
    status: str
    detail: str = ""
    functions: list[str] = field(default_factory=list)
    companions: list[str] = field(default_factory=list)
    inputs: int = 0
    seconds: float = 0.0

    @property
    def kind(self) -> str:
        """The status without its message: verified, diagnostic, FAIL, ..."""
        return self.status.split(":", 1)[0]


def _worst(statuses: list[str]) -> str:
    def rank(s: str) -> int:
        kind = s.split(":", 1)[0]
        return _SEVERITY.index(kind) if kind in _SEVERITY else 0
    return min(statuses, key=rank)


def _header_line_fix(message: str, path: Path, coord) -> str:
    """The pycparser frontend quotes the ``#include`` line of a header it cannot read from the text it
    was given, which the prelude shifted: quote the file's own line instead."""
    m = re.match(r"the header included here \((.*?)\) has C that expand cannot read", message)
    if not m or coord is None or str(coord.file) != str(path):
        return message
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return message
    line = lines[coord.line - 1].strip() if 0 < coord.line <= len(lines) else ""
    return message[:m.start(1)] + (line or "an #include") + message[m.end(1):]


def _diagnostic(exc, path: Path, prefixes: list[str]) -> tuple[str, str]:
    """(status, detail) of an ExpandError."""
    message = _header_line_fix(exc.message.splitlines()[0] if exc.message else "error", path, exc.coord)
    where = _short(str(exc.coord) if exc.coord else "expand", *prefixes)
    return f"diagnostic: {_short(message, *prefixes)}", _short(f"{where}: error: {exc.message}", *prefixes) + (
        f"\nnote: {exc.hint}" if exc.hint else "")


def _without_includes(cflags: list[str]) -> list[str]:
    """``cflags`` without ``-include FILE`` (the frontend gets those as lines in front of the text)."""
    out, skip = [], False
    for f in cflags:
        if skip:
            skip = False
        elif f == "-include":
            skip = True
        elif not f.startswith("-include"):
            out.append(f)
    return out


def read_source(path: Path, isa, flags: Flags, text: str | None = None):
    """expand's module of the file ``path`` as the compiler sees it under ``flags`` (the frontend's
    extras: the force-included headers as ``#include`` lines in front of the text, followed by a line
    marker; its own include dirs and defines; the preprocessor is the ISA's with the compile's flags,
    ``-include`` aside). ``path``'s directory is searched first. Raises what the frontends raise."""
    from frontends.clang_frontend import read_file_any

    path = Path(path)
    text = path.read_text() if text is None else text
    incs = [str(path.parent), *flags.include_dirs]
    fe_text = "".join(f"{ln}\n" for ln in flags.frontend_prelude) + (f'# 1 "{path}"\n' if flags.frontend_prelude
                                                                      else "") + text
    return read_file_any(str(path), fe_text, [*flags.frontend_include_dirs, *incs],
                         [*flags.defines, *flags.frontend_defines], flags.undefs, frontend="auto",
                         cc=[*isa.preprocessor, *_without_includes(flags.cflags)])  # (the compile's own)


def _compile_output(text: str, isa, flags: Flags, incs: list[str], work: Path) -> str:
    """"" if the output compiles with ``-Wall -Wextra -Werror``, else the FAIL message. A ``-Wextra``
    warning inside a header the output includes (not in the output itself) is not expand's: ignored."""
    from expand.verify import COMPILE_FLAGS

    out = work / "output.c"
    out.write_text(text)
    # (the headers it includes as system headers: -Werror holds the generated code, not glibc's headers)
    cpp = [f"-isystem{x[2:]}" if x.startswith("-I") else x for x in [*[f"-I{d}" for d in incs], *flags.cpp()]]
    base = [*isa.cc, *COMPILE_FLAGS, *isa.cflags, *flags.cflags, *cpp, "-c", str(out), "-o", str(work / "output.o")]
    p = subprocess.run([*base[:1], "-Wextra", *base[1:]], capture_output=True, text=True, errors="replace",
                       timeout=600)
    if p.returncode == 0:
        return ""
    q = subprocess.run(base, capture_output=True, text=True, errors="replace", timeout=600)
    if q.returncode != 0:
        return f"the output does not compile: {_first_error(q.stderr)}"
    mine = [ln for ln in p.stderr.splitlines() if ln.startswith(f"{out}:") and "error:" in ln]
    return f"-Wextra: {mine[0]}" if mine else ""


def _classify(rep, fname: str, prefixes: list[str]) -> str:
    """The row status of one function's ``VerifyReport``."""
    if rep.verdict == "ok" or (rep.ok and not rep.verdict):
        return "verified"
    if rep.verdict == "not-run" or rep.not_run is not None:
        return f"not run: {rep.not_run}"
    summary = rep.summary.split("]: ", 1)[-1]
    if rep.verdict == "timeout":
        return f"timeout: {fname}: {_short(summary, *prefixes)}"
    if rep.verdict in ("scalar-crash", "scalar-ub"):
        return f"scalar code: {fname}: {_short(summary, *prefixes)}"
    if rep.verdict == "build":
        details = rep.details
        if "compiling the harness" in summary:
            return f"FAIL: {fname}: the output does not compile in the verifier's harness: " + _short(
                _first_error(details.split("\n", 2)[-1]), *prefixes)
        if summary.startswith("compiling "):
            return f"scalar build: {fname}: {_short(summary, *prefixes)}: " + _short(
                _first_error(details.split("\n", 2)[-1]), *prefixes)
        undefined = re.findall(r"(\S+?\.o): in function [^\n]*\n[^\n]*undefined reference to [`'](\S+?)'", details)
        undefined += re.findall(r"(\S+?\.o):[^\n]*undefined reference to [`'](\S+?)'", details)
        if any(Path(o).name == "harness.o" for o, _ in undefined):
            sym = next(s for o, s in undefined if Path(o).name == "harness.o")
            return f"FAIL: {fname}: linking: the output refers to '{sym}', which nothing defines"
        if undefined:
            return f"scalar build: {fname}: linking: undefined reference to '{undefined[0][1]}'"
        return f"scalar build: {fname}: {_short(summary, *prefixes)}: " + _short(
            _first_error(details.split("\n", 2)[-1]), *prefixes)
    if rep.verdict == "crash":
        return f"FAIL: {fname}: {_short(summary, *prefixes)}"
    first = next((ln for ln in rep.details.splitlines() if ln.strip()), "")
    return f"FAIL: {fname}: {summary}" + (f" (first: {first.strip()[:300]})" if first else "")


def check_file(spec: dict) -> dict:
    """Expand and verify one file (the worker's job); the Row as a dict. Never raises."""
    t0 = time.monotonic()
    path = Path(spec["path"])
    row = Row(path.name, "FAIL: internal", companions=[Path(c).name for c in spec["companions"]])
    prefixes = spec.get("prefixes", [])
    try:
        _check(spec, path, row, prefixes)
    except Exception as exc:  # (a bug of expand, the verifier or this runner: never a lost row)
        first = str(exc).splitlines()[0] if str(exc) else ""
        row.status = f"FAIL: traceback: {type(exc).__name__}: {_short(first, *prefixes)}"
        row.detail = traceback.format_exc()[-6000:]
    row.seconds = round(time.monotonic() - t0, 2)
    return asdict(row)


def _check(spec: dict, path: Path, row: Row, prefixes: list[str]) -> None:
    from emit import get_isa
    from expand.cli import not_c_text, verify_params
    from expand.diagnostics import ExpandError, nesting_error
    from expand.driver import expand_module, is_static
    from expand.vecmath import VectorMath, parse_modes
    from expand.verify import VERIFY_TIMEOUT, trip_bounds, verify

    start = time.monotonic()
    isa = get_isa(spec["isa"])
    flags = Flags(**spec["flags"])
    incs = [str(path.parent), *flags.include_dirs]
    data = path.read_bytes()
    bad = not_c_text(str(path), data)
    if bad:
        row.status, row.detail = f"diagnostic: {bad.splitlines()[0].split(': error: ', 1)[-1]}", bad
        return
    vector_math = VectorMath(parse_modes("expand"), None)
    try:
        mod = read_source(path, isa, flags, data.decode("utf-8"))
        row.functions = [n for n, f in mod.functions.items() if not f.static]
        row.functions += [n for n in mod.failed if not is_static(mod, n)]  # (expand_module gives their diagnostic)
        result = expand_module(mod, isa, vector_math=vector_math,
                               command=f"expand {path.name} --isa {isa.name} (mathlib.realworld)")
    except ExpandError as exc:
        row.status, row.detail = _diagnostic(exc, path, prefixes)
        return
    except RecursionError as exc:  # (as the command line: a diagnostic at the statement)
        row.status, row.detail = _diagnostic(nesting_error(exc, str(path)), path, prefixes)
        return
    row.functions = [f.scalar_name for f in result.functions]
    with tempfile.TemporaryDirectory(prefix="expand-realworld-") as tmp:
        bad = _compile_output(result.text, isa, flags, incs, Path(tmp))
    if bad:
        row.status, row.detail = f"FAIL: {_short(bad, tmp, *prefixes)}", result.text[:20000]
        return
    needs = vector_math.link(isa)
    link = [Path(c) for c in spec["companion_objects"]] + list(needs.link_files)
    statuses: list[str] = []
    details: list[str] = []
    for f in result.functions:
        bounds, notes = trip_bounds(f.params, f.trip_params)  # (as expand --verify without --range)
        left = spec.get("timeout", DEFAULT_TIMEOUT) - (time.monotonic() - start) - 15  # (before the worker's kill)
        rep = verify(scalar_sources=[path], scalar_name=f.scalar_name, vector_c=result.text,
                     vector_name=f.vector_name, params=verify_params(f.params), ret=f.ret, isa=isa,
                     include_dirs=[Path(d) for d in incs], defines=flags.defines, undefs=flags.undefs,
                     link_files=link, libs=[*needs.libs, "m"], constants=f.constants, n_random=spec["random"],
                     scalar_static=f.static, cflags=flags.cflags, bounds=bounds,
                     timeout=max(1.0, min(VERIFY_TIMEOUT, left)),
                     nan_bits=False,  # (as expand --verify: a NaN result matches any NaN; --strict-nan there)
                     **({"ulp_bound": needs.ulp_bound} if needs.ulp_bound is not None else {}))
        status = _classify(rep, f.scalar_name, prefixes)
        statuses.append(status)
        row.inputs += rep.inputs
        details.append("\n".join([_short(rep.summary, *prefixes), *notes, _short(rep.details, *prefixes)]).strip())
    row.status = _worst(statuses) if statuses else "no function"
    row.detail = "\n".join(details)[-20000:]


def _worker_main(spec_path: str, result_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text())
    Path(result_path).write_text(json.dumps(check_file(spec)))
    return 0


# ----------------------------------------------------------------------------- the run


@dataclass
class Report:
    """A whole directory's run."""

    dir: str
    isa: str
    flags: Flags
    rows: list[Row]
    cpu: str = ""
    date: str = ""
    seconds: float = 0.0
    random: int = 0
    updated: list[str] = field(default_factory=list)  # "date: files" of each --update since the run

    def counted(self) -> list[Row]:
        return [r for r in self.rows if r.status != "no function"]

    def summary(self) -> str:
        n = len(self.counted())
        v = sum(r.status == "verified" for r in self.rows)
        return f"verified {v} of {n} ({100.0 * v / n if n else 0.0:.0f}%)"

    def counts(self) -> dict[str, int]:
        return dict(Counter(r.kind for r in self.rows).most_common())

    def diagnostics(self) -> list[tuple[str, int, list[str]]]:
        """(message, count, files) per diagnostic message, most frequent first."""
        groups: dict[str, list[str]] = {}
        for r in self.rows:
            if r.kind == "diagnostic":
                groups.setdefault(r.status.split(": ", 1)[1], []).append(r.file)
        return sorted(((m, len(fs), fs) for m, fs in groups.items()), key=lambda t: (-t[1], t[0]))

    def failed(self) -> bool:
        return any(r.kind == "FAIL" for r in self.rows)

    def to_json(self) -> dict:
        return {"dir": self.dir, "isa": self.isa, "cpu": self.cpu, "date": self.date, "seconds": self.seconds,
                "random": self.random, "updated": self.updated, "summary": self.summary(), "counts": self.counts(),
                "flags": asdict(self.flags), "flags_line": self.flags.describe(),
                "diagnostics": [{"message": m, "count": c, "files": fs} for m, c, fs in self.diagnostics()],
                "rows": [asdict(r) | {"kind": r.kind} for r in self.rows]}

    def to_markdown(self) -> str:
        def cell(s: str) -> str:
            return s.replace("|", "\\|").replace("\n", " ")
        counts = ", ".join(f"{k} {v}" for k, v in self.counts().items())
        out = [f"# {self.summary()}: expand on `{Path(self.dir).name}` ({self.isa})", "",
               f"**{self.summary()}**; {counts}", "",
               f"- directory: `{self.dir}`", f"- date: {self.date}; CPU: {self.cpu}; took {self.seconds:.0f} s",
               f"- ISA: {self.isa}; random inputs per function: {self.random} (plus the edge set)",
               *[f"- checked again (--update) {u}" for u in self.updated],
               f"- flags ({self.flags.origin}): `{self.flags.describe()}`", ""]
        diags = self.diagnostics()
        if diags:
            out += ["## Diagnostics by message", "", "| count | message | files |", "|---|---|---|"]
            out += [f"| {c} | {cell(m)} | {cell(', '.join(fs))} |" for m, c, fs in diags]
            out.append("")
        fails = [r for r in self.rows if r.kind == "FAIL"]
        if fails:
            out += ["## FAIL rows", ""]
            for r in fails:
                out += [f"### {r.file}", "", cell(r.status), "", "```", r.detail[:3000].rstrip(), "```", ""]
        out += ["## Files", "", "| file | status | functions | companions | inputs | seconds |",
                "|---|---|---|---|---|---|"]
        for r in self.rows:
            out.append(f"| {r.file} | {cell(r.status)} | {cell(', '.join(r.functions))} | "
                       f"{cell(', '.join(r.companions))} | {r.inputs:,} | {r.seconds:.1f} |")
        return "\n".join(out) + "\n"

    def text_summary(self) -> str:
        lines = [self.summary(), "counts: " + ", ".join(f"{k} {v}" for k, v in self.counts().items())]
        for m, c, _ in self.diagnostics():
            lines.append(f"  {c:3} {m}")
        lines += [f"{r.file}: {r.status}" for r in self.rows if r.kind == "FAIL"]
        return "\n".join(lines)


def _run_worker(spec: dict, timeout: float, work: Path) -> Row:
    """One file in its own process group (killed whole on timeout)."""
    name = Path(spec["path"]).name
    spec_path, result_path = work / f"{name}.spec.json", work / f"{name}.result.json"
    spec_path.write_text(json.dumps(spec))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "mathlib.realworld", "--worker", str(spec_path), str(result_path)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # (the worker's own group: it and the compilers it ran)
        except ProcessLookupError:
            pass
        proc.communicate()
        return Row(name, "timeout", f"more than {timeout:g} s", companions=[Path(c).name for c in spec["companions"]],
                   seconds=round(time.monotonic() - t0, 2))
    if proc.returncode != 0 or not result_path.is_file():
        why = f"exit status {proc.returncode}" if proc.returncode >= 0 else f"signal {-proc.returncode}"
        return Row(name, f"FAIL: the worker died ({why})", (out + err)[-6000:],
                   companions=[Path(c).name for c in spec["companions"]], seconds=round(time.monotonic() - t0, 2))
    d = json.loads(result_path.read_text())
    return Row(**d)


def run(directory: Path, isa_name: str, *, jobs: int = 2, flags: Flags | None = None, n_random: int | None = None,
        files: list[str] | None = None, timeout: float = DEFAULT_TIMEOUT, log=None) -> Report:
    """Expand and verify every ``.c`` file of ``directory`` (or ``files`` of it) for ``isa_name``."""
    from emit import cpu_model, get_isa

    directory = Path(directory).resolve()
    isa = get_isa(isa_name)
    t0 = time.monotonic()
    tree = glibc_root(directory)
    if flags is None:
        flags = glibc_flags(tree, isa) if tree is not None else Flags(origin="none given")
    if n_random is None:
        n_random = RANDOM_EMULATED if isa.run_prefix else RANDOM_NATIVE
    sources = sorted(directory.glob("*.c"))
    if files:
        names = {f.strip() for f in files if f.strip()}
        unknown = names - {s.name for s in sources}
        if unknown:
            raise ValueError(f"not in {directory}: {', '.join(sorted(unknown))}")
        chosen = [s for s in sources if s.name in names]
    else:
        chosen = sources
    prefixes = [str(directory), *([str(tree)] if tree else [])]
    say = log or (lambda s: None)
    rows: dict[str, Row] = {}
    with tempfile.TemporaryDirectory(prefix="expand-realworld-") as tmp:
        work = Path(tmp)
        (work / "obj").mkdir()
        say(f"compiling the {len(sources)} files of {directory} ...")
        scalars = scan(directory, isa, flags, work / "obj", jobs)
        links, _ = companions(scalars, system_symbols(isa))
        todo = []
        for src in chosen:
            s = scalars[src.name]
            if s.error:
                rows[src.name] = Row(src.name, f"scalar build: {_short(s.error, *prefixes)}")
            elif not s.functions:
                rows[src.name] = Row(src.name, "no function", "the object defines no external function")
            else:
                todo.append({"path": str(src), "isa": isa.name, "flags": asdict(flags), "random": n_random,
                             "companions": [str(directory / c) for c in links[src.name]],
                             "companion_objects": [scalars[c].obj for c in links[src.name]],
                             "prefixes": prefixes, "timeout": timeout})
        done = [len(rows)]

        def one(spec: dict) -> Row:
            row = _run_worker(spec, timeout, work)
            done[0] += 1
            say(f"[{done[0]}/{len(chosen)}] {row.file}: {row.status} ({row.seconds:.1f} s)")
            return row

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for row in pool.map(one, todo):
                rows[row.file] = row
    report = Report(str(directory), isa.name, flags, [rows[s.name] for s in chosen], cpu=cpu_model(),
                    date=datetime.datetime.now().isoformat(timespec="seconds"), random=n_random)
    report.seconds = round(time.monotonic() - t0, 1)
    return report


def write_report(report: Report, out_dir: Path) -> tuple[Path, Path]:
    """Write ``realworld-<dirname>-<isa>.md`` and ``.json`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"realworld-{Path(report.dir).name}-{report.isa}"
    md, js = out_dir / f"{stem}.md", out_dir / f"{stem}.json"
    md.write_text(report.to_markdown())
    js.write_text(json.dumps(report.to_json(), indent=1) + "\n")
    return md, js


def merged(report: Report, out_dir: Path) -> Report:
    """The table already in ``out_dir`` for ``report``'s directory and ISA, with ``report``'s rows in
    place of (or added to) its rows; its date and time stay, its ``updated`` list grows."""
    path = Path(out_dir) / f"realworld-{Path(report.dir).name}-{report.isa}.json"
    old = json.loads(path.read_text())
    if old["dir"] != report.dir or old["isa"] != report.isa:
        raise ValueError(f"{path} is a table of {old['dir']} ({old['isa']})")
    fields = {f.name for f in Row.__dataclass_fields__.values()}
    rows = {r["file"]: Row(**{k: v for k, v in r.items() if k in fields}) for r in old["rows"]}
    rows.update({r.file: r for r in report.rows})
    return Report(report.dir, report.isa, report.flags, [rows[k] for k in sorted(rows)], old["cpu"], old["date"],
                  old["seconds"], old["random"], [*old.get("updated", []), f"{report.date}: "
                                                  + ", ".join(r.file for r in report.rows)])


def main(argv: list[str] | None = None) -> int:
    """``python -m mathlib.realworld``."""
    from emit import ISAS

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"] and len(argv) == 3:
        return _worker_main(argv[1], argv[2])
    ap = argparse.ArgumentParser(prog="python -m mathlib.realworld", description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", type=Path, help="a directory of C files (a libm's sources)")
    ap.add_argument("--isa", required=True, choices=list(ISAS))
    ap.add_argument("--jobs", type=int, default=2, help="files checked at a time (default 2)")
    ap.add_argument("-I", dest="include", action="append", default=[], metavar="DIR", help="include directory")
    ap.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=V]", help="define a macro")
    ap.add_argument("--random", type=int, metavar="N",
                    help=f"random inputs per function (default {RANDOM_NATIVE}, {RANDOM_EMULATED} under qemu)")
    ap.add_argument("--out", type=Path, default=RESULTS_DIR, help="where the tables go (default mathlib/results)")
    ap.add_argument("--files", help="only these files of DIR (comma-separated names)")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per file (default 300)")
    ap.add_argument("--update", action="store_true",
                    help="with --files: check only those files again and put their rows into the table already "
                         "in --out (the other rows, the date and the time stay as they were)")
    args = ap.parse_args(argv)
    if args.update and not args.files:
        ap.error("--update needs --files")
    if not args.dir.is_dir():
        ap.error(f"{args.dir} is not a directory")
    flags = Flags(include_dirs=[str(Path(d).resolve()) for d in args.include], defines=list(args.define),
                  origin="-I/-D of the command line") if args.include or args.define else None
    try:
        report = run(args.dir, args.isa, jobs=args.jobs, flags=flags, n_random=args.random,
                     files=args.files.split(",") if args.files else None, timeout=args.timeout,
                     log=lambda s: print(s, file=sys.stderr, flush=True))
    except (ValueError, RuntimeError) as exc:
        print(f"realworld: error: {exc}", file=sys.stderr)
        return 2
    if args.update:
        try:
            report = merged(report, args.out)
        except (OSError, ValueError, KeyError) as exc:
            print(f"realworld: error: --update: {exc}", file=sys.stderr)
            return 2
    md, js = write_report(report, args.out)
    print(report.text_summary())
    print(f"wrote {md} and {js} ({report.seconds:.0f} s)")
    return 1 if report.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
