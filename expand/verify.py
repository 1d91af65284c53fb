"""The built-in differential test: a scalar C function against its vector expansion, bit for bit.

``verify`` writes a C harness that ``#include``s the generated vector file, feeds the same inputs
to the scalar function (one element at a time) and to the vector function (one gang of
``isa.lanes`` elements at a time) and compares every output lane by bit pattern (floats included:
NaN payloads and the sign of zero count). Inputs are an edge set per parameter type (embedded as
hex arrays) followed by random inputs drawn in C from a seeded splitmix64 generator.

With ``call_log=True`` the side effects of calls are compared too: the harness defines
``void vfy_log_record(int site, uint64_t bits)``, which the non-expandable functions that both
sides call (linked in with ``link_files``) use to record each call. For every input, the records
of the scalar run must equal the records of that input's lane in the vector run, in the same
order (see ``_LOG_CODE``).

Parameter shapes follow the vector function ABI (``#pragma omp declare simd uniform(..) linear(..)``),
see ``Param``: a varying value is a gang (``vtype``) and a varying pointer points to a gang in memory
(``mtype *``); a uniform value is one scalar shared by the gang's lanes (edge and random values drawn
per gang); a linear integer value is lane 0's value of a step-1 sequence (gang ``g`` gets
``g * lanes + OFFSET``, lane ``l``'s scalar call ``g * lanes + OFFSET + l``); a uniform pointer is the
start of one array shared by every call, ``inputs + 2 * OFFSET`` elements of random bits, separate but
identical for the scalar and the vector run and compared element by element after all calls. Each such
array ends exactly at a page boundary followed by an inaccessible page, and its first page follows
another inaccessible page, so a stray vector access past either end traps (reported as a crash with
its signal). The rest of the first page before element 0 (less than a page) is filled and compared
like the array, at negative indices: writes there are caught, reads are not trapped.
The scalar calls of a gang are made one after the other in lane order.

errno (and the globals ``verify(global_vars=...)`` names) is compared after the calls: each gang's
scalar calls and its vector call start with the same value (a pattern that differs per gang), and the
vector call must leave what the scalar calls, lanes in order, left (not in ULP mode, whose libraries
set no errno; ``verify(errno=...)`` says otherwise).
"""

from __future__ import annotations

import math
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from emit.host import why_not_here
from emit.isa import lane_kind, scalar_ctype
from expand.types import BASIC_TYPES, Array, CType, Float, Int, Pointer, Record, Void, strip_spelling

#: Most edge combinations tested when the cross product of several edge sets is larger.
EDGE_CAP = 300_000
#: Mismatches printed in detail (all are counted).
MAX_PRINTED = 10
# -fopenmp-simd: the sources may carry `#pragma omp declare simd` (parameter shapes), which -Wall
# would otherwise reject as unknown; it adds no runtime and keeps the scalar function itself.
COMPILE_FLAGS = ["-O2", "-Wall", "-Werror", "-ffp-contract=off", "-fopenmp-simd"]
COMPILE_TIMEOUT = 600
#: Seconds for the runs that probe single inputs (a crash's values, undefined behaviour).
RUN_TIMEOUT = 1800
#: Seconds the harness may run per function by default (``verify(timeout=...)``, ``--verify-timeout``):
#: past it, the harness stops and says which inputs it was running (verdict "timeout").
VERIFY_TIMEOUT = 600
#: Seconds to find the values of the inputs a timed-out run was in (a probe run of those inputs).
PROBE_TIMEOUT = 20
#: The default [LO, HI] of an integer parameter a loop's trip count depends on (expand/trip_inputs.py)
#: when no ``--range`` gives one: drawn from the whole ``int`` range, a count takes up to 2^31 trips
#: per input and a verification hours. -16..256 keeps negative and zero counts (the loop not entered),
#: every remainder modulo the widest gang (16 lanes) and lanes whose counts differ by hundreds, at a few
#: hundred trips per call. (Clipped to the parameter's type: 0..256 for an unsigned one.)
TRIP_BOUNDS = (-16, 256)
#: Parameter shapes (see ``Param``).
SHAPES = ("varying", "uniform", "linear")
#: Linear parameters start at OFFSET (lane 0 of gang 0); uniform arrays have OFFSET spare elements at each end.
OFFSET = 64


class IsaLike(Protocol):
    """What ``verify`` uses of an ISA table (see emit/isa.py)."""

    name: str
    lanes: int
    cflags: list[str]
    cc: list[str]
    run_prefix: list[str]

    def vtype(self, k: str) -> str: ...

    def mtype(self, k: str) -> str: ...

    def loadu(self, k: str, ptr: str) -> str: ...

    def storeu(self, k: str, ptr: str, v: str) -> str: ...


@dataclass
class Param:
    """A parameter of the scalar function: an Int/Float value, or a Pointer(Int|Float) in/out.

    ``shape`` is its shape in the vector function (the vector function ABI's clauses):

    - ``"varying"``: a value is a gang (``isa.vtype``), a pointer a ``isa.mtype *`` (a gang in memory).
    - ``"uniform"``: a value is the plain scalar type, one value for all lanes of a call; a pointer is
      the plain scalar pointer, the start of an array shared by all calls (see the module docstring).
    - ``"linear"`` (integer values only, step 1): the plain scalar type holding lane 0's value; lane
      ``l`` is that value + ``l``.
    """

    name: str
    type: CType
    shape: str = "varying"


@dataclass
class VerifyReport:
    """The outcome of one differential test."""

    ok: bool
    inputs: int
    edge_inputs: int
    random_inputs: int
    mismatches: int
    summary: str
    details: str
    harness_c: str
    workdir: Path | None = field(default=None)  # set when the temporary files were kept
    #: ULP mode (``verify(ulp_bound=...)``): the largest difference seen (None: not measured or not a
    #: number, e.g. a NaN against a number)
    max_ulp: int | None = field(default=None)
    #: Set when the code compiled and linked but this host cannot run it (emit/host.py): why. Then
    #: ``ok`` is False and nothing was compared: neither a mismatch nor a crash.
    not_run: str | None = field(default=None)
    #: ok, mismatch, not-run, build (something did not compile or link), crash (the harness or the
    #: vector code), scalar-crash (the scalar function crashed), scalar-ub (mismatches on inputs for
    #: which the scalar code has undefined behaviour)
    verdict: str = field(default="")


# ----------------------------------------------------------------------------- edge values


def _f32(x: float) -> int | None:
    try:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:
        return None


def _f64(x: float) -> int | None:
    try:
        return struct.unpack("<Q", struct.pack("<d", x))[0]
    except OverflowError:
        return None


def _float_edges(bits: int, constants: Iterable[int | float]) -> list[int]:
    if bits == 32:
        sign, mant_bits, emin, emax, to_bits = 1 << 31, 23, -126, 127, _f32
        nans = [0x7FC00000, 0x7FA00000, 0x7F800001, 0x7FFFFFFF, 0x7FC00001, 0x7FBFFFFF]
        ulp_range = range(-24, 33)
    else:
        sign, mant_bits, emin, emax, to_bits = 1 << 63, 52, -1022, 1023, _f64
        nans = [0x7FF8000000000000, 0x7FF4000000000000, 0x7FF0000000000001, 0x7FFFFFFFFFFFFFFF,
                0x7FF8000000000001, 0x7FF7FFFFFFFFFFFF]
        ulp_range = range(-53, 66)
    mask = (1 << bits) - 1
    inf = ((1 << (bits - 1 - mant_bits)) - 1) << mant_bits
    one = to_bits(1.0)
    assert one is not None
    pos: list[int] = [0, one, inf, *nans,
                      1, (1 << mant_bits) - 1,  # smallest and largest subnormal
                      1 << mant_bits, inf - 1]  # smallest and largest normal
    for e in range(emin - mant_bits, emax + 1):  # every power of two
        b = to_bits(math.ldexp(1.0, e))
        assert b is not None
        pos.append(b)
    for e in ulp_range:  # one ulp either side of powers of two around 1
        b = to_bits(math.ldexp(1.0, e))
        assert b is not None
        pos += [b - 1, b + 1]
    for n in range(9):  # halfway cases of rounding functions
        b = to_bits(n + 0.5)
        assert b is not None
        pos.append(b)
    for c in constants:
        vals: list[int | float] = [c]
        if isinstance(c, int) and not isinstance(c, bool):
            vals += [c - 1, c + 1]
            for d in (c - 1, c, c + 1):
                if 0 <= d <= mask:  # the float whose bit pattern is the constant
                    pos.append(d)
                if bits == 64 and 0 <= d < 1 << 32:  # high word compares (GET_HIGH_WORD)
                    pos += [d << 32, (d << 32) | 0xFFFFFFFF]
        for v in vals:
            try:
                b = to_bits(float(v))
            except OverflowError:  # an integer beyond the double range
                b = None
            if b is not None:
                pos += [b, b + 1] + ([b - 1] if b & ~sign & mask else [])
    out: list[int] = []
    for b in pos:
        b &= mask
        out += [b, b ^ sign]
    return _dedupe(out)


def _int_edges(t: Int, constants: Iterable[int | float]) -> list[int]:
    if t.is_bool:
        return [0, 1]
    vals = [0, 1, -1, t.min, t.max, t.min + 1, t.max - 1]
    for k in range(t.bits):
        p = 1 << k
        vals += [p, -p, p - 1, p + 1]
    for c in constants:
        if isinstance(c, bool) or not isinstance(c, int):
            if isinstance(c, float) and c.is_integer():
                c = int(c)
            else:
                continue
        if t.min <= c <= t.max or 0 <= c < 1 << t.bits:
            vals += [c - 1, c, c + 1]
    mask = (1 << t.bits) - 1
    return _dedupe(v & mask for v in vals if _in_range(t, v))


def _in_range(t: Int, v: int) -> bool:
    return t.min <= v <= t.max or 0 <= v < 1 << t.bits


def _dedupe(xs: Iterable[int]) -> list[int]:
    return list(dict.fromkeys(xs))


def edge_values(t: CType, constants: Iterable[int | float] = (), bounds: tuple[int, int] | None = None) -> list[int]:
    """The edge inputs of scalar type ``t`` as bit patterns (two's complement for ints); ``bounds``
    (an integer's LO, HI): only those in [LO, HI], with LO, LO + 1, HI - 1 and HI."""
    t = strip_spelling(t)
    consts = list(constants)
    if bounds is not None:
        assert isinstance(t, Int)
        lo, hi = bounds
        mask = (1 << t.bits) - 1
        signed = [(v - (1 << t.bits) if t.signed and v >> (t.bits - 1) else v) for v in _int_edges(t, consts)]
        inside = [v for v in signed if lo <= v <= hi] + [lo, min(lo + 1, hi), max(hi - 1, lo), hi]
        return _dedupe(v & mask for v in inside)
    if isinstance(t, Float):
        return _float_edges(t.bits, consts)
    if isinstance(t, Int):
        return _int_edges(t, consts)
    raise TypeError(f"no edge values for type {t}")


# ----------------------------------------------------------------------------- harness


def _spell(t: CType) -> str:
    """A spelling of ``t`` for the scalar prototype that stays ABI- and type-compatible."""
    if isinstance(t, Pointer):
        return f"{_spell(t.target)} *"
    if isinstance(t, (Int, Float)):
        if tuple(sorted(t.spelling.split())) in BASIC_TYPES:
            return t.spelling
        return strip_spelling(t).spelling
    if isinstance(t, Void):
        return "void"
    if isinstance(t, Record) and t.tag:
        return t.spelling
    raise TypeError(f"unsupported parameter type {t}")


def _differ(t: CType, s: str, v: str, nan_bits: bool) -> str:
    """C test that bit patterns ``s`` and ``v`` of type ``t`` differ (any two NaNs alike unless nan_bits)."""
    t = strip_spelling(t)
    if nan_bits or not isinstance(t, Float):
        return f"{s} != {v}"
    m, inf = (0x7FFFFFFF, 0x7F800000) if t.bits == 32 else (0x7FFFFFFFFFFFFFFF, 0x7FF0000000000000)
    return (f"({s} != {v} && !(({s} & 0x{m:x}ULL) > 0x{inf:x}ULL && ({v} & 0x{m:x}ULL) > 0x{inf:x}ULL))")


def _is_nan(t: CType, bits: str) -> str:
    """C expression: 1 if the bit pattern ``bits`` of float type ``t`` is a NaN."""
    m, inf = (0x7FFFFFFF, 0x7F800000) if strip_spelling(t).bits == 32 else (0x7FFFFFFFFFFFFFFF, 0x7FF0000000000000)
    return f"(({bits} & 0x{m:x}ULL) > 0x{inf:x}ULL)"


#: C of the ULP distance (``verify(ulp_bound=...)``): NaN matches NaN, an infinity only itself, +0 and
#: -0 are 1 apart; otherwise the number of floats (doubles) between the two values, counting zero once.
_ULP_CODE = r"""
__attribute__((unused)) static uint64_t vfy_ulp(int size, uint64_t a, uint64_t b) {
    uint64_t sign = size == 4 ? 0x80000000ULL : 0x8000000000000000ULL;
    uint64_t mag = sign - 1, inf = size == 4 ? 0x7f800000ULL : 0x7ff0000000000000ULL;
    int an = (a & mag) > inf, bn = (b & mag) > inf;
    if (an || bn) return an && bn ? 0 : UINT64_MAX;
    if (a == b) return 0;
    if ((a & mag) == inf || (b & mag) == inf) return UINT64_MAX;
    if ((a & mag) == 0 && (b & mag) == 0) return 1;
    int64_t oa = (a & sign) ? -(int64_t)(a & mag) : (int64_t)(a & mag);
    int64_t ob = (b & sign) ? -(int64_t)(b & mag) : (int64_t)(b & mag);
    return oa > ob ? (uint64_t)(oa - ob) : (uint64_t)(ob - oa);
}
static uint64_t vfy_maxulp;
/* the ULP distance of a and b, kept in vfy_maxulp when larger (UINT64_MAX: not comparable) */
__attribute__((unused)) static uint64_t vfy_ulp_seen(int size, uint64_t a, uint64_t b) {
    uint64_t d = vfy_ulp(size, a, b);
    if (d > vfy_maxulp) vfy_maxulp = d;
    return d;
}
"""


def _cls(t: CType) -> int:
    """Printing class of a lane type: 0 float, 1 signed int, 2 unsigned int."""
    if isinstance(t, Float):
        return 0
    assert isinstance(t, Int)
    return 1 if t.signed and not t.is_bool else 2


def _hex_array(name: str, vals: Sequence[int]) -> str:
    rows = [", ".join(f"0x{v:x}ULL" for v in vals[i:i + 8]) for i in range(0, len(vals), 8)]
    body = ",\n    ".join(rows) if rows else "0"
    return f"static const uint64_t {name}[] = {{\n    {body}\n}};\n"


def _rand_fn(i: int | str, t: CType, bounds: tuple[int, int] | None = None) -> str:
    """C function returning the bit pattern of one random value of type ``t`` (in [LO, HI] with ``bounds``)."""
    lines = [f"static uint64_t vfy_rand{i}(void) {{", "    uint64_t c = vfy_next(), v = vfy_next();"]
    if bounds is not None:
        assert isinstance(t, Int)
        lo, hi = bounds
        mask = (1 << t.bits) - 1
        lines += ["    (void)c;", f"    return (uint64_t)({lo}LL + (int64_t)(v % {hi - lo + 1}ULL)) & 0x{mask:x}ULL;"]
    elif isinstance(t, Float):
        mb, bias = (23, 127) if t.bits == 32 else (52, 1023)
        lines += [
            f"    if (c & 1) return v & 0x{(1 << t.bits) - 1:x}ULL;",
            "    /* sign * 2^uniform(-20,20) * mantissa */",
            (f"    return ((c >> 1) & 1) << {t.bits - 1}"
             f" | (uint64_t)({bias} - 20 + (int)((c >> 8) % 41)) << {mb} | (v & 0x{(1 << mb) - 1:x}ULL);"),
        ]
    else:
        assert isinstance(t, Int)
        if t.is_bool:
            lines.append("    return (c ^ v) & 1;")
        else:
            lo, hi = (max(t.min, -1000), min(t.max, 1000)) if t.signed else (0, min(t.max, 2000))
            mask = (1 << t.bits) - 1
            lines += [
                f"    if (c & 1) return v & 0x{mask:x}ULL;",
                f"    return (uint64_t)({lo}LL + (int64_t)(v % {hi - lo + 1}ULL)) & 0x{mask:x}ULL;",
            ]
    lines.append("}\n")
    return "\n".join(lines)


def _leaves(t: CType, path: str = "") -> list[tuple[str, CType]]:
    """The scalar parts of an element of a uniform array: (C accessor suffix, type); ``[("", t)]`` for
    an int or float, one per member (and array element) of a struct or union of them."""
    if isinstance(t, (Int, Float)):
        return [(path, t)]
    if isinstance(t, Array) and t.length:
        return [x for j in range(t.length) for x in _leaves(t.elem, f"{path}[{j}]")]
    if isinstance(t, Record) and t.complete and t.fields:
        fields = t.fields[:1] if t.is_union else t.fields  # (a union: its first member's bits)
        return [x for n, ft in fields for x in _leaves(ft, f"{path}.{n}")]
    raise TypeError(f"unsupported type {t}")


def _pointee_mask(t: CType) -> int:
    if isinstance(t, Int) and t.is_bool:
        return 1
    return (1 << (t.size() * 8)) - 1


@dataclass
class _Plan:
    edges: list[list[int]]  # per value parameter, padded
    mode: str  # 'none' | 'rotate' | 'product' | 'sample'
    n_edge: int
    n_random: int
    product: int = 0
    # Uniform value parameters (one value per gang): edges, 'none' | 'product' | 'sample', product size,
    # and how many gangs the varying edge plan takes (uniform combinations are the outer loop).
    uedges: list[list[int]] = field(default_factory=list)
    umode: str = "none"
    uproduct: int = 0
    vgangs: int = 1


def _plan(value_types: list[CType], lanes: int, constants: Sequence[int | float], n_random: int,
          uniform_types: Sequence[CType] = (), bounds: Sequence[tuple[int, int] | None] = (),
          ubounds: Sequence[tuple[int, int] | None] = ()) -> _Plan:
    """The inputs: ``value_types`` take a value per lane, ``uniform_types`` one per gang.

    The edge gangs run through the uniform edge combinations (their cross product, or a sample of it
    when larger than EDGE_CAP inputs) and, for each, through the varying edge plan's gangs.
    """
    plan = _plan_varying(value_types, lanes, constants, n_random, bounds)
    if not uniform_types:
        return plan
    ub = list(ubounds) or [None] * len(uniform_types)
    plan.uedges = [edge_values(t, constants, b) for t, b in zip(uniform_types, ub)]
    plan.uproduct = math.prod(len(e) for e in plan.uedges)
    plan.vgangs = max(1, plan.n_edge // lanes)
    if plan.uproduct * plan.vgangs * lanes <= EDGE_CAP:
        plan.umode, plan.n_edge = "product", plan.uproduct * plan.vgangs * lanes
    else:
        plan.umode, plan.n_edge = "sample", max(EDGE_CAP // lanes, plan.vgangs) * lanes
    return plan


def _plan_varying(value_types: list[CType], lanes: int, constants: Sequence[int | float], n_random: int,
                  bounds: Sequence[tuple[int, int] | None] = ()) -> _Plan:
    n_rand = -(-max(n_random, 0) // lanes) * lanes
    vb = list(bounds) or [None] * len(value_types)
    edges = [edge_values(t, constants, b) for t, b in zip(value_types, vb)]
    if not edges:
        return _Plan([], "none", 0, n_rand)
    if len(edges) == 1:
        e = edges[0]
        n = -(-len(e) // lanes) * lanes
        e = [e[i % len(e)] for i in range(n)]  # pad to a multiple of lanes, then rotate lanes times
        return _Plan([e], "rotate", lanes * n, n_rand)
    # Cross product; inner lists get odd lengths so every value meets every lane position.
    padded = [edges[0]] + [e + [e[0]] if len(e) % 2 == 0 else e for e in edges[1:]]
    prod = math.prod(len(e) for e in padded)
    if prod <= EDGE_CAP:
        return _Plan(padded, "product", -(-prod // lanes) * lanes, n_rand, prod)
    return _Plan(padded, "sample", EDGE_CAP // lanes * lanes, n_rand, prod)


#: Records of calls kept per gang in call-log mode (more is reported as a harness failure).
LOG_MAX = 1 << 16

# The call log. The vector code calls a non-expandable function once per active lane, lanes in
# increasing order, for each call site (and, in a loop, for each iteration). The vector records are
# attributed to lanes in vector order, each lane's scalar records taken in their order: a record of
# site s goes to the lowest lane whose next scalar record is of site s (without loops, where a site
# is reached at most once per scalar call, the vector records of s belong to the lanes whose scalar
# run recorded s, in lane order), and must have its value. In a loop the lanes reach a site in
# different iterations, so that lane order holds within each round of calls only: the records of
# the sites ``verify(call_log_loose=...)`` names (the sites in loops) go to the lowest lane whose next
# scalar record is that record, site and value, another such lane where the first choice leaves
# records no lane accounts for (a search over those choices). Every lane's records, taken in
# vector order, must then equal its scalar run's records: same calls, same arguments, same order.
# Where no attribution does, lanes are given records as before this search (a record to the lane
# that has had the fewest records of its site so far) to show the difference; a vector record no
# lane accounts for makes every lane of the gang differ.
_LOG_CODE = r"""
#define VFY_LOG_MAX %(max)dU
static int vfy_log_site[VFY_LOG_MAX];
static uint64_t vfy_log_val[VFY_LOG_MAX];
static int vfy_log_lane[VFY_LOG_MAX];
static unsigned vfy_log_n, vfy_log_lost;
static unsigned vfy_log_mark[VFY_L + 1];  /* lane l's scalar records: [mark[l], mark[l + 1]) */
static int vfy_log_bad[VFY_L];

void vfy_log_record(int site, uint64_t bits);
void vfy_log_record(int site, uint64_t bits) {
    if (vfy_log_n >= VFY_LOG_MAX) { vfy_log_lost = 1; return; }
    vfy_log_site[vfy_log_n] = site;
    vfy_log_val[vfy_log_n] = bits;
    vfy_log_n++;
}

static unsigned vfy_log_next[VFY_L];

/* The lowest lane from `from` on whose next scalar record may be vector record i, or -1. */
static int vfy_log_lane_for(unsigned i, int from) {
    int s = vfy_log_site[i], loose = vfy_log_loose(s);
    for (int l = from; l < VFY_L; l++) {
        unsigned j = vfy_log_next[l];
        if (j < vfy_log_mark[l + 1] && vfy_log_site[j] == s && (!loose || vfy_log_val[j] == vfy_log_val[i]))
            return l;
    }
    return -1;
}

/* Attribute records [vs, ve) so that every lane's are its scalar records (loose sites by value, with a
   bounded search over their choices); 1 if that works, values of the other sites compared into vfy_log_bad. */
static int vfy_log_attribute(unsigned vs, unsigned ve) {
    unsigned long budget = 20000000;  /* steps, forward and back */
    for (int l = 0; l < VFY_L; l++) vfy_log_next[l] = vfy_log_mark[l];
    unsigned i = vs;
    for (;;) {
        int l = -1, done = i == ve;
        if (done) {
            done = 1;
            for (int k = 0; k < VFY_L; k++) done &= vfy_log_next[k] == vfy_log_mark[k + 1];
            if (done) break;
        } else {
            l = vfy_log_lane_for(i, 0);
        }
        if (l >= 0) {
            if (budget-- == 0) return 0;
            vfy_log_lane[i] = l;
            vfy_log_next[l]++;
            i++;
            continue;
        }
        for (;;) {  /* back to the latest choice of a loose site that has another lane */
            if (i == vs || budget-- == 0) return 0;
            i--;
            int p = vfy_log_lane[i];
            vfy_log_next[p]--;
            if (!vfy_log_loose(vfy_log_site[i])) continue;
            l = vfy_log_lane_for(i, p + 1);
            if (l >= 0) {
                vfy_log_lane[i] = l;
                vfy_log_next[l]++;
                i++;
                break;
            }
        }
    }
    for (int l = 0; l < VFY_L; l++) vfy_log_next[l] = vfy_log_mark[l];
    for (unsigned k = vs; k < ve; k++) {
        int l = vfy_log_lane[k];
        if (vfy_log_val[vfy_log_next[l]++] != vfy_log_val[k]) vfy_log_bad[l] = 1;
    }
    return 1;
}

static void vfy_log_check(unsigned vs, unsigned ve) {
    for (int l = 0; l < VFY_L; l++) vfy_log_bad[l] = vfy_log_lost != 0;
    if (!vfy_log_lost && vfy_log_attribute(vs, ve)) return;
    for (int l = 0; l < VFY_L; l++) vfy_log_bad[l] = vfy_log_lost != 0;
    for (unsigned i = vs; i < ve; i++) {
        int s = vfy_log_site[i], lane = -1;
        unsigned best = 0;
        for (int l = 0; l < VFY_L; l++) {
            unsigned total = 0, used = 0;
            for (unsigned j = vfy_log_mark[l]; j < vfy_log_mark[l + 1]; j++) total += vfy_log_site[j] == s;
            for (unsigned j = vs; j < i; j++) used += vfy_log_lane[j] == l && vfy_log_site[j] == s;
            if (used < total && (lane < 0 || used < best)) { lane = l; best = used; }
        }
        vfy_log_lane[i] = lane;
        if (lane < 0)
            for (int l = 0; l < VFY_L; l++) vfy_log_bad[l] = 1;
    }
    for (int l = 0; l < VFY_L; l++) {
        unsigned j = vfy_log_mark[l];
        for (unsigned i = vs; i < ve; i++) {
            if (vfy_log_lane[i] != l) continue;
            if (j >= vfy_log_mark[l + 1] || vfy_log_site[j] != vfy_log_site[i] || vfy_log_val[j] != vfy_log_val[i])
                vfy_log_bad[l] = 1;
            j++;
        }
        if (j != vfy_log_mark[l + 1]) vfy_log_bad[l] = 1;
    }
}

static void vfy_log_show(int l, unsigned vs, unsigned ve) {
    printf("mismatch:   calls: DIFFER%%s scalar [", vfy_log_lost ? " (log overflow)" : "");
    for (unsigned j = vfy_log_mark[l]; j < vfy_log_mark[l + 1]; j++)
        printf("%%s%%d:0x%%llx", j > vfy_log_mark[l] ? " " : "", vfy_log_site[j], (unsigned long long)vfy_log_val[j]);
    printf("] vector [");
    int first = 1;
    for (unsigned i = vs; i < ve; i++) {
        if (vfy_log_lane[i] != l && vfy_log_lane[i] >= 0) continue;
        printf("%%s%%s%%d:0x%%llx", first ? "" : " ", vfy_log_lane[i] < 0 ? "?" : "", vfy_log_site[i],
               (unsigned long long)vfy_log_val[i]);
        first = 0;
    }
    printf("]\n");
}

"""


# errno (and globals the function assigns) after the calls: errno printed with its name.
_ERRNO_CODE = r"""
__attribute__((unused)) static void vfy_show_errno(uint64_t b, uint64_t before) {
    int e = (int)(uint32_t)b;
    const char *name = 0;
    switch (e) {
    case EDOM: name = "EDOM"; break;
    case ERANGE: name = "ERANGE"; break;
    case EINVAL: name = "EINVAL"; break;
    case ENOMEM: name = "ENOMEM"; break;
#ifdef EILSEQ
    case EILSEQ: name = "EILSEQ"; break;
#endif
    default: break;
    }
    printf("%d", e);
    if (b == before) printf(" (unchanged)");
    else if (name) printf(" (%s)", name);
}

"""


# Uniform pointer parameters: arrays between inaccessible pages, and a report of where a trap happened.
_GUARD_CODE = r"""#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif

/* An array of `bytes` bytes that ends exactly at a page boundary followed by an inaccessible page;
   its first page follows another inaccessible page. *slack: the bytes of that page before it. */
__attribute__((unused)) static void *vfy_guarded(size_t bytes, size_t *slack) {
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), data = (bytes + pg - 1) / pg * pg;
    unsigned char *m = mmap(NULL, data + 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m, pg, PROT_NONE) != 0 || mprotect(m + pg + data, pg, PROT_NONE) != 0) {
        perror("verify harness: mmap/mprotect");
        exit(2);
    }
    *slack = data - bytes;
    return m + pg + *slack;
}

/* Where the harness is: 0 elsewhere, 1 in a scalar call, 2 in the vector call, of gang vfy_at_gang.
   VFY_WHERE(w) keeps the (inlined) calls' memory accesses on their side of the change. */
#define VFY_WHERE(w) do { atomic_signal_fence(memory_order_seq_cst); vfy_where = (w); \
                          atomic_signal_fence(memory_order_seq_cst); } while (0)
static volatile sig_atomic_t vfy_where;
static volatile unsigned long long vfy_at_gang, vfy_at_input;

static void vfy_put(char *b, int *n, const char *s) {
    while (*s && *n < 200) b[(*n)++] = *s++;
}

static void vfy_put_u(char *b, int *n, unsigned long long v) {
    char d[24];
    int k = 0;
    do { d[k++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (k && *n < 200) b[(*n)++] = d[--k];
}

static void vfy_on_signal(int sig) {
    char b[256];
    int n = 0;
    unsigned long long g = vfy_at_gang;
    if (sig == SIGALRM) {  /* (the time limit: VFY_TIMEOUT) */
        vfy_put(b, &n, "verify harness: time limit reached");
    } else {
        vfy_put(b, &n, "verify harness: signal ");
        vfy_put_u(b, &n, (unsigned long long)sig);
    }
    vfy_put(b, &n, vfy_where == 1 ? " in a scalar call" : vfy_where == 2 ? " in the vector call" : " in the harness");
    if (vfy_where == 1) {
        vfy_put(b, &n, " (input ");
        vfy_put_u(b, &n, vfy_at_input);
        vfy_put(b, &n, ")");
    } else if (vfy_where) {
        vfy_put(b, &n, " (inputs ");
        vfy_put_u(b, &n, g * VFY_L);
        vfy_put(b, &n, "..");
        vfy_put_u(b, &n, g * VFY_L + VFY_L - 1);
        vfy_put(b, &n, ")");
    }
    vfy_put(b, &n, "\n");
    ssize_t r = write(2, b, (size_t)n);
    (void)r;
    signal(sig, SIG_DFL);
    raise(sig);
}

"""


def _harness(*, vector_file: str, scalar_name: str, vector_name: str, params: list[Param], ret: CType,
             isa: IsaLike, plan: _Plan, seed: int, call_log: bool = False, loose_sites: Sequence[int] = (),
             nan_bits: bool = True,
             ulp_bound: int | None = None, scalar_symbol: str | None = None,
             bounds: dict[str, tuple[int, int]] | None = None,
             observed: Sequence[tuple[str, CType]] = (), time_limit: int = 0) -> str:
    """The harness's C; ``time_limit`` (seconds, 0: none): it stops then (SIGALRM), saying where."""
    lanes = isa.lanes
    vals = [(i, p) for i, p in enumerate(params) if not isinstance(p.type, Pointer) and p.shape == "varying"]
    ptrs = [(i, p) for i, p in enumerate(params) if isinstance(p.type, Pointer) and p.shape == "varying"]
    # The other shapes (see Param): values set once per gang, values lane 0 + l, shared guarded arrays.
    uvals = [(i, p) for i, p in enumerate(params) if not isinstance(p.type, Pointer) and p.shape == "uniform"]
    lvals = [(i, p) for i, p in enumerate(params) if not isinstance(p.type, Pointer) and p.shape == "linear"]
    svals = sorted(uvals + lvals, key=lambda ip: ip[0])
    uptrs = [(i, p) for i, p in enumerate(params) if isinstance(p.type, Pointer) and p.shape == "uniform"]
    has_ret = not isinstance(ret, Void)
    total = plan.n_edge + plan.n_random
    out: list[str] = []
    w = out.append

    def show_inputs(indent: str) -> None:
        """C statements printing lane l's inputs (" x=0x... (1.5) *p=..."), in parameter order."""
        for i, p in sorted(vals + svals, key=lambda ip: ip[0]):
            w(f"{indent}printf(\" {p.name}=\"); vfy_show({_cls(p.type)}, {p.type.size()}, vfy_b_in{i}[l]);\n")
        for i, p in ptrs:
            assert isinstance(p.type, Pointer)
            tt = p.type.target
            w(f"{indent}printf(\" *{p.name}=\"); vfy_show({_cls(tt)}, {tt.size()}, vfy_b_init{i}[l]);\n")
    w(f"/* expand verify harness: {scalar_name} vs {vector_name} [{isa.name}, {lanes} lanes] */\n")
    w(f'#include "{vector_file}"\n')
    w("#include <errno.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n\n")
    w(f"#define VFY_L {lanes}\n#define VFY_NEDGE {plan.n_edge}ULL\n#define VFY_TOTAL {total}ULL\n\n")
    if svals or uptrs:
        w(f"#define VFY_OFFSET {OFFSET}ULL\n#define VFY_GV {plan.vgangs}ULL\n"
          "#define VFY_NARR (VFY_TOTAL + 2 * VFY_OFFSET)  /* elements of each uniform array */\n\n")
    w(_GUARD_CODE)  # (the guarded arrays of uniform pointers, and which call a signal interrupted)
    proto = ", ".join(_spell(p.type) for p in params) or "void"
    w(f"extern {_spell(ret)} vfy_scalar({proto}) __asm__(\"{scalar_symbol or scalar_name}\");\n\n")
    w("static uint64_t vfy_state;\n"
      "__attribute__((unused)) static uint64_t vfy_next(void) {  /* splitmix64 */\n"
      "    uint64_t z = (vfy_state += 0x9e3779b97f4a7c15ULL);\n"
      "    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;\n"
      "    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;\n"
      "    return z ^ (z >> 31);\n}\n\n")
    w("__attribute__((unused)) static uint64_t vfy_bits(const void *p, int size) {\n"
      "    uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;\n"
      "    switch (size) {\n"
      "    case 1: memcpy(&u8, p, 1); return u8;\n"
      "    case 2: memcpy(&u16, p, 2); return u16;\n"
      "    case 4: memcpy(&u32, p, 4); return u32;\n"
      "    default: memcpy(&u64, p, 8); return u64;\n    }\n}\n\n"
      "__attribute__((unused)) static void vfy_set(void *p, int size, uint64_t b) {\n"
      "    uint8_t u8 = (uint8_t)b; uint16_t u16 = (uint16_t)b; uint32_t u32 = (uint32_t)b;\n"
      "    switch (size) {\n"
      "    case 1: memcpy(p, &u8, 1); break;\n"
      "    case 2: memcpy(p, &u16, 2); break;\n"
      "    case 4: memcpy(p, &u32, 4); break;\n"
      "    default: memcpy(p, &b, 8); break;\n    }\n}\n\n"
      "/* cls: 0 float, 1 signed int, 2 unsigned int */\n"
      "__attribute__((unused)) static void vfy_show(int cls, int size, uint64_t b) {\n"
      "    if (cls == 0 && size == 4) { float f; uint32_t u = (uint32_t)b; memcpy(&f, &u, 4);"
      " printf(\"0x%08llx (%.9g)\", (unsigned long long)b, (double)f); }\n"
      "    else if (cls == 0) { double d; memcpy(&d, &b, 8);"
      " printf(\"0x%016llx (%.17g)\", (unsigned long long)b, d); }\n"
      "    else if (cls == 1) { int sh = 64 - 8 * size;"
      " long long s = (long long)(b << sh) >> sh;"
      " printf(\"0x%0*llx (%lld)\", 2 * size, (unsigned long long)b, s); }\n"
      "    else printf(\"0x%0*llx (%llu)\", 2 * size, (unsigned long long)b, (unsigned long long)b);\n"
      "}\n\n")
    if call_log:
        cases = "".join(f" case {s}:" for s in sorted(set(loose_sites)))
        w(f"static int vfy_log_loose(int s) {{\n    switch (s) {{{cases} return 1; default: return 0; }}\n}}\n"
          if cases else "static int vfy_log_loose(int s) { (void)s; return 0; }\n")
        w(_LOG_CODE % {"max": LOG_MAX})
    if observed:
        w(_ERRNO_CODE)
    if ulp_bound is not None:
        w(_ULP_CODE)
    bounds = bounds or {}
    for j, (i, p) in enumerate(vals):
        w(f"/* edge values of {p.name} ({p.type}) */\n")
        w(_hex_array(f"vfy_edge{i}", plan.edges[j]))
        w(f"#define VFY_NE{i} {len(plan.edges[j])}ULL\n")
        w(_rand_fn(i, strip_spelling(p.type), bounds.get(p.name)))
    for j, (i, p) in enumerate(uvals):
        w(f"/* edge values of uniform {p.name} ({p.type}) */\n")
        w(_hex_array(f"vfy_edge{i}", plan.uedges[j]))
        w(f"#define VFY_NE{i} {len(plan.uedges[j])}ULL\n")
        w(_rand_fn(i, strip_spelling(p.type), bounds.get(p.name)))
    for i, p in uptrs:
        assert isinstance(p.type, Pointer)
        w(f"/* contents of the array of uniform {p.name} ({p.type}) */\n")
        parts = _leaves(p.type.target)
        for n, (_, lt) in enumerate(parts):
            w(_rand_fn(i if len(parts) == 1 else f"{i}_{n}", strip_spelling(lt)))
    w("/* probe mode (arguments: input numbers): only the scalar calls of those inputs, each announced */\n"
      "static unsigned long long vfy_probe[64];\nstatic int vfy_nprobe;\n"
      "static int vfy_probing(unsigned long long k) {\n"
      "    for (int j = 0; j < vfy_nprobe; j++) if (vfy_probe[j] == k) return 1;\n    return 0;\n}\n\n")
    w("int main(int argc, char **argv) {\n")
    w("    for (int j = 1; j < argc && vfy_nprobe < 64; j++) vfy_probe[vfy_nprobe++] = strtoull(argv[j], 0, 10);\n")
    w("    unsigned long long vfy_mism = 0;\n")
    w(f"    vfy_state = 0x{seed & ((1 << 64) - 1):x}ULL;\n")
    # Per-lane arrays: scalar side spelled like the prototype, vector side in stdint names.
    for i, p in vals:
        k = lane_kind(p.type)
        w(f"    {_spell(p.type)} vfy_s_in{i}[VFY_L];\n    {scalar_ctype(k)} vfy_v_in{i}[VFY_L];\n")
        w(f"    uint64_t vfy_b_in{i}[VFY_L];\n")
    for i, p in ptrs:
        assert isinstance(p.type, Pointer)
        tt = p.type.target
        k = lane_kind(tt)
        w(f"    uint64_t vfy_b_init{i}[VFY_L], vfy_b_sout{i}[VFY_L], vfy_b_vout{i}[VFY_L];\n")
        w(f"    {scalar_ctype(k)} vfy_v_buf{i}[VFY_L];\n")
    if has_ret:
        rk = lane_kind(ret)
        w(f"    {scalar_ctype(rk)} vfy_vret[VFY_L];\n    uint64_t vfy_b_sret[VFY_L], vfy_b_vret[VFY_L];\n")
    for i, p in svals:
        w(f"    {_spell(p.type)} vfy_s_in{i}[VFY_L], vfy_v_u{i};\n    uint64_t vfy_b_in{i}[VFY_L];\n")
    for i, _ in uvals:
        w(f"    uint64_t vfy_ub{i} = 0;\n")
    w("    signal(SIGSEGV, vfy_on_signal); signal(SIGBUS, vfy_on_signal);"
      " signal(SIGFPE, vfy_on_signal); signal(SIGILL, vfy_on_signal);\n")
    if time_limit:
        w(f"    signal(SIGALRM, vfy_on_signal); alarm({time_limit}U);\n")
    for i, p in uptrs:
        assert isinstance(p.type, Pointer)
        tt, size = p.type.target, p.type.target.size()
        w(f"    size_t vfy_slack{i};\n")
        w(f"    {_spell(tt)} *vfy_su{i} = vfy_guarded(VFY_NARR * {size}, &vfy_slack{i});\n")
        w(f"    {_spell(tt)} *vfy_vu{i} = vfy_guarded(VFY_NARR * {size}, &vfy_slack{i});\n")
        parts = _leaves(tt)
        sets = " ".join(f"vfy_set(&vfy_su{i}[j]{path}, {lt.size()}, vfy_rand{i if len(parts) == 1 else f'{i}_{n}'}());"
                        for n, (path, lt) in enumerate(parts))
        w(f"    for (long long j = -(long long)(vfy_slack{i} / {size}); j < (long long)VFY_NARR; j++) {{ {sets} }}\n")
        w(f"    memcpy((char *)vfy_vu{i} - vfy_slack{i}, (char *)vfy_su{i} - vfy_slack{i},"
          f" vfy_slack{i} + VFY_NARR * {size});\n")
    w("    for (unsigned long long g = 0; g < VFY_TOTAL / VFY_L; g++) {\n")
    if uvals:
        w("        if (g * VFY_L < VFY_NEDGE) {\n")
        if plan.umode == "product":
            w(f"            unsigned long long q = (g / VFY_GV) % {plan.uproduct}ULL;\n")
            for i, _ in reversed(uvals):
                w(f"            vfy_ub{i} = vfy_edge{i}[q % VFY_NE{i}]; q /= VFY_NE{i};\n")
        else:  # deterministic sample of the uniform combinations
            for i, _ in uvals:
                w(f"            vfy_ub{i} = vfy_edge{i}[vfy_next() % VFY_NE{i}];\n")
        w("        } else {\n")
        for i, _ in uvals:
            w(f"            vfy_ub{i} = vfy_rand{i}();\n")
        w("        }\n")
    # --- inputs
    w("        for (int l = 0; l < VFY_L; l++) {\n")
    w("            unsigned long long k = g * VFY_L + l;\n")
    kv = "k"
    if uvals and vals and plan.mode in ("rotate", "product"):
        kv = "kv"  # the input's place in the varying edge plan
        w("            unsigned long long kv = (g % VFY_GV) * VFY_L + l;\n")
    if vals:
        w("            if (k < VFY_NEDGE) {\n")
        if plan.mode == "rotate":
            i = vals[0][0]
            w(f"                unsigned long long r = {kv} / VFY_NE{i}, j = {kv} % VFY_NE{i};\n")
            w(f"                vfy_b_in{i}[l] = vfy_edge{i}[(j + r) % VFY_NE{i}];\n")
        elif plan.mode == "product":
            w(f"                unsigned long long q = {kv} % {plan.product}ULL;\n")
            for i, _ in reversed(vals):
                w(f"                vfy_b_in{i}[l] = vfy_edge{i}[q % VFY_NE{i}]; q /= VFY_NE{i};\n")
        else:  # deterministic subsample of the cross product
            for i, _ in vals:
                w(f"                vfy_b_in{i}[l] = vfy_edge{i}[vfy_next() % VFY_NE{i}];\n")
        w("            } else {\n")
        for i, _ in vals:
            w(f"                vfy_b_in{i}[l] = vfy_rand{i}();\n")
        w("            }\n")
    else:
        w("            (void)k;\n")
    for i, p in vals:
        size = p.type.size()
        w(f"            vfy_set(&vfy_s_in{i}[l], {size}, vfy_b_in{i}[l]);"
          f" vfy_set(&vfy_v_in{i}[l], {size}, vfy_b_in{i}[l]);\n")
    for i, _ in uvals:
        w(f"            vfy_b_in{i}[l] = vfy_ub{i};\n")
    for i, p in lvals:
        w(f"            vfy_b_in{i}[l] = (VFY_OFFSET + k) & 0x{_pointee_mask(p.type):x}ULL;\n")
    for i, p in svals:
        w(f"            vfy_set(&vfy_s_in{i}[l], {p.type.size()}, vfy_b_in{i}[l]);\n")
    for i, p in ptrs:
        assert isinstance(p.type, Pointer)
        w(f"            vfy_b_init{i}[l] = vfy_next() & 0x{_pointee_mask(p.type.target):x}ULL;\n")
    w("        }\n")
    # --- scalar calls
    if call_log:
        w("        vfy_log_n = 0; vfy_log_lost = 0;\n")
    # Globals (errno): the same pattern before the scalar calls and before the vector call, compared after
    # them; a difference is reported on the last lane whose scalar call changed the global (else lane 0).
    # (errno is read and written as the int it is: GCC takes a libm call to change errno only through
    # int accesses, and would otherwise keep a value stored before the call across it)
    def set_obs(j: int, name: str, t: CType) -> str:
        return f"errno = (int)vfy_pat{j};" if name == "errno" else f"vfy_set(&{name}, {t.size()}, vfy_pat{j});"

    def get_obs(name: str, t: CType) -> str:
        return "(uint64_t)(uint32_t)errno" if name == "errno" else f"vfy_bits(&{name}, {t.size()})"

    for j, (name, t) in enumerate(observed):
        pat = ("(uint64_t)(100000 + g % 100000)" if name == "errno"
               else f"(0x9e3779b97f4a7c15ULL * (g + {j + 1})) & 0x{_pointee_mask(t):x}ULL")
        w(f"        uint64_t vfy_pat{j} = {pat}, vfy_was{j} = vfy_pat{j}, vfy_b_sg{j}, vfy_b_vg{j};\n")
        w(f"        int vfy_who{j} = 0;\n        {set_obs(j, name, t)}\n")
    w("        vfy_at_gang = g; VFY_WHERE(1);\n")
    w("        for (int l = 0; l < VFY_L; l++) {\n")
    w("            vfy_at_input = g * VFY_L + l;\n")
    w("            if (vfy_nprobe) {\n"
      "                if (!vfy_probing(vfy_at_input)) continue;\n"
      "                printf(\"vfy_input %llu:\", vfy_at_input);\n")
    show_inputs("                ")
    w("                printf(\"\\n\"); fflush(stdout);\n"
      "                fprintf(stderr, \"vfy_input %llu\\n\", vfy_at_input);\n            }\n")
    if call_log:
        w("            vfy_log_mark[l] = vfy_log_n;\n")
    args = []
    for i, p in enumerate(params):
        if isinstance(p.type, Pointer) and p.shape == "uniform":
            args.append(f"vfy_su{i}")
        elif isinstance(p.type, Pointer):
            tt = p.type.target
            w(f"            {_spell(tt)} vfy_p{i};\n")
            w(f"            vfy_set(&vfy_p{i}, {tt.size()}, vfy_b_init{i}[l]);\n")
            args.append(f"&vfy_p{i}")
        else:
            args.append(f"vfy_s_in{i}[l]")
    call = f"vfy_scalar({', '.join(args)})"
    if has_ret:
        w(f"            {_spell(ret)} vfy_r = {call};\n")
        w(f"            vfy_b_sret[l] = vfy_bits(&vfy_r, {ret.size()});\n")
    else:
        w(f"            {call};\n")
    for i, p in ptrs:
        assert isinstance(p.type, Pointer)
        w(f"            vfy_b_sout{i}[l] = vfy_bits(&vfy_p{i}, {p.type.target.size()});\n")
    for j, (name, t) in enumerate(observed):
        w(f"            if ({get_obs(name, t)} != vfy_was{j}) {{ vfy_who{j} = l; vfy_was{j} = {get_obs(name, t)}; }}\n")
    w("        }\n")
    for j, (name, t) in enumerate(observed):
        w(f"        vfy_b_sg{j} = {get_obs(name, t)};\n")
    w("        VFY_WHERE(0);\n        if (vfy_nprobe) continue;\n")
    # --- vector call
    if call_log:
        w("        vfy_log_mark[VFY_L] = vfy_log_n;\n        unsigned vfy_vs = vfy_log_n;\n")
    w("        VFY_WHERE(2);\n")
    w("        {\n")
    vargs = []
    for i, p in enumerate(params):
        if p.shape != "varying":  # plain scalar arguments: lane 0's value, or the array's start
            if isinstance(p.type, Pointer):
                vargs.append(f"vfy_vu{i}")
            else:
                w(f"            vfy_set(&vfy_v_u{i}, {p.type.size()}, vfy_b_in{i}[0]);\n")
                vargs.append(f"vfy_v_u{i}")
            continue
        if isinstance(p.type, Pointer):
            tt = p.type.target
            k = lane_kind(tt)
            mt = isa.mtype(k)
            w(f"            {mt} vfy_m{i};\n")
            w(f"            _Static_assert(sizeof(vfy_m{i}) >= VFY_L * sizeof(vfy_v_buf{i}[0]),"
              f" \"mtype({k}) too small\");\n")
            w(f"            memset(&vfy_m{i}, 0, sizeof vfy_m{i});\n")
            w(f"            for (int l = 0; l < VFY_L; l++) vfy_set(&vfy_v_buf{i}[l], {tt.size()},"
              f" vfy_b_init{i}[l]);\n")
            w(f"            memcpy(&vfy_m{i}, vfy_v_buf{i}, sizeof vfy_v_buf{i});\n")
            vargs.append(f"&vfy_m{i}")
        else:
            k = lane_kind(p.type)
            w(f"            {isa.vtype(k)} vfy_x{i} = {isa.loadu(k, f'vfy_v_in{i}')};\n")
            vargs.append(f"vfy_x{i}")
    vcall = f"{vector_name}({', '.join(vargs)})"
    for j, (name, t) in enumerate(observed):
        w(f"            {set_obs(j, name, t)}\n")
    if has_ret:
        rk = lane_kind(ret)
        w(f"            {isa.vtype(rk)} vfy_vr = {vcall};\n")
        w(f"            {isa.storeu(rk, 'vfy_vret', 'vfy_vr').strip().rstrip(';')};\n")
        w(f"            for (int l = 0; l < VFY_L; l++) vfy_b_vret[l] = vfy_bits(&vfy_vret[l], {ret.size()});\n")
    else:
        w(f"            {vcall};\n")
    for i, p in ptrs:
        assert isinstance(p.type, Pointer)
        w(f"            memcpy(vfy_v_buf{i}, &vfy_m{i}, sizeof vfy_v_buf{i});\n")
        w(f"            for (int l = 0; l < VFY_L; l++) vfy_b_vout{i}[l] = vfy_bits(&vfy_v_buf{i}[l],"
          f" {p.type.target.size()});\n")
    for j, (name, t) in enumerate(observed):
        w(f"            vfy_b_vg{j} = {get_obs(name, t)};\n")
    w("        }\n")
    w("        VFY_WHERE(0);\n")
    if call_log:
        w("        unsigned vfy_ve = vfy_log_n;\n        vfy_log_check(vfy_vs, vfy_ve);\n")
    # --- compare
    w("        for (int l = 0; l < VFY_L; l++) {\n")
    # With two or more NaN inputs, C (and IEEE 754) leave which input's payload a result carries to
    # the compiler, which reorders commutative operands freely: any NaN then matches any NaN.
    nan_tests = [_is_nan(p.type, f"vfy_b_in{i}[l]") for i, p in sorted(vals + svals, key=lambda ip: ip[0])
                 if isinstance(strip_spelling(p.type), Float)]
    relax = f"(({' + '.join(nan_tests)}) >= 2)" if len(nan_tests) >= 2 else "0"

    def differ(t: CType, s: str, v: str) -> str:
        if ulp_bound is not None and isinstance(strip_spelling(t), Float):  # ULP mode: the distance
            return f"(vfy_ulp_seen({strip_spelling(t).size()}, {s}, {v}) > {ulp_bound}ULL)"
        if relax == "0" or not nan_bits:
            return _differ(t, s, v, nan_bits)
        return f"({relax} ? ({_differ(t, s, v, False)}) : ({_differ(t, s, v, True)}))"

    diffs = []
    if has_ret:
        diffs.append(differ(ret, "vfy_b_sret[l]", "vfy_b_vret[l]"))
    diffs += [differ(p.type.target, f"vfy_b_sout{i}[l]", f"vfy_b_vout{i}[l]")
              for i, p in ptrs if isinstance(p.type, Pointer)]
    if call_log:
        diffs.append("vfy_log_bad[l]")
    diffs += [f"(l == vfy_who{j} && {differ(t, f'vfy_b_sg{j}', f'vfy_b_vg{j}')})" for j, (_, t) in enumerate(observed)]
    if ulp_bound is not None and len(diffs) > 1:  # every output's distance counts for the largest
        w(f"            int vfy_d[] = {{{', '.join(diffs)}}};\n")
        diffs = [" || ".join(f"vfy_d[{j}]" for j in range(len(diffs)))]
    w(f"            if (!({' || '.join(diffs) or '0'})) continue;\n")
    w(f"            if (vfy_mism++ >= {MAX_PRINTED}) continue;\n")
    w("            printf(\"mismatch: input %llu (%s) lane %d:\", g * VFY_L + l,"
      " g * VFY_L + l < VFY_NEDGE ? \"edge\" : \"random\", l);\n")
    show_inputs("            ")
    w("            printf(\"\\n\");\n")
    outs: list[tuple[str, CType, str, str]] = []
    if has_ret:
        outs.append(("return", ret, "vfy_b_sret", "vfy_b_vret"))
    for i, p in ptrs:
        assert isinstance(p.type, Pointer)
        outs.append((f"*{p.name} after", p.type.target, f"vfy_b_sout{i}", f"vfy_b_vout{i}"))
    for label, t, s, v in outs:
        if ulp_bound is not None and isinstance(strip_spelling(t), Float):
            w(f"            {{ uint64_t d = vfy_ulp({strip_spelling(t).size()}, {s}[l], {v}[l]);"
              f" if (d == UINT64_MAX) printf(\"mismatch:   {label}: DIFFERS scalar \");"
              f" else printf(\"mismatch:   {label}: %s by %llu ULP: scalar \", d > {ulp_bound}ULL ? \"DIFFERS\""
              f" : \"same\", (unsigned long long)d); }}\n")
        else:
            w(f"            printf(\"mismatch:   {label}: %s scalar \","
              f" {_differ(t, f'{s}[l]', f'{v}[l]', nan_bits)} ? \"DIFFERS\" : \"same\");\n")
        w(f"            vfy_show({_cls(t)}, {t.size()}, {s}[l]); printf(\" vector \");"
          f" vfy_show({_cls(t)}, {t.size()}, {v}[l]); printf(\"\\n\");\n")
    if call_log:
        w("            if (vfy_log_bad[l]) vfy_log_show(l, vfy_vs, vfy_ve);\n")
    for j, (name, t) in enumerate(observed):
        s, v = f"vfy_b_sg{j}", f"vfy_b_vg{j}"
        w(f"            if (l == vfy_who{j}) {{\n")
        w(f"                printf(\"mismatch:   {name}{'' if name == 'errno' else ' after'}: %s scalar \","
          f" {_differ(t, s, v, nan_bits)} ? \"DIFFERS\" : \"same\");\n")
        if name == "errno":
            w(f"                vfy_show_errno({s}, vfy_pat{j}); printf(\" vector \");"
              f" vfy_show_errno({v}, vfy_pat{j}); printf(\"\\n\");\n")
        else:
            w(f"                vfy_show({_cls(t)}, {t.size()}, {s}); printf(\" vector \");"
              f" vfy_show({_cls(t)}, {t.size()}, {v}); printf(\"\\n\");\n")
        w("            }\n")
    w("        }\n    }\n")
    if uptrs:
        w("    unsigned long long vfy_amism = 0;  /* array mismatches (printed up to MAX_PRINTED) */\n")
    for i, p in uptrs:
        assert isinstance(p.type, Pointer)
        tt, esize = p.type.target, p.type.target.size()
        for path, lt in _leaves(tt):
            cls, size = _cls(lt), lt.size()
            w(f"    for (long long j = -(long long)(vfy_slack{i} / {esize}); j < (long long)VFY_NARR; j++) {{\n")
            w(f"        uint64_t s = vfy_bits(&vfy_su{i}[j]{path}, {size}),"
              f" v = vfy_bits(&vfy_vu{i}[j]{path}, {size});\n")
            # An element computed from several array elements may carry any of their NaN payloads.
            strict = nan_bits and not isinstance(strip_spelling(lt), Float)
            if ulp_bound is not None and isinstance(strip_spelling(lt), Float):
                w(f"        if (vfy_ulp_seen({size}, s, v) <= {ulp_bound}ULL) continue;\n")
            else:
                w(f"        if (!({_differ(lt, 's', 'v', strict)})) continue;\n")
            w(f"        vfy_mism++;\n        if (vfy_amism++ >= {MAX_PRINTED}) continue;\n")
            w(f"        printf(\"mismatch: array {p.name} index %lld{path}%s after all calls:"
              " DIFFERS scalar \", j, j < 0 ? \" (before the array)\" : \"\");\n")
            w(f"        vfy_show({cls}, {size}, s); printf(\" vector \"); vfy_show({cls}, {size}, v);\n")
            if lvals and OFFSET + total - 1 <= lvals[0][1].type.max:  # the hint holds while x does not wrap
                lname = lvals[0][1].name
                w("        if (j >= (long long)VFY_OFFSET && j < (long long)(VFY_OFFSET + VFY_TOTAL))"
                  f" printf(\" (input %lld has {lname}=%lld)\", j - (long long)VFY_OFFSET, j);\n")
            w("        printf(\"\\n\");\n    }\n")
    w(f"    printf(\"verify: {scalar_name} vs {vector_name} [{isa.name}, {lanes} lanes]: %llu inputs"
      f" (%llu edge + %llu random), %llu mismatches\", VFY_TOTAL, VFY_NEDGE, VFY_TOTAL - VFY_NEDGE,"
      " vfy_mism);\n")
    if ulp_bound is not None:  # the largest difference ("inf": a NaN or an infinity against a number)
        w("    if (vfy_maxulp == UINT64_MAX) printf(\", largest difference inf ULP\");\n"
          "    else printf(\", largest difference %llu ULP\", (unsigned long long)vfy_maxulp);\n"
          f"    printf(\" (bound {ulp_bound})\");\n")
    w("    printf(\"\\n\");\n")
    w("    return vfy_mism != 0;\n}\n")
    return "".join(out)


# ----------------------------------------------------------------------------- driver


class _BuildError(Exception):
    def __init__(self, what: str, cmd: list[str], output: str) -> None:
        super().__init__(what)
        self.what, self.cmd, self.output = what, cmd, output

    def details(self) -> str:
        return f"{self.what} failed:\n$ {shlex.join(self.cmd)}\n{self.output}"


def _run(cmd: list[str], what: str, cwd: Path, timeout: float) -> str:
    try:
        p = subprocess.run(cmd, check=False, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=timeout)
    except FileNotFoundError as e:
        raise _BuildError(what, cmd, str(e)) from None
    except subprocess.TimeoutExpired:
        raise _BuildError(what, cmd, f"timed out after {timeout} s") from None
    if p.returncode != 0:
        raise _BuildError(what, cmd, p.stdout + p.stderr)
    return p.stdout + p.stderr


def precompiled_header(isa: IsaLike, d: Path, cflags: Sequence[str] = ()) -> Path:
    """Write ``d/verify-pch-ISA.h`` (the standard and intrinsics headers every harness includes) and
    precompile it with the harness's flags (plus ``cflags``, as given to ``verify``); return the
    header to pass as ``verify(pch=...)``. Many checks for one ISA (the fuzzer's) save most of their
    compile time this way."""
    tag = re.sub(r"\W", "_", "-".join([isa.name, str(isa.lanes), *cflags]))
    h = d / f"verify-pch-{tag}.h"
    if Path(f"{h}.gch").exists():
        return h
    d.mkdir(parents=True, exist_ok=True)
    std = ["<signal.h>", "<stdatomic.h>", "<stdint.h>", "<stdio.h>", "<stdlib.h>", "<string.h>", "<sys/mman.h>",
           "<unistd.h>"]
    h.write_text("".join(f"#include {x}\n" for x in [*std, *getattr(isa, "headers", [])]))
    tmp = d / f".{h.name}.{os.getpid()}.gch"
    _run(list(isa.cc) + COMPILE_FLAGS + list(isa.cflags) + list(cflags) + ["-x", "c-header", str(h), "-o", str(tmp)],
         "precompiling the headers", d, COMPILE_TIMEOUT)
    os.replace(tmp, f"{h}.gch")
    return h


def trip_bounds(params: Sequence, trip_params: Sequence[str], given: dict[str, tuple[int, int]] | None = None
                ) -> tuple[dict[str, tuple[int, int]], list[str]]:
    """The bounds for ``verify``: ``given`` (``--range``), plus TRIP_BOUNDS (within the type's range) for
    each of ``trip_params`` (names of integer value parameters of ``params``, which have ``name``,
    ``type`` and ``shape``) that ``given`` leaves open; and one line per default saying so."""
    bounds = dict(given or {})
    notes: list[str] = []
    for p in params:
        t = strip_spelling(p.type)
        if p.name not in trip_params or p.name in bounds or p.shape == "linear" or not isinstance(t, Int) \
                or t.is_bool:
            continue
        lo, hi = max(TRIP_BOUNDS[0], t.min), min(TRIP_BOUNDS[1], t.max)
        bounds[p.name] = (lo, hi)
        notes.append(f"{p.name}: drawn from {lo}..{hi} (it bounds a loop's trip count; --range {p.name}=LO:HI"
                     " to change)")
    return bounds, notes


def verify(*, scalar_sources: Sequence[Path], scalar_name: str, vector_c: str, vector_name: str,
           params: Sequence[Param], ret: CType, isa: IsaLike, include_dirs: Sequence[Path] = (),
           defines: Sequence[str] = (), undefs: Sequence[str] = (), link_files: Sequence[Path] = (),
           libs: Sequence[str] = ("m",), constants: Sequence[int | float] = (), n_random: int = 100_000,
           seed: int = 1, workdir: Path | None = None, keep: bool = False,
           call_log: bool = False, call_log_loose: Sequence[int] = (), nan_bits: bool = True,
           pch: Path | None = None,
           ulp_bound: int | None = None, cflags: Sequence[str] = (),
           scalar_cflags: Sequence[str] = (), scalar_static: bool = False,
           bounds: dict[str, tuple[int, int]] | None = None, global_vars: Sequence[tuple[str, CType]] = (),
           errno: bool | None = None, timeout: float = VERIFY_TIMEOUT) -> VerifyReport:
    """Compare ``scalar_name`` (from ``scalar_sources``) with ``vector_name`` (in ``vector_c``) bit for bit.

    ``call_log``: also compare the calls recorded with ``vfy_log_record`` (see the module docstring);
    ``call_log_loose``: the sites called in loops, whose lanes' rounds of calls interleave (see ``_LOG_CODE``).
    ``nan_bits=False``: a NaN result matches any NaN (for code whose NaN signs and payloads C leaves
    open: which operand's NaN an operation returns, and so its sign, depends on how the compiler
    orders commutative operands).
    ``pch``: a header made by ``precompiled_header`` for this ISA, force-included in the harness (it
    only saves the compiler from parsing the intrinsics headers again; a stale one is ignored, and so is
    any where ``vector_c`` defines a feature-test macro such as _GNU_SOURCE).
    ``ulp_bound``: ULP mode, for vector code calling a vector math library that changes results
    (libmvec, SLEEF): a float result (or float behind a pointer) matches when within ``ulp_bound``
    units in the last place of the scalar one (NaN matches NaN, an infinity only itself, +0 and -0
    are 1 apart); integer results still compare exactly. The summary gives the largest difference.
    ``cflags``: more compiler flags for every file (scalar sources and harness alike);
    ``scalar_cflags``: and for the scalar sources after them (``-O0``: a reference no optimizer
    pass of the compiler can get wrong).
    ``scalar_static``: ``scalar_name`` is a ``static`` function of the first scalar source; the
    harness calls it through a wrapper with external linkage compiled with that source.
    ``bounds``: integer value parameter name -> (LO, HI): its edge and random values stay in [LO, HI]
    (a parameter that indexes memory or counts loop trips; ``--range`` of the command line;
    ``trip_bounds`` adds the defaults for trip counts).
    ``timeout``: seconds the harness may run; past them it stops (an alarm in the harness) and the
    verdict is "timeout", naming the inputs it was running and their values (nothing is verified).
    ``errno`` (default: on, except in ULP mode, whose libraries set no errno) and ``global_vars`` (name, type:
    global variables the function assigns): each gang's scalar calls and its vector call start with the
    same value there (a pattern that differs per gang) and must leave the same value, what the scalar
    calls, lanes in order, leave; a difference is a mismatch (``errno: DIFFERS scalar 34 (ERANGE)
    vector 33 (EDOM)``) on the last lane whose scalar call changed it (lane 0 if none did).

    Verdicts beyond mismatches (``VerifyReport.verdict``): when the scalar function itself crashes,
    "scalar-crash" names the input; when some inputs mismatch, the scalar sources are built again with
    ``-fsanitize=undefined`` and run on those inputs alone, and "scalar-ub" says where the scalar code
    has undefined behaviour for them (the vector code computes something else: not expand's doing).
    """
    params = list(params)
    head = f"verify: {scalar_name} vs {vector_name} [{isa.name}, {isa.lanes} lanes]"
    for p in params:
        t = p.type.target if isinstance(p.type, Pointer) else p.type
        if isinstance(p.type, Pointer) and p.shape == "uniform":
            _leaves(t)  # (an array of structs of ints and floats too)
        elif not isinstance(t, (Int, Float)):
            raise TypeError(f"parameter {p.name}: unsupported type {p.type}")
        if p.shape not in SHAPES:
            raise ValueError(f"parameter {p.name}: unknown shape {p.shape!r} (one of {', '.join(SHAPES)})")
        if p.shape == "linear" and (isinstance(p.type, Pointer) or not isinstance(t, Int) or t.is_bool):
            raise TypeError(f"parameter {p.name}: a linear parameter must be an integer value, not {p.type}")
    if not isinstance(ret, (Int, Float, Void)):
        raise TypeError(f"unsupported return type {ret}")
    bounds = dict(bounds or {})
    for name, (lo, hi) in bounds.items():
        p = next((p for p in params if p.name == name), None)
        if p is None or isinstance(p.type, Pointer) or not isinstance(strip_spelling(p.type), Int) \
                or p.shape == "linear":
            raise ValueError(f"bounds: '{name}' is not an integer value parameter")
        t = strip_spelling(p.type)
        assert isinstance(t, Int)
        if not (t.min <= lo <= hi <= t.max):
            raise ValueError(f"bounds: {name}={lo}:{hi} is empty or outside the range of {p.type}")
    vparams = [p for p in params if not isinstance(p.type, Pointer) and p.shape == "varying"]
    uparams = [p for p in params if not isinstance(p.type, Pointer) and p.shape == "uniform"]
    plan = _plan([p.type for p in vparams], isa.lanes, list(constants), n_random, [p.type for p in uparams],
                 [bounds.get(p.name) for p in vparams], [bounds.get(p.name) for p in uparams])
    harness_c = _harness(vector_file="vector.c", scalar_name=scalar_name, vector_name=vector_name,
                         scalar_symbol=f"vfy_static_{scalar_name}" if scalar_static else None, bounds=bounds,
                         params=params, ret=ret, isa=isa, plan=plan, seed=seed, call_log=call_log,
                         loose_sites=call_log_loose,
                         nan_bits=nan_bits, ulp_bound=ulp_bound,
                         observed=([("errno", Int(32, True))] if (ulp_bound is None if errno is None else errno)
                                   else []) + [(n, strip_spelling(t)) for n, t in global_vars if n != "errno"],
                         time_limit=max(1, math.ceil(min(timeout, 1 << 30))))

    own_dir = workdir is None
    wd = Path(tempfile.mkdtemp(prefix="expand-verify-")) if workdir is None else Path(workdir)
    wd.mkdir(parents=True, exist_ok=True)
    keep_dir = keep or not own_dir

    def fail(summary: str, details: str, verdict: str = "build") -> VerifyReport:
        return VerifyReport(False, 0, plan.n_edge, plan.n_random, 0, f"{head}: {summary}", details,
                            harness_c, wd if keep_dir else None, verdict=verdict)

    try:
        (wd / "vector.c").write_text(vector_c)
        (wd / "harness.c").write_text(harness_c)
        src_dirs = _dedupe_paths(Path(s).resolve().parent for s in scalar_sources)
        if scalar_static:  # the static function, called from a wrapper defined after it, in its own file
            src0 = Path(scalar_sources[0]).resolve()
            proto = ", ".join(f"{_spell(p.type)} a{j}" for j, p in enumerate(params)) or "void"
            args = ", ".join(f"a{j}" for j in range(len(params)))
            ret_kw = "" if isinstance(ret, Void) else "return "
            (wd / "scalar_static.c").write_text(
                f'#include "{src0}"\n{_spell(ret)} vfy_static_{scalar_name}({proto});\n'
                f"{_spell(ret)} vfy_static_{scalar_name}({proto}) {{ {ret_kw}{scalar_name}({args}); }}\n")
            scalar_sources = [wd / "scalar_static.c", *scalar_sources[1:]]
        base = list(isa.cc) + COMPILE_FLAGS + list(isa.cflags) + list(cflags)
        macros = [f"-D{d}" for d in defines] + [f"-U{u}" for u in undefs]
        cpp = [f"-I{d}" for d in include_dirs] + macros
        # The generated code is held to -Wall -Werror, not the user's headers it includes (as system
        # headers: no warnings from them), nor the user's own sources (compiled without -Werror).
        sys_cpp = [f"-isystem{d}" for d in [*include_dirs, *src_dirs]] + macros
        scalar_base = _scalar_flags(base)
        objs: list[str] = []
        try:
            for n, src in enumerate([*scalar_sources, *link_files]):
                src = Path(src).resolve()
                if src.suffix in (".o", ".a", ".so"):
                    objs.append(str(src))
                    continue
                obj = wd / f"{n}_{src.stem}.o"
                _run(scalar_base + list(scalar_cflags) + cpp + ["-c", str(src), "-o", str(obj)], f"compiling {src}", wd,
                     COMPILE_TIMEOUT)
                objs.append(str(obj))
            # (not where the vector file defines a feature-test macro before its #includes, _GNU_SOURCE
            # for nextupf: the precompiled headers were read without it, and decide what math.h declares)
            feature = re.search(r"^\s*#\s*define\s+_\w*_SOURCE\b", vector_c, re.M)
            force = ["-include", str(pch)] if pch is not None and not feature else []
            _run(base + sys_cpp + force + ["-c", "harness.c", "-o", "harness.o"],
                 "compiling the harness (with the vector file)", wd, COMPILE_TIMEOUT)
            exe = wd / "harness"
            link = list(isa.cc) + list(isa.cflags) + ["harness.o", *objs, "-o", str(exe)]
            link += [f"-l{lib}" for lib in libs]
            try:
                _run(link + ["-static"], "linking", wd, COMPILE_TIMEOUT)
            except _BuildError:  # no static libraries: link dynamically
                _run(link, "linking", wd, COMPILE_TIMEOUT)
        except _BuildError as e:
            return fail(f"{e.what} failed", e.details())

        cant = why_not_here(isa)  # type: ignore[arg-type]
        if cant is not None:
            return VerifyReport(False, 0, plan.n_edge, plan.n_random, 0,
                                f"{head}: not run: {cant}; the output and the harness compiled and linked"
                                f" ({shlex.join(base[:1] + COMPILE_FLAGS + list(isa.cflags))})",
                                "", harness_c, wd if keep_dir else None, not_run=cant, verdict="not-run")
        cmd = list(isa.run_prefix) + [str(exe)]
        try:  # (the harness's alarm stops it; this is the backstop)
            p = subprocess.run(cmd, check=False, cwd=wd, capture_output=True, text=True, errors="replace",
                               timeout=timeout + 60)
        except subprocess.TimeoutExpired as e:
            err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else e.stderr or ""
            return fail(*_stopped(err, cmd, wd, timeout), "timeout")
        except FileNotFoundError as e:
            return fail("running the harness failed", f"$ {shlex.join(cmd)}\n{e}", "crash")
        if "verify harness: time limit reached" in p.stderr:
            return fail(*_stopped(p.stderr, cmd, wd, timeout), "timeout")
        lines = p.stdout.splitlines()
        mism_lines = [ln.removeprefix("mismatch: ") for ln in lines if ln.startswith("mismatch: ")]
        m = None
        for ln in reversed(lines):
            m = re.fullmatch(r"verify: .*: (\d+) inputs \((\d+) edge \+ (\d+) random\), (\d+) mismatches"
                             r"(?:, largest difference (\d+|inf) ULP \(bound \d+\))?", ln)
            if m:
                break
        if m is None or p.returncode not in (0, 1):
            why = f"exit status {p.returncode}" if p.returncode >= 0 else f"killed by signal {-p.returncode}"
            if p.returncode < 0:
                try:
                    why += f" ({signal.Signals(-p.returncode).name})"
                except ValueError:
                    pass
            sc = re.search(r"verify harness: signal (\d+) in a scalar call \(input (\d+)\)", p.stderr)
            if sc:  # the scalar function itself: say for which input, with its values
                k = sc.group(2)
                try:
                    sig = signal.Signals(int(sc.group(1))).name
                except ValueError:
                    sig = f"signal {sc.group(1)}"
                probe = subprocess.run([*cmd, k], check=False, cwd=wd, capture_output=True, text=True,
                                       errors="replace", timeout=RUN_TIMEOUT)
                got = re.search(rf"^vfy_input {k}:(.*)$", probe.stdout, re.M)
                values = f" ({got.group(1).strip()})" if got else ""
                return fail(f"the scalar function {scalar_name} crashed ({sig}) on input {k}{values}: the scalar code"
                            " fails there, not the vector code; nothing was compared",
                            f"$ {shlex.join(cmd)}\n{p.stderr[-4000:]}\nIf a parameter indexes memory or counts loop"
                            " trips, give it the range the function is defined for: --range NAME=LO:HI"
                            " (verify(bounds=...)).", "scalar-crash")
            return fail(f"the harness crashed ({why})",
                        f"$ {shlex.join(cmd)}\n{p.stdout[-20000:]}{p.stderr[-20000:]}", "crash")
        inputs, n_edge, n_rand, mism = (int(x) for x in m.groups()[:4])
        max_ulp = int(m.group(5)) if m.group(5) not in (None, "inf") else None
        details = "\n".join(mism_lines)
        printed = sum(1 for ln in mism_lines if not ln.startswith(" "))  # one headline per printed mismatch
        if mism > printed:
            details += f"\n... and {mism - printed} more mismatches"
        summary, verdict = m.group(0), "ok" if mism == 0 and p.returncode == 0 else "mismatch"
        if mism:
            ks = re.findall(r"^mismatch: input (\d+) ", p.stdout, re.M)[:MAX_PRINTED]
            ub = _ub_probe(ks, isa, wd, base, list(scalar_cflags), cpp, [*scalar_sources, *link_files], libs, cmd)
            if ub:
                kinds = {f"{Path(f).name}:{line}: {re.sub(r'0x[0-9a-fA-F]+|-?[0-9]+', 'N', what)}": None
                         for _, f, line, what in ub}
                where = list(kinds)[:3] + ([f"{len(kinds) - 3} more"] if len(kinds) > 3 else [])
                summary += (f"; the scalar code has undefined behaviour for these inputs ({'; '.join(where)}):"
                            " the scalar code's result is not defined there, so neither is a match")
                details = "\n".join(f"input {k}: {f}:{line}: {what}" for k, f, line, what in ub) + "\n" + details
                verdict = "scalar-ub"
        if keep_dir:
            details = (details + "\n" if details else "") + f"files kept in {wd}"
        return VerifyReport(mism == 0 and p.returncode == 0, inputs, n_edge, n_rand, mism, summary,
                            details, harness_c, wd if keep_dir else None, max_ulp, verdict=verdict)
    finally:
        if own_dir and not keep:
            shutil.rmtree(wd, ignore_errors=True)


def _stopped(stderr: str, cmd: list[str], wd: Path, timeout: float) -> tuple[str, str]:
    """(summary, details) of a harness run stopped at its time limit: the inputs it was running (from
    its stderr) and their values (from a probe run of those inputs)."""
    m = re.search(r"time limit reached in (?:a scalar call \(input (\d+)\)|the vector call \(inputs (\d+)\.\.(\d+)\))",
                  stderr)
    ks = [] if m is None else [int(m.group(1))] if m.group(1) else list(range(int(m.group(2)), int(m.group(3)) + 1))
    values = _probe_values(cmd, wd, ks)
    summary = f"the run did not end within {timeout:g} s"
    if m is not None and m.group(1):
        k = ks[0]
        summary += f": it was in the scalar call of input {k}" + (f" ({values[k]})" if k in values else "")
    elif m is not None:
        summary += f": it was in the vector call of inputs {ks[0]}..{ks[-1]}"
    summary += "; nothing is verified"
    details = "".join(f"input {k}: {values[k]}\n" for k in ks if k in values and len(ks) > 1)
    details += ("If a parameter counts loop trips or makes the function slow, give it a smaller range:"
                " --range NAME=LO:HI (verify(bounds=...)); or allow more time: --verify-timeout SECONDS"
                " (verify(timeout=...)).")
    return summary, details


def _probe_values(cmd: list[str], wd: Path, ks: list[int]) -> dict[int, str]:
    """Input number -> its values (" x=0x3f800000 (1) n=..."), for ``ks``: the harness's probe mode prints
    each before its scalar call; read as they come, for at most PROBE_TIMEOUT seconds."""
    out: dict[int, str] = {}
    if not ks:
        return out
    try:
        proc = subprocess.Popen([*cmd, *map(str, ks[:64])], cwd=wd, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, errors="replace")
    except OSError:
        return out
    with proc:
        timer = threading.Timer(PROBE_TIMEOUT, proc.kill)
        timer.start()
        try:
            for line in proc.stdout or []:
                got = re.match(r"vfy_input (\d+):(.*)", line)
                if got:
                    out[int(got.group(1))] = got.group(2).strip()
                if len(out) == len(ks[:64]):
                    break
        finally:
            timer.cancel()
            proc.kill()
    return out


#: What the undefined-behaviour probe instruments: C's undefined behaviour UBSan finds, and float-to-int
#: conversions of values out of the integer's range (NaN included), which -fsanitize=undefined leaves out.
UBSAN = "-fsanitize=undefined,float-cast-overflow"


def _ub_probe(inputs: list[str], isa: IsaLike, wd: Path, base: list[str], scalar_cflags: list[str], cpp: list[str],
              sources: Sequence[Path], libs: Sequence[str], cmd: list[str]) -> list[tuple[str, str, str, str]]:
    """The harness again, its scalar sources built with ``-fsanitize=undefined``, on ``inputs`` alone
    (its probe mode): [(input, file, line, what)] for each undefined behaviour UBSan reports. Empty when
    there is none, or when the probe cannot be built here."""
    if not inputs:
        return []
    objs: list[str] = []
    try:
        for n, src in enumerate(sources):
            src = Path(src).resolve()
            if src.suffix in (".o", ".a", ".so"):
                objs.append(str(src))
                continue
            obj = wd / f"ub{n}_{src.stem}.o"
            _run(_scalar_flags(base) + scalar_cflags + cpp + [UBSAN, "-c", str(src), "-o", str(obj)],
                 f"compiling {src} with -fsanitize=undefined", wd, COMPILE_TIMEOUT)
            objs.append(str(obj))
        exe = wd / "harness_ub"
        _run(list(isa.cc) + list(isa.cflags) + [UBSAN, "harness.o", *objs, "-o", str(exe)]
             + [f"-l{lib}" for lib in libs], "linking with -fsanitize=undefined", wd, COMPILE_TIMEOUT)
        env = {**os.environ, "UBSAN_OPTIONS": "print_stacktrace=0"}
        out: list[tuple[str, str, str, str]] = []
        for k in inputs:  # one process each: UBSan reports each source location once per process
            p = subprocess.run([*cmd[:-1], str(exe), k], check=False, cwd=wd, capture_output=True, text=True,
                               errors="replace", timeout=RUN_TIMEOUT, env=env)
            for line in p.stderr.splitlines():
                m = re.match(r"(.*?):(\d+):\d+: runtime error: ([^:]*)", line)
                if m:
                    out.append((k, m.group(1), m.group(2), m.group(3).strip()))
    except (_BuildError, OSError, subprocess.TimeoutExpired):
        return []
    return out


def _scalar_flags(base: list[str]) -> list[str]:
    """The flags for the scalar sources: without -Werror (the user's code), and without -fopenmp-simd,
    with which GCC would make vector clones of a function declared '#pragma omp declare simd', under
    the names the vector file's --abi entry points have (the pragma is then an unknown one)."""
    return [f for f in base if f not in ("-Werror", "-fopenmp-simd")] + ["-Wno-unknown-pragmas"]


def _dedupe_paths(ps: Iterable[Path]) -> list[Path]:
    return list(dict.fromkeys(ps))
