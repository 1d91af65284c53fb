"""Speed of expanded functions against scalar glibc, GCC's declare-simd clones, libmvec, SLEEF and
the single rounding instruction (EXPAND Section 5 / Fig. 6, on x86).

    python -m mathlib.bench [--quick] [--isa sse4.1 --isa avx2 ...] [--functions floorf,logf]
                            [--out mathlib/results] [--rounds R] [--min-ms MS] [--keep-build DIR] [--instructions]
    python -m mathlib.bench --kernels [mandelbrot,...] [options as above]   (the kernel suite: mathlib/kbench.py)

For every corpus function (``mathlib.corpus``), the libm functions ``LIBM_FUNCTIONS`` (expf, sinf, cosf:
not corpus functions; read and compiled with glibc's own headers and flags, as mathlib's vector libm
builds them) and every loop kernel of ``mathlib/loops`` with only value parameters, and every x86 ISA
the host runs, one C program holds every variant:

* ``scalar``: the glibc source, ``-O2 -fno-tree-vectorize -ffp-contract=off`` (+ the ISA's -m flags,
  so every object of one program targets the same ISA), called once per element from a loop;
* ``vector``: our expanded output (``-O2 -ffp-contract=off`` + ``isa.cflags``, its own translation
  unit, so it is called, not inlined), called once per gang (``isa.loadu``/``isa.storeu``); with
  ``expand_module(boscc=...)`` available, ``vector`` is ``boscc="off"`` and ``BOSCC`` is
  ``boscc="auto"``;
* ``gcc``/``gcc_ntm``: GCC's ``#pragma omp declare simd notinbranch`` clones of the same source
  (``-O3 -fopenmp-simd`` + ``isa.cflags``, and the same plus ``-fno-trapping-math``), called from a
  ``#pragma omp simd`` loop in another translation unit; objdump says which ``_ZGV`` clones the loop
  really calls;
* ``expandm``: mathlib's vector libm (``python -m mathlib.libm``, built once per run into the cache):
  the library's entry point ``_Exp_<f>_<isa>`` of each function it has, called once per gang;
* ``libmvec`` (logf, powf, expf, sinf, cosf) and ``SLEEF`` (rounding, fabsf, copysignf, scalbnf as
  ldexpf; the u10 logf, powf, expf, sinf, cosf);
* ``instr``: the rounding instruction (``roundps``/``vrndscaleps``; roundf as the exact
  trunc + half-away fix-up, fabsf/copysignf as the bit operations), inlined in the loop.

Each program runs the same inputs (L1-resident, ``N`` elements) for every variant, first from the
function's common range, then a *rare* set where half of the elements come from pools of special
values (NaN, inf, zero, subnormals, huge, negative, ...) that take the rare branches. Per input set:
each variant is calibrated to run >= ``min_ms`` per round, then ``rounds`` rounds run every variant
once (interleaved, the order rotating per round), and the median ns/element is kept; speedups are
over the scalar median of the same run. Outputs (bench.md, bench.json, bench.png, bench_rare.png)
go to ``--out``. A benchmark, not a test: it asserts nothing about speed.

Before it is timed, every variant's outputs are compared with the scalar ones (``check_bound``):
expand's columns, mathlib's libm and the instruction must give the same bits (any NaN matching any
NaN), libmvec and SLEEF's u10 functions must be within their documented error plus glibc's own in
ULP (SLEEF's sinf/cosf where |x| <= 1e28, their documented domain), GCC's clones are reported only;
a variant that fails is not timed (``**off**`` in the table; the section "Checks" says by how much).
With ``--instructions`` every timed variant's loop is also run once under mathlib/icount.py's
tracer, which counts the instructions it executes exactly (single steps under ptrace: this VM has no
hardware counters for ``perf``): ``instructions`` per element in the JSON and two tables.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from emit import get_isa, why_not_here
from emit.host import EXIT_NOT_RUN
from emit.isa import lane_kind, scalar_ctype
from expand.driver import expand_module
from expand.ir import types as T
from expand.vecmath import EXPANDM_FUNCTIONS, expandm_symbol
from frontends.pycparser_frontend import read_file

from . import icount
from .benchkit import (
    ALIGN_FLAGS,
    SCALAR_FLAGS,
    VECTOR_FLAGS,
    WHERE_C,
    X86_ISAS,
    BuildError,
    WrongEntryPoint,
    cpu_model,
    entries_code,
    entry_lines,
    fmt_ns,
    gcc_version,
    host_isas,
    lives_in,
    paired_speed,
    pyplot,
    run,
)
from .corpus import CorpusFunction, corpus
from .matrix import loop_kernels

RESULTS_DIR = Path(__file__).resolve().parent / "results"
N_DEFAULT = 2048  # elements per array: 2 inputs + 1 output of floats = 24 KiB, inside a 32 KiB L1D

SERIES = ["scalar", "vector", "BOSCC", "BOSCC_all", "gcc", "gcc_ntm", "expandm", "libmvec", "sleef", "instr"]
LABELS = {
    "scalar": "scalar glibc",
    "vector": "vector",
    "BOSCC": "BOSCC",
    "BOSCC_all": "BOSCC all regions",
    "gcc": "GCC clones",
    "gcc_ntm": "GCC clones -fno-trapping-math",
    "expandm": "mathlib libm",
    "libmvec": "libmvec",
    "sleef": "SLEEF",
    "instr": "instruction",
}
SETS = ("common", "rare")

GCC_FLAGS = ["-O3", "-fopenmp-simd"]
MAIN_FLAGS = ["-O2", "-fno-tree-vectorize", "-ffp-contract=off", "-fPIE"]
QUICK_FUNCTIONS = ["floorf", "logf"]
#: glibc flt-32 functions of mathlib's vector libm benchmarked beside the corpus (issue 19's vector libm
#: speed: logf and powf are corpus functions). Not corpus functions: the tests and the matrix do not run
#: them; they are read and compiled as the library builds them, with glibc's own headers and flags.
LIBM_FUNCTIONS = ["expf", "sinf", "cosf"]


@dataclass
class LibmFunction(CorpusFunction):
    """A function of mathlib's vector libm compiled with glibc's own headers and flags (``libm.recipe``):
    ``src_flags`` compile the source, its companions (``link``) and expand's output; ``read_flags``
    are what expand's frontend reads the source with (``source_tree.read_source``)."""

    src_flags: list[str] = field(default_factory=list)
    read_flags: object = None  # source_tree.Flags


def libm_functions(names: list[str]) -> list[LibmFunction]:
    """``names`` (of LIBM_FUNCTIONS) as the library compiles them on x86_64."""
    from . import libm

    srcs = libm.sources()
    out = []
    for name in names:
        src = srcs[name]
        rec = libm.recipe(libm.cache_root() / f"expandm-{libm.code_key()}", "x86_64", src)
        out.append(LibmFunction(name, src.source, src.func, [], list(rec.link), [],
                                src_flags=[*rec.cflags, *rec.cpp], read_flags=rec.flags))
    return out


# ------------------------------------------------------------------------------------------------
# Inputs


def f2b(x: float) -> int:
    """Bits of ``x`` rounded to float32."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


NAN, NEG_NAN, SNAN = 0x7FC00000, 0xFFC00000, 0x7FA00000
PINF, NINF = 0x7F800000, 0xFF800000
SUBNORMALS = [0x00000001, 0x00400000, 0x007FFFFF, 0x80000001, 0x80400000]
FLT_MAX_BITS, FLT_MIN_BITS = 0x7F7FFFFF, 0x00800000
#: Specials for any float argument: NaNs, infinities, zeros, subnormals, extremes.
FLOAT_SPECIALS = [NAN, NEG_NAN, SNAN, PINF, NINF, f2b(0.0), f2b(-0.0), *SUBNORMALS,
                  FLT_MAX_BITS, FLT_MAX_BITS | 0x80000000, FLT_MIN_BITS]
#: ... plus what rounding functions treat apart: |x| < 1, |x| >= 2^23.
ROUNDING_SPECIALS = FLOAT_SPECIALS + [f2b(v) for v in (0.25, -0.25, 0.5, -0.5, 0.75, -0.75, 8388608.0,
                                                       -8388609.0, 1e10, -1e10, 3e38)]


@dataclass
class Gen:
    """Values of one argument: ``kind`` is uniform (float in [lo, hi]), normal (float bits with the
    biased exponent in [lo, hi], random sign and mantissa), int (integer in [lo, hi]); ``pool`` the
    bit patterns (floats) or values (ints) of the rare set."""

    kind: str
    lo: float = 0.0
    hi: float = 0.0
    pool: list[int] = field(default_factory=list)
    positive: bool = False  # normal: sign bit clear

    def common(self, rng: random.Random, k: str) -> int:
        if self.kind == "uniform":
            while True:
                v = f2b(rng.uniform(self.lo, self.hi))
                if not (self.positive and (v == 0 or v >> 31)):
                    return v
        if self.kind == "normal":
            e = rng.randint(int(self.lo), int(self.hi))
            s = 0 if self.positive else rng.getrandbits(1)
            return s << 31 | e << 23 | rng.getrandbits(23)
        if self.kind == "int":
            return rng.randint(int(self.lo), int(self.hi)) & mask_of(k)
        raise ValueError(self.kind)


def mask_of(k: str) -> int:
    return (1 << int(k[1:])) - 1


@dataclass
class Spec:
    """Per argument generators (by position); ``pointer_init`` for the memory behind pointer
    parameters; ``note`` says in words what the common range and the rare set are."""

    args: list[Gen]
    note: str
    rare_fraction: float = 0.5


def _u(lo: float, hi: float, pool: list[int] | None = None, positive: bool = False) -> Gen:
    return Gen("uniform", lo, hi, list(FLOAT_SPECIALS if pool is None else pool), positive)


NORMAL = Gen("normal", 1, 254, list(FLOAT_SPECIALS))
ROUND = _u(-1000, 1000, ROUNDING_SPECIALS)

SPECS: dict[str, Spec] = {
    "isinff": Spec([NORMAL], "normal floats | specials"),
    "finitef": Spec([NORMAL], "normal floats | specials"),
    "fabsf": Spec([NORMAL], "normal floats | specials"),
    "isnanf": Spec([NORMAL], "normal floats | specials"),
    "copysignf": Spec([NORMAL, NORMAL], "normal floats | specials"),
    "truncf": Spec([ROUND], "[-1000, 1000] | specials, |x|<1, |x|>=2^23"),
    "ceilf": Spec([ROUND], "[-1000, 1000] | specials, |x|<1, |x|>=2^23"),
    "floorf": Spec([ROUND], "[-1000, 1000] | specials, |x|<1, |x|>=2^23"),
    "roundf": Spec([ROUND], "[-1000, 1000] | specials, |x|<1, |x|>=2^23"),
    "scalbnf": Spec([Gen("normal", 30, 224, FLOAT_SPECIALS + [f2b(1e38), f2b(1e-37)]),
                     Gen("int", -20, 20, [0, 200, -200, 60000, -60000, 1, -1])],
                    "x normal (exponent -97..97), n in [-20, 20] | specials, overflow, underflow"),
    "logf": Spec([_u(0, 1000, FLOAT_SPECIALS + [f2b(v) for v in (1.0, -1.0, -5.0, 0.99999994, 1.0000001)],
                     positive=True)], "(0, 1000] | specials, negative, 1"),
    "powf": Spec([_u(0, 10, FLOAT_SPECIALS + [f2b(v) for v in (-2.0, -0.5, -1.0, 1.0, 1e30, -3.0)], positive=True),
                  _u(-10, 10, FLOAT_SPECIALS + [f2b(v) for v in (0.0, 1.0, 2.0, 3.0, -1.0, 0.5, 1e10, -1e10, 200.0)])],
                 "x in (0, 10], y in [-10, 10] | negative x, integer y, specials, overflow"),
    # expf: [-87, 87], where every result is a normal float and glibc's code, libmvec and SLEEF stay on
    # their main paths ([-100, 100] would put 12% of the elements past |x| = 88, glibc's special-case
    # test); the rare set overflows, underflows (to subnormals and to zero) and has the specials.
    "expf": Spec([_u(-87, 87, FLOAT_SPECIALS + [f2b(v) for v in (88.8, 89.0, 100.0, -88.0, -95.0, -100.0, -104.0,
                                                                  -110.0, 1e10, -1e10)])],
                 "[-87, 87] | overflow (88.8..100), underflow (-88..-110), specials"),
    # sinf/cosf: [-10, 10] (glibc: |x| < pi/4 the polynomial alone, else the reduction by pi/2 in double);
    # the rare set has arguments of glibc's large reduction (|x| >= 120: reduce_large, Payne-Hanek style),
    # 1e30 beyond SLEEF u10's domain (|x| <= 1e28), and the specials (inf: EDOM).
    "sinf": Spec([_u(-10, 10, FLOAT_SPECIALS + [f2b(v) for v in (200.0, -1e5, 1e5, 3e7, 1e10, -1e20, 1e30, -1e30)])],
                 "[-10, 10] | 200, 1e5, 3e7, 1e10, 1e20, 1e30, specials"),
    "cosf": Spec([_u(-10, 10, FLOAT_SPECIALS + [f2b(v) for v in (200.0, -1e5, 1e5, 3e7, 1e10, -1e20, 1e30, -1e30)])],
                 "[-10, 10] | 200, 1e5, 3e7, 1e10, 1e20, 1e30, specials"),
    "mot": Spec([_u(-1000, 1000), Gen("uniform", 0, 0)], "x in [-1000, 1000] | specials"),
    "chroma": Spec([Gen("int", 0, 255, [0]), Gen("int", 0, 255, [0]), Gen("int", 0, 255, [255]),
                    Gen("int", 0, 255), Gen("int", 0, 255), Gen("int", 0, 255)],
                   "random pixels | half of them the key colour (0, 0, 255)"),
    "fmodf_bits": Spec([_u(1, 1000, FLOAT_SPECIALS + [f2b(v) for v in (1e30, -5.0, 3.0)]),
                        _u(1, 10, FLOAT_SPECIALS + [f2b(v) for v in (1e-30, 7.0, 3.0)])],
                       "x in [1, 1000], y in [1, 10] | specials, huge exponent gaps"),
    "gcd": Spec([Gen("int", 1, 1_000_000, [0, 1, 1346269, 0xFFFFFFFF, 832040]),
                 Gen("int", 1, 1_000_000, [0, 1, 832040, 2178309, 7])],
                "a, b in [1, 10^6] | zero, one, Fibonacci pairs"),
    "mandelbrot": Spec([_u(-2, 0.5, [NAN, PINF, f2b(0.0), f2b(-1.0), f2b(0.25), f2b(-0.1)]),
                        _u(-1.25, 1.25, [NAN, f2b(0.0), f2b(0.1), f2b(-0.1)])],
                       "cr in [-2, 0.5], ci in [-1.25, 1.25] | points inside the set (1000 iterations), NaN"),
    "nested": Spec([Gen("int", 0, 65535, [0, -1, 0x7FFFFFFF, -0x80000000, 0xFFFF])],
                   "n in [0, 65535] | 0, -1, INT_MAX, INT_MIN"),
    "newton_sqrt": Spec([_u(0, 1000, FLOAT_SPECIALS + [f2b(v) for v in (1e31, -1.0, 1e-30)], positive=True)],
                        "(0, 1000] | specials, negative, > 1e30"),
    "two_exits": Spec([Gen("int", -1000, 1000, [0, 1000000, -1000000, 14]),
                       Gen("int", -100, 100, [0, 42, 100001, -100001])],
                      "start in [-1000, 1000], step in [-100, 100] | early returns and breaks"),
}


def default_spec(params: list[T.CType]) -> Spec:
    """Inputs for a function without an entry in SPECS: floats in [-1000, 1000], ints in [-1000, 1000]."""
    gens = []
    for t in params:
        t = t.target if isinstance(t, T.Pointer) else t
        lo = -1000 if getattr(t, "signed", True) else 0
        gens.append(ROUND if isinstance(t, T.Float) else Gen("int", lo, 1000))
    return Spec(gens, "default ranges")


def make_inputs(spec: Spec, kinds: list[str], n: int, seed: int) -> dict[str, list[list[int]]]:
    """Bit patterns per set and argument; the rare set takes ``rare_fraction`` of its elements
    (all arguments of that element together) from the pools."""
    out: dict[str, list[list[int]]] = {}
    for set_name in SETS:
        rng = random.Random(f"{seed}-{set_name}")
        cols: list[list[int]] = [[] for _ in kinds]
        for _ in range(n):
            rare = set_name == "rare" and rng.random() < spec.rare_fraction
            for j, (g, k) in enumerate(zip(spec.args, kinds)):
                if rare and g.pool:
                    v = rng.choice(g.pool) & mask_of(k)
                else:
                    v = g.common(rng, k)
                cols[j].append(v)
        out[set_name] = cols
    return out


# ------------------------------------------------------------------------------------------------
# Host


def have_lib(name: str) -> bool:
    p = subprocess.run(["gcc", f"-print-file-name=lib{name}.so"], capture_output=True, text=True).stdout.strip()
    return os.path.isabs(p) and os.path.exists(p)


def ensure_sleef(install: bool) -> bool:
    """True when libsleef links; as root with apt-get, installs Debian's libsleef-dev if asked."""
    if have_lib("sleef"):
        return True
    if install and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        cmd = ["apt-get", "install", "-y", "libsleef-dev"]
        if subprocess.run(cmd, env=env, capture_output=True).returncode != 0:
            subprocess.run(["apt-get", "update"], env=env, capture_output=True)
            subprocess.run(cmd, env=env, capture_output=True)
    return have_lib("sleef")


def has_boscc() -> bool:
    return "boscc" in inspect.signature(expand_module).parameters


# ------------------------------------------------------------------------------------------------
# Peers: libmvec, SLEEF, the instruction

# What each ISA has (vector types, lanes, libmvec's ABI letter, SLEEF's suffix, intrinsic names) comes from
# its emit/ table (get_isa); the tables here are per function.
LIBMVEC = {  # function -> (libmvec name pattern: ABI letter c, lanes l; arity)
    "logf": ("_ZGV{c}N{l}v_logf", 1),
    "powf": ("_ZGV{c}N{l}vv_powf", 2),
    "expf": ("_ZGV{c}N{l}v_expf", 1),
    "sinf": ("_ZGV{c}N{l}v_sinf", 1),
    "cosf": ("_ZGV{c}N{l}v_cosf", 1),
}
SLEEF = {  # function -> (sleef base, ulp tag, argument kinds)
    "floorf": ("floorf", "", ["f32"]),
    "ceilf": ("ceilf", "", ["f32"]),
    "truncf": ("truncf", "", ["f32"]),
    "roundf": ("roundf", "", ["f32"]),
    "fabsf": ("fabsf", "", ["f32"]),
    "copysignf": ("copysignf", "", ["f32", "f32"]),
    "scalbnf": ("ldexpf", "", ["f32", "i32"]),  # not declared in sleef.h 3.5, exported: (vfloat, vint2)
    "logf": ("logf", "_u10", ["f32"]),
    "powf": ("powf", "_u10", ["f32", "f32"]),
    "expf": ("expf", "_u10", ["f32"]),
    "sinf": ("sinf", "_u10", ["f32"]),
    "cosf": ("cosf", "_u10", ["f32"]),
}

# Checks before timing: every column's outputs against the scalar column's, element by element.
#: expand's columns (and the instruction) must be bit-exact (any NaN matching any NaN).
EXACT = 0
#: GCC's clones and SLEEF's undocumented ldexpf: differences are reported, not checked.
REPORT = -1
#: glibc's flt-32 sources these columns are checked against are within 1 ULP of the correctly rounded
#: result (their comments: expf 0.502, logf 0.82, powf 0.82, sinf/cosf 0.56).
GLIBC_ULP = 1
#: glibc's libmvec: "tested ... to pass 4-ulp maximum relative error criterion on their domains"
#: (sourceware.org/glibc/wiki/libmvec).
LIBMVEC_ULP = 4
#: SLEEF's u10 functions: 1.0 ULP; sinf/cosf only for |x| <= 1e28 ("if a is a finite value out of this
#: range, an arbitrary value within [-1, 1] is returned"); its rounding and bit functions are exact.
SLEEF_U10_ULP = 1
SLEEF_DOMAIN = {"sinf": 1e28, "cosf": 1e28}


def check_bound(series: str, fn: str) -> tuple[int, float]:
    """(bound, domain) of a column's check against scalar glibc: EXACT, REPORT, or at most that many
    ULP apart (the peer's documented bound plus glibc's own) where the first argument's magnitude is
    at most ``domain`` (elements outside it are counted, not checked)."""
    if series in ("gcc", "gcc_ntm"):
        return REPORT, math.inf
    if series == "libmvec":
        return LIBMVEC_ULP + GLIBC_ULP, math.inf
    if series == "sleef":
        if SLEEF[fn][1] == "_u10":
            return SLEEF_U10_ULP + GLIBC_ULP, SLEEF_DOMAIN.get(fn, math.inf)
        return (REPORT if fn == "scalbnf" else EXACT), math.inf
    return EXACT, math.inf
#: function -> the libm rounding operation of the ISA tables (``Isa.math``: roundps, vrndscaleps) that is it
ROUND_OP = {"floorf": "floor", "ceilf": "ceil", "truncf": "trunc"}
INSTR_FUNCS = ("floorf", "ceilf", "truncf", "roundf", "fabsf", "copysignf")


def libmvec_name(fn: str, isa_name: str) -> str:
    pat, _ = LIBMVEC[fn]
    isa = get_isa(isa_name)
    return pat.format(c=isa.abi_letter, l=isa.lanes)


def sleef_name(fn: str, isa_name: str) -> str:
    base, ulp, _ = SLEEF[fn]
    isa = get_isa(isa_name)
    n, suf = isa.lanes, isa.sleef_suffix
    return f"Sleef_{base}{n}{ulp}{suf}" if ulp else f"Sleef_{base}{n}_{suf}"


def instr_helper(fn: str, isa_name: str) -> str:
    """C text of ``static inline VT instr_<fn>(VT x[, VT y])``: the instruction(s) doing ``fn``, in the
    intrinsics of the ISA's table (its rounding, arithmetic and bit operations, ``intrinsic_prefix``)."""
    isa = get_isa(isa_name).emission()
    vt, p = isa.vtype("f32"), isa.intrinsic_prefix
    sign = isa.splat("f32", "-0.0f")
    if fn in ROUND_OP:
        body = f"return {isa.math(ROUND_OP[fn], 'f32', ['x'])};"
        return f"static inline {vt} instr_{fn}({vt} x) {{ {body} }}\n"
    if fn == "fabsf":
        return f"static inline {vt} instr_fabsf({vt} x) {{ return {p}_andnot_ps({sign}, x); }}\n"
    if fn == "copysignf":
        return (f"static inline {vt} instr_copysignf({vt} x, {vt} y) {{ const {vt} s = {sign};"
                f" return {isa.binop('|', 'f32', f'{p}_andnot_ps(s, x)', isa.binop('&', 'f32', 's', 'y'))}; }}\n")
    if fn == "roundf":  # round half away from zero, exactly: t = trunc(x); t + copysign(|x - t| >= 0.5, x)
        half, ones = isa.splat("f32", "0.5f"), isa.splat("f32", "1.0f")
        if isa.mask_registers:  # (the comparison gives a mask register: 1.0f where it is on, else 0)
            one = f"{p}_maskz_mov_ps({p}_cmp_ps_mask(d, {half}, _CMP_GE_OQ), {ones})"
        else:  # (the comparison gives all-ones lanes where it holds)
            cmp = f"{p}_cmp_ps(d, {half}, _CMP_GE_OQ)" if isa.cmp_predicate else f"{p}_cmpge_ps(d, {half})"
            one = isa.binop("&", "f32", cmp, ones)
        return (f"static inline {vt} instr_roundf({vt} x) {{\n"
                f"    const {vt} s = {sign};\n"
                f"    {vt} t = {isa.math('trunc', 'f32', ['x'])};\n"
                f"    {vt} d = {p}_andnot_ps(s, {isa.binop('-', 'f32', 'x', 't')});\n"
                f"    return {isa.binop('+', 'f32', 't', isa.binop('|', 'f32', one, isa.binop('&', 'f32', 'x', 's')))};"
                "\n}\n")
    raise KeyError(fn)


# ------------------------------------------------------------------------------------------------
# One program per (function, ISA)


@dataclass
class Arg:
    name: str
    kind: str  # lane kind of the value (or of the pointee)
    pointer: bool


@dataclass
class Program:
    """What was built for one (function, ISA): the executable, its variants and notes."""

    function: str
    isa: str
    exe: Path | None
    variants: list[str]
    notes: list[str] = field(default_factory=list)
    clone_calls: dict[str, list[str]] = field(default_factory=dict)
    same_code: dict[str, str] = field(default_factory=dict)  # series -> an earlier series with the same C
    error: str | None = None
    input_note: str = ""
    #: series -> (the entry point it calls, where that must live: "exe" for the program itself, else the
    #: shared library's name stem such as "libmvec"); checked at run time by ``check_entries``
    entries: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: a program that only calls libmvec (nothing of ours linked), measured beside this one
    anchor_exe: Path | None = None
    #: series -> the object file its entry point was found in at run time (and "anchor")
    where: dict[str, str] = field(default_factory=dict)


def expand_text(f: CorpusFunction, isa_name: str, prefix: str, boscc: str | None):
    isa = get_isa(isa_name)
    if isinstance(f, LibmFunction):  # glibc's headers and flags, as mathlib's vector libm reads it
        from .source_tree import read_source

        mod = read_source(f.source, isa, f.read_flags)
    else:
        mod = read_file(str(f.source), f.source.read_text(), [str(d) for d in f.include_dirs])
    kw = {"boscc": boscc} if boscc is not None else {}
    res = expand_module(mod, isa, functions=[f.func], prefix=prefix, **kw)
    (e,) = res.functions
    return res.text, e


def prototype(text: str, vname: str) -> str:
    m = re.search(rf"^([^\n;{{}}#]*\b{re.escape(vname)}\s*\([^)]*\))\s*\{{", text, re.M)
    if not m:
        raise BuildError(f"no definition of {vname} in the expanded text")
    return " ".join(m.group(1).split())


def c_array(name: str, k: str, vals: list[int]) -> str:
    ct = "uint8_t" if int(k[1:]) == 8 else "uint32_t"
    w = 2 if ct == "uint8_t" else 8
    rows = []
    for i in range(0, len(vals), 8):
        rows.append("    " + ", ".join(f"0x{v:0{w}x}" for v in vals[i:i + 8]) + ",")
    return f"static const {ct} {name}[BENCH_N] = {{\n" + "\n".join(rows) + "\n};\n"


def build_program(f: CorpusFunction, isa_name: str, wd: Path, *, n: int, boscc: bool, sleef: bool,
                  seed: int = 1, jobs: int = 2, expandm: Path | None = None) -> Program:
    """Generate, expand and compile the benchmark program of ``f`` for ``isa_name`` in ``wd``
    (``expandm``: a directory of mathlib's vector libm, for the ``expandm`` series)."""
    wd.mkdir(parents=True, exist_ok=True)
    prog = Program(f.name, isa_name, None, [])
    try:
        _build(f, isa_name, wd, prog, n=n, boscc=boscc, sleef=sleef, seed=seed, jobs=jobs, expandm=expandm)
    except BuildError as exc:
        prog.error = str(exc)
        prog.exe = None
    except WrongEntryPoint:
        raise
    except Exception as exc:  # an expand diagnostic, or anything else: report it, keep going
        prog.error = f"{type(exc).__name__}: {getattr(exc, 'message', None) or exc}"
        prog.exe = None
    return prog


def _build(f: CorpusFunction, isa_name: str, wd: Path, prog: Program, *, n: int, boscc: bool, sleef: bool,
           seed: int, jobs: int, expandm: Path | None = None) -> None:
    isa = get_isa(isa_name)
    lanes = isa.lanes
    cflags = list(isa.cflags)
    incs = [f"-I{d}" for d in f.include_dirs] + [f"-I{f.source.resolve().parent}"]
    modes = [("vector", "_Exp_", "off" if boscc else None)] + (
        [("BOSCC", "_ExpB_", "auto"), ("BOSCC_all", "_ExpA_", "all")] if boscc else [])
    texts: dict[str, tuple[str, object]] = {}
    for series, prefix, mode in modes:
        texts[series] = expand_text(f, isa_name, prefix, mode)
        same = [o for o, op, _ in modes if o in texts and o != series
                and texts[o][0].replace(op, "_Exp_") == texts[series][0].replace(prefix, "_Exp_")]
        if same:
            prog.same_code[series] = same[0]
    e = texts["vector"][1]
    args = [Arg(p.name, lane_kind(p.type.target if isinstance(p.type, T.Pointer) else p.type),
                isinstance(p.type, T.Pointer)) for p in e.params]
    if any(p.shape not in (None, "", "varying") for p in e.params):
        raise BuildError("uniform/linear parameters are not benchmarked")
    ret_kind = None if isinstance(e.ret, T.Void) else lane_kind(e.ret)
    scalar = e.scalar_name
    spec = SPECS.get(f.name) or default_spec([p.type for p in e.params])
    prog.input_note = spec.note
    if len(spec.args) != len(args):
        raise BuildError(f"input spec of {f.name} has {len(spec.args)} arguments, the function {len(args)}")
    inputs = make_inputs(spec, [a.kind for a in args], n, seed)

    objs: list[str] = []

    steps: list = []  # independent compile steps, run concurrently once every source is written

    # what compiles the source, its companions and expand's output of it (glibc's headers and flags for a
    # LibmFunction; nothing more for the corpus, whose include dirs are in incs)
    src_flags = list(getattr(f, "src_flags", []))

    def cc(src: str, obj: str, flags: list[str], more: list[str] | None = None) -> str:
        def step() -> None:
            run(["gcc", *flags, *ALIGN_FLAGS, *cflags, *(more or []), *incs, "-c", src, "-o", obj], wd)
            if more:  # glibc's public aliases (expf, expf32) made local: libmvec's calls of scalar expf for
                # its special lanes stay libm's
                syms = run(["nm", "--defined-only", "-g", "-P", obj], wd).split("\n")
                public = [ln.split()[0] for ln in syms if ln.strip() and not ln.startswith("_")]
                if public:
                    run(["objcopy", *[f"--localize-symbol={x}" for x in public], obj], wd)

        steps.append(step)
        objs.append(obj)
        return obj

    # scalar original and the files it links with
    cc(str(f.source.resolve()), "scalar.o", SCALAR_FLAGS, src_flags)
    for j, lf in enumerate(f.link):
        cc(str(Path(lf).resolve()), f"link{j}_{Path(lf).stem}.o", SCALAR_FLAGS, src_flags)
    # expanded
    protos: dict[str, str] = {}
    for series, prefix, _ in modes:
        text, ee = texts[series]
        (wd / f"{series}.c").write_text(text)
        cc(f"{series}.c", f"{series}.o", VECTOR_FLAGS, src_flags)
        protos[series] = prototype(text, ee.vector_name)
    variants = ["scalar"] + [s for s, _, _ in modes]

    # GCC declare-simd clones: definition (wrapper including the source) and caller, two flag sets
    ptr_names = [a.name for a in args if a.pointer]
    clause = "notinbranch" + (f" linear({', '.join(ptr_names)})" if ptr_names else "")
    const = "" if ptr_names else " __attribute__((const))"
    rspell = "void" if ret_kind is None else scalar_ctype(ret_kind)
    decl_params = ", ".join(f"{scalar_ctype(a.kind)} {'*' if a.pointer else ''}{a.name}" for a in args)
    call_args = ", ".join(f"&bench_p{j}[i]" if a.pointer else f"bench_in{j}[i]" for j, a in enumerate(args))
    externs = "".join(f"extern {scalar_ctype(a.kind)} bench_{'p' if a.pointer else 'in'}{j}[];\n"
                      for j, a in enumerate(args))
    if ret_kind is not None:
        externs += f"extern {scalar_ctype(ret_kind)} bench_out[];\n"
    for series, extra in (("gcc", []), ("gcc_ntm", ["-fno-trapping-math"])):
        alias = f"{scalar}_{series}"
        (wd / f"{series}_def.c").write_text(
            f"/* GCC declare-simd clones of {scalar} ({f.source.name}); objcopy renames them {alias} */\n"
            f"#include <stdint.h>\n#pragma omp declare simd {clause}\n"
            f"extern {rspell} {scalar}({decl_params}){const};\n"
            f'#include "{f.source.resolve()}"\n')
        # Renamed after compiling (glibc sources #undef their own name): every global symbol S the
        # definition file defines (the function and its _ZGV clones) becomes S_<series>.
        def clone_def(series=series, extra=extra) -> None:
            run(["gcc", *GCC_FLAGS, *extra, *ALIGN_FLAGS, *cflags, *src_flags, *incs, "-c", f"{series}_def.c", "-o",
                 f"{series}_def0.o"], wd)
            syms = run(["nm", "--defined-only", "-g", "-P", f"{series}_def0.o"], wd).split("\n")
            renames = [f"--redefine-sym={s}={s}_{series}" for s in (ln.split()[0] for ln in syms if ln.strip())]
            run(["objcopy", *renames, f"{series}_def0.o", f"{series}_def.o"], wd)

        steps.append(clone_def)
        objs.append(f"{series}_def.o")
        store = f"bench_out[i] = {alias}({call_args});" if ret_kind else f"{alias}({call_args});"
        (wd / f"{series}_call.c").write_text(
            f"#include <stdint.h>\n#pragma omp declare simd {clause}\n"
            f"extern {rspell} {alias}({decl_params}){const};\n{externs}"
            f"void bench_{series}(int n)\n{{\n#pragma omp simd\n    for (int i = 0; i < n; i++)\n"
            f"        {store}\n}}\n")
        def clone_call(series=series, extra=extra, alias=alias) -> None:
            run(["gcc", *GCC_FLAGS, *extra, *ALIGN_FLAGS, *cflags, *incs, "-c", f"{series}_call.c", "-o",
                 f"{series}_call.o"], wd)
            dis = run(["objdump", "-dr", f"{series}_call.o"], wd)
            called = sorted(set(re.findall(rf"\b(_ZGV\w+?_{re.escape(alias)})\b", dis)))
            prog.clone_calls[series] = called
            if not called:
                prog.notes.append(f"{LABELS[series]}: the loop calls no _ZGV clone of {alias} (GCC kept a scalar loop)")

        steps.append(clone_call)
        objs.append(f"{series}_call.o")
        variants.append(series)

    # libmvec / SLEEF / instruction
    peer_decls: list[str] = []
    peer_fns: list[str] = []
    vt = isa.vtype("f32")
    value_args = [(j, a) for j, a in enumerate(args) if not a.pointer]
    archives: list[str] = []
    if expandm is not None and f.name in EXPANDM_FUNCTIONS and ret_kind is not None and not ptr_names:
        name = expandm_symbol(f.name, isa)
        peer_decls.append(f"extern {isa.vtype(ret_kind)} {name}({', '.join(isa.vtype(a.kind) for a in args)});\n")
        peer_fns.append(_gang_loop("expandm", name, value_args, isa, lanes, ret_kind))
        variants.append("expandm")
        prog.entries["expandm"] = (name, "exe")
        # libexpandm.a also defines libmvec's names (_ZGVdN8v_logf: GCC's vectorizer calls them); linked as
        # it is, it would answer the libmvec column's calls too. This program's copy keeps them local.
        own = wd / "libexpandm_own.a"
        steps.append(lambda own=own: run(["objcopy", "--wildcard", "--localize-symbol=_ZGV*",
                                          str(expandm / "lib" / "x86_64" / "libexpandm.a"), str(own)], wd))
        archives.append(str(own))
    if f.name in LIBMVEC and ret_kind == "f32" and isa.libmvec:
        name = libmvec_name(f.name, isa_name)
        peer_decls.append(f"extern {vt} {name}({', '.join([vt] * LIBMVEC[f.name][1])});\n")
        peer_fns.append(_gang_loop("libmvec", name, value_args, isa, lanes))
        variants.append("libmvec")
        prog.entries["libmvec"] = (name, "libmvec")
    if sleef and f.name in SLEEF and ret_kind == "f32" and isa.sleef_suffix:
        name = sleef_name(f.name, isa_name)
        kinds = SLEEF[f.name][2]
        peer_decls.append(f"extern {vt} {name}({', '.join(isa.vtype(k) for k in kinds)});\n")
        peer_fns.append(_gang_loop("sleef", name, value_args, isa, lanes))
        variants.append("sleef")
        prog.entries["sleef"] = (name, "libsleef")
    if f.name in INSTR_FUNCS:
        peer_decls.append(instr_helper(f.name, isa_name))
        peer_fns.append(_gang_loop("instr", f"instr_{f.name}", value_args, isa, lanes))
        variants.append("instr")

    # main.c
    misa = get_isa(isa_name)
    for a in args:
        (misa.mtype if a.pointer else misa.vtype)(a.kind)
        if not a.pointer:
            misa.loadu(a.kind, "p")
    if ret_kind:
        misa.storeu(ret_kind, "p", "v")
    w: list[str] = []
    w.append(f"/* mathlib.bench: {f.name} [{isa_name}, {lanes} lanes], N = {n} */\n")
    w.append("#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
             "#include <string.h>\n#include <time.h>\n")
    w.extend(f"#include {h}\n" for h in misa.headers)
    w.append(f"#define BENCH_N {n}\n#define NOIPA __attribute__((noinline, noipa))\n\n")
    w.append(misa.prelude())
    # arrays
    for j, a in enumerate(args):
        nm = f"bench_{'p' if a.pointer else 'in'}{j}"
        w.append(f"{scalar_ctype(a.kind)} {nm}[BENCH_N] __attribute__((aligned(64)));\n")
    if ret_kind:
        w.append(f"{scalar_ctype(ret_kind)} bench_out[BENCH_N] __attribute__((aligned(64)));\n")
    for s in SETS:
        for j, a in enumerate(args):
            w.append(c_array(f"data_{s}_{j}", a.kind, inputs[s][j]))
    # prototypes
    w.append(f"\nextern {rspell} {scalar}({decl_params});\n")
    for series in protos:
        w.append(f"extern {protos[series]};\n")
    w.append("void bench_gcc(int n);\nvoid bench_gcc_ntm(int n);\n")
    w.extend(peer_decls)
    # variant loops
    w.append("\nNOIPA static void bench_scalar(int n)\n{\n    for (int i = 0; i < n; i++)\n        "
             + (f"bench_out[i] = {scalar}({call_args});" if ret_kind else f"{scalar}({call_args});") + "\n}\n")
    for series, prefix, _ in modes:
        vname = texts[series][1].vector_name
        vargs = []
        for j, a in enumerate(args):
            if a.pointer:
                vargs.append(f"({misa.mtype(a.kind)} *)&bench_p{j}[i]")
            else:
                vargs.append(misa.loadu(a.kind, f"&bench_in{j}[i]"))
        call = f"{vname}({', '.join(vargs)})"
        body = (f"{misa.vtype(ret_kind)} r = {call};\n        {misa.storeu(ret_kind, '&bench_out[i]', 'r')};"
                if ret_kind else f"{call};")
        w.append(f"\nNOIPA static void bench_{series}(int n)\n{{\n    for (int i = 0; i < n; i += {lanes}) {{\n"
                 f"        {body}\n    }}\n}}\n")
    w.extend(peer_fns)
    # outputs to compare
    outs = ([("bench_out", ret_kind)] if ret_kind else []) + \
           [(f"bench_p{j}", a.kind) for j, a in enumerate(args) if a.pointer]
    w.append(_variant_table(variants, f.name, args))
    prog.entries["scalar"] = (scalar, "exe")
    for series, _, _ in modes:
        prog.entries[series] = (texts[series][1].vector_name, "exe")
    w.append(_MAIN_TEMPLATE.replace("@LOAD@", _load_code(args)).replace("@SAVE@", _save_code(outs))
             .replace("@CMP@", _cmp_code(outs)).replace("@NOUT@", str(max(len(outs), 1)))
             .replace("@ENTRIES@", entries_code(prog.entries)).replace("@WHERE@", WHERE_C))
    (wd / "main.c").write_text("".join(w))
    cc("main.c", "main.o", MAIN_FLAGS)
    if "libmvec" in variants:  # the anchor: the same inputs and loop, libmvec alone
        head = w[:w.index(f"\nextern {rspell} {scalar}({decl_params});\n")]
        a = [*head, *[d for d in peer_decls if libmvec_name(f.name, isa_name) in d],
             *[fn for fn in peer_fns if "bench_libmvec(" in fn],
             _variant_table(["libmvec"], f.name, args),
             _MAIN_TEMPLATE.replace("@LOAD@", _load_code(args)).replace("@SAVE@", _save_code(outs))
             .replace("@CMP@", _cmp_code(outs)).replace("@NOUT@", str(max(len(outs), 1)))
             .replace("@ENTRIES@", entries_code({"libmvec": prog.entries["libmvec"]})).replace("@WHERE@", WHERE_C)]
        (wd / "anchor.c").write_text("".join(a))
        steps.append(lambda: run(["gcc", *MAIN_FLAGS, *ALIGN_FLAGS, *cflags, "anchor.c", "-o", "anchor", "-lmvec",
                                  "-lm"], wd))
        prog.anchor_exe = wd / "anchor"
    objs += archives  # (after main.o, which calls into them)
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        for fut in [pool.submit(step) for step in steps]:
            fut.result()
    libs = (["-lsleef"] if "sleef" in variants else []) + (["-lmvec"] if "libmvec" in variants else [])
    libs += [f"-l{lib}" for lib in f.libs if lib != "m"] + ["-lm"]
    run(["gcc", *cflags, "-pie", *objs, "-o", "bench", *libs], wd)
    prog.exe = wd / "bench"
    prog.variants = variants
    if "instr" in variants:
        check_instruction(f.name, isa_name, run(["objdump", "-d", "--no-show-raw-insn", "--disassemble=bench_instr",
                                                 "bench"], wd))


#: The instruction the ``instr`` column stands for, per function (roundps, vroundps, vrndscaleps; the
#: bit operations); objdump must find one in ``bench_instr`` and no call.
INSTR_MNEMONIC = {"floorf": r"v?round|vrndscale", "ceilf": r"v?round|vrndscale", "truncf": r"v?round|vrndscale",
                  "roundf": r"v?round|vrndscale", "fabsf": r"v?andn?p|vpand|vpternlog",
                  "copysignf": r"v?andn?p|v?orp|vpand|vpor|vpternlog"}


def check_instruction(fn: str, isa: str, disassembly: str) -> None:
    """The ``instr`` column runs the instruction it names, inlined (no call): else WrongEntryPoint."""
    insns = [ln.split("\t", 1)[1] for ln in disassembly.splitlines() if "\t" in ln and ":" in ln.split("\t")[0]]
    if not insns:
        raise WrongEntryPoint(f"{fn} [{isa}]: objdump finds no bench_instr in the program")
    if any(i.startswith("call") for i in insns):
        raise WrongEntryPoint(f"{fn} [{isa}]: the instruction column calls a function: {insns}")
    if not any(re.match(INSTR_MNEMONIC[fn], i) for i in insns):
        raise WrongEntryPoint(f"{fn} [{isa}]: the instruction column has no {INSTR_MNEMONIC[fn]} instruction")


def check_entries(prog: Program, exe: Path, out: str) -> dict[str, str]:
    """Every column calls what it names: the ``entry`` lines ``exe`` printed (dladdr of each entry point)
    against ``prog.entries``; {series: object file}. Raises WrongEntryPoint otherwise."""
    seen = entry_lines(out)
    want = prog.entries if exe == prog.exe else {"libmvec": prog.entries["libmvec"]}
    where = {}
    for series, (sym, lib) in want.items():
        if series not in seen:
            raise WrongEntryPoint(f"{prog.function} [{prog.isa}]: {exe.name} did not say where {sym} lives")
        obj = seen[series][1]
        if not lives_in(obj, lib, exe):
            what = f"{exe.name} itself" if lib == "exe" else f"{lib}.so"
            raise WrongEntryPoint(f"the {LABELS[series]} column of {prog.function} [{prog.isa}] calls {sym} in"
                                  f" {obj}, not in {what}")
        where[series] = obj
    return where


def _gang_loop(series: str, fname: str, value_args: list[tuple[int, Arg]], isa, lanes: int,
               ret_kind: str = "f32") -> str:
    loads = ", ".join(isa.loadu(a.kind, f"&bench_in{j}[i]") for j, a in value_args)
    return (f"\nNOIPA static void bench_{series}(int n)\n{{\n    for (int i = 0; i < n; i += {lanes})\n"
            f"        {isa.storeu(ret_kind, '&bench_out[i]', f'{fname}({loads})')};\n}}\n")


def _load_code(args: list[Arg]) -> str:
    lines = []
    for j, a in enumerate(args):
        nm = f"bench_{'p' if a.pointer else 'in'}{j}"
        lines.append(f"    memcpy({nm}, s ? data_rare_{j} : data_common_{j}, sizeof {nm});\n")
    return "".join(lines)


def _save_code(outs: list[tuple[str, str]]) -> str:
    return "".join(f"    memcpy(ref{j}, {nm}, sizeof {nm});\n" for j, (nm, _) in enumerate(outs))


def _cmp_code(outs: list[tuple[str, str]]) -> str:
    lines = []
    for j, (nm, k) in enumerate(outs):
        size = int(k[1:]) // 8
        isf = 1 if k.startswith("f") else 0
        lines.append(f"    differ(ref{j}, {nm}, {size}, {isf}, domain, c);\n")
    return "".join(lines)


def _variant_table(variants: list[str], fn: str, args: list[Arg]) -> str:
    """C: the table ``V`` of the program's variants (name, loop, the bound and domain of its check:
    ``check_bound``) and ``BENCH_ARG0(i)``, the magnitude of element i's first argument the domain
    is about (0 when it is no float value)."""
    arg0 = ("__builtin_fabs((double)bench_in0[i])" if args and args[0].kind == "f32" and not args[0].pointer
            else "0.0")
    rows = []
    for v in variants:
        bound, dom = check_bound(v, fn)
        rows.append(f'    {{"{v}", bench_{v}, {bound}, {"__builtin_inf()" if dom == math.inf else repr(dom)}}},\n')
    return ("\ntypedef void (*bench_fn)(int);\n"
            "static const struct { const char *name; bench_fn fn; int bound; double domain; } V[] = {\n"
            + "".join(rows) + "};\n#define NV (int)(sizeof V / sizeof V[0])\n"
            f"#define BENCH_ARG0(i) {arg0}\n\n")


_MAIN_TEMPLATE = r"""
static unsigned char ref0[BENCH_N * 8], ref1[BENCH_N * 8], ref2[BENCH_N * 8], ref3[BENCH_N * 8];

@WHERE@static double now_ns(void)
{
    /* this thread's CPU time: time slices other processes take on a busy machine do not count */
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* a column's outputs against the scalar ones: elements whose bits differ (any NaN matches any NaN), of
   those the ones whose first argument lies outside the column's domain, and the largest distance in
   ULP of the others (the two zeros equal; a NaN against a number, or differing integers: 2^40) */
struct check { long bad, outside; long long maxulp; };

static long long ulps(uint32_t x, uint32_t y)
{
    int xn = (x & 0x7fffffffu) > 0x7f800000u, yn = (y & 0x7fffffffu) > 0x7f800000u;
    if (xn || yn) return xn && yn ? 0 : 1LL << 40;
    long long a = (x >> 31) ? -(long long)(x & 0x7fffffffu) : (long long)x;
    long long b = (y >> 31) ? -(long long)(y & 0x7fffffffu) : (long long)y;
    return a > b ? a - b : b - a;
}

static void differ(const void *a, const void *b, int size, int isf, double domain, struct check *c)
{
    for (int i = 0; i < BENCH_N; i++) {
        uint32_t x = 0, y = 0;
        memcpy(&x, (const char *)a + (size_t)i * size, size);
        memcpy(&y, (const char *)b + (size_t)i * size, size);
        if (x == y) continue;
        if (isf && (x & 0x7fffffffu) > 0x7f800000u && (y & 0x7fffffffu) > 0x7f800000u) continue;
        c->bad++;
        if (BENCH_ARG0(i) > domain) { /* (a NaN argument is in every domain) */
            c->outside++;
            continue;
        }
        long long d = isf && size == 4 ? ulps(x, y) : 1LL << 40;
        if (d > c->maxulp) c->maxulp = d;
    }
}

static void load(int s)
{
@LOAD@}

static void save(void)
{
@SAVE@}

static void compare(struct check *c, double domain)
{
@CMP@}

/* a column passes its check: bound -1 reports only, 0 wants the same bits, else at most bound ULP */
static int passes(int v, const struct check *c)
{
    return V[v].bound < 0 || (V[v].bound == 0 ? c->bad == 0 : c->maxulp <= V[v].bound);
}

static double time_reps(bench_fn fn, long reps)
{
    double t0 = now_ns();
    for (long k = 0; k < reps; k++) {
        fn(BENCH_N);
        __asm__ volatile("" ::: "memory");
    }
    return now_ns() - t0;
}

int main(int argc, char **argv)
{
    if (argc > 3 && !strcmp(argv[1], "count")) {
        /* count VARIANT SET: one call of the variant's loop between two int3, for mathlib/icount.py's
           tracer (its first call, before: lazy binding and first touches are not counted) */
        int s = atoi(argv[3]);
        for (int v = 0; v < NV; v++)
            if (!strcmp(V[v].name, argv[2])) {
                load(s);
                V[v].fn(BENCH_N);
                load(s);
                __asm__ volatile("int3" ::: "memory");
                V[v].fn(BENCH_N);
                __asm__ volatile("int3" ::: "memory");
                return 0;
            }
        fprintf(stderr, "no variant %s\n", argv[2]);
        return 2;
    }
    int rounds = argc > 1 ? atoi(argv[1]) : 11;
    double target = (argc > 2 ? atof(argv[2]) : 3.0) * 1e6; /* ns per variant and round */
    int only = argc > 3 ? atoi(argv[3]) : -1;                 /* one set only (0 common, 1 rare) */
    static double samples[64][256];
    long reps[64], bad[64];
    int ok[64];
    if (rounds > 256) rounds = 256;
@ENTRIES@    for (int s = 0; s < 2; s++) {
        if (only >= 0 && s != only) continue;
        /* outputs: every variant against the scalar one (pointer outputs restart from the inputs); a
           variant that fails its check is not timed */
        load(s);
        V[0].fn(BENCH_N);
        save();
        for (int v = 0; v < NV; v++) {
            struct check c = {0, 0, 0};
            load(s);
            V[v].fn(BENCH_N);
            compare(&c, V[v].domain);
            bad[v] = c.bad;
            ok[v] = passes(v, &c);
            printf("check %s %s %ld %lld %ld %d %d\n", s ? "rare" : "common", V[v].name, c.bad, c.maxulp, c.outside,
                   V[v].bound, ok[v]);
        }
        load(s);
        /* calibration: reps so that one round of a variant takes >= target */
        for (int v = 0; v < NV; v++) {
            if (!ok[v]) continue;
            time_reps(V[v].fn, 1);
            double t = time_reps(V[v].fn, 1);
            long r = t > 0 ? (long)(target / t) + 1 : 1000;
            t = time_reps(V[v].fn, r);
            reps[v] = t > 0 ? (long)(r * target / t) + 1 : r;
            if (reps[v] < 1) reps[v] = 1;
        }
        for (int r = 0; r < rounds; r++)
            for (int j = 0; j < NV; j++) {
                int v = (j + r) % NV;
                if (ok[v]) samples[v][r] = time_reps(V[v].fn, reps[v]) / ((double)reps[v] * BENCH_N);
            }
        for (int v = 0; v < NV; v++) {
            if (!ok[v]) continue;
            printf("%s %s %ld %ld", s ? "rare" : "common", V[v].name, reps[v], bad[v]);
            for (int r = 0; r < rounds; r++) printf(" %.6f", samples[v][r]);
            printf("\n");
        }
        fflush(stdout);
    }
    return 0;
}
"""


def run_program(prog: Program, rounds: int, min_ms: float, procs: int = 6) -> dict[str, dict[str, dict]]:
    """Run one program ``procs`` times, ``rounds`` rounds spread over the runs; {set: {variant: {...}}}.

    The median is over the samples of every run: a state that slows one variant for a whole process
    (seen here: a GCC clone at 50x its usual time in about one process of four, never reproduced
    alone) then moves no median, and the per-run medians in the JSON show it (``unstable``). Six
    runs of two rounds, not three of four: on this VM the speed of two variants with the same code
    on the common path differs from one process to the next (SSE4.1 chroma, auto against all:
    0.95 to 1.02 with three runs, 0.97 to 0.98 with six). Every run is pinned to the same CPU (the
    last one this process may use). Each run first checks where every column's entry point lives
    (``check_entries``). With an anchor program (libmvec alone), each run of the program is followed
    by a run of the anchor: its result is ``acc["anchor"]`` ({set: {"libmvec": {...}}})."""
    assert prog.exe is not None
    cpu = max(os.sched_getaffinity(0))  # one CPU for every run: no migration in the middle of a round
    procs = max(1, min(procs, rounds))
    per = [rounds // procs + (1 if k < rounds % procs else 0) for k in range(procs)]
    exes = [prog.exe] + ([prog.anchor_exe] if prog.anchor_exe is not None else [])
    accs: list[dict[str, dict[str, dict]]] = [{s: {} for s in SETS} for _ in exes]
    for r in per:
        for exe, acc in zip(exes, accs):
            p = subprocess.run([str(exe), str(r), str(min_ms)], capture_output=True, text=True, timeout=600,
                               preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
            if p.returncode != 0:
                raise RuntimeError(f"{exe} exited {p.returncode}: {p.stderr[-2000:]}")
            prog.where = check_entries(prog, exe, p.stdout) if exe == prog.exe else prog.where
            if exe != prog.exe:
                prog.where["anchor"] = check_entries(prog, exe, p.stdout)["libmvec"]
            _collect(acc, p.stdout)
    acc = accs[0]
    for a in accs:
        _summarize(a)
    if len(accs) > 1:
        acc["anchor"] = accs[1]
    return acc


def _collect(acc: dict[str, dict[str, dict]], stdout: str) -> None:
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 8 and parts[0] == "check" and parts[1] in SETS:
            # check SET VARIANT BAD MAXULP OUTSIDE BOUND OK: its outputs against the scalar ones (the same in
            # every run: the worst is kept)
            s, v = parts[1], parts[2]
            bad, maxulp, outside, bound, ok = (int(x) for x in parts[3:])
            c = acc.setdefault("checks", {}).setdefault(s, {}).setdefault(
                v, {"bad": 0, "max_ulp": 0, "outside": 0, "bound": bound, "ok": True})
            c["bad"], c["max_ulp"] = max(c["bad"], bad), max(c["max_ulp"], maxulp)
            c["outside"], c["ok"] = max(c["outside"], outside), c["ok"] and bool(ok)
            continue
        if len(parts) < 5 or parts[0] not in SETS:
            continue
        s, v, reps, bad = parts[0], parts[1], int(parts[2]), int(parts[3])
        xs = [float(x) for x in parts[4:]]
        d = acc[s].setdefault(v, {"samples": [], "reps": [], "run_medians": [], "mismatches": bad})
        d["samples"] += xs
        d["reps"].append(reps)
        d["run_medians"].append(statistics.median(xs))
        d["mismatches"] = max(d["mismatches"], bad)


def _summarize(acc: dict[str, dict[str, dict]]) -> None:
    for s in SETS:
        for v, d in acc[s].items():
            d["ns_per_element"] = statistics.median(d["samples"])
            meds = d["run_medians"]
            d["unstable"] = len(meds) > 1 and max(meds) > 1.5 * min(meds)
        base = acc[s].get("scalar", {}).get("ns_per_element")
        for v, d in acc[s].items():
            d["speedup"] = base / d["ns_per_element"] if base and d["ns_per_element"] > 0 else None
        if "BOSCC" in acc[s]:
            acc[s]["BOSCC"]["paired"] = {o: paired_speed(acc[s]["BOSCC"], acc[s][o])
                                         for o in ("vector", "BOSCC_all") if o in acc[s]}


# ------------------------------------------------------------------------------------------------
# Reports


#: Issue 5's acceptance: auto at least as fast as off on these, and never 3% slower than the better
#: of off and all on a corpus function.
BOSCC_MUST_NOT_LOSE = ("logf", "powf", "floorf", "scalbnf", "roundf")
BOSCC_TOLERANCE = 0.97


#: The libmvec column must be within this of the program that calls libmvec alone (issue 23).
ANCHOR_TOLERANCE = 0.15


def checks_section(data: dict) -> list[str]:
    """The peers' checks against scalar glibc: the largest ULP distance against the bound; failures."""
    meta = data["meta"]
    rows = []
    for isa in meta["isas"]:
        for fn in meta["functions"]:
            checks = data["results"].get(isa, {}).get(fn, {}).get("checks", {})
            for set_name in SETS:
                for v, c in checks.get(set_name, {}).items():
                    if c["bound"] <= 0 and c["ok"]:
                        continue  # bit-exact or report-only, and passed: the "*" list says the rest
                    far = "NaN/number" if c["max_ulp"] >= 1 << 40 else str(c["max_ulp"])
                    rows.append(f"| {isa} | {fn} | {set_name} | {LABELS[v]} | {c['bad']} | {far} |"
                                f" {c['bound'] if c['bound'] > 0 else 'same bits'} | {c['outside']} |"
                                f" {'ok' if c['ok'] else '**failed: not timed**'} |\n")
    if not rows:
        return []
    return ["\n## Checks of libmvec and SLEEF against scalar glibc (before timing)\n\n"
            f"Elements that differ, the largest distance in ULP, and the bound: the peer's documented error"
            f" (libmvec {LIBMVEC_ULP} ULP, SLEEF u10 {SLEEF_U10_ULP} ULP) plus glibc's own ({GLIBC_ULP}); SLEEF's"
            " sinf/cosf u10 only where |x| <= 1e28 (elements outside their domain are counted, not checked). A"
            " column over its bound is not timed. expand's columns must give the same bits (any NaN matching any"
            " NaN).\n\n"
            "| ISA | function | inputs | column | differ | max ULP | bound | outside domain | |\n"
            "|---|---|---|---|---:|---:|---:|---:|---|\n", *rows]


#: The libm table's columns: (series, heading).
LIBM_COLUMNS = [("scalar", "scalar glibc"), ("BOSCC", "expand"), ("expandm", "mathlib libm"), ("libmvec", "libmvec"),
                ("sleef", "SLEEF u10")]


def libm_section(data: dict) -> list[str]:
    """Issue 19's vector libm table: per function with a libmvec or SLEEF u10 column and ISA, ns and
    instructions per element of scalar glibc, expand's output (BOSCC auto, the default), the same code
    as mathlib's library call, libmvec and SLEEF."""
    meta = data["meta"]
    fns = [fn for fn in meta["functions"] if fn in LIBMVEC or (fn in SLEEF and SLEEF[fn][1] == "_u10")]
    out = []
    for set_name in SETS:
        rows = []
        for fn in fns:
            for isa in meta["isas"]:
                r = data["results"].get(isa, {}).get(fn)
                if not r or "error" in r:
                    continue
                c = r[set_name]
                ns = [fmt_ns(c[s]["ns_per_element"]) if s in c else "" for s, _ in LIBM_COLUMNS]
                ins = [f"{c[s]['instructions']:.1f}" if "instructions" in c.get(s, {}) else "" for s, _ in LIBM_COLUMNS]
                ours = c.get("BOSCC", c.get("vector"))
                ratio = [f"{ours['ns_per_element'] / c[p]['ns_per_element']:.2f}" if ours and p in c else ""
                         for p in ("libmvec", "sleef")]
                rows.append(f"| {fn} | {isa} | " + " | ".join(ns + ratio + ins) + " |\n")
        if not rows:
            continue
        what = "common range" if set_name == "common" else "rare branches"
        heads = [h for _, h in LIBM_COLUMNS]
        out += [f"\n## Vector libm: ns and instructions per element, {what}\n\n"
                "expand: expand's output of glibc's source (BOSCC auto, the default; bit-exact); mathlib libm: the"
                " same code called in the library (`_Exp_<f>_<isa>`); expand / peer: expand's ns over the peer's"
                " (> 1: slower). Instructions: one call of the column's loop over the array, counted exactly"
                " (mathlib/icount.py), divided by the elements (loop and call included).\n\n",
                "| function | ISA | " + " | ".join(f"{h} ns" for h in heads) + " | expand / libmvec | expand / SLEEF | "
                + " | ".join(f"{h} instr" for h in heads) + " |\n",
                "|---|---|" + "---:|" * (2 * len(heads) + 2) + "\n", *rows]
    return out


def instructions_section(data: dict) -> list[str]:
    """Instructions per element of every column (common range / rare set), with ``--instructions``."""
    meta = data["meta"]
    out = []
    for isa in meta["isas"]:
        res = data["results"].get(isa, {})
        series = [s for s in SERIES if any("instructions" in res.get(fn, {}).get("common", {}).get(s, {})
                                          for fn in meta["functions"])]
        if not series:
            continue
        out += [f"\n## Instructions per element, {isa} (common range / rare set)\n\n",
                "| function | " + " | ".join(LABELS[s] for s in series) + " |\n",
                "|---|" + "---:|" * len(series) + "\n"]
        for fn in meta["functions"]:
            r = res.get(fn)
            if not r or "error" in r:
                continue
            cells = []
            for s in series:
                a, b = (r[k].get(s, {}).get("instructions") for k in SETS)
                cells.append(" / ".join("-" if x is None else f"{x:.1f}" for x in (a, b)))
            out.append(f"| {fn} | " + " | ".join(cells) + " |\n")
    return out


def anchor_section(data: dict) -> list[str]:
    """The libmvec column against a separate program that calls only libmvec (same inputs, same loop,
    nothing of ours linked), measured in the same run, each of its runs right after the benchmark's."""
    meta = data["meta"]
    rows = []
    for isa in meta["isas"]:
        for fn in meta["functions"]:
            r = data["results"].get(isa, {}).get(fn, {})
            if "anchor" not in r:
                continue
            for set_name in SETS:
                col = r[set_name]["libmvec"]["ns_per_element"]
                alone = r["anchor"][set_name]["libmvec"]["ns_per_element"]
                ok = abs(col / alone - 1) <= ANCHOR_TOLERANCE
                rows.append(f"| {isa} | {fn} | {set_name} | {fmt_ns(col)} | {fmt_ns(alone)} | {col / alone:.2f}"
                            f" | {'ok' if ok else '**off**'} |\n")
    if not rows:
        return []
    return [f"\n## The libmvec column against libmvec alone ({meta['cpu']})\n\n"
            "ns per element; \"alone\": a separate program with the same inputs and loop that links only"
            f" `-lmvec -lm`; ok within {ANCHOR_TOLERANCE:.0%}.\n\n"
            "| ISA | function | inputs | libmvec column | libmvec alone | ratio | |\n"
            "|---|---|---|---:|---:|---:|---|\n",
            *rows]


def where_section(data: dict) -> list[str]:
    """Where each column's entry point lived at run time (dladdr): the program or a shared library."""
    meta = data["meta"]
    found: dict[str, set[str]] = {}
    for isa in meta["isas"]:
        for fn in meta["functions"]:
            for series, obj in data["results"].get(isa, {}).get(fn, {}).get("where", {}).items():
                name = os.path.basename(obj)
                found.setdefault(series, set()).add("the benchmark program" if name == "bench" else name)
    if not found:
        return []
    out = ["\n## What each column called (dladdr at run time; the benchmark stops if a column calls another"
           " object than it names)\n\n"]
    for series in [*SERIES, "anchor"]:
        if series in found:
            label = "libmvec alone" if series == "anchor" else LABELS[series]
            out.append(f"- {label}: {', '.join(sorted(found[series]))}\n")
    out.append("- instruction: objdump finds the instruction in `bench_instr` and no call (checked at build time)\n"
               "- GCC clones: objdump finds the calls of the `_ZGV` clones in the loop (table above)\n")
    return out


def boscc_section(data: dict) -> list[str]:
    """BOSCC ``auto`` against ``off`` and ``all``, from the paired per-round ratios (common range)."""
    meta = data["meta"]
    out: list[str] = []
    for isa in meta["isas"]:
        rows = []
        for fn in meta["functions"]:
            r = data["results"].get(isa, {}).get(fn)
            d = r["common"].get("BOSCC") if r and "error" not in r else None
            if not d or set(d.get("paired", ())) != {"vector", "BOSCC_all"}:
                continue
            pv, pa = d["paired"]["vector"], d["paired"]["BOSCC_all"]
            same = r.get("same_code", {})
            code = ", ".join(f"{LABELS[k]} = {LABELS[v]}" for k, v in same.items())
            # the same C as off (or all) is as fast as it: the measured ratio is then the noise
            rep = {k: same.get(k, k) for k in ("vector", "BOSCC", "BOSCC_all")}  # first series with that C
            ev = 1.0 if rep["BOSCC"] == rep["vector"] else pv
            ea = 1.0 if rep["BOSCC"] == rep["BOSCC_all"] else pa
            ok = min(ev, ea) >= BOSCC_TOLERANCE and (fn not in BOSCC_MUST_NOT_LOSE or ev >= 1.0)
            rows.append(f"| {fn} | {pv:.3f} | {pa:.3f} | {code or '-'} | {'ok' if ok else '**slower**'} |\n")
        if rows:
            out.append(f"\n## BOSCC auto against off and all, {isa} (common range)\n\n"
                       "Speed of `auto` over each: the median over rounds of the other's time / auto's time in"
                       " the same round of the same process (> 1: auto is faster). `ok`: auto is at least"
                       f" {BOSCC_TOLERANCE:.2f} of the faster of off and all, and on"
                       f" {', '.join(BOSCC_MUST_NOT_LOSE)} not slower than off; the same C counts as equally fast (its"
                       " measured ratio is the noise of the machine).\n\n"
                       "| function | auto vs off | auto vs all | same C | |\n|---|---:|---:|---|---|\n")
            out.extend(rows)
    return out


def markdown(data: dict) -> str:
    meta = data["meta"]
    series = [s for s in SERIES if any(
        s in data["results"].get(i, {}).get(fn, {}).get("common", {})
        for i in meta["isas"] for fn in meta["functions"])]
    boscc_line = ('`expand_module(boscc="auto")` (BOSCC) vs `boscc="off"` (vector)' if meta["boscc"]
                  else "not available (expand_module has no boscc keyword yet): only the vector series")
    out = [f"# Speed of expanded functions (EXPAND Fig. 6 on x86)\n\n"
           f"- CPU: {meta['cpu']}; {meta['gcc']}; glibc {meta['glibc']}; SLEEF: {meta['sleef'] or 'not installed'}\n"
           f"- {meta['n']} elements per array (L1-resident), median of {meta['rounds']} interleaved rounds"
           f" (spread over {meta['runs']} runs of each program, each pinned to one CPU) of"
           f" >= {meta['min_ms']} ms of thread CPU time per variant; speedup = scalar ns / variant ns of the"
           f" same program run.\n"
           f"- BOSCC series: {boscc_line}.\n"
           f"- scalar: glibc source `{' '.join(SCALAR_FLAGS)}`; vector: expanded `{' '.join(VECTOR_FLAGS)}`;"
           f" GCC clones: `#pragma omp declare simd notinbranch` + `__attribute__((const))`, `{' '.join(GCC_FLAGS)}`"
           f" (and `-fno-trapping-math`); each with the ISA's flags (sse4.1: `-msse4.1`, avx2: `-mavx2 -mfma`, avx512:"
           f" `-mavx512f -mavx512bw -mavx512dq -mavx512vl`), and `{' '.join(ALIGN_FLAGS)}` so that code placement"
           f" does not decide between equal code.\n"
           f"- instruction: `roundps`/`vroundps`/`vrndscaleps` (roundf: trunc + exact half-away fix-up, 6 ops;"
           f" fabsf/copysignf: the and/andnot/or), inlined in the loop.\n"
           f"- mathlib libm: the vector libm `python -m mathlib.libm` builds from the same sources"
           f" (`_Exp_<f>_<isa>`, from libexpandm.a), called once per gang like libmvec and SLEEF.\n"
           f"- Run time: {meta['runtime_s']:.0f} s (build {meta['build_s']:.0f} s,"
           f" measure {meta['measure_s']:.0f} s).\n"]
    for set_name in SETS:
        what = "common range" if set_name == "common" else "rare branches (half of the elements special values)"
        for isa in meta["isas"]:
            out.append(f"\n## {isa} ({get_isa(isa).lanes} lanes), {what}; {meta['cpu']}\n\n")
            out.append("ns per element (speedup over scalar)\n\n")
            out.append("| function | " + " | ".join(LABELS[s] for s in series) + " |\n")
            out.append("|---|" + "---:|" * len(series) + "\n")
            for fn in meta["functions"]:
                r = data["results"].get(isa, {}).get(fn)
                if r is None or "error" in r:
                    out.append(f"| {fn} | " + " | ".join(["error"] * len(series)) + " |\n")
                    continue
                cells = []
                for s in series:
                    d = r[set_name].get(s)
                    chk = r.get("checks", {}).get(set_name, {}).get(s)
                    if d is None and chk and not chk["ok"]:
                        cells.append("**off**")  # failed its check: not timed (section "Checks")
                    elif d is None:
                        cells.append("n/a")
                    elif s == "scalar":
                        cells.append(fmt_ns(d["ns_per_element"]))
                    else:
                        mark = ("" if d["mismatches"] == 0 else "*") + ("†" if d.get("unstable") else "")
                        sp = d["speedup"]
                        cells.append(f"{fmt_ns(d['ns_per_element'])} ({sp:.2f}x){mark}")
                out.append(f"| {fn} | " + " | ".join(cells) + " |\n")
    out.append("\n`*`: some outputs differ from scalar glibc's (bit for bit, any NaN matching any NaN):\n\n")
    diffs = []
    for isa in meta["isas"]:
        for fn in meta["functions"]:
            r = data["results"].get(isa, {}).get(fn)
            if not r or "error" in r:
                continue
            for set_name in SETS:
                for s, d in r[set_name].items():
                    if d["mismatches"]:
                        diffs.append(f"- {isa} {fn} {LABELS[s]} ({set_name}): {d['mismatches']} of {meta['n']}\n")
    out.extend(diffs or ["- none\n"])
    unstable = []
    for isa in meta["isas"]:
        for fn in meta["functions"]:
            r = data["results"].get(isa, {}).get(fn)
            if not r or "error" in r:
                continue
            for set_name in SETS:
                for s, d in r[set_name].items():
                    if d.get("unstable"):
                        meds = ", ".join(fmt_ns(x) for x in d["run_medians"])
                        unstable.append(f"- {isa} {fn} {LABELS[s]} ({set_name}): medians of the runs {meds} ns\n")
    if unstable:
        out.append("\n`\u2020`: the runs of the program disagree by more than 1.5x"
                   " (the median of all rounds is shown):\n\n")
        out.extend(unstable)
    out.append("\n## GCC declare-simd clones called by the `#pragma omp simd` loop (objdump)\n\n")
    out.append("| function | " + " | ".join(meta["isas"]) + " |\n|---|" + "---|" * len(meta["isas"]) + "\n")
    for fn in meta["functions"]:
        cells = []
        for isa in meta["isas"]:
            r = data["results"].get(isa, {}).get(fn)
            if not r or "error" in r:
                cells.append("-")
                continue
            cc = r.get("clone_calls", {})
            names = sorted({m.group(0) for c in cc.get("gcc", []) if (m := re.match(r"_ZGV[a-z][MN]\d+[a-z0-9]*", c))})
            cells.append(", ".join(names) if names else "**none**")
        out.append(f"| {fn} | " + " | ".join(cells) + " |\n")
    out.extend(checks_section(data))
    out.extend(libm_section(data))
    out.extend(instructions_section(data))
    out.extend(anchor_section(data))
    out.extend(where_section(data))
    out.extend(boscc_section(data))
    slow = slower_than_peers(data)
    out.append(f"\n## Where the expanded code is slower than GCC clones or libmvec (common range, by"
               f" {SLOWER_THRESHOLD:.2f}x or more; the faster of vector and BOSCC)\n\n")
    out.extend([f"- {x}\n" for x in slow] or ["- nowhere\n"])
    inputs = data.get("inputs", {})
    if inputs:
        out.append("\n## Inputs (common | rare)\n\n")
        out.extend(f"- {fn}: {note}\n" for fn, note in inputs.items())
    notes = [f"- {isa} {fn}: {n}\n" for isa in meta["isas"] for fn in meta["functions"]
             for n in data["results"].get(isa, {}).get(fn, {}).get("notes", [])]
    errs = [f"- {isa} {fn}: {data['results'][isa][fn]['error'].splitlines()[0]}\n" for isa in meta["isas"]
            for fn in meta["functions"] if "error" in data["results"].get(isa, {}).get(fn, {})]
    if notes or errs:
        out.append("\n## Notes\n\n")
        out.extend(notes + errs)
    return "".join(out)


#: Slower by less than this is within what runs of one program disagree by here: not listed.
SLOWER_THRESHOLD = 1.10


def slower_than_peers(data: dict) -> list[str]:
    """Where the faster of vector/BOSCC is >= SLOWER_THRESHOLD times slower than GCC clones or libmvec
    (common range)."""
    out = []
    meta = data["meta"]
    for isa in meta["isas"]:
        for fn in meta["functions"]:
            r = data["results"].get(isa, {}).get(fn)
            if not r or "error" in r:
                continue
            c = r["common"]
            ours = min((c[s]["ns_per_element"], s) for s in ("vector", "BOSCC", "BOSCC_all") if s in c)
            for peer in ("gcc", "gcc_ntm", "libmvec"):
                if peer in c and c[peer]["ns_per_element"] * SLOWER_THRESHOLD <= ours[0]:
                    theirs = c[peer]["ns_per_element"]
                    out.append(f"{isa} {fn}: {LABELS[ours[1]]} {fmt_ns(ours[0])} ns vs {LABELS[peer]}"
                               f" {fmt_ns(theirs)} ns ({ours[0] / theirs:.2f}x slower)")
    return out


COLORS = {"vector": "#1f77b4", "BOSCC": "#ff7f0e", "BOSCC_all": "#ffbb78", "gcc": "#2ca02c", "gcc_ntm": "#98df8a",
          "expandm": "#17becf", "libmvec": "#d62728", "sleef": "#9467bd", "instr": "#7f7f7f"}


def plot(data: dict, path: Path, set_name: str = "common") -> bool:
    """Fig. 6-style grouped bars (one panel per ISA) into ``path``; False without matplotlib."""
    mpl = pyplot(path)
    if mpl is None:
        return False
    matplotlib, plt = mpl

    meta = data["meta"]
    isas = meta["isas"]
    fns = meta["functions"]
    series = [s for s in SERIES[1:] if any(
        s in data["results"].get(i, {}).get(fn, {}).get(set_name, {}) for i in isas for fn in fns)]
    fig, axes = plt.subplots(len(isas), 1, figsize=(max(10, 0.75 * len(fns) + 3), 3.6 * len(isas) + 1.2),
                             squeeze=False)
    width = 0.84 / max(len(series), 1)
    for ax, isa in zip(axes[:, 0], isas):
        top = low = 1.0
        for k, s in enumerate(series):
            xs, ys = [], []
            for i, fn in enumerate(fns):
                d = data["results"].get(isa, {}).get(fn, {}).get(set_name, {}).get(s)
                if d and d.get("speedup"):
                    xs.append(i - 0.42 + width * (k + 0.5))
                    ys.append(d["speedup"])
                    top, low = max(top, d["speedup"]), min(low, d["speedup"])
            ax.bar(xs, ys, width, label=LABELS[s], color=COLORS.get(s), edgecolor="black", linewidth=0.3)
        ax.set_yscale("log", base=2)
        ax.axhline(1.0, color="black", linewidth=0.8)
        lo, hi = min(1 / 8, low / 1.5), max(2.0, top * 1.6)
        ax.set_ylim(lo, hi)
        ax.set_yticks([2.0 ** k for k in range(math.floor(math.log2(lo)), math.ceil(math.log2(hi)) + 1)])
        ax.set_ylim(lo, hi)
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_xticks(range(len(fns)))
        ax.set_xticklabels(fns, rotation=30, ha="right")
        ax.set_xlim(-0.6, len(fns) - 0.4)
        ax.set_ylabel(f"speedup over scalar\n{isa} ({get_isa(isa).lanes} lanes)")
        ax.grid(axis="y", which="major", linewidth=0.3)
        groups = meta.get("groups", {})
        for i in range(1, len(fns)):
            if groups.get(fns[i]) != groups.get(fns[i - 1]):
                ax.axvline(i - 0.5, color="black", linewidth=0.8, linestyle="--", zorder=0)
            else:
                ax.axvline(i - 0.5, color="#dddddd", linewidth=0.5, zorder=0)
        if ax is axes[0, 0]:
            start = 0
            for i in range(1, len(fns) + 1):
                if i == len(fns) or groups.get(fns[i]) != groups.get(fns[start]):
                    name = {"glibc": "glibc 2.36 (EXPAND Table 1)", "paper": "EXPAND examples",
                            "libm": "glibc 2.36 libm", "loops": "loop kernels"}.get(groups.get(fns[start], ""), "")
                    ax.text((start + i - 1) / 2, 1.02, name, transform=ax.get_xaxis_transform(),
                            ha="center", va="bottom", fontsize=8)
                    start = i
    what = "common-range inputs" if set_name == "common" else "rare-branch inputs (half special values)"
    fig.suptitle(f"Speedup over scalar glibc, {meta['n']} floats in L1, {what}\n"
                 f"{meta['cpu']}; {meta['gcc']}", fontsize=10)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    ncol = min(len(series), 5)  # (all in one row ran off both edges of the figure)
    rows = -(-len(series) // ncol) if series else 1
    legend_h = 0.3 * rows / fig.get_figheight()  # the legend's share of the figure, in figure units
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, legend_h + 0.01, 1, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ------------------------------------------------------------------------------------------------
# Driver


def select(functions: list[str] | None) -> list[CorpusFunction]:
    """Corpus functions, LIBM_FUNCTIONS and loop kernels with only value parameters (in that order)."""
    loops = []
    for k in loop_kernels():
        text = k.source.read_text()
        m = re.search(rf"\b{re.escape(k.func)}\s*\(([^)]*)\)\s*\{{", text)
        if m and "*" not in m.group(1) and "[" not in m.group(1):
            loops.append(k)
    fns = corpus() + libm_functions([n for n in LIBM_FUNCTIONS if functions is None or n in functions]) + loops
    if functions:
        known = {f.name: f for f in fns}
        missing = [n for n in functions if n not in known]
        if missing:
            raise SystemExit(f"unknown function(s): {', '.join(missing)} (known: {', '.join(known)})")
        fns = [known[n] for n in functions]
    return fns


def bench(isas: list[str], functions: list[CorpusFunction], out: Path, *, rounds: int, min_ms: float,
          n: int, jobs: int, keep_build: Path | None, quick: bool, procs: int = 6, instructions: bool = False,
          log=print) -> dict:
    t0 = time.monotonic()
    boscc = has_boscc()
    sleef = ensure_sleef(install=not quick)
    build_root = keep_build or Path(tempfile.mkdtemp(prefix="expand-bench-"))
    build_root.mkdir(parents=True, exist_ok=True)
    tasks = [(f, i) for i in isas for f in functions]
    expandm = build_expandm(isas, functions, log)
    try:
        with ThreadPoolExecutor(max(1, jobs)) as pool:
            futs = [pool.submit(build_program, f, i, build_root / f"{f.name}-{i}", n=n, boscc=boscc, sleef=sleef,
                                jobs=jobs, expandm=expandm)
                    for f, i in tasks]
            progs = [fu.result() for fu in futs]
        t_build = time.monotonic() - t0
        log(f"built {sum(p.exe is not None for p in progs)}/{len(progs)} programs in {t_build:.0f} s")
        results: dict[str, dict[str, dict]] = {i: {} for i in isas}
        inputs: dict[str, str] = {}
        t1 = time.monotonic()
        for p in progs:  # one at a time: nothing else of ours runs while a program measures
            inputs[p.function] = p.input_note or inputs.get(p.function, "")
            if p.exe is None:
                results[p.isa][p.function] = {"error": p.error or "build failed", "notes": p.notes}
                log(f"{p.isa:7} {p.function:12} ERROR {(p.error or '').splitlines()[0] if p.error else ''}")
                continue
            try:
                r = run_program(p, rounds, min_ms, procs)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                results[p.isa][p.function] = {"error": str(exc), "notes": p.notes}
                log(f"{p.isa:7} {p.function:12} ERROR {exc}")
                continue
            if instructions:
                count_instructions(p, r, build_root, n, log)
            r2 = dict(r)
            r2["variants"] = p.variants
            r2["notes"] = p.notes
            r2["clone_calls"] = p.clone_calls
            r2["same_code"] = p.same_code
            r2["where"] = p.where
            results[p.isa][p.function] = r2
            c = r["common"]
            log(f"{p.isa:7} {p.function:12} scalar {c['scalar']['ns_per_element']:.3f} ns  " +
                "  ".join(f"{v} {c[v]['speedup']:.2f}x" for v in p.variants[1:] if v in c))
            if "anchor" in r:
                a = r["anchor"]["common"]["libmvec"]["ns_per_element"]
                log(f"{p.isa:7} {p.function:12} libmvec column {c['libmvec']['ns_per_element']:.3f} ns, libmvec alone"
                    f" {a:.3f} ns ({c['libmvec']['ns_per_element'] / a:.2f}x)")
        t_measure = time.monotonic() - t1
    finally:
        if keep_build is None:
            shutil.rmtree(build_root, ignore_errors=True)
    glibc = re.search(r"glibc-[\d.]+", str(functions[0].source)) if functions else None
    data = {
        "meta": {
            "cpu": cpu_model(), "gcc": gcc_version(), "glibc": glibc.group(0)[6:] if glibc else "?",
            "sleef": _sleef_version() if sleef else None, "isas": isas, "functions": [f.name for f in functions],
            "groups": {f.name: group_of(f) for f in functions},
            "n": n, "rounds": rounds, "runs": procs, "min_ms": min_ms, "boscc": boscc, "quick": quick,
            "instructions": instructions,
            "series": SERIES, "labels": LABELS, "sets": list(SETS),
            "date": time.strftime("%Y-%m-%d %H:%M:%S"), "runtime_s": time.monotonic() - t0,
            "build_s": t_build, "measure_s": t_measure, "python": platform.python_version(),
        },
        "results": results,
        "inputs": inputs,
    }
    data["slower_than_peers"] = slower_than_peers(data)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(data, indent=1) + "\n")
    plot(data, out / "bench.png", "common")
    plot(data, out / "bench_rare.png", "rare")
    data["meta"]["runtime_s"] = time.monotonic() - t0
    (out / "bench.md").write_text(markdown(data))
    (out / "bench.json").write_text(json.dumps(data, indent=1) + "\n")
    return data


def count_instructions(prog: Program, r: dict, build_root: Path, n: int, log=print) -> None:
    """``instructions`` (per element) of every timed variant and input set of ``prog``: one call of its loop
    over the ``n`` elements, counted by mathlib/icount.py's tracer (single steps under ptrace)."""
    tracer = icount.build_tracer(build_root / "icount")
    for k, set_name in enumerate(SETS):
        for v, d in r[set_name].items():
            try:
                c = icount.count(tracer, [str(prog.exe), "count", v, str(k)])
            except (icount.CountError, subprocess.TimeoutExpired) as exc:
                prog.notes.append(f"instructions of {LABELS[v]} ({set_name}) not counted: {exc}")
                continue
            d["instructions"] = c.instructions / n
    common = r["common"]
    log(f"{prog.isa:7} {prog.function:12} instructions per element: " + "  ".join(
        f"{v} {common[v]['instructions']:.1f}" for v in prog.variants if "instructions" in common.get(v, {})))


def build_expandm(isas: list[str], functions: list[CorpusFunction], log=print) -> Path | None:
    """mathlib's vector libm with the benchmarked functions it has, for ``isas`` (cached); None if it
    cannot be built (the ``expandm`` series is then left out, with the reason logged)."""
    names = [f.name for f in functions if f.name in EXPANDM_FUNCTIONS]
    if not names:
        return None
    try:
        from .libm import ensure
        return ensure(isas, names)
    except Exception as exc:  # a benchmark, not a test: report and go on without the series
        log(f"bench: mathlib's vector libm could not be built, no expandm series: {exc}")
        return None


def group_of(f: CorpusFunction) -> str:
    """glibc (EXPAND Table 1), libm (LIBM_FUNCTIONS), paper (mot, chroma) or loops (mathlib/loops)."""
    if f.source.parent.name == "loops":
        return "loops"
    if isinstance(f, LibmFunction):
        return "libm"
    return "glibc" if "glibc" in f.source.parts[-5:-3] or f.source.name.startswith(("s_", "e_")) else "paper"


def _sleef_version() -> str:
    try:
        p = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libsleef-dev"], capture_output=True, text=True)
        return p.stdout.strip() or "installed"
    except OSError:
        return "installed"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help=f"smoke run: {', '.join(QUICK_FUNCTIONS)} on one ISA, 3 short rounds, output to a temp dir")
    ap.add_argument("--isa", action="append", choices=X86_ISAS, help="ISAs (default: every one the host runs)")
    ap.add_argument("--functions", help="comma-separated subset of the functions")
    ap.add_argument("--out", type=Path, help=f"output directory (default {RESULTS_DIR}; with --quick a temp dir)")
    ap.add_argument("--rounds", type=int, help="rounds per variant, over all runs (default 12, quick 3)")
    ap.add_argument("--runs", type=int, help="runs (processes) of each program sharing the rounds (default 6, quick 1)")
    ap.add_argument("--min-ms", type=float, help="ms per variant and round (default 3, quick 0.05)")
    ap.add_argument("-n", type=int, default=N_DEFAULT, help=f"elements per array (default {N_DEFAULT})")
    ap.add_argument("--jobs", type=int, default=2, help="parallel builds (measurements always run one at a time)")
    ap.add_argument("--keep-build", type=Path, help="keep the generated C and programs in this directory")
    ap.add_argument("--instructions", action="store_true",
                    help="also count the instructions per element of every column (mathlib/icount.py: single steps"
                         " under ptrace, exact; about 2 s per column and input set here)")
    ap.add_argument("--from-json", type=Path, help="only rewrite bench.md and the PNGs from this bench.json")
    ap.add_argument("--kernels", nargs="?", const="all", metavar="K,...",
                    help="the kernel suite instead (mathlib/kbench.py: expand, the hand-written anchor, GCC -O3"
                         " -ffast-math and GCC's clones against scalar, per kernel and ISA): all kernels, or these")
    ap.add_argument("--doc", type=Path, help="with --kernels: also put the speed table between the"
                    " <!-- kernels --> markers of this file (docs/performance.md)")
    args = ap.parse_args(argv)
    if args.doc is not None and args.kernels is None:
        ap.error("--doc goes with --kernels")
    if args.from_json and args.kernels is not None:
        from .kbench import write

        out = args.out or args.from_json.parent
        write(json.loads(args.from_json.read_text()), out, args.doc)
        print(f"wrote {out / 'kernels.md'}, {out / 'kernels.png'}")
        return 0
    if args.from_json:
        data = json.loads(args.from_json.read_text())
        out = args.out or args.from_json.parent
        data["slower_than_peers"] = slower_than_peers(data)
        out.mkdir(parents=True, exist_ok=True)
        plot(data, out / "bench.png", "common")
        plot(data, out / "bench_rare.png", "rare")
        (out / "bench.md").write_text(markdown(data))
        (out / "bench.json").write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {out / 'bench.md'}, {out / 'bench.png'}, {out / 'bench_rare.png'}")
        return 0
    if args.n <= 0 or args.n % 16:
        ap.error("-n must be a positive multiple of 16")
    host = host_isas()
    if not host:
        print("bench: this host runs none of the x86 ISAs (sse4.1, avx2, avx512)", file=sys.stderr)
        return 2
    isas = args.isa or host
    skipped = [i for i in isas if i not in host]
    for i in skipped:
        print(f"bench: not measuring {i}: {why_not_here(i)}", file=sys.stderr)
    isas = [i for i in isas if i in host]
    if args.kernels is not None and isas:  # (every ISA asked for, also with --quick: the table is per ISA)
        from .kbench import main as kernels_main

        status = kernels_main(args, isas)
        return status or (EXIT_NOT_RUN if skipped else 0)
    if args.quick:
        isas = isas[-1:] if not args.isa else isas[:1]
    if not isas:
        return EXIT_NOT_RUN
    names = args.functions.split(",") if args.functions else (QUICK_FUNCTIONS if args.quick else None)
    functions = select(names)
    rounds = args.rounds or (3 if args.quick else 12)
    procs = args.runs or (1 if args.quick else 6)
    min_ms = args.min_ms if args.min_ms is not None else (0.05 if args.quick else 3.0)
    out = args.out or (Path(tempfile.mkdtemp(prefix="expand-bench-out-")) if args.quick else RESULTS_DIR)
    try:
        data = bench(isas, functions, out, rounds=rounds, min_ms=min_ms, n=args.n, jobs=args.jobs,
                     keep_build=args.keep_build, quick=args.quick, procs=procs, instructions=args.instructions)
    except WrongEntryPoint as exc:
        print(f"bench: error: {exc}: stopped (a column must call what it names)", file=sys.stderr)
        return 1
    print(f"wrote {out / 'bench.md'}, {out / 'bench.json'}, {out / 'bench.png'}"
          f" ({data['meta']['runtime_s']:.0f} s)")
    return EXIT_NOT_RUN if skipped else 0


if __name__ == "__main__":
    sys.exit(main())
