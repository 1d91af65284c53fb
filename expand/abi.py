"""Calling expanded code from ordinary C: vector function ABI names, ``declare simd`` headers and
array wrappers (``--abi``, ``--header``, ``--wrapper array``).

The expanded function (the *core*, ``_Exp_f``) takes EXPAND's gang types. ``--abi`` adds entry
points named and typed by the vector function ABI GCC 12 uses (x86: ``_ZGV<b|d|e><N|M><simdlen>
<params>_<name>``; AArch64 AdvSIMD: ``_ZGVn...``), so that a scalar loop compiled with
``-fopenmp-simd`` against a ``#pragma omp declare simd`` declaration (``header``) calls them.
Measured with GCC 12.2 (tests/test_abi.py checks it):

* simdlen: the characteristic data type (CDT) is the return type, else the first varying
  parameter's, else ``int``; GCC calls the variant of simdlen = vector bits / CDT bits (x86: 128
  for ``b``, 256 for ``d``, 512 for ``e``, 256 for floats and 128 for integers for AVX's ``c``;
  AArch64: 64 and 128) and never a longer one (a loop's vectorization factor is at most that:
  ``simdlen(4)`` on a double function is never called from an SSE loop). So a double function gets
  the half-gang variants ``_ZGVbN2v_``, ``_ZGVdN4v_``, ``_ZGVeN8v_``, ``_ZGVnN2v_``, which run the
  core with the upper lanes off; x86 also gets the full-gang ``simdlen(lanes)`` variant for direct
  calls. With ``-mavx2`` GCC calls ``d`` for the loop and ``b`` for its tail, and ``c`` where its
  vectorization factor is 4 (an ``int`` CDT: ``_ZGVcN4...``), so the AVX2 output also defines the
  ``c`` variants (AVX2 code: only for callers compiled with ``-mavx2``; the header stops a
  ``-mavx`` compile with ``#error``); with ``-mavx512f``, ``e``, ``d`` and ``c``.
* arguments: each varying parameter in place, as ``max(1, simdlen * bits / V)`` vectors of
  ``min(V / bits, simdlen)`` lanes (V as above; a ``float`` argument of an ``e`` variant of
  simdlen 8 is one 256-bit vector); uniform (``u``) and linear (``l``, step 1: lane l gets
  ``value + l``) parameters as scalars; a result wider than one vector is returned in memory (an
  array of vectors; a struct of them is passed the same way).
* pointer parameters (EXPAND's core takes a pointer to a gang in memory): a varying one is passed as
  in glibc's libmvec ``sincosf`` variants, both ways GCC 12 makes clones of ``#pragma omp declare simd``
  (``v``: a vector of ``simdlen`` pointers, one per lane, in 64-bit integer lanes of the family's
  integer width: ``_ZGVbN4vvv_sincosf(__m128 x, __m128i s_0, __m128i s_1, __m128i c_0, __m128i c_1)``)
  and ``declare simd linear(s, c)`` (``l4``: one pointer to ``simdlen`` consecutive elements, step one
  element, in bytes in the name: ``_ZGVbN4vl4l4_sincosf(__m128 x, float *s, float *c)``). The variant
  reads each active lane's element into a gang, runs the core on it and writes the gang's lanes back
  (not through a pointer to const). The ``v`` form mixes 64-bit pointer lanes with the function's
  own: where GCC makes no such clones (AArch64), only the linear form is made.
* masks (``M`` variants, after the other arguments): on SSE, AVX2 and AdvSIMD one vector of the
  CDT per CDT register, a lane on iff its bits are nonzero; on AVX-512 one ``unsigned int`` per
  CDT register, bit i = lane i. GCC 12 never calls ``M`` variants from a loop (it does not
  vectorize calls under a condition); they are for direct calls.
* GCC calls a variant from a plain loop only when the declaration is ``const`` or ``pure``; a
  function with side effects (per-lane calls, stores) is declared neither, and its loop needs
  ``#pragma omp simd`` (GCC then calls the variant without the attribute).

Masked variants and gangs shorter than the core's run the *masked core* (``_Exp_f_masked``, the
function if-converted under an entry mask taken from its first argument): inactive lanes make no
call, no store and no memory access; a core with no lane on returns at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from emit.isa import is_float, kind_bits, lane_kind, scalar_ctype
from expand.ir import types as T
from expand.ir.diagnostics import error
from expand.ir.nodes import Assign, Call, Function, Index, Member, Unary, Var, stmt_exprs, walk_stmts

#: libm operations that may set errno (expand/passes/mathcalls.py maps them to vector code): not const.
ERRNO_MATH = ("sqrt", "fma")


@dataclass(frozen=True)
class Variant:
    """One ABI entry point: ``simdlen`` lanes in vectors of at most ``float_bits``/``int_bits`` bits."""

    name: str
    letter: str
    simdlen: int
    float_bits: int
    int_bits: int
    masked: bool
    #: how a varying pointer parameter is passed: "v" (a vector of pointers), "l" (linear: one pointer to
    #: simdlen consecutive elements), "" (the function has none)
    pointers: str = ""

    def vector_bits(self, k: str) -> int:
        """The widest vector holding lanes of kind ``k``."""
        return self.float_bits if is_float(k) else self.int_bits


# ------------------------------------------------------------------ analysis


def effects(fn: Function) -> tuple[str, str]:
    """``("const" | "pure" | "", reason)``: what the declaration may promise about ``fn``.

    ``const``: reads nothing but its arguments and constant globals; ``pure``: also reads memory
    through pointers or non-constant globals; ``""``: calls a function (errno, I/O, ...) or stores
    to memory, so it is neither."""
    reads = ""
    for s in walk_stmts(fn.body):
        if isinstance(s, Assign):
            t = s.target
            while isinstance(t, (Index, Member)) and not isinstance(t.base.type, T.Pointer) and \
                    not (isinstance(t, Member) and t.arrow):
                t = t.base
            if not (isinstance(t, Var) and t.sym.kind in ("local", "param")):
                return "", "it stores to memory"
        for e in stmt_exprs(s):
            for n in e.walk():
                if isinstance(n, Call):
                    from expand.passes.global_writes import (  # (expand's own: a global write, sqrt's errno)
                        MATH_ERRNO,
                        WRITE,
                    )
                    if n.func == WRITE:
                        return "", f"it assigns the global '{n.args[0].sym.name}'"
                    return "", "it calls sqrt (errno)" if n.func == MATH_ERRNO else f"it calls {n.func}"
                if type(n).__name__ == "MathOp" and getattr(n, "op", "") in ERRNO_MATH:
                    return "", f"it calls {getattr(n, 'func', '') or n.op} (errno)"
                if isinstance(n, Unary) and n.op == "*" or isinstance(n, Member) and n.arrow or \
                        isinstance(n, Index) and isinstance(n.base.type, T.Pointer):
                    reads = "it reads memory through a pointer"
                elif isinstance(n, Var) and n.sym.kind == "global" and not n.sym.const:
                    reads = f"it reads the global '{n.sym.name}'"
    return ("pure", reads) if reads else ("const", "it reads only its arguments and constants")


def _varying(p) -> bool:
    return p.shape not in ("uniform", "linear")


def _gang_pointer(p) -> bool:
    """A varying pointer parameter: the core takes a pointer to a gang in memory."""
    return _varying(p) and isinstance(p.type, T.Pointer)


#: the lane kind of a vector of pointers (the ``v`` form of a varying pointer parameter)
POINTER_KIND = "u64"


def _kind(t: T.CType) -> str:
    return lane_kind(t.target if isinstance(t, T.Pointer) else t)


def characteristic_kind(e) -> str:
    """Lane kind of the characteristic data type (return type, else first varying parameter, else int)."""
    if not isinstance(e.ret, T.Void):
        return lane_kind(e.ret)
    for p in e.params:
        if _varying(p):
            return _kind(p.type)
    return "i32"


def check(e, isa) -> None:
    """Diagnose what the vector function ABI cannot express for expanded function ``e``."""
    coord = getattr(e, "coord", None)
    for p in e.params:
        if _gang_pointer(p):
            try:
                _kind(p.type)
            except TypeError:
                raise error(p.coord or coord, f"parameter '{p.name}' of '{e.scalar_name}' points to '{p.type.target}':"
                            " the vector function ABI variants pass pointers to numbers only",
                            "declare it uniform(...) (one object for all lanes), or use --wrapper array without "
                            "--abi") from None
    kinds = [("the result", lane_kind(e.ret))] if not isinstance(e.ret, T.Void) else []
    kinds += [(f"parameter '{p.name}'", _kind(p.type)) for p in e.params if _varying(p)]
    cdt = characteristic_kind(e)
    for what, k in kinds:
        if kind_bits(k) < 32:
            raise error(coord, f"{what} of '{e.scalar_name}' is {kind_bits(k)}-bit: the vector function ABI "
                        "packs such lanes, expand holds them in 32-bit lanes",
                        "use int/unsigned/float/double (or 64-bit) types, or --wrapper array without --abi")
        if not isa.abi_mixed_sizes and kind_bits(k) != kind_bits(cdt):
            raise error(coord, f"'{e.scalar_name}' mixes {kind_bits(k)}- and {kind_bits(cdt)}-bit lanes: GCC 12 "
                        f"makes no {isa.name} variants of such functions ('mixed size types')")


def pointer_forms(e, isa) -> list[str]:
    """How ``e``'s varying pointer parameters are passed in its variants (``Variant.pointers``): "v" (a
    vector of pointers, where the ISA's ABI mixes lane sizes) and "l" (linear), or [""] if it has none."""
    if not any(_gang_pointer(p) for p in e.params):
        return [""]
    mixed = kind_bits(characteristic_kind(e)) != kind_bits(POINTER_KIND)
    return ["v", "l"] if isa.abi_mixed_sizes or not mixed else ["l"]


def _code(p, form: str) -> str:
    """One parameter's letters in a variant's name: ``u``, ``l``, ``v``; ``l4`` for a float pointer passed
    linearly (the step, one element, in bytes)."""
    if p.shape == "uniform":
        return "u"
    if p.shape == "linear":
        return "l"
    if form == "l" and _gang_pointer(p):
        return f"l{kind_bits(_kind(p.type)) // 8}"
    return "v"


def variants(e, isa) -> list[Variant]:
    """The ABI entry points made for ``e``: per family of the ISA, GCC's simdlen for its CDT and,
    where the family allows it (x86's own letter), the full gang; per way of passing its varying
    pointer parameters (``pointer_forms``)."""
    cdt = characteristic_kind(e)
    out: list[Variant] = []
    for form in pointer_forms(e, isa):
        codes = "".join(_code(p, form) for p in e.params)
        seen: set[tuple[str, int]] = set()
        for letter, fbits, ibits, full in isa.abi_families:
            natural = (fbits if is_float(cdt) else ibits) // kind_bits(cdt)
            for s in (natural, isa.lanes) if full else (natural,):
                if s < 1 or s > isa.lanes or isa.lanes % s or (letter, s) in seen:
                    continue
                seen.add((letter, s))
                for masked in (False, True):
                    out.append(Variant(f"_ZGV{letter}{'M' if masked else 'N'}{s}{codes}_{e.scalar_name}",
                                       letter, s, fbits, ibits, masked, form))
    return out


def register_variant(isa, k: str, nargs: int, name: str) -> tuple[str, int] | None:
    """(name, simdlen) of the unmasked variant of ``name`` (``nargs`` varying arguments of kind ``k``)
    that takes one register of this ISA's own family per argument, as libraries with vector function
    ABI names export them (glibc's libmvec: ``_ZGVdN8v_logf``, ``_ZGVbN2vv_pow``); None without an ABI."""
    if not isa.abi_families:
        return None
    letter, fbits, ibits, _ = isa.abi_families[0]
    simdlen = (fbits if is_float(k) else ibits) // kind_bits(k)
    return f"_ZGV{letter}N{simdlen}{'v' * nargs}_{name}", simdlen


# ------------------------------------------------------------------ C types of the ABI


class _Types:
    """The C types of one output's ABI signatures, with the typedefs they need."""

    def __init__(self, isa) -> None:
        self.isa = isa
        self.typedefs: dict[str, str] = {}

    def split(self, k: str, v: Variant) -> tuple[int, int]:
        """(vectors, lanes per vector) of a gang of kind ``k`` in variant ``v``."""
        rl = min(v.vector_bits(k) // kind_bits(k), v.simdlen)
        return v.simdlen // rl, rl

    def reg(self, k: str, lanes: int) -> str:
        """The C type of one vector of ``lanes`` lanes of kind ``k``."""
        if lanes * kind_bits(k) == self.isa.reg_bits:
            return self.isa.regtype(k)
        name = f"_Exp_abi_{k}x{lanes}"
        size = lanes * kind_bits(k) // 8
        self._typedef(name, f"typedef {scalar_ctype(k)} {name} __attribute__((vector_size({size})));")
        return name

    def value(self, k: str, v: Variant) -> str:
        """The C type of a whole result of kind ``k``: a vector, or a struct of vectors (returned in memory)."""
        n, rl = self.split(k, v)
        if n == 1:
            return self.reg(k, rl)
        name = f"_Exp_abi_{v.letter}_{k}x{v.simdlen}"
        self._typedef(name, f"typedef struct {{ {self.reg(k, rl)} v[{n}]; }} {name};")
        return name

    def _typedef(self, name: str, text: str) -> None:
        guard = f"{name.upper()}_DEFINED"
        self.typedefs.setdefault(name, f"#ifndef {guard}\n#define {guard}\n{text}\n#endif")


def _declare(t: T.CType, name: str) -> str:
    if isinstance(t, T.Pointer):
        return f"{'const ' if t.const else ''}{t.target} *{name}"
    return f"{t} {name}"


def _fresh(base: str, taken: set[str]) -> str:
    name = base
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def _signature(e, v: Variant, ty: _Types) -> tuple[str, list[str], list[str]]:
    """(prototype, names of each varying parameter's vectors in order, mask argument names)."""
    cdt = characteristic_kind(e)
    taken = {p.name for p in e.params}
    params: list[str] = []
    regs: list[str] = []
    for p in e.params:
        if not _varying(p) or _gang_pointer(p) and v.pointers == "l":
            params.append(_declare(p.type, p.name))
            continue
        k = POINTER_KIND if _gang_pointer(p) else _kind(p.type)
        n, rl = ty.split(k, v)
        for j in range(n):
            name = p.name if n == 1 else _fresh(f"{p.name}_{j}", taken)
            params.append(f"{ty.reg(k, rl)} {name}")
            regs.append(name)
    masks: list[str] = []
    if v.masked:
        n, rl = ty.split(cdt, v)
        mt = "unsigned int" if ty.isa.abi_mask == "bits" else ty.reg(cdt, rl)
        for j in range(n):
            masks.append(_fresh("mask" if n == 1 else f"mask_{j}", taken))
            params.append(f"{mt} {masks[-1]}")
    ret = "void" if isinstance(e.ret, T.Void) else ty.value(lane_kind(e.ret), v)
    return f"{ret} {v.name}({', '.join(params) or 'void'})", regs, masks


# ------------------------------------------------------------------ definitions


def _namer(taken: set[str]) -> Callable[[str], str]:
    """A new local name at each call, unlike every parameter and earlier local: ``on``, ``on_``, ..."""
    return lambda base: _fresh(base, taken)


def _variant_body(e, v: Variant, ty: _Types, regs: list[str], masks: list[str]) -> list[str]:
    isa, lanes = ty.isa, ty.isa.lanes
    cdt = characteristic_kind(e)
    void = isinstance(e.ret, T.Void)
    native = all(ty.split(k, v)[0] == 1 and v.simdlen * kind_bits(k) == isa.reg_bits and isa.nregs(k) == 1
                 for k in [_kind(p.type) for p in e.params if _varying(p)] + ([] if void else [lane_kind(e.ret)]))
    if not v.masked and v.simdlen == lanes and native and not v.pointers:
        call = f"{e.vector_name}({', '.join(p.name for p in e.params)})"
        return [f"    {call};" if void else f"    return {call};"]
    # Through lane arrays: lanes 0..simdlen-1 of a gang of the core's size.
    name = _namer({p.name for p in e.params} | set(regs) | set(masks))
    lv = name("l")
    pad_copies = not v.masked and v.simdlen < lanes and e.effects[0] in ("const", "pure")
    body: list[str] = []
    args: list[str] = []
    gangs: list[tuple] = []  # (parameter, lane array, where lane l's element is, gang) per pointer parameter
    it = iter(regs)
    for p in e.params:
        if not _varying(p):
            args.append(p.name)
            continue
        if _gang_pointer(p):
            arr, gang = name(f"{p.name}_lanes"), name(f"{p.name}_gang")
            if v.pointers == "v":  # the vector of pointers, as an array
                n, rl = ty.split(POINTER_KIND, v)
                ptrs = name(f"{p.name}_ptrs")
                body.append(f"    {_declare(p.type, ptrs)}[{v.simdlen}];")
                body += _unpack(ptrs, [next(it) for _ in range(n)], rl)
                gangs.append((p, arr, f"{ptrs}[{lv}]", gang))
            else:
                gangs.append((p, arr, f"({p.name} + {lv})", gang))
            args.append(f"&{gang}")
            continue
        k = _kind(p.type)
        n, rl = ty.split(k, v)
        arr = name(f"{p.name}_lanes")
        body.append(f"    {scalar_ctype(k)} {arr}[{lanes}] = {{0}};")
        body += _unpack(arr, [next(it) for _ in range(n)], rl)
        if pad_copies:  # lanes past simdlen repeat the real ones: no new values, no new faults
            body.append(f"    for (int {lv} = {v.simdlen}; {lv} < {lanes}; {lv}++)")
            body.append(f"        {arr}[{lv}] = {arr}[{lv} - {v.simdlen}];")
        args.append(isa.loadu(k, arr))
    core = e.vector_name
    if v.masked or (v.simdlen < lanes and not pad_copies):
        core, on = e.masked_name, name("on")
        body.append(f"    int32_t {on}[{lanes}] = {{0}};")
        if v.masked and isa.abi_mask == "bits":
            n, rl = ty.split(cdt, v)
            bits = name("bits")
            body.append(f"    const unsigned int {bits}[{n}] = {{{', '.join(masks)}}};")
            body.append(f"    for (int {lv} = 0; {lv} < {v.simdlen}; {lv}++)")
            body.append(f"        {on}[{lv}] = {bits}[{lv} / {rl}] >> ({lv} % {rl}) & 1 ? -1 : 0;")
        elif v.masked:
            n, rl = ty.split(cdt, v)
            ut, mk = scalar_ctype(f"u{kind_bits(cdt)}"), name("lanes_on")
            body.append(f"    {ut} {mk}[{v.simdlen}];")
            for j, m in enumerate(masks):
                body.append(f"    __builtin_memcpy({mk}{f' + {j * rl}' if j else ''}, &{m}, sizeof {m});")
            body.append(f"    for (int {lv} = 0; {lv} < {v.simdlen}; {lv}++)")
            body.append(f"        {on}[{lv}] = {mk}[{lv}] != 0 ? -1 : 0;")
        else:
            body.append(f"    for (int {lv} = 0; {lv} < {v.simdlen}; {lv}++)")
            body.append(f"        {on}[{lv}] = -1;")
        args.insert(0, isa.int_to_mask("i32", isa.loadu("i32", on)))
    active = on if core == e.masked_name else None
    after: list[str] = []
    for p, arr, at, gang in gangs:  # each active lane's element into a gang, and back after the call
        k = _kind(p.type)
        body.append(f"    {scalar_ctype(k)} {arr}[{lanes}] = {{0}};")
        body += _lanes_loop(lv, v.simdlen, active, f"{arr}[{lv}] = *{at};")
        if pad_copies:
            body.append(f"    for (int {lv} = {v.simdlen}; {lv} < {lanes}; {lv}++)")
            body.append(f"        {arr}[{lv}] = {arr}[{lv} - {v.simdlen}];")
        body.append(f"    {isa.mtype(k)} {gang};")
        body.append(f"    __builtin_memcpy(&{gang}, {arr}, sizeof {arr});")
        if not p.type.const:
            after.append(f"    __builtin_memcpy({arr}, &{gang}, sizeof {arr});")
            after += _lanes_loop(lv, v.simdlen, active, f"*{at} = {arr}[{lv}];")
    call = f"{core}({', '.join(args)})"
    if void:
        return body + [f"    {call};"] + after
    k = lane_kind(e.ret)
    r, r_lanes, ret = name("r"), name("ret_lanes"), name("ret")
    body.append(f"    {isa.vtype(k)} {r} = {call};")
    body += after
    body.append(f"    {scalar_ctype(k)} {r_lanes}[{lanes}];")
    body.append(f"    {isa.storeu(k, r_lanes, r)};")
    body.append(f"    {ty.value(k, v)} {ret};")
    body.append(f"    __builtin_memcpy(&{ret}, {r_lanes}, sizeof {ret});")
    body.append(f"    return {ret};")
    return body


def _unpack(arr: str, regs: list[str], per: int) -> list[str]:
    """Copy the vectors ``regs`` (``per`` lanes each) into the lane array ``arr``, in order."""
    return [f"    __builtin_memcpy({arr}{f' + {j * per}' if j else ''}, &{r}, sizeof {r});" for j, r in enumerate(regs)]


def _lanes_loop(lv: str, simdlen: int, on: str | None, stmt: str) -> list[str]:
    """``stmt`` for lanes ``lv`` = 0 .. simdlen - 1 (those on in the array ``on``, if given)."""
    return [f"    for (int {lv} = 0; {lv} < {simdlen}; {lv}++)",
            f"        {f'if ({on}[{lv}]) ' if on else ''}{stmt}"]


#: The spellings of the type each <stdint.h> name is on the LP64 targets (C takes a pointer to any other
#: type of the same size, plain char, _Bool or long long, for a different pointer type).
_STDINT_IS = {"int8_t": ("signed char",), "uint8_t": ("unsigned char",), "int16_t": ("short", "short int"),
              "uint16_t": ("unsigned short", "unsigned short int"), "int32_t": ("int", "signed int"),
              "uint32_t": ("unsigned", "unsigned int"), "int64_t": ("long", "long int"),
              "uint64_t": ("unsigned long", "unsigned long int"), "float": (), "double": ()}


def _elements(t: T.CType, k: str, ptr: str, const: bool) -> str:
    """``ptr``, a pointer to ``t``, as the pointer to lane kind ``k``'s C type the ISA's loads and stores
    take: cast where C calls them different types (plain ``char``, ``_Bool``, ``long long``: -Wpointer-sign,
    -Wincompatible-pointer-types, as NEON's and AltiVec's typed loads would say)."""
    st = scalar_ctype(k)
    if str(t) == st or str(t) in _STDINT_IS.get(st, ()):
        return ptr
    return f"({'const ' if const else ''}{st} *)({ptr})"


def _wrapper(e, isa) -> tuple[str, str]:
    """(prototype, definition) of ``NAME_array``: the function over arrays of any length."""
    lanes = isa.lanes
    taken = {p.name for p in e.params}
    void = isinstance(e.ret, T.Void)
    out = "" if void else _fresh("result", taken)
    count = _fresh("n", taken)
    name = _namer(taken)
    i, rem, on, lv, r_lanes = name("i"), name("rem"), name("on"), name("l"), name("ret_lanes")
    local = {p.name: name(f"{p.name}_{'gang' if isinstance(p.type, T.Pointer) else 'lanes'}")
             for p in e.params if _varying(p)}
    params = [] if void else [f"{e.ret} *{out}"]
    for p in e.params:
        if not _varying(p) or isinstance(p.type, T.Pointer):
            params.append(_declare(p.type, p.name))
        else:
            params.append(f"const {p.type} *{p.name}")
    params.append(f"size_t {count}")
    proto = f"void {e.scalar_name}_array({', '.join(params)})"

    def call(tail: bool) -> list[str]:
        lines: list[str] = []
        after: list[str] = []
        args: list[str] = []
        size = rem if tail else str(lanes)
        for p in e.params:
            if p.shape == "uniform":
                args.append(p.name)
            elif p.shape == "linear":
                args.append(f"({p.type})({p.name} + ({p.type}){i})")
            elif isinstance(p.type, T.Pointer):  # a gang in memory: an aligned local copy, written back
                k = _kind(p.type)
                buf = local[p.name]
                lines.append(f"{isa.mtype(k)} {buf};")
                if tail:
                    lines.append(f"__builtin_memset(&{buf}, 0, sizeof {buf});")
                lines.append(f"__builtin_memcpy(&{buf}, {p.name} + {i}, {size} * sizeof *{p.name});")
                args.append(f"&{buf}")
                if not p.type.const:
                    after.append(f"__builtin_memcpy({p.name} + {i}, &{buf}, {size} * sizeof *{p.name});")
            else:
                k = _kind(p.type)
                if tail:
                    arr = local[p.name]
                    lines.append(f"{scalar_ctype(k)} {arr}[{lanes}] = {{0}};")
                    lines.append(f"__builtin_memcpy({arr}, {p.name} + {i}, {rem} * sizeof *{p.name});")
                    args.append(isa.loadu(k, arr))
                else:
                    args.append(isa.loadu(k, _elements(p.type, k, f"{p.name} + {i}", True)))
        core = e.vector_name
        if tail:
            core = e.masked_name
            lines.append(f"int32_t {on}[{lanes}] = {{0}};")
            lines.append(f"for (size_t {lv} = 0; {lv} < {rem}; {lv}++)")
            lines.append(f"    {on}[{lv}] = -1;")
            args.insert(0, isa.int_to_mask("i32", isa.loadu("i32", on)))
        text = f"{core}({', '.join(args)})"
        if void:
            lines.append(f"{text};")
        else:
            k = lane_kind(e.ret)
            if tail:
                lines.append(f"{scalar_ctype(k)} {r_lanes}[{lanes}];")
                lines.append(f"{isa.storeu(k, r_lanes, text)};")
                lines.append(f"__builtin_memcpy({out} + {i}, {r_lanes}, {rem} * sizeof *{out});")
            else:
                lines.append(f"{isa.storeu(k, _elements(e.ret, k, f'{out} + {i}', False), text)};")
        return lines + after

    body = [f"    size_t {i} = 0;", f"    for (; {count} - {i} >= {lanes}; {i} += {lanes}) {{"]
    body += [f"        {x}" for x in call(False)]
    body += ["    }", f"    if ({i} < {count}) {{", f"        size_t {rem} = {count} - {i};"]
    body += [f"        {x}" for x in call(True)]
    body += ["    }"]
    return proto, "\n".join([proto, "{", *body, "}"]) + "\n"


def definitions(functions: list, isa, *, abi: bool, wrapper: str | None) -> str:
    """C definitions of the ABI variants (``abi``) and array wrappers (``wrapper == "array"``) of
    ``functions`` (driver.Expanded with their masked cores), for the output file."""
    ty = _Types(isa)
    defs: list[str] = []
    for e in functions:
        if abi:
            check(e, isa)
            for v in variants(e, isa):
                proto, regs, masks = _signature(e, v, ty)
                defs.append("\n".join([proto, "{", *_variant_body(e, v, ty, regs, masks), "}"]) + "\n")
        if wrapper == "array":
            defs.append(_wrapper(e, isa)[1])
    head = "\n".join(ty.typedefs.values())
    return (head + "\n\n" if head else "") + "\n".join(defs)


def variant_prototypes(functions: list, isa) -> list[str]:
    """The typedefs and prototypes of every ABI variant of ``functions`` on ``isa`` (for a header that
    gathers several ISAs' variants, as mathlib's vector libm does)."""
    ty = _Types(isa)
    protos: list[str] = []
    for e in functions:
        check(e, isa)
        protos += [_signature(e, v, ty)[0] + ";" for v in variants(e, isa)]
    return [*ty.typedefs.values(), *protos]


# ------------------------------------------------------------------ header


def _pointee(t: T.CType) -> T.CType:
    """What a (pointer to a pointer to ...) type finally points to; ``t`` itself for any other type."""
    while isinstance(t, T.Pointer):
        t = t.target
    return t


def header(functions: list, isa, *, abi: bool, wrapper: str | None, guard: str, origin: str = "") -> str:
    """A header for callers: the ``declare simd`` declarations (const/pure where that holds), the
    variants' prototypes (under the ISA's preprocessor condition) and the wrappers' prototypes."""
    ty = _Types(isa)
    lines = [f"/* {origin or 'Generated by expand'}: declarations for callers ({isa.name}, {isa.lanes} lanes). */",
             f"#ifndef {guard}", f"#define {guard}", "", "#include <stddef.h>", "#include <stdint.h>", ""]
    # Structs and unions the parameters point to, by tag: declared here, so that the prototypes name the
    # caller's (which it defines before or after this header); a typedef's name it must declare first.
    tags = dict.fromkeys(f"{'union' if t.is_union else 'struct'} {t.tag};" for e in functions for p in e.params
                         for t in [_pointee(p.type)] if isinstance(t, T.Record) and t.tag)
    untagged = dict.fromkeys(t.spelling for e in functions for p in e.params for t in [_pointee(p.type)]
                             if isinstance(t, T.Record) and not t.tag and t.spelling)
    if tags:
        lines += [*tags, ""]
    if untagged:
        lines += [f"/* Include the definitions of {', '.join(untagged)} before this header. */", ""]
    protos: list[str] = []
    if abi and isa.abi_letter in ("b", "d", "e"):
        lines += ["#if defined(__x86_64__) && defined(__AVX__) && !defined(__AVX2__) && !defined(EXPAND_ALLOW_AVX1)",
                  "#error \"with -mavx GCC calls the AVX ('c', _ZGVc...) variants, which expand makes in the avx2 "
                  "output as AVX2 code: compile with -mavx2, or define EXPAND_ALLOW_AVX1 if AVX2 is certain\"",
                  "#endif", ""]
    if abi:  # a translation unit compiled without -fopenmp-simd ignores the declare simd lines quietly
        lines += ["#pragma GCC diagnostic push", '#pragma GCC diagnostic ignored "-Wunknown-pragmas"', ""]
    for e in functions:
        if not abi:
            break
        check(e, isa)
        what, why = e.effects
        shapes = [f"{s}({', '.join(p.name for p in e.params if p.shape == s)})"
                  for s in ("uniform", "linear") if any(p.shape == s for p in e.params)]
        pointers = [p.name for p in e.params if _gang_pointer(p)]
        linear = [f"linear({', '.join(pointers)})"]
        pragmas = [" ".join(["#pragma omp declare simd", *shapes, *(linear if f == "l" else [])])
                   for f in pointer_forms(e, isa)]
        names = ", ".join(v.name for v in variants(e, isa))
        lines.append(f"/* {e.scalar_name}: {isa.name} variants {names}. */")
        if what:
            lines.append(f"/* Declared {what}: {why}. */")
        else:
            lines.append(f"/* Neither const nor pure ({why}): GCC 12 vectorizes a loop calling it only under "
                         "#pragma omp simd. */")
        lines += pragmas
        params = ", ".join(_declare(p.type, p.name) for p in e.params) or "void"
        attr = f"__attribute__(({what})) " if what else ""
        lines += [f"{attr}{e.ret} {e.scalar_name}({params});", ""]
        protos += [_signature(e, v, ty)[0] + ";" for v in variants(e, isa)]
    if abi:
        lines += ["#pragma GCC diagnostic pop", ""]
    if protos:
        lines += [f"#if {isa.abi_macro}", *[f"#include {h}" for h in isa.headers], *ty.typedefs.values(),
                  *protos, "#endif", ""]
    if wrapper == "array":
        lines += [_wrapper(e, isa)[0] + ";" for e in functions] + [""]
    lines.append(f"#endif /* {guard} */")
    return "\n".join(lines) + "\n"
