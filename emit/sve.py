"""Arm SVE (ACLE intrinsics, ``arm_sve.h``) at a fixed vector length: 128, 256 or 512 bits.

One table, ``Sve``, parameterized by its vector bits (``sve128``: 4 lanes, ``sve``: 256 bits, 8 lanes,
``sve512``: 16 lanes). Registers are the ACLE types fixed to that length, e.g.
``typedef svfloat32_t _Exp_sv_f32 __attribute__((arm_sve_vector_bits(256)));``, compiled with
``-march=armv8.2-a+sve -msve-vector-bits=N`` and run under ``qemu-aarch64 -cpu max,sveN=on``: code for
one length runs only on hardware of exactly that length (every ``svptrue`` covers one register).

Register layout (signedness kept in the type, as on NEON): f32 -> ``_Exp_sv_f32``; i32/u32 ->
``_Exp_sv_s32``/``_Exp_sv_u32``, also holding the narrow kinds widened (i8/i16 sign-extended, u8/u16
zero-extended: ``svld1sb``/``svld1uh`` load them, ``svst1b``/``svst1h`` store them); f64, i64, u64 take
two registers (``_Exp_f64x8`` = 2 x ``_Exp_sv_f64``). A mask is a predicate, ``_Exp_sv_bool`` (svbool_t),
with one bit per 32-bit lane; 64-bit kinds take its halves (``svunpklo_b``/``svunpkhi_b``) and their
comparisons are joined back with ``svuzp1_b32``. More lanes (``--lanes 2N``) make every gang a struct of
twice as many registers, masks included.

Native: all arithmetic (integer ``/`` and ``%`` too: ``svdiv``, ``svmls``), bit operations, shifts by
immediate, uniform or per-lane counts, comparisons (``svcmpne`` is true on NaN, as C's ``!=``), selects
(``svsel``), mask logic on predicates (``svand_b_z``, ``svbic_b_z``, ...), mask_any/mask_all with
``svptest_any`` (BOSCC's guards), mask_bits with ``svorv``; every conversion (``svcvt``: float ->
integer is FCVTZS/FCVTZU, which saturates exactly like GCC's scalar AArch64 code, f64 -> 32-bit lanes
included, and int64 -> f32 rounds once); table reads at varying indexes are gathers
(``svld1_gather_s32index_f32``, byte and halfword ones with ``svld1sb_gather_...``), under the mask
where there is one, so inactive lanes touch no memory. libm sqrt, floor, ceil, trunc, rint, nearbyint,
fmin, fmax and fma are one instruction each (the ones GCC makes of the scalar calls).

Vector function ABI: none. GCC 12's SVE variants (``_ZGVsMxv_``) take scalable vectors of any length,
not these fixed-length types, so ``abi_letter`` is None (``--abi`` says so; ``--wrapper array`` works).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from expand.ir.cprint import literal_value

from .isa import (
    CMPOPS,
    OPNAMES,
    Arg,
    RegIsa,
    TableRead,
    check_binop,
    check_math,
    is_float,
    is_signed,
    kind_bits,
    scalar_ctype,
)
from .neon import NO_REE

SVCMP = {"==": "svcmpeq", "!=": "svcmpne", "<": "svcmplt", "<=": "svcmple", ">": "svcmpgt", ">=": "svcmpge"}
SVBIT = {"&": "svand", "|": "svorr", "^": "sveor"}
SVARITH = {"+": "svadd", "-": "svsub", "*": "svmul", "/": "svdiv"}
#: libm operation -> the SVE instruction of what GCC makes of the scalar call (fsqrt, frintm, frintp,
#: frintz, frintx, frinti, fminnm, fmaxnm)
SVMATH = {"sqrt": "svsqrt", "floor": "svrintm", "ceil": "svrintp", "trunc": "svrintz", "rint": "svrintx",
          "nearbyint": "svrinti", "fmin": "svminnm", "fmax": "svmaxnm"}
#: narrow kinds: (extending load, truncating store, gather form) by kind
_NARROW = {"i8": ("svld1sb", "svst1b", "svld1sb_gather_{x}offset"),
           "u8": ("svld1ub", "svst1b", "svld1ub_gather_{x}offset"),
           "i16": ("svld1sh", "svst1h", "svld1sh_gather_{x}index"),
           "u16": ("svld1uh", "svst1h", "svld1uh_gather_{x}index")}


def _zip(r: str, hi: bool) -> str:
    """The low (high) half of the 32-bit elements of register ``r`` in the even elements, where the
    conversions to 64-bit lanes read them."""
    return f"svzip{2 if hi else 1}_f32({r}, {r})"


def _reinterpret(src: str, dst: str, x: str) -> str:
    """Register ``x`` of suffix ``src`` (s32, u64, f32, ...) as suffix ``dst``."""
    return x if src == dst else f"svreinterpret_{dst}_{src}({x})"


class Sve(RegIsa):
    """SVE with fixed ``vector_bits``-bit registers; gangs of ``vector_bits / 32`` lanes (or a multiple)."""

    vector_bits: ClassVar[int] = 256
    name = "sve"
    default_lanes = 8
    CC = ("aarch64-linux-gnu-gcc",)
    CFLAGS = ("-march=armv8.2-a+sve", "-msve-vector-bits=256")
    HEADERS = ("<arm_sve.h>",)
    RUN_PREFIX = ("qemu-aarch64", "-cpu", "max,sve256=on", "-L", "/usr/aarch64-linux-gnu")
    reg_bits = 256
    mask_kind = "u32"
    boscc_test_cost = 2  # ptest + branch
    #: GCC 12.2 segfaults (in its "lower" pass) compiling code that uses the SVE types of arm_sve.h when
    #: that header came from a precompiled header (expand-fuzz sve seed 5): the fuzzer compiles without one
    precompiled_headers = False
    abi_letter, abi_macro = None, "defined(__ARM_FEATURE_SVE)"
    arch = "aarch64"

    def __init_subclass__(cls, **kw: object) -> None:
        """A length variant: ``vector_bits`` decides the lanes, the registers and the flags."""
        super().__init_subclass__(**kw)
        b = cls.vector_bits
        cls.default_lanes, cls.reg_bits = b // 32, b
        cls.CFLAGS = ("-march=armv8.2-a+sve", f"-msve-vector-bits={b}")
        cls.RUN_PREFIX = ("qemu-aarch64", "-cpu", f"max,sve{b}=on", "-L", "/usr/aarch64-linux-gnu")

    def __init__(self, lanes: int | None = None) -> None:
        super().__init__(lanes)
        n = self.default_lanes
        if self.lanes % n or self.lanes > 32:  # (mask_bits fits 32 lanes)
            raise ValueError(f"{self.name} gangs have a multiple of {n} lanes up to 32, not {self.lanes}")
        self.start()

    def start(self) -> None:
        self.need("_exp_gcc_no_ree", NO_REE)

    # ------------------------------------------------------------------ types and memory
    def _sfx(self, k: str) -> str:
        """Intrinsic suffix of kind ``k``'s registers: f32, f64, s32, u32, s64 or u64."""
        return k if is_float(k) else ("s" if is_signed(k) else "u") + str(self.lane_bits(k))

    def _pg(self, k: str) -> str:
        """The all-lanes predicate of kind ``k``'s registers."""
        return f"svptrue_b{self.lane_bits(k)}()"

    def _fixed(self, name: str, acle: str) -> str:
        self.need(name, f"typedef {acle} {name} __attribute__((arm_sve_vector_bits({self.vector_bits})));\n")
        return name

    def regtype(self, k: str) -> str:
        sfx = self._sfx(k)
        acle = {"f": "svfloat", "s": "svint", "u": "svuint"}[sfx[0]] + sfx[1:] + "_t"
        return self._fixed(f"_Exp_sv_{sfx}", acle)

    def vtype(self, k: str) -> str:
        n, rt = self.nregs(k), self.regtype(k)
        if n == 1:
            return rt
        name = f"_Exp_{self._sfx(k)}x{self.lanes}"
        self.need(name, f"typedef struct {{ {rt} v[{n}]; }} {name};\n")
        return name

    def mask_type(self) -> str:
        rt = self._fixed("_Exp_sv_bool", "svbool_t")
        n = self.nregs("u32")
        if n == 1:
            return rt
        name = f"_Exp_boolx{self.lanes}"
        self.need(name, f"typedef struct {{ {rt} v[{n}]; }} {name};\n")
        return name

    def _reg(self, k: str, p: str, j: int) -> str:
        """Register ``j`` of gang ``p`` (a parameter or variable) of kind ``k``."""
        return p if self.nregs(k) == 1 else f"{p}.v[{j}]"

    def _reg_loadu(self, k: str, ptr: str) -> str:
        ld = _NARROW[k][0] if self.is_narrow(k) else "svld1"
        return f"{ld}_{self._sfx(k)}({self._pg(k)}, {ptr})"

    def _reg_storeu(self, k: str, ptr: str, v: str) -> str:
        st = _NARROW[k][1] if self.is_narrow(k) else "svst1"
        return f"{st}_{self._sfx(k)}({self._pg(k)}, {ptr}, {v})"

    def masked_storeu(self, k: str, ptr: str, v: str, m: str) -> str:
        """``svst1`` (``svst1b``/``svst1h`` for the narrow kinds) under the mask: lanes that are off are
        not written."""
        st = f"{_NARROW[k][1] if self.is_narrow(k) else 'svst1'}_{self._sfx(k)}"
        if self.nregs(k) == 1:
            return f"{st}({m}, {ptr}, {v})"
        rl = self.reg_lanes(k)
        body = "".join(f"    {st}({self._mask_part('m', k, j)}, {f'p + {j * rl}' if j else 'p'}, v.v[{j}]);\n"
                       for j in range(self.nregs(k)))
        name = self._func(f"_exp_masked_storeu_{k}", "void",
                          [f"{scalar_ctype(k)} *p", f"{self.vtype(k)} v", f"{self.mask_type()} m"], body)
        return f"{name}({ptr}, {v}, {m})"

    def masked_store(self, k: str, ptr: str, v: str, m: str) -> str:
        at = f"({ptr})->v" if self.is_narrow(k) else f"({scalar_ctype(k)} *)({ptr})"
        return self.masked_storeu(k, at, v, m)

    def _mask_loadu(self, ptr: str) -> str:
        def reg(p: str) -> str:
            return f"svcmpne_n_s32(svptrue_b32(), svld1_s32(svptrue_b32(), {p}), 0)"
        n, rl = self.nregs("u32"), self.reg_lanes("u32")
        if n == 1:
            return reg(ptr)
        mt = self.mask_type()
        body = f"    {mt} r;\n" + "".join(f"    r.v[{j}] = {reg(f'p + {j * rl}' if j else 'p')};\n"
                                         for j in range(n))
        name = self._func("_exp_mask_loadu", mt, ["const int32_t *p"], body + "    return r;\n")
        return f"{name}({ptr})"

    def _mask_storeu(self, ptr: str, m: str) -> str:
        def reg(p: str, r: str) -> str:
            return f"svst1_s32(svptrue_b32(), {p}, svdup_n_s32_z({r}, -1))"
        n, rl = self.nregs("u32"), self.reg_lanes("u32")
        if n == 1:
            return reg(ptr, m)
        body = "".join(f"    {reg(f'p + {j * rl}' if j else 'p', f'm.v[{j}]')};\n" for j in range(n))
        name = self._func("_exp_mask_storeu", "void", ["int32_t *p", f"{self.mask_type()} m"], body)
        return f"{name}({ptr}, {m})"

    # ------------------------------------------------------------------ masks (predicates)
    def _mask_part(self, m: str, k: str, j: int) -> str:
        if self.lane_bits(k) == 32:
            return self._reg("u32", m, j)
        return f"svunpk{'hi' if j % 2 else 'lo'}_b({self._reg('u32', m, j // 2)})"

    def mask_arg(self, k: str, expr: str) -> Arg:
        if self.nregs(k) == 1:
            return Arg(self.mask_type(), expr)
        return Arg(self.mask_type(), expr, lambda p, j: self._mask_part(p, k, j))

    def _mask_map(self, name: str, fn: Callable[..., str], *masks: str) -> str:
        """A mask whose register j is ``fn(register j of each mask)``."""
        return self._lift(name, self.mask_type(), self.nregs("u32"), [self.mask_arg("u32", m) for m in masks],
                          lambda _j, *regs: fn(*regs))

    def _fix(self, k: str, e: str) -> str:
        """Re-extend 32-bit lanes holding ``k`` values modulo 2^bits (identity for wide kinds)."""
        if not self.is_narrow(k):
            return e
        return f"svext{'b' if kind_bits(k) == 8 else 'h'}_{self._sfx(k)}_x(svptrue_b32(), {e})"

    # ------------------------------------------------------------------ gang construction
    def splat(self, k: str, scalar: str) -> str:
        sfx = self._sfx(k)
        if self.nregs(k) == 1:
            return f"svdup_n_{sfx}({self._scalar(k, scalar)})"
        return self._lift(f"_exp_splat_{k}", self.vtype(k), self.nregs(k), [Arg(scalar_ctype(k), scalar)],
                          lambda _j, x: f"svdup_n_{sfx}({x})")

    def build(self, k: str, scalars: Sequence[str]) -> str:
        if len(scalars) != self.lanes:
            raise ValueError(f"build needs {self.lanes} scalars, got {len(scalars)}")
        sfx, rl = self._sfx(k), self.reg_lanes(k)
        lt = scalar_ctype(k if not self.is_narrow(k) else ("i32" if is_signed(k) else "u32"))
        vals = [self._scalar(k, s) for s in scalars]
        regs = [f"svld1_{sfx}({self._pg(k)}, (const {lt}[{rl}]){{{', '.join(vals[j * rl:(j + 1) * rl])}}})"
                for j in range(self.nregs(k))]
        if len(regs) == 1:
            return regs[0]
        return f"(({self.vtype(k)}){{{{{', '.join(regs)}}}}})"

    def extract(self, k: str, v: str, lane: int) -> str:
        if not 0 <= lane < self.lanes:
            raise ValueError(f"lane {lane} out of range")
        j, i = divmod(lane, self.reg_lanes(k))
        r = self._reg(k, f"({v})", j) if self.nregs(k) > 1 else v
        e = f"svlastb_{self._sfx(k)}(svwhilelt_b{self.lane_bits(k)}_s32(0, {i + 1}), {r})"
        return f"(({scalar_ctype(k)}){e})" if self.is_narrow(k) else e

    # ------------------------------------------------------------------ arithmetic
    def binop(self, op: str, k: str, a: str, b: str) -> str:
        check_binop(op, k)
        name = f"_exp_{OPNAMES[op]}_{k}"
        sfx, pg = self._sfx(k), self._pg(k)
        if is_float(k) and op in SVBIT:
            u = f"u{kind_bits(k)}"
            return self._map(name, k, lambda x, y: _reinterpret(u, sfx, f"{SVBIT[op]}_{u}_x({pg}, "
                             f"{_reinterpret(sfx, u, x)}, {_reinterpret(sfx, u, y)})"), a, b)
        if op in SVBIT:
            return self._map(name, k, lambda x, y: f"{SVBIT[op]}_{sfx}_x({pg}, {x}, {y})", a, b)
        if op in SVARITH:
            return self._map(name, k, lambda x, y: self._fix(k, f"{SVARITH[op]}_{sfx}_x({pg}, {x}, {y})"), a, b)
        rt = self.regtype(k)  # %: a - (a / b) * b
        rem = self._ret_func(f"_exp_svrem_{sfx}", rt, [f"{rt} a", f"{rt} b"],
                             f"svmls_{sfx}_x({pg}, a, svdiv_{sfx}_x({pg}, a, b), b)")
        return self._map(name, k, lambda x, y: self._fix(k, f"{rem}({x}, {y})"), a, b)

    def shift(self, op: str, k: str, a: str, n: str, n_uniform: bool) -> str:
        if op not in ("<<", ">>") or is_float(k):
            raise ValueError(f"shift {op!r} on {k}")
        sfx, w, pg = self._sfx(k), self.lane_bits(k), self._pg(k)
        intr = "svlsl" if op == "<<" else ("svasr" if is_signed(k) else "svlsr")
        name = f"_exp_{OPNAMES[op]}{'u' if n_uniform else 'v'}_{k}"

        def done(e: str) -> str:
            return self._fix(k, e) if op == "<<" else e

        c = literal_value(n.strip()) if n_uniform else None
        if c is not None and c < w:
            if c == 0:
                return a
            return self._map(f"_exp_{OPNAMES[op]}{c}_{k}", k, lambda x: done(f"{intr}_n_{sfx}_x({pg}, {x}, {c})"), a)
        if n_uniform:
            return self._lift(name, self.vtype(k), self.nregs(k), [self.gang_arg(k, a), Arg("int", n)],
                              lambda _j, x, c: done(f"{intr}_n_{sfx}_x({pg}, {x}, (uint{w}_t)({c}))"))
        return self._map(name, k, lambda x, c: done(f"{intr}_{sfx}_x({pg}, {x}, {_reinterpret(sfx, f'u{w}', c)})"),
                         a, n)

    def unop(self, op: str, k: str, a: str) -> str:
        if op not in ("-", "~") or (op == "~" and is_float(k)):
            raise ValueError(f"unary {op!r} on {k}")
        name = f"_exp_{'neg' if op == '-' else 'not'}_{k}"
        sfx, w, pg = self._sfx(k), self.lane_bits(k), self._pg(k)
        if op == "-":
            s = sfx if is_float(k) else f"s{w}"
            return self._map(name, k, lambda x: self._fix(k, _reinterpret(
                s, sfx, f"svneg_{s}_x({pg}, {_reinterpret(sfx, s, x)})")), a)
        if self.is_narrow(k) and not is_signed(k):
            return self._map(name, k, lambda x: f"sveor_n_u32_x({pg}, {x}, {(1 << kind_bits(k)) - 1:#x})", a)
        return self._map(name, k, lambda x: f"svnot_{sfx}_x({pg}, {x})", a)

    # ------------------------------------------------------------------ comparisons, select, masks
    def _to_mask(self, name: str, k: str, args: Sequence[str], reg_cmp: Callable[..., str]) -> str:
        """The mask whose register j is ``reg_cmp`` of the argument registers of kind ``k`` (two
        registers of 64-bit lanes joined into one predicate of 32-bit lanes)."""
        mt, mr = self.mask_type(), self.nregs("u32")
        if self.lane_bits(k) == 32:
            return self._lift(name, mt, mr, [self.gang_arg(k, x) for x in args], lambda _j, *regs: reg_cmp(*regs))

        def fn(j: int, *ps: str) -> str:
            c0 = reg_cmp(*(self._reg(k, p, 2 * j) for p in ps))
            c1 = reg_cmp(*(self._reg(k, p, 2 * j + 1) for p in ps))
            return f"svuzp1_b32({c0}, {c1})"
        return self._lift(name, mt, mr, [Arg(self.vtype(k), x, lambda p, _j: p) for x in args], fn)

    def cmp(self, op: str, k: str, a: str, b: str) -> str:
        if op not in CMPOPS:
            raise ValueError(f"unknown comparison {op!r}")
        intr, pg = f"{SVCMP[op]}_{self._sfx(k)}", self._pg(k)
        return self._to_mask(f"_exp_{OPNAMES[op]}_{k}", k, [a, b], lambda x, y: f"{intr}({pg}, {x}, {y})")

    def int_to_mask(self, k: str, a: str) -> str:
        sfx, pg = self._sfx(k), self._pg(k)
        zero = {"f32": "0.0f", "f64": "0.0"}.get(k, "0")  # floats: -0.0 is off, NaN on
        return self._to_mask(f"_exp_{k}_to_mask", k, [a], lambda x: f"svcmpne_n_{sfx}({pg}, {x}, {zero})")

    def select(self, k: str, m: str, a: str, b: str) -> str:
        sfx = self._sfx(k)
        return self._lift(f"_exp_select_{k}", self.vtype(k), self.nregs(k),
                          [self.mask_arg(k, m), self.gang_arg(k, a), self.gang_arg(k, b)],
                          lambda _j, mm, x, y: f"svsel_{sfx}({mm}, {x}, {y})")

    def mask_const(self, value: bool) -> str:
        r = "svptrue_b32()" if value else "svpfalse_b()"
        n = self.nregs("u32")
        return r if n == 1 else f"(({self.mask_type()}){{{{{', '.join([r] * n)}}}}})"

    def mask_and(self, a: str, b: str) -> str:
        return self._mask_map("_exp_mask_and", lambda x, y: f"svand_b_z(svptrue_b32(), {x}, {y})", a, b)

    def mask_or(self, a: str, b: str) -> str:
        return self._mask_map("_exp_mask_or", lambda x, y: f"svorr_b_z(svptrue_b32(), {x}, {y})", a, b)

    def mask_xor(self, a: str, b: str) -> str:
        return self._mask_map("_exp_mask_xor", lambda x, y: f"sveor_b_z(svptrue_b32(), {x}, {y})", a, b)

    def mask_andnot(self, a: str, b: str) -> str:
        return self._mask_map("_exp_mask_andnot", lambda x, y: f"svbic_b_z(svptrue_b32(), {x}, {y})", a, b)

    def mask_not(self, a: str) -> str:
        return self._mask_map("_exp_mask_not", lambda x: f"svnot_b_z(svptrue_b32(), {x})", a)

    def mask_to_int(self, m: str) -> str:
        return self._lift("_exp_mask_to_int", self.vtype("i32"), self.nregs("i32"), [self.mask_arg("i32", m)],
                          lambda _j, mm: f"svdup_n_s32_z({mm}, 1)")

    def _mask_reduce(self, name: str, ret: str, m: str, per_reg: Callable[[int, str], str], join: str) -> str:
        """The ``join`` (a C operator) of ``per_reg(j, register j)`` over the mask's registers: inline for
        one register, else through the helper ``name`` returning ``ret``."""
        n = self.nregs("u32")
        if n == 1:
            return per_reg(0, m)
        e = f" {join} ".join(per_reg(j, f"m.v[{j}]") for j in range(n))
        self._ret_func(name, ret, [f"{self.mask_type()} m"], e)
        return f"{name}({m})"

    def mask_bits(self, m: str) -> str:
        rl = self.reg_lanes("u32")
        return self._mask_reduce("_exp_mask_bits", "unsigned", m, lambda j, r: (
            f"(unsigned)svorv_u32({r}, svlsl_u32_x(svptrue_b32(), svdup_n_u32(1), svindex_u32({j * rl}, 1)))"), "|")

    def mask_any(self, m: str) -> str:
        return self._mask_reduce("_exp_mask_any", "int", m, lambda _j, r: f"svptest_any(svptrue_b32(), {r})", "||")

    def mask_all(self, m: str) -> str:
        return self._mask_reduce("_exp_mask_all", "int", m, lambda _j, r: (
            f"!svptest_any(svptrue_b32(), svnot_b_z(svptrue_b32(), {r}))"), "&&")

    # ------------------------------------------------------------------ conversions
    def _widen(self, name: str, s: str, d: str, a: str, fn: Callable[[str, bool], str]) -> str:
        """A gang of 64-bit kind ``d`` from the 32-bit-lane gang ``a`` of kind ``s``: register j is
        ``fn(register j // 2 of a, high half?)``."""
        return self._lift(name, self.vtype(d), self.nregs(d),
                          [Arg(self.vtype(s), a, lambda p, j: self._reg(s, p, j // 2))],
                          lambda j, r: fn(r, j % 2 == 1))

    def _narrow(self, name: str, s: str, d: str, a: str, fn: Callable[[str], str], join: str) -> str:
        """A gang of 32-bit-lane kind ``d`` from the 64-bit gang ``a`` of kind ``s``: register j joins
        (``svuzp1_<join>``: the even 32-bit elements) ``fn`` of registers 2j and 2j + 1 of a."""
        ds = self._sfx(d)

        def reg(j: int, p: str) -> str:
            e = f"svuzp1_{join}({fn(self._reg(s, p, 2 * j))}, {fn(self._reg(s, p, 2 * j + 1))})"
            return self._fix(d, _reinterpret(join, ds, e))
        return self._lift(name, self.vtype(d), self.nregs(d), [Arg(self.vtype(s), a, lambda p, _j: p)], reg)

    def convert(self, src_k: str, dst_k: str, a: str) -> str:
        if src_k == dst_k:
            return a
        s, d = src_k, dst_k
        ss, ds = self._sfx(s), self._sfx(d)
        sw, dw = self.lane_bits(s), self.lane_bits(d)
        name, p64 = f"_exp_cvt_{s}_{d}", "svptrue_b64()"
        if not is_float(s) and not is_float(d):
            if sw == dw:
                sb, db = kind_bits(s), kind_bits(d)
                fits = sb < db and (is_signed(d) or not is_signed(s))
                if ss == ds and (fits or db == sw):
                    return a
                return self._map(name, s, lambda x: _reinterpret(ss, ds, x) if fits or db == sw
                                 else self._fix(d, _reinterpret(ss, ds, x)), a, out_k=d)
            if dw == 64:  # extend by the source's signedness
                s64 = f"{ss[0]}64"
                return self._widen(name, s, d, a, lambda r, hi: _reinterpret(
                    s64, ds, f"svunpk{'hi' if hi else 'lo'}_{s64}({r})"))
            return self._narrow(name, s, d, a, lambda r: _reinterpret(ss, "u32", r), "u32")
        if is_float(s) and is_float(d):
            if s == "f32":  # svcvt_f64_f32 converts the even elements: zip the half in
                return self._widen(name, s, d, a, lambda r, hi: f"svcvt_f64_f32_x({p64}, {_zip(r, hi)})")
            return self._narrow(name, s, d, a, lambda r: f"svcvt_f32_f64_x({p64}, {r})", "f32")
        if not is_float(s):
            if d == "f32" and sw == 32 or sw == 64 and d == "f64":
                return self._map(name, s, lambda x: f"svcvt_{ds}_{ss}_x({self._pg(s)}, {x})", a, out_k=d)
            if sw == 32:  # -> f64: exact through 64-bit integers
                s64 = f"{ss[0]}64"
                return self._widen(name, s, d, a, lambda r, hi: f"svcvt_f64_{s64}_x({p64}, "
                                   f"svunpk{'hi' if hi else 'lo'}_{s64}({r}))")
            # 64-bit -> f32: one rounding (SCVTF to single precision), into the even elements
            return self._narrow(name, s, d, a, lambda r: f"svcvt_f32_{ss}_x({p64}, {r})", "f32")
        # float -> integer: truncation; out-of-range lanes (undefined in C) saturate like AArch64's scalar
        # code (FCVTZS/FCVTZU to the 32- or 64-bit register, then truncated to a narrow kind)
        if s == "f32" and dw == 32 or s == "f64" and dw == 64:
            return self._map(name, s, lambda x: self._fix(d, f"svcvt_{ds}_{ss}_x({self._pg(s)}, {x})"), a, out_k=d)
        if s == "f32":  # -> 64-bit: converts the even elements
            return self._widen(name, s, d, a, lambda r, hi: f"svcvt_{ds}_f32_x({p64}, {_zip(r, hi)})")
        return self._narrow(name, s, d, a, lambda r: f"svcvt_{ds}_f64_x({p64}, {r})", ds)

    def bitcast(self, src_k: str, dst_k: str, a: str) -> str:
        if kind_bits(src_k) != kind_bits(dst_k):
            raise ValueError(f"bitcast {src_k} -> {dst_k}: widths differ")
        if src_k == dst_k:
            return a
        if not is_float(src_k) and not is_float(dst_k):
            return self.convert(src_k, dst_k, a)
        ss, ds = self._sfx(src_k), self._sfx(dst_k)
        return self._map(f"_exp_bitcast_{src_k}_{dst_k}", src_k, lambda x: _reinterpret(ss, ds, x), a, out_k=dst_k)

    # ------------------------------------------------------------------ table reads
    def gather_native(self, k: str, ik: str) -> bool:
        """Gathers of every element kind (bytes and halfwords extended as they load) at any integer index,
        unless the output asked for loads per lane (``emission(gathers=False)``)."""
        return self.use_gathers

    def gather(self, k: str, read: TableRead, mask: str | None = None) -> str:
        """One gather per register: ``svld1_gather_<x>index`` (scaled by the element size; bytes:
        ``svld1sb_gather_<x>offset``) at ``index * stride``, in 32-bit index lanes when ``read.fits32``,
        else in 64-bit ones (32-bit elements then load into 64-bit containers, ``svld1uw``, and are joined
        with ``svuzp1``). Under a mask the predicate is the mask: inactive lanes touch no memory."""
        if read.index is None or not self.gather_native(k, read.ik):
            return super().gather(k, read, mask)
        ck = "i64" if kind_bits(read.ik) == 64 or not read.fits32 else "i32"
        idx = self.convert(read.ik, ck, read.index)
        if read.stride > 1:
            st = read.stride
            idx = (self.shift("<<", ck, idx, str(st.bit_length() - 1), True) if st & (st - 1) == 0
                   else self.binop("*", ck, idx, self.splat(ck, str(st))))
        if read.name is not None and not idx.isidentifier():
            idx = read.name(self.vtype(ck), idx)
        sfx, ib, eb = self._sfx(k), kind_bits(ck), self.lane_bits(k)
        et = scalar_ctype(k)

        def one(b: str, x: str, m: str, ob: int) -> str:
            """One gather of ``ob``-bit containers at index register ``x`` (of ``ob``-bit lanes) under ``m``."""
            xs = f"s{ob}"
            if ob == eb:
                form = _NARROW[k][2].format(x=xs) if self.is_narrow(k) else f"svld1_gather_{xs}index"
                return f"{form}_{sfx}({m}, {b}, {x})"
            # 32-bit elements in 64-bit containers (their bits: svld1uw; narrow kinds extended)
            c = f"{sfx[0]}64" if self.is_narrow(k) else "u64"
            form = _NARROW[k][2].format(x=xs) if self.is_narrow(k) else f"svld1uw_gather_{xs}index"
            return f"{form}_{c}({m}, {b}, {x})"

        def regs(b: str, x: str, m: str | None) -> list[str]:
            out = []
            for j in range(self.nregs(k)):
                mj = self._pg(k) if m is None else self._mask_part(m, k, j)
                if ib == eb:
                    out.append(one(b, self._reg(ck, x, j), mj, eb))
                elif ib == 32:  # 64-bit elements at 32-bit indexes: widen half an index register
                    xj = f"svunpk{'hi' if j % 2 else 'lo'}_s64({self._reg(ck, x, j // 2)})"
                    out.append(one(b, xj, mj, eb))
                else:  # 32-bit elements at 64-bit indexes: two gathers into 64-bit containers, joined
                    c = f"{sfx[0]}64" if self.is_narrow(k) else "u64"
                    h = [one(b, self._reg(ck, x, 2 * j + i), "svptrue_b64()" if m is None else
                             f"svunpk{'hi' if i else 'lo'}_b({mj})", 64) for i in (0, 1)]
                    c32 = f"{c[0]}32"
                    out.append(_reinterpret(c32, sfx, f"svuzp1_{c32}({_reinterpret(c, c32, h[0])}, "
                                                      f"{_reinterpret(c, c32, h[1])})"))
            return out

        if self.is_narrow(k):
            bt = scalar_ctype(k)
        elif ib != eb and eb == 32:
            bt = "uint32_t"
        else:
            bt = et
        base = f"(const {bt} *)({read.base})"
        if self.nregs(k) == 1 and self.nregs(ck) == 1 and ib == eb:
            return regs(base, idx, mask)[0]
        vt = self.vtype(k)
        name = f"_exp_gather_{k}_{ck}{'_masked' if mask is not None else ''}"
        params = [f"const {bt} *b", f"{self.vtype(ck)} x"] + ([f"{self.mask_type()} m"] if mask is not None else [])
        rs = regs("b", "x", None if mask is None else "m")
        if len(rs) == 1:
            self._ret_func(name, vt, params, rs[0])
        else:
            self._func(name, vt, params, f"    {vt} r;\n" + "".join(f"    r.v[{j}] = {e};\n" for j, e in enumerate(rs))
                       + "    return r;\n")
        return f"{name}({', '.join([base, idx] + ([mask] if mask is not None else []))})"

    # ------------------------------------------------------------------ libm operations
    def math(self, op: str, k: str, args: Sequence[str]) -> str:
        """Every operation is one instruction, the SVE form of what GCC makes of the scalar call
        (``SVMATH``; fma: ``svmla``, i.e. FMLA, fused as fmadd is)."""
        check_math(op, k, args)
        pg = self._pg(k)
        if op == "fma":  # svmla(pg, c, a, b) = c + a * b, fused
            return self._map(f"_exp_fma_{k}", k, lambda x, y, z: f"svmla_{k}_x({pg}, {z}, {x}, {y})", *args)
        return self._map(f"_exp_{op}_{k}", k, lambda *xs: f"{SVMATH[op]}_{k}_x({pg}, {', '.join(xs)})", *args)


class Sve128(Sve):
    """SVE with 128-bit registers (4 lanes)."""

    vector_bits = 128
    name = "sve128"


class Sve512(Sve):
    """SVE with 512-bit registers (16 lanes)."""

    vector_bits = 512
    name = "sve512"
