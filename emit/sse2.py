"""SSE2: the SSE4.1 table (``Sse41``) with every SSE3/SSSE3/SSE4.1 instruction replaced by SSE2.

Same register layout (4 lanes, or a multiple of 4 in several registers per gang), masks and helpers
as emit/sse41.py; only these operations differ:

* select: ``_mm_blendv_*`` -> ``and``/``andnot``/``or`` (helpers ``_exp_blend_{ps,pd,si128}``);
* 32-bit ``*`` (and the ``2^n`` multiply of per-lane ``<<``): ``_mm_mullo_epi32`` -> two
  ``_mm_mul_epu32`` and shuffles (helper ``_exp_mullo_epi32``); on the narrow kinds only the low 16
  bits matter, so ``_mm_mullo_epi16`` does it in one instruction;
* per-lane shifts: ``_mm_blend_epi16`` of the single-count shifts -> unpacks / ``_mm_move_sd``;
* 64-bit ``==``/``!=``: ``_mm_cmpeq_epi64`` -> ``_mm_cmpeq_epi32`` of both halves, and-ed;
* extract: ``_mm_extract_epi32/64`` -> ``_mm_shuffle_epi32`` / ``_mm_srli_si128`` + ``_mm_cvtsi128_*``
  (f32 also through ``_mm_shuffle_epi32``, so the gang appears once);
* narrow loads: ``_mm_cvtep{i,u}{8,16}_epi32`` -> unpack with zero (then ``srai`` for signed kinds);
* narrow stores: ``_mm_shuffle_epi8`` -> saturating packs (exact: the lanes hold in-range values);
* int32 -> int64: ``_mm_cvtep{i,u}32_epi64`` -> unpack with zero or with the sign;
* f64 -> u32: ``_mm_round_pd`` -> the 2^31 bias of ``_exp_cvt_f32_u32`` on doubles;
* ``mask_any``/``mask_all``: ``_mm_testz/testc_si128`` -> ``_mm_movemask_ps`` (of the mask's registers
  or-ed / and-ed together when it has several);
* floor/ceil/trunc/rint/nearbyint: ``_mm_round_ps/pd`` -> adding and subtracting 2^23 (2^52), see
  ``_round``.

Per-lane scalar fallback (from ``Isa``), as on SSE4.1: integer ``/`` and ``%``, i64/u64 -> float,
float -> i64/u64, fma.
"""

from __future__ import annotations

from collections.abc import Sequence

from .isa import RegIsa, check_math, is_float, is_signed, kind_bits, scalar_ctype, uint_kind
from .sse41 import ROUND, Sse41, _join_lo32, _not

ZERO = "_mm_setzero_si128()"


def _join_hi32(p0: str, p1: str) -> str:
    """The high 32 bits of each 64-bit lane of ``p0`` then ``p1`` (both ``__m128i``)."""
    return (f"_mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps({p0}), _mm_castsi128_ps({p1}), "
            "_MM_SHUFFLE(3, 1, 3, 1)))")


class Sse2(Sse41):
    """SSE2 with 4 lanes (or a multiple of 4: several registers per gang; x86-64 baseline)."""

    name = "sse2"
    default_lanes = 4
    boscc_blend_cost = 3  # and, andnot, or
    # -mno-sse3 (which also turns off SSSE3 and SSE4.x) makes any later intrinsic a compile error
    CFLAGS = ("-msse2", "-mno-sse3")
    CPU_FEATURES = ("sse2",)
    HEADERS = ("<emmintrin.h>",)
    sleef_suffix = "sse2"

    def __init__(self, lanes: int | None = None) -> None:
        RegIsa.__init__(self, lanes)
        self._check_lanes()

    # ------------------------------------------------------------------ narrow loads and stores
    def _reg_loadu(self, k: str, ptr: str) -> str:
        if not self.is_narrow(k):
            return super()._reg_loadu(k, ptr)
        if kind_bits(k) == 8:
            x = f"_mm_loadu_si32({ptr})"
            if is_signed(k):  # each byte to the top of its dword, then shifted back with its sign
                return f"_mm_srai_epi32(_mm_unpacklo_epi16({ZERO}, _mm_unpacklo_epi8({ZERO}, {x})), 24)"
            return f"_mm_unpacklo_epi16(_mm_unpacklo_epi8({x}, {ZERO}), {ZERO})"
        x = f"_mm_loadu_si64({ptr})"
        if is_signed(k):
            return f"_mm_srai_epi32(_mm_unpacklo_epi16({ZERO}, {x}), 16)"
        return f"_mm_unpacklo_epi16({x}, {ZERO})"

    def _reg_storeu(self, k: str, ptr: str, v: str) -> str:
        if not self.is_narrow(k):
            return super()._reg_storeu(k, ptr, v)
        # The widened lanes hold in-range values, so saturating packs are exact.
        if kind_bits(k) == 8:
            pack8 = "_mm_packs_epi16" if is_signed(k) else "_mm_packus_epi16"
            return f"_mm_storeu_si32({ptr}, {pack8}(_mm_packs_epi32({v}, {ZERO}), {ZERO}))"
        if not is_signed(k):  # u16 above 32767 would saturate: sign-extend from bit 15 first
            v = f"_mm_srai_epi32(_mm_slli_epi32({v}, 16), 16)"
        return f"_mm_storeu_si64({ptr}, _mm_packs_epi32({v}, {ZERO}))"

    # ------------------------------------------------------------------ gang construction
    def extract(self, k: str, v: str, lane: int) -> str:
        if not 0 <= lane < self.lanes:
            raise ValueError(f"lane {lane} out of range")
        t, rl = scalar_ctype(k), self.reg_lanes(k)
        if self.lane_bits(k) == 32:  # (v once: _mm_shuffle_ps(v, v, lane) would take it twice)
            g, i = f"({v}).v[{lane // rl}]" if self.nregs(k) > 1 else v, lane % rl
            r = f"_mm_castps_si128({g})" if k == "f32" else g
            r = r if i == 0 else f"_mm_shuffle_epi32({r}, {i})"
            if k == "f32":
                return f"_mm_cvtss_f32({g})" if i == 0 else f"_mm_cvtss_f32(_mm_castsi128_ps({r}))"
            return f"(({t})_mm_cvtsi128_si32({r}))"
        r, j = f"({v}).v[{lane // 2}]", lane % 2
        if k == "f64":
            return f"_mm_cvtsd_f64({r})" if j == 0 else \
                f"_mm_cvtsd_f64(_mm_castsi128_pd(_mm_srli_si128(_mm_castpd_si128({r}), 8)))"
        return f"(({t})_mm_cvtsi128_si64({r if j == 0 else f'_mm_srli_si128({r}, 8)'}))"

    # ------------------------------------------------------------------ arithmetic
    def _mullo32(self) -> str:
        """Helper: the low 32 bits of the lane products (``_mm_mullo_epi32``) from ``_mm_mul_epu32``."""
        return self._func("_exp_mullo_epi32", "__m128i", ["__m128i a", "__m128i b"],
                          "    __m128i p02 = _mm_mul_epu32(a, b);\n"
                          "    __m128i p13 = _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32));\n"
                          "    return _mm_unpacklo_epi32(_mm_shuffle_epi32(p02, _MM_SHUFFLE(0, 0, 2, 0)),\n"
                          "                              _mm_shuffle_epi32(p13, _MM_SHUFFLE(0, 0, 2, 0)));\n")

    def _mul32(self, k: str, a: str, b: str) -> str:
        """``a * b`` on 32-bit lanes of kind ``k`` (narrow kinds: one 16-bit multiply, re-extended)."""
        if self.is_narrow(k):
            return self._fix(k, f"_mm_mullo_epi16({a}, {b})")
        return f"{self._mullo32()}({a}, {b})"

    def _int32(self, k: str) -> bool:
        """Integer kinds held in 32-bit lanes."""
        return not is_float(k) and self.lane_bits(k) == 32

    def binop(self, op: str, k: str, a: str, b: str) -> str:
        if op == "*" and self._int32(k):
            return self._map(f"_exp_mul_{k}", k, lambda x, y: self._mul32(k, x, y), a, b)
        return super().binop(op, k, a, b)

    def _srv32(self, arith: bool) -> str:
        s = "sra" if arith else "srl"
        return self._func(
            f"_exp_{s}v_epi32", "__m128i", ["__m128i x", "__m128i n"],
            "    __m128i z = _mm_setzero_si128();\n"
            "    __m128i lo = _mm_unpacklo_epi32(n, z), hi = _mm_unpackhi_epi32(n, z);\n"
            f"    __m128i r0 = _mm_{s}_epi32(x, lo);\n"
            f"    __m128i r1 = _mm_{s}_epi32(x, _mm_srli_si128(lo, 8));\n"
            f"    __m128i r2 = _mm_{s}_epi32(x, hi);\n"
            f"    __m128i r3 = _mm_{s}_epi32(x, _mm_srli_si128(hi, 8));\n"
            "    /* lane i from r_i: r01 = {r0[0], r0[1], r1[0], r1[1]}, r23 = {r2[2], r2[3], r3[2], r3[3]} */\n"
            "    __m128 r01 = _mm_castsi128_ps(_mm_unpacklo_epi64(r0, r1));\n"
            "    __m128 r23 = _mm_castsi128_ps(_mm_unpackhi_epi64(r2, r3));\n"
            "    return _mm_castps_si128(_mm_shuffle_ps(r01, r23, _MM_SHUFFLE(3, 0, 3, 0)));\n")

    def _shv64(self, s: str) -> str:
        if s == "sra":
            return super()._shv64(s)
        return self._func(f"_exp_{s}v_epi64", "__m128i", ["__m128i x", "__m128i n"],
                          f"    __m128d lo = _mm_castsi128_pd(_mm_{s}_epi64(x, n));\n"
                          f"    __m128d hi = _mm_castsi128_pd(_mm_{s}_epi64(x, _mm_unpackhi_epi64(n, n)));\n"
                          "    return _mm_castpd_si128(_mm_move_sd(hi, lo));\n")

    def shift(self, op: str, k: str, a: str, n: str, n_uniform: bool) -> str:
        if op == "<<" and not n_uniform and self._int32(k):
            return self._map(f"_exp_shlv_{k}", k, lambda x, c: self._mul32(k, x, self._pow2(c)), a, n)
        return super().shift(op, k, a, n, n_uniform)

    # ------------------------------------------------------------------ comparisons, select, masks
    def cmp(self, op: str, k: str, a: str, b: str) -> str:
        if k in ("i64", "u64") and op in ("==", "!="):
            vt, mt, n = self.vtype(k), self.mask_type(), self.nregs("i32")
            name = f"_exp_{'eq' if op == '==' else 'ne'}_{k}"
            e = "_mm_and_si128(lo, hi)"
            e = e if op == "==" else _not(e)
            if n == 1:
                self._func(name, "__m128i", [f"{vt} a", f"{vt} b"],
                           "    /* both 32-bit halves equal */\n"
                           "    __m128i e0 = _mm_cmpeq_epi32(a.v[0], b.v[0]), e1 = _mm_cmpeq_epi32(a.v[1], b.v[1]);\n"
                           f"    __m128i lo = {_join_lo32('e0', 'e1')};\n"
                           f"    __m128i hi = {_join_hi32('e0', 'e1')};\n"
                           f"    return {e};\n")
            else:  # mask register j from the 64-bit registers 2j and 2j + 1
                self._func(name, mt, [f"{vt} a", f"{vt} b"],
                           f"    {mt} r;\n"
                           f"    for (int j = 0; j < {n}; j++) {{\n"
                           "        /* both 32-bit halves equal */\n"
                           "        __m128i e0 = _mm_cmpeq_epi32(a.v[2 * j], b.v[2 * j]);\n"
                           "        __m128i e1 = _mm_cmpeq_epi32(a.v[2 * j + 1], b.v[2 * j + 1]);\n"
                           f"        __m128i lo = {_join_lo32('e0', 'e1')};\n"
                           f"        __m128i hi = {_join_hi32('e0', 'e1')};\n"
                           f"        r.v[j] = {e};\n"
                           "    }\n"
                           "    return r;\n")
            return f"{name}({a}, {b})"
        return super().cmp(op, k, a, b)

    def _blend(self, k: str) -> str:
        """Helper ``(m, a, b)``: bits of ``a`` where the register mask ``m`` (``__m128i``) is set, else ``b``."""
        if is_float(k):
            sfx, rt = ("ps", "__m128") if k == "f32" else ("pd", "__m128d")
            return self._func(f"_exp_blend_{sfx}", rt, ["__m128i m", f"{rt} a", f"{rt} b"],
                              f"    {rt} f = _mm_castsi128_{sfx}(m);\n"
                              f"    return _mm_or_{sfx}(_mm_and_{sfx}(f, a), _mm_andnot_{sfx}(f, b));\n")
        return self._ret_func("_exp_blend_si128", "__m128i", ["__m128i m", "__m128i a", "__m128i b"],
                              "_mm_or_si128(_mm_and_si128(m, a), _mm_andnot_si128(m, b))")

    def minmax(self, op: str, k: str, a: str, b: str) -> str | None:
        """Floats only (``_mm_min_ps``/``_mm_min_pd``): SSE2's integer min/max take 16-bit and u8 lanes."""
        return super().minmax(op, k, a, b) if is_float(k) else None

    def select(self, k: str, m: str, a: str, b: str) -> str:
        fn = self._blend(k)
        return self._lift(f"_exp_select_{k}", self.vtype(k), self.nregs(k),
                          [self.mask_arg(k, m), self.gang_arg(k, a), self.gang_arg(k, b)],
                          lambda _j, mm, x, y: f"{fn}({mm}, {x}, {y})")

    def mask_any(self, m: str) -> str:
        return self._mask_reduce("_exp_mask_any", "int", m, "or",
                                 lambda x: f"(_mm_movemask_ps(_mm_castsi128_ps({x})) != 0)")

    def mask_all(self, m: str) -> str:
        return self._mask_reduce("_exp_mask_all", "int", m, "and",
                                 lambda x: f"(_mm_movemask_ps(_mm_castsi128_ps({x})) == 0xf)")

    # ------------------------------------------------------------------ conversions
    def convert(self, src_k: str, dst_k: str, a: str) -> str:
        s, d = src_k, dst_k
        name = f"_exp_cvt_{s}_{d}"
        if s != d and not is_float(s) and not is_float(d) and self.lane_bits(s) == 32 and self.lane_bits(d) == 64:
            if is_signed(s):
                ext = self._ret_func("_exp_cvtepi32_epi64", "__m128i", ["__m128i x"],
                                     "_mm_unpacklo_epi32(x, _mm_srai_epi32(x, 31))")
                return self._widen(name, s, d, a, lambda h: f"{ext}({h})")
            return self._widen(name, s, d, a, lambda h: f"_mm_unpacklo_epi32({h}, {ZERO})")
        if s == "f64" and d == "u32":
            fn = self._func("_exp_cvttpd_epu32", "__m128i", ["__m128d x"],
                            "    /* [0, 2^32) -> u32 in the low two lanes: 2^31 and up biased down, exactly */\n"
                            "    __m128d big = _mm_cmpge_pd(x, _mm_set1_pd(2147483648.0));\n"
                            "    __m128d t = _mm_sub_pd(x, _mm_and_pd(big, _mm_set1_pd(2147483648.0)));\n"
                            "    __m128i s = _mm_shuffle_epi32(_mm_castpd_si128(big), _MM_SHUFFLE(3, 1, 2, 0));\n"
                            "    return _mm_xor_si128(_mm_cvttpd_epi32(t), _mm_slli_epi32(s, 31));\n")
            return self._narrow(name, s, d, a, lambda lo, hi: f"_mm_unpacklo_epi64({fn}({lo}), {fn}({hi}))")
        return super().convert(s, d, a)

    # ------------------------------------------------------------------ libm operations
    def math(self, op: str, k: str, args: Sequence[str]) -> str:
        check_math(op, k, args)
        if op in ROUND:
            return self._round(op, k, args[0])
        return super().math(op, k, args)

    def _round(self, op: str, k: str, x: str) -> str:
        """floor/ceil/trunc/rint/nearbyint without ``roundps``: |x| below 2^23 (2^52 for doubles)
        rounds to an integer by adding and subtracting 2^23, exactly (in the default rounding mode,
        which the compiler also assumes for the scalar code); floor/ceil/trunc then correct by one,
        and x's sign goes back on (-0 stays -0, ceil(-0.5) is -0). Other lanes give x, as GCC's own
        SSE2 expansion of the scalar floorf/ceilf/truncf/rintf does (a signalling NaN stays
        signalling); nearbyint is a libm call there (glibc's quiets NaNs), so its NaNs are quieted."""
        vt, u = self.vtype(k), uint_kind(k)
        big, one, sign = ("8388608.0f", "1.0f", "0x80000000") if k == "f32" else \
            ("4503599627370496.0", "1.0", "0x8000000000000000")
        mag = hex(int(sign, 16) - 1)

        def bits(v: str) -> str:
            return self.bitcast(k, u, v)

        def signed(v: str) -> str:  # v (sign bit clear, or already x's sign) with x's sign
            return self.bitcast(u, k, self.binop("|", u, bits(v), "s"))

        def fix(cmp: str, than: str, op1: str) -> str:  # r op1 1 where r cmp than
            return self.select(k, self.cmp(cmp, k, "r", than), self.binop(op1, k, "r", self.splat(k, one)), "r")

        rounded = self.binop("-", k, self.binop("+", k, "a", self.splat(k, big)), self.splat(k, big))
        body = (f"    {self.vtype(u)} s = {self.binop('&', u, bits('x'), self.splat(u, sign))};\n"
                f"    {vt} a = {self.bitcast(u, k, self.binop('&', u, bits('x'), self.splat(u, mag)))};\n"
                f"    /* |x| rounded to the nearest integer (for |x| < {big}) */\n"
                f"    {vt} r = {rounded};\n")
        if op == "trunc":
            body += f"    r = {fix('>', 'a', '-')};\n"
        body += f"    r = {signed('r')};\n"
        if op == "floor":
            body += f"    r = {fix('>', 'x', '-')};\n"
        if op == "ceil":
            body += f"    r = {fix('<', 'x', '+')};\n    r = {signed('r')};\n"
        if op == "nearbyint":  # NaN lanes: r is x quieted
            body += f"    return {self.select(k, self.cmp('>=', k, 'a', self.splat(k, big)), 'x', 'r')};\n"
        else:
            body += f"    return {self.select(k, self.cmp('<', k, 'a', self.splat(k, big)), 'r', 'x')};\n"
        name = self._func(f"_exp_{op}_{k}", vt, [f"{vt} x"], body)
        return f"{name}({x})"
