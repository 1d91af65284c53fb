"""SSE4.1: 4-lane gangs in 128-bit registers.

Register layout: f32 -> ``__m128``; i32/u32 and the narrow kinds (widened: i8/i16 sign-extended,
u8/u16 zero-extended) -> ``__m128i``; f64 -> ``_Exp_f64x4`` (2 x ``__m128d``); i64/u64 ->
``_Exp_i64x4`` (2 x ``__m128i``). A mask is one ``__m128i`` of 32-bit all-ones / all-zeros lanes;
64-bit kinds use it widened per register (``_mm_unpacklo/hi_epi32(m, m)``).

Native: all f32/f64 arithmetic, comparisons, selects; 8..32-bit integer + - * & | ^, negation, ~,
comparisons (unsigned through a sign-bit bias), selects, shifts by immediate, uniform or per-lane
count (per-lane: ``2^n`` multiply for ``<<``, four single-count shifts blended for ``>>``); 64-bit
integer + - * & | ^ (``*`` with ``_mm_mul_epu32`` partial products), shifts (arithmetic right by the
sign-xor trick), comparisons (``>`` emulated from 32-bit halves); conversions between all integer
widths, int32/uint32 <-> f32/f64 (exact), f32 <-> f64, bitcasts. Per-lane scalar fallback (from
``Isa``): integer ``/`` and ``%``, i64/u64 -> float, float -> i64/u64.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .isa import (
    CMPOPS,
    OPNAMES,
    Arg,
    RegIsa,
    check_binop,
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


def _not(m: str) -> str:
    return f"_mm_xor_si128({m}, {ONES})"


def _join_lo32(p0: str, p1: str) -> str:
    """The low 32 bits of each 64-bit lane of ``p0`` then ``p1`` (both ``__m128i``)."""
    return (f"_mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps({p0}), _mm_castsi128_ps({p1}), "
            "_MM_SHUFFLE(2, 0, 2, 0)))")


class Sse41(RegIsa):
    """SSE4.1 with 4 lanes."""

    name = "sse4.1"
    default_lanes = 4
    CFLAGS = ("-msse4.1",)
    HEADERS = ("<smmintrin.h>",)
    reg_bits = 128

    def __init__(self, lanes: int | None = None) -> None:
        super().__init__(lanes)
        if self.lanes != 4:
            raise ValueError("sse4.1 gangs have 4 lanes")

    # ------------------------------------------------------------------ types and memory
    def regtype(self, k: str) -> str:
        return {"f32": "__m128", "f64": "__m128d"}.get(k, "__m128i")

    def mask_type(self) -> str:
        return "__m128i"

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

    # ------------------------------------------------------------------ masks of 64-bit kinds
    def _mask_part(self, m: str, k: str, j: int) -> str:
        return f"_mm_unpack{'lo' if j == 0 else 'hi'}_epi32({m}, {m})"

    def _mask_join(self, parts: list[str]) -> str:
        """The 4-lane mask from the two 64-bit-lane register masks ``parts`` (``__m128i``)."""
        return _join_lo32(parts[0], parts[1])

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
        if scalar.strip() == "0" and self.nregs(k) == 1:
            return "_mm_setzero_ps()" if k == "f32" else "_mm_setzero_si128()"
        t = scalar_ctype(k)
        if k == "f32":
            return f"_mm_set1_ps({scalar})"
        if self.lane_bits(k) == 32:
            return f"_mm_set1_epi32(({t})({scalar}))"
        fn = "_mm_set1_pd({})" if k == "f64" else "_mm_set1_epi64x((long long){})"
        return self._lift(f"_exp_splat_{k}", self.vtype(k), self.nregs(k), [Arg(t, scalar)],
                          lambda _j, x: fn.format(x))

    def build(self, k: str, scalars: Sequence[str]) -> str:
        if len(scalars) != self.lanes:
            raise ValueError(f"build needs {self.lanes} scalars, got {len(scalars)}")
        t = scalar_ctype(k)
        if k == "f32":
            return f"_mm_setr_ps({', '.join(scalars)})"
        if self.lane_bits(k) == 32:
            return f"_mm_setr_epi32({', '.join(f'({t})({s})' for s in scalars)})"
        if k == "f64":
            regs = [f"_mm_setr_pd({scalars[j]}, {scalars[j + 1]})" for j in (0, 2)]
        else:
            regs = [f"_mm_set_epi64x((long long)({t})({scalars[j + 1]}), (long long)({t})({scalars[j]}))"
                    for j in (0, 2)]
        return f"(({self.vtype(k)}){{{{{', '.join(regs)}}}}})"

    def extract(self, k: str, v: str, lane: int) -> str:
        if not 0 <= lane < self.lanes:
            raise ValueError(f"lane {lane} out of range")
        t = scalar_ctype(k)
        if k == "f32":
            return f"_mm_cvtss_f32({v})" if lane == 0 else f"_mm_cvtss_f32(_mm_shuffle_ps({v}, {v}, {lane}))"
        if self.lane_bits(k) == 32:
            return f"(({t})_mm_extract_epi32({v}, {lane}))"
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
            return self._fix(k, f"_mm_mullo_epi32({a}, {b})")
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

    def shift(self, op: str, k: str, a: str, n: str, n_uniform: bool) -> str:
        if op not in ("<<", ">>") or is_float(k):
            raise ValueError(f"shift {op!r} on {k}")
        s = "sll" if op == "<<" else ("sra" if is_signed(k) else "srl")
        w = self.lane_bits(k)
        if w == 32:
            if not n_uniform and op == "<<":
                pow2 = f"_mm_cvttps_epi32(_mm_castsi128_ps(_mm_add_epi32(_mm_slli_epi32({n}, 23), " \
                       "_mm_set1_epi32(0x3f800000))))"
                return self._fix(k, f"_mm_mullo_epi32({a}, {pow2})")
            if not n_uniform:
                e = f"{self._srv32(s == 'sra')}({a}, {n})"
            elif is_int_literal(n):
                e = f"_mm_{s}i_epi32({a}, {n.strip()})"
            else:
                e = f"_mm_{s}_epi32({a}, _mm_cvtsi32_si128({n}))"
            return self._fix(k, e) if op == "<<" else e
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
            sfx = self._sfx(k)
            zero = "-0.0f" if k == "f32" else "-0.0"
            return self._map(name, k, lambda x: f"_mm_xor_{sfx}({x}, _mm_set1_{sfx}({zero}))", a)
        if op == "-":
            w = self.lane_bits(k)
            return self._map(name, k, lambda x: self._fix(k, f"_mm_sub_epi{w}(_mm_setzero_si128(), {x})"), a)
        ones = ONES if is_signed(k) or not self.is_narrow(k) else f"_mm_set1_epi32({(1 << kind_bits(k)) - 1:#x})"
        return self._map(name, k, lambda x: f"_mm_xor_si128({x}, {ones})", a)

    # ------------------------------------------------------------------ comparisons, select, masks
    def cmp(self, op: str, k: str, a: str, b: str) -> str:
        if op not in CMPOPS:
            raise ValueError(f"unknown comparison {op!r}")
        if k == "f32":
            return f"_mm_castps_si128(_mm_cmp{FCMP[op]}_ps({a}, {b}))"
        name = f"_exp_{OPNAMES[op]}_{k}"
        if k == "f64":
            parts = [f"_mm_castpd_si128(_mm_cmp{FCMP[op]}_pd(a.v[{j}], b.v[{j}]))" for j in (0, 1)]
            vt = self.vtype(k)
            self._ret_func(name, "__m128i", [f"{vt} a", f"{vt} b"], self._mask_join(parts))
            return f"{name}({a}, {b})"
        neg = op in ("!=", "<=", ">=")
        base = {"!=": "==", "<=": ">", ">=": "<"}.get(op, op)
        if self.lane_bits(k) == 32:
            if k == "u32" and base != "==":
                a, b = f"_mm_xor_si128({a}, {SIGN32})", f"_mm_xor_si128({b}, {SIGN32})"
            intr = {"==": "_mm_cmpeq_epi32", "<": "_mm_cmplt_epi32", ">": "_mm_cmpgt_epi32"}[base]
            e = f"{intr}({a}, {b})"
            return _not(e) if neg else e
        if base == "==":
            parts = [f"_mm_cmpeq_epi64(a.v[{j}], b.v[{j}])" for j in (0, 1)]
        else:
            gt = self._func(
                "_exp_cmpgt_biased_epi64", "__m128i", ["__m128i a", "__m128i b"],
                "    /* 64-bit a > b from the 32-bit halves (both compared signed): hi > or (hi == and lo >) */\n"
                "    __m128i gt = _mm_cmpgt_epi32(a, b);\n"
                "    __m128i r = _mm_or_si128(gt, _mm_and_si128(_mm_cmpeq_epi32(a, b), _mm_slli_epi64(gt, 32)));\n"
                "    return _mm_shuffle_epi32(r, _MM_SHUFFLE(3, 3, 1, 1));\n")
            x, y = ("a", "b") if base == ">" else ("b", "a")
            parts = [f"{gt}(_mm_xor_si128({x}.v[{j}], {BIAS64[k]}), _mm_xor_si128({y}.v[{j}], {BIAS64[k]}))"
                     for j in (0, 1)]
        e = self._mask_join(parts)
        vt = self.vtype(k)
        self._ret_func(name, "__m128i", [f"{vt} a", f"{vt} b"], _not(e) if neg else e)
        return f"{name}({a}, {b})"

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

    def mask_const(self, value: bool) -> str:
        return ONES if value else "_mm_setzero_si128()"

    def mask_and(self, a: str, b: str) -> str:
        return f"_mm_and_si128({a}, {b})"

    def mask_or(self, a: str, b: str) -> str:
        return f"_mm_or_si128({a}, {b})"

    def mask_xor(self, a: str, b: str) -> str:
        return f"_mm_xor_si128({a}, {b})"

    def mask_andnot(self, a: str, b: str) -> str:
        return f"_mm_andnot_si128({b}, {a})"

    def mask_not(self, a: str) -> str:
        return _not(a)

    def mask_to_int(self, m: str) -> str:
        return f"_mm_srli_epi32({m}, 31)"

    def mask_bits(self, m: str) -> str:
        return f"((unsigned)_mm_movemask_ps(_mm_castsi128_ps({m})))"

    def mask_any(self, m: str) -> str:
        return f"(!_mm_testz_si128({m}, {ONES}))"

    def mask_all(self, m: str) -> str:
        return f"_mm_testc_si128({m}, {ONES})"

    # ------------------------------------------------------------------ conversions
    def _half(self, k: str, p: str, j: int) -> str:
        """Lanes 2j, 2j+1 of the 32-bit-lane register ``p`` (kind ``k``) in its low 64 bits."""
        if j == 0:
            return p
        return f"_mm_movehl_ps({p}, {p})" if k == "f32" else f"_mm_srli_si128({p}, 8)"

    def _widen(self, name: str, src_k: str, dst_k: str, a: str, fn: Callable[[str], str]) -> str:
        """A gang of 64-bit kind ``dst_k`` from the 32-bit-lane ``a``: register j is ``fn(half j)``."""
        return self._lift(name, self.vtype(dst_k), self.nregs(dst_k), [Arg(self.vtype(src_k), a)],
                          lambda j, p: fn(self._half(src_k, p, j)))

    def _narrow(self, name: str, src_k: str, dst_k: str, a: str, expr: str) -> str:
        """Helper of one parameter ``a`` (gang of 64-bit kind ``src_k``) returning ``expr``."""
        self._ret_func(name, self.vtype(dst_k), [f"{self.vtype(src_k)} a"], expr)
        return f"{name}({a})"

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
                return a if fits or db == 32 else self._fix(d, a)
            if sw == 64 and dw == 64:
                return a
            if dw == 64:
                return self._widen(name, s, d, a, lambda h: f"_mm_cvt{'epu' if s == 'u32' else 'epi'}32_epi64({h})")
            return self._narrow(name, s, d, a, self._fix(d, _join_lo32("a.v[0]", "a.v[1]")))
        if is_float(s) and is_float(d):
            if s == "f32":
                return self._widen(name, s, d, a, lambda h: f"_mm_cvtps_pd({h})")
            return self._narrow(name, s, d, a, "_mm_movelh_ps(_mm_cvtpd_ps(a.v[0]), _mm_cvtpd_ps(a.v[1]))")
        if not is_float(s):
            if sw == 64:
                return super().convert(s, d, a)
            if d == "f32" and s != "u32":
                return f"_mm_cvtepi32_ps({a})"
            if d == "f32":
                return f"{self._u32_to_f32()}({a})"
            if s != "u32":
                return self._widen(name, s, d, a, lambda h: f"_mm_cvtepi32_pd({h})")
            return self._widen(name, s, d, a,
                               lambda h: f"_mm_add_pd(_mm_cvtepi32_pd(_mm_xor_si128({h}, {SIGN32})), "
                               "_mm_set1_pd(2147483648.0))")
        # float -> integer: truncation (out-of-range lanes are undefined in C)
        if dw == 64:
            return super().convert(s, d, a)
        if s == "f32":
            return f"{self._f32_to_u32()}({a})" if d == "u32" else f"_mm_cvttps_epi32({a})"
        if d == "u32":
            parts = [f"_mm_castpd_si128(_mm_add_pd(_mm_round_pd(a.v[{j}], _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), "
                     "_mm_set1_pd(4503599627370496.0)))" for j in (0, 1)]
            return self._narrow(name, s, d, a, _join_lo32(*parts))
        return self._narrow(name, s, d, a, "_mm_unpacklo_epi64(_mm_cvttpd_epi32(a.v[0]), _mm_cvttpd_epi32(a.v[1]))")

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
