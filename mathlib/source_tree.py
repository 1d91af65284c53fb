"""A libm source tree as its own build compiles it: one set of flags for every file (glibc's own
headers and build flags when the directory lies in a glibc tree), the scalar objects, and the
companions each file links with (mathlib/realworld.py runs expand on every file; mathlib/libm.py
builds the vector libm from glibc's flt-32 files).

**Companions.** Every file of DIR is compiled once with the flags (``gcc -c``); ``nm --defined-only``
and ``nm -u`` give what each object defines and needs. A file is linked (``verify(link_files=...)``)
with the transitive closure of the files that define the symbols it needs, except symbols the
target's ``libm.so.6``/``libc.so.6`` export (those come from ``-lm``/libc): ``e_logf.c`` gets
``e_logf_data.c`` and ``math_errf.c``. The objects of that compile are what is linked.

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

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Parts of the glibc tarball not extracted (no headers or sources a libm file includes)
_SKIP_TOP = {"localedata", "iconvdata", "po", "benchtests", "manual", "ChangeLog.old"}
_SKIP_PREFIX = ("math/auto-libm-test-", "math/libm-test-")
#: glibc's machine directory per architecture (after sysdeps/<cpu>/preconfigure)
_MACHINE = {"x86_64": "x86_64/64", "aarch64": "aarch64", "ppc64le": "powerpc/powerpc64/le", "riscv64": "riscv/rv64/rvd"}
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
    # (Clang has no -frounding-math on riscv64: it rejects it, and rounds to nearest as its code runs)
    rounding = [] if isa.clang and arch == "riscv64" else ["-frounding-math"]
    return Flags(include_dirs=[str(d) for d in incs], defines=["_LIBC_REENTRANT", "MODULE_NAME=libm"],
                 cflags=["-std=gnu11", "-fgnu89-inline", *rounding, "-fno-math-errno",
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


def binutils_tool(cc: Sequence[str], name: str) -> str:
    """``name`` (nm, ar, objcopy) of the compiler's target (``aarch64-linux-gnu-nm`` for
    ``aarch64-linux-gnu-gcc``, ``riscv64-linux-gnu-objcopy`` for ``clang-16 --target=riscv64-linux-gnu``),
    else the plain one."""
    prefix = cc[0][:-3] if cc[0].endswith("gcc") else ""
    for word in cc:
        if word.startswith("--target="):
            prefix = word.removeprefix("--target=") + "-"
    if prefix and shutil.which(prefix + name):
        return prefix + name
    return name


def shorten(text: str, *prefixes: str) -> str:
    """``text`` with the given directory prefixes removed (messages group by content, not by where
    the tree happens to be)."""
    for p in sorted((p for p in prefixes if p), key=len, reverse=True):
        text = text.replace(p.rstrip("/") + "/", "")
    return text


def first_error(output: str) -> str:
    lines = output.splitlines()
    line = next((ln for ln in lines if " error: " in ln or "error:" in ln), lines[0] if lines else "")
    return line.strip()


#: beyond verify's flags for a library's own files, with GCC (see ``compile_scalar``)
SCAN_CFLAGS = ["-Wno-error=maybe-uninitialized"]


def compile_scalar(src: Path, obj: Path, isa, flags: Flags, extra_incs: list[str]) -> Scalar:
    """Compile ``src`` with verify's flags and read its symbols. A file that does not compile so is left
    out (glibc's ppc64le s_nearbyintf.c: an implicit declaration), but for -Wmaybe-uninitialized, which
    depends on the optimizer's guesses in the library's own code (newlib's kf_rem_pio2.c)."""
    from expand.check.verify import COMPILE_FLAGS

    s = Scalar(src.name, str(obj))
    cmd = [*isa.cc, *COMPILE_FLAGS, *(() if isa.clang else SCAN_CFLAGS), *isa.cflags, *flags.cflags,
           *[f"-I{d}" for d in extra_incs], *flags.cpp(),
           "-c", str(src), "-o", str(obj)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        s.error = f"{exc}"
        return s
    if p.returncode != 0:
        s.error = first_error(p.stderr) or f"exit status {p.returncode}"
        return s
    nm = binutils_tool(isa.cc, "nm")
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
    nm = binutils_tool(isa.cc, "nm")
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


