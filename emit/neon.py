"""NEON (AArch64 Advanced SIMD): gangs of 4 lanes (or 8, ..., 32) in 128-bit registers.

Register layout (one C type per kind, signedness kept in the type): f32 -> ``float32x4_t``;
i32 -> ``int32x4_t`` and u32 -> ``uint32x4_t``, also holding the narrow kinds widened (i8/i16
sign-extended in ``int32x4_t``, u8/u16 zero-extended in ``uint32x4_t``); f64 -> 2 x ``float64x2_t``,
i64 -> 2 x ``int64x2_t``, u64 -> 2 x ``uint64x2_t`` (``_Exp_f64x4``, ``_Exp_s64x4``,
``_Exp_u64x4``). A mask is a u32 gang of all-ones / all-zeros lanes (one ``uint32x4_t`` per 4
lanes); 64-bit kinds use it widened per register (``vzip1q_u32(m, m)`` / ``vzip2q_u32(m, m)``) and
64-bit comparisons are joined back with ``vuzp1q_u32``. With 8 lanes every gang is a struct of twice
as many registers (``_Exp_f32x8``, ``_Exp_u32x8`` = the mask, ...).

Native: all f32/f64 arithmetic (``vdivq`` included), comparisons (``!=`` as NOT of ``vceqq``, so
true on NaN), selects (``vbslq``); integer + - * & | ^, negation, ~, signed and unsigned comparisons
at every width (AArch64 has 64-bit ``vcgtq_s64``/``vcgtq_u64``); shifts by immediate
(``vshlq_n``/``vshrq_n``), uniform or per-lane count (``vshlq`` with negated counts for ``>>``) at
every width; 64-bit ``*`` from 32-bit partial products (``vmulq_u32``/``vpaddlq_u32``/
``vmlal_u32``); integer ``/`` and ``%`` of the narrow kinds through f32 and of the 32-bit kinds
through f64 division (both exact: the quotient of two integers this small never rounds across an
integer); every integer <-> integer conversion (``vmovl``/``vuzp1q``), int32/uint32/int64/uint64 ->
f64 and int32/uint32 -> f32 (``vcvtq``, correctly rounded), f32 <-> f64, float -> every integer
kind (``vcvtq_s32_f32``, ``vcvtq_u64_f64``, ...: truncation; lanes out of range, undefined in C,
saturate exactly like GCC's scalar AArch64 code: f64 -> 32-bit lanes narrow with ``vqmovn``),
bitcasts (``vreinterpretq``), mask_any/all (``vmaxvq_u32``/``vminvq_u32``), mask_bits
(``vaddvq_u32`` of lane weights).
Per lane, in registers (``vgetq_lane``/``vsetq_lane`` around the scalar C operation): 64-bit
integer ``/`` and ``%`` (AArch64 has no vector integer division), i64/u64 -> f32 (going through f64
would round twice). libm sqrt, rounding, fmin/fmax and fma are one instruction each (``math``).
Nothing goes through the memory-based ``Isa`` fallbacks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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

VCMP = {"==": "vceqq", "<": "vcltq", "<=": "vcleq", ">": "vcgtq", ">=": "vcgeq"}
VBIT = {"&": "vandq", "|": "vorrq", "^": "veorq"}
VARITH = {"+": "vaddq", "-": "vsubq", "*": "vmulq", "/": "vdivq"}
#: libm operation -> the AArch64 instruction GCC makes of the scalar call (fsqrt, frintm, frintp, frintz,
#: frintx, frinti, fminnm, fmaxnm), in its vector form
VMATH = {"sqrt": "vsqrtq", "floor": "vrndmq", "ceil": "vrndpq", "trunc": "vrndq", "rint": "vrndxq",
         "nearbyint": "vrndiq", "fmin": "vminnmq", "fmax": "vmaxnmq"}


def _whole(p: str, _j: int) -> str:
    """An ``Arg.part`` handing the whole parameter to ``fn`` (which picks its registers itself)."""
    return p


def _reinterpret(src_sfx: str, dst_sfx: str, x: str) -> str:
    """Register ``x`` with suffix ``src_sfx`` (s32, u64, f32, ...) reinterpreted as ``dst_sfx``."""
    return x if src_sfx == dst_sfx else f"vreinterpretq_{dst_sfx}_{src_sfx}({x})"


def _join64(c0: str, c1: str) -> str:
    """The 4 x 32-bit lanes holding the low halves of the 64-bit lanes of ``c0`` then ``c1`` (uint64x2_t)."""
    return f"vuzp1q_u32(vreinterpretq_u32_u64({c0}), vreinterpretq_u32_u64({c1}))"


def _chain(sfx: str, vals: Sequence[str]) -> str:
    """A register with lane i = ``vals[i]`` (``vdupq_n`` then ``vsetq_lane``), each value used once."""
    e = f"vdupq_n_{sfx}({vals[0]})"
    for i, v in enumerate(vals[1:], 1):
        e = f"vsetq_lane_{sfx}({v}, {e}, {i})"
    return e


#: GCC 12.2 (aarch64) miscompiles code like ours: its redundant-extension pass moves a vector
#: ``sxtl``/``uxtl`` above a call into v8-v15, whose upper halves the callee need not keep (found by
#: expand-fuzz, tests/fuzz_regressions/neon_gcc12_ree_call.c). Turning the pass off costs nothing here.
NO_REE = ("/* GCC 12 on AArch64 moves vector extensions across calls in its REE pass (wrong code): off */\n"
          "#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC optimize (\"no-ree\")\n#endif\n")


class Neon(RegIsa):
    """AArch64 Advanced SIMD with 4 lanes (any multiple of 4 works: 8 = two registers per 32-bit gang)."""

    name = "neon"
    default_lanes = 4
    CC = ("aarch64-linux-gnu-gcc",)
    CFLAGS = ()
    HEADERS = ("<arm_neon.h>",)
    RUN_PREFIX = ("qemu-aarch64", "-L", "/usr/aarch64-linux-gnu")
    reg_bits = 128
    #: GCC 12 makes AdvSIMD variants for 64- and 128-bit vectors, none wider than one register, and
    #: none for functions mixing lane widths.
    abi_letter, abi_macro = "n", "defined(__aarch64__)"
    abi_families = (("n", 64, 64, False), ("n", 128, 128, False))
    abi_mixed_sizes = False
    mask_kind = "u32"
    arch, sleef_suffix = "aarch64", "advsimd"

    def __init__(self, lanes: int | None = None) -> None:
        super().__init__(lanes)
        if self.lanes % 4 or self.lanes > 32:  # (mask_bits fits 32 lanes)
            raise ValueError(f"neon gangs have 4, 8, ... or 32 lanes, not {self.lanes}")
        self.start()

    def start(self) -> None:
        self.need("_exp_gcc_no_ree", NO_REE)

    # ------------------------------------------------------------------ types and memory
    def _sfx(self, k: str) -> str:
        """Intrinsic suffix of kind ``k``'s registers: f32, f64, s32, u32, s64 or u64."""
        if is_float(k):
            return k
        return ("s" if is_signed(k) else "u") + str(self.lane_bits(k))

    def regtype(self, k: str) -> str:
        if is_float(k):
            return f"float{k[1:]}x{128 // kind_bits(k)}_t"
        w = self.lane_bits(k)
        return f"{'int' if is_signed(k) else 'uint'}{w}x{128 // w}_t"

    def vtype(self, k: str) -> str:
        n, rt = self.nregs(k), self.regtype(k)
        if n == 1:
            return rt
        name = f"_Exp_{self._sfx(k)}x{self.lanes}"
        self.need(name, f"typedef struct {{ {rt} v[{n}]; }} {name};\n")
        return name

    def _reg(self, k: str, p: str, j: int) -> str:
        """Register ``j`` of gang ``p`` (a parameter or variable) of kind ``k``."""
        return p if self.nregs(k) == 1 else f"{p}.v[{j}]"

    def _reg_loadu(self, k: str, ptr: str) -> str:
        sfx = self._sfx(k)
        if not self.is_narrow(k):
            return f"vld1q_{sfx}({ptr})"
        s = sfx[0]
        if kind_bits(k) == 16:
            return f"vmovl_{s}16(vld1_{s}16({ptr}))"
        # 4 bytes exactly (vld1_s8 would read 8)
        name = self._func(f"_exp_load4_{k}", self.regtype(k), [f"const {scalar_ctype(k)} *p"],
                          "    uint32_t t;\n    __builtin_memcpy(&t, p, 4);\n"
                          f"    return vmovl_{s}16(vget_low_{s}16(vmovl_{s}8("
                          f"vreinterpret_{s}8_u32(vdup_n_u32(t)))));\n")
        return f"{name}({ptr})"

    def _reg_storeu(self, k: str, ptr: str, v: str) -> str:
        sfx = self._sfx(k)
        if not self.is_narrow(k):
            return f"vst1q_{sfx}({ptr}, {v})"
        s = sfx[0]
        if kind_bits(k) == 16:
            return f"vst1_{s}16({ptr}, vmovn_{s}32({v}))"
        name = self._func(f"_exp_store4_{k}", "void", [f"{scalar_ctype(k)} *p", f"{self.regtype(k)} v"],
                          f"    {'int' if s == 's' else 'uint'}16x4_t h = vmovn_{s}32(v);\n"
                          f"    uint32_t t = vget_lane_u32(vreinterpret_u32_{s}8("
                          f"vmovn_{s}16(vcombine_{s}16(h, h))), 0);\n"
                          "    __builtin_memcpy(p, &t, 4);\n")
        return f"{name}({ptr}, {v})"

    def loadu(self, k: str, ptr: str) -> str:
        n = self.nregs(k)
        if not self.is_narrow(k) or n == 1:
            return super().loadu(k, ptr)
        # narrow kinds, 8 lanes at a time: one load, then widen the low and high halves
        vt, s, b = self.vtype(k), self._sfx(k)[0], kind_bits(k)
        h = f"{'int' if s == 's' else 'uint'}16x8_t"
        body = f"    {vt} r;\n"
        for c in range(n // 2):
            at = f"p + {8 * c}" if c else "p"
            w = f"vld1q_{s}16({at})" if b == 16 else f"vmovl_{s}8(vld1_{s}8({at}))"
            body += (f"    {h} w{c} = {w};\n    r.v[{2 * c}] = vmovl_{s}16(vget_low_{s}16(w{c}));\n"
                     f"    r.v[{2 * c + 1}] = vmovl_high_{s}16(w{c});\n")
        if n % 2:
            body += f"    r.v[{n - 1}] = {self._reg_loadu(k, f'p + {4 * (n - 1)}')};\n"
        name = self._func(f"_exp_loadu_{k}", vt, [f"const {scalar_ctype(k)} *p"], body + "    return r;\n")
        return f"{name}({ptr})"

    def storeu(self, k: str, ptr: str, v: str) -> str:
        n = self.nregs(k)
        if not self.is_narrow(k) or n == 1:
            return super().storeu(k, ptr, v)
        vt, s, b = self.vtype(k), self._sfx(k)[0], kind_bits(k)
        body = ""
        for c in range(n // 2):
            at = f"p + {8 * c}" if c else "p"
            h = (f"vuzp1q_{s}16(vreinterpretq_{s}16_{s}32(v.v[{2 * c}]), "
                 f"vreinterpretq_{s}16_{s}32(v.v[{2 * c + 1}]))")
            body += f"    vst1q_{s}16({at}, {h});\n" if b == 16 else f"    vst1_{s}8({at}, vmovn_{s}16({h}));\n"
        if n % 2:
            body += f"    {self._reg_storeu(k, f'p + {4 * (n - 1)}', f'v.v[{n - 1}]')};\n"
        name = self._func(f"_exp_storeu_{k}", "void", [f"{scalar_ctype(k)} *p", f"{vt} v"], body)
        return f"{name}({ptr}, {v})"

    def _mask_loadu(self, ptr: str) -> str:
        return self.loadu("u32", f"(const uint32_t *)({ptr})")

    def _mask_storeu(self, ptr: str, m: str) -> str:
        return self.storeu("u32", f"(uint32_t *)({ptr})", m)

    # ------------------------------------------------------------------ masks of 64-bit kinds
    def _mask_part(self, m: str, k: str, j: int) -> str:
        if self.lane_bits(k) == 32:
            return self._reg("u32", m, j)
        r = self._reg("u32", m, j // 2)
        return f"vreinterpretq_u64_u32(vzip{1 + j % 2}q_u32({r}, {r}))"

    def _fix(self, k: str, e: str) -> str:
        """Re-extend 32-bit lanes holding ``k`` values modulo 2^bits (identity for wide kinds)."""
        if not self.is_narrow(k):
            return e
        b = kind_bits(k)
        if is_signed(k):
            return f"vshrq_n_s32(vshlq_n_s32({e}, {32 - b}), {32 - b})"
        return f"vandq_u32({e}, vdupq_n_u32({(1 << b) - 1:#x}))"

    # ------------------------------------------------------------------ gang construction
    def splat(self, k: str, scalar: str) -> str:
        sfx = self._sfx(k)
        if self.nregs(k) == 1:
            return f"vdupq_n_{sfx}({self._scalar(k, scalar)})"
        return self._lift(f"_exp_splat_{k}", self.vtype(k), self.nregs(k), [Arg(scalar_ctype(k), scalar)],
                          lambda _j, x: f"vdupq_n_{sfx}({x})")

    def build(self, k: str, scalars: Sequence[str]) -> str:
        if len(scalars) != self.lanes:
            raise ValueError(f"build needs {self.lanes} scalars, got {len(scalars)}")
        sfx, rl = self._sfx(k), self.reg_lanes(k)
        vals = [self._scalar(k, s) for s in scalars]
        regs = [_chain(sfx, vals[j * rl:(j + 1) * rl]) for j in range(self.nregs(k))]
        if len(regs) == 1:
            return regs[0]
        return f"(({self.vtype(k)}){{{{{', '.join(regs)}}}}})"

    def extract(self, k: str, v: str, lane: int) -> str:
        if not 0 <= lane < self.lanes:
            raise ValueError(f"lane {lane} out of range")
        j, i = divmod(lane, self.reg_lanes(k))
        e = f"vgetq_lane_{self._sfx(k)}({self._reg(k, f'({v})', j) if self.nregs(k) > 1 else v}, {i})"
        return f"(({scalar_ctype(k)}){e})" if self.is_narrow(k) else e

    # ------------------------------------------------------------------ arithmetic
    def minmax(self, op: str, k: str, a: str, b: str) -> str | None:
        """``vminq_s32``/``vminq_u32`` for the integer kinds held in 32-bit lanes; not floats (``vminq_f32``
        returns a NaN where an operand is one, ``a < b ? a : b`` then ``b``) nor 64-bit lanes (none)."""
        if is_float(k) or self.lane_bits(k) != 32:
            return None
        return self._map(f"_exp_{op}_{k}", k, lambda x, y: f"v{op}q_{self._sfx(k)}({x}, {y})", a, b)

    def binop(self, op: str, k: str, a: str, b: str) -> str:
        check_binop(op, k)
        name = f"_exp_{OPNAMES[op]}_{k}"
        sfx = self._sfx(k)
        if is_float(k):
            if op in VBIT:
                u = f"u{kind_bits(k)}"
                return self._map(name, k, lambda x, y: _reinterpret(u, sfx, f"{VBIT[op]}_{u}("
                                 f"{_reinterpret(sfx, u, x)}, {_reinterpret(sfx, u, y)})"), a, b)
            return self._map(name, k, lambda x, y: f"{VARITH[op]}_{sfx}({x}, {y})", a, b)
        if op in VBIT:
            return self._map(name, k, lambda x, y: f"{VBIT[op]}_{sfx}({x}, {y})", a, b)
        w = self.lane_bits(k)
        if op in "+-" or (op == "*" and w == 32):
            return self._map(name, k, lambda x, y: self._fix(k, f"{VARITH[op]}_{sfx}({x}, {y})"), a, b)
        if op == "*":
            mul = self._ret_func(
                "_exp_mul_u64x2", "uint64x2_t", ["uint64x2_t a", "uint64x2_t b"],
                "vmlal_u32(vshlq_n_u64(vpaddlq_u32(vmulq_u32(vreinterpretq_u32_u64(b), "
                "vrev64q_u32(vreinterpretq_u32_u64(a)))), 32), vmovn_u64(a), vmovn_u64(b))")
            return self._map(name, k, lambda x, y: _reinterpret(
                "u64", sfx, f"{mul}({_reinterpret(sfx, 'u64', x)}, {_reinterpret(sfx, 'u64', y)})"), a, b)
        fn = self._divrem(op, k)
        return self._map(name, k, lambda x, y: f"{fn}({x}, {y})", a, b)

    def _divrem(self, op: str, k: str) -> str:
        """Helper: one register of integer ``/`` or ``%`` of kind ``k``."""
        sfx, rt = self._sfx(k), self.regtype(k)
        s = sfx[0]
        if self.lane_bits(k) == 64:  # no vector integer division: per lane in registers
            def lane(i: int) -> str:
                return f"vgetq_lane_{sfx}(a, {i}) {op} vgetq_lane_{sfx}(b, {i})"
            return self._ret_func(f"_exp_{OPNAMES[op]}_{sfx}x2", rt, [f"{rt} a", f"{rt} b"],
                                  f"vsetq_lane_{sfx}({lane(1)}, vdupq_n_{sfx}({lane(0)}), 1)")
        name = f"_exp_{OPNAMES[op]}_{k}x4"
        if self.is_narrow(k):
            # |a|, |b| < 2^16: the f32 quotient is within 2^-8 / |b| of a / b, so truncating it is exact
            q = f"vcvtq_{sfx}_f32(vdivq_f32(vcvtq_f32_{sfx}(a), vcvtq_f32_{sfx}(b)))"
            # only a signed quotient can leave the kind's range (-128 / -1)
            body = f"    return {self._fix(k, q) if s == 's' else q};\n" if op == "/" else \
                f"    return vmlsq_{sfx}(a, {q}, b);\n"
        else:
            # |a|, |b| < 2^32: the f64 quotient is within 2^-21 / |b| of a / b, so truncating it is exact
            def half(p: str, hi: bool) -> str:
                w = f"vmovl_high_{sfx}({p})" if hi else f"vmovl_{sfx}(vget_low_{sfx}({p}))"
                return f"vcvtq_f64_{s}64({w})"
            t64 = f"{'int' if s == 's' else 'uint'}64x2_t"
            body = (f"    {t64} lo = vcvtq_{s}64_f64(vdivq_f64({half('a', False)}, {half('b', False)}));\n"
                    f"    {t64} hi = vcvtq_{s}64_f64(vdivq_f64({half('a', True)}, {half('b', True)}));\n"
                    f"    {rt} q = vuzp1q_{sfx}(vreinterpretq_{sfx}_{s}64(lo), vreinterpretq_{sfx}_{s}64(hi));\n")
            body += "    return q;\n" if op == "/" else f"    return vmlsq_{sfx}(a, q, b);\n"
        return self._func(name, rt, [f"{rt} a", f"{rt} b"], body)

    def shift(self, op: str, k: str, a: str, n: str, n_uniform: bool) -> str:
        if op not in ("<<", ">>") or is_float(k):
            raise ValueError(f"shift {op!r} on {k}")
        sfx, w = self._sfx(k), self.lane_bits(k)
        name = f"_exp_{OPNAMES[op]}{'u' if n_uniform else 'v'}_{k}"

        def done(e: str) -> str:
            return self._fix(k, e) if op == "<<" else e

        c = literal_value(n.strip()) if n_uniform else None
        if c is not None and c < w:
            if c == 0:
                return a
            intr = "vshlq_n" if op == "<<" else "vshrq_n"
            return self._map(f"_exp_{OPNAMES[op]}{c}_{k}", k, lambda x: done(f"{intr}_{sfx}({x}, {c})"), a)
        if n_uniform:
            def by(c: str) -> str:
                # Negate as a signed count: -(unsigned long)1 would overflow the int64 lane type.
                c = f"(int{w}_t)({c})"
                return f"vdupq_n_s{w}({c if op == '<<' else f'-{c}'})"
            return self._lift(name, self.vtype(k), self.nregs(k), [self.gang_arg(k, a), Arg("int", n)],
                              lambda _j, x, c: done(f"vshlq_{sfx}({x}, {by(c)})"))

        def per_lane(x: str, c: str) -> str:
            cnt = _reinterpret(sfx, f"s{w}", c)
            return done(f"vshlq_{sfx}({x}, {cnt if op == '<<' else f'vnegq_s{w}({cnt})'})")
        return self._map(name, k, per_lane, a, n)

    def unop(self, op: str, k: str, a: str) -> str:
        if op not in ("-", "~") or (op == "~" and is_float(k)):
            raise ValueError(f"unary {op!r} on {k}")
        name = f"_exp_{'neg' if op == '-' else 'not'}_{k}"
        sfx, w = self._sfx(k), self.lane_bits(k)
        if is_float(k):
            return self._map(name, k, lambda x: f"vnegq_{sfx}({x})", a)
        if op == "-":
            s = f"s{w}"
            return self._map(name, k, lambda x: self._fix(k, _reinterpret(
                s, sfx, f"vnegq_{s}({_reinterpret(sfx, s, x)})")), a)
        if self.is_narrow(k) and not is_signed(k):
            return self._map(name, k, lambda x: f"veorq_u32({x}, vdupq_n_u32({(1 << kind_bits(k)) - 1:#x}))", a)
        if w == 32:
            return self._map(name, k, lambda x: f"vmvnq_{sfx}({x})", a)
        return self._map(name, k, lambda x: _reinterpret("u32", sfx, f"vmvnq_u32({_reinterpret(sfx, 'u32', x)})"), a)

    # ------------------------------------------------------------------ comparisons, select, masks
    def _to_mask(self, name: str, k: str, args: Sequence[str], reg_cmp: Callable[..., str], negate: bool) -> str:
        """The mask whose register j is built from ``reg_cmp`` of the argument registers of kind ``k``
        (a uint32x4_t for 32-bit lanes, uint64x2_t pairs joined for 64-bit lanes), complemented if
        ``negate``."""
        def neg(e: str) -> str:
            return f"vmvnq_u32({e})" if negate else e
        mt, mr = self.mask_type(), self.nregs("u32")
        if self.lane_bits(k) == 32:
            return self._lift(name, mt, mr, [self.gang_arg(k, x) for x in args],
                              lambda _j, *regs: neg(reg_cmp(*regs)))

        def fn(j: int, *ps: str) -> str:
            c0 = reg_cmp(*(self._reg(k, p, 2 * j) for p in ps))
            c1 = reg_cmp(*(self._reg(k, p, 2 * j + 1) for p in ps))
            return neg(_join64(c0, c1))
        return self._lift(name, mt, mr, [Arg(self.vtype(k), x, _whole) for x in args], fn)

    def cmp(self, op: str, k: str, a: str, b: str) -> str:
        if op not in CMPOPS:
            raise ValueError(f"unknown comparison {op!r}")
        intr = f"{VCMP['==' if op == '!=' else op]}_{self._sfx(k)}"
        return self._to_mask(f"_exp_{OPNAMES[op]}_{k}", k, [a, b], lambda x, y: f"{intr}({x}, {y})", op == "!=")

    def int_to_mask(self, k: str, a: str) -> str:
        sfx = self._sfx(k)
        name = f"_exp_{k}_to_mask"
        if is_float(k) or self.lane_bits(k) == 64:  # not (a == 0): floats: -0.0 == 0, NaN != 0
            return self._to_mask(name, k, [a], lambda x: f"vceqzq_{sfx}({x})", True)
        u = f"u{self.lane_bits(k)}"
        return self._to_mask(name, k, [a], lambda x: f"vcgtq_{u}({_reinterpret(sfx, u, x)}, vdupq_n_{u}(0))", False)

    def select(self, k: str, m: str, a: str, b: str) -> str:
        sfx = self._sfx(k)
        return self._lift(f"_exp_select_{k}", self.vtype(k), self.nregs(k),
                          [self.mask_arg(k, m), self.gang_arg(k, a), self.gang_arg(k, b)],
                          lambda _j, mm, x, y: f"vbslq_{sfx}({mm}, {x}, {y})")

    def mask_const(self, value: bool) -> str:
        r = "vdupq_n_u32(0xffffffffu)" if value else "vdupq_n_u32(0)"
        n = self.nregs("u32")
        return r if n == 1 else f"(({self.mask_type()}){{{{{', '.join([r] * n)}}}}})"

    def _mask2(self, name: str, intr: str, a: str, b: str) -> str:
        return self._map(f"_exp_mask_{name}", "u32", lambda x, y: f"{intr}({x}, {y})", a, b)

    def mask_and(self, a: str, b: str) -> str:
        return self._mask2("and", "vandq_u32", a, b)

    def mask_or(self, a: str, b: str) -> str:
        return self._mask2("or", "vorrq_u32", a, b)

    def mask_xor(self, a: str, b: str) -> str:
        return self._mask2("xor", "veorq_u32", a, b)

    def mask_andnot(self, a: str, b: str) -> str:
        return self._mask2("andnot", "vbicq_u32", a, b)

    def mask_not(self, a: str) -> str:
        return self._map("_exp_mask_not", "u32", lambda x: f"vmvnq_u32({x})", a)

    def mask_to_int(self, m: str) -> str:
        return self._map("_exp_mask_to_int", "u32", lambda x: f"vreinterpretq_s32_u32(vshrq_n_u32({x}, 31))", m,
                         out_k="i32")

    def _mask_reduce(self, name: str, ret: str, m: str, per_reg: Callable[[int, str], str], join: str,
                     final: str) -> str:
        """``final`` (a format with one ``{}``) of the ``join`` of ``per_reg(j, register j)`` over the
        mask's registers: inline for one register, else through the helper ``name`` returning ``ret``."""
        n = self.nregs("u32")
        if n == 1:
            return final.format(per_reg(0, m))
        e = per_reg(0, "m.v[0]")
        for j in range(1, n):
            e = f"{join}({e}, {per_reg(j, f'm.v[{j}]')})"
        self._ret_func(name, ret, [f"{self.mask_type()} m"], final.format(e))
        return f"{name}({m})"

    def mask_bits(self, m: str) -> str:
        def weights(j: int, r: str) -> str:
            return f"vandq_u32({r}, (uint32x4_t){{{', '.join(f'{1 << (4 * j + i)}u' for i in range(4))}}})"
        return self._mask_reduce("_exp_mask_bits", "unsigned", m, weights, "vorrq_u32", "((unsigned)vaddvq_u32({}))")

    def mask_any(self, m: str) -> str:
        return self._mask_reduce("_exp_mask_any", "int", m, lambda _j, r: r, "vorrq_u32", "(vmaxvq_u32({}) != 0)")

    def mask_all(self, m: str) -> str:
        return self._mask_reduce("_exp_mask_all", "int", m, lambda _j, r: r, "vandq_u32", "(vminvq_u32({}) != 0)")

    # ------------------------------------------------------------------ conversions
    def _widen(self, name: str, s: str, d: str, a: str, fn: Callable[[str, bool], str]) -> str:
        """A gang of 64-bit kind ``d`` from the 32-bit-lane gang ``a`` of kind ``s``: register j is
        ``fn(register j // 2 of a, high half?)``."""
        return self._lift(name, self.vtype(d), self.nregs(d),
                          [Arg(self.vtype(s), a, lambda p, j: self._reg(s, p, j // 2))],
                          lambda j, r: fn(r, j % 2 == 1))

    def _narrow(self, name: str, s: str, d: str, a: str, fn: Callable[[str, str], str]) -> str:
        """A gang of 32-bit-lane kind ``d`` from the 64-bit gang ``a`` of kind ``s``: register j is
        ``fn(register 2j of a, register 2j + 1 of a)``."""
        return self._lift(name, self.vtype(d), self.nregs(d), [Arg(self.vtype(s), a, _whole)],
                          lambda j, p: fn(self._reg(s, p, 2 * j), self._reg(s, p, 2 * j + 1)))

    def convert(self, src_k: str, dst_k: str, a: str) -> str:
        if src_k == dst_k:
            return a
        s, d = src_k, dst_k
        ss, ds = self._sfx(s), self._sfx(d)
        sw, dw = self.lane_bits(s), self.lane_bits(d)
        name = f"_exp_cvt_{s}_{d}"
        fix = self._fix
        if not is_float(s) and not is_float(d):
            if sw == dw:
                sb, db = kind_bits(s), kind_bits(d)
                fits = sb < db and (is_signed(d) or not is_signed(s))
                if ss == ds and (fits or db == sw):
                    return a
                return self._map(name, s, lambda x: _reinterpret(ss, ds, x) if fits or db == sw
                                 else fix(d, _reinterpret(ss, ds, x)), a, out_k=d)
            if dw == 64:  # extend by the source's signedness
                s64 = f"{ss[0]}64"
                return self._widen(name, s, d, a, lambda r, hi: _reinterpret(
                    s64, ds, f"vmovl_high_{ss}({r})" if hi else f"vmovl_{ss}(vget_low_{ss}({r}))"))
            return self._narrow(name, s, d, a, lambda r0, r1: fix(d, _reinterpret(
                "u32", ds, _join64(_reinterpret(ss, "u64", r0), _reinterpret(ss, "u64", r1)))))
        if is_float(s) and is_float(d):
            if s == "f32":
                return self._widen(name, s, d, a, lambda r, hi: f"vcvt_high_f64_f32({r})" if hi
                                   else f"vcvt_f64_f32(vget_low_f32({r}))")
            return self._narrow(name, s, d, a, lambda r0, r1: f"vcvt_high_f32_f64(vcvt_f32_f64({r0}), {r1})")
        if not is_float(s):
            if d == "f32" and sw == 32:
                return self._map(name, s, lambda x: f"vcvtq_f32_{ss}({x})", a, out_k=d)
            if sw == 64 and d == "f64":
                return self._map(name, s, lambda x: f"vcvtq_f64_{ss}({x})", a, out_k=d)
            if sw == 32:  # -> f64: exact through 64-bit integers
                return self._widen(name, s, d, a, lambda r, hi: f"vcvtq_f64_{ss[0]}64(" + (
                    f"vmovl_high_{ss}({r})" if hi else f"vmovl_{ss}(vget_low_{ss}({r}))") + ")")
            # 64-bit -> f32: f64 would round twice; convert each lane in a scalar register

            def lanes(r0: str, r1: str) -> str:
                return _chain("f32", [f"(float)vgetq_lane_{ss}({r}, {i})" for r in (r0, r1) for i in (0, 1)])
            return self._narrow(name, s, d, a, lanes)
        # float -> integer: truncation; out-of-range lanes (undefined in C) saturate like AArch64's scalar code
        s64 = f"{ds[0]}64"
        if s == "f32" and dw == 32:
            return self._map(name, s, lambda x: fix(d, f"vcvtq_{ds}_f32({x})"), a, out_k=d)
        if s == "f64" and dw == 64:
            return self._map(name, s, lambda x: f"vcvtq_{ds}_f64({x})", a, out_k=d)
        if s == "f32":  # -> 64-bit: through f64, exactly
            return self._widen(name, s, d, a, lambda r, hi: f"vcvtq_{ds}_f64(" + (
                f"vcvt_high_f64_f32({r})" if hi else f"vcvt_f64_f32(vget_low_f32({r}))") + ")")
        # f64 -> 32-bit lanes: saturating narrow, so that even out-of-range lanes match AArch64's scalar
        # fcvtzs/fcvtzu to a 32-bit register (then truncated to the narrow kind)
        return self._narrow(name, s, d, a, lambda r0, r1: fix(
            d, f"vqmovn_high_{s64}(vqmovn_{s64}(vcvtq_{s64}_f64({r0})), vcvtq_{s64}_f64({r1}))"))

    def bitcast(self, src_k: str, dst_k: str, a: str) -> str:
        if kind_bits(src_k) != kind_bits(dst_k):
            raise ValueError(f"bitcast {src_k} -> {dst_k}: widths differ")
        if src_k == dst_k:
            return a
        if not is_float(src_k) and not is_float(dst_k):
            return self.convert(src_k, dst_k, a)
        ss, ds = self._sfx(src_k), self._sfx(dst_k)
        return self._map(f"_exp_bitcast_{src_k}_{dst_k}", src_k, lambda x: _reinterpret(ss, ds, x), a, out_k=dst_k)

    # ------------------------------------------------------------------ libm operations
    def math(self, op: str, k: str, args: Sequence[str]) -> str:
        """Every operation is one instruction, the vector form of what GCC makes of the scalar call
        (``VMATH``; fma: ``vfmaq``, i.e. fmadd)."""
        check_math(op, k, args)
        if op == "fma":  # vfmaq(c, a, b) = c + a * b, fused
            return self._map(f"_exp_fma_{k}", k, lambda x, y, z: f"vfmaq_{k}({z}, {x}, {y})", *args)
        return self._map(f"_exp_{op}_{k}", k, lambda *xs: f"{VMATH[op]}_{k}({', '.join(xs)})", *args)
