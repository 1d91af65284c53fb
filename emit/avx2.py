"""AVX2: 8-lane gangs (or 16, 24, 32) in 256-bit registers.

Register layout at 8 lanes: f32 -> ``__m256``; i32/u32 and the narrow kinds (widened: i8/i16
sign-extended, u8/u16 zero-extended) -> ``__m256i``; f64 -> ``_Exp_f64x8`` (2 x ``__m256d``);
i64/u64 -> ``_Exp_i64x8`` (2 x ``__m256i``). A mask is one ``__m256i`` of 32-bit all-ones /
all-zeros lanes; 64-bit kinds use it widened per register (``_mm256_cvtepi32_epi64`` of each
128-bit half). With 16 lanes every gang (and the mask) is twice as many registers
(``_Exp_f32x16``, ``_Exp_i32x16``, ...): register j of a 32-bit-lane gang pairs with registers 2j
and 2j+1 of a 64-bit-lane gang.

Native: all f32/f64 arithmetic and bitwise ops, comparisons (``_mm256_cmp_ps/pd`` with ordered
predicates, ``!=`` unordered), selects (``blendv``); 8..32-bit integer + - * & | ^, negation, ~,
comparisons (unsigned 32-bit through a sign-bit bias), shifts by immediate, uniform or per-lane
count (``sllv``/``srlv``/``srav``), ``/`` and ``%`` (exact through f64 division); 64-bit integer
+ - * & | ^ (``*`` from ``_mm256_mul_epu32`` partial products), shifts (``sllv``/``srlv``; arithmetic
right by the sign-xor trick), comparisons (``_mm256_cmpeq/cmpgt_epi64``, unsigned biased); masks
(``testz``/``testc``, ``movemask_ps``); conversions between all integer widths, int32/uint32 <->
f32/f64 (exact), i64/u64 -> f64 (exact, magic-number split), f32 <-> f64, bitcasts; libm sqrt,
rounding, fmin/fmax and fma (``math``; the flags include ``-mfma``: every AVX2 CPU has FMA3, and the
output then needs ``-ffp-contract=off``, or GCC fuses separate multiplies and adds); table reads of
32- and 64-bit elements at varying indexes (``gather``: ``_mm256_i32gather_ps/pd/epi32/epi64``, the
``i64`` forms for 64-bit indexes, the ``mask_`` forms under a mask). Per-lane scalar
fallback (from ``Isa``): 64-bit integer ``/`` and ``%``, i64/u64 -> f32, float -> i64/u64.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .isa import (
    CMPOPS,
    OPNAMES,
    Arg,
    GatherInstructions,
    RegIsa,
    check_binop,
    check_math,
    is_float,
    is_int_literal,
    is_signed,
    kind_bits,
    scalar_ctype,
)
from .sse41 import ROUND, x86_minmax

ONES = "_mm256_set1_epi32(-1)"
SIGN32 = "_mm256_set1_epi32((int)0x80000000u)"
SIGN64 = "_mm256_set1_epi64x(INT64_MIN)"
#: C comparison -> ``_mm256_cmp_ps/pd`` predicate (ordered and non-signalling, ``!=`` true on NaN)
FCMP = {"==": "_CMP_EQ_OQ", "!=": "_CMP_NEQ_UQ", "<": "_CMP_LT_OQ", "<=": "_CMP_LE_OQ", ">": "_CMP_GT_OQ",
        ">=": "_CMP_GE_OQ"}
TWO52 = "4503599627370496.0"


def _not(m: str) -> str:
    return f"_mm256_xor_si256({m}, {ONES})"


def _join_lo32(p0: str, p1: str) -> str:
    """The low 32 bits of each 64-bit lane of ``p0`` then ``p1`` (both ``__m256i``), in order."""
    return (f"_mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps({p0}), "
            f"_mm256_castsi256_ps({p1}), _MM_SHUFFLE(2, 0, 2, 0))), _MM_SHUFFLE(3, 1, 2, 0))")


def _half(k: str, r: str, h: int) -> str:
    """128-bit half ``h`` of the register ``r`` of kind ``k``."""
    if k == "f32":
        return f"_mm256_castps256_ps128({r})" if h == 0 else f"_mm256_extractf128_ps({r}, 1)"
    if k == "f64":
        return f"_mm256_castpd256_pd128({r})" if h == 0 else f"_mm256_extractf128_pd({r}, 1)"
    return f"_mm256_castsi256_si128({r})" if h == 0 else f"_mm256_extracti128_si256({r}, 1)"


class Avx2(GatherInstructions, RegIsa):
    """AVX2 with 8 lanes (or a multiple of 8: several registers per gang)."""

    boscc_test_cost = 3  # vptest/kortest + branch
    boscc_plain_cost = None  # measured: guards on every unhinted rounding region cost more than they skip
    name = "avx2"
    default_lanes = 8
    CFLAGS = ("-mavx2", "-mfma")  # every AVX2 CPU has FMA3; fmaf/fma become _mm256_fmadd_ps/pd
    CPU_FEATURES = ("avx2", "fma")
    HEADERS = ("<immintrin.h>",)
    reg_bits = 256
    #: GCC -mavx2 (and -mavx512f) also calls AVX 'c' variants (integers in 128-bit vectors) when its
    #: loop's vectorization factor is 4 (measured: a void function with a linear int parameter).
    abi_letter, abi_macro = "d", "defined(__AVX2__)"
    abi_families = (("d", 256, 256, True), ("c", 256, 128, False))
    arch, libmvec, sleef_suffix = "x86_64", True, "avx2"
    intrinsic_prefix, cmp_predicate = "_mm256", True

    def __init__(self, lanes: int | None = None) -> None:
        super().__init__(lanes)
        if self.lanes % 8 or self.lanes > 32:  # mask_bits is an unsigned: at most 32 lanes
            raise ValueError(f"avx2 gangs have 8, 16, 24 or 32 lanes, not {self.lanes}")

    # ------------------------------------------------------------------ types and memory
    def regtype(self, k: str) -> str:
        return {"f32": "__m256", "f64": "__m256d"}.get(k, "__m256i")

    def mask_type(self) -> str:
        return self.vtype("i32")

    def _sfx(self, k: str) -> str:
        """Intrinsic suffix of kind ``k``'s lanes: ps, pd, epi32 or epi64."""
        return {"f32": "ps", "f64": "pd"}.get(k) or f"epi{self.lane_bits(k)}"

    def _reg(self, g: str, k: str, j: int) -> str:
        """Register ``j`` of the gang (or mask, for a 32-bit ``k``) named ``g``."""
        return g if self.nregs(k) == 1 else f"{g}.v[{j}]"

    def _reg_loadu(self, k: str, ptr: str) -> str:
        if is_float(k):
            return f"_mm256_loadu_{self._sfx(k)}({ptr})"
        if self.is_narrow(k):
            b = kind_bits(k)
            ld = f"_mm_loadu_si64({ptr})" if b == 8 else f"_mm_loadu_si128((const __m128i *)({ptr}))"
            return f"_mm256_cvt{'epi' if is_signed(k) else 'epu'}{b}_epi32({ld})"
        return f"_mm256_loadu_si256((const __m256i *)({ptr}))"

    def _reg_storeu(self, k: str, ptr: str, v: str) -> str:
        if is_float(k):
            return f"_mm256_storeu_{self._sfx(k)}({ptr}, {v})"
        if self.is_narrow(k):
            if kind_bits(k) == 8:
                # bytes 0, 4, 8, 12 of each 128-bit half to its low dword, then the two dwords together
                sh = f"_mm256_shuffle_epi8({v}, _mm256_setr_epi32(0x0c080400, -1, -1, -1, 0x0c080400, -1, -1, -1))"
                return (f"_mm_storeu_si64({ptr}, _mm256_castsi256_si128(_mm256_permutevar8x32_epi32({sh}, "
                        "_mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1))))")
            sh = (f"_mm256_shuffle_epi8({v}, _mm256_setr_epi32(0x05040100, 0x0d0c0908, -1, -1, "
                  "0x05040100, 0x0d0c0908, -1, -1))")
            return (f"_mm_storeu_si128((__m128i *)({ptr}), "
                    f"_mm256_castsi256_si128(_mm256_permute4x64_epi64({sh}, _MM_SHUFFLE(3, 1, 2, 0))))")
        return f"_mm256_storeu_si256((__m256i *)({ptr}), {v})"

    # ------------------------------------------------------------------ register plumbing
    def _mask_part(self, m: str, k: str, j: int) -> str:
        if self.lane_bits(k) == 32:
            return self._reg(m, "i32", j)
        return f"_mm256_cvtepi32_epi64({_half('i32', self._reg(m, 'i32', j // 2), j % 2)})"

    def _regs_func(self, name: str, out_type: str, params: Sequence[str], exprs: Sequence[str]) -> str:
        """Need helper ``name`` returning the register ``exprs[0]`` or the struct of ``exprs``."""
        if len(exprs) == 1:
            return self._ret_func(name, out_type, params, exprs[0])
        body = f"    {out_type} r;\n" + "".join(f"    r.v[{j}] = {e};\n" for j, e in enumerate(exprs))
        return self._func(name, out_type, params, body + "    return r;\n")

    def _pairs(self, name: str, src_k: str, out_k: str, fn: Callable[[list[str], list[str]], str],
               *gangs: str) -> str:
        """Gangs of 64-bit kind ``src_k`` to a gang of 32-bit-lane kind ``out_k`` (or a mask, for
        ``out_k`` i32): register j of the result is ``fn(registers 2j, registers 2j + 1)``."""
        vt = self.vtype(src_k)
        params = [f"{vt} a{i}" for i in range(len(gangs))]

        def regs(j: int) -> list[str]:
            return [f"a{i}.v[{j}]" for i in range(len(gangs))]

        exprs = [fn(regs(2 * j), regs(2 * j + 1)) for j in range(self.nregs(out_k))]
        self._regs_func(name, self.vtype(out_k), params, exprs)
        return f"{name}({', '.join(gangs)})"

    def _widen(self, name: str, src_k: str, dst_k: str, a: str, fn: Callable[[str], str]) -> str:
        """A gang of 64-bit kind ``dst_k`` from the 32-bit-lane ``a``: register j is
        ``fn(half j % 2 of register j // 2)``."""
        part = None if self.nregs(src_k) == 1 else (lambda p, j: f"{p}.v[{j // 2}]")
        return self._lift(name, self.vtype(dst_k), self.nregs(dst_k), [Arg(self.vtype(src_k), a, part)],
                          lambda j, p: fn(_half(src_k, p, j % 2)))

    def _fix(self, k: str, e: str) -> str:
        """Re-extend 32-bit lanes holding ``k`` values modulo 2^bits (identity for wide kinds)."""
        if not self.is_narrow(k):
            return e
        b = kind_bits(k)
        if is_signed(k):
            return f"_mm256_srai_epi32(_mm256_slli_epi32({e}, {32 - b}), {32 - b})"
        return f"_mm256_and_si256({e}, _mm256_set1_epi32({(1 << b) - 1:#x}))"

    def _const(self, name: str, k: str, reg: str) -> str:
        """A gang of kind ``k`` with every register ``reg`` (a constant expression)."""
        return self._lift(name, self.vtype(k), self.nregs(k), [], lambda _j: reg)

    # ------------------------------------------------------------------ gang construction
    def splat(self, k: str, scalar: str) -> str:
        if scalar.strip() == "0":
            zero = {"f32": "_mm256_setzero_ps()", "f64": "_mm256_setzero_pd()"}.get(k, "_mm256_setzero_si256()")
            return self._const(f"_exp_zero_{k[0] if is_float(k) else 'i'}{self.lane_bits(k)}", k, zero)
        t = scalar_ctype(k)
        if k == "f32":
            fn = "_mm256_set1_ps({})"
        elif k == "f64":
            fn = "_mm256_set1_pd({})"
        elif self.lane_bits(k) == 32:
            fn = f"_mm256_set1_epi32(({t})({{}}))"
        else:
            fn = f"_mm256_set1_epi64x((long long)({t})({{}}))"
        return self._lift(f"_exp_splat_{k}", self.vtype(k), self.nregs(k), [Arg(t, scalar)],
                          lambda _j, x: fn.format(x))

    def build(self, k: str, scalars: Sequence[str]) -> str:
        if len(scalars) != self.lanes:
            raise ValueError(f"build needs {self.lanes} scalars, got {len(scalars)}")
        t, rl = scalar_ctype(k), self.reg_lanes(k)
        if is_float(k):
            parts = [list(scalars[j:j + rl]) for j in range(0, self.lanes, rl)]
        elif self.lane_bits(k) == 32:
            parts = [[f"({t})({s})" for s in scalars[j:j + rl]] for j in range(0, self.lanes, rl)]
        else:
            parts = [[f"(long long)({t})({s})" for s in scalars[j:j + rl]] for j in range(0, self.lanes, rl)]
        setr = "_mm256_setr_" + {"f32": "ps", "f64": "pd"}.get(k, f"epi{self.lane_bits(k)}{'x' * (k[1:] == '64')}")
        regs = [f"{setr}({', '.join(p)})" for p in parts]
        if len(regs) == 1:
            return regs[0]
        return f"(({self.vtype(k)}){{{{{', '.join(regs)}}}}})"

    def extract(self, k: str, v: str, lane: int) -> str:
        if not 0 <= lane < self.lanes:
            raise ValueError(f"lane {lane} out of range")
        t, rl = scalar_ctype(k), self.reg_lanes(k)
        r, i = self._reg(f"({v})", k, lane // rl), lane % rl
        if k == "f32":
            if i == 0:
                return f"_mm256_cvtss_f32({r})"
            h = _half(k, r, i // 4)
            return f"_mm_cvtss_f32({h})" if i % 4 == 0 else f"_mm_cvtss_f32(_mm_permute_ps({h}, {i % 4}))"
        if k == "f64":
            if i == 0:
                return f"_mm256_cvtsd_f64({r})"
            h = _half(k, r, i // 2)
            return f"_mm_cvtsd_f64({h})" if i % 2 == 0 else f"_mm_cvtsd_f64(_mm_permute_pd({h}, 1))"
        return f"(({t})_mm256_extract_epi{self.lane_bits(k)}({r}, {i}))"

    # ------------------------------------------------------------------ gathers (GatherInstructions)
    def _gather_op(self, k: str, ib: int, base: str, x: str, m: str | None, scale: int, half: bool) -> str:
        sfx = self._sfx(k)
        cast = {"epi32": "(const int *)", "epi64": "(const long long *)"}.get(sfx)
        b = f"{cast}({base})" if cast else base
        if m is None:
            return f"_mm256_i{ib}gather_{sfx}({b}, {x}, {scale})"
        w, si = ("_mm", "si128") if half else ("_mm256", "si256")
        zero = f"{w}_setzero_{sfx if is_float(k) else si}()"
        mv = f"{w}_cast{si}_{sfx}({m})" if is_float(k) else m
        return f"_mm256_mask_i{ib}gather_{sfx}({zero}, {b}, {x}, {mv}, {scale})"

    def _gather_index_half(self, x: str, h: int) -> str:
        return _half("i32", x, h)

    def _gather_mask_half(self, m: str, h: int) -> str:
        return _half("i32", m, h)

    def _gather_join(self, k: str, lo: str, hi: str) -> str:
        return f"_mm256_set_m128{'' if k == 'f32' else 'i'}({hi}, {lo})"

    # ------------------------------------------------------------------ small tables
    def small_table_max(self, k: str) -> int:
        """Up to two registers of table (a ``vpermd`` per register and a blend per register of result):
        8 elements of 64 bits, 16 of 32 bits (glibc's sinf: ``__sincosf_table[0].sign[n & 3]``, four
        doubles). More would take more permutes and blends than the loads per lane (expf's 32 doubles:
        eight and seven)."""
        return 0 if self.is_narrow(k) else 2 * 256 // self.lane_bits(k)

    def small_table(self, k: str, base: str, n: int, index: str) -> str:
        eb = self.lane_bits(k)
        per = 256 // eb
        nt = -(-n // per)
        ptr = f"const {scalar_ctype(k)} *"

        def load(j: int) -> str:  # (the last register's missing elements not read: a masked load)
            dwords = min(per, n - j * per) * eb // 32
            if dwords == 8:
                return f"_mm256_loadu_si256((const __m256i *)(t + {j * per}))"
            on = ", ".join("-1" if d < dwords else "0" for d in range(8))
            return f"_mm256_maskload_epi32((const int *)(t + {j * per}), _mm256_setr_epi32({on}))"

        lines = [f"    {ptr}t = ({ptr})b;\n"]
        lines += [f"    __m256i t{j} = {load(j)};\n" for j in range(nt)]
        if eb == 64:  # (lane j's two 32-bit halves: elements 2i and 2i + 1 of the table's words)
            lines.append("    __m256i d = _mm256_slli_epi64(i, 1);\n")
            lines.append("    d = _mm256_or_si256(d, _mm256_slli_epi64(_mm256_add_epi64(d, _mm256_set1_epi64x(1)),"
                         " 32));\n")
        else:
            lines.append("    __m256i d = i;\n")
        r = "_mm256_permutevar8x32_epi32(t0, d)"
        if nt == 2:  # (vpermd reads the low three bits: the index's next bit picks the register)
            high = f"_mm256_cmpgt_epi{eb}(i, _mm256_set1_epi{eb}{'x' if eb == 64 else ''}({per - 1}))"
            r = f"_mm256_blendv_epi8({r}, _mm256_permutevar8x32_epi32(t1, d), {high})"
        rt = self.regtype(k)
        if rt != "__m256i":
            r = f"_mm256_castsi256_{self._sfx(k)}({r})"
        lines.append(f"    return {r};\n")
        return self._small_table_gang(k, n, base, index, "".join(lines))

    # ------------------------------------------------------------------ arithmetic
    def binop(self, op: str, k: str, a: str, b: str) -> str:
        check_binop(op, k)
        name = f"_exp_{OPNAMES[op]}_{k}"
        if is_float(k):
            intr = f"_mm256_{OPNAMES[op]}_{self._sfx(k)}"
            return self._map(name, k, lambda x, y: f"{intr}({x}, {y})", a, b)
        if op in "&|^":
            return self._map(name, k, lambda x, y: f"_mm256_{OPNAMES[op]}_si256({x}, {y})", a, b)
        w = self.lane_bits(k)
        if op in "+-":
            return self._map(name, k, lambda x, y: self._fix(k, f"_mm256_{OPNAMES[op]}_epi{w}({x}, {y})"), a, b)
        if op == "*" and w == 32:
            return self._map(name, k, lambda x, y: self._fix(k, f"_mm256_mullo_epi32({x}, {y})"), a, b)
        if op == "*":
            mul = self._ret_func(
                "_exp_mullo_epi64", "__m256i", ["__m256i a", "__m256i b"],
                "_mm256_add_epi64(_mm256_mul_epu32(a, b), _mm256_slli_epi64(_mm256_add_epi64("
                "_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b), _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32))), 32))")
            return self._map(name, k, lambda x, y: f"{mul}({x}, {y})", a, b)
        if w == 32:  # / and %: exact through f64 (|error| < 1/|b|: the truncation is right)
            fn = self._div32(k == "u32")
            if op == "%":
                fn = self._ret_func(f"{fn.replace('div', 'rem')}", "__m256i", ["__m256i a", "__m256i b"],
                                    f"_mm256_sub_epi32(a, _mm256_mullo_epi32({fn}(a, b), b))")
            return self._map(name, k, lambda x, y: self._fix(k, f"{fn}({x}, {y})"), a, b)
        return super().binop(op, k, a, b)

    def _div32(self, unsigned: bool) -> str:
        """Helper: truncating division of 32-bit lanes (signed or unsigned) through f64."""
        if not unsigned:
            return self._func(
                "_exp_div_epi32", "__m256i", ["__m256i a", "__m256i b"],
                "    __m256d q0 = _mm256_div_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(a)),\n"
                "                               _mm256_cvtepi32_pd(_mm256_castsi256_si128(b)));\n"
                "    __m256d q1 = _mm256_div_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(a, 1)),\n"
                "                               _mm256_cvtepi32_pd(_mm256_extracti128_si256(b, 1)));\n"
                "    return _mm256_set_m128i(_mm256_cvttpd_epi32(q1), _mm256_cvttpd_epi32(q0));\n")
        cvt, trunc = self._u32_to_f64(), self._f64_to_u32_bits()
        return self._func(
            "_exp_div_epu32", "__m256i", ["__m256i a", "__m256i b"],
            f"    __m256d q0 = _mm256_div_pd({cvt}(_mm256_castsi256_si128(a)), {cvt}(_mm256_castsi256_si128(b)));\n"
            f"    __m256d q1 = _mm256_div_pd({cvt}(_mm256_extracti128_si256(a, 1)), "
            f"{cvt}(_mm256_extracti128_si256(b, 1)));\n"
            f"    return {_join_lo32(f'{trunc}(q0)', f'{trunc}(q1)')};\n")

    def _sra64(self, per_lane: bool) -> str:
        """Helper: arithmetic right shift of 64-bit lanes (per lane or uniform), by the sign-xor trick."""
        if per_lane:
            name, n, srl = "_exp_srav_epi64", "__m256i n", "_mm256_srlv_epi64(_mm256_xor_si256(x, s), n)"
        else:
            name, n, srl = "_exp_sra_epi64", "int n", "_mm256_srl_epi64(_mm256_xor_si256(x, s), _mm_cvtsi32_si128(n))"
        return self._func(name, "__m256i", ["__m256i x", n],
                          "    __m256i s = _mm256_cmpgt_epi64(_mm256_setzero_si256(), x);\n"
                          f"    return _mm256_xor_si256({srl}, s);\n")

    def shift(self, op: str, k: str, a: str, n: str, n_uniform: bool) -> str:
        if op not in ("<<", ">>") or is_float(k):
            raise ValueError(f"shift {op!r} on {k}")
        s = "sll" if op == "<<" else ("sra" if is_signed(k) else "srl")
        w = self.lane_bits(k)
        name = f"_exp_{OPNAMES[op]}{'u' if n_uniform else 'v'}_{k}"
        fix = (lambda e: self._fix(k, e)) if op == "<<" else (lambda e: e)
        if not n_uniform:
            if w == 64 and s == "sra":
                fn = self._sra64(True)
            else:
                fn = f"_mm256_{s}v_epi{w}"
            return self._map(name, k, lambda x, c: fix(f"{fn}({x}, {c})"), a, n)
        if w == 64 and s == "sra":
            fn = self._sra64(False)
            return self._lift(name, self.vtype(k), self.nregs(k), [self.gang_arg(k, a), Arg("int", n)],
                              lambda _j, x, c: f"{fn}({x}, {c})")
        if is_int_literal(n):
            c = n.strip()
            return self._map(f"{name}_by{c}", k, lambda x: fix(f"_mm256_{s}i_epi{w}({x}, {c})"), a)
        return self._lift(name, self.vtype(k), self.nregs(k), [self.gang_arg(k, a), Arg("int", n)],
                          lambda _j, x, c: fix(f"_mm256_{s}_epi{w}({x}, _mm_cvtsi32_si128({c}))"))

    def unop(self, op: str, k: str, a: str) -> str:
        if op not in ("-", "~") or (op == "~" and is_float(k)):
            raise ValueError(f"unary {op!r} on {k}")
        name = f"_exp_{'neg' if op == '-' else 'not'}_{k}"
        if is_float(k):
            sfx = self._sfx(k)
            zero = "-0.0f" if k == "f32" else "-0.0"
            return self._map(name, k, lambda x: f"_mm256_xor_{sfx}({x}, _mm256_set1_{sfx}({zero}))", a)
        if op == "-":
            w = self.lane_bits(k)
            return self._map(name, k, lambda x: self._fix(k, f"_mm256_sub_epi{w}(_mm256_setzero_si256(), {x})"), a)
        ones = ONES if is_signed(k) or not self.is_narrow(k) else f"_mm256_set1_epi32({(1 << kind_bits(k)) - 1:#x})"
        return self._map(name, k, lambda x: f"_mm256_xor_si256({x}, {ones})", a)

    # ------------------------------------------------------------------ comparisons, select, masks
    def cmp(self, op: str, k: str, a: str, b: str) -> str:
        if op not in CMPOPS:
            raise ValueError(f"unknown comparison {op!r}")
        name = f"_exp_{OPNAMES[op]}_{k}"
        if k == "f32":
            return self._map(name, k, lambda x, y: f"_mm256_castps_si256(_mm256_cmp_ps({x}, {y}, {FCMP[op]}))",
                             a, b, out_k="i32")
        if k == "f64":
            def fpair(lo: list[str], hi: list[str]) -> str:
                return _join_lo32(*(f"_mm256_castpd_si256(_mm256_cmp_pd({x}, {y}, {FCMP[op]}))" for x, y in (lo, hi)))
            return self._pairs(name, k, "i32", fpair, a, b)
        neg = op in ("!=", "<=", ">=")
        base = {"!=": "==", "<=": ">", ">=": "<"}.get(op, op)
        w = self.lane_bits(k)
        bias = {"u32": SIGN32, "u64": SIGN64}.get(k) if base != "==" else None

        def one(x: str, y: str) -> str:
            if bias:
                x, y = f"_mm256_xor_si256({x}, {bias})", f"_mm256_xor_si256({y}, {bias})"
            if base == "==":
                return f"_mm256_cmpeq_epi{w}({x}, {y})"
            return f"_mm256_cmpgt_epi{w}({x}, {y})" if base == ">" else f"_mm256_cmpgt_epi{w}({y}, {x})"

        if w == 32:
            return self._map(name, k, lambda x, y: _not(one(x, y)) if neg else one(x, y), a, b, out_k="i32")

        def ipair(lo: list[str], hi: list[str]) -> str:
            e = _join_lo32(one(*lo), one(*hi))
            return _not(e) if neg else e
        return self._pairs(name, k, "i32", ipair, a, b)

    def select(self, k: str, m: str, a: str, b: str) -> str:
        if is_float(k):
            sfx = self._sfx(k)

            def fn(_j: int, mm: str, x: str, y: str) -> str:
                return f"_mm256_blendv_{sfx}({y}, {x}, _mm256_castsi256_{sfx}({mm}))"
        else:
            def fn(_j: int, mm: str, x: str, y: str) -> str:
                return f"_mm256_blendv_epi8({y}, {x}, {mm})"
        return self._lift(f"_exp_select_{k}", self.vtype(k), self.nregs(k),
                          [self.mask_arg(k, m), self.gang_arg(k, a), self.gang_arg(k, b)], fn)

    def minmax(self, op: str, k: str, a: str, b: str) -> str | None:
        return x86_minmax(self, op, k, a, b)

    def mask_const(self, value: bool) -> str:
        return self._const(f"_exp_mask_{'ones' if value else 'zeros'}", "i32",
                           ONES if value else "_mm256_setzero_si256()")

    def _mask2(self, name: str, fn: Callable[[str, str], str], a: str, b: str) -> str:
        return self._map(f"_exp_mask_{name}", "i32", fn, a, b)

    def mask_and(self, a: str, b: str) -> str:
        return self._mask2("and", lambda x, y: f"_mm256_and_si256({x}, {y})", a, b)

    def mask_or(self, a: str, b: str) -> str:
        return self._mask2("or", lambda x, y: f"_mm256_or_si256({x}, {y})", a, b)

    def mask_xor(self, a: str, b: str) -> str:
        return self._mask2("xor", lambda x, y: f"_mm256_xor_si256({x}, {y})", a, b)

    def mask_andnot(self, a: str, b: str) -> str:
        return self._mask2("andnot", lambda x, y: f"_mm256_andnot_si256({y}, {x})", a, b)

    def mask_not(self, a: str) -> str:
        return self._map("_exp_mask_not", "i32", _not, a)

    def mask_to_int(self, m: str) -> str:
        return self._map("_exp_mask_to_int", "i32", lambda x: f"_mm256_srli_epi32({x}, 31)", m)

    def _mask_reduce(self, name: str, ret: str, m: str, combine: str, expr: Callable[[str], str]) -> str:
        """``expr`` of all the mask's registers folded with ``_mm256_<combine>_si256``."""
        n = self.nregs("i32")
        if n == 1:
            return expr(m)
        acc = "a.v[0]"
        for j in range(1, n):
            acc = f"_mm256_{combine}_si256({acc}, a.v[{j}])"
        self._ret_func(name, ret, [f"{self.mask_type()} a"], expr(acc))
        return f"{name}({m})"

    def same_index(self, ik: str, idx: str, first: str, mask: str | None) -> str:
        if mask is None or self.nregs(ik) != 1:
            return super().same_index(ik, idx, first, mask)
        return f"_mm256_testc_si256(_mm256_cmpeq_epi32({idx}, {first}), {mask})"

    def mask_bits(self, m: str) -> str:
        n = self.nregs("i32")
        if n == 1:
            return f"((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps({m})))"
        bits = [f"(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(a.v[{j}]))" for j in range(n)]
        e = " | ".join([bits[0], *(f"({b} << {8 * j})" for j, b in enumerate(bits) if j)])
        self._ret_func("_exp_mask_bits", "unsigned", [f"{self.mask_type()} a"], e)
        return f"_exp_mask_bits({m})"

    def mask_any(self, m: str) -> str:
        return self._mask_reduce("_exp_mask_any", "int", m, "or", lambda x: f"(!_mm256_testz_si256({x}, {ONES}))")

    def mask_all(self, m: str) -> str:
        return self._mask_reduce("_exp_mask_all", "int", m, "and", lambda x: f"_mm256_testc_si256({x}, {ONES})")

    # ------------------------------------------------------------------ conversions
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
                return self._widen(name, s, d, a, lambda h: f"_mm256_cvt{'epu' if s == 'u32' else 'epi'}32_epi64({h})")
            return self._pairs(name, s, d, lambda lo, hi: self._fix(d, _join_lo32(lo[0], hi[0])), a)
        if is_float(s) and is_float(d):
            if s == "f32":
                return self._widen(name, s, d, a, lambda h: f"_mm256_cvtps_pd({h})")
            return self._pairs(name, s, d, lambda lo, hi: f"_mm256_set_m128(_mm256_cvtpd_ps({hi[0]}), "
                               f"_mm256_cvtpd_ps({lo[0]}))", a)
        if not is_float(s):
            if sw == 64:
                if d == "f64":
                    fn = self._i64_to_f64(is_signed(s))
                    return self._map(name, s, lambda x: f"{fn}({x})", a, out_k=d)
                return super().convert(s, d, a)
            if d == "f32":
                if s == "u32":
                    fn = self._u32_to_f32()
                    return self._map(name, s, lambda x: f"{fn}({x})", a, out_k=d)
                return self._map(name, s, lambda x: f"_mm256_cvtepi32_ps({x})", a, out_k=d)
            if s == "u32":
                fn = self._u32_to_f64()
                return self._widen(name, s, d, a, lambda h: f"{fn}({h})")
            return self._widen(name, s, d, a, lambda h: f"_mm256_cvtepi32_pd({h})")
        # float -> integer: truncation (out-of-range lanes are undefined in C)
        if dw == 64:
            return super().convert(s, d, a)
        if s == "f32":
            fn = self._f32_to_u32() if d == "u32" else "_mm256_cvttps_epi32"
            return self._map(name, s, lambda x: f"{fn}({x})", a, out_k=d)
        if d == "u32":
            fn = self._f64_to_u32_bits()
            return self._pairs(name, s, d, lambda lo, hi: _join_lo32(f"{fn}({lo[0]})", f"{fn}({hi[0]})"), a)
        return self._pairs(name, s, d, lambda lo, hi: f"_mm256_set_m128i(_mm256_cvttpd_epi32({hi[0]}), "
                           f"_mm256_cvttpd_epi32({lo[0]}))", a)

    def _u32_to_f32(self) -> str:
        """Helper: u32 -> f32 correctly rounded (exact 16-bit halves, one rounding in the add)."""
        return self._func("_exp_cvtepu32_ps", "__m256", ["__m256i x"],
                          "    __m256 hi = _mm256_cvtepi32_ps(_mm256_srli_epi32(x, 16));\n"
                          "    __m256 lo = _mm256_cvtepi32_ps(_mm256_and_si256(x, _mm256_set1_epi32(0xffff)));\n"
                          "    return _mm256_add_ps(_mm256_mul_ps(hi, _mm256_set1_ps(65536.0f)), lo);\n")

    def _u32_to_f64(self) -> str:
        """Helper: four u32 (``__m128i``) -> f64, exactly (sign-biased, then 2^31 added back)."""
        return self._ret_func("_exp_cvtepu32x4_pd", "__m256d", ["__m128i x"],
                              "_mm256_add_pd(_mm256_cvtepi32_pd(_mm_xor_si128(x, _mm_set1_epi32((int)0x80000000u))), "
                              "_mm256_set1_pd(2147483648.0))")

    def _f64_to_u32_bits(self) -> str:
        """Helper: f64 in [0, 2^32) -> 64-bit lanes whose low 32 bits are the truncated value."""
        return self._ret_func("_exp_cvttpd_epu32_lo", "__m256i", ["__m256d x"],
                              "_mm256_castpd_si256(_mm256_add_pd(_mm256_round_pd(x, _MM_FROUND_TO_ZERO | "
                              f"_MM_FROUND_NO_EXC), _mm256_set1_pd({TWO52})))")

    def _f32_to_u32(self) -> str:
        """Helper: f32 -> u32 truncation for [0, 2^32) (2^31 and up biased down, exactly)."""
        return self._func("_exp_cvttps_epu32", "__m256i", ["__m256 x"],
                          "    __m256 big = _mm256_cmp_ps(x, _mm256_set1_ps(2147483648.0f), _CMP_GE_OQ);\n"
                          "    __m256 t = _mm256_sub_ps(x, _mm256_and_ps(big, _mm256_set1_ps(2147483648.0f)));\n"
                          "    return _mm256_xor_si256(_mm256_cvttps_epi32(t), "
                          "_mm256_slli_epi32(_mm256_castps_si256(big), 31));\n")

    def _i64_to_f64(self, signed: bool) -> str:
        """Helper: i64/u64 -> f64 correctly rounded: the high part biased by a power of two (exact
        subtraction) plus the low part in a 2^52 mantissa, one rounding in the final add."""
        if signed:  # high 16 bits (signed) scaled by 2^48 in 3*2^67; low 48 bits in 2^52
            return self._func(
                "_exp_cvtepi64_pd", "__m256d", ["__m256i x"],
                "    __m256i hi = _mm256_blend_epi16(_mm256_srai_epi32(x, 16), _mm256_setzero_si256(), 0x33);\n"
                "    hi = _mm256_add_epi64(hi, _mm256_castpd_si256(_mm256_set1_pd(442721857769029238784.0)));\n"
                f"    __m256i lo = _mm256_blend_epi16(x, _mm256_castpd_si256(_mm256_set1_pd({TWO52})), 0x88);\n"
                "    __m256d f = _mm256_sub_pd(_mm256_castsi256_pd(hi), _mm256_set1_pd(442726361368656609280.0));\n"
                "    return _mm256_add_pd(f, _mm256_castsi256_pd(lo));\n")
        return self._func(  # high 32 bits in 2^84, low 32 bits in 2^52
            "_exp_cvtepu64_pd", "__m256d", ["__m256i x"],
            "    __m256i hi = _mm256_or_si256(_mm256_srli_epi64(x, 32), "
            "_mm256_castpd_si256(_mm256_set1_pd(19342813113834066795298816.0)));\n"
            f"    __m256i lo = _mm256_blend_epi16(x, _mm256_castpd_si256(_mm256_set1_pd({TWO52})), 0xcc);\n"
            "    __m256d f = _mm256_sub_pd(_mm256_castsi256_pd(hi), _mm256_set1_pd(19342813118337666422669312.0));\n"
            "    return _mm256_add_pd(f, _mm256_castsi256_pd(lo));\n")

    def bitcast(self, src_k: str, dst_k: str, a: str) -> str:
        if kind_bits(src_k) != kind_bits(dst_k):
            raise ValueError(f"bitcast {src_k} -> {dst_k}: widths differ")
        if src_k == dst_k:
            return a
        if not is_float(src_k) and not is_float(dst_k):
            return self.convert(src_k, dst_k, a)
        sfx = self._sfx(src_k if is_float(src_k) else dst_k)
        cast = f"_mm256_castsi256_{sfx}" if is_float(dst_k) else f"_mm256_cast{sfx}_si256"
        return self._map(f"_exp_bitcast_{src_k}_{dst_k}", src_k, lambda x: f"{cast}({x})", a, out_k=dst_k)

    # ------------------------------------------------------------------ libm operations
    def math(self, op: str, k: str, args: Sequence[str]) -> str:
        """sqrt: ``_mm256_sqrt_ps/pd``; floor/ceil/trunc/rint/nearbyint: ``_mm256_round_ps/pd``;
        fmin/fmax: compares and selects with glibc's x86-64 rules; fma: ``_mm256_fmadd_ps/pd`` when the
        flags enable FMA (the scalar fmaf is then the same instruction), else per lane."""
        check_math(op, k, args)
        sfx = self._sfx(k)
        if op == "sqrt":
            return self._map(f"_exp_sqrt_{k}", k, lambda x: f"_mm256_sqrt_{sfx}({x})", *args)
        if op in ROUND:
            return self._map(f"_exp_{op}_{k}", k, lambda x: f"_mm256_round_{sfx}({x}, {ROUND[op]})", *args)
        if op in ("fmin", "fmax"):
            return self._fminmax(op, k, *args, ties_to_x=False)
        if op == "fma" and "-mfma" in self.cflags:
            return self._map(f"_exp_fma_{k}", k, lambda x, y, z: f"_mm256_fmadd_{sfx}({x}, {y}, {z})", *args)
        return super().math(op, k, args)
