"""Generic: portable GCC/Clang vector extensions (``__attribute__((vector_size(N)))``), any ISA.

A gang of ``lanes`` lanes (a power of two; 4 by default) is one vector type: ``_Exp_v<L>f32``
(float), ``_Exp_v<L>f64`` (double), ``_Exp_v<L>i32`` (int32_t: i32, u32 and the narrow kinds, held
widened as on SSE: i8/i16 sign-extended, u8/u16 zero-extended) and ``_Exp_v<L>i64`` (int64_t: i64
and u64). Unsigned operations bit-cast to the ``_Exp_v<L>u32``/``u64`` vector types for the one
operator that needs it. A mask is an ``_Exp_v<L>i32`` of 0 / -1 lanes (what vector comparisons
give), converted with ``__builtin_convertvector`` where 64-bit lanes compare or select.

Native (C operators on vectors): arithmetic (integer ``+ - *`` and ``<<`` in the unsigned type so
they wrap), ``/`` and ``%`` (the divisors are safe in every lane), ``& | ^ ~``, negation, shifts by
scalar or per-lane counts, comparisons, selects (``and``/``andnot``/``or`` on bit-cast vectors: GCC's C
front end has no vector ``?:``), mask logic; conversions with ``__builtin_convertvector`` (float to
integer of in-range lanes only: ``_float_to_int``, as Clang makes poison of the others); bitcasts
with vector casts; unaligned loads/stores through ``may_alias``, ``aligned(1)`` vector types (narrow
kinds through narrow-element vectors). Small loops (which the compiler unrolls): ``mask_bits``,
``mask_any``, ``mask_all``. Only the libm operations (``math``: vector extensions have no sqrt,
rounding, fmin or fma whose results are the target's libm's) fall back to the lane-by-lane ``Isa``
helpers.

Vectors wider than 16 bytes change the x86 calling convention without AVX, which GCC reports
with ``-Wpsabi`` (an error under ``-Werror``), so ``cflags`` is ``["-Wno-psabi"]``: harmless as long
as objects built with and without AVX do not call each other's gang functions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .isa import (
    CMPOPS,
    Isa,
    check_binop,
    is_float,
    is_int_literal,
    is_signed,
    kind_bits,
    scalar_ctype,
)

_WORD = re.compile(r"[A-Za-z_]\w*|(?:\d|\.\d)(?:[eEpP][+-]|[\w.])*")

#: what a cast's type looks like in the C these methods receive (other parentheses are groupings)
_TYPE = re.compile(r"\s*(?:(?:const|volatile|signed|unsigned|short|long|int|char|float|double|_Bool|"
                   r"struct\s+\w+|\w+_t|_Exp_\w+|__m\w+)\s*)+\**\s*")


def _match(e: str, i: int) -> int:
    """Index of the bracket closing the one at ``e[i]``, or -1."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    for j in range(i, len(e)):
        c = e[j]
        if c in pairs:
            stack.append(pairs[c])
        elif c in ")]}":
            if not stack or stack.pop() != c:
                return -1
            if not stack:
                return j
    return -1


def _unary_end(e: str, i: int) -> int:
    """End of the unary-level C expression (cast, prefix, postfix or primary) at ``e[i]``, or -1."""
    if i >= len(e):
        return -1
    if e[i] in "-+~!*&":  # prefix operators (not doubled: "--" would be a decrement)
        return -1 if e.startswith(e[i], i + 1) else _unary_end(e, i + 1)
    if e[i] == "(":
        j = _match(e, i)
        if j < 0:
            return -1
        if e.startswith("{", j + 1):  # compound literal
            j = _match(e, j + 1)
            if j < 0:
                return -1
        elif _TYPE.fullmatch(e, i + 1, j):  # a cast of a unary expression is one too
            return _unary_end(e, j + 1)
        i = j + 1
    else:
        m = _WORD.match(e, i)
        if not m:
            return -1
        i = m.end()
    while i < len(e) and e[i] in "([":  # calls and subscripts
        j = _match(e, i)
        if j < 0:
            return -1
        i = j + 1
    return i


def _p(e: str) -> str:
    """``e`` as an operand of a binary operator or cast: parenthesized unless it is unary already."""
    e = e.strip()
    if "'" not in e and '"' not in e and _unary_end(e, 0) == len(e):
        return e
    return f"({e})"


def _pre(e: str) -> str:
    """``e`` as the operand of a prefix operator (never ``--x`` or ``~-x`` run together)."""
    q = _p(e)
    return f"({q})" if q[0] in "-+~!*&" else q


_ETYPE = {"f32": "float", "f64": "double", "i8": "int8_t", "u8": "uint8_t", "i16": "int16_t", "u16": "uint16_t",
          "i32": "int32_t", "u32": "uint32_t", "i64": "int64_t", "u64": "uint64_t"}


#: GCC takes ``a * b < b * a`` on vectors for a self-comparison (its operand matching knows that
#: integer multiplication commutes) and -Wall warns; the scalar code, with its casts, gets no warning
#: (expand-fuzz, tests/fuzz_regressions/generic_commuted_compare.c). The comparison is what the source
#: says: silence that one warning.
NO_TAUTOLOGICAL = ("/* a * b < b * a is what the source compares (GCC's -Wtautological-compare would object) */\n"
                   "#pragma GCC diagnostic ignored \"-Wtautological-compare\"\n")

class Generic(Isa):
    """GCC/Clang generic vectors with 4 (or any power of two) lanes."""

    name = "generic"
    default_lanes = 4
    boscc_blend_cost = 3  # and, andnot, or
    #: GCC reports (-Wpsabi) every function passing a vector wider than 16 bytes (4 doubles) by value
    #: without AVX, sometimes at no source location (so a ``#pragma GCC diagnostic`` cannot silence it)
    CFLAGS = ("-Wno-psabi",)
    HEADERS = ()
    #: What a float -> integer conversion gives in a lane out of range or NaN (undefined in C: any value will
    #: do, and only in-range lanes convert, ``_float_to_int``): False, the top bit alone, what x86's scalar
    #: ``cvttss2si`` gives for a signed conversion (so the output compiled by GCC for x86, this table's host,
    #: computes what the scalar code does even there); True, saturated with NaN to the largest value, what
    #: RISC-V's ``fcvt`` gives (emit/rvv.py).
    SATURATE = False

    def __init__(self, lanes: int | None = None) -> None:
        super().__init__(lanes)
        if self.lanes & (self.lanes - 1):
            raise ValueError(f"generic gangs have a power-of-two number of lanes, not {self.lanes}")
        self.start()

    def start(self) -> None:
        self.need("_exp_no_tautological_compare", NO_TAUTOLOGICAL)

    # ------------------------------------------------------------------ types
    @staticmethod
    def _tag(k: str) -> str:
        """The element of the vector holding kind ``k``: f32, f64, i32 or i64."""
        return k if is_float(k) else f"i{max(32, kind_bits(k))}"

    def _vt(self, tag: str, unaligned: bool = False) -> str:
        """The vector type of ``lanes`` elements ``tag`` (any kind), optionally the unaligned, may_alias one."""
        size = self.lanes * kind_bits(tag) // 8
        name = f"_Exp_v{self.lanes}{tag}" + ("_u" if unaligned else "")
        attrs = f"vector_size({size})" + (f", aligned({kind_bits(tag) // 8}), may_alias" if unaligned else "")
        self.need(name, f"typedef {_ETYPE[tag]} {name} __attribute__(({attrs}));\n")
        return name

    def vtype(self, k: str) -> str:
        return self._vt(self._tag(k))

    def _uvt(self, k: str) -> str:
        """The unsigned vector type of ``k``'s lanes (u32 or u64)."""
        return self._vt(f"u{kind_bits(self._tag(k))}")

    def mask_type(self) -> str:
        return self._vt("i32")

    def mtype(self, k: str) -> str:
        return self._array_type(k) if self._narrow(k) else self.vtype(k)

    @staticmethod
    def _narrow(k: str) -> bool:
        return not is_float(k) and kind_bits(k) < 32

    @staticmethod
    def _unsigned(k: str) -> bool:
        """Unsigned kinds whose values do not fit the signed element (u32, u64)."""
        return k in ("u32", "u64")

    def _as_u(self, k: str, e: str) -> str:
        """``e`` (a gang of integer kind ``k``) in the unsigned vector type of its lanes."""
        return f"({self._uvt(k)}){_p(e)}"

    def _from_u(self, k: str, e: str) -> str:
        """``e`` (an unsigned vector) back in ``vtype(k)``."""
        return f"({self.vtype(k)}){_p(e)}"

    def _fix(self, k: str, e: str) -> str:
        """Re-extend 32-bit lanes holding ``k`` values modulo 2^bits (identity for the other kinds)."""
        if not self._narrow(k):
            return e
        b = kind_bits(k)
        if is_signed(k):
            return f"(({self.vtype(k)})({self._as_u(k, e)} << {32 - b}) >> {32 - b})"
        return f"({_p(e)} & {(1 << b) - 1:#x})"

    # ------------------------------------------------------------------ memory
    def loadu(self, k: str, ptr: str) -> str:
        if self._narrow(k):
            return f"__builtin_convertvector(*(const {self._vt(k, True)} *){_p(ptr)}, {self.vtype(k)})"
        # cast to the aligned type: ``c ? loadu(...) : build(...)`` needs both arms of one type
        return f"(({self.vtype(k)})*(const {self._vt(self._tag(k), True)} *){_p(ptr)})"

    def storeu(self, k: str, ptr: str, v: str) -> str:
        if self._narrow(k):
            return f"*({self._vt(k, True)} *){_p(ptr)} = __builtin_convertvector({v}, {self._vt(k)})"
        return f"*({self._vt(self._tag(k), True)} *){_p(ptr)} = {v}"

    def load(self, k: str, ptr: str) -> str:
        return super().load(k, ptr) if self._narrow(k) else f"(*{_p(ptr)})"

    def store(self, k: str, ptr: str, v: str) -> str:
        return super().store(k, ptr, v) if self._narrow(k) else f"*{_p(ptr)} = {v}"

    def _mask_loadu(self, ptr: str) -> str:
        return self.loadu("i32", ptr)

    def _mask_storeu(self, ptr: str, m: str) -> str:
        return self.storeu("i32", ptr, m)

    # ------------------------------------------------------------------ gang construction
    def _literal_fits(self, k: str, s: str) -> bool:
        """``s`` is an integer literal whose value kind ``k`` and the (signed) vector element both hold."""
        if not is_int_literal(s):
            return False
        v = int(s.strip().rstrip("uUlL"), 0)
        bits = kind_bits(k)
        hi = (1 << (bits - 1 if is_signed(k) else bits)) - 1
        return v <= min(hi, (1 << (max(32, bits) - 1)) - 1)

    def _elem(self, k: str, s: str) -> str:
        """Scalar ``s`` as a vector element of kind ``k`` (explicit casts: no -Woverflow on constants)."""
        if is_float(k) or self._literal_fits(k, s):
            return s.strip()
        e = f"({scalar_ctype(k)}){_p(s)}"
        return f"({_ETYPE[self._tag(k)]}){e}" if self._unsigned(k) else e

    def splat(self, k: str, scalar: str) -> str:
        vt = self.vtype(k)
        if scalar.strip() in ("0", "0.0", "0.0f"):
            return f"({vt}){{0}}"
        t = scalar_ctype(k)
        x = self._elem(k, "x") if self._unsigned(k) else "x"
        name = self._ret_func(f"_exp_splat_{k}", vt, [f"{t} x"], f"({vt}){{{', '.join([x] * self.lanes)}}}")
        arg = scalar.strip() if is_float(k) or self._literal_fits(k, scalar) else f"({t}){_p(scalar)}"
        return f"{name}({arg})"

    def build(self, k: str, scalars: Sequence[str]) -> str:
        if len(scalars) != self.lanes:
            raise ValueError(f"build needs {self.lanes} scalars, got {len(scalars)}")
        return f"({self.vtype(k)}){{{', '.join(self._elem(k, s) for s in scalars)}}}"

    def extract(self, k: str, v: str, lane: int) -> str:
        if not 0 <= lane < self.lanes:
            raise ValueError(f"lane {lane} out of range")
        v = v.strip()
        return f"(({scalar_ctype(k)}){v if _WORD.fullmatch(v) else f'({v})'}[{lane}])"

    # ------------------------------------------------------------------ arithmetic
    def binop(self, op: str, k: str, a: str, b: str) -> str:
        check_binop(op, k)
        if is_float(k):
            if op in "&|^":
                it = self._vt(f"i{kind_bits(k)}")
                return f"({self.vtype(k)})(({it}){_p(a)} {op} ({it}){_p(b)})"
            return f"({_p(a)} {op} {_p(b)})"
        if op in "&|^":
            return f"({_p(a)} {op} {_p(b)})"
        if op in "+-*" or self._unsigned(k):  # + - * wrap: in the unsigned type
            return self._fix(k, self._from_u(k, f"{self._as_u(k, a)} {op} {self._as_u(k, b)}"))
        e = f"({_p(a)} {op} {_p(b)})"
        return self._fix(k, e) if op == "/" else e  # i8 -128 / -1 is 128 in the wide lane

    def shift(self, op: str, k: str, a: str, n: str, n_uniform: bool) -> str:
        if op not in ("<<", ">>") or is_float(k):
            raise ValueError(f"shift {op!r} on {k}")
        cnt = _p(n) if n_uniform else self._as_u(k, n)
        if op == "<<" or self._unsigned(k):
            return self._fix(k, self._from_u(k, f"{self._as_u(k, a)} {op} {cnt}"))
        return f"({_p(a)} >> {_p(n)})"

    def shift_count(self, k: str, n: str, n_uniform: bool) -> str:
        """The count masked into [0, lane bits) (``n & 31``): a vector shift by the width or more, or by a
        negative count, is undefined in C, and Clang makes poison of the lane, which the ``and``/``or`` of a
        select does not stop (``if (x > 100u && n < 32) r = y << n;`` with ``n`` 40: Clang 16 folded the
        function into ``ret poison``, tests/fuzz_regressions/rvv_shift_count_out_of_range_*.c). The same value
        wherever the scalar code's shift was defined (vector ``& int`` broadcasts the int)."""
        return f"({_p(n)} & {kind_bits(self._tag(k)) - 1})"

    def unop(self, op: str, k: str, a: str) -> str:
        if op not in ("-", "~") or (op == "~" and is_float(k)):
            raise ValueError(f"unary {op!r} on {k}")
        if is_float(k):
            return f"(-{_pre(a)})"
        if op == "-":
            return self._fix(k, self._from_u(k, f"-{self._as_u(k, a)}"))
        if self._narrow(k) and not is_signed(k):
            return f"({_p(a)} ^ {(1 << kind_bits(k)) - 1:#x})"
        return f"(~{_pre(a)})"

    # ------------------------------------------------------------------ comparisons, select, masks
    def _to_mask(self, k: str, e: str) -> str:
        """The mask from the vector comparison ``e`` (unparenthesized) on ``k``'s lanes."""
        if kind_bits(self._tag(k)) == 32:
            return f"({e})"
        return f"__builtin_convertvector({e}, {self.mask_type()})"

    def cmp(self, op: str, k: str, a: str, b: str) -> str:
        if op not in CMPOPS:
            raise ValueError(f"unknown comparison {op!r}")
        if self._unsigned(k) and op not in ("==", "!="):
            a, b = self._as_u(k, a), self._as_u(k, b)
        return self._to_mask(k, f"{_p(a)} {op} {_p(b)}")

    def int_to_mask(self, k: str, a: str) -> str:
        return self._to_mask(k, f"{_p(a)} != 0")

    def select(self, k: str, m: str, a: str, b: str) -> str:
        tag = self._tag(k)
        vt, it, mt = self.vtype(k), self._vt(f"i{kind_bits(tag)}"), self.mask_type()
        w = "m" if it == mt else f"__builtin_convertvector(m, {it})"
        if it == vt:
            body = f"    {it} w = {w};\n    return (a & w) | (b & ~w);\n"
        else:
            body = f"    {it} w = {w};\n    return ({vt})((({it})a & w) | (({it})b & ~w));\n"
        name = self._func(f"_exp_select_{tag}", vt, [f"{mt} m", f"{vt} a", f"{vt} b"], body)
        return f"{name}({m}, {a}, {b})"

    def mask_const(self, value: bool) -> str:
        z = f"({self.mask_type()}){{0}}"
        return f"(~{z})" if value else z

    def mask_and(self, a: str, b: str) -> str:
        return f"({_p(a)} & {_p(b)})"

    def mask_or(self, a: str, b: str) -> str:
        return f"({_p(a)} | {_p(b)})"

    def mask_xor(self, a: str, b: str) -> str:
        return f"({_p(a)} ^ {_p(b)})"

    def mask_andnot(self, a: str, b: str) -> str:
        return f"({_p(a)} & ~{_pre(b)})"

    def mask_not(self, a: str) -> str:
        return f"(~{_pre(a)})"

    def mask_to_int(self, m: str) -> str:
        return f"({_p(m)} & 1)"

    def _mask_reduce(self, name: str, ret: str, init: str, step: str, result: str) -> str:
        mt = self.mask_type()
        return self._func(name, ret, [f"{mt} m"],
                          f"    {ret} r = {init};\n    for (int i = 0; i < {self.lanes}; i++)\n"
                          f"        {step}\n    return {result};\n")

    def mask_bits(self, m: str) -> str:
        name = self._mask_reduce("_exp_mask_bits", "unsigned", "0", "r |= (unsigned)(m[i] & 1) << i;", "r")
        return f"{name}({m})"

    def mask_any(self, m: str) -> str:
        name = self._mask_reduce("_exp_mask_any", "int", "0", "r |= m[i];", "r != 0")
        return f"{name}({m})"

    def mask_all(self, m: str) -> str:
        name = self._mask_reduce("_exp_mask_all", "int", "-1", "r &= m[i];", "r != 0")
        return f"{name}({m})"

    # ------------------------------------------------------------------ conversions
    def convert(self, src_k: str, dst_k: str, a: str) -> str:
        if src_k == dst_k:
            return a
        s, d = src_k, dst_k
        if not is_float(s) and not is_float(d) and self._tag(s) == self._tag(d):
            # same lanes: re-extend where d does not hold every s value
            sb, db = kind_bits(s), kind_bits(d)
            fits = sb < db and (is_signed(d) or not is_signed(s))
            return a if fits or db >= 32 else self._fix(d, a)
        if is_float(s) and not is_float(d):
            cvt = f"{self._float_to_int(s, d)}({a.strip()})"
            return f"({self.vtype(d)}){cvt}" if self._unsigned(d) else self._fix(d, cvt)
        src = self._as_u(s, a) if self._unsigned(s) else a.strip()  # u32 -> 64 bits: zero-extended
        if self._unsigned(d):
            return f"({self.vtype(d)})__builtin_convertvector({src}, {self._uvt(d)})"
        return self._fix(d, f"__builtin_convertvector({src}, {self.vtype(d)})")

    def _float_to_int(self, s: str, d: str) -> str:
        """The helper converting float kind ``s`` to the lanes holding integer kind ``d`` (its signed element,
        or u32/u64), truncating, defined in every lane: out of range a conversion is undefined in C, and Clang
        takes ``__builtin_convertvector`` of such a lane for poison, which the ``and``/``or`` of a select does
        not stop; a division by it is undefined behaviour of the whole function (expand-fuzz rvv 20261127-43:
        Clang 16 folded it into ``ret poison``), and inactive lanes convert whatever they hold. So only
        in-range lanes convert (the others convert 0.0), and the others get ``SATURATE``'s value."""
        unsigned = self._unsigned(d)
        sb, tag = kind_bits(s), f"u{kind_bits(self._tag(d))}" if self._unsigned(d) else self._tag(d)
        db, suf = kind_bits(tag), "f" if sb == 32 else ""
        fv, fi, tv = self.vtype(s), self._vt(f"i{sb}"), self._vt(tag)
        top = 1 << (db if unsigned else db - 1)  # 2^32, 2^64, 2^31 or 2^63: exact in either float type
        if unsigned:
            low = f"a > -1.0{suf}"
        elif sb == 64 and db == 32:
            low = f"a > -{top + 1}.0"  # (-2147483648.5 truncates into range)
        else:
            low = f"a >= -{top}.0{suf}"  # (no float between -2^31 - 1 and -2^31, nor for 2^63)

        def wide(m: str) -> str:  # a mask of the float's lanes, in the integer's width
            return m if sb == db else f"__builtin_convertvector({m}, {self._vt(f'i{db}')})"

        neg = f"(a < 0.0{suf})"
        if not self.SATURATE:  # the top bit alone
            what = "the top bit alone (x86's value)"
            out = f"(({tv}){_p(wide('~in'))} & {1 << (db - 1):#x}u{'ll' if db == 64 else ''})" if unsigned else \
                f"({wide('~in')} & ~{top - 1:#x})"
        elif unsigned:
            what = "saturate, NaN to the largest value"
            out = f"({tv}){_p(wide(f'~in & ~{neg}'))}"
        else:
            what = "saturate, NaN to the largest value"
            out = f"({wide('~in')} & ({wide(neg)} ^ {top - 1:#x}))"
        body = (f"    /* lanes out of range or NaN (undefined in C) convert 0.0, then give {what} */\n"
                f"    {fi} in = ({low}) & (a < {top}.0{suf});\n"
                f"    {tv} r = __builtin_convertvector(({fv})(({fi})a & in), {tv});\n"
                f"    return r | {out};\n")
        return self._func(f"_exp_cvt_{s}_{tag}", tv, [f"{fv} a"], body)

    def bitcast(self, src_k: str, dst_k: str, a: str) -> str:
        if kind_bits(src_k) != kind_bits(dst_k):
            raise ValueError(f"bitcast {src_k} -> {dst_k}: widths differ")
        if src_k == dst_k:
            return a
        if not is_float(src_k) and not is_float(dst_k):
            return self.convert(src_k, dst_k, a)
        return f"({self.vtype(dst_k)}){_p(a)}"
