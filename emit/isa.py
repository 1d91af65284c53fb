"""The ISA table contract: everything `expand` knows about a vector instruction set.

The C printer (emit/printer.py) turns each vector operation of the IR into a C expression by
calling one method of an ``Isa`` object. Passes never look at intrinsics: adding an ISA means
adding one module with a subclass of ``Isa``.

Conventions every method follows:

* A *lane kind* ``k`` is one of ``i8 u8 i16 u16 i32 u32 i64 u64 f32 f64`` (see ``lane_kind``).
  Values of integer kinds narrower than 32 bits are held widened (sign- or zero-extended) in
  32-bit lanes, so ``vtype('u8') == vtype('i32')`` on SSE.
* A *gang* is ``self.lanes`` lanes. One gang of kind ``k`` may need several registers (4 doubles on
  SSE = 2 x ``__m128d``); the table hides that behind ``vtype(k)`` (e.g. a struct typedef).
* Arguments are C expression strings of the right vector type (or scalar C expressions where the
  method says so). The result is a C expression string. **Each argument string appears at most
  once in the result**: an implementation that needs an operand twice defines a helper function.
* Helper functions and typedefs go through ``self.need(name, c_text)``; ``prelude()`` returns the
  needed ones in the order they were first needed (a helper that uses another needs it first).
* A *mask* is a gang of booleans of type ``mask_type()``; masks are the same whatever kind of
  values they select. Comparisons return masks.
* Every operation is bit-exact with C's scalar semantics on the same target (GCC, LP64,
  round-to-nearest, -ffp-contract=off), lane by lane, for every input where the scalar C operation
  is defined. Float comparisons follow C: ``!=`` is true on NaN, the others false.
"""

from __future__ import annotations

import copy
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

from expand.ir.cprint import literal_value
from expand.ir.libc import errno_hidden
from expand.ir.nodes import MATH_OPS
from expand.ir.types import CType, Float, Int


class VectorLibrary(Protocol):
    """What the printer asks of the vector math library an output calls (``--vector-math``: the driver
    hands an ``expand.vecmath.VectorMath`` to ``Isa.emission``): C text of calls, never intrinsics."""

    def lookup(self, isa: Isa, name: str, ret_k: str, arg_ks: Sequence[str], exact_only: bool = False) -> object:
        """The library's vector version of libm function ``name`` for these kinds, or None."""

    def call(self, isa: Isa, name: str, ret_k: str, arg_ks: Sequence[str], args: Sequence[str],
             mask: str | None, exact_only: bool = False) -> str | None:
        """A C expression calling the vector version of ``name`` on ``args`` (under ``mask``), or None."""

    def math(self, isa: Isa, op: str, k: str, args: Sequence[str]) -> str | None:
        """An exact library version of the libm operation ``op`` (``Isa.math``'s fallback), or None."""


def lane_kind(t: CType) -> str:
    """The lane kind of scalar C type ``t`` (``_Bool`` is held as u8)."""
    if isinstance(t, Float):
        return f"f{t.bits}"
    if isinstance(t, Int):
        return ("i" if t.signed and not t.is_bool else "u") + str(t.bits)
    raise TypeError(f"no vector lanes for type {t}")


KINDS = ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64")


def kind_bits(k: str) -> int:
    return int(k[1:])


def scalar_ctype(k: str) -> str:
    """The C spelling of one lane of kind ``k`` (stdint names)."""
    return {"f32": "float", "f64": "double"}.get(k) or (
        ("int" if k[0] == "i" else "uint") + k[1:] + "_t"
    )


# --------------------------------------------------------------------------------------------------
# Small helpers on kinds and C text

OPNAMES = {
    "+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem", "&": "and", "|": "or", "^": "xor",
    "<<": "shl", ">>": "shr", "==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge",
}
BINOPS = ("+", "-", "*", "/", "%", "&", "|", "^")
CMPOPS = ("==", "!=", "<", "<=", ">", ">=")
_INT_LITERAL = re.compile(r"\s*(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*\s*")


def is_float(k: str) -> bool:
    """True for the floating kinds ``f32`` and ``f64``."""
    return k[0] == "f"


def is_signed(k: str) -> bool:
    """True for the signed integer kinds."""
    return k[0] == "i"


def uint_kind(k: str) -> str:
    """The unsigned integer kind of the same width as ``k``."""
    return f"u{kind_bits(k)}"


def is_int_literal(text: str) -> bool:
    """True when ``text`` is a plain non-negative C integer literal (usable as an immediate)."""
    return _INT_LITERAL.fullmatch(text) is not None


def _wide_utype(k: str) -> str:
    """The unsigned C type in which C does wrapping arithmetic of kind ``k`` without overflow."""
    return "uint64_t" if kind_bits(k) == 64 else "uint32_t"


def closes_at_end(text: str, start: int) -> bool:
    """The parenthesis at ``text[start]`` closes at the end of ``text``."""
    depth = 0
    for at in range(start, len(text)):
        depth += (text[at] == "(") - (text[at] == ")")
        if depth == 0:
            return at == len(text) - 1
    return False


def negated(cond: str) -> str:
    """``!cond`` for a C condition: ``(!f(x))`` becomes ``f(x)``; a parenthesized one or a call takes a
    plain ``!``."""
    if cond.startswith("(!") and closes_at_end(cond, 0):
        inner = cond[2:-1]
        head = inner.split("(", 1)[0]
        if head.isidentifier() and closes_at_end(inner, len(head)):
            return inner
    head = cond.split("(", 1)[0]
    if cond.startswith("(") and closes_at_end(cond, 0) or head.isidentifier() and closes_at_end(cond, len(head)):
        return f"!{cond}"
    return f"!({cond})"


def check_binop(op: str, k: str) -> None:
    """Reject operators and kinds ``binop`` does not take."""
    if op not in BINOPS:
        raise ValueError(f"unknown binary operator {op!r}")
    if k not in KINDS:
        raise ValueError(f"unknown lane kind {k!r}")
    if is_float(k) and op == "%":
        raise ValueError(f"'%' on {k}")


def check_math(op: str, k: str, args: Sequence[str]) -> None:
    """Reject libm operations, kinds and argument counts ``math`` does not take."""
    if op not in MATH_OPS:
        raise ValueError(f"unknown libm operation {op!r}")
    if not is_float(k):
        raise ValueError(f"{op} on {k}")
    if len(args) != MATH_OPS[op]:
        raise ValueError(f"{op} takes {MATH_OPS[op]} arguments, not {len(args)}")


#: above the prototypes of the vector libm functions an output calls
LIBM_NOTE = ("/* From expand's vector libm: build it with `python -m mathlib.libm --out DIR` and link\n"
             "   DIR/lib/<arch>/libexpandm.a (--vector-math none keeps plain per-lane libm calls). */\n")


@dataclass(frozen=True)
class TableRead:
    """One element per lane read from a table in memory at a varying index (``Isa.gather``).

    Lane l reads ``base[index[l] * stride]``: ``base`` is a scalar C pointer expression to the element
    that index 0 names (``tab``, ``&__logf_data.tab[0].invc``), ``stride`` the elements of that type
    from one index value to the next (a struct's size over its field's, a row's length). ``index`` is
    a gang of integer kind ``ik`` (C text, for the table to use once), or None when the read has no
    single index (only ``lane`` then). ``fits32``: ``index * stride`` is exact as a signed 32-bit
    value in every active lane (the printer proves it from the table's size or the index's bounds), so
    32-bit hardware indexes may hold it. ``lane(l)`` is lane l's read as scalar C, written the way the
    source writes it and safe in every lane (inactive lanes read the element of index 0): the
    per-lane fallback."""

    base: str
    index: str | None
    ik: str
    stride: int
    fits32: bool
    lane: Callable[[int], str]
    #: where the statement reads through the same index more than once (``s[i].a`` and ``s[i].b``): gives a
    #: variable of C type (its first argument) holding the index the gather uses (its second), declared once
    #: before the statement, so that each read reuses it (None: the index is written out in the gather)
    name: Callable[[str, str], str] | None = None

class Isa:
    """A portable vector ISA: every gang is a struct of ``lanes`` scalars and every operation runs
    lane by lane in scalar C.

    Subclasses give their own ``vtype``/``loadu``/``storeu`` (and ``mask_type`` with the
    ``_mask_loadu``/``_mask_storeu`` hooks when masks are not ``vtype('i32')`` gangs of 0/-1) and
    override whatever they do natively; the ``_lanes_*`` fallbacks stay correct by construction
    because they do the scalar C operation on arrays. The printer includes ``<stdint.h>`` itself.
    """

    #: BOSCC cost model (predication/boscc.py): what one all-false test costs, in vector ops, and the
    #: work from which a region with no branch hint is worth a test (None: never; measured per ISA
    #: with ``python -m mathlib.bench``).
    boscc_test_cost: int = 4
    boscc_plain_cost: int | None = None
    #: what one blend (``select``) costs, in vector ops: the all-lanes-on copy of a guarded region
    #: saves it per blend (predication/boscc.py); the all-lanes-on test is ``mask_all``.
    boscc_blend_cost: int = 1

    def boscc_regs(self, t: CType) -> int:
        """Registers one gang of C type ``t`` takes: a blend of it costs this many blends."""
        return 1

    name: str = "generic"
    default_lanes: int = 4
    #: class-level defaults of the per-instance lists ``cflags``, ``headers``, ``cc``, ``run_prefix``
    CFLAGS: ClassVar[tuple[str, ...]] = ()
    HEADERS: ClassVar[tuple[str, ...]] = ()
    CC: ClassVar[tuple[str, ...]] = ("gcc",)
    RUN_PREFIX: ClassVar[tuple[str, ...]] = ()
    #: Flags after ``CFLAGS`` for the scalar reference --verify compares with (expand/check/verify.py):
    #: where the emulator computes an instruction wrong that the compiler may pick for scalar code.
    REFERENCE_CFLAGS: ClassVar[tuple[str, ...]] = ()
    #: The lowest version of the emulator (``RUN_PREFIX[0] --version``) that runs this table's code
    #: right, with why (emit/host.py): () = any.
    RUN_MIN_VERSION: ClassVar[tuple[tuple[int, ...], str] | tuple[()]] = ()
    #: What a user of this table must know before trusting its output without --verify (printed as a
    #: warning by every expand run for it; None: nothing)
    caveat: ClassVar[str | None] = None
    #: Whether the fuzzer may precompile the harness's headers (GCC 12 crashes on arm_sve.h from a PCH).
    precompiled_headers: ClassVar[bool] = True
    #: The CPU flags (as /proc/cpuinfo names them) native code of this table needs (emit/host.py).
    CPU_FEATURES: ClassVar[tuple[str, ...]] = ()
    mask_kind: str = "i32"
    #: Vector function ABI (expand/abi.py): the ISA letter of the mangled names (``_ZGV<letter>...``;
    #: None: GCC 12 has no vector function ABI here); the variant families GCC 12 calls from code
    #: compiled for this ISA, each ``(letter, float vector bits, integer vector bits, full gang)``:
    #: simdlen = vector bits / bits of the characteristic type, and with ``full gang`` also
    #: ``simdlen(lanes)`` (values split over several registers); whether GCC accepts functions mixing
    #: lane widths; and how masked variants take their mask: "vector" (one vector of the
    #: characteristic type per register, lane on iff its bits are nonzero) or "bits" (one
    #: ``unsigned int`` per register of the characteristic type, bit i = lane i).
    abi_letter: str | None = None
    abi_families: tuple[tuple[str, int, int, bool], ...] = ()
    abi_mixed_sizes: bool = True
    abi_mask: str = "vector"
    #: The preprocessor condition under which a translation unit can declare this ISA's variants (and
    #: other functions taking its vector types, such as mathlib's entry points; "": any).
    abi_macro: str = ""
    #: Vector math libraries (expand/vecmath.py): the target architecture of this table's code
    #: (None: the host's, for tables compiled by the host's ``gcc``), whether glibc's libmvec has its
    #: variants (the ``abi_letter`` ones of one register), and SLEEF's name suffix for it
    #: (``Sleef_logf8_u10avx2``; None: SLEEF has none).
    arch: str | None = None
    libmvec: bool = False
    sleef_suffix: str | None = None
    #: Intrinsics written by hand beside the generated code (mathlib/bench.py's instruction column): the
    #: prefix of this ISA's intrinsic names (``"_mm256"``: ``_mm256_andnot_ps``; None: no such family),
    #: whether its float comparisons take a predicate (``_mm256_cmp_ps(a, b, _CMP_GE_OQ)``; else one
    #: intrinsic per comparison, ``_mm_cmpge_ps(a, b)``), and whether they give a mask register
    #: (AVX-512's k registers: ``_mm512_cmp_ps_mask``) rather than lanes of all ones.
    intrinsic_prefix: str | None = None
    cmp_predicate: bool = False
    mask_registers: bool = False
    #: The vector math library of the output being printed (set by ``emission``; None: libm calls
    #: without an instruction run per lane).
    vector_math: VectorLibrary | None = None

    def __init__(self, lanes: int | None = None) -> None:
        self.lanes: int = self.default_lanes if lanes is None else lanes
        if self.lanes < 1:
            raise ValueError(f"bad lane count {self.lanes}")
        self.cflags: list[str] = list(self.CFLAGS)
        self.headers: list[str] = list(self.HEADERS)
        self.cc: list[str] = list(self.CC)
        self.run_prefix: list[str] = list(self.RUN_PREFIX)
        self.reference_cflags: list[str] = list(self.REFERENCE_CFLAGS)
        self._needs: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(lanes={self.lanes})"

    @property
    def clang(self) -> bool:
        """The table's code is compiled by Clang (``cc``), not GCC: its flags and libm semantics differ."""
        return "clang" in self.cc[0].rsplit("/", 1)[-1]

    def errno_hidden(self, func: str) -> bool:
        """The compiler of this table's code (``cc``) takes a call of libm function ``func`` to set no
        errno, though the library may: GCC's list (expand/ir/libc.py errno_hidden). It drops such a
        call whose value is dead, and folds a read of errno after it. Clang takes every libm call
        that may set errno to set it (with -fmath-errno, the Linux default): none is hidden."""
        return not self.clang and errno_hidden(func)

    @property
    def preprocessor(self) -> list[str]:
        """The compiler as the frontends preprocess with it: the ISA's flags and ``-O2``, as the output
        and the scalar code are compiled (expand/check/verify.py), so that both see the same macros
        (``__FP_FAST_FMA`` with AVX2's ``-mfma``, ``__OPTIMIZE__``, ``__AVX2__``, GNU C's ``M_PI``)."""
        return [*self.cc, "-O2", *self.cflags]

    # ------------------------------------------------------------------ prelude
    def need(self, name: str, c_text: str) -> None:
        """Register typedef/helper ``name`` (idempotent; first-need order is kept)."""
        old = self._needs.get(name)
        if old is None:
            self._needs[name] = c_text if c_text.endswith("\n") else c_text + "\n"
        elif old.rstrip("\n") != c_text.rstrip("\n"):
            raise ValueError(f"helper {name} defined twice with different text")

    def prelude(self) -> str:
        """All needed typedefs and helpers, as C text."""
        return "".join(self._needs.values())

    def emission(self, vector_math: VectorLibrary | None = None, gathers: bool = True) -> Isa:
        """A copy of this table for one output, with the output's own state: the helpers and typedefs
        it needs (``need``, ``prelude``), the vector math library it calls and whether table reads use
        the ISA's gather instructions (``gathers``; else one load per lane). The driver takes one per
        module, so expanding never changes the table a caller holds."""
        out = copy.copy(self)
        out._needs = {}
        out.vector_math = vector_math
        out.use_gathers = gathers
        out.start()
        return out

    def start(self) -> None:
        """Need what every output of this table needs (subclasses: a helper of their own)."""

    def _func(self, name: str, ret: str, params: Sequence[str], body: str) -> str:
        """Need the ``static inline`` function ``name``; ``body`` is its indented statements."""
        self.need(name, f"static inline {ret} {name}({', '.join(params) or 'void'})\n{{\n{body}}}\n")
        return name

    def _ret_func(self, name: str, ret: str, params: Sequence[str], expr: str) -> str:
        """Need a one-statement function returning ``expr``."""
        return self._func(name, ret, params, f"    return {expr};\n")

    # ------------------------------------------------------------------ types and memory
    def _array_type(self, k: str) -> str:
        """``typedef struct { T v[lanes]; } _Exp_<k>x<lanes>``: the memory layout of one gang."""
        name = f"_Exp_{k}x{self.lanes}"
        self.need(name, f"typedef struct {{ {scalar_ctype(k)} v[{self.lanes}]; }} {name};\n")
        return name

    def vtype(self, k: str) -> str:
        """C type of a gang of kind ``k``."""
        return self._array_type(k)

    def mtype(self, k: str) -> str:
        """The type a vector pointer parameter points to (layout of ``lanes`` scalars of ``k``)."""
        return self._array_type(k)

    def mask_type(self) -> str:
        """C type of a mask."""
        return self.vtype(self.mask_kind)

    def loadu(self, k: str, ptr: str) -> str:
        """The gang at ``ptr`` (pointer to ``lanes`` scalars of kind ``k``, any alignment)."""
        vt, st = self.vtype(k), scalar_ctype(k)
        name = self._func(f"_exp_loadu_{k}", vt, [f"const {st} *p"],
                          f"    {vt} r;\n    for (int i = 0; i < {self.lanes}; i++)\n"
                          "        r.v[i] = p[i];\n    return r;\n")
        return f"{name}({ptr})"

    def storeu(self, k: str, ptr: str, v: str) -> str:
        """Expression statement storing gang ``v`` to ``lanes`` scalars at ``ptr``."""
        vt, st = self.vtype(k), scalar_ctype(k)
        name = self._func(f"_exp_storeu_{k}", "void", [f"{st} *p", f"{vt} v"],
                          f"    for (int i = 0; i < {self.lanes}; i++)\n        p[i] = v.v[i];\n")
        return f"{name}({ptr}, {v})"

    def load(self, k: str, ptr: str) -> str:
        """The value of ``*ptr`` where ``ptr`` is a ``mtype(k) *``."""
        return self.loadu(k, f"({ptr})->v")

    def store(self, k: str, ptr: str, v: str) -> str:
        """Expression statement storing ``v`` to ``*ptr`` (``ptr`` is a ``mtype(k) *``)."""
        return self.storeu(k, f"({ptr})->v", v)

    def masked_store(self, k: str, ptr: str, v: str, m: str) -> str:
        """Expression statement storing the lanes of ``v`` that are on in mask ``m`` to ``*ptr`` (a
        ``mtype(k) *``, a name), keeping the other lanes' values. Here: load, select, store (tables with
        predicated stores write only the lanes that are on)."""
        return self.store(k, ptr, self.select(k, m, v, self.load(k, ptr)))

    def masked_storeu(self, k: str, ptr: str, v: str, m: str) -> str:
        """``masked_store`` to ``lanes`` scalars of kind ``k`` at ``ptr`` (a name or ``&a[c]``)."""
        return self.storeu(k, ptr, self.select(k, m, v, self.loadu(k, ptr)))

    def _mask_loadu(self, ptr: str) -> str:
        """The mask whose lane i is on iff ``ptr[i]`` (an ``int32_t`` 0 or -1) is nonzero."""
        return self.loadu(self.mask_kind, ptr)

    def _mask_storeu(self, ptr: str, m: str) -> str:
        """Expression statement storing mask ``m`` as ``int32_t`` 0 / -1 lanes to ``ptr``."""
        return self.storeu(self.mask_kind, ptr, m)

    # ------------------------------------------------------------------ lane-by-lane machinery
    def _lanes_fn(self, name: str, out: tuple[str, str], ins: Sequence[tuple[str, str]],
                  loop: str | None, pre: str = "", init: str = "0") -> str:
        """Need a helper working on arrays and return its name.

        ``ins``/``out`` are ``("v", kind)`` gangs, ``("m", "")`` masks or ``("s", ctype)`` scalars.
        Input j is the array ``x<j>`` (scalar inputs: the variable ``x<j>``); the result is the
        array ``r`` (scalar result: the variable ``r``, starting at ``init``). ``pre`` runs before
        the loop over lanes ``i`` whose body is ``loop``.
        """
        n = self.lanes
        params, body = [], ""
        for j, (role, what) in enumerate(ins):
            if role == "v":
                params.append(f"{self.vtype(what)} a{j}")
                body += f"    {scalar_ctype(what)} x{j}[{n}];\n    {self.storeu(what, f'x{j}', f'a{j}')};\n"
            elif role == "m":
                params.append(f"{self.mask_type()} a{j}")
                body += f"    int32_t x{j}[{n}];\n    {self._mask_storeu(f'x{j}', f'a{j}')};\n"
            else:
                params.append(f"{what} x{j}")
        role, what = out
        if role == "v":
            ret, body = self.vtype(what), body + f"    {scalar_ctype(what)} r[{n}];\n"
            tail = f"    return {self.loadu(what, 'r')};\n"
        elif role == "m":
            ret, body = self.mask_type(), body + f"    int32_t r[{n}];\n"
            tail = f"    return {self._mask_loadu('r')};\n"
        else:
            ret, body = what, body + f"    {what} r = {init};\n"
            tail = "    return r;\n"
        body += pre
        if loop is not None:
            body += f"    for (int i = 0; i < {n}; i++)\n        {loop}\n"
        return self._func(name, ret, params, body + tail)

    @staticmethod
    def _scalar_binop(op: str, k: str, x: str, y: str) -> str:
        """C for ``x op y`` on scalars of kind ``k``, wrapping like the vector lanes do."""
        t = scalar_ctype(k)
        if is_float(k):
            return f"{x} {op} {y}"
        if op in "+-*":
            u = _wide_utype(k)
            return f"({t})(({u}){x} {op} ({u}){y})"
        return f"({t})({x} {op} {y})"

    def _lanes_binop(self, op: str, k: str, a: str, b: str) -> str:
        """``binop`` lane by lane."""
        name = self._lanes_fn(f"_exp_{OPNAMES[op]}_{k}_lanes", ("v", k), [("v", k), ("v", k)],
                              f"r[i] = {self._scalar_binop(op, k, 'x0[i]', 'x1[i]')};")
        return f"{name}({a}, {b})"

    def _lanes_shift(self, op: str, k: str, a: str, n: str, n_uniform: bool) -> str:
        """``shift`` lane by lane."""
        t = scalar_ctype(k)
        cnt = "x1" if n_uniform else "x1[i]"
        expr = (f"({t})(({_wide_utype(k)})x0[i] << {cnt})" if op == "<<" else f"({t})(x0[i] >> {cnt})")
        tag = "u" if n_uniform else "v"
        name = self._lanes_fn(f"_exp_{OPNAMES[op]}{tag}_{k}_lanes", ("v", k),
                              [("v", k), ("s", "int") if n_uniform else ("v", k)], f"r[i] = {expr};")
        return f"{name}({a}, {n})"

    def _lanes_unop(self, op: str, k: str, a: str) -> str:
        """``unop`` lane by lane."""
        t = scalar_ctype(k)
        if op == "-":
            expr = "-x0[i]" if is_float(k) else f"({t})-({_wide_utype(k)})x0[i]"
        else:
            expr = f"({t})~x0[i]"
        name = self._lanes_fn(f"_exp_{'neg' if op == '-' else 'not'}_{k}_lanes", ("v", k), [("v", k)],
                              f"r[i] = {expr};")
        return f"{name}({a})"

    def _lanes_cmp(self, op: str, k: str, a: str, b: str) -> str:
        """``cmp`` lane by lane."""
        name = self._lanes_fn(f"_exp_{OPNAMES[op]}_{k}_lanes", ("m", ""), [("v", k), ("v", k)],
                              f"r[i] = x0[i] {op} x1[i] ? -1 : 0;")
        return f"{name}({a}, {b})"

    def _lanes_select(self, k: str, m: str, a: str, b: str) -> str:
        """``select`` lane by lane."""
        name = self._lanes_fn(f"_exp_select_{k}_lanes", ("v", k), [("m", ""), ("v", k), ("v", k)],
                              "r[i] = x0[i] ? x1[i] : x2[i];")
        return f"{name}({m}, {a}, {b})"

    def _lanes_convert(self, src_k: str, dst_k: str, a: str) -> str:
        """``convert`` lane by lane."""
        name = self._lanes_fn(f"_exp_cvt_{src_k}_{dst_k}_lanes", ("v", dst_k), [("v", src_k)],
                              f"r[i] = ({scalar_ctype(dst_k)})x0[i];")
        return f"{name}({a})"

    # ------------------------------------------------------------------ gang construction
    def splat(self, k: str, scalar: str) -> str:
        """A gang with every lane equal to the scalar C expression ``scalar``."""
        name = self._lanes_fn(f"_exp_splat_{k}_lanes", ("v", k), [("s", scalar_ctype(k))], "r[i] = x0;")
        return f"{name}({scalar})"

    def build(self, k: str, scalars: Sequence[str]) -> str:
        """A gang with lane i equal to ``scalars[i]`` (each evaluated once)."""
        if len(scalars) != self.lanes:
            raise ValueError(f"build needs {self.lanes} scalars, got {len(scalars)}")
        name = self._lanes_fn(f"_exp_build_{k}_lanes", ("v", k), [("s", scalar_ctype(k))] * self.lanes, None,
                              pre="".join(f"    r[{i}] = x{i};\n" for i in range(self.lanes)))
        return f"{name}({', '.join(scalars)})"

    def extract(self, k: str, v: str, lane: int) -> str:
        """Lane ``lane`` of gang ``v`` (a variable) as a scalar C expression."""
        if not 0 <= lane < self.lanes:
            raise ValueError(f"lane {lane} out of range")
        name = self._lanes_fn(f"_exp_extract_{k}_lanes", ("s", scalar_ctype(k)), [("v", k), ("s", "int")],
                              None, pre="    r = x0[x1];\n")
        return f"{name}({v}, {lane})"

    # ------------------------------------------------------------------ table reads
    use_gathers: bool = True  # (``emission``: this output's choice; ``GatherInstructions`` reads it)

    def gather_native(self, k: str, ik: str) -> bool:
        """True when ``gather`` reads gangs of kind ``k`` at indexes of kind ``ik`` with the ISA's gather
        instructions (it then uses ``read.base`` and ``read.index``, which the caller must give); False
        (here): it builds the gang lane by lane from ``read.lane``."""
        return False

    def gather(self, k: str, read: TableRead, mask: str | None = None) -> str:
        """The gang of kind ``k`` whose lane l is the element ``read`` names for lane l, bit for bit (a
        gather moves bits: NaN payloads and signalling NaNs stay). ``mask``: the lanes that read (None:
        all); the other lanes' results are unspecified and a native gather touches no memory for them.

        Fallback: ``build`` of the lanes' scalar reads ``read.lane(l)`` (which read index 0 in inactive
        lanes), as many scalar loads as lanes."""
        return self.build(k, [read.lane(lane) for lane in range(self.lanes)])

    def small_table_max(self, k: str) -> int:
        """The most elements of kind ``k`` a table may have for ``small_table`` to read it (0, here:
        none: in-register permutes are no better than loads per lane on this ISA)."""
        return 0

    def pair_select_pays(self, k: str) -> bool:
        """A read of a table of two elements of kind ``k`` at a varying index is better as the two
        elements broadcast and a select than as loads per lane (here: yes)."""
        return True

    def small_table(self, k: str, base: str, n: int, index: str) -> str:
        """The gang of kind ``k`` whose lane l is ``base[index[l]]``, from the ``n`` elements at ``base``
        (``n`` <= ``small_table_max(k)``), which a table with permutes holds in registers and picks by
        in-register permutes. ``index``: a gang of kind ``table_index_kind(k)``; in active lanes in
        [0, n); in other lanes any value (their result is unspecified; no memory but the ``n``
        elements is touched). Here: lane by lane, an index outside [0, n) reading element 0."""
        ik = self.table_index_kind(k)
        name = self._lanes_fn(f"_exp_small_table_{k}_{n}_lanes", ("v", k), [("s", "const void *"), ("v", ik)],
                              f"r[i] = ((const {scalar_ctype(k)} *)x0)[(uint64_t)x1[i] < {n}u ? x1[i] : 0];")
        return f"{name}({base}, {index})"

    def table_index_kind(self, k: str) -> str:
        """The kind of ``small_table``'s index gang: as wide as the elements."""
        return "i64" if kind_bits(k) == 64 else "i32"

    # ------------------------------------------------------------------ arithmetic
    def binop(self, op: str, k: str, a: str, b: str) -> str:
        """``a op b`` lane by lane with C semantics on kind ``k`` (integer + - * wrap).

        On float kinds ``& | ^`` act on the bit patterns; ``%`` is rejected.
        """
        check_binop(op, k)
        if is_float(k) and op in "&|^":
            u = uint_kind(k)
            return self.bitcast(u, k, self.binop(op, u, self.bitcast(k, u, a), self.bitcast(k, u, b)))
        return self._lanes_binop(op, k, a, b)

    def shift(self, op: str, k: str, a: str, n: str, n_uniform: bool) -> str:
        """``a op n`` (``<<`` or ``>>``, arithmetic for signed kinds); ``n`` is a scalar int when
        ``n_uniform``, else a gang of kind ``k``; counts are in [0, bits)."""
        if op not in ("<<", ">>") or is_float(k):
            raise ValueError(f"shift {op!r} on {k}")
        return self._lanes_shift(op, k, a, n, n_uniform)

    def shift_count(self, k: str, n: str, n_uniform: bool) -> str:
        """Count ``n`` of a ``shift`` on kind ``k`` (as ``shift`` takes it: a scalar int when ``n_uniform``, else
        a gang of ``k``) that may be out of [0, bits) in some lane: in lanes the scalar code did not shift in
        (inactive ones, or all of them where a shift runs under a mask no lane is on), which hold any value.
        Made a count ``shift`` may take: this fallback's ``shift`` is C's operators lane by lane
        (``_lanes_shift``), undefined for such a count (Clang makes poison of it, and of what it touches), so
        the count is masked into [0, bits): the same value wherever the scalar code's shift was defined. The
        printer calls this for each count not known to be in range; tables whose shifts give every count a
        value (the intrinsics: ``RegIsa``) return ``n``."""
        w = max(32, kind_bits(k)) - 1  # (narrow lanes shift as int, as C promotes them)
        if n_uniform:
            return f"(({n}) & {w})"
        return self.binop("&", k, n, self.splat(k, str(w)))

    def unop(self, op: str, k: str, a: str) -> str:
        """``-a`` (wrapping for integers, sign flip for floats) or ``~a`` (integers only)."""
        if op not in ("-", "~") or (op == "~" and is_float(k)):
            raise ValueError(f"unary {op!r} on {k}")
        return self._lanes_unop(op, k, a)

    # ------------------------------------------------------------------ comparisons and masks
    def cmp(self, op: str, k: str, a: str, b: str) -> str:
        """The mask of ``a op b`` (floats: ordered except ``!=``)."""
        if op not in CMPOPS:
            raise ValueError(f"unknown comparison {op!r}")
        return self._lanes_cmp(op, k, a, b)

    def select(self, k: str, m: str, a: str, b: str) -> str:
        """Lane i is ``m ? a : b``."""
        return self._lanes_select(k, m, a, b)

    def minmax(self, op: str, k: str, a: str, b: str) -> str | None:
        """Lane i is ``a < b ? a : b`` (``op`` "min") or ``a > b ? a : b`` ("max") bit for bit, as one
        instruction where the ISA has one that computes exactly that (floats: a NaN, or operands that
        compare equal such as -0 and +0, give ``b``, as x86's minps/maxps do); None where it has none
        (the caller compares and selects)."""
        return None

    def mask_const(self, value: bool) -> str:
        """The all-on (``True``) or all-off mask."""
        v = "-1" if value else "0"
        return self._mask_loadu(f"(const int32_t[{self.lanes}]){{{', '.join([v] * self.lanes)}}}")

    def _lanes_mask2(self, op: str, a: str, b: str) -> str:
        name = self._lanes_fn(f"_exp_mask_{OPNAMES.get(op, 'andnot')}_lanes", ("m", ""), [("m", ""), ("m", "")],
                              f"r[i] = {'x0[i] & ~x1[i]' if op == '&~' else f'x0[i] {op} x1[i]'};")
        return f"{name}({a}, {b})"

    def mask_and(self, a: str, b: str) -> str:
        """Lanes on in both masks."""
        return self._lanes_mask2("&", a, b)

    def mask_or(self, a: str, b: str) -> str:
        """Lanes on in either mask."""
        return self._lanes_mask2("|", a, b)

    def mask_xor(self, a: str, b: str) -> str:
        """Lanes on in exactly one mask."""
        return self._lanes_mask2("^", a, b)

    def mask_andnot(self, a: str, b: str) -> str:
        """Lanes on in ``a`` and off in ``b``."""
        return self._lanes_mask2("&~", a, b)

    def mask_not(self, a: str) -> str:
        """The complement of mask ``a``."""
        name = self._lanes_fn("_exp_mask_not_lanes", ("m", ""), [("m", "")], "r[i] = ~x0[i];")
        return f"{name}({a})"

    def mask_to_int(self, m: str) -> str:
        """A gang of kind i32 holding 1 in the lanes that are on, else 0."""
        name = self._lanes_fn("_exp_mask_to_int_lanes", ("v", "i32"), [("m", "")], "r[i] = x0[i] != 0;")
        return f"{name}({m})"

    def same_index(self, ik: str, idx: str, first: str, mask: str | None) -> str:
        """Scalar int: every lane on under ``mask`` (None: every lane) holds in the gang ``idx`` (kind ``ik``,
        32-bit lanes) the index of the gang ``first``, whose lanes all hold lane 0's."""
        eq = self.cmp("==", ik, idx, first)
        return self.mask_all(eq) if mask is None else negated(self.mask_any(self.mask_andnot(mask, eq)))

    def mask_bits(self, m: str) -> str:
        """Scalar ``unsigned`` with bit i set iff lane i is on."""
        name = self._lanes_fn("_exp_mask_bits_lanes", ("s", "unsigned"), [("m", "")],
                              "r |= (unsigned)(x0[i] != 0) << i;")
        return f"{name}({m})"

    def mask_any(self, m: str) -> str:
        """Scalar int: some lane is on."""
        name = self._lanes_fn("_exp_mask_any_lanes", ("s", "int"), [("m", "")], "r |= x0[i] != 0;")
        return f"{name}({m})"

    def mask_all(self, m: str) -> str:
        """Scalar int: every lane is on."""
        name = self._lanes_fn("_exp_mask_all_lanes", ("s", "int"), [("m", "")], "r &= x0[i] != 0;", init="1")
        return f"{name}({m})"

    def int_to_mask(self, k: str, a: str) -> str:
        """The mask of ``a != 0``."""
        return self.cmp("!=", k, a, self.splat(k, "0"))

    # ------------------------------------------------------------------ calls of vector functions
    def vector_call(self, name: str, masked: str | None, simdlen: int, ret_k: str, arg_ks: Sequence[str],
                    args: Sequence[str], mask: str | None = None) -> str | None:
        """A call of the external vector function ``name`` of ``simdlen`` lanes (a vector math
        library's), which takes and returns vectors of this table's types at ``simdlen`` lanes, on the
        gangs ``args`` of kinds ``arg_ks``; with ``mask`` (a mask of this gang) and a ``masked`` entry
        point ``masked(mask, args...)``, inactive lanes compute nothing. Declares the prototype (in the
        prelude). None when this table cannot split its gangs into calls of ``simdlen`` lanes (the
        caller then calls the scalar function per lane). Here: only gangs of exactly ``simdlen``."""
        if self.lanes != simdlen or any(kind_bits(k) < 32 for k in (ret_k, *arg_ks)):
            return None
        use_mask = mask is not None and masked is not None
        fn = masked if use_mask else name
        params = ([self.mask_type()] if use_mask else []) + [self.vtype(k) for k in arg_ks]
        self.need("_exp_extern_note", LIBM_NOTE)
        self.need(f"_exp_extern_{fn}", f"extern {self.vtype(ret_k)} {fn}({', '.join(params)});\n")
        return f"{fn}({', '.join(([mask] if use_mask else []) + list(args))})"

    def vector_call_stores(self, name: str, masked: str, k: str, arg: str, outs: Sequence[str],
                           mask: str | None) -> str | None:
        """A call of the external vector function ``name`` (a vector math library's ``sincosf``) on the
        gang ``arg`` of kind ``k`` at this table's natural gang size, which stores its results through
        the pointers ``outs`` to vectors of that kind; with ``mask``, ``masked(mask, arg, outs...)``,
        which leaves inactive lanes alone. Declares the prototype. None for another gang size."""
        if kind_bits(k) != 32 or self.lanes != type(self).default_lanes:
            return None
        fn = masked if mask is not None else name
        params = ([self.mask_type()] if mask is not None else []) + [self.vtype(k)] \
            + [f"{self.vtype(k)} *"] * len(outs)
        self.need("_exp_extern_note", LIBM_NOTE)
        self.need(f"_exp_extern_{fn}", f"extern void {fn}({', '.join(params)});\n")
        return f"{fn}({', '.join(([mask] if mask is not None else []) + [arg, *outs])})"

    # ------------------------------------------------------------------ conversions
    def convert(self, src_k: str, dst_k: str, a: str) -> str:
        """C's conversion of each lane from ``src_k`` to ``dst_k``."""
        if src_k == dst_k:
            return a
        return self._lanes_convert(src_k, dst_k, a)

    def bitcast(self, src_k: str, dst_k: str, a: str) -> str:
        """Reinterpret the bits of each lane (same width kinds)."""
        if kind_bits(src_k) != kind_bits(dst_k):
            raise ValueError(f"bitcast {src_k} -> {dst_k}: widths differ")
        if src_k == dst_k:
            return a
        name = self._lanes_fn(f"_exp_bitcast_{src_k}_{dst_k}_lanes", ("v", dst_k), [("v", src_k)], None,
                              pre="    __builtin_memcpy(r, x0, sizeof r);\n")
        return f"{name}({a})"

    # ------------------------------------------------------------------ libm operations
    def math(self, op: str, k: str, args: Sequence[str]) -> str:
        """The libm function ``op`` (a key of ``expand.ir.nodes.MATH_OPS``: ``sqrt``, ``floor``, ``fmin``,
        ``fma``, ...; ``sqrtf`` on f32, ``sqrt`` on f64) of the float gangs ``args``, lane by lane
        bit-exact with the scalar call compiled with this table's flags (errno is not set).

        Fallback: the vector math library's exact version (``vector_math``, e.g. ``_Exp_floorf_generic``)
        if it has one, else the call in every lane (its ``__builtin_`` spelling: no prototype needed). GCC
        takes fmin, fmax and fma's multiplicands as commutative and orders a call's operands its own
        way once the lanes' loads are inlined, so those go through a scalar wrapper that is never
        inlined: the operands stay in the order written (which decides the sign of fmin(-0, +0)
        and which NaN comes out). Tables override an operation only with a form that gives the
        scalar call's bits, NaN payloads and the sign of zero included."""
        check_math(op, k, args)
        if self.vector_math is not None:  # the vector math library's exact version, if it has one
            text = self.vector_math.math(self, op, k, args)
            if text is not None:
                return text
        t = scalar_ctype(k)
        fn = f"__builtin_{op}{'f' if k == 'f32' else ''}"
        if op in ("fmin", "fmax", "fma"):
            xs, call = "xyz"[:len(args)], f"_exp_{op}{'f' if k == 'f32' else ''}_call"
            self.need(call, f"static __attribute__((noinline)) {t} {call}({', '.join(f'{t} {x}' for x in xs)})\n"
                            f"{{\n    return {fn}({', '.join(xs)});\n}}\n")
            fn = call
        xs = ", ".join(f"x{j}[i]" for j in range(len(args)))
        name = self._lanes_fn(f"_exp_{op}_{k}_lanes", ("v", k), [("v", k)] * len(args), f"r[i] = {fn}({xs});")
        return f"{name}({', '.join(args)})"

    def _fminmax(self, op: str, k: str, x: str, y: str, ties_to_x: bool) -> str:
        """``fmin``/``fmax`` from comparisons and selects, as glibc's scalar code computes it:
        ``x < y ? x : y`` (``x <= y`` with ``ties_to_x``: which of -0 and +0 comes out); a quiet NaN
        operand gives the other operand (two quiet NaNs: ``x``); a signalling NaN operand gives
        ``x + y``, which is the first NaN operand, quieted. That NaN is picked by a select and
        quieted with an or: GCC takes ``+`` as commutative and may swap the operands of the add."""
        lt = {"fmin": "<=" if ties_to_x else "<", "fmax": ">=" if ties_to_x else ">"}[op]
        u = uint_kind(k)
        quiet = "0x00400000" if k == "f32" else "0x0008000000000000"
        vt, mt = self.vtype(k), self.mask_type()

        def snan(v: str) -> str:
            quiet_clear = self.cmp("==", u, self.binop("&", u, self.bitcast(k, u, v), self.splat(u, quiet)),
                                   self.splat(u, "0"))
            return self.mask_and(self.cmp("!=", k, v, v), quiet_clear)

        first_nan = self.select(k, self.cmp("!=", k, "x", "x"), "x", "y")
        quieted = self.bitcast(u, k, self.binop("|", u, self.bitcast(k, u, first_nan), self.splat(u, quiet)))
        body = (f"    /* ordered: x {lt} y ? x : y; y a NaN: x; a signalling NaN: x + y, the first NaN quieted */\n"
                f"    {vt} r = {self.select(k, self.cmp(lt, k, 'x', 'y'), 'x', 'y')};\n"
                f"    r = {self.select(k, self.cmp('!=', k, 'y', 'y'), 'x', 'r')};\n"
                f"    {mt} s = {self.mask_or(snan('x'), snan('y'))};\n"
                f"    return {self.select(k, 's', quieted, 'r')};\n")
        name = self._func(f"_exp_{op}_{k}", vt, [f"{vt} x", f"{vt} y"], body)
        return f"{name}({x}, {y})"


@dataclass
class Arg:
    """One argument of a register-wise helper: its C type, the caller's expression, and how to get
    register ``j`` from the parameter named ``p`` (default: the parameter itself)."""

    ctype: str
    expr: str
    part: Callable[[str, int], str] | None = None


class RegIsa(Isa):
    """An ISA of ``reg_bits``-wide registers. Integer kinds narrower than 32 bits live widened in
    32-bit lanes; a gang needing several registers is ``typedef struct { R v[n]; }``.

    Subclasses give ``regtype`` and ``_reg_loadu``/``_reg_storeu`` for one register (plus the narrow
    kinds' loads/stores), then override operations using ``_map``/``_lift`` for the per-register
    plumbing.
    """

    reg_bits: int = 128

    def shift_count(self, k: str, n: str, n_uniform: bool) -> str:
        """``n`` itself: every ``RegIsa`` table shifts with intrinsics, which give each count a value (x86: 0 or
        the sign from the width on; NEON: a negative count shifts the other way; AltiVec: the count modulo the
        width; SVE: 0 or the sign), so an inactive lane's count out of range is no undefined behaviour."""
        return n

    def _scalar(self, k: str, text: str) -> str:
        """``text`` as a lane value of integer kind ``k`` (cast unless a literal already in range)."""
        if is_float(k):
            return text
        v = literal_value(text.strip())
        lo = -(1 << (kind_bits(k) - 1)) if is_signed(k) else 0
        if v is not None and lo <= v < lo + (1 << kind_bits(k)):
            return text.strip()
        return f"({scalar_ctype(k)})({text})"

    def regtype(self, k: str) -> str:
        """C type of one register of kind ``k``."""
        raise NotImplementedError

    def lane_bits(self, k: str) -> int:
        """Bits one lane of kind ``k`` takes in a register."""
        return max(32, kind_bits(k))

    def nregs(self, k: str) -> int:
        """Registers in one gang of kind ``k``."""
        return max(1, self.lanes * self.lane_bits(k) // self.reg_bits)

    def boscc_regs(self, t: CType) -> int:
        if not isinstance(t, (Int, Float)):  # pointers, masks: one register or none
            return 1
        return self.nregs(lane_kind(t))

    def pair_select_pays(self, k: str) -> bool:
        """With four or more lanes to a register: a register's select of two broadcasts (and the mask
        widened to its lanes) against that many loads; with two (doubles on SSE, NEON, AltiVec), the
        loads (glibc's sinf on SSE4.1: 65.3 instructions per element with the select, 61.0 without)."""
        return self.reg_lanes(k) >= 4

    def reg_lanes(self, k: str) -> int:
        """Lanes of kind ``k`` in one register."""
        return self.lanes // self.nregs(k)

    @staticmethod
    def is_narrow(k: str) -> bool:
        """Integer kinds held widened in 32-bit lanes."""
        return kind_bits(k) < 32

    def vtype(self, k: str) -> str:
        n = self.nregs(k)
        rt = self.regtype(k)
        if n == 1:
            return rt
        name = f"_Exp_{k[0] if is_float(k) else 'i'}{self.lane_bits(k)}x{self.lanes}"
        self.need(name, f"typedef struct {{ {rt} v[{n}]; }} {name};\n")
        return name

    def mtype(self, k: str) -> str:
        return self._array_type(k) if self.is_narrow(k) else self.vtype(k)

    def load(self, k: str, ptr: str) -> str:
        return super().load(k, ptr) if self.is_narrow(k) else f"(*({ptr}))"

    def store(self, k: str, ptr: str, v: str) -> str:
        return super().store(k, ptr, v) if self.is_narrow(k) else f"*({ptr}) = ({v})"

    def _reg_loadu(self, k: str, ptr: str) -> str:
        """One register of kind ``k`` from ``reg_lanes(k)`` scalars at ``ptr``."""
        raise NotImplementedError

    def _reg_storeu(self, k: str, ptr: str, v: str) -> str:
        """Store register ``v`` of kind ``k`` to ``reg_lanes(k)`` scalars at ``ptr``."""
        raise NotImplementedError

    def loadu(self, k: str, ptr: str) -> str:
        n = self.nregs(k)
        if n == 1:
            return self._reg_loadu(k, ptr)
        vt, rl = self.vtype(k), self.reg_lanes(k)
        body = f"    {vt} r;\n" + "".join(
            f"    r.v[{j}] = {self._reg_loadu(k, f'p + {j * rl}' if j else 'p')};\n" for j in range(n))
        name = self._func(f"_exp_loadu_{k}", vt, [f"const {scalar_ctype(k)} *p"], body + "    return r;\n")
        return f"{name}({ptr})"

    def storeu(self, k: str, ptr: str, v: str) -> str:
        n = self.nregs(k)
        if n == 1:
            return self._reg_storeu(k, ptr, v)
        rl = self.reg_lanes(k)
        body = "".join(f"    {self._reg_storeu(k, f'p + {j * rl}' if j else 'p', f'v.v[{j}]')};\n"
                       for j in range(n))
        name = self._func(f"_exp_storeu_{k}", "void", [f"{scalar_ctype(k)} *p", f"{self.vtype(k)} v"], body)
        return f"{name}({ptr}, {v})"

    # ------------------------------------------------------------------ per-register plumbing
    def gang_arg(self, k: str, expr: str) -> Arg:
        """An ``Arg`` for gang ``expr`` of kind ``k``, split register by register."""
        if self.nregs(k) == 1:
            return Arg(self.vtype(k), expr)
        return Arg(self.vtype(k), expr, lambda p, j: f"{p}.v[{j}]")

    def _mask_part(self, m: str, k: str, j: int) -> str:
        """Register ``j`` of a gang of kind ``k`` worth of mask ``m`` (lanes as wide as k's)."""
        raise NotImplementedError

    def mask_arg(self, k: str, expr: str) -> Arg:
        """An ``Arg`` for mask ``expr`` used to select gangs of kind ``k``."""
        if self.nregs(k) == 1:
            return Arg(self.mask_type(), expr)
        return Arg(self.mask_type(), expr, lambda p, j: self._mask_part(p, k, j))

    def _lift(self, name: str, out_type: str, nout: int, args: Sequence[Arg],
              fn: Callable[..., str]) -> str:
        """Apply ``fn(j, reg_0, reg_1, ...)`` (one register of the result from register ``j`` of each
        argument) to produce ``nout`` registers of type ``out_type``; inline when that is a single
        register built from whole arguments, else through the helper ``name``."""
        if nout == 1 and all(a.part is None for a in args):
            return fn(0, *(a.expr for a in args))

        def regs(j: int) -> list[str]:
            return [a.part(f"a{i}", j) if a.part else f"a{i}" for i, a in enumerate(args)]

        params = [f"{a.ctype} a{i}" for i, a in enumerate(args)]
        if nout == 1:
            body = f"    return {fn(0, *regs(0))};\n"
        else:
            body = f"    {out_type} r;\n" + "".join(
                f"    r.v[{j}] = {fn(j, *regs(j))};\n" for j in range(nout)) + "    return r;\n"
        self._func(name, out_type, params, body)
        return f"{name}({', '.join(a.expr for a in args)})"

    def _small_table_gang(self, k: str, n: int, base: str, index: str, body: str) -> str:
        """``small_table``'s gang from ``body``, the C of one register of result from the table at ``b``
        and one register of index ``i`` (the ISA's permutes), as a helper applied register by register."""
        reg = self._func(f"_exp_small_table_{k}_{n}", self.regtype(k), ["const void *b", f"{self.regtype('i32')} i"],
                         body)
        return self._lift(f"_exp_small_table_{k}_{n}_gang", self.vtype(k), self.nregs(k),
                          [Arg("const void *", base), self.gang_arg(self.table_index_kind(k), index)],
                          lambda _j, b, i: f"{reg}({b}, {i})")

    def _map(self, name: str, k: str, fn: Callable[..., str], *gangs: str, out_k: str | None = None) -> str:
        """Apply ``fn(reg, reg, ...)`` register-wise to gangs of kind ``k`` (same register count as
        the result, of kind ``out_k``)."""
        ok = out_k or k
        return self._lift(name, self.vtype(ok), self.nregs(ok), [self.gang_arg(k, g) for g in gangs],
                          lambda _j, *regs: fn(*regs))

    def vector_call(self, name: str, masked: str | None, simdlen: int, ret_k: str, arg_ks: Sequence[str],
                    args: Sequence[str], mask: str | None = None) -> str | None:
        """One call per register: a function of ``simdlen`` lanes takes one register per argument
        (``regtype``) and returns one; a masked one takes the register's part of the mask first, in
        the type of this ISA's mask at its natural gang size (32-bit lanes only). A gang of several
        registers (``--lanes 16`` on AVX2, doubles) makes one call per register."""
        kinds = (ret_k, *arg_ks)
        if any(self.is_narrow(k) or self.reg_lanes(k) != simdlen for k in kinds):
            return None
        use_mask = mask is not None and masked is not None and self.lane_bits(ret_k) == 32
        fn = masked if use_mask else name
        params = [self.regtype(k) for k in arg_ks]
        if use_mask:
            natural = type(self)()
            params.insert(0, natural.mask_type())
            for n, text in natural._needs.items():  # (its typedef before the declaration: SVE's _Exp_sv_bool)
                self.need(n, text)
        self.need("_exp_extern_note", LIBM_NOTE)
        self.need(f"_exp_extern_{fn}", f"extern {self.regtype(ret_k)} {fn}({', '.join(params)});\n")
        gangs = [self.gang_arg(k, a) for k, a in zip(arg_ks, args)]
        if use_mask:
            gangs.insert(0, self.mask_arg(ret_k, mask))
        return self._lift(f"_exp_call_{fn}", self.vtype(ret_k), self.nregs(ret_k), gangs,
                          lambda _j, *regs: f"{fn}({', '.join(regs)})")


class GatherInstructions(ABC):
    """The gather instructions of a register table (AVX2, AVX-512), mixed in before ``RegIsa``:
    ``gather`` reads with them where ``gather_native`` allows, else falls back to ``Isa.gather``'s
    lane-by-lane reads. The table gives the four hooks below (its intrinsics)."""

    def gather_native(self, k: str, ik: str) -> bool:
        """Gathers of 32- and 64-bit elements at any integer index (no byte or halfword gathers), unless
        the output asked for loads per lane (``emission(gathers=False)``)."""
        return self.use_gathers and not self.is_narrow(k)

    def gather(self, k: str, read: TableRead, mask: str | None = None) -> str:
        """With gather instructions: one per register of the result, reading address ``base + index *
        scale`` with the largest scale (1, 2, 4 or 8) that divides the stride in bytes; the index is
        multiplied by the rest first. A 32-bit index that might not hold ``index * stride`` as a signed
        32-bit value (``read.fits32`` false) is widened to 64 bits first: then every value is exact, as
        C's pointer arithmetic is. Under a mask the masked form: inactive lanes touch no memory."""
        if read.index is None or not self.gather_native(k, read.ik):
            return super().gather(k, read, mask)
        nbytes = read.stride * kind_bits(k) // 8
        scale = next(s for s in (8, 4, 2, 1) if nbytes % s == 0)
        mult = nbytes // scale
        ik, idx = read.ik, read.index
        if kind_bits(ik) < 64 and not read.fits32:
            wide = "i64" if is_signed(ik) else "u64"
            idx, ik = self.convert(ik, wide, idx), wide
        ck = "i64" if kind_bits(ik) == 64 else "i32"  # (the narrow kinds live in 32-bit lanes)
        if mult > 1:
            idx = (self.shift("<<", ck, idx, str(mult.bit_length() - 1), True) if mult & (mult - 1) == 0
                   else self.binop("*", ck, idx, self.splat(ck, str(mult))))
        if read.name is not None and not idx.isidentifier():
            idx = read.name(self.vtype(ck), idx)
        ib, eb, nk, ni = kind_bits(ck), self.lane_bits(k), self.nregs(k), self.nregs(ck)

        def regs(b: str, x: str, m: str | None) -> list[str]:
            def xr(j: int) -> str:
                return x if ni == 1 else f"{x}.v[{j}]"

            out = []
            for j in range(nk):
                mj = None if m is None else self._mask_part(m, k, j)
                if ib == eb:  # as many lanes per index register as per element register
                    out.append(self._gather_op(k, ib, b, xr(j), mj, scale, False))
                elif ib == 32:  # 64-bit elements at 32-bit indexes: half an index register each
                    out.append(self._gather_op(k, 32, b, self._gather_index_half(xr(j // 2), j % 2), mj, scale,
                                               False))
                else:  # 32-bit elements at 64-bit indexes: two half-width gathers joined
                    out.append(self._gather_join(k, *(
                        self._gather_op(k, 64, b, xr(2 * j + h), None if mj is None else self._gather_mask_half(mj, h),
                                        scale, True) for h in (0, 1))))
            return out

        if nk == 1 and ni == 1 and ib == eb:  # one instruction: on the arguments themselves
            return regs(read.base, idx, mask)[0]
        vt = self.vtype(k)
        name = f"_exp_gather_{k}_{ck}_x{scale}{'_masked' if mask is not None else ''}"
        params = ["const void *b", f"{self.vtype(ck)} x"] + ([f"{self.mask_type()} m"] if mask is not None else [])
        rs = regs("b", "x", None if mask is None else "m")
        if nk == 1:
            self._ret_func(name, vt, params, rs[0])
        else:
            self._func(name, vt, params, f"    {vt} r;\n" + "".join(f"    r.v[{j}] = {e};\n" for j, e in enumerate(rs))
                       + "    return r;\n")
        return f"{name}({', '.join([read.base, idx] + ([mask] if mask is not None else []))})"

    @abstractmethod
    def _gather_op(self, k: str, ib: int, base: str, x: str, m: str | None, scale: int, half: bool) -> str:
        """One gather instruction: elements of kind ``k`` at ``base`` + index register ``x`` (of
        ``ib``-bit lanes) * ``scale``; under the register mask ``m`` (as ``_mask_part`` gives it; for a
        ``half`` gather as ``_gather_mask_half`` gives it) the masked form with 0 in inactive lanes.
        ``half``: 32-bit elements at 64-bit indexes, half a register of results."""

    @abstractmethod
    def _gather_index_half(self, x: str, h: int) -> str:
        """Half ``h`` of the 32-bit index register ``x`` (the indexes of one register of 64-bit elements)."""

    @abstractmethod
    def _gather_mask_half(self, m: str, h: int) -> str:
        """Half ``h`` of register mask ``m`` of 32-bit lanes, as a half-width gather takes it."""

    @abstractmethod
    def _gather_join(self, k: str, lo: str, hi: str) -> str:
        """One register of 32-bit kind ``k`` from the half-width gathers ``lo`` and ``hi``."""
