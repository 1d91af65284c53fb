"""AVX-512 (F, BW, DQ, VL): 16-lane gangs (or 32) in 512-bit registers, predicates in mask registers.

Register layout (16 lanes): f32 -> ``__m512``; i32/u32 and the narrow kinds (widened: i8/i16
sign-extended, u8/u16 zero-extended) -> ``__m512i``; f64 -> ``_Exp_f64x16`` (2 x ``__m512d``);
i64/u64 -> ``_Exp_i64x16`` (2 x ``__m512i``). With 32 lanes every kind takes twice as many registers
(``_Exp_f32x32``, ``_Exp_i32x32``, ``_Exp_f64x32`` = 4 x ``__m512d``, ...).

A mask is a mask register: ``__mmask16`` (``__mmask32`` for 32 lanes), bit i = lane i. Comparisons
are ``_mm512_cmp*_mask``; a gang of several registers compares register by register and joins the
partial masks (``_mm512_kunpackb(m1, m0)``); selects split the mask again
(register j of a 64-bit kind takes ``(__mmask8)(m >> 8 * j)``). Mask logic is plain C on the mask
integer. No vector-of-booleans emulation anywhere.

Native: everything, with these routes: integer ``*`` is ``_mm512_mullo_epi32``/``_mm512_mullo_epi64``
(DQ); per-lane shifts are ``_mm512_sllv/srlv/srav_epi32/64``; 32-bit-lane integer ``/`` and ``%``
divide in double precision (exact for 32-bit operands: the rounding error of the quotient is below
the distance to the next integer) and truncate back; every int/float conversion, including
int64/uint64 <-> f32/f64 and f32/f64 -> uint32/uint64, has its AVX-512F/DQ instruction; table reads of
32- and 64-bit elements at varying indexes are ``_mm512_(mask_)i32gather_*``/``i64gather_*`` (``gather``).
Per-lane scalar fallback (from ``Isa``): 64-bit integer ``/`` and ``%`` only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .isa import (
    CMPOPS,
    OPNAMES,
    Arg,
    GatherInstructions,
    RegIsa,
    check_binop,
    check_math,
    closes_at_end,
    is_float,
    is_int_literal,
    is_signed,
    kind_bits,
    scalar_ctype,
)
from .sse41 import ROUND, x86_minmax

#: float comparison predicates with C semantics: ordered and quiet, except ``!=`` (true on NaN)
FCMP = {"==": "_CMP_EQ_OQ", "!=": "_CMP_NEQ_UQ", "<": "_CMP_LT_OQ", "<=": "_CMP_LE_OQ", ">": "_CMP_GT_OQ",
        ">=": "_CMP_GE_OQ"}
ICMP = {"==": "eq", "!=": "neq", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}
_NAME_OR_CALL = re.compile(r"[A-Za-z_]\w*(\(.*\))?|\(.*\)", re.S)


def _p(e: str) -> str:
    """``e`` parenthesized unless it is a name, a call or already parenthesized as a whole."""
    e = e.strip()
    m = _NAME_OR_CALL.fullmatch(e)
    if m and (e[-1] != ")" or closes_at_end(e, e.index("("))):
        return e
    return f"({e})"


class Avx512(GatherInstructions, RegIsa):
    """AVX-512F/BW/DQ/VL with 16 (or 32) lanes and mask-register predicates."""

    boscc_test_cost = 2  # vptest/kortest + branch
    boscc_plain_cost = 2  # measured: floorf/truncf/roundf gain from guarding their rare regions
    name = "avx512"
    default_lanes = 16
    CFLAGS = ("-mavx512f", "-mavx512bw", "-mavx512dq", "-mavx512vl")
    CPU_FEATURES = ("avx512f", "avx512bw", "avx512dq", "avx512vl")
    HEADERS = ("<immintrin.h>",)
    reg_bits = 512
    abi_letter, abi_families, abi_macro = "e", (("e", 512, 512, True),), "defined(__AVX512F__)"
    abi_mask = "bits"
    arch, libmvec, sleef_suffix = "x86_64", True, "avx512f"
    intrinsic_prefix, cmp_predicate, mask_registers = "_mm512", True, True

    def __init__(self, lanes: int | None = None) -> None:
        super().__init__(lanes)
        if self.lanes not in (16, 32):
            raise ValueError("avx512 gangs have 16 or 32 lanes")

    # ------------------------------------------------------------------ types and memory
    def regtype(self, k: str) -> str:
        return {"f32": "__m512", "f64": "__m512d"}.get(k, "__m512i")

    def mask_type(self) -> str:
        return f"__mmask{self.lanes}"

    def _full(self) -> str:
        """The all-lanes-on mask value as a C literal."""
        return f"{(1 << self.lanes) - 1:#x}u"

    def _sfx(self, k: str) -> str:
        """Intrinsic suffix of kind ``k``'s lanes: ps, pd, epi32 or epi64."""
        return {"f32": "ps", "f64": "pd"}.get(k) or f"epi{self.lane_bits(k)}"

    def _reg(self, k: str, p: str, j: int) -> str:
        """Register ``j`` of the gang of kind ``k`` named ``p``."""
        return p if self.nregs(k) == 1 else f"{p}.v[{j}]"

    def _reg_loadu(self, k: str, ptr: str) -> str:
        if is_float(k):
            return f"_mm512_loadu_{self._sfx(k)}({ptr})"
        if self.is_narrow(k):
            b = kind_bits(k)
            ld = f"_mm_loadu_si128((const __m128i *)({ptr}))" if b == 8 else \
                f"_mm256_loadu_si256((const __m256i *)({ptr}))"
            return f"_mm512_cvt{'epi' if is_signed(k) else 'epu'}{b}_epi32({ld})"
        return f"_mm512_loadu_si512({ptr})"

    def _reg_storeu(self, k: str, ptr: str, v: str) -> str:
        if is_float(k):
            return f"_mm512_storeu_{self._sfx(k)}({ptr}, {v})"
        if self.is_narrow(k):
            if kind_bits(k) == 8:
                return f"_mm_storeu_si128((__m128i *)({ptr}), _mm512_cvtepi32_epi8({v}))"
            return f"_mm256_storeu_si256((__m256i *)({ptr}), _mm512_cvtepi32_epi16({v}))"
        return f"_mm512_storeu_si512({ptr}, {v})"

    # ------------------------------------------------------------------ masks (mask registers)
    def _mask_part(self, m: str, k: str, j: int) -> str:
        rl = self.reg_lanes(k)
        return f"(__mmask{rl}){m}" if j == 0 else f"(__mmask{rl})({m} >> {j * rl})"

    def _mask_join(self, parts: Sequence[str], k: str) -> str:
        """The gang mask from per-register masks ``parts`` of a gang of kind ``k``."""
        mt, rl = self.mask_type(), self.reg_lanes(k)
        if len(parts) == 1:
            return f"({mt}){parts[0]}"
        # kunpack, not (m0 | m1 << 8): GCC 12 crashes (ICE in simplify_subreg) on the shift-or of
        # constant masks (expand-fuzz; tests/fuzz_regressions/avx512_mask_join.c)
        ps = list(parts)
        while len(ps) > 1:
            unpack, wide = ("_mm512_kunpackb", "__mmask16") if rl == 8 else ("_mm512_kunpackw", "__mmask32")
            ps = [f"{unpack}(({wide}){ps[i + 1]}, ({wide}){ps[i]})" for i in range(0, len(ps), 2)]
            rl *= 2
        return f"({mt}){ps[0]}"

    def _to_mask(self, name: str, k: str, fn: Callable[..., str], *gangs: str) -> str:
        """The mask of ``fn(reg, reg, ...)`` (a per-register mask) over gangs of kind ``k``."""
        n = self.nregs(k)
        if n == 1:
            return fn(*gangs)
        vt = self.vtype(k)
        params = [f"{vt} a{i}" for i in range(len(gangs))]
        parts = [fn(*(f"a{i}.v[{j}]" for i in range(len(gangs)))) for j in range(n)]
        self._ret_func(name, self.mask_type(), params, self._mask_join(parts, k))
        return f"{name}({', '.join(gangs)})"

    def _mask_loadu(self, ptr: str) -> str:
        nonzero = self._to_mask("_exp_nonzero_i32", "i32",
                                lambda x: self._cmp_reg("!=", "i32", x, "_mm512_setzero_si512()"),
                                self.loadu("i32", "p"))
        body = f"    return {nonzero};\n"
        name = self._func("_exp_mask_loadu", self.mask_type(), ["const int32_t *p"], body)
        return f"{name}({ptr})"

    def _mask_storeu(self, ptr: str, m: str) -> str:
        neg = self._lift("_exp_mask_to_neg", self.vtype("i32"), self.nregs("i32"), [self.mask_arg("i32", "m")],
                         lambda _j, mm: f"_mm512_movm_epi32({mm})")
        name = self._func("_exp_mask_storeu", "void", ["int32_t *p", f"{self.mask_type()} m"],
                          f"    {self.storeu('i32', 'p', neg)};\n")
        return f"{name}({ptr}, {m})"

    def _fix(self, k: str, e: str) -> str:
        """Re-extend 32-bit lanes holding ``k`` values modulo 2^bits (identity for wide kinds)."""
        if not self.is_narrow(k):
            return e
        b = kind_bits(k)
        if is_signed(k):
            return f"_mm512_srai_epi32(_mm512_slli_epi32({e}, {32 - b}), {32 - b})"
        return f"_mm512_and_si512({e}, _mm512_set1_epi32({(1 << b) - 1:#x}))"

    # ------------------------------------------------------------------ gang construction
    def splat(self, k: str, scalar: str) -> str:
        t = scalar_ctype(k)
        if scalar.strip() == "0" and self.nregs(k) == 1:
            return "_mm512_setzero_ps()" if k == "f32" else "_mm512_setzero_si512()"
        if k == "f32":
            fn = "_mm512_set1_ps({})"
        elif k == "f64":
            fn = "_mm512_set1_pd({})"
        elif self.lane_bits(k) == 32:
            fn = f"_mm512_set1_epi32(({t})({{}}))"
        else:
            fn = "_mm512_set1_epi64((long long)({}))"
        if self.nregs(k) == 1:
            return fn.format(scalar)
        return self._lift(f"_exp_splat_{k}", self.vtype(k), self.nregs(k), [Arg(t, scalar)],
                          lambda _j, x: fn.format(x))

    def build(self, k: str, scalars: Sequence[str]) -> str:
        if len(scalars) != self.lanes:
            raise ValueError(f"build needs {self.lanes} scalars, got {len(scalars)}")
        t = scalar_ctype(k)
        if is_float(k):
            vals = [f"({s})" for s in scalars]
        elif self.lane_bits(k) == 32:
            vals = [f"({t})({s})" for s in scalars]
        else:
            vals = [f"(long long)({t})({s})" for s in scalars]
        fn = f"_mm512_setr_{self._sfx(k)}"
        n, rl = self.nregs(k), self.reg_lanes(k)
        regs = [f"{fn}({', '.join(vals[j * rl:(j + 1) * rl])})" for j in range(n)]
        return regs[0] if n == 1 else f"(({self.vtype(k)}){{{{{', '.join(regs)}}}}})"

    def extract(self, k: str, v: str, lane: int) -> str:
        if not 0 <= lane < self.lanes:
            raise ValueError(f"lane {lane} out of range")
        t = scalar_ctype(k)
        rl = self.reg_lanes(k)
        r = v if self.nregs(k) == 1 else f"({v}).v[{lane // rl}]"
        i = lane % rl
        per = 128 // self.lane_bits(k)  # lanes per 128-bit block
        blk, j = i // per, i % per
        if k == "f32":
            x = f"_mm512_castps512_ps128({r})" if blk == 0 else f"_mm512_extractf32x4_ps({r}, {blk})"
            return f"_mm_cvtss_f32({x})" if j == 0 else f"_mm_cvtss_f32(_mm_permute_ps({x}, {j}))"
        if k == "f64":
            x = f"_mm512_castpd512_pd128({r})" if blk == 0 else f"_mm512_extractf64x2_pd({r}, {blk})"
            return f"_mm_cvtsd_f64({x})" if j == 0 else f"_mm_cvtsd_f64(_mm_permute_pd({x}, 1))"
        x = f"_mm512_castsi512_si128({r})" if blk == 0 else f"_mm512_extracti32x4_epi32({r}, {blk})"
        return f"(({t})_mm_extract_epi{self.lane_bits(k)}({x}, {j}))"

    # ------------------------------------------------------------------ gathers (GatherInstructions)
    def _gather_op(self, k: str, ib: int, base: str, x: str, m: str | None, scale: int, half: bool) -> str:
        sfx = self._sfx(k)
        if m is None:
            return f"_mm512_i{ib}gather_{sfx}({x}, {base}, {scale})"
        w, si = ("_mm256", "si256") if half else ("_mm512", "si512")
        zero = f"{w}_setzero_{sfx if is_float(k) else si}()"
        return f"_mm512_mask_i{ib}gather_{sfx}({zero}, {m}, {x}, {base}, {scale})"

    def _gather_index_half(self, x: str, h: int) -> str:
        return f"_mm512_castsi512_si256({x})" if h == 0 else f"_mm512_extracti64x4_epi64({x}, 1)"

    def _gather_mask_half(self, m: str, h: int) -> str:
        return f"(__mmask8)({m})" if h == 0 else f"(__mmask8)(({m}) >> 8)"

    def _gather_join(self, k: str, lo: str, hi: str) -> str:
        if k == "f32":
            return f"_mm512_insertf32x8(_mm512_castps256_ps512({lo}), {hi}, 1)"
        return f"_mm512_inserti32x8(_mm512_castsi256_si512({lo}), {hi}, 1)"

    # ------------------------------------------------------------------ small tables
    def small_table_max(self, k: str) -> int:
        """Up to four registers of table (two ``permutex2var`` and a blend per register of result):
        32 elements of 64 bits, 64 of 32 bits. On Zen 5 glibc's expf and logf tables (32 and 16 pairs of
        doubles) read this way made expf 1.5x and logf 1.3x faster than loads per lane (the gather
        instructions are no faster than those loads there)."""
        return 0 if self.is_narrow(k) else 4 * 512 // self.lane_bits(k)

    def small_table(self, k: str, base: str, n: int, index: str) -> str:
        eb = self.lane_bits(k)
        per = 512 // eb
        sfx = self._sfx(k)
        rt = self.regtype(k)
        ptr = f"const {scalar_ctype(k)} *"
        nt = -(-n // per)

        def load(j: int) -> str:
            left = n - j * per
            if left >= per:
                return f"_mm512_loadu_{sfx}(t + {j * per})" if is_float(k) else f"_mm512_loadu_si512(t + {j * per})"
            return f"_mm512_maskz_loadu_{sfx}((__mmask{max(per, 8)}){(1 << left) - 1:#x}u, t + {j * per})"

        lines = [f"    {ptr}t = ({ptr})b;\n"]
        lines += [f"    {rt} t{j} = {load(j)};\n" for j in range(nt)]

        def pick(a: int, b: int | None) -> str:  # (registers a and b: 2 * per elements, by the index's low bits)
            if b is None:
                return f"_mm512_permutexvar_{sfx}(i, t{a})"
            return f"_mm512_permutex2var_{sfx}(t{a}, i, t{b})"

        if nt <= 2:
            lines.append(f"    return {pick(0, 1 if nt == 2 else None)};\n")
        else:
            lines.append(f"    {rt} lo = {pick(0, 1)};\n")
            lines.append(f"    {rt} hi = {pick(2, 3 if nt == 4 else None)};\n")
            high = f"_mm512_test_epi{eb}_mask(i, _mm512_set1_epi{eb}({2 * per}))"
            lines.append(f"    return _mm512_mask_blend_{sfx}({high}, lo, hi);\n")
        return self._small_table_gang(k, n, base, index, "".join(lines))

    # ------------------------------------------------------------------ arithmetic
    def _div32(self, k: str, rem: bool) -> str:
        """Helper: ``/`` (or ``%``) of one register of 32-bit lanes, through exact double division."""
        u = "u" if k == "u32" else "i"
        name = f"_exp_{'rem' if rem else 'div'}_ep{u}32"
        cvt, cvtt = f"_mm512_cvtep{u}32_pd", f"_mm512_cvttpd_ep{u}32"
        q = self._func(
            f"_exp_div_ep{u}32", "__m512i", ["__m512i a", "__m512i b"],
            "    /* exact: the quotient's rounding error is below the distance to the next integer */\n"
            "    __m256i a0 = _mm512_castsi512_si256(a), a1 = _mm512_extracti64x4_epi64(a, 1);\n"
            "    __m256i b0 = _mm512_castsi512_si256(b), b1 = _mm512_extracti64x4_epi64(b, 1);\n"
            f"    __m256i q0 = {cvtt}(_mm512_div_pd({cvt}(a0), {cvt}(b0)));\n"
            f"    __m256i q1 = {cvtt}(_mm512_div_pd({cvt}(a1), {cvt}(b1)));\n"
            "    return _mm512_inserti64x4(_mm512_castsi256_si512(q0), q1, 1);\n")
        if not rem:
            return q
        return self._ret_func(name, "__m512i", ["__m512i a", "__m512i b"],
                              f"_mm512_sub_epi32(a, _mm512_mullo_epi32({q}(a, b), b))")

    def minmax(self, op: str, k: str, a: str, b: str) -> str | None:
        return x86_minmax(self, op, k, a, b, int64=True)  # (AVX-512F has 64-bit integer min/max)

    def binop(self, op: str, k: str, a: str, b: str) -> str:
        check_binop(op, k)
        name = f"_exp_{OPNAMES[op]}_{k}"
        if is_float(k):
            intr = f"_mm512_{OPNAMES[op]}_{self._sfx(k)}"
            return self._map(name, k, lambda x, y: f"{intr}({x}, {y})", a, b)
        if op in "&|^":
            return self._map(name, k, lambda x, y: f"_mm512_{OPNAMES[op]}_si512({x}, {y})", a, b)
        w = self.lane_bits(k)
        if op in "+-":
            return self._map(name, k, lambda x, y: self._fix(k, f"_mm512_{OPNAMES[op]}_epi{w}({x}, {y})"), a, b)
        if op == "*":
            return self._map(name, k, lambda x, y: self._fix(k, f"_mm512_mullo_epi{w}({x}, {y})"), a, b)
        if w == 32:
            fn = self._div32(k, op == "%")
            return self._map(name, k, lambda x, y: self._fix(k, f"{fn}({x}, {y})"), a, b)
        return super().binop(op, k, a, b)

    def shift(self, op: str, k: str, a: str, n: str, n_uniform: bool) -> str:
        if op not in ("<<", ">>") or is_float(k):
            raise ValueError(f"shift {op!r} on {k}")
        s = "sll" if op == "<<" else ("sra" if is_signed(k) else "srl")
        w = self.lane_bits(k)

        def fix(e: str) -> str:
            return self._fix(k, e) if op == "<<" else e

        if not n_uniform:
            return self._map(f"_exp_{OPNAMES[op]}v_{k}", k, lambda x, c: fix(f"_mm512_{s}v_epi{w}({x}, {c})"), a, n)
        if is_int_literal(n) and self.nregs(k) == 1:
            return fix(f"_mm512_{s}i_epi{w}({a}, {n.strip()})")
        return self._lift(f"_exp_{OPNAMES[op]}u_{k}", self.vtype(k), self.nregs(k),
                          [self.gang_arg(k, a), Arg("int", n)],
                          lambda _j, x, c: fix(f"_mm512_{s}_epi{w}({x}, _mm_cvtsi32_si128({c}))"))

    def unop(self, op: str, k: str, a: str) -> str:
        if op not in ("-", "~") or (op == "~" and is_float(k)):
            raise ValueError(f"unary {op!r} on {k}")
        name = f"_exp_{'neg' if op == '-' else 'not'}_{k}"
        if is_float(k):
            sfx = self._sfx(k)
            zero = "-0.0f" if k == "f32" else "-0.0"
            return self._map(name, k, lambda x: f"_mm512_xor_{sfx}({x}, _mm512_set1_{sfx}({zero}))", a)
        if op == "-":
            w = self.lane_bits(k)
            return self._map(name, k, lambda x: self._fix(k, f"_mm512_sub_epi{w}(_mm512_setzero_si512(), {x})"), a)
        ones = "-1" if is_signed(k) or not self.is_narrow(k) else f"{(1 << kind_bits(k)) - 1:#x}"
        return self._map(name, k, lambda x: f"_mm512_xor_si512({x}, _mm512_set1_epi32({ones}))", a)

    # ------------------------------------------------------------------ comparisons, select, masks
    def _cmp_reg(self, op: str, k: str, x: str, y: str) -> str:
        """The mask of ``x op y`` for one register of kind ``k``."""
        if is_float(k):
            return f"_mm512_cmp_{self._sfx(k)}_mask({x}, {y}, {FCMP[op]})"
        u = "u" if k in ("u32", "u64") else "i"  # narrow unsigned lanes are non-negative: signed compare
        return f"_mm512_cmp{ICMP[op]}_ep{u}{self.lane_bits(k)}_mask({x}, {y})"

    def cmp(self, op: str, k: str, a: str, b: str) -> str:
        if op not in CMPOPS:
            raise ValueError(f"unknown comparison {op!r}")
        return self._to_mask(f"_exp_{OPNAMES[op]}_{k}", k, lambda x, y: self._cmp_reg(op, k, x, y), a, b)

    def int_to_mask(self, k: str, a: str) -> str:
        zero = {"f32": "_mm512_setzero_ps()", "f64": "_mm512_setzero_pd()"}.get(k, "_mm512_setzero_si512()")
        return self._to_mask(f"_exp_nonzero_{k}", k, lambda x: self._cmp_reg("!=", k, x, zero), a)

    def select(self, k: str, m: str, a: str, b: str) -> str:
        sfx = self._sfx(k)

        def fn(_j: int, mm: str, x: str, y: str) -> str:
            return f"_mm512_mask_blend_{sfx}({mm}, {y}, {x})"  # lanes of the last operand where mm is on
        return self._lift(f"_exp_select_{k}", self.vtype(k), self.nregs(k),
                          [self.mask_arg(k, m), self.gang_arg(k, a), self.gang_arg(k, b)], fn)

    def mask_const(self, value: bool) -> str:
        return f"(({self.mask_type()}){self._full() if value else '0'})"

    def mask_and(self, a: str, b: str) -> str:
        return f"(({self.mask_type()})({_p(a)} & {_p(b)}))"

    def mask_or(self, a: str, b: str) -> str:
        return f"(({self.mask_type()})({_p(a)} | {_p(b)}))"

    def mask_xor(self, a: str, b: str) -> str:
        return f"(({self.mask_type()})({_p(a)} ^ {_p(b)}))"

    def mask_andnot(self, a: str, b: str) -> str:
        return f"(({self.mask_type()})({_p(a)} & ~{_p(b)}))"

    def mask_not(self, a: str) -> str:
        return f"(({self.mask_type()})~{_p(a)})"

    def mask_to_int(self, m: str) -> str:
        return self._lift("_exp_mask_to_int", self.vtype("i32"), self.nregs("i32"), [self.mask_arg("i32", m)],
                          lambda _j, mm: f"_mm512_maskz_set1_epi32({mm}, 1)")

    def same_index(self, ik: str, idx: str, first: str, mask: str | None) -> str:
        if mask is None or self.nregs(ik) != 1:
            return super().same_index(ik, idx, first, mask)
        return f"(_mm512_mask_cmpneq_epi32_mask({mask}, {idx}, {first}) == 0)"

    def mask_bits(self, m: str) -> str:
        return f"((unsigned){_p(m)})"

    def mask_any(self, m: str) -> str:
        return f"({_p(m)} != 0)"

    def mask_all(self, m: str) -> str:
        return f"({_p(m)} == {self._full()})"

    # ------------------------------------------------------------------ conversions
    def _half(self, k: str, r: str, h: int) -> str:
        """Lanes 8h..8h+7 of the 32-bit-lane register ``r`` (kind ``k``) as a 256-bit value."""
        if k == "f32":
            return f"_mm512_castps512_ps256({r})" if h == 0 else f"_mm512_extractf32x8_ps({r}, 1)"
        return f"_mm512_castsi512_si256({r})" if h == 0 else f"_mm512_extracti64x4_epi64({r}, 1)"

    def _widen(self, name: str, src_k: str, dst_k: str, a: str, fn: Callable[[str], str]) -> str:
        """A gang of 64-bit kind ``dst_k`` from the 32-bit-lane ``a``: register j is ``fn(its 256-bit half)``."""
        src = Arg(self.vtype(src_k), a, lambda p, j: self._half(src_k, self._reg(src_k, p, j // 2), j % 2))
        return self._lift(name, self.vtype(dst_k), self.nregs(dst_k), [src], lambda _j, h: fn(h))

    def _narrow(self, name: str, src_k: str, dst_k: str, a: str, fn: Callable[[str], str]) -> str:
        """A gang of 32-bit-lane kind ``dst_k`` from the 64-bit-lane ``a``: ``fn(register)`` is that
        register's 8 lanes as a 256-bit value; two of them make one result register."""
        if dst_k == "f32":
            join = "_mm512_insertf32x8(_mm512_castps256_ps512({}), {}, 1)"
        else:
            join = "_mm512_inserti64x4(_mm512_castsi256_si512({}), {}, 1)"
        regs = [self._fix(dst_k, join.format(fn(f"a.v[{2 * j}]"), fn(f"a.v[{2 * j + 1}]")))
                for j in range(self.nregs(dst_k))]
        vt = self.vtype(dst_k)
        if len(regs) == 1:
            body = f"    return {regs[0]};\n"
        else:
            body = f"    {vt} r;\n" + "".join(f"    r.v[{j}] = {e};\n" for j, e in enumerate(regs)) + "    return r;\n"
        self._func(name, vt, [f"{self.vtype(src_k)} a"], body)
        return f"{name}({a})"

    def convert(self, src_k: str, dst_k: str, a: str) -> str:
        if src_k == dst_k:
            return a
        s, d = src_k, dst_k
        sw, dw = self.lane_bits(s), self.lane_bits(d)
        name = f"_exp_cvt_{s}_{d}"
        us = "u" if s in ("u32", "u64") else "i"  # narrow unsigned lanes are non-negative: signed forms
        ud = "u" if d in ("u32", "u64") else "i"
        if not is_float(s) and not is_float(d):
            if sw == 32 and dw == 32:
                sb, db = kind_bits(s), kind_bits(d)
                fits = sb < db and (is_signed(d) or not is_signed(s))
                if fits or db == 32:
                    return a
                return self._map(name, s, lambda x: self._fix(d, x), a, out_k=d)
            if sw == 64 and dw == 64:
                return a
            if dw == 64:
                return self._widen(name, s, d, a, lambda h: f"_mm512_cvtep{us}32_epi64({h})")
            return self._narrow(name, s, d, a, lambda r: f"_mm512_cvtepi64_epi32({r})")
        if is_float(s) and is_float(d):
            if s == "f32":
                return self._widen(name, s, d, a, lambda h: f"_mm512_cvtps_pd({h})")
            return self._narrow(name, s, d, a, lambda r: f"_mm512_cvtpd_ps({r})")
        if not is_float(s):  # integer -> float: one correctly rounded conversion
            if sw == 32 and d == "f32":
                return self._map(name, s, lambda x: f"_mm512_cvtep{us}32_ps({x})", a, out_k=d)
            if sw == 32:
                return self._widen(name, s, d, a, lambda h: f"_mm512_cvtep{us}32_pd({h})")
            if d == "f64":
                return self._map(name, s, lambda x: f"_mm512_cvtep{us}64_pd({x})", a, out_k=d)
            return self._narrow(name, s, d, a, lambda r: f"_mm512_cvtep{us}64_ps({r})")
        # float -> integer: truncation (out-of-range lanes are undefined in C; narrow kinds go via i32)
        if s == "f32" and dw == 32:
            return self._map(name, s, lambda x: f"_mm512_cvttps_ep{ud}32({x})", a, out_k=d)
        if s == "f32":
            return self._widen(name, s, d, a, lambda h: f"_mm512_cvttps_ep{ud}64({h})")
        if dw == 64:
            return self._map(name, s, lambda x: f"_mm512_cvttpd_ep{ud}64({x})", a, out_k=d)
        return self._narrow(name, s, d, a, lambda r: f"_mm512_cvttpd_ep{ud}32({r})")

    def bitcast(self, src_k: str, dst_k: str, a: str) -> str:
        if kind_bits(src_k) != kind_bits(dst_k):
            raise ValueError(f"bitcast {src_k} -> {dst_k}: widths differ")
        if src_k == dst_k:
            return a
        if not is_float(src_k) and not is_float(dst_k):
            return self.convert(src_k, dst_k, a)
        sfx = self._sfx(src_k if is_float(src_k) else dst_k)
        cast = f"_mm512_castsi512_{sfx}" if is_float(dst_k) else f"_mm512_cast{sfx}_si512"
        return self._map(f"_exp_bitcast_{src_k}_{dst_k}", src_k, lambda x: f"{cast}({x})", a, out_k=dst_k)

    # ------------------------------------------------------------------ libm operations
    def math(self, op: str, k: str, args: Sequence[str]) -> str:
        """sqrt: ``_mm512_sqrt_ps/pd``; floor/ceil/trunc/rint/nearbyint: ``_mm512_roundscale_ps/pd`` (scale
        0, the ``_mm_round_ps`` modes: GCC's scalar ``vrndscaless``); fmin/fmax: compares and selects with
        glibc's x86-64 rules; fma: ``_mm512_fmadd_ps/pd`` (AVX-512F has FMA)."""
        check_math(op, k, args)
        sfx = self._sfx(k)
        if op == "sqrt":
            return self._map(f"_exp_sqrt_{k}", k, lambda x: f"_mm512_sqrt_{sfx}({x})", *args)
        if op in ROUND:
            return self._map(f"_exp_{op}_{k}", k, lambda x: f"_mm512_roundscale_{sfx}({x}, {ROUND[op]})", *args)
        if op in ("fmin", "fmax"):
            return self._fminmax(op, k, *args, ties_to_x=False)
        if op == "fma":
            return self._map(f"_exp_fma_{k}", k, lambda x, y, z: f"_mm512_fmadd_{sfx}({x}, {y}, {z})", *args)
        return super().math(op, k, args)
