"""SSE4.1: 4-lane gangs (or 8, 12, ..., 32) in 128-bit registers.

Register layout at 4 lanes: f32 -> ``__m128``; i32/u32 and the narrow kinds (widened: i8/i16
sign-extended, u8/u16 zero-extended) -> ``__m128i``; f64 -> ``_Exp_f64x4`` (2 x ``__m128d``);
i64/u64 -> ``_Exp_i64x4`` (2 x ``__m128i``). A mask is one ``__m128i`` of 32-bit all-ones /
all-zeros lanes; 64-bit kinds use it widened per register (``_mm_unpacklo/hi_epi32(m, m)``). With
8 or 16 lanes every gang (and the mask) is 2 or 4 times as many registers (``_Exp_f32x8`` = 2 x
``__m128``, ``_Exp_f64x8`` = 4 x ``__m128d``, the mask ``_Exp_i32x8`` = 2 x ``__m128i``): register j
of a 32-bit-lane gang pairs with registers 2j and 2j+1 of a 64-bit-lane gang.

Native: all f32/f64 arithmetic, comparisons, selects; 8..32-bit integer + - * & | ^, negation, ~,
comparisons (unsigned through a sign-bit bias), selects, shifts by immediate, uniform or per-lane
count (per-lane: ``2^n`` multiply for ``<<``, four single-count shifts blended for ``>>``); 64-bit
integer + - * & | ^ (``*`` with ``_mm_mul_epu32`` partial products), shifts (arithmetic right by the
sign-xor trick), comparisons (``>`` emulated from 32-bit halves); conversions between all integer
widths, int32/uint32 <-> f32/f64 (exact), f32 <-> f64, bitcasts; libm sqrt, floor/ceil/trunc/rint/
nearbyint (``_mm_round_ps``), fmin/fmax (``math``). Per-lane scalar fallback (from ``Isa``): integer
``/`` and ``%``, i64/u64 -> float, float -> i64/u64, fma.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .isa import (
    CMPOPS,
    OPNAMES,
    Arg,
    RegIsa,
    check_binop,
    check_math,
    is_float,
    is_int_literal,
    is_signed,
    kind_bits,
    scalar_ctype,
)

ONES = "_mm_set1_epi32(-1)"
SIGN32 = "_mm_set1_epi32((int)0x80000000u)"
#: per-register bias making the signed 32-bit compare of each half give the 64-bit order
BIAS64 = {"i64": "_mm_set_epi32(0, (int)0x80000000u, 0, (int)0x80000000u)", "u64": SIGN32}
FCMP = {"==": "eq", "!=": "neq", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
#: libm rounding -> ``_mm_round_ps/pd`` (``roundscale`` on AVX-512) mode, as GCC rounds the scalar calls
#: (floor/ceil/trunc raise no inexact; rint uses and signals the current mode; nearbyint uses it quietly)
ROUND = {"floor": "_MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC", "ceil": "_MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC",
         "trunc": "_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC", "rint": "_MM_FROUND_CUR_DIRECTION",
         "nearbyint": "_MM_FROUND_CUR_DIRECTION | _MM_FROUND_NO_EXC"}


def _not(m: str) -> str:
    return f"_mm_xor_si128({m}, {ONES})"


def _join_lo32(p0: str, p1: str) -> str:
    """The low 32 bits of each 64-bit lane of ``p0`` then ``p1`` (both ``__m128i``)."""
    return (f"_mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps({p0}), _mm_castsi128_ps({p1}), "
            "_MM_SHUFFLE(2, 0, 2, 0)))")


def x86_minmax(isa: RegIsa, op: str, k: str, a: str, b: str, int64: bool = False) -> str | None:
    """``Isa.minmax`` on x86 (SSE4.1, AVX2, AVX-512: ``isa.intrinsic_prefix``): ``_min_ps``/``_min_pd`` are
    exactly ``a < b ? a : b`` (a NaN or equal operands give ``b``); ``_min_epi32`` takes the integer kinds
    held in 32-bit lanes (sign- or zero-extended; ``epu32`` for u32); 64-bit integers only with ``int64``
    (AVX-512's ``_min_epi64``/``_min_epu64``)."""
    if is_float(k):
        sfx = isa._sfx(k)
    elif kind_bits(k) <= 32 or int64:
        sfx = f"ep{'u' if k in ('u32', 'u64') else 'i'}{isa.lane_bits(k)}"
    else:
        return None
    intr = f"{isa.intrinsic_prefix}_{op}_{sfx}"
    return isa._map(f"_exp_{op}_{k}", k, lambda x, y: f"{intr}({x}, {y})", a, b)


class Sse41(RegIsa):
    """SSE4.1 with 4 lanes (or a multiple of 4: several registers per gang)."""

    name = "sse4.1"
    default_lanes = 4
    CFLAGS = ("-msse4.1",)
    CPU_FEATURES = ("sse4_1",)
    HEADERS = ("<smmintrin.h>",)
    reg_bits = 128
    abi_letter, abi_families, abi_macro = "b", (("b", 128, 128, True),), "defined(__SSE2__)"
    arch, libmvec, sleef_suffix = "x86_64", True, "sse4"
    intrinsic_prefix = "_mm"

    def __init__(self, lanes: int | None = None) -> None:
        super().__init__(lanes)
        self._check_lanes()

    def _check_lanes(self) -> None:
        if self.lanes % 4 or self.lanes > 32:  # mask_bits is an unsigned: at most 32 lanes
            raise ValueError(f"{self.name} gangs have 4, 8, 12, ..., 32 lanes, not {self.lanes}")

    # ------------------------------------------------------------------ types and memory
    def regtype(self, k: str) -> str:
        return {"f32": "__m128", "f64": "__m128d"}.get(k, "__m128i")

    def mask_type(self) -> str:
        return self.vtype("i32")

    def _sfx(self, k: str) -> str:
        """Intrinsic suffix of kind ``k``'s lanes: ps, pd, epi32 or epi64."""
        return {"f32": "ps", "f64": "pd"}.get(k) or f"epi{self.lane_bits(k)}"

    def _reg_loadu(self, k: str, ptr: str) -> str:
        if is_float(k):
            return f"_mm_loadu_{self._sfx(k)}({ptr})"
        if self.is_narrow(k):
            b = kind_bits(k)
            ld = "_mm_loadu_si32" if b == 8 else "_mm_loadu_si64"
            return f"_mm_cvt{'epi' if is_signed(k) else 'epu'}{b}_epi32({ld}({ptr}))"
        return f"_mm_loadu_si128((const __m128i *)({ptr}))"

    def _reg_storeu(self, k: str, ptr: str, v: str) -> str:
        if is_float(k):
            return f"_mm_storeu_{self._sfx(k)}({ptr}, {v})"
        if self.is_narrow(k):
            if kind_bits(k) == 8:
                return f"_mm_storeu_si32({ptr}, _mm_shuffle_epi8({v}, _mm_setr_epi32(0x0c080400, -1, -1, -1)))"
            return f"_mm_storeu_si64({ptr}, _mm_shuffle_epi8({v}, _mm_setr_epi32(0x05040100, 0x0d0c0908, -1, -1)))"
        return f"_mm_storeu_si128((__m128i *)({ptr}), {v})"

    def _reg(self, g: str, k: str, j: int) -> str:
        """Register ``j`` of the gang (or mask, for a 32-bit ``k``) named ``g``."""
        return g if self.nregs(k) == 1 else f"{g}.v[{j}]"

    # ------------------------------------------------------------------ register plumbing
    def _mask_part(self, m: str, k: str, j: int) -> str:
        if self.lane_bits(k) == 32:
            return self._reg(m, "i32", j)
        r = self._reg(m, "i32", j // 2)
        return f"_mm_unpack{'lo' if j % 2 == 0 else 'hi'}_epi32({r}, {r})"

    def _mask_join(self, parts: list[str]) -> str:
        """One mask register (4 lanes) from the two 64-bit-lane register masks ``parts`` (``__m128i``)."""
        return _join_lo32(parts[0], parts[1])

    def _regs_func(self, name: str, out_type: str, params: Sequence[str], exprs: Sequence[str]) -> str:
        """Need helper ``name`` returning the register ``exprs[0]`` or the struct of ``exprs``."""
        if len(exprs) == 1:
            return self._ret_func(name, out_type, params, exprs[0])
        body = f"    {out_type} r;\n" + "".join(f"    r.v[{j}] = {e};\n" for j, e in enumerate(exprs))
        return self._func(name, out_type, params, body + "    return r;\n")

    def _pairs(self, name: str, src_k: str, out_k: str, fn: Callable[[list[str], list[str]], str],
               *gangs: str) -> str:
        """Gangs (``a``, ``b``) of 64-bit kind ``src_k`` to a gang of 32-bit-lane kind ``out_k`` (or a
        mask, for ``out_k`` i32): register j of the result is ``fn(registers 2j, registers 2j + 1)``."""
        vt = self.vtype(src_k)
        names = "ab"[:len(gangs)]
        exprs = [fn([f"{g}.v[{2 * j}]" for g in names], [f"{g}.v[{2 * j + 1}]" for g in names])
                 for j in range(self.nregs(out_k))]
        self._regs_func(name, self.vtype(out_k), [f"{vt} {g}" for g in names], exprs)
        return f"{name}({', '.join(gangs)})"

    def _const(self, name: str, k: str, reg: str) -> str:
        """A gang of kind ``k`` with every register ``reg`` (a constant expression)."""
        return self._lift(name, self.vtype(k), self.nregs(k), [], lambda _j: reg)

    def _fix(self, k: str, e: str) -> str:
        """Re-extend 32-bit lanes holding ``k`` values modulo 2^bits (identity for wide kinds)."""
        if not self.is_narrow(k):
            return e
        b = kind_bits(k)
        if is_signed(k):
            return f"_mm_srai_epi32(_mm_slli_epi32({e}, {32 - b}), {32 - b})"
        return f"_mm_and_si128({e}, _mm_set1_epi32({(1 << b) - 1:#x}))"

    # ------------------------------------------------------------------ gang construction
    def splat(self, k: str, scalar: str) -> str:
        if scalar.strip() == "0" and self.lane_bits(k) == 32:
            zero = "_mm_setzero_ps()" if k == "f32" else "_mm_setzero_si128()"
            return self._const(f"_exp_zero_{'f' if k == 'f32' else 'i'}32", k, zero)
        t = scalar_ctype(k)
        if k == "f32":
            fn = "_mm_set1_ps({})"
        elif self.lane_bits(k) == 32:
            fn = f"_mm_set1_epi32(({t})({{}}))"
        else:
            fn = "_mm_set1_pd({})" if k == "f64" else "_mm_set1_epi64x((long long){})"
        return self._lift(f"_exp_splat_{k}", self.vtype(k), self.nregs(k), [Arg(t, scalar)],
                          lambda _j, x: fn.format(x))

    def build(self, k: str, scalars: Sequence[str]) -> str:
        if len(scalars) != self.lanes:
            raise ValueError(f"build needs {self.lanes} scalars, got {len(scalars)}")
        t, rl = scalar_ctype(k), self.reg_lanes(k)
        parts = [list(scalars[j:j + rl]) for j in range(0, self.lanes, rl)]
        if k == "f32":
            regs = [f"_mm_setr_ps({', '.join(p)})" for p in parts]
        elif self.lane_bits(k) == 32:
            regs = [f"_mm_setr_epi32({', '.join(f'({t})({s})' for s in p)})" for p in parts]
        elif k == "f64":
            regs = [f"_mm_setr_pd({p[0]}, {p[1]})" for p in parts]
        else:
            regs = [f"_mm_set_epi64x((long long)({t})({p[1]}), (long long)({t})({p[0]}))" for p in parts]
        if len(regs) == 1:
            return regs[0]
        return f"(({self.vtype(k)}){{{{{', '.join(regs)}}}}})"

    def extract(self, k: str, v: str, lane: int) -> str:
        if not 0 <= lane < self.lanes:
            raise ValueError(f"lane {lane} out of range")
        t, rl = scalar_ctype(k), self.reg_lanes(k)
        if self.lane_bits(k) == 32:
            r, i = f"({v}).v[{lane // rl}]" if self.nregs(k) > 1 else v, lane % rl
            if k == "f32":
                return f"_mm_cvtss_f32({r})" if i == 0 else f"_mm_cvtss_f32(_mm_shuffle_ps({r}, {r}, {i}))"
            return f"(({t})_mm_extract_epi32({r}, {i}))"
        r, j = f"({v}).v[{lane // 2}]", lane % 2
        if k == "f64":
            return f"_mm_cvtsd_f64({r})" if j == 0 else f"_mm_cvtsd_f64(_mm_unpackhi_pd({r}, {r}))"
        return f"(({t})_mm_extract_epi64({r}, {j}))"

    # ------------------------------------------------------------------ arithmetic
    def binop(self, op: str, k: str, a: str, b: str) -> str:
        check_binop(op, k)
        name = f"_exp_{OPNAMES[op]}_{k}"
        if is_float(k):
            intr = f"_mm_{OPNAMES[op]}_{self._sfx(k)}"
            return self._map(name, k, lambda x, y: f"{intr}({x}, {y})", a, b)
        if op in "&|^":
            return self._map(name, k, lambda x, y: f"_mm_{OPNAMES[op]}_si128({x}, {y})", a, b)
        w = self.lane_bits(k)
        if op in "+-":
            return self._map(name, k, lambda x, y: self._fix(k, f"_mm_{OPNAMES[op]}_epi{w}({x}, {y})"), a, b)
        if op == "*" and w == 32:
            return self._map(name, k, lambda x, y: self._fix(k, f"_mm_mullo_epi32({x}, {y})"), a, b)
        if op == "*":
            mul = self._ret_func(
                "_exp_mullo_epi64", "__m128i", ["__m128i a", "__m128i b"],
                "_mm_add_epi64(_mm_mul_epu32(a, b), _mm_slli_epi64(_mm_add_epi64("
                "_mm_mul_epu32(_mm_srli_epi64(a, 32), b), _mm_mul_epu32(a, _mm_srli_epi64(b, 32))), 32))")
            return self._map(name, k, lambda x, y: f"{mul}({x}, {y})", a, b)
        return super().binop(op, k, a, b)

    def _srv32(self, arith: bool) -> str:
        """Helper: per-lane right shift of 32-bit lanes (counts 0..31) by four blended shifts."""
        s = "sra" if arith else "srl"
        return self._func(
            f"_exp_{s}v_epi32", "__m128i", ["__m128i x", "__m128i n"],
            "    __m128i z = _mm_setzero_si128();\n"
            "    __m128i lo = _mm_unpacklo_epi32(n, z), hi = _mm_unpackhi_epi32(n, z);\n"
            f"    __m128i r0 = _mm_{s}_epi32(x, lo);\n"
            f"    __m128i r1 = _mm_{s}_epi32(x, _mm_srli_si128(lo, 8));\n"
            f"    __m128i r2 = _mm_{s}_epi32(x, hi);\n"
            f"    __m128i r3 = _mm_{s}_epi32(x, _mm_srli_si128(hi, 8));\n"
            "    return _mm_blend_epi16(_mm_blend_epi16(r0, r1, 0x0C), _mm_blend_epi16(r2, r3, 0xC0), 0xF0);\n")

    def _sign64(self) -> str:
        """C text of the all-ones-if-negative mask of 64-bit lanes of ``x``."""
        return "_mm_srai_epi32(_mm_shuffle_epi32(x, _MM_SHUFFLE(3, 3, 1, 1)), 31)"

    def _shv64(self, s: str) -> str:
        """Helper: per-lane 64-bit shift ``s`` (sll, srl, sra) of one register."""
        if s == "sra":
            srl = self._shv64("srl")
            return self._func("_exp_srav_epi64", "__m128i", ["__m128i x", "__m128i n"],
                              f"    __m128i s = {self._sign64()};\n"
                              f"    return _mm_xor_si128({srl}(_mm_xor_si128(x, s), n), s);\n")
        return self._ret_func(f"_exp_{s}v_epi64", "__m128i", ["__m128i x", "__m128i n"],
                              f"_mm_blend_epi16(_mm_{s}_epi64(x, n), _mm_{s}_epi64(x, _mm_unpackhi_epi64(n, n)), "
                              "0xF0)")

    def _pow2(self, n: str) -> str:
        """2^n in each 32-bit lane of ``n`` (counts 0..31), for a left shift by a per-lane count as a
        multiplication. Built as a float and truncated; 2^31 is out of int range, where cvttps gives
        INT32_MIN at run time but GCC 12 folds a constant one to INT32_MAX: 31 goes in as 30 and that
        product is doubled (expand-fuzz 2026-136)."""
        fn = self._func("_exp_pow2_epi32", "__m128i", ["__m128i n"],
                        "    __m128i is31 = _mm_cmpeq_epi32(n, _mm_set1_epi32(31));\n"
                        "    __m128i e = _mm_add_epi32(_mm_slli_epi32(_mm_add_epi32(n, is31), 23), "
                        "_mm_set1_epi32(0x3f800000));\n"
                        "    __m128i p = _mm_cvttps_epi32(_mm_castsi128_ps(e));\n"
                        "    return _mm_add_epi32(p, _mm_and_si128(p, is31));\n")
        return f"{fn}({n})"

    def shift(self, op: str, k: str, a: str, n: str, n_uniform: bool) -> str:
        if op not in ("<<", ">>") or is_float(k):
            raise ValueError(f"shift {op!r} on {k}")
        s = "sll" if op == "<<" else ("sra" if is_signed(k) else "srl")
        w = self.lane_bits(k)
        if w == 32:
            name = f"_exp_{OPNAMES[op]}{'u' if n_uniform else 'v'}_{k}"
            fix = (lambda e: self._fix(k, e)) if op == "<<" else (lambda e: e)
            if not n_uniform and op == "<<":
                return self._map(name, k, lambda x, c: self._fix(k, f"_mm_mullo_epi32({x}, {self._pow2(c)})"), a, n)
            if not n_uniform:
                fn = self._srv32(s == "sra")
                return self._map(name, k, lambda x, c: f"{fn}({x}, {c})", a, n)
            if is_int_literal(n):
                c = n.strip()
                return self._map(f"{name}_by{c}", k, lambda x: fix(f"_mm_{s}i_epi32({x}, {c})"), a)
            return self._lift(name, self.vtype(k), self.nregs(k), [self.gang_arg(k, a), Arg("int", n)],
                              lambda _j, x, c: fix(f"_mm_{s}_epi32({x}, _mm_cvtsi32_si128({c}))"))
        vt = self.vtype(k)
        if not n_uniform:
            fn = self._shv64(s)
            return self._map(f"_exp_{OPNAMES[op]}v_{k}", k, lambda x, c: f"{fn}({x}, {c})", a, n)
        if s == "sra":
            fn = self._func("_exp_srai_epi64", "__m128i", ["__m128i x", "int n"],
                            f"    __m128i s = {self._sign64()};\n"
                            "    return _mm_xor_si128(_mm_srli_epi64(_mm_xor_si128(x, s), n), s);\n")
        else:
            fn = f"_mm_{s}i_epi64"
        return self._lift(f"_exp_{OPNAMES[op]}u_{k}", vt, self.nregs(k), [self.gang_arg(k, a), Arg("int", n)],
                          lambda _j, x, c: f"{fn}({x}, {c})")

    def unop(self, op: str, k: str, a: str) -> str:
        if op not in ("-", "~") or (op == "~" and is_float(k)):
            raise ValueError(f"unary {op!r} on {k}")
        name = f"_exp_{'neg' if op == '-' else 'not'}_{k}"
        if is_float(k):
            # Flip the sign bit with an integer add, not an xor: GCC 12 folds `(x ^ -0.0) == x` into
            # `-0.0 == 0.0` (true) even for a floating-point compare (tests/fuzz_regressions/neg_compare.c).
            sfx = self._sfx(k)
            if k == "f32":
                return self._map(name, k, lambda x: f"_mm_castsi128_ps(_mm_add_epi32(_mm_castps_si128({x}), "
                                                    f"_mm_set1_epi32((int)0x80000000u)))", a)
            return self._map(name, k, lambda x: f"_mm_castsi128_{sfx}(_mm_add_epi64(_mm_cast{sfx}_si128({x}), "
                                                f"_mm_set1_epi64x((long long)0x8000000000000000ull)))", a)
        if op == "-":
            w = self.lane_bits(k)
            return self._map(name, k, lambda x: self._fix(k, f"_mm_sub_epi{w}(_mm_setzero_si128(), {x})"), a)
        ones = ONES if is_signed(k) or not self.is_narrow(k) else f"_mm_set1_epi32({(1 << kind_bits(k)) - 1:#x})"
        return self._map(name, k, lambda x: f"_mm_xor_si128({x}, {ones})", a)

    # ------------------------------------------------------------------ comparisons, select, masks
    def cmp(self, op: str, k: str, a: str, b: str) -> str:
        if op not in CMPOPS:
            raise ValueError(f"unknown comparison {op!r}")
        name = f"_exp_{OPNAMES[op]}_{k}"
        if k == "f32":
            return self._map(name, k, lambda x, y: f"_mm_castps_si128(_mm_cmp{FCMP[op]}_ps({x}, {y}))",
                             a, b, out_k="i32")
        if k == "f64":
            def fpair(lo: list[str], hi: list[str]) -> str:
                return self._mask_join([f"_mm_castpd_si128(_mm_cmp{FCMP[op]}_pd({x}, {y}))" for x, y in (lo, hi)])
            return self._pairs(name, k, "i32", fpair, a, b)
        neg = op in ("!=", "<=", ">=")
        base = {"!=": "==", "<=": ">", ">=": "<"}.get(op, op)
        if self.lane_bits(k) == 32:
            def one32(x: str, y: str) -> str:
                if k == "u32" and base != "==":
                    x, y = f"_mm_xor_si128({x}, {SIGN32})", f"_mm_xor_si128({y}, {SIGN32})"
                intr = {"==": "_mm_cmpeq_epi32", "<": "_mm_cmplt_epi32", ">": "_mm_cmpgt_epi32"}[base]
                e = f"{intr}({x}, {y})"
                return _not(e) if neg else e
            return self._map(name, k, one32, a, b, out_k="i32")
        if base == "==":
            def one(x: str, y: str) -> str:
                return f"_mm_cmpeq_epi64({x}, {y})"
        else:
            gt = self._func(
                "_exp_cmpgt_biased_epi64", "__m128i", ["__m128i a", "__m128i b"],
                "    /* 64-bit a > b from the 32-bit halves (both compared signed): hi > or (hi == and lo >) */\n"
                "    __m128i gt = _mm_cmpgt_epi32(a, b);\n"
                "    __m128i r = _mm_or_si128(gt, _mm_and_si128(_mm_cmpeq_epi32(a, b), _mm_slli_epi64(gt, 32)));\n"
                "    return _mm_shuffle_epi32(r, _MM_SHUFFLE(3, 3, 1, 1));\n")

            def one(x: str, y: str) -> str:
                if base == "<":
                    x, y = y, x
                return f"{gt}(_mm_xor_si128({x}, {BIAS64[k]}), _mm_xor_si128({y}, {BIAS64[k]}))"

        def ipair(lo: list[str], hi: list[str]) -> str:
            e = self._mask_join([one(*lo), one(*hi)])
            return _not(e) if neg else e
        return self._pairs(name, k, "i32", ipair, a, b)

    def select(self, k: str, m: str, a: str, b: str) -> str:
        if is_float(k):
            sfx = self._sfx(k)

            def fn(_j: int, mm: str, x: str, y: str) -> str:
                return f"_mm_blendv_{sfx}({y}, {x}, _mm_castsi128_{sfx}({mm}))"
        else:
            def fn(_j: int, mm: str, x: str, y: str) -> str:
                return f"_mm_blendv_epi8({y}, {x}, {mm})"
        return self._lift(f"_exp_select_{k}", self.vtype(k), self.nregs(k),
                          [self.mask_arg(k, m), self.gang_arg(k, a), self.gang_arg(k, b)], fn)

    def minmax(self, op: str, k: str, a: str, b: str) -> str | None:
        return x86_minmax(self, op, k, a, b)

    def mask_const(self, value: bool) -> str:
        return self._const(f"_exp_mask_{'ones' if value else 'zeros'}", "i32",
                           ONES if value else "_mm_setzero_si128()")

    def _mask2(self, name: str, fn: Callable[[str, str], str], a: str, b: str) -> str:
        return self._map(f"_exp_mask_{name}", "i32", fn, a, b)

    def mask_and(self, a: str, b: str) -> str:
        return self._mask2("and", lambda x, y: f"_mm_and_si128({x}, {y})", a, b)

    def mask_or(self, a: str, b: str) -> str:
        return self._mask2("or", lambda x, y: f"_mm_or_si128({x}, {y})", a, b)

    def mask_xor(self, a: str, b: str) -> str:
        return self._mask2("xor", lambda x, y: f"_mm_xor_si128({x}, {y})", a, b)

    def mask_andnot(self, a: str, b: str) -> str:
        return self._mask2("andnot", lambda x, y: f"_mm_andnot_si128({y}, {x})", a, b)

    def mask_not(self, a: str) -> str:
        return self._map("_exp_mask_not", "i32", _not, a)

    def mask_to_int(self, m: str) -> str:
        return self._map("_exp_mask_to_int", "i32", lambda x: f"_mm_srli_epi32({x}, 31)", m)

    def _mask_reduce(self, name: str, ret: str, m: str, combine: str, expr: Callable[[str], str]) -> str:
        """``expr`` of all the mask's registers folded with ``_mm_<combine>_si128``."""
        n = self.nregs("i32")
        if n == 1:
            return expr(m)
        acc = "a.v[0]"
        for j in range(1, n):
            acc = f"_mm_{combine}_si128({acc}, a.v[{j}])"
        self._ret_func(name, ret, [f"{self.mask_type()} a"], expr(acc))
        return f"{name}({m})"

    def mask_bits(self, m: str) -> str:
        n = self.nregs("i32")
        if n == 1:
            return f"((unsigned)_mm_movemask_ps(_mm_castsi128_ps({m})))"
        bits = [f"(unsigned)_mm_movemask_ps(_mm_castsi128_ps(a.v[{j}]))" for j in range(n)]
        e = " | ".join([bits[0], *(f"({b} << {4 * j})" for j, b in enumerate(bits) if j)])
        self._ret_func("_exp_mask_bits", "unsigned", [f"{self.mask_type()} a"], e)
        return f"_exp_mask_bits({m})"

    def mask_any(self, m: str) -> str:
        return self._mask_reduce("_exp_mask_any", "int", m, "or", lambda x: f"(!_mm_testz_si128({x}, {ONES}))")

    def mask_all(self, m: str) -> str:
        return self._mask_reduce("_exp_mask_all", "int", m, "and", lambda x: f"_mm_testc_si128({x}, {ONES})")

    # ------------------------------------------------------------------ conversions
    def _half(self, k: str, p: str, j: int) -> str:
        """Lanes 2j, 2j+1 of the 32-bit-lane register ``p`` (kind ``k``) in its low 64 bits."""
        if j == 0:
            return p
        return f"_mm_movehl_ps({p}, {p})" if k == "f32" else f"_mm_srli_si128({p}, 8)"

    def _widen(self, name: str, src_k: str, dst_k: str, a: str, fn: Callable[[str], str]) -> str:
        """A gang of 64-bit kind ``dst_k`` from the 32-bit-lane ``a``: register j is
        ``fn(half j % 2 of register j // 2)``."""
        part = None if self.nregs(src_k) == 1 else (lambda p, j: f"{p}.v[{j // 2}]")
        return self._lift(name, self.vtype(dst_k), self.nregs(dst_k), [Arg(self.vtype(src_k), a, part)],
                          lambda j, p: fn(self._half(src_k, p, j % 2)))

    def _narrow(self, name: str, src_k: str, dst_k: str, a: str, fn: Callable[[str, str], str]) -> str:
        """A gang of 32-bit-lane kind ``dst_k`` from the 64-bit-lane ``a`` (the helper's parameter
        ``a``): register j is ``fn(register 2j, register 2j + 1)``."""
        return self._pairs(name, src_k, dst_k, lambda lo, hi: fn(lo[0], hi[0]), a)

    def convert(self, src_k: str, dst_k: str, a: str) -> str:
        if src_k == dst_k:
            return a
        s, d = src_k, dst_k
        sw, dw = self.lane_bits(s), self.lane_bits(d)
        name = f"_exp_cvt_{s}_{d}"
        if not is_float(s) and not is_float(d):
            if sw == 32 and dw == 32:
                sb, db = kind_bits(s), kind_bits(d)
                fits = sb < db and (is_signed(d) or not is_signed(s))
                return a if fits or db == 32 else self._map(name, d, lambda x: self._fix(d, x), a)
            if sw == 64 and dw == 64:
                return a
            if dw == 64:
                return self._widen(name, s, d, a, lambda h: f"_mm_cvt{'epu' if s == 'u32' else 'epi'}32_epi64({h})")
            return self._narrow(name, s, d, a, lambda lo, hi: self._fix(d, _join_lo32(lo, hi)))
        if is_float(s) and is_float(d):
            if s == "f32":
                return self._widen(name, s, d, a, lambda h: f"_mm_cvtps_pd({h})")
            return self._narrow(name, s, d, a, lambda lo, hi: f"_mm_movelh_ps(_mm_cvtpd_ps({lo}), _mm_cvtpd_ps({hi}))")
        if not is_float(s):
            if sw == 64:
                return super().convert(s, d, a)
            if d == "f32" and s != "u32":
                return self._map(name, s, lambda x: f"_mm_cvtepi32_ps({x})", a, out_k=d)
            if d == "f32":
                fn = self._u32_to_f32()
                return self._map(f"{name}_regs", s, lambda x: f"{fn}({x})", a, out_k=d)
            if s != "u32":
                return self._widen(name, s, d, a, lambda h: f"_mm_cvtepi32_pd({h})")
            return self._widen(name, s, d, a,
                               lambda h: f"_mm_add_pd(_mm_cvtepi32_pd(_mm_xor_si128({h}, {SIGN32})), "
                               "_mm_set1_pd(2147483648.0))")
        # float -> integer: truncation (out-of-range lanes are undefined in C)
        if dw == 64:
            return super().convert(s, d, a)
        if s == "f32":
            if d == "u32":
                fn = self._f32_to_u32()
                return self._map(f"{name}_regs", s, lambda x: f"{fn}({x})", a, out_k=d)
            return self._map(name, s, lambda x: f"_mm_cvttps_epi32({x})", a, out_k=d)
        if d == "u32":
            def trunc(x: str) -> str:
                return (f"_mm_castpd_si128(_mm_add_pd(_mm_round_pd({x}, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), "
                        "_mm_set1_pd(4503599627370496.0)))")
            return self._narrow(name, s, d, a, lambda lo, hi: _join_lo32(trunc(lo), trunc(hi)))
        return self._narrow(name, s, d, a,
                            lambda lo, hi: f"_mm_unpacklo_epi64(_mm_cvttpd_epi32({lo}), _mm_cvttpd_epi32({hi}))")

    def _u32_to_f32(self) -> str:
        """Helper: u32 -> f32 correctly rounded (exact 16-bit halves, one rounding in the add)."""
        return self._func("_exp_cvt_u32_f32", "__m128", ["__m128i x"],
                          "    __m128 hi = _mm_cvtepi32_ps(_mm_srli_epi32(x, 16));\n"
                          "    __m128 lo = _mm_cvtepi32_ps(_mm_and_si128(x, _mm_set1_epi32(0xffff)));\n"
                          "    return _mm_add_ps(_mm_mul_ps(hi, _mm_set1_ps(65536.0f)), lo);\n")

    def _f32_to_u32(self) -> str:
        """Helper: f32 -> u32 truncation for [0, 2^32) (2^31 and up biased down, exactly)."""
        return self._func("_exp_cvt_f32_u32", "__m128i", ["__m128 x"],
                          "    __m128 big = _mm_cmpge_ps(x, _mm_set1_ps(2147483648.0f));\n"
                          "    __m128 t = _mm_sub_ps(x, _mm_and_ps(big, _mm_set1_ps(2147483648.0f)));\n"
                          "    return _mm_xor_si128(_mm_cvttps_epi32(t), _mm_slli_epi32(_mm_castps_si128(big), 31));\n")

    def bitcast(self, src_k: str, dst_k: str, a: str) -> str:
        if kind_bits(src_k) != kind_bits(dst_k):
            raise ValueError(f"bitcast {src_k} -> {dst_k}: widths differ")
        if src_k == dst_k:
            return a
        if not is_float(src_k) and not is_float(dst_k):
            return self.convert(src_k, dst_k, a)
        sfx = self._sfx(src_k if is_float(src_k) else dst_k)
        cast = f"_mm_castsi128_{sfx}" if is_float(dst_k) else f"_mm_cast{sfx}_si128"
        return self._map(f"_exp_bitcast_{src_k}_{dst_k}", src_k, lambda x: f"{cast}({x})", a, out_k=dst_k)

    # ------------------------------------------------------------------ libm operations
    def math(self, op: str, k: str, args: Sequence[str]) -> str:
        """sqrt: ``_mm_sqrt_ps/pd``; floor/ceil/trunc/rint/nearbyint: ``_mm_round_ps/pd`` (``ROUND``);
        fmin/fmax: compares and selects with glibc's x86-64 rules (ties give ``y``, as ``minss``);
        fma: per lane (no FMA in SSE4.1: glibc's fma)."""
        check_math(op, k, args)
        sfx = self._sfx(k)
        if op == "sqrt":
            return self._map(f"_exp_sqrt_{k}", k, lambda x: f"_mm_sqrt_{sfx}({x})", *args)
        if op in ROUND:
            return self._map(f"_exp_{op}_{k}", k, lambda x: f"_mm_round_{sfx}({x}, {ROUND[op]})", *args)
        if op in ("fmin", "fmax"):
            return self._fminmax(op, k, *args, ties_to_x=False)
        return super().math(op, k, args)
