"""mathlib's vector libm ("expandm"): glibc's scalar libm sources expanded for every ISA, as static
libraries and a header that GCC's vectorizer and expanded code call (issues 10 and 18).

    python -m mathlib.libm --out build/expandm [--isa avx2 ...] [--functions logf,powf] [--jobs 2]
    expand-libm --out build/expandm

For each function of ``expand.vecmath.EXPANDM_FUNCTIONS`` (glibc 2.36's ``sysdeps/ieee754/flt-32``
sources: ``GLIBC_FUNCTIONS`` with glibc's own headers and flags for the architecture and the companions
``nm`` finds, as mathlib/realworld.py compiles them; the corpus's and log2f through the shim; and
``mathlib/expandm/sqrtf.c`` of ours) and each ISA, ``expand`` writes the vector code
(``expand_module(..., abi=True)``), which is compiled with the ISA's compiler and flags (``-O2
-ffp-contract=off``, as the matrix verifies it). A unit expand gives a diagnostic for (or whose glibc
file does not compile with glibc's flags there) is left out, its reason in the manifest. The output
directory holds:

* ``lib/<arch>/libexpandm.a``, one per architecture (``x86_64``: sse2, sse4.1, avx2, avx512 and
  generic; ``aarch64``: neon and generic; ``ppc64le``: altivec and generic), defining
  - ``_Exp_<f>_<isa>`` (``_Exp_logf_avx2(__m256)``) and ``_Exp_<f>_<isa>_masked(mask, ...)`` for
    every ISA (``isa`` = ``sse2``, ``sse41``, ``avx2``, ``avx512``, ``neon``, ``altivec``, ``generic``;
    the mask in the ISA's mask type: ``__m128i``, ``__m256i``, ``__mmask16``, ``uint32x4_t``,
    ``__vector __bool int``, a ``vector_size`` int vector), which ``expand --vector-math=expand``
    calls;
  - the vector function ABI variants GCC calls from ``-fopenmp-simd`` loops (expand/abi.py): x86
    ``_ZGVbN4v_logf``/``_ZGVbM4v_logf`` (SSE2 code, or SSE4.1 code when the CPU has it: a GNU
    ifunc), ``_ZGVcN8v_``/``_ZGVdN8v_`` (AVX2), ``_ZGVeN16v_`` (AVX-512); AArch64 ``_ZGVnN4v_``,
    ``_ZGVnN2v_``; AltiVec and generic have no GCC vector ABI (only the ``_Exp_`` names);
  - glibc's data tables, error helpers and functions they call (the companions), renamed
    ``__expandm_*`` (``__logf_data`` -> ``__expandm_logf_data``, ``__ieee754_expf`` ->
    ``__expandm_ieee754_expf``; ``objcopy --redefine-syms``) in the vector code and the companion
    objects alike, the companions' public aliases (``expf``) local, so nothing clashes with libm.a:
    every global symbol is ``_ZGV*``, ``_Exp_*`` or ``__expandm_*``.
* ``lib/<arch>/libexpandm_scalar.a``: the same sources compiled as scalar code under their public
  names (``logf``, ``powf``, ...), the reference ``--verify`` links the scalar side with (link it
  first to make a program's scalar calls compute what the vector ones compute).
* ``include/expandm.h``: ``#pragma omp declare simd`` on each function (``const``/``pure`` as
  expand/abi.py decides) and the prototypes of every entry point under each ISA's macro.
* ``expandm.json``: the manifest (functions per ``<arch>/<isa>``, and under ``missing`` the ones left
  out with expand's diagnostic) that ``--vector-math-lib`` reads;
  ``src/`` and ``obj/``: the generated C and objects (kept: a rebuild redoes only what is missing).

``ensure`` builds what an output needs into a cache (``$EXPAND_CACHE_DIR``, else
``~/.cache/expand``), keyed by a hash of expand's and mathlib's sources. Every build, into any
directory, takes the units (and glibc's scan of an architecture) already built for the same code from
the cache's store (``<cache>/expandm-units-<code key>``, ``store``) and leaves there the ones it builds:
a library built into two directories (the tests', ``ensure``'s) expands and compiles each unit once.
``EXPAND_LIBM_STORE=off`` builds everything where it is asked.
"""

from __future__ import annotations

import argparse
import dataclasses
import fcntl
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from emit import ISAS, get_isa
from emit.isa import lane_kind
from expand import abi, cache
from expand.cache import cache_root
from expand.driver import expand_module
from expand.ir import types as T
from expand.ir.diagnostics import ExpandError
from expand.vecmath import EXPANDM_FUNCTIONS, expandm_symbol
from frontends.pycparser_frontend import read_file

from . import source_tree
from .corpus import CFLAGS, MATHLIB_DIR, corpus, glibc_flt32_dir, shim_dir

ROOT = MATHLIB_DIR.parent
#: Every object of the library: -fPIC so that it also links into shared objects.
LIB_CFLAGS = [*CFLAGS, "-fPIC"]
#: The order of architectures and ISAs in the header and the default build.
ARCHES = ("x86_64", "aarch64", "ppc64le", "riscv64")
ARCH_MACRO = {"x86_64": "defined(__x86_64__)", "aarch64": "defined(__aarch64__)",
              "ppc64le": "defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)",
              "riscv64": "defined(__riscv) && __riscv_xlen == 64"}
PREFIX = "__expandm_"
#: The functions expandm.h declares ``#pragma omp declare simd``: those GCC 12 leaves as one call per
#: element. It inlines or vectorizes floorf, ceilf, truncf, rintf, nearbyintf, roundevenf, sqrtf, fabsf,
#: copysignf, isinff, isnanf and finitef itself, and a declare-simd declaration would make it call our
#: (exact, slower) variant instead of vroundps (measured); their entry points are in the header all the same.
SIMD_DECLARED = ("scalbnf", "roundf", "logf", "powf", "log2f", "expf", "exp2f", "exp10f", "log10f", "sinf", "cosf",
                 "sincosf", "tanf", "atanf", "atan2f", "asinf", "acosf", "sinhf", "coshf", "tanhf", "cbrtf", "hypotf",
                 "erff", "erfcf", "expm1f", "log1pf", "acoshf", "asinhf", "atanhf", "fmodf", "remainderf", "nextafterf",
                 "nextupf", "logbf", "ilogbf")
#: The functions GCC 12 takes to set errno (its builtins' ERRNO attribute, and nextupf, which is no builtin:
#: measured, a loop over a plain declare-simd declaration calls no variant). The header declares them, and
#: every function whose vector code is neither const nor pure (glibc's error helpers, per active lane),
#: ``EXPANDM_ERRNO_CONST``: ``const`` (the promise ``-fno-math-errno`` makes GCC take for every libm
#: function, without which GCC 12 calls no declare-simd variant of them from a plain loop) unless the user
#: defines ``EXPANDM_MATH_ERRNO`` to keep math.h's contract.
LIBM_NOT_CONST = ("sqrtf", "scalbnf", "logf", "powf", "log2f", "expf", "exp2f", "exp10f", "log10f", "atan2f",
                  "asinf", "acosf", "sinhf", "coshf", "hypotf", "erfcf", "expm1f", "log1pf", "acoshf", "atanhf",
                  "fmodf", "remainderf", "nextafterf", "nextupf", "logbf", "ilogbf")
ERRNO_CONST_MACRO = [
    "/* EXPANDM_ERRNO_CONST: the functions math.h says may set errno (logf, powf, ...), and those whose vector",
    "   code calls glibc's error helpers (sinf: EDOM for infinities), are declared const, the promise",
    "   -fno-math-errno makes for every libm function: errno (the error helpers set it per active lane, as the",
    "   scalar code does) may go unset or unread where GCC drops or moves a call. Without it GCC 12 calls no",
    "   declare-simd variant from a plain loop. Define EXPANDM_MATH_ERRNO before including this header to",
    "   keep math.h's declarations (GCC then calls the variants under #pragma omp simd or -fno-math-errno). */",
    "#if defined(EXPANDM_MATH_ERRNO) && !defined(__NO_MATH_ERRNO__)",
    "#define EXPANDM_ERRNO_CONST",
    "#else",
    "#define EXPANDM_ERRNO_CONST __attribute__((__const__))",
    "#endif", ""]
#: The ISAs whose variants GCC calls from code for an architecture (all needed before it may).
ABI_ISAS = {"x86_64": (("sse2", "sse4.1"), ("avx2",), ("avx512",)), "aarch64": (("neon",),)}


#: The functions of glibc 2.36's ``sysdeps/ieee754/flt-32`` compiled with glibc's own headers and flags
#: for each architecture (``source_tree.glibc_flags``), linked with the flt-32 files that define what they
#: need (``nm``: ``source_tree.companions``): public name -> (file, the C function it defines).
GLIBC_FUNCTIONS: dict[str, tuple[str, str]] = {
    "expf": ("e_expf.c", "__expf"), "exp2f": ("e_exp2f.c", "__exp2f"), "exp10f": ("e_exp10f.c", "__exp10f"),
    "log10f": ("e_log10f.c", "__ieee754_log10f"), "sinf": ("s_sinf.c", "__sinf"), "cosf": ("s_cosf.c", "__cosf"),
    "sincosf": ("s_sincosf.c", "__sincosf"),
    "tanf": ("s_tanf.c", "__tanf"), "atanf": ("s_atanf.c", "__atanf"), "atan2f": ("e_atan2f.c", "__ieee754_atan2f"),
    "asinf": ("e_asinf.c", "__ieee754_asinf"), "acosf": ("e_acosf.c", "__ieee754_acosf"),
    "sinhf": ("e_sinhf.c", "__ieee754_sinhf"), "coshf": ("e_coshf.c", "__ieee754_coshf"),
    "tanhf": ("s_tanhf.c", "__tanhf"), "cbrtf": ("s_cbrtf.c", "__cbrtf"), "hypotf": ("e_hypotf.c", "__hypotf"),
    "erff": ("s_erff.c", "__erff"), "erfcf": ("s_erff.c", "__erfcf"), "expm1f": ("s_expm1f.c", "__expm1f"),
    "log1pf": ("s_log1pf.c", "__log1pf"), "acoshf": ("e_acoshf.c", "__ieee754_acoshf"),
    "asinhf": ("s_asinhf.c", "__asinhf"), "atanhf": ("e_atanhf.c", "__ieee754_atanhf"),
    "fmodf": ("e_fmodf.c", "__ieee754_fmodf"), "remainderf": ("e_remainderf.c", "__ieee754_remainderf"),
    "rintf": ("s_rintf.c", "__rintf"), "nearbyintf": ("s_nearbyintf.c", "__nearbyintf"),
    "roundevenf": ("s_roundevenf.c", "__roundevenf"), "nextafterf": ("s_nextafterf.c", "__nextafterf"),
    "nextupf": ("s_nextupf.c", "__nextupf"), "logbf": ("s_logbf.c", "__logbf"),
    "ilogbf": ("e_ilogbf.c", "__ieee754_ilogbf"),
}
#: The corpus's glibc functions (mathlib/corpus.py) and log2f, compiled through the hand-written shim
#: (mathlib/glibc-shim) as before: with glibc's own headers, expand's frontend refuses AArch64's roundf
#: (``__builtin_roundf``) and powf (a ``long double`` arm of ``issignaling``), which the shim builds.
SHIM_FUNCTIONS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "log2f": ("e_log2f.c", "__log2f", ("e_log2f_data.c", "math_errf.c")),
}
#: Ours: public name -> (file under mathlib/, C function). glibc's e_sqrtf.c is __builtin_sqrtf on
#: x86-64 and AArch64 (math-use-builtins); ours is the same function on every target, in C.
OWN_FUNCTIONS: dict[str, tuple[str, str]] = {"sqrtf": ("expandm/sqrtf.c", "expandm_sqrtf")}


@dataclass(frozen=True)
class LibSource:
    """One function of the library: its public name, the scalar source, the C function in it and how
    it is compiled (``kind``: ``glibc``, ``shim`` or ``own``; ``link`` and ``include_dirs``: the shim's)."""

    name: str
    source: Path
    func: str  # the C function in the source (``__logf``; its objects are renamed ``name``)
    kind: str
    link: tuple[Path, ...] = ()
    include_dirs: tuple[Path, ...] = ()


def sources() -> dict[str, LibSource]:
    """The library's functions (``EXPANDM_FUNCTIONS``): glibc's flt-32 (own flags, or the corpus's shim)
    and ours."""
    flt32 = glibc_flt32_dir()
    out = {n: LibSource(n, flt32 / f, c, "glibc") for n, (f, c) in GLIBC_FUNCTIONS.items()}
    for f in corpus():
        if f.name in EXPANDM_FUNCTIONS:
            out[f.name] = LibSource(f.name, f.source, f.func, "shim", tuple(f.link), tuple(f.include_dirs))
    for n, (f, c, link) in SHIM_FUNCTIONS.items():
        out[n] = LibSource(n, flt32 / f, c, "shim", tuple(flt32 / x for x in link), (shim_dir(), flt32))
    out.update({n: LibSource(n, MATHLIB_DIR / f, c, "own") for n, (f, c) in OWN_FUNCTIONS.items()})
    missing = [n for n in EXPANDM_FUNCTIONS if n not in out]
    if missing:
        raise RuntimeError(f"no source for {', '.join(missing)}")
    return {n: out[n] for n in EXPANDM_FUNCTIONS}


# ------------------------------------------------------------------ targets


def host_arch() -> str:
    """This machine's architecture in the archives' names (``x86_64``, ``aarch64``, ``ppc64le``)."""
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64", "ppc64el": "ppc64le"}.get(m, m)


def isa_arches(isa_name: str) -> list[str]:
    """The architectures whose archive holds ``isa_name``'s code (generic: every one)."""
    arch = get_isa(isa_name).arch
    return [arch] if arch else list(ARCHES)


def arch_isas(arch: str) -> list[str]:
    """The ISAs built into ``arch``'s archive, in table order."""
    return [n for n in ISAS if get_isa(n).arch in (arch, None)]


def arch_cc(arch: str) -> list[str]:
    """The C compiler of ``arch`` (the one its ISA tables use)."""
    for n in ISAS:
        isa = get_isa(n)
        if isa.arch == arch:
            return list(isa.cc)
    raise ValueError(f"no ISA table for architecture {arch}")


def tool(cc: Sequence[str], name: str) -> str:
    """The binutils program ``name`` (ar, nm) of compiler ``cc`` (``aarch64-linux-gnu-ar``)."""
    return source_tree.binutils_tool(cc, name)


def unit_isa(arch: str, isa_name: str):
    """The table of ``isa_name`` compiling for ``arch`` (generic with that architecture's compiler)."""
    isa = get_isa(isa_name)
    if isa.arch is None:
        isa.cc = arch_cc(arch)
    return isa


def default_plan(isas: Iterable[str] | None = None, functions: Iterable[str] | None = None,
                 arches: Iterable[str] | None = None) -> dict[str, list[str]]:
    """``"<arch>/<isa>"`` -> functions: every ISA on every architecture (generic on each), filtered."""
    fs = list(functions or EXPANDM_FUNCTIONS)
    unknown = [f for f in fs if f not in EXPANDM_FUNCTIONS]
    if unknown:
        raise ValueError(f"not in the library: {', '.join(unknown)} (it has {', '.join(EXPANDM_FUNCTIONS)})")
    want = list(isas or ISAS)
    plan: dict[str, list[str]] = {}
    for arch in arches or ARCHES:
        for n in arch_isas(arch):
            if n in want:
                plan[f"{arch}/{n}"] = fs
    return plan


# ------------------------------------------------------------------ building one unit


def run(cmd: Sequence[str | Path], cwd: Path | None = None) -> str:
    """Run ``cmd``; its output, or RuntimeError with the command and its messages."""
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"$ {' '.join(map(str, cmd))}\n{(p.stdout + p.stderr)[-6000:]}")
    return p.stdout


def scan_isa(arch: str):
    """The ISA table whose compiler and glibc machine directories stand for ``arch`` (its first ISA)."""
    for n in ISAS:
        isa = get_isa(n)
        if isa.arch == arch:
            return isa
    raise ValueError(f"no ISA table for architecture {arch}")


_LOCK = threading.Lock()
_FLAGS: dict[str, source_tree.Flags] = {}
_SCANS: dict[Path, dict[str, dict]] = {}


# ------------------------------------------------------------------ the store of built units


def store() -> Path | None:
    """The cache's store of units built for this code (None: ``EXPAND_LIBM_STORE=off``)."""
    if os.environ.get("EXPAND_LIBM_STORE", "").lower() in ("off", "0", "no"):
        return None
    st = cache_root() / f"expandm-units-{code_key()}"
    cache.use(st)  # (older versions' stores go: expand/cache.py)
    return st


def _copy_in(src: Path, dst: Path) -> None:
    """``src`` to ``dst`` by way of a temporary name beside it: a reader sees all of it or nothing."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}-{threading.get_ident()}")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def from_store(out: Path, rels: Sequence[str]) -> bool:
    """Copy the files ``rels`` (paths relative to a library directory; the last one marks the set
    complete, so it is written last) from the store into ``out``; False when the store lacks one."""
    st = store()
    if st is None or st == out or not (st / rels[-1]).is_file():
        return False
    try:
        for r in rels:
            _copy_in(st / r, out / r)
    except OSError:  # (another process replacing them: build here)
        return False
    return True


def to_store(out: Path, rels: Sequence[str]) -> None:
    """Copy the files ``rels`` of ``out`` into the store (the last one last); a full disk or a read-only
    cache only costs the next build its time."""
    st = store()
    if st is None or st == out:
        return
    try:
        for r in rels:
            _copy_in(out / r, st / r)
    except OSError:
        pass


def glibc_flags(arch: str) -> source_tree.Flags:
    """glibc's own headers, defines and flags for ``arch`` (``source_tree.glibc_flags``)."""
    with _LOCK:
        if arch not in _FLAGS:
            flt32 = glibc_flt32_dir()
            _FLAGS[arch] = source_tree.glibc_flags(source_tree.glibc_root(flt32), scan_isa(arch))
        return _FLAGS[arch]


def glibc_scan(out: Path, arch: str) -> dict[str, dict]:
    """Every file of flt-32 compiled for ``arch`` with glibc's flags (``source_tree.scan``, once per output
    directory and architecture: ``obj/<arch>/glibc-scan.json``): file name -> ``error`` (the compile's
    first error line, or ""), ``defined`` (its global symbols) and ``links`` (its companions, in order:
    the files defining what it needs, the target's libm.so.6/libc.so.6 aside; ``source_tree.companions``)."""
    path = (out / "obj" / arch / "glibc-scan.json").resolve()
    flags = glibc_flags(arch)
    with _LOCK:
        if path in _SCANS:
            return _SCANS[path]
        rel = f"obj/{arch}/glibc-scan.json"
        if not path.is_file() and not from_store(path.parents[2], [rel]):
            isa = scan_isa(arch)
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=path.parent, prefix=".scan-") as tmp:
                scalars = source_tree.scan(glibc_flt32_dir(), isa, flags, Path(tmp))
            links, _ = source_tree.companions(scalars, source_tree.system_symbols(isa))
            table = {n: {"error": sc.error, "defined": sorted(sc.defined), "links": links.get(n, [])}
                     for n, sc in scalars.items()}
            tmp_path = path.with_suffix(f".{os.getpid()}.json")
            tmp_path.write_text(json.dumps(table, indent=1) + "\n")
            os.replace(tmp_path, path)
            to_store(path.parents[2], [rel])
        _SCANS[path] = json.loads(path.read_text())
        return _SCANS[path]


@dataclass(frozen=True)
class Recipe:
    """How one source compiles for one architecture: flags beyond ``LIB_CFLAGS`` and the ISA's, the
    preprocessor's ``-I``/``-D``/``-U``, the frontend's view (``flags``) and the files it links with."""

    cflags: tuple[str, ...]
    cpp: tuple[str, ...]
    flags: source_tree.Flags | None  # glibc's (expand reads the source with source_tree.read_source); None: ours
    link: tuple[Path, ...]


def shorten(text: str) -> str:
    """``text`` with the paths of the glibc tree from its ``glibc-X.Y`` directory on."""
    flt32 = glibc_flt32_dir()
    return source_tree.shorten(text, *{str(p) for p in (flt32.parents[3], flt32.resolve().parents[3])})


def diagnostic(exc: ExpandError) -> str:
    """``file:line:col: message`` of expand's diagnostic (paths from the glibc tree's directory on)."""
    return shorten(f"{exc.coord}: {exc.message.splitlines()[0]}" if exc.coord else exc.message.splitlines()[0])


class Unavailable(RuntimeError):
    """A function the library cannot have on a unit: expand's diagnostic, or its source does not
    compile with glibc's flags for the architecture (recorded in the manifest, not fatal)."""


def recipe(out: Path, arch: str, fn: LibSource) -> Recipe:
    """How ``fn`` compiles for ``arch``: a glibc source with glibc's flags (its directory searched
    first, as in glibc's build) and its companions; a shim source with the shim and the corpus's link
    files; ours with nothing."""
    if fn.kind == "own":
        return Recipe((), (), None, ())
    if fn.kind == "shim":
        return Recipe((), tuple(f"-I{d}" for d in fn.include_dirs), None, fn.link)
    src = fn.source
    flags = glibc_flags(arch)
    row = glibc_scan(out, arch).get(src.name)
    if row is None or row["error"]:
        raise Unavailable(shorten(f"{src.name} does not compile with glibc's flags for {arch}: "
                                 f"{row['error'] if row else 'not in the scan'}"))
    return Recipe(tuple(flags.cflags), (f"-I{src.parent}", *flags.cpp()), flags,
                  tuple(src.parent / f for f in row["links"]))


def companion(src: Path) -> LibSource:
    """A companion file (a data table, the error helpers, a function another one calls) as a glibc
    source: companions are always compiled with glibc's flags, whatever reads the functions."""
    return LibSource(src.stem, src, "", "glibc")


def internal_symbols(out: Path, arch: str, link: Iterable[Path]) -> list[str]:
    """The internal global symbols the glibc files ``link`` define for ``arch`` (``__logf_data``,
    ``__math_divzerof``, ``__ieee754_expf``, ...): the ones with a leading underscore. Their public
    aliases (``expf``, ``expf32``: nothing in the library refers to them) are made local instead
    (``build_data``)."""
    scan = glibc_scan(out, arch)
    return sorted({s for f in link for s in scan[Path(f).name]["defined"] if s.startswith("_")})


def reference(out: Path, arch: str, fn: LibSource) -> dict:
    """``expand.check.verify.verify``'s arguments that build ``fn``'s scalar source for ``arch`` as the library
    does (its companions as sources: the reference is glibc's code under glibc's names, apart from the
    library's renamed copies): ``scalar_sources``, ``scalar_name``, ``include_dirs``, ``defines``,
    ``undefs``, ``cflags`` and ``link_files`` (add the archive)."""
    rec = recipe(out, arch, fn)
    flags = rec.flags or source_tree.Flags()
    incs = [fn.source.parent, *map(Path, flags.include_dirs)] if rec.flags else list(fn.include_dirs)
    return {"scalar_sources": [fn.source], "scalar_name": fn.func, "include_dirs": incs, "defines": list(flags.defines),
            "undefs": list(flags.undefs), "cflags": list(flags.cflags), "link_files": list(rec.link)}


def renamed(symbol: str) -> str:
    """The library's name of glibc's internal ``symbol``: ``__logf_data`` -> ``__expandm_logf_data``."""
    return f"{PREFIX}{symbol.lstrip('_')}"


def redefine(cc: Sequence[str], obj: Path, symbols: Iterable[str]) -> None:
    """Rename glibc's internal ``symbols`` in the object ``obj`` (definitions and references alike:
    ``objcopy --redefine-syms``). Not with ``-D``: a glibc file defines its aliases only when its own
    name is no macro (e_expf.c: ``#ifndef __expf`` ... ``strong_alias (__expf, __ieee754_expf)``)."""
    pairs = sorted({s: renamed(s) for s in symbols}.items())
    new = [n for _, n in pairs]
    clash = sorted({o for o, n in pairs if new.count(n) > 1})
    if clash:
        raise RuntimeError(f"glibc symbols {', '.join(clash)} would get the same name in the library")
    if not pairs:
        return
    table = obj.with_suffix(".redefine")
    table.write_text("".join(f"{o} {n}\n" for o, n in pairs))
    try:
        run([tool(cc, "objcopy"), f"--redefine-syms={table}", obj])
    finally:
        table.unlink()


def _defined_globals(cc: Sequence[str], obj: Path) -> list[str]:
    names = run([tool(cc, "nm"), "--defined-only", "-g", "-P", obj]).split("\n")
    return [ln.split()[0] for ln in names if ln.strip()]


def b_rename(isa_name: str, variant: str) -> str:
    """The name an SSE unit gives its 'b' variant (the dispatcher chooses between sse2 and sse4.1)."""
    return f"{PREFIX}{isa_name.replace('.', '')}_{variant}"


def param_kind(t: T.CType) -> str:
    """A parameter's or result's kind in the manifest: a lane kind (``f32``), ``f32*`` for a pointer to a
    gang (sincosf's outputs: EXPAND's convention), ``void``."""
    if isinstance(t, T.Void):
        return "void"
    return f"{lane_kind(t.target)}*" if isinstance(t, T.Pointer) else lane_kind(t)


def entry_type(isa, k: str) -> str:
    """The C type of a ``param_kind`` in the ``_Exp_`` entry points: a gang, a pointer to one, void."""
    if k == "void":
        return "void"
    return f"{isa.mtype(k[:-1])} *" if k.endswith("*") else isa.vtype(k)


def _entry_points(e, isa) -> tuple[str, list[str]]:
    """(C definitions, prototypes) of ``_Exp_<f>_<isa>`` and ``..._masked`` over the static cores."""
    rt = entry_type(isa, param_kind(e.ret))
    params = [f"{entry_type(isa, param_kind(p.type))}{'' if isinstance(p.type, T.Pointer) else ' '}{p.name}"
              for p in e.params]
    names = ", ".join(p.name for p in e.params)
    plain, masked = expandm_symbol(e.scalar_name, isa), expandm_symbol(e.scalar_name, isa, True)
    mparams = [f"{isa.mask_type()} _exp_mask", *params]
    protos = [f"{rt} {plain}({', '.join(params)})", f"{rt} {masked}({', '.join(mparams)})"]
    ret = "" if rt == "void" else "return "
    defs = (f"\n/* mathlib (python -m mathlib.libm): the entry points of {e.scalar_name} on {isa.name} */\n"
            f"{protos[0]}\n{{\n    {ret}{e.vector_name}({names});\n}}\n\n"
            f"{protos[1]}\n{{\n    {ret}{e.masked_name}(_exp_mask, {names});\n}}\n")
    return defs, [p + ";" for p in protos]


def _typedefs(isa, ks: Iterable[str]) -> list[str]:
    """The typedefs the prototypes of a fresh natural-gang table's types need (generic vectors)."""
    fresh = type(isa)()
    for k in ks:
        fresh.vtype(k)
    fresh.mask_type()
    return [ln for ln in fresh.prelude().splitlines() if ln.startswith("typedef")]


def build_unit(out: Path, arch: str, isa_name: str, fn: LibSource) -> dict:
    """Expand and compile ``fn`` for ``isa_name`` on ``arch``; returns (and stores) its metadata. Raises
    ``Unavailable`` (and records why in ``<tag>.missing``) when expand gives a diagnostic or glibc's
    flags do not compile the source for ``arch``."""
    tag = f"{arch}/{isa_name}/{fn.name}"
    obj, meta_path = out / "obj" / f"{tag}.o", out / "obj" / f"{tag}.json"
    missing = out / "obj" / f"{tag}.missing"
    built = [f"src/{tag}.c", f"obj/{tag}.o", f"obj/{tag}.json"]
    if not (obj.exists() and meta_path.exists()) and not missing.exists():
        if not from_store(out, built):
            from_store(out, [f"obj/{tag}.missing"])
    if obj.exists() and meta_path.exists():
        return json.loads(meta_path.read_text())
    if missing.exists():
        raise Unavailable(json.loads(missing.read_text())["why"])
    isa = unit_isa(arch, isa_name)
    try:
        rec = recipe(out, arch, fn)
        if rec.flags is not None:
            mod = source_tree.read_source(fn.source, isa, rec.flags)
        else:
            mod = read_file(str(fn.source), fn.source.read_text(), [str(d) for d in fn.include_dirs],
                            cc=isa.preprocessor)
        res = expand_module(mod, isa, functions=[fn.func], abi=True)
    except (Unavailable, ExpandError) as exc:
        why = str(exc) if isinstance(exc, Unavailable) else diagnostic(exc)
        missing.parent.mkdir(parents=True, exist_ok=True)
        missing.write_text(json.dumps({"name": fn.name, "arch": arch, "isa": isa_name, "why": why}) + "\n")
        to_store(out, [f"obj/{tag}.missing"])
        raise Unavailable(why) from None
    (e,) = res.functions
    if any(p.shape not in (None, "", "varying") for p in e.params):
        raise RuntimeError(f"{fn.name}: the library takes only varying parameters")
    # The variants get the public name (``_ZGVdN8v___logf`` -> ``_ZGVdN8v_logf``; the SSE units' go to
    # the dispatcher) when compiled: the glibc sources #undef their own name, so not with -D __logf=logf.
    pub = dataclasses.replace(e, scalar_name=fn.name)
    variants = [v.name for v in abi.variants(pub, isa)]
    final = [b_rename(isa_name, v) for v in variants] if isa.abi_letter == "b" else variants
    extra = [f"-D{old.name}={new}" for old, new in zip(abi.variants(e, isa), final)]
    defs, entry = _entry_points(pub, isa)
    src = out / "src" / f"{tag}.c"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text(res.text + defs)
    obj.parent.mkdir(parents=True, exist_ok=True)
    tmp = obj.with_suffix(f".{os.getpid()}-{threading.get_ident()}.o")
    run([*isa.cc, *LIB_CFLAGS, *isa.cflags, *rec.cflags, *rec.cpp, *extra, "-c", src, "-o", tmp])
    redefine(isa.cc, tmp, internal_symbols(out, arch, rec.link))
    kinds = [param_kind(p.type) for p in e.params]
    meta = {
        "name": fn.name, "arch": arch, "isa": isa_name, "lanes": isa.lanes,
        "ret": param_kind(e.ret), "params": [[p.name, str(p.type), k] for p, k in zip(e.params, kinds)],
        "ret_ctype": str(e.ret), "effects": list(e.effects), "variants": variants,
        "abi_protos": abi.variant_prototypes([pub], isa) if variants else [],
        "entry_protos": entry,
        "typedefs": _typedefs(isa, [k.rstrip("*") for k in [param_kind(e.ret), *kinds] if k != "void"]),
        "link": [str(p) for p in rec.link], "func": fn.func, "source": str(fn.source),
    }
    os.replace(tmp, obj)
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    to_store(out, built)
    return meta


def build_scalar(out: Path, arch: str, fn: LibSource) -> Path:
    """The scalar reference object of ``fn`` for ``arch``: its one global symbol is the public name
    (glibc's own alias of it, or ``fn.func`` renamed), what it needs of its companions is renamed as in
    the vector code (``libexpandm.a`` defines it), and its other definitions are local."""
    rel = f"obj/{arch}/scalar/{fn.name}.o"
    obj = out / rel
    if obj.exists() or from_store(out, [rel]):
        return obj
    obj.parent.mkdir(parents=True, exist_ok=True)
    tmp = obj.with_suffix(f".{os.getpid()}-{threading.get_ident()}.o")
    cc = arch_cc(arch)
    rec = recipe(out, arch, fn)
    run([*cc, *LIB_CFLAGS, *rec.cflags, *rec.cpp, "-c", fn.source, "-o", tmp])
    redefine(cc, tmp, internal_symbols(out, arch, rec.link))
    objcopy = tool(cc, "objcopy")
    if fn.name not in _defined_globals(cc, tmp):
        run([objcopy, f"--redefine-sym={fn.func}={fn.name}", tmp])
    run([objcopy, f"--keep-global-symbol={fn.name}", tmp])
    os.replace(tmp, obj)
    to_store(out, [rel])
    return obj


def build_data(out: Path, arch: str, src: Path, symbols: list[str]) -> Path:
    """glibc's companion ``src`` (a data table, the error helpers, a function the library's functions
    call) for ``arch``: its internal symbols renamed ``__expandm_*`` (``symbols``: every one the
    archive's objects refer to), its public aliases (``expf``) made local."""
    obj = out / "obj" / arch / "data" / f"{src.stem}.o"
    if obj.exists():
        return obj
    obj.parent.mkdir(parents=True, exist_ok=True)
    tmp = obj.with_suffix(f".{os.getpid()}-{threading.get_ident()}.o")
    cc = arch_cc(arch)
    rec = recipe(out, arch, companion(src))
    run([*cc, *LIB_CFLAGS, *rec.cflags, *rec.cpp, "-c", src, "-o", tmp])
    redefine(cc, tmp, symbols)
    public = [s for s in _defined_globals(cc, tmp) if not s.startswith(PREFIX)]
    if public:
        run([tool(cc, "objcopy"), *[f"--localize-symbol={s}" for s in public], tmp])
    os.replace(tmp, obj)
    return obj


DISPATCH = """\
/* mathlib: {name}'s SSE ('b') vector function ABI variants run the SSE4.1 code when the CPU has
   SSE4.1, else the SSE2 code (GNU indirect functions, resolved once at load time). */
typedef void (*__expandm_fn)(void);
"""


def build_dispatch(out: Path, name: str, variants: list[str], isas: list[str]) -> Path:
    """The ifunc object defining ``name``'s 'b' variants over the sse2/sse4.1 units built (``isas``)."""
    lines = [DISPATCH.format(name=name)]
    for v in variants:
        impl = {i: b_rename(i, v) for i in isas}
        lines += [f"extern void {x}(void);" for x in impl.values()]
        if len(impl) == 2:
            pick = f"__builtin_cpu_supports(\"sse4.1\") ? {impl['sse4.1']} : {impl['sse2']}"
        else:  # one unit built (a partial library): that one
            pick = next(iter(impl.values()))
        lines += [f"static __expandm_fn {PREFIX}resolve_{v}(void)", "{", "    __builtin_cpu_init();",
                  f"    return {pick};", "}",
                  f"void {v}(void) __attribute__((ifunc(\"{PREFIX}resolve_{v}\")));", ""]
    src = out / "src" / "x86_64" / "dispatch" / f"{name}.c"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text("\n".join(lines))
    obj = out / "obj" / "x86_64" / "dispatch" / f"{name}.o"
    obj.parent.mkdir(parents=True, exist_ok=True)
    run(["gcc", *LIB_CFLAGS, "-c", src, "-o", obj])
    return obj


# ------------------------------------------------------------------ the whole library


def code_key() -> str:
    """A hash of everything the library's contents depend on (expand, the tables, mathlib's sources, the
    shim and glibc's flags)."""
    h = hashlib.sha256()
    files = [p for d in ("expand", "emit", "predication", "frontends") for p in sorted((ROOT / d).rglob("*.py"))]
    files += [MATHLIB_DIR / "libm.py", MATHLIB_DIR / "corpus.py", MATHLIB_DIR / "source_tree.py",
              *sorted((MATHLIB_DIR / "expandm").glob("*.c")), *sorted(shim_dir().glob("*.h"))]
    for p in files:
        h.update(str(p.relative_to(ROOT)).encode() + b"\0" + p.read_bytes())
    h.update(str(glibc_flt32_dir()).encode())
    return h.hexdigest()[:16]


@contextmanager
def locked(out: Path):
    """Hold ``out/.lock`` (one builder per directory at a time)."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def build(out: Path, plan: dict[str, list[str]], *, jobs: int = 2, log: Callable[[str], None] | None = None) -> Path:
    """Build ``plan`` (``"<arch>/<isa>"`` -> functions) into ``out`` (objects already there for the same
    code are kept), then write the archives, the header and the manifest for everything in ``out``."""
    out = Path(out).resolve()
    with locked(out):
        key = code_key()
        stamp = out / "obj" / "KEY"
        if not stamp.exists() or stamp.read_text().strip() != key:
            for d in ("obj", "src", "lib", "include"):
                shutil.rmtree(out / d, ignore_errors=True)
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text(key + "\n")
        srcs = sources()
        tasks = [(unit.split("/")[0], unit.split("/")[1], srcs[f]) for unit, fs in plan.items() for f in fs]
        t0 = time.monotonic()

        def one(task: tuple[str, str, LibSource]) -> dict | None:
            arch, isa_name, fn = task
            try:
                meta = build_unit(out, arch, isa_name, fn)
            except Unavailable as exc:
                if log:
                    log(f"expandm: {arch}/{isa_name}/{fn.name}: left out: {exc}")
                return None
            build_scalar(out, arch, fn)
            if log:
                log(f"expandm: {arch}/{isa_name}/{fn.name} ({time.monotonic() - t0:.0f} s)")
            return meta

        with ThreadPoolExecutor(max(1, jobs)) as pool:
            list(pool.map(one, tasks))
        finish(out)
    return out


def _metas(out: Path) -> list[dict]:
    """The metadata of every unit built in ``out``."""
    return [json.loads(p.read_text()) for p in sorted((out / "obj").glob("*/*/*.json"))]


def finish(out: Path) -> None:
    """Archives, header and manifest from every unit built in ``out``."""
    metas = _metas(out)
    srcs = sources()
    manifest: dict = {"version": 1, "key": code_key(), "glibc": glibc_flt32_dir().parts[-4], "units": {},
                      "missing": {}, "archives": {}, "header": "include/expandm.h"}
    for arch in ARCHES:
        ms = [m for m in metas if m["arch"] == arch]
        if not ms:
            continue
        cc = arch_cc(arch)
        objs = [out / "obj" / arch / m["isa"] / f"{m['name']}.o" for m in ms]
        names = sorted({m["name"] for m in ms})
        link = sorted({Path(p) for m in ms for p in m["link"]})
        symbols = internal_symbols(out, arch, link)
        objs += [build_data(out, arch, s, symbols) for s in link]
        if arch == "x86_64":
            for n in names:
                sse = [m for m in ms if m["name"] == n and m["isa"] in ("sse2", "sse4.1")]
                if sse:
                    objs.append(build_dispatch(out, n, sse[0]["variants"], [m["isa"] for m in sse]))
        scalar = [build_scalar(out, arch, srcs[n]) for n in names]
        libdir = out / "lib" / arch
        libdir.mkdir(parents=True, exist_ok=True)
        for lib, members in (("libexpandm.a", objs), ("libexpandm_scalar.a", scalar)):
            tmp = libdir / f".{lib}.{os.getpid()}"
            tmp.unlink(missing_ok=True)
            run([tool(cc, "ar"), "rcs", tmp, *members])
            os.replace(tmp, libdir / lib)
        manifest["archives"][arch] = {"vector": f"lib/{arch}/libexpandm.a", "scalar": f"lib/{arch}/libexpandm_scalar.a",
                                      "renamed": {s: renamed(s) for s in symbols}}
        for m in sorted(ms, key=lambda m: EXPANDM_FUNCTIONS.index(m["name"])):
            u = manifest["units"].setdefault(f"{arch}/{m['isa']}", {"lanes": m["lanes"], "functions": []})
            u["functions"].append(m["name"])
    for p in sorted((out / "obj").glob("*/*/*.missing")):
        d = json.loads(p.read_text())
        manifest["missing"].setdefault(f"{d['arch']}/{d['isa']}", {})[d["name"]] = d["why"]
    (out / "include").mkdir(parents=True, exist_ok=True)
    (out / "include" / "expandm.h").write_text(header(metas))
    (out / "expandm.json").write_text(json.dumps(manifest, indent=1) + "\n")


def header(metas: list[dict]) -> str:
    """``expandm.h``: declare-simd declarations and every entry point's prototype, per ISA."""
    lines = ["/* expandm.h: mathlib's vector libm (python -m mathlib.libm), built by expand from glibc 2.36's",
             "   scalar sources (and ours). Link lib/<arch>/libexpandm.a. Bit-exact with the scalar sources",
             "   (lib/<arch>/libexpandm_scalar.a), round to nearest; no errno from the vector code's own",
             "   operations (glibc's error helpers still set it, per active lane). */",
             "#ifndef EXPANDM_H", "#define EXPANDM_H", "", "#include <stdint.h>", "",
             *ERRNO_CONST_MACRO,
             "#pragma GCC diagnostic push", '#pragma GCC diagnostic ignored "-Wunknown-pragmas"', ""]
    for name in SIMD_DECLARED:
        ms = [m for m in metas if m["name"] == name]
        built = {(m["arch"], m["isa"]) for m in ms}
        arches = [a for a, need in ABI_ISAS.items() if all(any((a, i) in built for i in alts) for alts in need)]
        if not ms:
            continue
        m = ms[0]
        what, why = m["effects"]
        params = ", ".join(f"{ct}{'' if ct.endswith('*') else ' '}{n}" for n, ct, _ in m["params"])
        pointers = [n for n, _, k in m["params"] if k.endswith("*")]
        pragmas = ["#pragma omp declare simd"]
        if pointers:  # (sincosf: where GCC makes clones mixing 64-bit pointer lanes with float ones, x86)
            arches = [a for a in arches if all(get_isa(i).abi_mixed_sizes for alts in ABI_ISAS[a] for i in alts)]
            pragmas.append(f"#pragma omp declare simd linear({', '.join(pointers)})")
        if not arches:
            continue
        if pointers:
            lines.append(f"/* {name}: it stores through its pointers (the vector code: {why}); a loop calling it"
                         " needs #pragma omp simd. */")
            attr = ""
        elif name in LIBM_NOT_CONST or not what:
            said = "math.h: it may set errno; " if name in LIBM_NOT_CONST else ""
            lines.append(f"/* {name}: EXPANDM_ERRNO_CONST ({said}the vector code: {why}). */")
            attr = "EXPANDM_ERRNO_CONST "
        else:
            lines.append(f"/* {name}: declared {what} ({why}). */")
            attr = f"__attribute__(({what})) "
        lines += [f"#if {' || '.join(f'({ARCH_MACRO[a]})' for a in arches)}", *pragmas, "#endif",
                  f"{attr}{m['ret_ctype']} {name}({params});", ""]
    lines += ["#pragma GCC diagnostic pop", ""]
    for arch in ARCHES:
        ms = [m for m in metas if m["arch"] == arch and get_isa(m["isa"]).arch == arch]
        if not ms:
            continue
        lines.append(f"#if {ARCH_MACRO[arch]}")
        if any(get_isa(m["isa"]).abi_letter == "d" for m in ms):
            lines += ["#if defined(__AVX__) && !defined(__AVX2__) && !defined(EXPAND_ALLOW_AVX1)",
                      "#error \"with -mavx GCC calls the AVX ('c', _ZGVc...) variants, which mathlib builds as AVX2 "
                      "code: compile with -mavx2, or define EXPAND_ALLOW_AVX1 if AVX2 is certain\"", "#endif"]
        lines += _isa_blocks(ms, set())
        lines += [f"#endif /* {ARCH_MACRO[arch]} */", ""]
    generic = [m for m in metas if m["isa"] == "generic"]
    if generic:
        lines.append("/* generic (GCC/Clang vector extensions): every architecture */")
        lines += _isa_blocks(generic, set())
    lines += ["#endif /* EXPANDM_H */", ""]
    return "\n".join(lines)


def _isa_blocks(ms: list[dict], seen: set[str]) -> list[str]:
    """The header's prototypes of units ``ms``, one ``#if`` block per ISA (lines in ``seen`` once)."""
    lines: list[str] = []
    for isa_name in ISAS:
        group = [m for m in ms if m["isa"] == isa_name]
        if not group:
            continue
        isa = get_isa(isa_name)
        body: list[str] = []
        for m in sorted(group, key=lambda m: EXPANDM_FUNCTIONS.index(m["name"])):
            for ln in [*m["typedefs"], *m["abi_protos"], *m["entry_protos"]]:
                if ln not in seen:
                    seen.add(ln)
                    body.append(ln)
        cond = isa.abi_macro
        lines += ([f"#if {cond}"] if cond else []) + [f"#include {h}" for h in isa.headers] + body + \
            (["#endif", ""] if cond else [""])
    return lines


# ------------------------------------------------------------------ on demand (expand --verify)


def ensure(isas: Sequence[str], functions: Sequence[str], out: Path | None = None) -> Path:
    """A library directory with ``functions`` for ``isas`` (generic: the host's architecture), built
    into ``out`` (default: the cache, ``<cache_root>/expandm-<code key>``) where missing."""
    if out is None:
        out = cache_root() / f"expandm-{code_key()}"
        cache.use(out)
    out = Path(out)
    plan: dict[str, list[str]] = {}
    for n in isas:
        arch = get_isa(n).arch or host_arch()
        plan.setdefault(f"{arch}/{n}", [])
        plan[f"{arch}/{n}"] += [f for f in functions if f not in plan[f"{arch}/{n}"]]
    manifest = out / "expandm.json"
    if manifest.exists():
        have = json.loads(manifest.read_text())
        if have.get("key") == code_key() and all(
                set(fs) <= {*have["units"].get(u, {}).get("functions", []), *have.get("missing", {}).get(u, {})}
                for u, fs in plan.items()):
            return out
    return build(out, plan)


def main(argv: list[str] | None = None) -> int:
    """``python -m mathlib.libm`` / ``expand-libm``."""
    ap = argparse.ArgumentParser(prog="expand-libm", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "expandm", help="output directory (build/expandm)")
    ap.add_argument("--isa", action="append", choices=list(ISAS), help="ISAs (default: all)")
    ap.add_argument("--arch", action="append", choices=list(ARCHES), help="architectures (default: all)")
    ap.add_argument("--functions", help=f"comma-separated subset of {','.join(EXPANDM_FUNCTIONS)}")
    ap.add_argument("--jobs", type=int, default=2, help="parallel expansions/compiles (default 2)")
    args = ap.parse_args(argv)
    try:
        plan = default_plan(args.isa, args.functions.split(",") if args.functions else None, args.arch)
    except ValueError as exc:
        ap.error(str(exc))
    missing = sorted(c for c in {arch_cc(u.split("/")[0])[0] for u in plan} if not shutil.which(c))
    if missing:
        print(f"expand-libm: missing compilers {', '.join(missing)} (see tests/setup-and-run.sh); "
              "use --arch to build fewer architectures", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    out = build(args.out, plan, jobs=args.jobs, log=lambda s: print(s, file=sys.stderr))
    print(f"wrote {out}/include/expandm.h, {', '.join(str(p.relative_to(out)) for p in sorted(out.glob('lib/*/*.a')))}"
          f" ({time.monotonic() - t0:.0f} s)")
    missing = json.loads((out / "expandm.json").read_text())["missing"]
    if missing:
        print(f"left out: {'; '.join(f'{u}: {len(fs)}' for u, fs in missing.items())} (why: expandm.json, 'missing')")
    return 0


if __name__ == "__main__":
    sys.exit(main())
