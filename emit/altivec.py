"""AltiVec/VSX for POWER8 and later (ppc64le): 4-lane gangs (also 8 or 16) in 128-bit registers.

Register layout (``__vector`` spellings only: ``<altivec.h>`` defines ``vector``, ``pixel`` and
``bool`` as macros, which the prelude undefines again so user names survive): f32 -> ``__vector
float``; f64 -> ``__vector double`` (2 lanes per register); i32/u32 and the narrow kinds (widened:
i8/i16 sign-extended, u8/u16 zero-extended) -> ``__vector signed int``; i64/u64 -> ``__vector signed
long long``. Signed and unsigned kinds share one register type per width (the printer relies on
``vtype('u32') == vtype('i32')``); unsigned operations cast to ``__vector unsigned int/long long``.
A mask is a ``__vector __bool int`` per 4 lanes (a struct of them for 8 or 16 lanes); 64-bit kinds
use it widened per register (``vec_unpackh``/``vec_unpackl``) and narrow 64-bit compares back with
``vec_pack``. GCC numbers vector elements in memory order on little-endian (``vec_mergeh``,
``vec_unpackh``, ``vec_pack``, ``vec_mule``, ``vec_doubleh``, ``vec_float2``, ``vec_extract`` all
follow that order); ``tests/test_isa.py`` checks every one of them lane by lane.

Native: loads/stores (``vec_xl``/``vec_xst``; narrow kinds through one scalar load and
``vec_unpackh``, stores through ``vec_pack``); all f32/f64 arithmetic (VSX, IEEE); 8..64-bit integer
``+ - & | ^``, negation, ``~``; 32-bit ``*`` (``vmuluwm``), 64-bit ``*`` from 32-bit products
(``vec_mule`` + ``vec_mul``); 8..32-bit ``/`` and ``%`` through doubles (``xvdivdp``, exact for 32-bit
operands); shifts by immediate, uniform or per-lane count on every integer kind
(``vec_sl``/``vec_sr``/``vec_sra``, 64-bit too); all comparisons (unsigned ones on unsigned vector
types; ``!=`` is ``vec_cmpne``, true on NaN; the float others ordered) and ``vec_sel`` selects;
masks (``vec_and``/``vec_or``/``vec_xor``/``vec_andc``, ``vec_any_ne``/``vec_all_ne``, ``vec_bperm``
for ``mask_bits``); every conversion between integer widths, int <-> float of every width (VSX
converts, correctly rounded, u64 -> f32 included) and f32 <-> f64; bitcasts; libm sqrt, rounding,
fmin/fmax and double fma (``math``). Per-lane scalar fallback (from ``Isa``): 64-bit integer ``/`` and
``%`` (no vector integer divide on POWER8), fmaf (see ``math``).

Signalling NaNs: C on POWER converts float to double exactly (``lfs``/``xscvspdpn`` keep an sNaN
signalling) while ``xvcvspdp`` quiets it, so f32 -> f64 clears the quiet bit again in those lanes;
``vec_extract`` of a float lane goes through ``xscvspdp`` (quieting) and is done on the bits instead.

GCC 12 bugs avoided: ``vec_unsigned`` on ``__vector float``/``double`` and ``vec_float2`` on
``__vector unsigned long long`` emit the *signed* conversions (xvcvspsxws, xvcvdpsxds, xvcvsxdsp);
we use ``vec_ctu`` and ``vec_floate`` instead.

qemu 7.2 bug avoided (the output must be right under qemu and on hardware): a NaN lane of a vector
float -> int conversion turns the lanes after it into the NaN's result (Highway's PR #1919), so every
such conversion zeroes its NaN lanes first and gives them POWER's result itself.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from expand.ir.cprint import literal_value

from .isa import (
    CMPOPS,
    OPNAMES,
    Arg,
    RegIsa,
    check_binop,
    check_math,
    is_float,
    is_signed,
    kind_bits,
    scalar_ctype,
)

VF32, VF64 = "__vector float", "__vector double"
VI32, VU32 = "__vector signed int", "__vector unsigned int"
VI64, VU64 = "__vector signed long long", "__vector unsigned long long"
VM32 = "__vector __bool int"
VM64 = "__vector __bool long long"
ONES = f"({VM32})vec_splats(-1)"
ZEROS = f"({VM32})vec_splats(0)"
CMP = {"==": "vec_cmpeq", "!=": "vec_cmpne", "<": "vec_cmplt", "<=": "vec_cmple", ">": "vec_cmpgt",
       ">=": "vec_cmpge"}
#: libm operation -> VSX intrinsic (xvsqrtsp, xvrspim, xvrspip, xvrspiz, xvrspic; double: xv*dp*). nearbyint
#: is vec_rint too: GCC's vec_nearbyint is xvrspi, which rounds halfway cases away from zero.
VMATH = {"sqrt": "vec_sqrt", "floor": "vec_floor", "ceil": "vec_ceil", "trunc": "vec_trunc", "rint": "vec_rint",
         "nearbyint": "vec_rint"}
#: after ``#include <altivec.h>``: give ``vector``/``pixel``/``bool`` back to the program
KEYWORDS = ("/* <altivec.h> makes vector, pixel and bool macros: undo that (only __vector spellings here) */\n"
            "#undef vector\n#undef pixel\n#undef bool\n"
            "#ifdef __bool_true_false_are_defined\n#define bool _Bool\n#endif\n")
_PLAIN_INT = re.compile(r"\s*(0[xX][0-9a-fA-F]+|[1-9][0-9]*|0)\s*")
_FLOAT_LIT = re.compile(r"\s*(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?=[eE]))(?:[eE][+-]?[0-9]+)?([fF]?)\s*")


def _lit(text: str) -> int | None:
    """The value of a plain decimal/hex C integer literal without suffix, else None."""
    return int(text, 0) if _PLAIN_INT.fullmatch(text) else None


class Altivec(RegIsa):
    """AltiVec + VSX (POWER8, little-endian) with 4, 8 or 16 lanes."""

    name = "altivec"
    default_lanes = 4
    CFLAGS = ("-maltivec", "-mvsx", "-mcpu=power8")
    HEADERS = ("<altivec.h>",)
    CC = ("powerpc64le-linux-gnu-gcc",)
    RUN_PREFIX = ("qemu-ppc64le", "-L", "/usr/powerpc64le-linux-gnu")
    #: qemu-ppc64le (7.2 and 10.0) rounds the scalar 64-bit integer to float conversions
    #: ``xscvsxdsp``/``xscvuxdsp`` twice, through double: (float)(INT64_MIN + 2^38 + 256) gives
    #: 0xdf000000, hardware and the vector ``xvcvsxdsp`` 0xdeffffff. GCC picks them for power8 when the
    #: integer sits in a vector register (expand-fuzz altivec 20261129-1527); POWER7 has only
    #: ``fcfids``/``fcfidus``, which qemu rounds once, so the reference is built for it.
    REFERENCE_CFLAGS = ("-mcpu=power7",)
    reg_bits = 128
    arch, sleef_suffix = "ppc64le", "vsx"
    abi_macro = "defined(__ALTIVEC__) && defined(__VSX__)"  # no vector function ABI: for mathlib's header

    def __init__(self, lanes: int | None = None) -> None:
        super().__init__(lanes)
        if self.lanes not in (4, 8, 16):
            raise ValueError("altivec gangs have 4, 8 or 16 lanes")
        self.start()

    def start(self) -> None:
        self.need("_exp_altivec_keywords", KEYWORDS)

    # ------------------------------------------------------------------ types and memory
    def regtype(self, k: str) -> str:
        if is_float(k):
            return VF32 if k == "f32" else VF64
        return VI64 if kind_bits(k) == 64 else VI32

    def _utype(self, k: str) -> str:
        """The unsigned register type of integer kind ``k``'s lanes."""
        return VU64 if self.lane_bits(k) == 64 else VU32

    def _nm(self) -> int:
        """Registers in one mask."""
        return self.lanes // 4

    def mask_type(self) -> str:
        if self._nm() == 1:
            return VM32
        name = f"_Exp_m32x{self.lanes}"
        self.need(name, f"typedef struct {{ {VM32} v[{self._nm()}]; }} {name};\n")
        return name

    def _narrow_load(self, k: str) -> str:
        """Helper: one register of narrow kind ``k`` (4 lanes) from memory, one scalar load + unpacks."""
        t, b = scalar_ctype(k), kind_bits(k)
        w, vt = ("uint32_t", "__vector signed char") if b == 8 else ("uint64_t", "__vector signed short")
        splat = "vec_splats(w)" if b == 8 else "vec_splats((unsigned long long)w)"
        e = "vec_unpackh(vec_unpackh(v))" if b == 8 else "vec_unpackh(v)"
        if not is_signed(k):
            e = f"vec_and({e}, vec_splats({(1 << b) - 1:#x}))"
        return self._func(f"_exp_ld4_{k}", VI32, [f"const {t} *p"],
                          f"    {w} w;\n    __builtin_memcpy(&w, p, sizeof w);\n"
                          f"    {vt} v = ({vt}){splat};\n    return {e};\n")

    def _narrow_store(self, k: str) -> str:
        """Helper: store one register of narrow kind ``k`` (4 lanes), packed, with one scalar store."""
        if kind_bits(k) == 8:
            body = ("    __vector signed short h = vec_pack(v, v);\n"
                    "    uint32_t w = vec_extract((__vector unsigned int)vec_pack(h, h), 0);\n")
        else:
            body = f"    uint64_t w = vec_extract(({VU64})vec_pack(v, v), 0);\n"
        return self._func(f"_exp_st4_{k}", "void", [f"{scalar_ctype(k)} *p", f"{VI32} v"],
                          body + "    __builtin_memcpy(p, &w, sizeof w);\n")

    def _reg_loadu(self, k: str, ptr: str) -> str:
        if self.is_narrow(k):
            return f"{self._narrow_load(k)}({ptr})"
        if is_float(k):
            return f"vec_xl(0, {ptr})"
        return f"vec_xl(0, (const signed {'long long' if kind_bits(k) == 64 else 'int'} *)({ptr}))"

    def _reg_storeu(self, k: str, ptr: str, v: str) -> str:
        if self.is_narrow(k):
            return f"{self._narrow_store(k)}({ptr}, {v})"
        if is_float(k):
            return f"vec_xst({v}, 0, {ptr})"
        return f"vec_xst({v}, 0, (signed {'long long' if kind_bits(k) == 64 else 'int'} *)({ptr}))"

    def _mask_loadu(self, ptr: str) -> str:
        def one(p: str) -> str:
            return f"vec_cmpne(vec_xl(0, (const signed int *)({p})), vec_splats(0))"
        if self._nm() == 1:
            return one(ptr)
        mt = self.mask_type()
        body = f"    {mt} r;\n" + "".join(f"    r.v[{j}] = {one(f'p + {4 * j}' if j else 'p')};\n"
                                        for j in range(self._nm()))
        name = self._func("_exp_mask_loadu", mt, ["const int32_t *p"], body + "    return r;\n")
        return f"{name}({ptr})"

    def _mask_storeu(self, ptr: str, m: str) -> str:
        def one(p: str, r: str) -> str:
            return f"vec_xst(({VI32})({r}), 0, (signed int *)({p}))"
        if self._nm() == 1:
            return one(ptr, m)
        body = "".join(f"    {one(f'p + {4 * j}' if j else 'p', f'm.v[{j}]')};\n" for j in range(self._nm()))
        return f"{self._func('_exp_mask_storeu', 'void', ['int32_t *p', f'{self.mask_type()} m'], body)}({ptr}, {m})"

    # ------------------------------------------------------------------ per-register plumbing
    def _reg(self, k: str, p: str, j: int) -> str:
        """Register ``j`` of the gang ``p`` of kind ``k``."""
        return p if self.nregs(k) == 1 else f"{p}.v[{j}]"

    def _mask_part(self, m: str, k: str, j: int) -> str:
        first = j * self.reg_lanes(k)
        reg = m if self._nm() == 1 else f"{m}.v[{first // 4}]"
        if self.lane_bits(k) == 64:
            return f"vec_unpack{'h' if first % 4 == 0 else 'l'}({reg})"
        return reg

    def _marg(self, m: str) -> Arg:
        """An ``Arg`` for mask ``m``, register by register."""
        if self._nm() == 1:
            return Arg(self.mask_type(), m)
        return Arg(self.mask_type(), m, lambda p, j: f"{p}.v[{j}]")

    def _mmap(self, name: str, fn, *masks: str) -> str:
        """Apply ``fn(reg, ...)`` register-wise to masks."""
        return self._lift(name, self.mask_type(), self._nm(), [self._marg(m) for m in masks],
                          lambda _j, *regs: fn(*regs))

    def _whole(self, k: str, expr: str) -> Arg:
        """An ``Arg`` passing gang ``expr`` of kind ``k`` whole to every register's expression."""
        return Arg(self.vtype(k), expr, lambda p, _j: p)

    def _fix(self, k: str, e: str) -> str:
        """Re-extend 32-bit lanes holding ``k`` values modulo 2^bits (identity for wide kinds)."""
        if not self.is_narrow(k):
            return e
        b = kind_bits(k)
        if is_signed(k):
            return f"vec_sra(vec_sl({e}, vec_splats({32 - b}u)), vec_splats({32 - b}u))"
        return f"vec_and({e}, vec_splats({(1 << b) - 1:#x}))"

    # ------------------------------------------------------------------ gang construction
    def _splat1(self, k: str, s: str) -> str:
        """One register with every lane ``s``."""
        t = scalar_ctype(k)
        if is_float(k):
            m = _FLOAT_LIT.fullmatch(s)
            if m and (m[1] != "") == (k == "f32"):
                return f"vec_splats({s.strip()})"
            return f"vec_splats(({'float' if k == 'f32' else 'double'})({s}))"
        v = _lit(s)
        if self.lane_bits(k) == 32:
            if v is not None and v <= min(0x7FFFFFFF, (1 << (kind_bits(k) - is_signed(k))) - 1):
                return f"vec_splats({s.strip()})"
            return f"vec_splats((int)({s}))" if k == "i32" else f"vec_splats((int)({t})({s}))"
        if v is not None and v <= 0x7FFFFFFFFFFFFFFF:
            return f"vec_splats({s.strip()}LL)"
        return f"vec_splats((long long)({s}))" if k == "i64" else f"vec_splats((long long)({t})({s}))"

    def _splat_reg(self, k: str, scalar: str) -> str:
        """One register of ``scalar``. powerpc GCC 12 crashes (ICE in gimplify_expr) on vec_splats of
        an expression with comparisons or ?: (tests/fuzz_regressions/altivec_splat_expression.c), and
        on a conversion to _Bool, which is one (altivec_splat_bool.c): such an expression is splatted as
        a helper's parameter."""
        if not re.fullmatch(r"[\w.+\-]+|\(\w+(\s\w+)*\)\s*\(?[\w.+\-]+\)?", scalar.strip()) or "_Bool" in scalar:
            name = self._func(f"_exp_splat1_{k}", self.regtype(k), [f"{scalar_ctype(k)} s"],
                              f"    return {self._splat1(k, 's')};\n")
            return f"{name}({scalar})"
        return self._splat1(k, scalar)

    def splat(self, k: str, scalar: str) -> str:
        if self.nregs(k) == 1:
            return self._splat_reg(k, scalar)
        return self._lift(f"_exp_splat_{k}", self.vtype(k), self.nregs(k), [Arg(scalar_ctype(k), scalar)],
                          lambda _j, x: self._splat1(k, x))

    def build(self, k: str, scalars: Sequence[str]) -> str:
        if len(scalars) != self.lanes:
            raise ValueError(f"build needs {self.lanes} scalars, got {len(scalars)}")
        t = scalar_ctype(k)
        if is_float(k):
            elts = list(scalars)
        elif k in ("i32", "i64"):
            elts = [f"({'int' if k == 'i32' else 'long long'})({s})" for s in scalars]
        else:
            elts = [f"({'long long' if kind_bits(k) == 64 else 'int'})({t})({s})" for s in scalars]
        rl, rt = self.reg_lanes(k), self.regtype(k)
        if self.nregs(k) == 1 and not all(re.fullmatch(r"[\w.+\-]+", x.strip()) for x in scalars):
            # powerpc GCC 12 crashes (ICE in gimplify_expr) on some overloaded builtins (vec_mul) of
            # a vector literal whose elements are vec_extract calls (tests/test_inactive_lanes.py,
            # gather): build the literal from a helper's parameters instead.
            ps = [f"s{i}" for i in range(self.lanes)]
            name = self._func(f"_exp_build1_{k}", rt, [f"{t} {q}" for q in ps],
                              f"    return {self.build(k, ps)};\n")
            return f"{name}({', '.join(scalars)})"
        regs = [f"({rt}){{{', '.join(elts[j * rl:(j + 1) * rl])}}}" for j in range(self.nregs(k))]
        if len(regs) == 1:
            return regs[0]
        return f"(({self.vtype(k)}){{{{{', '.join(regs)}}}}})"

    def extract(self, k: str, v: str, lane: int) -> str:
        if not 0 <= lane < self.lanes:
            raise ValueError(f"lane {lane} out of range")
        r, i = divmod(lane, self.reg_lanes(k))
        reg = v if self.nregs(k) == 1 else f"({v}).v[{r}]"
        if k == "f32":
            # through the bits: vec_extract of a float converts with xscvspdp, quieting signalling NaNs
            name = self._func("_exp_extract_f32", "float", [f"{VF32} v", "int i"],
                              f"    uint32_t u = vec_extract(({VU32})v, i);\n    float f;\n"
                              "    __builtin_memcpy(&f, &u, sizeof f);\n    return f;\n")
            return f"{name}({reg}, {i})"
        e = f"vec_extract({reg}, {i})"
        return e if k in ("f64", "i32", "i64") else f"(({scalar_ctype(k)}){e})"

    # ------------------------------------------------------------------ arithmetic
    def _mul64(self) -> str:
        """Helper: the low 64 bits of a 64 x 64-bit product from 32-bit multiplies (POWER8)."""
        return self._func(
            "_exp_mul_vsll", VI64, [f"{VI64} a", f"{VI64} b"],
            "    /* lo(a) * lo(b) + ((lo(a) * hi(b) + hi(a) * lo(b)) << 32) */\n"
            f"    {VU64} c32 = vec_splats(32ull);\n"
            f"    {VU32} x = ({VU32})a, y = ({VU32})b;\n"
            f"    {VU64} cross = ({VU64})vec_mul(x, ({VU32})vec_rl(({VU64})b, c32));\n"
            "    cross = vec_sl(vec_add(cross, vec_sr(cross, c32)), c32);\n"
            f"    return ({VI64})vec_add(vec_mule(x, y), cross);\n")

    def minmax(self, op: str, k: str, a: str, b: str) -> str | None:
        """``vec_min``/``vec_max`` for the signed integer kinds and u8/u16, held in 32-bit lanes of
        ``vector signed int`` (u32 there would compare signed); not floats (``xvminsp`` takes a NaN operand
        as missing, ``a < b ? a : b`` gives ``b``)."""
        if is_float(k) or self.lane_bits(k) != 32 or k == "u32":
            return None
        return self._map(f"_exp_{op}_{k}", k, lambda x, y: f"vec_{op}({x}, {y})", a, b)

    def binop(self, op: str, k: str, a: str, b: str) -> str:
        check_binop(op, k)
        name = f"_exp_{OPNAMES[op]}_{k}"
        intr = f"vec_{OPNAMES[op]}"
        if is_float(k) or op in "&|^":
            return self._map(name, k, lambda x, y: f"{intr}({x}, {y})", a, b)
        if op in "+-" or (op == "*" and self.lane_bits(k) == 32):
            return self._map(name, k, lambda x, y: self._fix(k, f"{intr}({x}, {y})"), a, b)
        if op == "*":
            mul = self._mul64()
            return self._map(name, k, lambda x, y: f"{mul}({x}, {y})", a, b)
        if self.lane_bits(k) == 32:
            div = self._div32(k == "u32")
            if op == "/":
                return self._map(name, k, lambda x, y: self._fix(k, f"{div}({x}, {y})"), a, b)
            rem = self._func(f"_exp_remq_{'u' if k == 'u32' else 's'}32", VI32, [f"{VI32} a", f"{VI32} b"],
                             f"    return vec_sub(a, vec_mul({div}(a, b), b));\n")
            return self._map(name, k, lambda x, y: self._fix(k, f"{rem}({x}, {y})"), a, b)
        return super().binop(op, k, a, b)

    def _div32(self, unsigned: bool) -> str:
        """Helper: 32-bit integer division (divisors nonzero) through doubles (POWER8 has no vector
        integer divide). Exact: with |a|, |b| < 2^32 the rounding error of a / b in double is below
        |a / b| * 2^-53 < 2^-21 / |b|, less than the distance 1 / |b| from a non-integer quotient to
        the next integer, so truncation gives C's quotient."""
        if unsigned:
            cvt, arg, ret = "vec_unsigned2", f"({VU32})", f"({VI32})"
        else:
            cvt, arg, ret = "vec_signed2", "", ""
        return self._func(
            f"_exp_divq_{'u' if unsigned else 's'}32", VI32, [f"{VI32} a", f"{VI32} b"],
            f"    return {ret}{cvt}(vec_div(vec_doubleh({arg}a), vec_doubleh({arg}b)),\n"
            f"        vec_div(vec_doublel({arg}a), vec_doublel({arg}b)));\n")

    def shift(self, op: str, k: str, a: str, n: str, n_uniform: bool) -> str:
        if op not in ("<<", ">>") or is_float(k):
            raise ValueError(f"shift {op!r} on {k}")
        intr = "vec_sl" if op == "<<" else ("vec_sra" if is_signed(k) else "vec_sr")
        wide = self.lane_bits(k) == 64
        ut = self._utype(k)

        def fix(e: str) -> str:
            return self._fix(k, e) if op == "<<" else e

        if not n_uniform:
            return self._map(f"_exp_{OPNAMES[op]}v_{k}", k, lambda x, c: fix(f"{intr}({x}, ({ut})({c}))"), a, n)
        c = literal_value(n.strip())
        if c is not None:  # (vec_sl/vec_sr/vec_sra shift by the count modulo the lane width: so may the literal,
            c %= self.lane_bits(k)  # which does not fit an unsigned int where C's shift is never reached)
            cnt = f"vec_splats({c}{'ull' if wide else 'u'})"
            return self._map(f"_exp_{OPNAMES[op]}{c}_{k}", k, lambda x: fix(f"{intr}({x}, {cnt})"), a)
        return self._lift(f"_exp_{OPNAMES[op]}u_{k}", self.vtype(k), self.nregs(k),
                          [self.gang_arg(k, a), Arg("int", n)],
                          lambda _j, x, m: fix(f"{intr}({x}, {self._count_reg(wide, m)})"))

    def _count_reg(self, wide: bool, m: str) -> str:
        """A register of unsigned shift counts ``m`` (through a helper when ``m`` is an expression:
        powerpc GCC 12 crashes on vec_splats of some, tests/fuzz_regressions/altivec_shift_count.c)."""
        st = "unsigned long long" if wide else "unsigned int"
        if re.fullmatch(r"[\w.+\-]+", m.strip()):
            return f"vec_splats(({st})({m}))"
        name = self._func(f"_exp_count_u{64 if wide else 32}", VU64 if wide else VU32, [f"{st} s"],
                          "    return vec_splats(s);\n")
        return f"{name}({m})"

    def unop(self, op: str, k: str, a: str) -> str:
        if op not in ("-", "~") or (op == "~" and is_float(k)):
            raise ValueError(f"unary {op!r} on {k}")
        name = f"_exp_{'neg' if op == '-' else 'not'}_{k}"
        if op == "-":
            return self._map(name, k, lambda x: self._fix(k, f"vec_neg({x})"), a)
        if self.lane_bits(k) == 64:
            ones = "vec_splats(-1LL)"
        elif is_signed(k) or not self.is_narrow(k):
            ones = "vec_splats(-1)"
        else:
            ones = f"vec_splats({(1 << kind_bits(k)) - 1:#x})"
        return self._map(name, k, lambda x: f"vec_xor({x}, {ones})", a)

    # ------------------------------------------------------------------ comparisons, select, masks
    def cmp(self, op: str, k: str, a: str, b: str) -> str:
        if op not in CMPOPS:
            raise ValueError(f"unknown comparison {op!r}")
        intr = CMP[op]
        unsigned = k in ("u32", "u64") and op not in ("==", "!=")

        def one(x: str, y: str) -> str:
            if unsigned:
                x, y = f"({self._utype(k)})({x})", f"({self._utype(k)})({y})"
            return f"{intr}({x}, {y})"

        name = f"_exp_{OPNAMES[op]}_{k}"
        if self.lane_bits(k) == 32:
            return self._lift(name, self.mask_type(), self._nm(), [self.gang_arg(k, a), self.gang_arg(k, b)],
                              lambda _j, x, y: one(x, y))
        # two registers of 64-bit lanes make one mask register
        return self._lift(name, self.mask_type(), self._nm(), [self._whole(k, a), self._whole(k, b)],
                          lambda j, x, y: f"vec_pack({one(self._reg(k, x, 2 * j), self._reg(k, y, 2 * j))}, "
                                          f"{one(self._reg(k, x, 2 * j + 1), self._reg(k, y, 2 * j + 1))})")

    def select(self, k: str, m: str, a: str, b: str) -> str:
        return self._lift(f"_exp_select_{k}", self.vtype(k), self.nregs(k),
                          [self.mask_arg(k, m), self.gang_arg(k, a), self.gang_arg(k, b)],
                          lambda _j, mm, x, y: f"vec_sel({y}, {x}, {mm})")

    def mask_const(self, value: bool) -> str:
        reg = ONES if value else ZEROS
        if self._nm() == 1:
            return reg
        return f"(({self.mask_type()}){{{{{', '.join([reg] * self._nm())}}}}})"

    def mask_and(self, a: str, b: str) -> str:
        return self._mmap("_exp_mask_and", lambda x, y: f"vec_and({x}, {y})", a, b)

    def mask_or(self, a: str, b: str) -> str:
        return self._mmap("_exp_mask_or", lambda x, y: f"vec_or({x}, {y})", a, b)

    def mask_xor(self, a: str, b: str) -> str:
        return self._mmap("_exp_mask_xor", lambda x, y: f"vec_xor({x}, {y})", a, b)

    def mask_andnot(self, a: str, b: str) -> str:
        return self._mmap("_exp_mask_andnot", lambda x, y: f"vec_andc({x}, {y})", a, b)

    def mask_not(self, a: str) -> str:
        return self._mmap("_exp_mask_not", lambda x: f"vec_xor({x}, {ONES})", a)

    def mask_to_int(self, m: str) -> str:
        return self._lift("_exp_mask_to_int", self.vtype("i32"), self.nregs("i32"), [self._marg(m)],
                          lambda _j, x: f"vec_and(({VI32})({x}), vec_splats(1))")

    def mask_bits(self, m: str) -> str:
        nm = self._nm()
        w = 32 // nm  # element bits after packing the mask registers into one
        idx = [w * (128 // w - 1 - i) for i in range(128 // w)] + [128] * (16 - 128 // w)
        ctl = f"(__vector unsigned char){{{', '.join(map(str, idx))}}}"

        def bits(v: str) -> str:
            # vbpermq gathers the sign bit of each element; LE element order puts the result in
            # doubleword 1 with lane i at bit i
            return f"(unsigned)vec_extract(({VU64})vec_bperm((__vector unsigned char)({v}), {ctl}), 1)"

        if nm == 1:
            return f"({bits(m)})"
        packed = "vec_pack(m.v[0], m.v[1])" if nm == 2 else \
            "vec_pack(vec_pack(m.v[0], m.v[1]), vec_pack(m.v[2], m.v[3]))"
        name = self._ret_func("_exp_mask_bits", "unsigned", [f"{self.mask_type()} m"], bits(packed))
        return f"{name}({m})"

    def _mask_reduce(self, name: str, join: str, test: str, m: str) -> str:
        if self._nm() == 1:
            return f"{test}({m}, {ZEROS})"
        v = "m.v[0]"
        for j in range(1, self._nm()):
            v = f"{join}({v}, m.v[{j}])"
        return f"{self._ret_func(name, 'int', [f'{self.mask_type()} m'], f'{test}({v}, {ZEROS})')}({m})"

    def mask_any(self, m: str) -> str:
        return self._mask_reduce("_exp_mask_any", "vec_or", "vec_any_ne", m)

    def mask_all(self, m: str) -> str:
        return self._mask_reduce("_exp_mask_all", "vec_and", "vec_all_ne", m)

    # ------------------------------------------------------------------ conversions
    def _cvt_same(self, s: str, d: str, x: str) -> str:
        """One register converted between kinds of the same lane width."""
        if not is_float(s) and not is_float(d):
            if self.lane_bits(s) == 64:
                return x
            sb, db = kind_bits(s), kind_bits(d)
            fits = sb < db and (is_signed(d) or not is_signed(s))
            return x if fits or db == 32 else self._fix(d, x)
        if not is_float(s):  # int -> float
            arg = f"({self._utype(s)})({x})" if s in ("u32", "u64") else x
            return f"vec_{'float' if d == 'f32' else 'double'}({arg})"
        # float -> int: truncation (out-of-range lanes are undefined in C)
        if d in ("u32", "u64"):
            return f"{self._unsigned_nan_safe(s, d)}({x})"
        return f"{self._signed_nan_safe(s)}({x})"

    def _unsigned_nan_safe(self, s: str, d: str) -> str:
        """Helper: ``vec_ctu`` (not ``vec_unsigned``: GCC 12 emits the signed convert for it) of a float or
        double register with its NaN lanes zeroed first, which gives them 0 as POWER hardware does: qemu
        7.2's ``xvcvdpuxds`` makes the lanes after a NaN 0 too (as for the signed converts)."""
        vf, vm = (VF32, VM32) if s == "f32" else (VF64, VM64)
        return self._func(
            f"_exp_unsigned_{s}", self.regtype(d), [f"{vf} x"],
            f"    {vm} num = vec_cmpeq(x, x);  /* lanes that are not NaN */\n"
            f"    return ({self.regtype(d)})vec_ctu(vec_and(x, ({vf})num), 0);\n")

    def _signed_nan_safe(self, s: str) -> str:
        """Helper: ``vec_signed`` of a float or double register, NaN lanes giving the minimum integer as
        on POWER hardware. qemu 7.2's ``xvcvspsxws``/``xvcvdpsxds`` turn other lanes of a register with a
        NaN into the minimum too (Highway's PR #1919): NaN lanes are zeroed first, then set."""
        vf, vi, vm, low = (VF32, VI32, VM32, "-0x7fffffff - 1") if s == "f32" else \
            (VF64, VI64, VM64, "-0x7fffffffffffffffLL - 1")
        return self._func(
            f"_exp_signed_{s}", vi, [f"{vf} x"],
            f"    {vm} num = vec_cmpeq(x, x);  /* lanes that are not NaN */\n"
            f"    {vi} r = vec_signed(vec_and(x, ({vf})num));\n"
            f"    return vec_sel(vec_splats(({'int' if s == 'f32' else 'long long'})({low})), r, num);\n")

    def _double_keep_snan(self, half: str) -> str:
        """Helper: ``vec_double<half>`` except that a signalling NaN stays signalling, as C's float to
        double conversion leaves it on POWER (exact ``lfs``/``xscvspdpn``; ``xvcvspdp`` quiets it)."""
        return self._func(
            f"_exp_double{half}_keep_snan", VF64, [f"{VF32} x"],
            "    /* signalling NaN: |bits| in [0x7f800001, 0x7fbfffff] */\n"
            f"    {VU32} mag = vec_and(({VU32})x, vec_splats(0x7fffffffu));\n"
            f"    {VM32} snan = vec_cmplt(vec_sub(mag, vec_splats(0x7f800001u)), vec_splats(0x3fffffu));\n"
            f"    {VU64} quiet = vec_and(({VU64})vec_unpack{half}(snan), vec_splats(0x8000000000000ull));\n"
            f"    return ({VF64})vec_xor(({VU64})vec_double{half}(x), quiet);\n")

    def _widen1(self, s: str, d: str, x: str, half: str) -> str:
        """The 64-bit-lane register of kind ``d`` from half ``half`` ('h' first, 'l' second) of ``x``."""
        if is_float(s):
            if d == "f64":
                return f"{self._double_keep_snan(half)}({x})"
            return self._cvt_same("f64", d, f"vec_double{half}({x})")
        if s == "u32":
            if d == "f64":
                return f"vec_double{half}(({VU32})({x}))"
            return f"({VI64})vec_merge{half}({x}, vec_splats(0))"
        return f"vec_double{half}({x})" if d == "f64" else f"vec_unpack{half}({x})"

    def _narrow1(self, s: str, d: str, x0: str, x1: str) -> str:
        """The 32-bit-lane register of kind ``d`` from two 64-bit-lane registers of kind ``s``."""
        if d == "f32":
            if s == "u64":  # not vec_float2: GCC 12 emits the signed convert for unsigned long long
                return (f"({VF32})vec_pack(({VU64})vec_floate(({VU64})({x0})), "
                        f"({VU64})vec_floate(({VU64})({x1})))")
            return f"vec_float2({x0}, {x1})"
        if s == "f64":
            return f"{self._narrow_nan_safe(d)}({x0}, {x1})"
        return self._fix(d, f"vec_pack({x0}, {x1})")

    def _narrow_nan_safe(self, d: str) -> str:
        """Helper: ``vec_signed2``/``vec_unsigned2`` of two double registers, NaN lanes giving what
        POWER hardware gives (the minimum int; 0 unsigned) without touching the other lanes, which
        qemu 7.2's ``xvcvdpsxws`` sets to the minimum too when a NaN shares their register (as in
        ``_signed_nan_safe``)."""
        unsigned = d == "u32"
        cvt, cast, low = ("vec_unsigned2", f"({VI32})", "0") if unsigned else \
            ("vec_signed2", "", "-0x7fffffff - 1")
        return self._func(
            f"_exp_narrow_{'u' if unsigned else 'i'}32_nan_safe", VI32, [f"{VF64} x0", f"{VF64} x1"],
            f"    {VM64} num0 = vec_cmpeq(x0, x0);  /* lanes that are not NaN */\n"
            f"    {VM64} num1 = vec_cmpeq(x1, x1);\n"
            f"    {VI32} r = {cast}{cvt}(vec_and(x0, ({VF64})num0), vec_and(x1, ({VF64})num1));\n"
            f"    {VM32} num = ({VM32})vec_pack(({VU64})num0, ({VU64})num1);\n"
            f"    return vec_sel(vec_splats((int)({low})), r, num);\n")

    def convert(self, src_k: str, dst_k: str, a: str) -> str:
        if src_k == dst_k:
            return a
        s, d = src_k, dst_k
        sw, dw = self.lane_bits(s), self.lane_bits(d)
        name = f"_exp_cvt_{s}_{d}"
        if sw == dw:
            if self._cvt_same(s, d, "X") == "X":
                return a
            return self._map(name, s, lambda x: self._cvt_same(s, d, x), a, out_k=d)
        if dw == 64:
            arg = Arg(self.vtype(s), a, lambda p, j: self._reg(s, p, j // 2))
            return self._lift(name, self.vtype(d), self.nregs(d), [arg],
                              lambda j, x: self._widen1(s, d, x, "hl"[j % 2]))
        return self._lift(name, self.vtype(d), self.nregs(d), [self._whole(s, a)],
                          lambda j, x: self._narrow1(s, d, self._reg(s, x, 2 * j), self._reg(s, x, 2 * j + 1)))

    def bitcast(self, src_k: str, dst_k: str, a: str) -> str:
        if kind_bits(src_k) != kind_bits(dst_k):
            raise ValueError(f"bitcast {src_k} -> {dst_k}: widths differ")
        if src_k == dst_k:
            return a
        if not is_float(src_k) and not is_float(dst_k):
            return self.convert(src_k, dst_k, a)
        rt = self.regtype(dst_k)
        return self._map(f"_exp_bitcast_{src_k}_{dst_k}", src_k, lambda x: f"({rt})({x})", a, out_k=dst_k)

    # ------------------------------------------------------------------ libm operations
    def math(self, op: str, k: str, args: Sequence[str]) -> str:
        """sqrt, floor, ceil, trunc, rint, nearbyint: ``VMATH``; fma on doubles: ``vec_madd`` (fused, as
        the scalar ``fmadd``); fmin/fmax: compares and selects with the rules of glibc's generic C (ties
        give x). fmaf stays per lane: ``xvmaddmsp`` would be exact on POWER hardware, but qemu 7.2
        (where this table is verified) takes its subnormal operands as zero (1 * 2^-149 + 0 gives 0)."""
        check_math(op, k, args)
        if op in VMATH:
            return self._map(f"_exp_{op}_{k}", k, lambda x: f"{VMATH[op]}({x})", *args)
        if op == "fma" and k == "f64":
            return self._map(f"_exp_fma_{k}", k, lambda x, y, z: f"vec_madd({x}, {y}, {z})", *args)
        if op in ("fmin", "fmax"):
            return self._fminmax(op, k, *args, ties_to_x=True)
        return super().math(op, k, args)
