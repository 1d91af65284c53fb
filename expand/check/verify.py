"""The built-in differential test: a scalar C function against its vector expansion, bit for bit.

``verify`` writes a C harness that ``#include``s the generated vector file, feeds the same inputs
to the scalar function (one element at a time) and to the vector function (one gang of
``isa.lanes`` elements at a time) and compares every output lane by bit pattern (floats included:
NaN payloads and the sign of zero count). Inputs are an edge set per parameter type (embedded as
hex arrays) followed by random inputs drawn in C from a seeded splitmix64 generator. The harness is
the C template ``harness.c`` beside this module, filled in for the function (``_harness``): its
fixed C as it is, the lines that depend on the parameters generated here.

With ``call_log=True`` the side effects of calls are compared too: the harness defines
``void vfy_log_record(int site, uint64_t bits)``, which the non-expandable functions that both
sides call (linked in with ``link_files``) use to record each call. For every input, the records
of the scalar run must equal the records of that input's lane in the vector run, in the same
order (see the call log in ``harness.c``).

Parameter shapes follow the vector function ABI (``#pragma omp declare simd uniform(..) linear(..)``),
see ``Param``: a varying value is a gang (``vtype``) and a varying pointer points to a gang in memory
(``mtype *``); a uniform value is one scalar shared by the gang's lanes (edge and random values drawn
per gang); a linear integer value is lane 0's value of a step-1 sequence (gang ``g`` gets
``g * lanes + OFFSET``, lane ``l``'s scalar call ``g * lanes + OFFSET + l``); a uniform pointer is the
start of one array shared by every call, ``inputs + 2 * OFFSET`` elements, each number in them (each
member of a struct, nested ones and array members too) an edge value of its type or a random one,
separate but identical for the scalar and the vector run and compared element by element after all calls
(a pointer member points to an array of its own, filled and compared the same way; a pointer the function
reaches only at constant offsets, ``verify(moving=...)``, and a uniform struct passed by value are
element g of the array in gang g). Each such
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

import functools
import hashlib
import math
import os
import re
import shlex
import shutil
import signal
import string
import struct
import subprocess
import tempfile
import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from emit.host import why_not_here
from emit.isa import lane_kind, scalar_ctype
from expand.cache import cache_root
from expand.ir.libc import COMBINED_INTO
from expand.ir.types import BASIC_TYPES, Array, CType, Float, Int, Pointer, Record, Void, strip_spelling

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
#: The default [LO, HI] of an integer parameter a loop's trip count depends on (expand/analysis/trip_inputs.py)
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
    reference_cflags: list[str]
    clang: bool

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
    if isinstance(t, Record) and t.spelling:  # (``struct S``, or the name of ``typedef struct { ... } S``)
        return t.spelling
    raise Unverifiable(f"type '{t}' has no name the harness can spell" if isinstance(t, Record)
                       else f"unsupported parameter type {t}")


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


class Unverifiable(TypeError):
    """A parameter whose values the harness cannot make (a struct with a ``void *`` member, an array of
    unknown length, ...): the message says which part and why."""


def _parts(t: CType, path: str = "") -> list[tuple[str, CType]]:
    """The scalar parts of an element of a uniform array: (C accessor suffix, type); ``[("", t)]`` for
    an int, float or pointer, one per member (and array element) of a struct or union of them, nested ones
    too (``.bounds[1][2]``, ``.pos.y``). A union: the members of its largest member (the first of the
    largest), whose bytes hold every other member's."""
    if isinstance(t, (Int, Float, Pointer)):
        return [(path, t)]
    where = f" (member '{path.lstrip('.')}')" if path else ""
    if isinstance(t, Array):
        if not t.length:
            raise Unverifiable(f"an array of unknown length{where} cannot be filled")
        return [x for j in range(t.length) for x in _parts(t.elem, f"{path}[{j}]")]
    if isinstance(t, Record) and t.complete and t.fields:
        fields = t.fields
        if t.is_union:
            try:
                fields = [max(t.fields, key=lambda f: f[1].size())]
            except TypeError:
                raise Unverifiable(f"a member of '{t}'{where} has no size") from None
        return [x for n, ft in fields for x in _parts(ft, f"{path}.{n}")]
    if isinstance(t, Record):
        raise Unverifiable(f"'{t}'{where} is {'incomplete' if not t.complete else 'empty'}")
    part = f"member '{path.lstrip('.')}'" if path else "the element"
    raise Unverifiable(f"{part} is of type '{t}', which the harness cannot fill with values")


def _leaves(t: CType) -> list[tuple[str, CType]]:
    """The number parts of ``_parts(t)``: what the harness fills with values and compares."""
    return [(path, lt) for path, lt in _parts(t) if not isinstance(lt, Pointer)]


def _pointer_members(t: CType) -> list[tuple[str, CType]]:
    """The pointer parts of ``_parts(t)`` (``.zBuffer`` of ispc's ``InputDataArrays``), each with what it
    points to: an array of those of its own, whose start every element's member holds. What it points to
    must have no pointer parts itself (one level)."""
    out = []
    for path, lt in _parts(t):
        if not isinstance(lt, Pointer):
            continue
        target = lt.target
        member = f"member '{path.lstrip('.')}'" if path else "the element"
        try:
            if isinstance(target, Void) or _pointer_members_exist(target) or not _leaves(target):
                raise Unverifiable("")
            _spell(target)
        except Unverifiable:
            raise Unverifiable(f"{member} points to '{target}', which the harness cannot fill with values"
                               " (it fills pointers to numbers and to structs of numbers)") from None
        out.append((path, target))
    return out


def _pointer_members_exist(t: CType) -> bool:
    return any(isinstance(lt, Pointer) for _, lt in _parts(t))


@dataclass
class _Array:
    """An array the harness keeps for a uniform parameter (``_backed``): ``tag`` names its C objects
    (``vfy_su{tag}``, ``vfy_vu{tag}``: the scalar run's and the vector run's, ``vfy_slack{tag}``), ``elem`` is its
    elements' type, ``label`` how a report names it (``s``; ``s->zBuffer`` for the array every element's
    pointer member ``zBuffer`` points to: ``member`` is then (the array's tag, the member's path)); ``compare``:
    compared after all calls (not the array of a struct passed by value, which the calls cannot change)."""

    tag: str
    elem: CType
    label: str
    compare: bool = True
    member: tuple[str, str] | None = None


def _arrays(uptrs: _Params) -> list[_Array]:
    """The arrays of the uniform pointers and structs passed by value, and of their pointer members."""
    out: list[_Array] = []
    for i, p in uptrs:
        elem = _elem_type(p)
        out.append(_Array(str(i), elem, p.name, isinstance(p.type, Pointer)))
        for n, (path, target) in enumerate(_pointer_members(elem)):
            label = f"{p.name}->{path[1:]}" if path.startswith(".") else f"{p.name}[0]{path}"
            out.append(_Array(f"{i}m{n}", target, label, True, (str(i), path)))
    return out


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
    constants: list[int | float] = field(default_factory=list)  # (the edge values of uniform arrays' contents)


def _plan(value_types: list[CType], lanes: int, constants: Sequence[int | float], n_random: int,
          uniform_types: Sequence[CType] = (), bounds: Sequence[tuple[int, int] | None] = (),
          ubounds: Sequence[tuple[int, int] | None] = ()) -> _Plan:
    """The inputs: ``value_types`` take a value per lane, ``uniform_types`` one per gang.

    The edge gangs run through the uniform edge combinations (their cross product, or a sample of it
    when larger than EDGE_CAP inputs) and, for each, through the varying edge plan's gangs.
    """
    plan = _plan_varying(value_types, lanes, constants, n_random, bounds)
    plan.constants = list(constants)
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

#: The harness's C as a template (its first lines give the syntax), filled in by ``_harness``.
HARNESS_TEMPLATE = Path(__file__).resolve().parent / "harness.c"
_TEMPLATE = HARNESS_TEMPLATE.read_text()


def _fill(template: str, values: dict[str, object], flags: dict[str, bool], blocks: dict[str, list[str]]) -> str:
    """``template`` filled in: ``//@if NAME`` sections kept when ``flags[NAME]`` holds, a ``${NAME}`` alone on
    a line replaced by the lines ``blocks[NAME]`` (indented like it), ``${NAME}`` elsewhere by ``values[NAME]``,
    ``//@`` notes left out."""
    out: list[str] = []
    conds: list[bool] = []  # the open //@if sections: whether each holds
    for line in template.splitlines(keepends=True):
        s = line.strip()
        if s.startswith("//@"):
            d = s[3:]
            if d.startswith("if "):
                conds.append(flags[d[3:].strip()])
            elif d == "else":
                conds[-1] = not conds[-1]
            elif d == "endif":
                conds.pop()
            elif d and not d.startswith(" "):
                raise ValueError(f"harness template: unknown directive {s!r}")
            continue
        if not all(conds):
            continue
        block = re.fullmatch(r"\$\{(\w+)\}", s)
        if block and block.group(1) in blocks:
            indent = line[:len(line) - len(line.lstrip())]
            out += [f"{indent}{b}\n" if b else "\n" for b in blocks[block.group(1)]]
        else:
            out.append(string.Template(line).substitute(values))
    if conds:
        raise ValueError("harness template: an //@if without its //@endif")
    return "".join(out)


def _section(name: str) -> str:
    """The C of the template's first ``//@if name`` section (as the harness has it when ``name`` holds)."""
    lines = _TEMPLATE.splitlines(keepends=True)
    start = next(j for j, ln in enumerate(lines) if ln.strip() == f"//@if {name}")
    end = next(j for j in range(start, len(lines)) if lines[j].strip() == "//@endif")
    return _fill("".join(lines[start + 1:end]), {}, {}, {})


#: C of the ULP distance (``verify(ulp_bound=...)``): ``vfy_ulp`` and ``vfy_ulp_seen``.
_ULP_CODE = _section("ulp")


def _harness(*, vector_file: str, scalar_name: str, vector_name: str, params: list[Param], ret: CType,
             isa: IsaLike, plan: _Plan, seed: int, call_log: bool = False, loose_sites: Sequence[int] = (),
             loose_step: int = 0, nan_bits: bool = True,
             ulp_bound: int | None = None, scalar_symbol: str | None = None,
             bounds: dict[str, tuple[int, int]] | None = None,
             observed: Sequence[tuple[str, CType]] = (), time_limit: int = 0, moving: Collection[str] = ()) -> str:
    """The harness's C (the template harness.c filled in for this function); ``time_limit`` (seconds, 0:
    none): it stops then (SIGALRM), saying where; ``moving``: see ``verify``."""
    vals = [(i, p) for i, p in enumerate(params) if not isinstance(p.type, Pointer) and p.shape == "varying"]
    ptrs = [(i, p) for i, p in enumerate(params) if isinstance(p.type, Pointer) and p.shape == "varying"]
    # The other shapes (see Param): values set once per gang, values lane 0 + l, shared guarded arrays.
    uvals = [(i, p) for i, p in enumerate(params) if not _backed(p) and p.shape == "uniform"]
    lvals = [(i, p) for i, p in enumerate(params) if not isinstance(p.type, Pointer) and p.shape == "linear"]
    svals = sorted(uvals + lvals, key=lambda ip: ip[0])
    uptrs = [(i, p) for i, p in enumerate(params) if _backed(p)]  # (and uniform structs: element g of an array)
    moving = {*moving, *(p.name for _, p in uptrs if not isinstance(p.type, Pointer))}
    total = plan.n_edge + plan.n_random
    bounds = bounds or {}
    kv = "kv" if uvals and vals and plan.mode in ("rotate", "product") else "k"  # (the varying edge plan's index)
    values: dict[str, object] = {
        "scalar_name": scalar_name, "vector_name": vector_name, "isa": isa.name, "lanes": isa.lanes,
        "vector_file": vector_file, "n_edge": plan.n_edge, "total": total, "offset": OFFSET, "vgangs": plan.vgangs,
        "ret": _spell(ret), "proto": ", ".join(_spell(p.type) for p in params) or "void",
        "scalar_symbol": scalar_symbol or scalar_name, "log_max": LOG_MAX, "seed": f"0x{seed & ((1 << 64) - 1):x}",
        "time_limit": time_limit, "uproduct": plan.uproduct, "max_printed": MAX_PRINTED, "ulp_bound": ulp_bound}
    flags = {"shared": bool(svals or uptrs), "call_log": call_log, "observed": bool(observed),
             "ulp": ulp_bound is not None, "time_limit": bool(time_limit), "uniform_values": bool(uvals),
             "uniform_product": plan.umode == "product", "kv": kv == "kv", "varying_values": bool(vals),
             "uniform_pointers": any(a.compare for a in _arrays(uptrs))}
    loose = "".join(f" case {s}:" for s in sorted(set(loose_sites)))
    key = f"s % {loose_step}" if loose_step else "s"
    blocks = {
        "log_loose": [f"switch ({key}) {{{loose} return 1; default: return 0; }}"] if loose
        else ["(void)s;", "return 0;"],
        "log_key": [f"return {key};"],
        "inputs": _inputs_c(vals, uvals, uptrs, plan, bounds),
        "declarations": _declarations_c(vals, ptrs, svals, uvals, ret),
        "uniform_arrays": _uniform_arrays_c(uptrs),
        "uniform_edges": ([f"vfy_ub{i} = vfy_edge{i}[q % VFY_NE{i}]; q /= VFY_NE{i};" for i, _ in reversed(uvals)]
                          if plan.umode == "product" else  # (or a deterministic sample of the combinations)
                          [f"vfy_ub{i} = vfy_edge{i}[vfy_next() % VFY_NE{i}];" for i, _ in uvals]),
        "uniform_random": [f"vfy_ub{i} = vfy_rand{i}();" for i, _ in uvals],
        "varying_edges": _varying_edges_c(vals, plan, kv),
        "varying_random": [f"vfy_b_in{i}[l] = vfy_rand{i}();" for i, _ in vals],
        "lane_inputs": _lane_inputs_c(vals, uvals, lvals, svals, ptrs),
        "show_inputs": _show_inputs_c(vals, svals, ptrs, [(i, p) for i, p in uptrs if p.name in moving]),
        "observed_start": [line for j, (name, t) in enumerate(observed) for line in (
            f"uint64_t vfy_pat{j} = {_pattern(j, name, t)}, vfy_was{j} = vfy_pat{j}, vfy_b_sg{j}, vfy_b_vg{j};",
            f"int vfy_who{j} = 0;", _set_observed(j, name, t))],
        "moving_start": [line for i, p in uptrs if p.name in moving for line in (
            f"{_spell(_elem_type(p))} vfy_at_start{i}[1];",
            f"memcpy(vfy_at_start{i}, vfy_su{i} + g, sizeof vfy_at_start{i});")],
        "scalar_call": _scalar_call_c(params, ptrs, ret, observed, moving),
        "observed_scalar": [f"vfy_b_sg{j} = {_get_observed(name, t)};" for j, (name, t) in enumerate(observed)],
        "vector_call": _vector_call_c(params, ptrs, ret, observed, isa, vector_name, moving),
        "compare": _compare_c(vals, svals, ptrs, ret, observed, call_log, nan_bits, ulp_bound,
                              any(isinstance(strip_spelling(lt), Float) for a in _arrays(uptrs)
                                  for _, lt in _leaves(a.elem))),
        "show_outputs": _show_outputs_c(ptrs, ret, nan_bits, ulp_bound),
        "show_observed": _show_observed_c(observed, nan_bits),
        "compare_arrays": _compare_arrays_c(uptrs, lvals, total, nan_bits, ulp_bound),
    }
    return _fill(_TEMPLATE, values, flags, blocks)


_Params = Sequence[tuple[int, Param]]  # (position, parameter)


def _backed(p: Param) -> bool:
    """A uniform parameter whose values live in an array of the harness: a pointer (its array), or a struct
    passed by value (gang g's calls get element g of an array of them)."""
    return p.shape == "uniform" and isinstance(p.type, (Pointer, Record))


def _elem_type(p: Param) -> CType:
    """The type of the elements of a ``_backed`` parameter's array."""
    return p.type.target if isinstance(p.type, Pointer) else p.type


def _inputs_c(vals: _Params, uvals: _Params, uptrs: _Params, plan: _Plan, bounds: dict[str, tuple[int, int]]
              ) -> list[str]:
    """The edge values (hex arrays) and random value functions of each parameter."""
    text: list[str] = []
    for j, (i, p) in enumerate(vals):
        text += [f"/* edge values of {p.name} ({p.type}) */\n", _hex_array(f"vfy_edge{i}", plan.edges[j]),
                 f"#define VFY_NE{i} {len(plan.edges[j])}ULL\n",
                 _rand_fn(i, strip_spelling(p.type), bounds.get(p.name))]
    for j, (i, p) in enumerate(uvals):
        text += [f"/* edge values of uniform {p.name} ({p.type}) */\n", _hex_array(f"vfy_edge{i}", plan.uedges[j]),
                 f"#define VFY_NE{i} {len(plan.uedges[j])}ULL\n",
                 _rand_fn(i, strip_spelling(p.type), bounds.get(p.name))]
    for a in _arrays(uptrs):
        text.append(f"/* contents of the array of {a.label} ({a.elem}): each scalar part an edge value of its type"
                    " or a random one */\n")
        parts = _leaves(a.elem)
        kinds: dict[str, CType] = {}
        for _, lt in parts:
            kinds.setdefault(_type_key(lt), strip_spelling(lt))
        for key, lt in kinds.items():
            edges = _array_edges(lt, plan.constants)
            text += [_hex_array(f"vfy_aedge{a.tag}_{key}", edges), f"#define VFY_ANE{a.tag}_{key} {len(edges)}ULL\n"]
        for n, (path, lt) in enumerate(parts):
            tag = _part_tag(a.tag, n, parts)
            edges = f"{a.tag}_{_type_key(lt)}"
            text += [_rand_fn(tag, strip_spelling(lt)),
                     f"static uint64_t vfy_fill{tag}(void) {{  /* {a.label}[j]{path} */\n"
                     "    uint64_t c = vfy_next();\n"
                     f"    return (c & 1) ? vfy_aedge{edges}[(c >> 1) % VFY_ANE{edges}] : vfy_rand{tag}();\n"
                     "}\n\n"]
    return "".join(text).splitlines()


#: The one NaN among the edge values of a uniform array's floats (and doubles): the default quiet NaN.
ARRAY_NAN = {32: 0x7FC00000, 64: 0x7FF8000000000000}


def _array_edges(t: CType, constants: Sequence[int | float]) -> list[int]:
    """The edge values of a uniform array's elements (or members) of type ``t``: ``edge_values``, with one
    NaN, ARRAY_NAN, for all of its NaNs (see ``_compare_c``)."""
    t = strip_spelling(t)
    edges = edge_values(t, constants)
    if not isinstance(t, Float):
        return edges
    mag, inf = (0x7FFFFFFF, 0x7F800000) if t.bits == 32 else (0x7FFFFFFFFFFFFFFF, 0x7FF0000000000000)
    return _dedupe(ARRAY_NAN[t.bits] if b & mag > inf else b for b in edges)


def _part_tag(tag: str, n: int, parts: Sequence[tuple[str, CType]]) -> str:
    """The suffix of the random and fill functions of scalar part ``n`` of the array tagged ``tag``."""
    return tag if len(parts) == 1 else f"{tag}_{n}"


def _type_key(t: CType) -> str:
    """A C identifier part naming scalar type ``t`` (``unsigned_int``)."""
    return re.sub(r"\W+", "_", strip_spelling(t).spelling)


def _declarations_c(vals: _Params, ptrs: _Params, svals: _Params, uvals: _Params, ret: CType) -> list[str]:
    """main's per-lane arrays: scalar side spelled like the prototype, vector side in stdint names."""
    out: list[str] = []
    for i, p in vals:
        out += [f"{_spell(p.type)} vfy_s_in{i}[VFY_L];", f"{scalar_ctype(lane_kind(p.type))} vfy_v_in{i}[VFY_L];",
                f"uint64_t vfy_b_in{i}[VFY_L];"]
    for i, p in ptrs:
        assert isinstance(p.type, Pointer)
        out += [f"uint64_t vfy_b_init{i}[VFY_L], vfy_b_sout{i}[VFY_L], vfy_b_vout{i}[VFY_L];",
                f"{scalar_ctype(lane_kind(p.type.target))} vfy_v_buf{i}[VFY_L];"]
    if not isinstance(ret, Void):
        out += [f"{scalar_ctype(lane_kind(ret))} vfy_vret[VFY_L];", "uint64_t vfy_b_sret[VFY_L], vfy_b_vret[VFY_L];"]
    for i, p in svals:
        out += [f"{_spell(p.type)} vfy_s_in{i}[VFY_L], vfy_v_u{i};", f"uint64_t vfy_b_in{i}[VFY_L];"]
    out += [f"uint64_t vfy_ub{i} = 0;" for i, _ in uvals]
    return out


def _uniform_arrays_c(uptrs: _Params) -> list[str]:
    """The guarded arrays of the uniform pointers (and structs passed by value), filled with edge and random
    values, the vector run's a copy; then each element's pointer members pointed to their arrays (the vector
    run's to its own copies)."""
    out: list[str] = []
    arrays = _arrays(uptrs)
    for a in arrays:
        t, size = a.tag, a.elem.size()
        parts = _leaves(a.elem)
        sets = " ".join(f"vfy_set(&vfy_su{t}[j]{path}, {lt.size()}, vfy_fill{_part_tag(t, n, parts)}());"
                        for n, (path, lt) in enumerate(parts))
        out += [f"size_t vfy_slack{t};",
                f"{_spell(a.elem)} *vfy_su{t} = vfy_guarded(VFY_NARR * {size}, &vfy_slack{t});",
                f"{_spell(a.elem)} *vfy_vu{t} = vfy_guarded(VFY_NARR * {size}, &vfy_slack{t});",
                f"for (long long j = -(long long)(vfy_slack{t} / {size}); j < (long long)VFY_NARR; j++) {{ {sets} }}",
                f"memcpy((char *)vfy_vu{t} - vfy_slack{t}, (char *)vfy_su{t} - vfy_slack{t},"
                f" vfy_slack{t} + VFY_NARR * {size});"]
    for a in arrays:
        if a.member is not None:
            t, path = a.member
            size = next(b.elem.size() for b in arrays if b.tag == t)
            out.append(f"for (long long j = -(long long)(vfy_slack{t} / {size}); j < (long long)VFY_NARR; j++) {{"
                       f" vfy_su{t}[j]{path} = vfy_su{a.tag}; vfy_vu{t}[j]{path} = vfy_vu{a.tag}; }}")
    return out


def _varying_edges_c(vals: _Params, plan: _Plan, kv: str) -> list[str]:
    """Lane l's varying values from the edge plan (input ``kv`` of it)."""
    if plan.mode == "rotate":
        i = vals[0][0]
        return [f"unsigned long long r = {kv} / VFY_NE{i}, j = {kv} % VFY_NE{i};",
                f"vfy_b_in{i}[l] = vfy_edge{i}[(j + r) % VFY_NE{i}];"]
    if plan.mode == "product":
        return [f"unsigned long long q = {kv} % {plan.product}ULL;",
                *(f"vfy_b_in{i}[l] = vfy_edge{i}[q % VFY_NE{i}]; q /= VFY_NE{i};" for i, _ in reversed(vals))]
    # a deterministic subsample of the cross product
    return [f"vfy_b_in{i}[l] = vfy_edge{i}[vfy_next() % VFY_NE{i}];" for i, _ in vals]


def _lane_inputs_c(vals: _Params, uvals: _Params, lvals: _Params, svals: _Params, ptrs: _Params) -> list[str]:
    """Lane l's inputs from their bit patterns: values for both sides, what varying pointers point to."""
    out = [f"vfy_set(&vfy_s_in{i}[l], {p.type.size()}, vfy_b_in{i}[l]);"
           f" vfy_set(&vfy_v_in{i}[l], {p.type.size()}, vfy_b_in{i}[l]);" for i, p in vals]
    out += [f"vfy_b_in{i}[l] = vfy_ub{i};" for i, _ in uvals]
    out += [f"vfy_b_in{i}[l] = (VFY_OFFSET + k) & 0x{_pointee_mask(p.type):x}ULL;" for i, p in lvals]
    out += [f"vfy_set(&vfy_s_in{i}[l], {p.type.size()}, vfy_b_in{i}[l]);" for i, p in svals]
    out += [f"vfy_b_init{i}[l] = vfy_next() & 0x{_pointee_mask(p.type.target):x}ULL;"
            for i, p in ptrs if isinstance(p.type, Pointer)]
    return out


def _show_inputs_c(vals: _Params, svals: _Params, ptrs: _Params, moving: _Params = ()) -> list[str]:
    """Statements printing lane l's inputs (" x=0x... (1.5) *p=..."), in parameter order; the members of a
    moving uniform pointer's element (" s->a=..."), as the gang's calls start with them."""
    out = [f"printf(\" {p.name}=\"); vfy_show({_cls(p.type)}, {p.type.size()}, vfy_b_in{i}[l]);"
           for i, p in sorted([*vals, *svals], key=lambda ip: ip[0])]
    for i, p in moving:
        by_value = not isinstance(p.type, Pointer)
        for path, lt in _leaves(_elem_type(p)):
            label = (f"{p.name}{path}" if by_value else f"{p.name}->{path[1:]}" if path.startswith(".")
                     else f"{p.name}[0]{path}" if path else f"*{p.name}")
            out.append(f"printf(\" {label}=\"); vfy_show({_cls(lt)}, {lt.size()},"
                       f" vfy_bits(&vfy_at_start{i}[0]{path}, {lt.size()}));")
    for i, p in ptrs:
        assert isinstance(p.type, Pointer)
        tt = p.type.target
        out.append(f"printf(\" *{p.name}=\"); vfy_show({_cls(tt)}, {tt.size()}, vfy_b_init{i}[l]);")
    return out


def _pattern(j: int, name: str, t: CType) -> str:
    """The value global ``j`` (errno or ``name``) starts each gang's calls with."""
    if name == "errno":
        return "(uint64_t)(100000 + g % 100000)"
    return f"(0x9e3779b97f4a7c15ULL * (g + {j + 1})) & 0x{_pointee_mask(t):x}ULL"


def _set_observed(j: int, name: str, t: CType) -> str:
    return f"errno = (int)vfy_pat{j};" if name == "errno" else f"vfy_set(&{name}, {t.size()}, vfy_pat{j});"


def _get_observed(name: str, t: CType) -> str:
    return "(uint64_t)(uint32_t)errno" if name == "errno" else f"vfy_bits(&{name}, {t.size()})"


def _scalar_call_c(params: list[Param], ptrs: _Params, ret: CType, observed: Sequence[tuple[str, CType]],
                   moving: Collection[str] = ()) -> list[str]:
    """Lane l's scalar call: its arguments, the call, its outputs' bits, which lane last changed a global
    (a ``moving`` uniform pointer: its array's element g in gang g)."""
    out: list[str] = []
    args = []
    for i, p in enumerate(params):
        if _backed(p):
            args.append(f"vfy_su{i}[g]" if not isinstance(p.type, Pointer) else f"vfy_su{i} + g" if p.name in moving
                        else f"vfy_su{i}")
        elif isinstance(p.type, Pointer):
            tt = p.type.target
            out += [f"{_spell(tt)} vfy_p{i};", f"vfy_set(&vfy_p{i}, {tt.size()}, vfy_b_init{i}[l]);"]
            args.append(f"&vfy_p{i}")
        else:
            args.append(f"vfy_s_in{i}[l]")
    call = f"vfy_scalar({', '.join(args)})"
    if isinstance(ret, Void):
        out.append(f"{call};")
    else:
        out += [f"{_spell(ret)} vfy_r = {call};", f"vfy_b_sret[l] = vfy_bits(&vfy_r, {ret.size()});"]
    out += [f"vfy_b_sout{i}[l] = vfy_bits(&vfy_p{i}, {p.type.target.size()});"
            for i, p in ptrs if isinstance(p.type, Pointer)]
    out += [f"if ({_get_observed(name, t)} != vfy_was{j}) {{ vfy_who{j} = l; vfy_was{j} = {_get_observed(name, t)}; }}"
            for j, (name, t) in enumerate(observed)]
    return out


def _vector_call_c(params: list[Param], ptrs: _Params, ret: CType, observed: Sequence[tuple[str, CType]],
                   isa: IsaLike, vector_name: str, moving: Collection[str] = ()) -> list[str]:
    """The gang's vector call: its arguments (plain scalars for uniform and linear parameters: lane 0's value,
    or the array's start, element g for a ``moving`` pointer), the call, its outputs' bits per lane."""
    out: list[str] = []
    vargs = []
    for i, p in enumerate(params):
        if p.shape != "varying":
            if _backed(p):
                vargs.append(f"vfy_vu{i}[g]" if not isinstance(p.type, Pointer) else f"vfy_vu{i} + g"
                             if p.name in moving else f"vfy_vu{i}")
            else:
                out.append(f"vfy_set(&vfy_v_u{i}, {p.type.size()}, vfy_b_in{i}[0]);")
                vargs.append(f"vfy_v_u{i}")
        elif isinstance(p.type, Pointer):
            tt = p.type.target
            k = lane_kind(tt)
            out += [f"{isa.mtype(k)} vfy_m{i};",
                    f"_Static_assert(sizeof(vfy_m{i}) >= VFY_L * sizeof(vfy_v_buf{i}[0]), \"mtype({k}) too small\");",
                    f"memset(&vfy_m{i}, 0, sizeof vfy_m{i});",
                    f"for (int l = 0; l < VFY_L; l++) vfy_set(&vfy_v_buf{i}[l], {tt.size()}, vfy_b_init{i}[l]);",
                    f"memcpy(&vfy_m{i}, vfy_v_buf{i}, sizeof vfy_v_buf{i});"]
            vargs.append(f"&vfy_m{i}")
        else:
            k = lane_kind(p.type)
            out.append(f"{isa.vtype(k)} vfy_x{i} = {isa.loadu(k, f'vfy_v_in{i}')};")
            vargs.append(f"vfy_x{i}")
    vcall = f"{vector_name}({', '.join(vargs)})"
    out += [_set_observed(j, name, t) for j, (name, t) in enumerate(observed)]
    if isinstance(ret, Void):
        out.append(f"{vcall};")
    else:
        rk = lane_kind(ret)
        out += [f"{isa.vtype(rk)} vfy_vr = {vcall};", f"{isa.storeu(rk, 'vfy_vret', 'vfy_vr').strip().rstrip(';')};",
                f"for (int l = 0; l < VFY_L; l++) vfy_b_vret[l] = vfy_bits(&vfy_vret[l], {ret.size()});"]
    for i, p in ptrs:
        assert isinstance(p.type, Pointer)
        out += [f"memcpy(vfy_v_buf{i}, &vfy_m{i}, sizeof vfy_v_buf{i});",
                f"for (int l = 0; l < VFY_L; l++) vfy_b_vout{i}[l] = vfy_bits(&vfy_v_buf{i}[l],"
                f" {p.type.target.size()});"]
    out += [f"vfy_b_vg{j} = {_get_observed(name, t)};" for j, (name, t) in enumerate(observed)]
    return out


def _compare_c(vals: _Params, svals: _Params, ptrs: _Params, ret: CType, observed: Sequence[tuple[str, CType]],
               call_log: bool, nan_bits: bool, ulp_bound: int | None, memory_nan: bool = False) -> list[str]:
    """Lane l's test: go on to the next lane unless an output differs. ``memory_nan``: the lane may read a
    NaN from a uniform array (one that holds floats), which counts as one NaN input."""
    # With two or more NaN inputs, C (and IEEE 754) leave which input's payload a result carries to
    # the compiler, which reorders commutative operands freely: any NaN then matches any NaN. (The NaNs
    # among the edge values of uniform arrays are one pattern, ARRAY_NAN: two of them give it whatever
    # the order.)
    nan_tests = [_is_nan(p.type, f"vfy_b_in{i}[l]") for i, p in sorted([*vals, *svals], key=lambda ip: ip[0])
                 if isinstance(strip_spelling(p.type), Float)] + (["1"] if memory_nan else [])
    relax = f"(({' + '.join(nan_tests)}) >= 2)" if len(nan_tests) >= 2 else "0"

    def differ(t: CType, s: str, v: str) -> str:
        if ulp_bound is not None and isinstance(strip_spelling(t), Float):  # ULP mode: the distance
            return f"(vfy_ulp_seen({strip_spelling(t).size()}, {s}, {v}) > {ulp_bound}ULL)"
        if relax == "0" or not nan_bits:
            return _differ(t, s, v, nan_bits)
        return f"({relax} ? ({_differ(t, s, v, False)}) : ({_differ(t, s, v, True)}))"

    out: list[str] = []
    diffs = []
    if not isinstance(ret, Void):
        diffs.append(differ(ret, "vfy_b_sret[l]", "vfy_b_vret[l]"))
    diffs += [differ(p.type.target, f"vfy_b_sout{i}[l]", f"vfy_b_vout{i}[l]")
              for i, p in ptrs if isinstance(p.type, Pointer)]
    if call_log:
        diffs.append("vfy_log_bad[l]")
    diffs += [f"(l == vfy_who{j} && {differ(t, f'vfy_b_sg{j}', f'vfy_b_vg{j}')})" for j, (_, t) in enumerate(observed)]
    if ulp_bound is not None and len(diffs) > 1:  # every output's distance counts for the largest
        out.append(f"int vfy_d[] = {{{', '.join(diffs)}}};")
        diffs = [" || ".join(f"vfy_d[{j}]" for j in range(len(diffs)))]
    out.append(f"if (!({' || '.join(diffs) or '0'})) continue;")
    return out


def _show_outputs_c(ptrs: _Params, ret: CType, nan_bits: bool, ulp_bound: int | None) -> list[str]:
    """The mismatch report's lines of lane l's outputs (result, what varying pointers point to)."""
    outs: list[tuple[str, CType, str, str]] = []
    if not isinstance(ret, Void):
        outs.append(("return", ret, "vfy_b_sret", "vfy_b_vret"))
    for i, p in ptrs:
        assert isinstance(p.type, Pointer)
        outs.append((f"*{p.name} after", p.type.target, f"vfy_b_sout{i}", f"vfy_b_vout{i}"))
    out: list[str] = []
    for label, t, s, v in outs:
        if ulp_bound is not None and isinstance(strip_spelling(t), Float):
            out.append(f"{{ uint64_t d = vfy_ulp({strip_spelling(t).size()}, {s}[l], {v}[l]);"
                       f" if (d == UINT64_MAX) printf(\"mismatch:   {label}: DIFFERS scalar \");"
                       f" else printf(\"mismatch:   {label}: %s by %llu ULP: scalar \","
                       f" d > {ulp_bound}ULL ? \"DIFFERS\" : \"same\", (unsigned long long)d); }}")
        else:
            out.append(f"printf(\"mismatch:   {label}: %s scalar \","
                       f" {_differ(t, f'{s}[l]', f'{v}[l]', nan_bits)} ? \"DIFFERS\" : \"same\");")
        out.append(f"vfy_show({_cls(t)}, {t.size()}, {s}[l]); printf(\" vector \");"
                   f" vfy_show({_cls(t)}, {t.size()}, {v}[l]); printf(\"\\n\");")
    return out


def _show_observed_c(observed: Sequence[tuple[str, CType]], nan_bits: bool) -> list[str]:
    """The mismatch report's lines of the globals (errno by name), on the lane that last changed each."""
    out: list[str] = []
    for j, (name, t) in enumerate(observed):
        s, v = f"vfy_b_sg{j}", f"vfy_b_vg{j}"
        out += [f"if (l == vfy_who{j}) {{",
                f"    printf(\"mismatch:   {name}{'' if name == 'errno' else ' after'}: %s scalar \","
                f" {_differ(t, s, v, nan_bits)} ? \"DIFFERS\" : \"same\");"]
        if name == "errno":
            out.append(f"    vfy_show_errno({s}, vfy_pat{j}); printf(\" vector \"); vfy_show_errno({v}, vfy_pat{j});"
                       " printf(\"\\n\");")
        else:
            out.append(f"    vfy_show({_cls(t)}, {t.size()}, {s}); printf(\" vector \");"
                       f" vfy_show({_cls(t)}, {t.size()}, {v}); printf(\"\\n\");")
        out.append("}")
    return out


def _compare_arrays_c(uptrs: _Params, lvals: _Params, total: int, nan_bits: bool, ulp_bound: int | None
                      ) -> list[str]:
    """The uniform arrays after all calls, element by element (member by member), the slack before them too."""
    out: list[str] = []
    for a in _arrays(uptrs):
        if not a.compare:
            continue  # (a struct passed by value: the calls cannot change the array)
        t, esize = a.tag, a.elem.size()
        for path, lt in _leaves(a.elem):
            cls, size = _cls(lt), lt.size()
            out += [f"for (long long j = -(long long)(vfy_slack{t} / {esize}); j < (long long)VFY_NARR; j++) {{",
                    f"    uint64_t s = vfy_bits(&vfy_su{t}[j]{path}, {size}),"
                    f" v = vfy_bits(&vfy_vu{t}[j]{path}, {size});"]
            # An element computed from several array elements may carry any of their NaN payloads.
            strict = nan_bits and not isinstance(strip_spelling(lt), Float)
            if ulp_bound is not None and isinstance(strip_spelling(lt), Float):
                out.append(f"    if (vfy_ulp_seen({size}, s, v) <= {ulp_bound}ULL) continue;")
            else:
                out.append(f"    if (!({_differ(lt, 's', 'v', strict)})) continue;")
            out += ["    vfy_mism++;", f"    if (vfy_amism++ >= {MAX_PRINTED}) continue;",
                    f"    printf(\"mismatch: array {a.label} index %lld{path}%s after all calls: DIFFERS scalar \", j,"
                    " j < 0 ? \" (before the array)\" : \"\");",
                    f"    vfy_show({cls}, {size}, s); printf(\" vector \"); vfy_show({cls}, {size}, v);"]
            if lvals and OFFSET + total - 1 <= lvals[0][1].type.max:  # the hint holds while x does not wrap
                out.append("    if (j >= (long long)VFY_OFFSET && j < (long long)(VFY_OFFSET + VFY_TOTAL))"
                           f" printf(\" (input %lld has {lvals[0][1].name}=%lld)\", j - (long long)VFY_OFFSET, j);")
            out += ["    printf(\"\\n\");", "}"]
    return out


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
    compile time this way. Safe for processes sharing ``d``: each file appears whole (a rename)."""
    tag = re.sub(r"\W", "_", "-".join([isa.name, str(isa.lanes), *cflags]))
    if len(tag) > 80:  # (a file name's length is limited)
        tag = f"{tag[:40]}_{hashlib.sha256(tag.encode()).hexdigest()[:16]}"
    h = d / f"verify-pch-{tag}.h"
    if Path(f"{h}.gch").exists():
        return h
    d.mkdir(parents=True, exist_ok=True)
    std = ["<signal.h>", "<stdatomic.h>", "<stdint.h>", "<stdio.h>", "<stdlib.h>", "<string.h>", "<sys/mman.h>",
           "<unistd.h>"]
    own = f"{os.getpid()}-{threading.get_ident()}"
    tmp_h = d / f".{h.name}.{own}"
    tmp_h.write_text("".join(f"#include {x}\n" for x in [*std, *getattr(isa, "headers", [])]))
    os.replace(tmp_h, h)  # (the same text whoever writes it; never seen half written by a compiler)
    tmp = d / f".{h.name}.{own}.gch"
    _run(list(isa.cc) + COMPILE_FLAGS + list(isa.cflags) + list(cflags) + ["-x", "c-header", str(h), "-o", str(tmp)],
         "precompiling the headers", d, COMPILE_TIMEOUT)
    os.replace(tmp, f"{h}.gch")
    return h


@functools.cache
def _compiler_id(cc: tuple[str, ...]) -> str:
    """A short hash of ``cc --version`` (precompiled headers are only good for the compiler that made them)."""
    try:
        out = subprocess.run([*cc, "--version"], check=False, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    return hashlib.sha256(f"{cc}\0{out}".encode()).hexdigest()[:12]


#: Names that, in a directory the harness searches first, could stand for a system header the
#: precompiled headers hold (glibc's own include/ has stdio.h, bits/, sys/ ...)
_SYSTEM_NAMES = ("signal.h", "stdatomic.h", "stdint.h", "stdio.h", "stdlib.h", "string.h", "unistd.h", "stddef.h",
                 "stdarg.h", "features.h", "errno.h", "math.h", "immintrin.h", "arm_neon.h", "altivec.h",
                 "riscv_vector.h", "arm_sve.h", "bits", "sys", "gnu", "asm")


def cached_precompiled_header(isa: IsaLike, cflags: Sequence[str] = (), dirs: Iterable[Path | str] = ()) \
        -> Path | None:
    """``precompiled_header`` in expand's cache (expand/cache.py, one directory per compiler), or None
    where the ISA's compiler takes none (``Isa.precompiled_headers``), where one of ``dirs`` (the
    directories searched before the system's) holds a file or directory named like a system header
    (_SYSTEM_NAMES), or where the cache cannot be written (the headers are then parsed each time: only
    slower)."""
    if not getattr(isa, "precompiled_headers", False) \
            or any((Path(d) / n).exists() for d in dirs for n in _SYSTEM_NAMES):
        return None
    try:
        return precompiled_header(isa, cache_root() / f"verify-pch-{_compiler_id(tuple(isa.cc))}", cflags)
    except (OSError, _BuildError):
        return None


def defines_feature_macro(c_text: str) -> bool:
    """Whether ``c_text`` defines a feature-test macro (``_GNU_SOURCE``) before its #includes could read it:
    precompiled headers, read without it, cannot be force-included there (they decide what math.h declares)."""
    return re.search(r"^\s*#\s*define\s+_\w*_SOURCE\b", c_text, re.M) is not None


def trip_bounds(params: Sequence, trip_params: Sequence[str], given: dict[str, tuple[int, int]] | None = None,
                index_params: Mapping[str, int | None] | None = None, n_random: int = 0
                ) -> tuple[dict[str, tuple[int, int]], list[str]]:
    """The bounds for ``verify``: ``given`` (``--range``), plus TRIP_BOUNDS (within the type's range) for
    each of ``trip_params`` (names of integer value parameters of ``params``, which have ``name``,
    ``type`` and ``shape``) that ``given`` leaves open; and one line per default saying so.
    ``index_params`` (parameters a subscript through a uniform pointer depends on, each with the length of
    the array it indexes: expand/analysis/pointer_params.py) that ``given`` leaves open are drawn from 0 to
    that length - 1, or for the pointer's own elements (``s[i].a``) to ``max(n_random, OFFSET) - 1``
    (``n_random``: ``verify``'s): indexes of the uniform arrays' elements, which hold ``OFFSET`` more than
    the inputs after them (within TRIP_BOUNDS too when the parameter also bounds a loop)."""
    bounds = dict(given or {})
    notes: list[str] = []
    index_params = index_params or {}
    for p in params:
        t = strip_spelling(p.type)
        trip, index = p.name in trip_params, p.name in index_params
        if not (trip or index) or p.name in bounds or p.shape == "linear" or not isinstance(t, Int) or t.is_bool:
            continue
        lo, hi = t.min, t.max
        why = []
        if trip:
            lo, hi = max(TRIP_BOUNDS[0], lo), min(TRIP_BOUNDS[1], hi)
            why.append("it bounds a loop's trip count")
        if index:
            length = index_params[p.name]
            lo, hi = max(0, lo), min((max(n_random, OFFSET) if length is None else length) - 1, hi)
            why.append("it indexes memory through a uniform pointer" if length is None
                       else f"it indexes an array of {length} through a uniform pointer")
        bounds[p.name] = (lo, hi)
        notes.append(f"{p.name}: drawn from {lo}..{hi} ({' and '.join(why)}; --range {p.name}=LO:HI to change)")
    return bounds, notes


def shaped_inputs(f, given: dict[str, tuple[int, int]] | None = None, n_random: int = 100_000
                  ) -> tuple[dict[str, tuple[int, int]], list[str], list[str]]:
    """What ``expand --verify`` gives ``verify`` for an expanded function ``f`` (expand/driver.py's
    ``Expanded``): the bounds of its integer parameters (``trip_bounds``: ``given``, then the defaults of
    trip counts and indexes), one line per default, and the uniform pointers that move one element per
    gang (``verify(moving=...)``: those ``f`` reaches only at constant offsets below OFFSET)."""
    given = {n: r for n, r in (given or {}).items() if any(p.name == n for p in f.params)}
    bounds, notes = trip_bounds(f.params, f.trip_params, given, f.index_params, n_random)
    return bounds, notes, [n for n, reach in f.fixed_pointers.items() if reach < OFFSET]


def verify(*, scalar_sources: Sequence[Path], scalar_name: str, vector_c: str, vector_name: str,
           params: Sequence[Param], ret: CType, isa: IsaLike, include_dirs: Sequence[Path] = (),
           defines: Sequence[str] = (), undefs: Sequence[str] = (), link_files: Sequence[Path] = (),
           libs: Sequence[str] = ("m",), constants: Sequence[int | float] = (), n_random: int = 100_000,
           seed: int = 1, workdir: Path | None = None, keep: bool = False,
           call_log: bool = False, call_log_loose: Sequence[int] = (), call_log_loose_step: int = 0,
           nan_bits: bool = True,
           pch: Path | None | str = "cache",
           ulp_bound: int | None = None, cflags: Sequence[str] = (),
           scalar_cflags: Sequence[str] = (), scalar_static: bool = False,
           bounds: dict[str, tuple[int, int]] | None = None, global_vars: Sequence[tuple[str, CType]] = (),
           errno: bool | None = None, timeout: float = VERIFY_TIMEOUT, hidden_state: str = "",
           moving: Sequence[str] = ()) -> VerifyReport:
    """Compare ``scalar_name`` (from ``scalar_sources``) with ``vector_name`` (in ``vector_c``) bit for bit.

    ``call_log``: also compare the calls recorded with ``vfy_log_record`` (see the module docstring);
    ``call_log_loose``: the sites called in loops, whose lanes' rounds of calls interleave (see the
    call log section of harness.c); with ``call_log_loose_step``, a site is loose when it is one of
    them modulo that step (sites that add a multiple of the step for each loop counter around them).
    ``nan_bits=False``: a NaN result matches any NaN (for code whose NaN signs and payloads C leaves
    open: which operand's NaN an operation returns, and so its sign, depends on how the compiler
    orders commutative operands).
    ``pch``: a header made by ``precompiled_header`` for this ISA, force-included in the harness (it
    only saves the compiler from parsing the intrinsics headers again; a stale one is ignored, and so is
    any where ``vector_c`` defines a feature-test macro such as _GNU_SOURCE); ``"cache"`` (the default):
    one kept in expand's cache (``cached_precompiled_header``); None: none.
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
    ``moving``: uniform pointer parameters the function reads and writes only at constant offsets
    (``s->a``, ``p[1]``: expand/analysis/pointer_params.py): gang g's calls get element g of the array
    instead of its start, so that each gang meets other contents (a struct's members take their edge values
    across the gangs), and a report of an input shows the members of its gang's element.
    ``timeout``: seconds the harness may run; past them it stops (an alarm in the harness) and the
    verdict is "timeout", naming the inputs it was running and their values (nothing is verified).
    ``hidden_state``: what the summary adds to mismatches when the function calls functions with hidden state
    (expand/passes/hidden_state.py: the order of those calls, or the state the scalar calls moved on).
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
        if _backed(p):
            try:
                _leaves(t)  # (an array of structs of ints and floats too)
                _pointer_members(t)  # (and of pointers to such arrays)
                _spell(t)
            except Unverifiable as exc:
                raise Unverifiable(f"parameter {p.name} ({p.type}): {exc}") from None
        elif not isinstance(t, (Int, Float)):
            raise Unverifiable(f"parameter {p.name}: unsupported type {p.type}")
        if p.shape not in SHAPES:
            raise ValueError(f"parameter {p.name}: unknown shape {p.shape!r} (one of {', '.join(SHAPES)})")
        if p.shape == "linear" and (isinstance(p.type, Pointer) or not isinstance(t, Int) or t.is_bool):
            raise TypeError(f"parameter {p.name}: a linear parameter must be an integer value, not {p.type}")
    if not isinstance(ret, (Int, Float, Void)):
        raise TypeError(f"unsupported return type {ret}")
    for name in moving:
        if not any(p.name == name and isinstance(p.type, Pointer) and p.shape == "uniform" for p in params):
            raise ValueError(f"moving: '{name}' is not a uniform pointer parameter")
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
    uparams = [p for p in params if not _backed(p) and p.shape == "uniform"]
    plan = _plan([p.type for p in vparams], isa.lanes, list(constants), n_random, [p.type for p in uparams],
                 [bounds.get(p.name) for p in vparams], [bounds.get(p.name) for p in uparams])
    harness_c = _harness(vector_file="vector.c", scalar_name=scalar_name, vector_name=vector_name,
                         scalar_symbol=f"vfy_static_{scalar_name}" if scalar_static else None, bounds=bounds,
                         params=params, ret=ret, isa=isa, plan=plan, seed=seed, call_log=call_log,
                         loose_sites=call_log_loose, loose_step=call_log_loose_step,
                         nan_bits=nan_bits, ulp_bound=ulp_bound,
                         observed=([("errno", Int(32, True))] if (ulp_bound is None if errno is None else errno)
                                   else []) + [(n, strip_spelling(t)) for n, t in global_vars if n != "errno"],
                         time_limit=max(1, math.ceil(min(timeout, 1 << 30))), moving=list(moving))

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
        scalar_base = _scalar_flags(base, isa, scalar_name)
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
            if pch == "cache":
                pch = cached_precompiled_header(isa, cflags, [*include_dirs, *src_dirs, *(
                    f[2:] for f in cflags if f.startswith("-I") and len(f) > 2)])
            # (not where the vector file defines a feature-test macro, _GNU_SOURCE for nextupf)
            force = ["-include", str(pch)] if pch is not None and not defines_feature_macro(vector_c) else []
            _run(base + _abstract_machine_calls(isa.clang) + sys_cpp + force + ["-c", "harness.c", "-o", "harness.o"],
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
            ub = _ub_probe(ks, isa, wd, scalar_base, list(scalar_cflags), cpp, [*scalar_sources, *link_files], libs,
                           cmd)
            if ub:
                kinds = {f"{Path(f).name}:{line}: {re.sub(r'0x[0-9a-fA-F]+|-?[0-9]+', 'N', what)}": None
                         for _, f, line, what in ub}
                where = list(kinds)[:3] + ([f"{len(kinds) - 3} more"] if len(kinds) > 3 else [])
                summary += (f"; the scalar code has undefined behaviour for these inputs ({'; '.join(where)}):"
                            " the scalar code's result is not defined there, so neither is a match")
                details = "\n".join(f"input {k}: {f}:{line}: {what}" for k, f, line, what in ub) + "\n" + details
                verdict = "scalar-ub"
            elif hidden_state:
                summary += f"; {hidden_state}"
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


def _ub_probe(inputs: list[str], isa: IsaLike, wd: Path, scalar_base: list[str], scalar_cflags: list[str],
              cpp: list[str], sources: Sequence[Path], libs: Sequence[str],
              cmd: list[str]) -> list[tuple[str, str, str, str]]:
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
            _run(scalar_base + scalar_cflags + cpp + [UBSAN, "-c", str(src), "-o", str(obj)],
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


def _scalar_flags(base: list[str], isa: IsaLike, scalar_name: str) -> list[str]:
    """The flags for the scalar sources: without -Werror (the user's code), and without -fopenmp-simd,
    with which GCC would make vector clones of a function declared '#pragma omp declare simd', under
    the names the vector file's --abi entry points have (the pragma is then an unknown one). GCC's also
    get -fno-tree-builtin-call-dce: at -O2 GCC calls a libm function whose value is dead only when its
    argument overflows (``if (y > 38.5f) exp10f(y)``), so the reference lost the ERANGE of an underflow
    the vector code's call keeps (expand-fuzz 20261127-48); with it the reference makes the call as C's
    abstract machine does, and errno is the library's. A scalar ``sincosf`` (``sincos``, ``sincosl``) gets
    -fno-builtin-sinf -fno-builtin-cosf: written as sinf and cosf calls (newlib's), GCC makes them one call
    of sincosf, itself, a recursion without end (``COMBINED_INTO``). Last, the table's ``reference_cflags``
    (instructions its emulator computes wrong, emit/altivec.py)."""
    return [f for f in base if f not in ("-Werror", "-fopenmp-simd")] + ["-Wno-unknown-pragmas"] \
        + _abstract_machine_calls(isa.clang) + [f"-fno-builtin-{b}" for b in COMBINED_INTO.get(scalar_name, ())] \
        + list(isa.reference_cflags)


def _abstract_machine_calls(clang: bool) -> list[str]:
    """GCC's flag that keeps every libm call whose value is dead (as C's abstract machine makes it), for both
    sides of the comparison, the scalar reference (``_scalar_flags``) and the harness with the vector file:
    without it on the vector side, the output's errno-only call ``(void)exp(y)`` lost an underflow's ERANGE
    (expand-fuzz 20261129-1169, on every GCC table)."""
    return [] if clang else ["-fno-tree-builtin-call-dce"]


def _dedupe_paths(ps: Iterable[Path]) -> list[Path]:
    return list(dict.fromkeys(ps))


def verify_params(params) -> list[Param]:
    """The verifier's view of an expanded function's parameters (``Symbol``s), with their ABI shapes."""
    return [Param(p.name, p.type, p.shape or "varying") for p in params]
