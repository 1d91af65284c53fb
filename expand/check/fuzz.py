"""expand-fuzz: random scalar C functions, expanded and checked lane by lane against the original.

``generate(seed)`` writes a reproducible random C function ``f`` (same seed, same text) free of
undefined behaviour: signed arithmetic wraps through the unsigned type, shift counts are masked or
tested (``s >= 0 && s < 32 ? x << s : 0``, ``if (u < 32) v = x << u;``), divisions are guarded (no
``/ 0``, no ``INT_MIN / -1``), indexes are masked into their arrays, loops are counted (at most 8
trips, 4 nested), floats become integers only after a range check. It mixes
int/unsigned/int64_t/uint64_t/float/double and the narrow types (char, signed and unsigned char,
short, unsigned short, their stdint spellings, _Bool) with their promotions, casts and implicit
conversions, punning unions, nested if/else, ``?:``, ``&&``/``||``, ``for`` (up and down, counters of
several types), ``while`` and ``do`` loops, nested, with ``break``, ``continue`` and ``return``
inside, ``switch`` with fall-through, early returns, a ``static`` helper (inlined by expand, loops
included), pointer parameters (a varying one: the lane's own element; uniform ones: read at
consecutive, uniform and varying indexes, written at ``out[i]`` with ``i`` linear, one scatter),
file-scope tables (one and two dimensions), records (file-scope tables of structs and uniform pointers
to them, read a field at a time, array fields at constant and varying indexes; local structs with
nested ones, copied whole; the helper's struct parameter by value and struct result, compound
literals, ``h(...).f1``: drawn from a stream of their own, ``Gen.rec``, so that a seed's programs keep
their shape with records and without), local arrays, every function of mathlib's vector libm
and more of libm, float->int conversions under the program's own range checks (the vector code
converts every lane, NaN and out-of-range ones too), shifts under the program's own tests of their counts
(the vector code shifts every lane, by counts out of range too), and calls of the non-expandable
``log_T(site, value)`` functions of ``fuzz_log.c``, which record every call.

Each program also draws how it is expanded (``Modes``: ``--lanes`` 1x/2x/4x, ``--boscc``, ``--abi``,
``--wrapper array``, ``--vector-math`` expand/none/sleef/libmvec, the clang frontend, and its
parameters' shapes, given as options or by ``#pragma omp declare simd``), written in an ``options``
comment line that ``check_source`` reads (an ISA without the option gets the default:
``setting``). With libmvec or SLEEF, whose results differ by a few ULP, only exact functions feed
anything; an inexact one may make the returned value (verify's ULP mode).

``check_source`` expands ``f`` in-process, checks that the vector code compiles with -Wall -Wextra
-Werror and verifies it with ``expand.check.verify`` in call-log mode: return values and memory bit for
bit *and*, for each input, the same calls with the same arguments in the same order in the scalar
run and in that input's lane of the vector run. A call in a loop names its iteration in its site
argument (``site + 1024 * i``: ``tag_sites``), so the vector code's calls of one site and iteration are
the lanes' in lane order; programs written before that name their ``loop-sites``, whose calls are
matched to lanes by value with a search. The programs compile with -Wall -Wextra -Werror themselves:
what gcc's front end would still warn about (``quiet``) is drawn again.

NaNs: which operand's NaN an operation returns (so its sign and payload) is the C compiler's choice
(gcc orders the operands of commutative operations as it likes, and x86 returns the first NaN), so
a NaN result matches any NaN (``verify(nan_bits=False)``), the log functions record one NaN, and a
computed NaN stored to a union's float member is made the quiet NaN before the int member reads it.
NaN inputs copied unchanged keep their bits, and everything else is compared bit for bit.

A few percent of the programs carry a construct expand must refuse (a written local ``static``,
``volatile``, inline assembly): for those the diagnostic is the expected outcome. Programs with a
scatter (a store through a uniform pointer) may get expand's diagnostic about lane order instead
(``may-refuse``): counted by message, not failures (``REFUSALS``). ``--without FEATURE,...`` leaves
features out (``FEATURES``; ``--no-loops`` is ``--without loops``).

``expand-fuzz --count N --isa X --seed S [--out DIR] [--random R]`` checks N programs (on 2
processes), delta-debugs the first failure of each kind down to a small program written to DIR
with a README line telling how to reproduce it, prints ``expand-fuzz: N programs, M mismatches,
C crashes (T tracebacks, W -Werror), R refused, D planted diagnostics, T s`` and a line per kind of
failure and per refusal message, and exits 1 if anything failed (crashes: tracebacks, unexpected or
missing diagnostics, vector code that does not compile, harnesses that die, scalar code with
undefined behaviour). ``expand-fuzz --replay FILE.c`` checks a written program again; ``--print``
shows the programs of a seed.
"""

from __future__ import annotations

import argparse
import copy
import multiprocessing
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from emit.host import EXIT_NOT_RUN
from expand.analysis.call_order import UNORDERED
from expand.ir.libc import LIBM
from expand.vecmath import EXPANDM_FUNCTIONS

# ----------------------------------------------------------------------------- the C side

# Flags for every file of a check. -frounding-math: GCC 12 folds `0.0 - (double)u` to
# `-(double)u` and `0.0 + -(double)u` to `-(double)u` (u unsigned; even at -O0), which gives -0.0
# for u = 0 where IEEE arithmetic gives +0.0; the reference would be wrong, and so could the uniform
# scalar code in the vector function. With sign-dependent rounding honoured GCC keeps the additions.
# (Clang, which compiles the rvv tables, does no such folding and rejects -frounding-math on riscv64.)
FUZZ_CFLAGS = ("-frounding-math",)
# The scalar reference is compiled at -O2 as the vector file is (with an ISA table's own flags for it,
# where its emulator needs them: emit/isa.py REFERENCE_CFLAGS; AltiVec's is built for POWER7, as qemu's
# xscvsxdsp rounds int64 to float twice: CI programs 20240601-27 and -146 once differed by one ulp).
# AVX-512's was at -O0 for a while: AVX-512 has one instruction for each unsigned-to-float conversion,
# and with -frounding-math (no folding of inexact conversions) GCC 12's RTL CSE and GCSE take
# `(float)(uint64_t)-7` (vcvtusi2ssq: 2^64) and `(float)(unsigned)-7` (vcvtusi2ssl: 2^32) for one value,
# a constant having no mode in RTL (tests/fuzz_regressions/avx512_unsigned_convert_cse.c; fuzz program
# 2026-860). FUZZ_ISA_CFLAGS below turns those passes off for every file, the reference too, and an -O0
# reference kept the dead `cosf` calls that GCC at -O2, and so the vector code, drops (errno:
# expand-fuzz avx512 20261130-1943).
# The same GCC 12 bug hits the vector function too, where uniform scalar code keeps such
# conversions: on AVX-512 every file is compiled without the two RTL passes that merge them
# (tests/fuzz_regressions/avx512_unsigned_convert_cse.c; docs/verification.md, "Known compiler bugs").
FUZZ_ISA_CFLAGS = {"avx512": ("-fno-rerun-cse-after-loop", "-fno-gcse")}
#: The vector code compiles with -Wall -Wextra -Werror (checked on its own: the harness that includes it
#: is held to -Wall -Werror). The program itself compiles with -Wall -Werror (verify compiles scalar
#: sources without -Werror); the generator makes them -Wextra-clean too (``quiet``), but a program
#: written by hand or by an older expand-fuzz may not be.
FUZZ_VECTOR_CFLAGS = ("-Wextra", "-fsyntax-only")
FUZZ_PROGRAM_CFLAGS = ("-Werror",)  # (for GCC: the generator knows its warnings, not Clang's -Wself-assign ...)
#: Seconds a program's verification may run (qemu included) before it is a failure.
FUZZ_RUN_TIMEOUT = 300

TYPES = ("int", "unsigned", "int64_t", "uint64_t", "float", "double")
INTS = ("int", "unsigned", "int64_t", "uint64_t")
FLOATS = ("float", "double")
UNSIGNED_OF = {"int": "unsigned", "unsigned": "unsigned", "int64_t": "uint64_t", "uint64_t": "uint64_t"}
BITS = {"int": 32, "unsigned": 32, "int64_t": 64, "uint64_t": 64, "float": 32, "double": 64}
LOG_FN = {"int": "log_i32", "unsigned": "log_u32", "int64_t": "log_i64", "uint64_t": "log_u64",
          "float": "log_f32", "double": "log_f64"}
#: Narrow integer types: (bits, signed; None: plain char, signed on x86, unsigned on AArch64 and POWER).
NARROW: dict[str, tuple[int, bool | None]] = {
    "char": (8, None), "signed char": (8, True), "unsigned char": (8, False), "int8_t": (8, True),
    "uint8_t": (8, False), "short": (16, True), "unsigned short": (16, False), "int16_t": (16, True),
    "uint16_t": (16, False), "_Bool": (1, False)}
#: Open ranges a float must lie in before it is converted to each integer type (truncation then fits;
#: plain char: what both signednesses hold).
CLAMP = {"int": ("-2147483649.0", "2147483648.0"), "unsigned": ("-1.0", "4294967296.0"),
         "int64_t": ("-9223372036854775808.0", "9223372036854775808.0"),
         "uint64_t": ("-1.0", "18446744073709551616.0"), "char": ("-1.0", "128.0"),
         **{t: ("-129.0", "128.0") for t in ("signed char", "int8_t")},
         **{t: ("-1.0", "256.0") for t in ("unsigned char", "uint8_t")},
         **{t: ("-32769.0", "32768.0") for t in ("short", "int16_t")},
         **{t: ("-1.0", "65536.0") for t in ("unsigned short", "uint16_t")}}
INT_MIN_TEXT = {"int": "(-2147483647 - 1)", "int64_t": "(-9223372036854775807L - 1)"}
#: Punning unions: (float member type, float member, int member type, int member).
UNIONS = (("float", "f", "unsigned", "i"), ("float", "f", "int", "i"),
          ("double", "d", "uint64_t", "i"), ("double", "d", "int64_t", "i"))
SPELL = {"int": "int32_t", "unsigned": "uint32_t", "int64_t": "int64_t", "uint64_t": "uint64_t",
         "float": "float", "double": "double"}

#: The calls with a side effect every program may make (not expandable; the verifier's call log
#: records them): the C files beside this module, written next to each program (``write_support``).
FUZZ_LOG_H = (Path(__file__).resolve().parent / "fuzz_log.h").read_text()
FUZZ_LOG_C = (Path(__file__).resolve().parent / "fuzz_log.c").read_text()

# ----------------------------------------------------------------------------- the program tree


class Node:
    """Base of the program tree (deep-copied and edited by the minimizer)."""


@dataclass(eq=False)
class Expr(Node):
    ty: str  # one of TYPES or NARROW ("int" for conditions); a NARROW expression's value fits the type


@dataclass(eq=False)
class Lit(Expr):
    text: str = "0"


@dataclass(eq=False)
class Ref(Expr):
    name: str = ""


@dataclass(eq=False)
class Op(Expr):
    """``fmt`` with ``{0}``, ``{1}``... replaced by the kids' text (every kid fully parenthesized)."""

    fmt: str = "{0}"
    kids: list[Expr] = field(default_factory=list)
    cond: bool = False  # a truth value (comparison, &&, ||, !)
    atomic: bool = False  # the minimizer replaces it whole or not at all (a range check and what it guards)


@dataclass(eq=False)
class Call(Expr):
    """``func(args..., site)`` for helpers, ``func(site, args...)`` for log calls, ``func(args)`` else."""

    func: str = ""
    args: list[Expr] = field(default_factory=list)
    site: str | None = None
    site_first: bool = True
    tag: str = ""  # the iteration of the loops around the call, added to its site (set by ``render``)


@dataclass(eq=False)
class Elem(Expr):
    """``base[i][j]`` (``*base`` without indexes): an element of a table, a local array or what a
    pointer parameter points to; with ``member``, a field of a table of records after the first
    ``member_at`` indexes (``T1[i].f2`` and ``T1[i].f1[j]``: ``member_at`` 1)."""

    base: str = ""
    indexes: list[Expr] = field(default_factory=list)
    member: str = ""
    member_at: int = 0


@dataclass(eq=False)
class Stmt(Node):
    keep: bool = field(default=False, kw_only=True)  # never removed by the minimizer


@dataclass(eq=False)
class Decl(Stmt):
    ty: str
    name: str
    init: Expr


@dataclass(eq=False)
class ArrayDecl(Stmt):
    """A local array ``ty name[length] = { init... }`` (the rest zero); with ``fields`` an array of
    records, ``init`` the first field's (a scalar of type ``ty``) of the first elements."""

    ty: str
    name: str
    length: int
    init: list[Expr]
    fields: list[Field] = field(default_factory=list)


@dataclass(eq=False)
class RecDecl(Stmt):
    """A local struct: ``struct tag { fields } name = { init... };`` (``init``: one expression per
    scalar field, nested structs' in order), or with ``copy`` ``struct tag name = other;`` (``init``:
    the other's ``Ref``)."""

    tag: str
    name: str
    fields: list[Field]
    init: list[Expr]
    copy: bool = False
    defined: bool = False  # the tag is declared at file scope (the helper's): ``struct tag name = { ... };``


@dataclass(eq=False)
class UnionDecl(Stmt):
    name: str
    kind: tuple[str, str, str, str]
    init: bool


@dataclass(eq=False)
class Assign(Stmt):
    name: str
    value: Expr
    op: str = "="


@dataclass(eq=False)
class Step(Stmt):
    """``name++;`` and the like (an unsigned or narrow variable: no overflow)."""

    name: str
    op: str = "++"
    prefix: bool = False


@dataclass(eq=False)
class Store(Stmt):
    """``target op value;`` to memory: a pointer parameter's element, a local array's."""

    target: Elem
    value: Expr
    op: str = "="


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: list[Stmt]
    els: list[Stmt]


@dataclass(eq=False)
class NanFix(If):
    """``if (u.f != u.f) u.i = NaN;`` after a store to a union's float member: goes with that store."""


@dataclass(eq=False)
class GuardedIf(If):
    """``if (<range check of f>) v = (T)f;`` or ``if (<test of s>) v = x << s;``: the minimizer drops it whole
    or keeps it as it is."""


@dataclass(eq=False)
class Return(Stmt):
    value: Expr


@dataclass(eq=False)
class CallStmt(Stmt):
    call: Call


@dataclass(eq=False)
class Loop(Stmt):
    """A counted loop of at most ``bound`` trips (``cond``: an extra exit test). kind: ``for`` (counter
    up from 0), ``down`` (from bound down to 1), ``while`` and ``do`` (counter declared before the loop,
    counted up first thing in the body, so that ``continue`` cannot skip it)."""

    var: str
    bound: Expr
    body: list[Stmt]
    kind: str = "for"
    cond: Expr | None = None
    ctype: str = "int"


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class Case(Node):
    labels: list[int | None]  # None: default
    body: list[Stmt]
    brk: bool = True  # ends with break (else falls through to the next case)


@dataclass(eq=False)
class Switch(Stmt):
    sel: Expr
    cases: list[Case]


@dataclass(eq=False)
class Raw(Stmt):
    """Literal C lines (the constructs of intentional diagnostics)."""

    lines: list[str]
    reads: list[str] = field(default_factory=list)


@dataclass(eq=False)
class Func(Node):
    name: str
    ret: str
    params: list[tuple[str, str]]  # (type, name); pointer types end in '*'
    body: list[Stmt]
    static: bool = False


@dataclass(eq=False)
class Table(Node):
    """A file-scope ``static const ty name[rows][cols]`` (``[cols]`` alone when rows is 0), or with
    ``fields`` a table of records, ``static const struct name_rec { fields } name[cols]`` (``values``:
    each record's initializer)."""

    ty: str
    name: str
    values: list[str]
    rows: int = 0
    fields: list[Field] = field(default_factory=list)


@dataclass(frozen=True)
class Field:
    """A field of a record: ``ty name;``, with ``count`` ``ty name[count];``, with ``sub`` a nested
    struct ``struct { sub } name;``."""

    ty: str
    name: str
    count: int = 0
    sub: tuple[Field, ...] = ()

    def decl(self) -> str:
        if self.sub:
            return f"struct {{ {' '.join(f.decl() for f in self.sub)} }} {self.name};"
        return f"{self.ty} {self.name}{f'[{self.count}]' if self.count else ''};"

    def leaves(self, prefix: str) -> list[tuple[str, str]]:
        """(type, access path) of each scalar in this field (no arrays): ``s.f2.f0``."""
        if self.sub:
            return [x for f in self.sub for x in f.leaves(f"{prefix}.{self.name}")]
        return [(self.ty, f"{prefix}.{self.name}")]


@dataclass
class Modes:
    """How the program is expanded: expand's options (``lanes``: a multiple of the ISA's natural width;
    ``abi``/``wrapper`` where the ISA has them; ``vector_math``: ``libmvec`` and ``sleef`` where the ISA
    has them, else ``expand``) and the parameter shapes, given as options or, with ``pragma``, by
    ``#pragma omp declare simd`` in the program."""

    lanes: int = 1
    boscc: str = "auto"
    abi: bool = False
    wrapper: bool = False
    vector_math: str = "expand"
    frontend: str = "pycparser"
    uniform: list[str] = field(default_factory=list)
    linear: list[str] = field(default_factory=list)
    pragma: bool = False

    def text(self) -> str:
        """The ``options`` comment's words (empty for the defaults)."""
        words = [f"lanes=x{self.lanes}" if self.lanes != 1 else "", f"boscc={self.boscc}" if self.boscc != "auto"
                 else "", "abi" if self.abi else "", "wrapper" if self.wrapper else "",
                 f"vector-math={self.vector_math}" if self.vector_math != "expand" else "",
                 f"frontend={self.frontend}" if self.frontend != "pycparser" else ""]
        if not self.pragma:
            words += [f"uniform={','.join(self.uniform)}" if self.uniform else "",
                      f"linear={','.join(self.linear)}" if self.linear else ""]
        return " ".join(w for w in words if w)

    @staticmethod
    def parse(text: str) -> Modes:
        """The modes of a program's text (its ``expand-fuzz: options ...`` line; shapes from it only)."""
        m = Modes()
        opt = re.search(r"expand-fuzz: options (.*?)\s*(?:\*/|$)", text, re.M)
        for w in opt.group(1).split() if opt else []:
            key, _, val = w.partition("=")
            if key == "lanes":
                m.lanes = int(val.lstrip("x"))
            elif key in ("boscc", "frontend"):
                setattr(m, key, val)
            elif key == "vector-math":
                m.vector_math = val
            elif key in ("abi", "wrapper"):
                setattr(m, key, True)
            elif key in ("uniform", "linear"):
                setattr(m, key, val.split(","))
            else:
                raise ValueError(f"expand-fuzz: unknown option '{w}'")
        return m


@dataclass(eq=False)
class Program(Node):
    label: str
    f: Func
    helper: Func | None = None
    expect_error: str | None = None  # a word the diagnostic must contain (intentional diagnostics)
    math: bool = False
    tables: list[Table] = field(default_factory=list)
    modes: Modes = field(default_factory=Modes)
    #: the diagnostic the program may get instead of expanding (a lane-order-dependent shared store)
    may_refuse: bool = False
    #: the struct types pointer parameters point to: (tag, fields)
    records: list[tuple[str, list[Field]]] = field(default_factory=list)


# ----------------------------------------------------------------------------- rendering


def expr_text(e: Expr) -> str:
    if isinstance(e, Lit):
        return e.text
    if isinstance(e, Ref):
        return e.name
    if isinstance(e, Op):
        return e.fmt.format(*(expr_text(k) for k in e.kids))
    if isinstance(e, Call):
        args = [expr_text(a) for a in e.args]
        if e.site is not None:
            site = e.site + e.tag
            args = [site, *args] if e.site_first else [*args, site]
        return f"{e.func}({', '.join(args)})"
    if isinstance(e, Elem):
        if not e.indexes:
            return f"(*{e.base})"
        idx = [f"[{expr_text(i)}]" for i in e.indexes]
        if e.member:
            idx.insert(e.member_at, e.member)
        return e.base + "".join(idx)
    raise TypeError(e)


def kids(e: Expr) -> list[Expr]:
    if isinstance(e, Op):
        return e.kids
    if isinstance(e, Call):
        return e.args
    if isinstance(e, Elem):
        return e.indexes
    return []


def walk_expr(e: Expr) -> Iterator[Expr]:
    yield e
    for k in kids(e):
        yield from walk_expr(k)


def stmt_exprs(s: Stmt) -> list[Expr]:
    """The expressions a statement evaluates (a store's target: its indexes only)."""
    if isinstance(s, Decl):
        return [s.init]
    if isinstance(s, (ArrayDecl, RecDecl)):
        return list(s.init)
    if isinstance(s, Assign):
        return [s.value]
    if isinstance(s, Store):
        return [*s.target.indexes, s.value]
    if isinstance(s, If):
        return [s.cond]
    if isinstance(s, Return):
        return [s.value]
    if isinstance(s, CallStmt):
        return [s.call]
    if isinstance(s, Loop):
        return [s.bound] + ([s.cond] if s.cond is not None else [])
    if isinstance(s, Switch):
        return [s.sel]
    return []


def child_lists(s: Stmt) -> list[list[Stmt]]:
    if isinstance(s, If):
        return [s.then, s.els]
    if isinstance(s, Loop):
        return [s.body]
    if isinstance(s, Switch):
        return [c.body for c in s.cases]
    return []


def walk_stmts(stmts: list[Stmt]) -> Iterator[Stmt]:
    for s in stmts:
        yield s
        for lst in child_lists(s):
            yield from walk_stmts(lst)


def _base_name(name: str) -> str:
    return name.split(".")[0].split("->")[0]


def _reads(fn: Func, dropped: set[int]) -> set[str]:
    """Variables (and arrays, pointers) read by the statements that are kept, given the dropped ones (by id)."""
    out: set[str] = set()
    for s in walk_stmts(fn.body):
        if id(s) in dropped:
            continue
        for e in stmt_exprs(s):
            for n in walk_expr(e):
                if isinstance(n, Ref):
                    out.add(_base_name(n.name))
                elif isinstance(n, Elem):
                    out.add(n.base)
        if isinstance(s, Raw):
            out.update(s.reads)
    return out  # (a compound assignment reads its target only for itself: not counted, as gcc does)


def _stored_to(s: Stmt) -> str | None:
    """The variable or local array a statement only writes (what makes it dead when nothing reads it)."""
    if isinstance(s, (Assign, Step)) and "->" in s.name:
        return None  # (through the helper's pointer: the caller's struct)
    if isinstance(s, (Decl, UnionDecl, Assign, Step, ArrayDecl, RecDecl)):
        return _base_name(s.name)
    if isinstance(s, Store):
        return s.target.base
    return None


def dead_stores(fn: Func) -> set[int]:
    """Declarations and assignments of variables nothing reads (gcc -Wall would warn), and stores to
    local arrays nothing reads, to a fixpoint."""
    local_arrays = {s.name for s in walk_stmts(fn.body) if isinstance(s, ArrayDecl)}
    dropped: set[int] = set()
    while True:
        reads = _reads(fn, dropped)
        more = set()
        for s in walk_stmts(fn.body):
            name = _stored_to(s)
            if id(s) in dropped or name is None or name in reads or s.keep:
                continue
            if isinstance(s, Store) and name not in local_arrays:
                continue  # (memory the caller sees)
            more.add(id(s))
        if not more:
            return dropped
        dropped |= more


def calls_helper(fn: Func, name: str, dropped: set[int]) -> bool:
    for s in walk_stmts(fn.body):
        if id(s) in dropped:
            continue
        for e in stmt_exprs(s):
            if any(isinstance(n, Call) and n.func == name for n in walk_expr(e)):
                return True
    return False


def _used(fn: Func, dropped: set[int]) -> set[str]:
    """Names the kept statements mention: read, or stored through."""
    used = _reads(fn, dropped)
    for s in walk_stmts(fn.body):
        if id(s) not in dropped and isinstance(s, Store):
            used.add(s.target.base)
    return used


def _braced(fields: Sequence[Field], init: Iterator[Expr]) -> str:
    """The initializer of a struct of ``fields`` from the expressions ``init`` (nested structs braced)."""
    return "{ " + ", ".join(_braced(f.sub, init) if f.sub else expr_text(next(init)) for f in fields) + " }"


def render_stmts(stmts: list[Stmt], dropped: set[int], ind: str, out: list[str]) -> None:
    for s in stmts:
        if id(s) in dropped:
            continue
        if isinstance(s, Decl):
            out.append(f"{ind}{s.ty} {s.name} = {expr_text(s.init)};")
        elif isinstance(s, ArrayDecl) and s.fields:
            decl = " ".join(f.decl() for f in s.fields)
            init = ", ".join(f"{{ .f0 = {expr_text(e)} }}" for e in s.init) or "{ 0 }"  # (-Wmissing-field-initializers)
            out.append(f"{ind}struct {s.name}_rec {{ {decl} }} {s.name}[{s.length}] = {{ {init} }};")
        elif isinstance(s, ArrayDecl):
            out.append(f"{ind}{s.ty} {s.name}[{s.length}] = {{ {', '.join(expr_text(e) for e in s.init) or '0'} }};")
        elif isinstance(s, RecDecl):
            if s.copy:
                out.append(f"{ind}struct {s.tag} {s.name} = {expr_text(s.init[0])};")
            elif s.defined:
                out.append(f"{ind}struct {s.tag} {s.name} = {_braced(s.fields, iter(s.init))};")
            else:
                decl = " ".join(f.decl() for f in s.fields)
                out.append(f"{ind}struct {s.tag} {{ {decl} }} {s.name} = "
                           f"{_braced(s.fields, iter(s.init))};")
        elif isinstance(s, UnionDecl):
            ft, fm, it, im = s.kind
            init = " = { 0 }" if s.init else ""
            out.append(f"{ind}union {{ {SPELL[ft]} {fm}; {SPELL[it]} {im}; }} {s.name}{init};")
        elif isinstance(s, Assign):
            out.append(f"{ind}{s.name} {s.op} {expr_text(s.value)};")
        elif isinstance(s, Step):
            out.append(f"{ind}{s.op}{s.name};" if s.prefix else f"{ind}{s.name}{s.op};")
        elif isinstance(s, Store):
            out.append(f"{ind}{expr_text(s.target)} {s.op} {expr_text(s.value)};")
        elif isinstance(s, If):
            out.append(f"{ind}if {_paren(expr_text(s.cond))} {{")
            render_stmts(s.then, dropped, ind + "    ", out)
            if any(id(x) not in dropped for x in s.els):
                out.append(f"{ind}}} else {{")
                render_stmts(s.els, dropped, ind + "    ", out)
            out.append(f"{ind}}}")
        elif isinstance(s, Return):
            out.append(f"{ind}return {expr_text(s.value)};")
        elif isinstance(s, CallStmt):
            out.append(f"{ind}{expr_text(s.call)};")
        elif isinstance(s, Loop):
            render_loop(s, dropped, ind, out)
        elif isinstance(s, Break):
            out.append(f"{ind}break;")
        elif isinstance(s, Continue):
            out.append(f"{ind}continue;")
        elif isinstance(s, Switch):
            out.append(f"{ind}switch {_paren(expr_text(s.sel))} {{")
            for j, c in enumerate(s.cases):
                labels = [f"case {v}:" if v is not None else "default:" for v in c.labels]
                out.extend(f"{ind}{lab}" for lab in labels[:-1])
                out.append(f"{ind}{labels[-1]} {{")
                render_stmts(c.body, dropped, ind + "    ", out)
                if c.brk:
                    out.append(f"{ind}    break;")
                out.append(f"{ind}}}")
                if not c.brk and j + 1 < len(s.cases):
                    out.append(f"{ind}/* fall through */")
            out.append(f"{ind}}}")
        elif isinstance(s, Raw):
            out.extend(ind + line for line in s.lines)
        else:
            raise TypeError(s)


def render_loop(s: Loop, dropped: set[int], ind: str, out: list[str]) -> None:
    v, b = s.var, expr_text(s.bound)
    more = f" && {expr_text(s.cond)}" if s.cond is not None else ""
    body: list[str] = []
    if s.kind in ("while", "do"):
        body.append(f"{ind}    {v}++;")
    render_stmts(s.body, dropped, ind + "    ", body)
    if s.kind == "for":
        out.append(f"{ind}for ({s.ctype} {v} = 0; {v} < {b}{more}; {v}++) {{")
    elif s.kind == "down":
        out.append(f"{ind}for ({s.ctype} {v} = {b}; {v} > 0{more}; {v}--) {{")
    elif s.kind == "while":
        out += [f"{ind}{s.ctype} {v} = 0;", f"{ind}while ({v} < {b}{more}) {{"]
    else:
        out += [f"{ind}{s.ctype} {v} = 0;", f"{ind}do {{"]
    out.extend(body)
    out.append(f"{ind}}} while ({v} < {b}{more});" if s.kind == "do" else f"{ind}}}")


def _paren(t: str) -> str:
    """``t`` in one pair of parentheses (an if condition)."""
    if t.startswith("(") and _matching(t) == len(t) - 1:
        return t
    return f"({t})"


def _matching(t: str) -> int:
    depth = 0
    for i, c in enumerate(t):
        depth += c == "("
        depth -= c == ")"
        if depth == 0:
            return i
    return -1


def render_func(fn: Func, out: list[str], pragma: str = "") -> None:
    dropped = dead_stores(fn)
    params = ", ".join(f"{t}{'' if t.endswith('*') else ' '}{n}" for t, n in fn.params) or "void"
    if pragma:
        out.append(pragma)
    out.append(f"{'static ' if fn.static else ''}{fn.ret} {fn.name}({params})")
    out.append("{")
    used = _used(fn, dropped)
    out.extend(f"    (void){n};" for _, n in fn.params if n not in used)  # (-Wunused-parameter)
    render_stmts(fn.body, dropped, "    ", out)
    out.append("}")


#: A call's site in a loop also names the iteration (``tag_sites``): site + SITE_STEP * (counters, one
#: base-16 digit per loop: f's two levels, then the helper's one). Sites themselves stay below SITE_STEP.
SITE_STEP = 1024
LOOP_DIGITS = {"f": 2, "h": 1}


def tag_sites(p: Program) -> None:
    """Give each call with a site in a loop its iteration (``Call.tag``): the counters of the loops around
    it (each below 16, every counter taking one value per iteration), so a lane makes each (site, tag)
    call at most once per call of f. A call the vector code makes for several lanes is then theirs in
    lane order, as at a site outside loops: verify's call log needs no search (see the call log section
    of verify's harness.c), which calls in loops with a small set of values made slow or wrong."""
    def walk(stmts: list[Stmt], loops: list[Loop], first: int, digits: int) -> None:
        if len(loops) > digits:
            raise AssertionError(f"more than {digits} nested loops: their iterations do not fit a site")
        tag = "".join(f" + {SITE_STEP * 16 ** (first + j)} * {lp.var if lp.ctype == 'int' else f'(int){lp.var}'}"
                      for j, lp in enumerate(loops))
        for st in stmts:
            for e in stmt_exprs(st):
                for n in walk_expr(e):
                    if isinstance(n, Call) and n.site is not None:
                        n.tag = tag
            if isinstance(st, Loop) and any(isinstance(n, Call) and n.site is not None
                                            for e in stmt_exprs(st) for n in walk_expr(e)):
                raise AssertionError("a call in a loop's test: one site for every iteration")
            for lst in child_lists(st):
                walk(lst, [*loops, st] if isinstance(st, Loop) else loops, first, digits)

    walk(p.f.body, [], 0, LOOP_DIGITS["f"])
    if p.helper is not None:
        walk(p.helper.body, [], LOOP_DIGITS["f"], LOOP_DIGITS["h"])


def _tables_used(p: Program) -> list[Table]:
    names: set[str] = set()
    for fn in (p.f, p.helper):
        if fn is not None and (fn is p.f or calls_helper(p.f, fn.name, dead_stores(p.f))):
            names |= _reads(fn, dead_stores(fn))
    return [t for t in p.tables if t.name in names]


def render(p: Program) -> str:
    out: list[str] = []
    if p.expect_error:
        out.append(f"/* expand-fuzz: expect-error {p.expect_error} */")
    out.append(f"/* expand-fuzz program {p.label} */")
    opts = p.modes.text()
    if opts:
        out.append(f"/* expand-fuzz: options {opts} */")
    if p.may_refuse:
        out.append("/* expand-fuzz: may-refuse shared-store */")
    tag_sites(p)
    if p.math and re.search(r"\b(?:exp10f|nextupf|roundevenf)\(", "".join(
            expr_text(e) for fn in (p.f, p.helper) if fn for s in walk_stmts(fn.body) for e in stmt_exprs(s))):
        out.append("#define _GNU_SOURCE")  # (for GNU and TS 18661 declarations; not always: verify's pch)
    out.append("#include <stdint.h>")
    if p.math:
        out.append("#include <math.h>")
    out.append('#include "fuzz_log.h"')
    out.append("")
    for t in _tables_used(p):
        if t.fields:
            decl = " ".join(f.decl() for f in t.fields)
            out.append(f"static const struct {t.name}_rec {{ {decl} }} {t.name}[{len(t.values)}] = "
                       f"{{ {', '.join(t.values)} }};")
        elif t.rows:
            cols = len(t.values) // t.rows
            rows = ", ".join("{ " + ", ".join(t.values[r * cols:(r + 1) * cols]) + " }" for r in range(t.rows))
            out.append(f"static const {t.ty} {t.name}[{t.rows}][{cols}] = {{ {rows} }};")
        else:
            out.append(f"static const {t.ty} {t.name}[{len(t.values)}] = {{ {', '.join(t.values)} }};")
    helper = p.helper is not None and calls_helper(p.f, p.helper.name, dead_stores(p.f))
    types = [t for t, _ in p.f.params] + ([t for t, _ in p.helper.params] if helper and p.helper else [])
    for tag, fields in p.records:
        if any(t.endswith(f"struct {tag} *") or t == f"struct {tag}" for t in types) or any(
                isinstance(s, RecDecl) and s.tag == tag for s in walk_stmts(p.f.body)):
            out.append(f"struct {tag} {{ {' '.join(f.decl() for f in fields)} }};")
    if out[-1] != "":
        out.append("")
    if p.helper is not None and calls_helper(p.f, p.helper.name, dead_stores(p.f)):
        render_func(p.helper, out)
        out.append("")
    pragma = ""
    if p.modes.pragma and (p.modes.uniform or p.modes.linear):
        pragma = "#pragma omp declare simd" + (f" uniform({', '.join(p.modes.uniform)})" if p.modes.uniform else "") \
            + (f" linear({', '.join(p.modes.linear)})" if p.modes.linear else "")
    render_func(p.f, out, pragma)
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- generation

#: What ``--without`` can turn off (all on by default).
FEATURES = ("loops", "control", "narrow", "memory", "modes", "math", "guards", "records")


@dataclass
class GenOptions:
    """Knobs of the generator (the defaults are what the CI fuzz run uses)."""

    loops: bool = True  # loops with per-lane trip counts, nested, break/continue, return inside
    control: bool = True  # while, do, switch
    narrow: bool = True  # char, short, _Bool, unsigned narrow types and their promotions
    memory: bool = True  # pointer parameters, file-scope tables, local arrays
    records: bool = True  # tables of records (structs with scalar and array fields), read a field at a time
    modes: bool = True  # --lanes multiples, --boscc, --abi, --wrapper, --vector-math, shapes, the clang frontend
    guards: bool = True  # float -> int conversions and shifts under the program's own range checks
    diagnostics: float = 0.03  # share of programs with a construct expand must refuse
    max_params: int = 3
    max_stmts: int = 7  # top-level statements of f (besides declarations and the final return)
    max_block: int = 3
    max_nest: int = 2  # if/else, loop and switch nesting
    max_depth: int = 3  # expression nesting
    helper: float = 0.6
    union: float = 0.4
    math: float = 0.15

    @staticmethod
    def without(names: list[str]) -> GenOptions:
        o = GenOptions()
        for n in names:
            if n not in FEATURES:
                raise ValueError(f"unknown feature '{n}' (one of {', '.join(FEATURES)})")
            if n == "math":
                o.math = 0.0
            else:
                setattr(o, n, False)
        return o


class Budget:
    """Calls (log_T, the helper) left in one full expression: at most one, so the order is defined."""

    def __init__(self, calls: int) -> None:
        self.calls = calls


@dataclass
class Var:
    ty: str
    name: str
    assignable: bool = True
    counter: bool = False  # a loop counter: 0..7 (indexes any local array or table)


@dataclass
class Mem:
    """Memory the program reads or writes: kind ``gang`` (a varying pointer parameter: ``*p``, the
    lane's own element), ``shared`` (a uniform pointer, read: consecutive, uniform and varying
    indexes), ``out`` (a uniform pointer, read and written at ``out[i]``, ``i`` linear: each lane's
    own element), ``scatter`` (a uniform pointer, one store at a varying index), ``table`` (a
    file-scope table) or ``local`` (a local array)."""

    name: str
    ty: str
    kind: str
    length: int  # what an index may reach: a power of two
    rows: int = 0  # a two-dimensional table: rows x length
    fields: list[Field] = field(default_factory=list)  # a table of records: its fields (reads: of type ty)


DIAGNOSTICS = ("static", "volatile", "assembly")
#: Element types of memory (no _Bool: a uniform array holds random bits).
MEM_TYPES = ("float", "double", "int", "unsigned", "int64_t", "uint64_t", "short", "unsigned short",
             "signed char", "unsigned char")
#: Loop counters.
COUNTER_TYPES = ("int", "int", "int", "unsigned", "short", "unsigned char", "int64_t")
#: libm functions the programs call: (name, result type, argument types); float ones are mathlib's.
MATH_FUNCS: tuple[tuple[str, str, tuple[str, ...]], ...] = tuple(
    (n, {"f32": "float", "i32": "int"}[r], tuple({"f32": "float", "i32": "int"}[a] for a in args))
    for n, (r, args) in ((n, LIBM[n]) for n in EXPANDM_FUNCTIONS if n in LIBM)) + tuple(
    (n, {"f64": "double", "i32": "int"}[LIBM[n][0]], tuple({"f64": "double", "i32": "int"}[a] for a in LIBM[n][1]))
    for n in ("fabs", "sqrt", "floor", "ceil", "trunc", "rint", "round", "fmin", "fmax", "fma", "copysign", "exp",
              "log", "sin", "atan2", "pow", "fmod", "hypot", "cbrt", "ilogb", "scalbn")) + (
    ("fminf", "float", ("float", "float")), ("fmaxf", "float", ("float", "float")),
    ("fmaf", "float", ("float", "float", "float")), ("fdimf", "float", ("float", "float")))
#: Bit-exact wherever they are computed: MathOps (expand/mathcalls.py) and SLEEF's exact functions.
EXACT_MATH = frozenset(f"{n}{s}" for s in ("f", "") for n in (
    "fabs", "copysign", "sqrt", "floor", "ceil", "trunc", "rint", "nearbyint", "fmin", "fmax", "fma", "fdim", "fmod",
    "nextafter", "remainder", "round"))
#: Functions libmvec and SLEEF both have, within a few ULP: only as a ``float`` or ``double`` program's
#: returned value with those libraries (``verify``'s ULP mode), never feeding anything exact.
ULP_MATH = ("exp", "log", "sin", "cos", "tanh", "atan", "cbrt", "log2", "exp2", "asinh")


def vrange(ty: str) -> tuple[int, int]:
    """The values an integer type holds on some target (plain char: signed on x86, unsigned elsewhere)."""
    if ty in NARROW:
        bits, signed = NARROW[ty]
        if bits == 1:
            return 0, 1
        if signed is None:
            return -128, 255
        return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    bits = BITS[ty]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ty in ("int", "int64_t") else (0, (1 << bits) - 1)


def safe_range(ty: str) -> tuple[int, int]:
    """The values an integer type holds on every target (plain char: 0..127)."""
    return (0, 127) if ty == "char" else vrange(ty)


def promoted(ty: str) -> str:
    """The type of ``ty`` after the integer promotions (narrow types become int)."""
    return "int" if ty in NARROW else ty


def common(a: str, b: str) -> str:
    """The usual arithmetic conversions of two promoted integer types."""
    if a == b:
        return a
    ra, rb = BITS[a], BITS[b]
    if ra != rb:
        return a if ra > rb else b  # (a 64-bit type holds every 32-bit value)
    return UNSIGNED_OF[a]


def _bool_safe(e: Expr) -> bool:
    """Whether ``(_Bool)e`` leaves gcc's -Wint-in-bool-context quiet (no '*', '<<' or '?:' it may see)."""
    return not any(t in expr_text(e) for t in (" * ", " << ", " ? "))


class Gen:
    def __init__(self, rng: random.Random, opts: GenOptions, label: str) -> None:
        self.rng = rng
        # (what makes a table one of records, its fields and which field a read takes: a stream of its
        # own, so that the programs of a seed keep their shape with records and without)
        self.rec = random.Random(f"expand-fuzz-records:{label}")
        self.o = opts
        self.label = label
        self.site = 0
        self.helper: Func | None = None
        self.in_helper = False
        self.helper_sites = 0
        self.helper_calls = 0
        self.names = 0
        self.math = False
        self.mems: list[Mem] = []
        self.ctl: list[str] = []  # enclosing loops and switches, innermost last
        self.loop_nest = 0
        self.linear: str | None = None
        self.uniform: list[Var] = []  # uniform value parameters
        self.tables: list[Table] = []
        self.modes = Modes()
        self.in_index = 0
        self.structs: list[tuple[str, str]] = []  # local structs: (tag, name)
        self.struct_fields_of: dict[str, list[Field]] = {}  # their fields, by tag
        self.records: list[tuple[str, list[Field]]] = []  # the record types of pointer parameters
        self.h_fields: list[Field] = []  # the helper's struct (``struct h_rec``: a parameter, maybe its result)
        self.h_pointer = False  # the helper takes a pointer to it (the caller's struct local: ``h(&s3, ...)``)

    # ------------------------------------------------------------ helpers
    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def fresh(self, base: str = "v") -> str:
        self.names += 1
        return f"{base}{self.names}"

    def next_site(self) -> str:
        if self.in_helper:
            self.helper_sites += 1
            return f"site + {self.helper_sites}"
        self.site += 1
        return str(self.site)

    def any_type(self) -> str:
        """A type for a variable, parameter, cast or comparison."""
        if self.o.narrow and self.chance(0.25):
            return self.pick(list(NARROW))
        return self.pick(TYPES)

    def int_type(self) -> str:
        return self.pick([*INTS, *(t for t in NARROW if t != "_Bool")] if self.o.narrow else INTS)

    def helper_value_type(self) -> str:
        """The type of a helper call's value in an expression (a struct result: its first field's, the
        field its calls read being drawn after: they may read a float where this says int, converted
        as any value is)."""
        h = self.helper
        assert h is not None
        return h.ret if h.ret != "struct h_rec" else ("float" if any(f.ty in FLOATS for f in self.h_fields)
                                                       else self.h_fields[0].ty)

    def mem_scope(self) -> list[Mem]:
        return [m for m in self.mems if not self.in_helper or m.kind == "table"]

    # ------------------------------------------------------------ literals
    def lit(self, ty: str) -> Lit:
        r = self.rng
        if ty in NARROW:
            lo, hi = safe_range(ty)
            v = self.pick([lo, hi, 0, 1, r.randint(lo, hi), r.randint(lo, hi)])
            return Lit(ty, f"(-{-v})" if v < 0 else str(v))
        if ty in FLOATS:
            suf = "f" if ty == "float" else ""
            c = r.random()
            if c < 0.5:
                text = self.pick(["0.0", "1.0", "0.5", "2.0", "-1.0", "3.5", "-0.0", "0.1", "1e10", "1e-10",
                                  "16777216.0", "2147483648.0", "-2147483904.0", "4294967296.0", "65535.5",
                                  "1.5e30", "1e-30", "255.0", "-0.75", "9007199254740992.0"])
                if ty == "float" and text in ("9007199254740992.0",):
                    text = "8388608.0"
            else:
                mag = 10.0 ** r.uniform(-6, 12)
                v = r.choice((-1, 1)) * mag
                text = f"{v:.9g}" if ty == "float" else f"{v:.17g}"
                if "." not in text and "e" not in text:
                    text += ".0"
            if text.startswith("-"):
                return Lit(ty, f"({text}{suf})")
            return Lit(ty, text + suf)
        bits = BITS[ty]
        signed = ty in ("int", "int64_t")
        c = r.random()
        if c < 0.35:
            v = r.randint(-8, 16) if signed else r.randint(0, 16)
        elif c < 0.55:
            v = 1 << r.randrange(bits)
            v = v - 1 if r.random() < 0.5 else v
        elif c < 0.7:
            v = self.pick([0, 1, 2, 3, 7, 31, 255, 65535, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF])
        else:
            v = r.getrandbits(bits)
        if signed:
            v &= (1 << bits) - 1
            if v >= 1 << (bits - 1):
                v -= 1 << bits
            if v == -(1 << (bits - 1)):
                return Lit(ty, INT_MIN_TEXT[ty])
        else:
            v &= (1 << bits) - 1
        suffix = {"int": "", "unsigned": "u", "int64_t": "L", "uint64_t": "UL"}[ty]
        body = f"0x{abs(v):x}" if abs(v) > 4096 and r.random() < 0.5 else str(abs(v))
        if signed and bits == 32 and abs(v) > 0x7FFFFFFF:
            body = str(abs(v))
        text = f"{body}{suffix}"
        return Lit(ty, f"(-{text})" if v < 0 else text)

    def interior_lit(self, ty: str) -> Lit:
        """A literal strictly inside ``ty``'s range (a comparison with it is never always true or false)."""
        if ty == "_Bool":
            return Lit("int", self.pick(["0", "1"]))
        if ty in NARROW:
            lo, hi = safe_range(ty)
            v = self.rng.randint(lo + 1, hi - 1)
            return Lit(ty, f"(-{-v})" if v < 0 else str(v))
        for _ in range(20):
            e = self.lit(ty)
            lo, hi = vrange(ty)
            v = _lit_value(e.text)
            if v is not None and lo < v < hi:
                return e
        return self.one(ty)

    @staticmethod
    def zero(ty: str) -> Lit:
        return Lit(ty, {"int": "0", "unsigned": "0u", "int64_t": "0L", "uint64_t": "0UL", "float": "0.0f",
                        "double": "0.0"}.get(ty, "0"))

    @staticmethod
    def one(ty: str) -> Lit:
        return Lit(ty, {"int": "1", "unsigned": "1u", "int64_t": "1L", "uint64_t": "1UL", "float": "1.0f",
                        "double": "1.0"}.get(ty, "1"))

    # ------------------------------------------------------------ conversions
    def convert(self, e: Expr, dst: str, scope: list[Var] | None = None) -> Expr:
        """``convert``, or (with guards on) a float converted inside the arm its range check selects,
        so that the vector code converts every lane, out-of-range and NaN ones too. A range check
        repeats its operand: a long one is replaced by a variable of ``scope`` or a literal."""
        if e.ty in FLOATS and dst not in FLOATS and dst != "_Bool" and len(expr_text(e)) > 60:
            same = [v for v in scope or [] if v.ty == e.ty]
            e = Ref(e.ty, self.pick(same).name) if same else self.lit(e.ty)
        if self.o.guards and e.ty in FLOATS and dst not in FLOATS and dst != "_Bool" and self.chance(0.35):
            lo_t, hi_t = clamp_texts(dst, e.ty)
            return Op(dst, f"(({{0}} > {lo_t} && {{0}} < {hi_t}) ? ({dst}){{0}} : 0)", [e])
        return convert(e, dst)

    # ------------------------------------------------------------ expressions
    def leaf(self, ty: str, scope: list[Var]) -> Expr:
        same = [v for v in scope if v.ty == ty]
        c = self.rng.random()
        if same and c < 0.55:
            v = self.pick(same)
            return Ref(ty, v.name)
        mems = [m for m in self.mem_scope() if m.kind != "scatter"] if not self.in_index else []
        if mems and c < 0.65:
            return self.convert(self.mem_read(self.pick(mems), scope), ty, scope)
        if scope and c < 0.8:
            v = self.pick(scope)
            return self.convert(Ref(v.ty, v.name), ty, scope)
        return self.lit(ty)

    def expr(self, ty: str, depth: int, scope: list[Var], budget: Budget) -> Expr:
        if ty == "_Bool":
            return self.bool_expr(depth, scope, budget)
        if ty in NARROW:
            return self.narrow_expr(ty, depth, scope, budget)
        if depth <= 0 or self.chance(0.3):
            return self.leaf(ty, scope)
        d = depth - 1
        r = self.rng.random()
        isint = ty in INTS
        if budget.calls > 0 and r < 0.08 and self.site < 90:
            budget.calls -= 1
            return Call(ty, LOG_FN[ty], [self.expr(ty, d, scope, Budget(0))], self.next_site())
        if (budget.calls > 0 and self.helper_callable() and r < 0.14
                and self.helper_calls < 4 and not (self.helper_value_type() in FLOATS and ty not in FLOATS)):
            # (a float result would be range-checked before becoming an int: three calls)
            budget.calls -= 1
            return self.convert(self.helper_call(d, scope), ty, scope)
        r = self.rng.random()
        if r < 0.12:
            src = self.any_type()
            if src in FLOATS and ty not in FLOATS:  # the range check repeats the operand: keep it small, no calls
                return self.convert(self.expr(src, min(d, 1), scope, Budget(0)), ty, scope)
            return self.convert(self.expr(src, d, scope, budget), ty, scope)
        if r < 0.2:
            return Op(ty, "({0} ? {1} : {2})", [self.cond(d, scope, budget), self.expr(ty, d, scope, budget),
                                                self.expr(ty, d, scope, budget)])
        if r < 0.26 and ty == "int":
            return self.compare(d, scope, budget)
        if r < 0.31 and ty == "int" and self.o.narrow:
            return self.promote_mix(d, scope, budget)
        if r < 0.36:
            return self.implicit_mix(ty, d, scope, budget)
        if r < 0.43 and self.chance(self.o.math * (5 if ty in FLOATS else 1)):
            call = self.math_call(ty, d, scope)
            if call is not None:
                return call
        if r < 0.48:
            return self.unary(ty, d, scope, budget)
        if isint:
            kind = self.pick(["arith", "arith", "bit", "bit", "shift", "shift", "div"])
        else:
            kind = self.pick(["arith", "arith", "arith", "div"])
        if kind == "arith":
            op = self.pick(["+", "-", "*"])
            a, b = self.expr(ty, d, scope, budget), self.expr(ty, d, scope, budget)
            if ty in ("int", "int64_t"):
                u = UNSIGNED_OF[ty]
                return Op(ty, f"({ty})(({u}){{0}} {op} ({u}){{1}})", [a, b])
            if op != "*" and ty in FLOATS and (_zero_lit(a) or _zero_lit(b)):
                op = "*"  # see _zero_lit
            return Op(ty, f"({{0}} {op} {{1}})", [a, b])
        if kind == "bit":
            op = self.pick(["&", "|", "^"])
            a, b = self.expr(ty, d, scope, budget), self.expr(ty, d, scope, budget)
            if op == "&" and (_zero_lit(a) or _zero_lit(b)):
                op = "|"  # (x & 0 folds to 0: compared, -Wtype-limits)
            return Op(ty, f"({{0}} {op} {{1}})", [a, b])
        if kind == "shift":
            return self.shift(ty, self.pick(["<<", ">>"]), self.expr(ty, d, scope, budget), d, scope, budget)
        # guarded division: the operands appear twice, so they make no calls
        a, b = self.expr(ty, min(d, 1), scope, Budget(0)), self.expr(ty, min(d, 1), scope, Budget(0))
        if ty in FLOATS:
            return Op(ty, "({0} / {1})", [a, b])
        return self.divide(ty, self.pick(["/", "%"]), a, b, scope)

    def bool_expr(self, depth: int, scope: list[Var], budget: Budget) -> Expr:
        """A _Bool value: a _Bool variable, a truth value, or another value converted."""
        same = [v for v in scope if v.ty == "_Bool"]
        r = self.rng.random()
        if same and (depth <= 0 or r < 0.35):
            return Ref("_Bool", self.pick(same).name)
        if depth <= 0 or r < 0.6:
            c = self.compare(max(depth - 1, 1), scope, budget)
            c.ty = "_Bool"
            return c
        return to_bool(self.expr(self.any_type(), depth - 1, scope, budget))

    def narrow_expr(self, ty: str, depth: int, scope: list[Var], budget: Budget) -> Expr:
        """A value of narrow type ``ty`` (its C type may be int after promotions; the value fits ``ty``)."""
        if depth <= 0 or self.chance(0.3):
            return self.leaf(ty, scope)
        d = depth - 1
        r = self.rng.random()
        if r < 0.1 and budget.calls > 0 and self.site < 90:
            budget.calls -= 1
            inner = self.convert(self.narrow_expr(ty, d, scope, Budget(0)), "int", scope)
            return Op(ty, f"({ty}){{0}}", [Call("int", "log_i32", [inner], self.next_site())])
        if r < 0.3:
            return Op(ty, f"({ty}){{0}}", [self.expr(self.pick(INTS), d, scope, budget)])
        if r < 0.55:
            return Op(ty, f"({ty}){{0}}", [self.promote_mix(d, scope, budget)])
        if r < 0.7:
            return Op(ty, "({0} ? {1} : {2})", [self.cond(d, scope, budget), self.narrow_expr(ty, d, scope, budget),
                                                self.narrow_expr(ty, d, scope, budget)])
        src = self.any_type()
        if src in FLOATS:
            return self.convert(self.expr(src, min(d, 1), scope, Budget(0)), ty, scope)
        return self.convert(self.expr(src, d, scope, budget), ty, scope)

    def promote_mix(self, d: int, scope: list[Var], budget: Budget) -> Expr:
        """int arithmetic on narrow operands (the integer promotions), never overflowing."""
        ta, tb = self.pick(list(NARROW)), self.pick(list(NARROW))
        a, b = self.expr(ta, d, scope, budget), self.expr(tb, d, scope, budget)
        (alo, ahi), (blo, bhi) = vrange(ta), vrange(tb)
        kind = self.pick(["arith", "arith", "bit", "shift", "div", "unary"])
        if kind == "arith":
            op = self.pick(["+", "-", "*"])
            if op == "*" and max(abs(x * y) for x in (alo, ahi) for y in (blo, bhi)) > 0x7FFFFFFF:
                op = "+"
            return Op("int", f"({{0}} {op} {{1}})", [a, b])
        if kind == "bit":
            return Op("int", f"({{0}} {self.pick(['&', '|', '^'])} {{1}})", [a, b])
        if kind == "shift":
            if self.chance(0.5):
                n = self.rng.randrange(8)  # (past 7, (unsigned char)(x << n) folds to 0: compared, -Wtype-limits)
                if alo < 0:
                    return Op("int", f"(int)((unsigned){{0}} << {n})", [a])
                return Op("int", f"({{0}} << {n})", [a])
            return Op("int", "({0} >> ({1} & 15))", [a, self.convert(b, "int", scope)])
        if kind == "div":
            a, b = self.expr(ta, min(d, 1), scope, Budget(0)), self.expr(tb, min(d, 1), scope, Budget(0))
            if _const(b) or _warns(b, self.zero("int")):
                b = self.var_leaf(tb, scope)
            return Op("int", f"({{1}} != 0 ? {{0}} {self.pick(['/', '%'])} {{1}} : {{0}})", [a, b])
        if ta not in ("signed char", "int8_t", "short", "int16_t") or self.chance(0.5):
            return Op("int", "(-{0})", [a])
        return Op("int", "(~{0})", [a])  # (of an unsigned narrow value: -Wsign-compare where compared)

    def shift(self, ty: str, op: str, a: Expr, d: int, scope: list[Var], budget: Budget) -> Expr:
        if self.o.guards and self.chance(0.3):
            n = self.shift_count(scope)
            test = self.count_test(ty, n) if n is not None else None
            if test is not None:
                # (the shift in the arm its test selects: the vector code shifts every lane, by any count)
                calls = any(isinstance(k, Call) for k in walk_expr(a))  # (a call site appears once)
                alt = self.zero(ty) if self.chance(0.7) or calls else None
                arms = f"{self.shifted(ty, op)} : {alt.text if alt else '{0}'}"
                return Op(ty, f"(({test}) ? {arms})", [a, n], atomic=True)
        mask = BITS[ty] - 1
        if self.chance(0.4):
            n: Expr = Lit("int", str(self.rng.randrange(BITS[ty])))
            cnt = "{1}"
        else:
            n = self.expr(self.int_type(), d, scope, budget)
            cnt = f"({{1}} & {mask})"
        if op == "<<" and ty in ("int", "int64_t"):
            u = UNSIGNED_OF[ty]
            return Op(ty, f"({ty})(({u}){{0}} << {cnt})", [a, n])
        return Op(ty, f"({{0}} {op} {cnt})", [a, n])

    def shift_count(self, scope: list[Var]) -> Expr | None:
        """A count for a shift under the program's own test of it: an integer variable, sometimes masked wider
        than any width (``(v & 63)``: in range half the time); never a constant (its test would be one)."""
        ints = [v for v in scope if v.ty in INTS and "." not in v.name and not v.counter]
        if not ints:
            return None
        v = self.pick(ints)
        n: Expr = Ref(v.ty, v.name)
        if self.chance(0.4):
            n = Op(v.ty, "({0} & {1})", [n, Lit("int", self.pick(["63", "127"]))])
        return n

    @staticmethod
    def count_test(ty: str, n: Expr) -> str | None:
        """The test (``{1}`` the count) that a shift of a ``ty`` value by ``n`` is defined, of the bounds
        ``n``'s type and value may pass (gcc's -Wtype-limits would object to the others), or None if none."""
        lo, hi = value_range(n) or vrange(n.ty)
        if isinstance(n, Op) and n.fmt == "({0} & {1})" and isinstance(n.kids[1], Lit):
            lo, hi = 0, int(n.kids[1].text)  # (value_range bounds the bits of any bit operation, sign too)
        parts = ([] if lo >= 0 or n.ty not in ("int", "int64_t") else ["{1} >= 0"]) + \
            ([f"{{1}} < {BITS[ty]}"] if hi >= BITS[ty] else [])
        return " && ".join(parts) or None

    @staticmethod
    def shifted(ty: str, op: str) -> str:
        """``{0} op {1}`` on ``ty`` (a left shift of a signed value through its unsigned type)."""
        if op == "<<" and ty in ("int", "int64_t"):
            return f"({ty})(({UNSIGNED_OF[ty]}){{0}} << {{1}})"
        return f"({{0}} {op} {{1}})"

    def divide(self, ty: str, op: str, a: Expr, b: Expr, scope: list[Var]) -> Expr:
        # no warnings about the guard: a constant divisor, bit operations or truth values compared
        if _const(b) or _warns(b, self.zero(ty)):
            b = self.var_leaf(ty, scope)
        if _warns(a, self.zero(ty)):
            a = self.var_leaf(ty, scope)
        lo = vrange(ty)[0]
        if ty in ("int", "int64_t") and _may_be(a, lo) and _may_be(b, -1):
            m1 = "(-1)" if ty == "int" else "(-1L)"
            fmt = (f"(({{1}} != 0 && !({{0}} == {INT_MIN_TEXT[ty]} && {{1}} == {m1})) ? {{0}} {op} {{1}} : {{0}})")
        else:  # (one of them cannot be: gcc -Wtype-limits would see an always false comparison)
            fmt = f"({{1}} != 0 ? {{0}} {op} {{1}} : {{0}})"
        return Op(ty, fmt, [a, b])

    def var_leaf(self, ty: str, scope: list[Var]) -> Expr:
        v = self.pick([v for v in scope if "." not in v.name] or scope)
        return self.convert(Ref(v.ty, v.name), ty, scope)

    def unary(self, ty: str, d: int, scope: list[Var], budget: Budget) -> Expr:
        a = self.expr(ty, d, scope, budget)
        if ty in FLOATS:
            return Op(ty, "(-{0})", [a])
        if self.chance(0.5) and not (isinstance(_strip_casts(a), Op) and _strip_casts(a).cond) \
                and not _zero_extends(a, ty):
            return Op(ty, "(~{0})", [a])
        if ty in ("int", "int64_t"):
            u = UNSIGNED_OF[ty]
            return Op(ty, f"({ty})(({u})0 - ({u}){{0}})", [a])
        return Op(ty, "(-{0})", [a])

    def implicit_mix(self, ty: str, d: int, scope: list[Var], budget: Budget) -> Expr:
        """A binary operation whose operands differ in type: C's usual arithmetic conversions."""
        narrow = [t for t in NARROW if t != "_Bool"] if self.o.narrow else []
        if ty == "unsigned":
            other, ops = self.pick(["int", "int", *narrow[:3]]), ["+", "-", "*", "&", "|", "^"]
        elif ty == "uint64_t":
            other, ops = self.pick(["int", "unsigned", "int64_t", *narrow[:3]]), ["+", "-", "*", "&", "|", "^"]
        elif ty == "int64_t":
            other, ops = self.pick(["int", "unsigned", *narrow[:3]]), ["&", "|", "^"]
        elif ty == "float":
            other, ops = self.pick([*INTS, *narrow[:3]]), ["+", "-", "*", "/"]
        elif ty == "double":
            other, ops = self.pick([*INTS, "float", *narrow[:3]]), ["+", "-", "*", "/"]
        elif narrow and self.chance(0.5):  # int: a narrow operand, promoted
            return Op(ty, f"({{0}} {self.pick(['&', '|', '^'])} {{1}})",
                      [self.expr(ty, d, scope, budget), self.expr(self.pick(narrow), d, scope, budget)])
        else:  # int: plain bit op
            return Op(ty, f"({{0}} {self.pick(['&', '|', '^'])} {{1}})",
                      [self.expr(ty, d, scope, budget), self.expr(ty, d, scope, budget)])
        a, b = self.expr(ty, d, scope, budget), self.expr(other, d, scope, budget)
        if self.chance(0.5):
            a, b = b, a
        op = self.pick(ops)
        if op == "/" and b.ty not in FLOATS:  # gcc -Wall: "division by zero" for what folds to an integer 0
            op = "*"
        if op in "+-" and (_zero_lit(a) or _zero_lit(b)):
            op = "*"  # see _zero_lit
        return Op(ty, f"({{0}} {op} {{1}})", [a, b])

    def comparable(self, a: Expr, b: Expr, op: str) -> tuple[Expr, Expr, str]:
        """``a op b`` made quiet under -Wextra: an operand whose signedness the usual conversions would
        change converted explicitly (-Wsign-compare), and a constant compared with an integer of a
        type that cannot reach it, or reaches it at its end, made one inside (-Wtype-limits)."""
        ints = [*INTS, *NARROW]
        if a.ty in ints and b.ty in ints:
            c = common(promoted(a.ty), promoted(b.ty))
            if c in ("unsigned", "uint64_t"):
                if promoted(a.ty) in ("int", "int64_t"):
                    a = convert(a, c)
                if promoted(b.ty) in ("int", "int64_t"):
                    b = convert(b, c)
            for x, y in ((a, b), (b, a)):
                if _const(y) and not _const(x):
                    chain = _cast_chain(x)
                    if "_Bool" in chain:  # (-Wbool-compare, through the casts)
                        lit, op = Lit("int", self.pick(["0", "1"])), self.pick(["==", "!="])
                    elif len(chain) == 1 and isinstance(x, (Ref, Elem, Call)):
                        lit = self.interior_lit(x.ty)
                    else:  # gcc sees through the casts: a value every type of them holds
                        lit = Lit("int", str(self.rng.randint(1, 126)))
                    a, b = (x, lit) if x is a else (lit, x)
                    break
        return a, b, op

    def compare(self, d: int, scope: list[Var], budget: Budget) -> Expr:
        op = self.pick(["<", "<=", ">", ">=", "==", "!="])
        for _ in range(4):
            ta = self.any_type()
            tb = ta if self.chance(0.6) else self.any_type()
            a = self.expr(ta, d, scope, budget)
            b = self.expr(tb, d, scope, budget)
            a, b, o = self.comparable(a, b, op)
            if not _warns(a, b):
                return Op("int", f"({{0}} {o} {{1}})", [a, b], cond=True)
        v = self.pick([v for v in scope if "." not in v.name] or scope)
        a, b, o = self.comparable(Ref(v.ty, v.name), self.lit(v.ty), op)
        return Op("int", f"({{0}} {o} {{1}})", [a, b], cond=True)

    def cond(self, depth: int, scope: list[Var], budget: Budget, top: bool = False) -> Expr:
        r = self.rng.random()
        if depth <= 0 or r < 0.55:
            return self.compare(max(depth, 1), scope, budget)
        d = depth - 1
        if r < 0.85:
            op = self.pick(["&&", "||"])
            # && and || are sequence points: at the top of a condition each side may make a call
            lb = Budget(1) if top else budget
            rb = Budget(1) if top else budget
            return Op("int", f"({{0}} {op} {{1}})", [self.cond(d, scope, lb, top), self.cond(d, scope, rb, top)],
                      cond=True)
        return Op("int", "(!{0})", [self.cond(d, scope, budget)], cond=True)

    def helper_call(self, d: int, scope: list[Var], whole: bool = False) -> Expr:
        """A call of the helper; when it returns its struct, one field of the result (``h(...).f1``)
        unless ``whole``."""
        h = self.helper
        assert h is not None
        self.helper_calls += 1
        args = [self.struct_value(scope) if t == "struct h_rec" else self.struct_address() if t == "struct h_rec *"
                else self.expr(t, min(d, 1), scope, Budget(0)) for t, _ in h.params[:-1]]
        call = Call(h.ret, h.name, args, str(100 * self.helper_calls), site_first=False)
        if h.ret != "struct h_rec" or whole:
            return call
        f = self.rec.choice(self.h_fields)
        return Op(f.ty, f"{{0}}.{f.name}", [call], atomic=True)

    def compound_literal(self, tag: str, scope: list[Var]) -> Expr:
        """``(struct tag){ e0, { e1, e2 } }`` of the struct locals' type ``tag``, one expression per scalar."""
        fields = self.struct_fields_of[tag]
        kinds = [t for f in fields for t, _ in f.leaves("")]
        vals = [self.expr(t, 1, scope, Budget(0)) for t in kinds]
        slots = iter(range(len(vals)))

        def braced(fs: Sequence[Field]) -> str:
            return "{{ " + ", ".join(braced(f.sub) if f.sub else f"{{{next(slots)}}}" for f in fs) + " }}"

        return Op(f"struct {tag}", f"(struct {tag}){braced(fields)}", vals, atomic=True)

    def struct_address(self) -> Expr:
        """``&s3``: the address of one of f's locals of the helper's struct type (``helper_callable``)."""
        mine = [n for t, n in self.structs if t == "h_rec"]
        return Op("struct h_rec *", "(&{0})", [Ref("struct h_rec", self.rec.choice(mine))], atomic=True)

    def helper_callable(self) -> bool:
        """The helper may be called inside an expression: not from itself, and not when it takes a
        pointer to f's struct (it writes that struct, and C leaves unspecified whether a read of it
        elsewhere in the expression comes before or after the call: ``helper_statement``)."""
        return self.helper is not None and not self.in_helper and not self.h_pointer

    def helper_statement(self, scope: list[Var]) -> list[Stmt]:
        """``t3 = h(&s2, ...);``: a call of the helper that writes f's struct, alone in its statement
        (its arguments are read before the call); none before f has a struct of the helper's type."""
        h = self.helper
        if h is None or self.in_helper or self.helper_calls >= 4 or not any(t == "h_rec" for t, _ in self.structs):
            return []
        name = self.fresh("t")
        call = self.helper_call(1, scope)
        scope.append(Var(h.ret, name))
        return [Decl(h.ret, name, call)]

    def struct_value(self, scope: list[Var]) -> Expr:
        """A value of the helper's struct: a local of its type, or a compound literal."""
        mine = [n for t, n in self.structs if t == "h_rec"]
        if mine and self.rec.random() < 0.7:
            return Ref("struct h_rec", self.rec.choice(mine))
        vals = [self.expr(f.ty, 1, scope, Budget(0)) for f in self.h_fields]
        return Op("struct h_rec", "(struct h_rec){{ " + ", ".join(f"{{{j}}}" for j in range(len(vals))) + " }}",
                  vals, atomic=True)

    def math_call(self, ty: str, d: int, scope: list[Var]) -> Expr | None:
        """A libm call of result type ``ty`` (float, double or int), or None. With libmvec or SLEEF only
        exact ones (ULP_MATH is for the returned value alone)."""
        exact = self.modes.vector_math in ("libmvec", "sleef")
        fns = [f for f in MATH_FUNCS if f[1] == ty and (not exact or f[0] in EXACT_MATH)]
        if ty in ("float", "double") and self.chance(0.3):
            fns = [f for f in fns if f[0] in ("fabsf", "sqrtf", "fabs", "sqrt")]
        if not fns:
            return None
        name, _, args = self.pick(fns)
        self.math = True
        if name in ("fabsf", "sqrtf") and self.chance(0.3):
            name = "__builtin_" + name
        vals = [self.expr(t, d, scope, Budget(0)) for t in args]
        if all(_const(v) for v in vals) and scope:  # (gcc would fold the call, and warn about what it folds)
            vals[0] = self.var_leaf(args[0], scope)
        if name in ("fmin", "fmax", "fminf", "fmaxf"):
            # (GCC passes the two operands in its own order, and which zero fmin(-0.0, +0.0) returns
            # follows it, as C allows: expand/passes/mathcalls.py. Adding zero makes either +0.0;
            # every other result, NaNs included, stays: CI seed program 54 met it.)
            return Op(ty, f"({{0}} + {'0.0f' if ty == 'float' else '0.0'})", [Call(ty, name, vals)])
        return Call(ty, name, vals)

    # ------------------------------------------------------------ memory
    def index(self, m: Mem, scope: list[Var], length: int | None = None) -> Expr:
        """An index of ``m`` (of its rows with ``length``) that stays inside it: a constant, a loop
        counter, a uniform parameter, the linear one (a consecutive index), or any integer masked."""
        n = m.length if length is None else length
        r = self.rng.random()
        counters = [v for v in scope if v.counter]
        if r < 0.15:
            return Lit("int", str(self.rng.randrange(n)))
        if r < 0.3 and counters and n >= 8:
            v = self.pick(counters)
            return Ref(v.ty, v.name)
        if r < 0.45 and self.uniform and not self.in_helper:
            v = self.pick(self.uniform)
            return Op("int", f"({{0}} & {n - 1})", [self.convert(Ref(v.ty, v.name), "int", scope)])
        if r < 0.6 and self.linear and not self.in_helper:
            if m.kind == "shared" and length is None:
                c = self.rng.randint(-64, 63)
                return Op("int", f"({{0}} {'-' if c < 0 else '+'} {abs(c)})", [Ref("int", self.linear)])
            return Op("int", f"({{0}} & {n - 1})", [Ref("int", self.linear)])
        self.in_index += 1  # (an index of an index: no more memory, and small)
        e = self.expr(self.int_type(), 0 if self.in_index > 1 else 1, scope, Budget(0))
        self.in_index -= 1
        return Op("int", f"({{0}} & {n - 1})",
                  [e if e.ty in ("int64_t", "uint64_t") else self.convert(e, "int", scope)])

    def mem_read(self, m: Mem, scope: list[Var]) -> Elem:
        if m.kind == "gang":
            return Elem(m.ty, m.name, [] if self.chance(0.5) else [Lit("int", "0")])
        if m.kind == "out":
            at = Ref("int", self.linear or "i")
            return self.field_read(m, at) if m.fields else Elem(m.ty, m.name, [at])
        if m.rows:
            return Elem(m.ty, m.name, [self.index(m, scope, m.rows), self.index(m, scope)])
        if m.fields:
            return self.field_read(m, self.index(m, scope))
        return Elem(m.ty, m.name, [self.index(m, scope)])

    def field_read(self, m: Mem, at: Expr) -> Elem:
        """A field of ``m``'s record at ``at`` (``T1[i].f2``); an array field at a constant or at ``at``
        masked (``T1[i].f0[(i) & 3]``): the records' stream decides."""
        f = self.rec.choice([f for f in m.fields if f.ty == m.ty])
        if not f.count:
            return Elem(m.ty, m.name, [at], f".{f.name}", 1)
        if self.rec.random() < 0.5:
            sub: Expr = Lit("int", str(self.rec.randrange(f.count)))
        else:
            sub = Op("int", f"(({{0}}) & {f.count - 1})", [copy.deepcopy(at)])
        return Elem(m.ty, m.name, [at, sub], f".{f.name}", 1)

    def struct_locals(self, body: list[Stmt], scope: list[Var]) -> list[Var]:
        """A local struct of scalar fields and maybe a nested struct (``struct s3_rec { int f0; struct {
        float f0; double f1; } f1; } s3 = { ... };``), and maybe a second one copied from it; each field
        is then a variable (``s3.f1.f0``), and later statements may assign one struct to the other."""
        name = self.fresh("s")
        if self.h_fields and (self.h_pointer or self.rec.random() < 0.6):  # (of the helper's struct type)
            tag, fields = "h_rec", self.h_fields
        else:
            tag, fields = f"{name}_rec", self.struct_fields(True)
        leaves = [x for f in fields for x in f.leaves(name)]
        body.append(RecDecl(tag, name, fields, [self.expr(t, 2, scope, Budget(0)) for t, _ in leaves],
                            defined=tag == "h_rec"))
        self.struct_fields_of[tag] = fields
        out = [Var(t, path) for t, path in leaves]
        self.structs.append((tag, name))
        if self.rec.random() < 0.5:
            other = self.fresh("s")
            body.append(RecDecl(tag, other, fields, [Ref(f"struct {tag}", name)], copy=True))
            out += [Var(t, other + path[len(name):]) for t, path in leaves]
            self.structs.append((tag, other))
        return out

    def struct_fields(self, nested: bool) -> list[Field]:
        """Scalar fields (1-3) and, with ``nested``, maybe a nested struct of 1-2; from the records' stream."""
        with self.records_stream():
            def scalars(n: int) -> tuple[Field, ...]:
                return tuple(Field(self.any_type(), f"f{j}") for j in range(n))

            fields = list(scalars(self.rec.randint(1, 3)))
            if nested and self.rec.random() < 0.4:
                fields.insert(self.rec.randint(0, len(fields)), Field("", "", 0, scalars(self.rec.randint(1, 2))))
            return [Field(f.ty, f"f{j}", f.count, f.sub) for j, f in enumerate(fields)]

    @contextmanager
    def records_stream(self) -> Iterator[None]:
        """Draw from the records' stream (``self.rec``) what the helpers that use ``self.rng`` (types,
        literals) draw inside."""
        saved, self.rng = self.rng, self.rec
        try:
            yield
        finally:
            self.rng = saved

    def struct_copy(self, scope: list[Var]) -> list[Stmt]:
        """``a = b;`` between two local structs of one type, ``a = h(...);`` of a helper that returns
        the struct, or ``a5[i] = a5[j];`` of a local array of records (none when there is none)."""
        arrays = [m for m in self.mem_scope() if m.kind == "local" and m.fields]
        if arrays and self.rec.random() < 0.5:
            m = self.rec.choice(arrays)
            ty = f"struct {m.name}_rec"
            return [Store(Elem(ty, m.name, [self.index(m, scope)]), Elem(ty, m.name, [self.index(m, scope)]))]
        if self.structs and self.rec.random() < 0.35:  # a compound literal of expressions that may read the struct
            tag, a = self.rec.choice(self.structs)
            return [Assign(a, self.compound_literal(tag, scope))]
        pairs = [(a, Ref(f"struct {ta}", b)) for ta, a in self.structs for tb, b in self.structs
                 if ta == tb and a != b]
        h = self.helper
        if h is not None and h.ret == "struct h_rec" and self.helper_calls < 4:
            pairs += [(a, None) for ta, a in self.structs if ta == "h_rec"]
        if not pairs:
            return []
        a, value = self.rec.choice(pairs)
        return [Assign(a, value if value is not None else self.helper_call(1, scope, whole=True))]

    def store(self, scope: list[Var]) -> list[Stmt]:
        mems = [m for m in self.mem_scope() if m.kind in ("gang", "out", "local")]
        if not mems:
            return []
        m = self.pick(mems)
        target = self.mem_read(m, scope)
        op, value = self.compound_parts(m.ty, scope) if self.chance(0.35) else \
            ("=", self.expr(m.ty, self.o.max_depth, scope, Budget(1)))
        return [Store(target, value, op)]

    # ------------------------------------------------------------ statements
    def block(self, scope: list[Var], nest: int, n: int, can_return: bool, ret: str) -> list[Stmt]:
        scope = list(scope)
        out: list[Stmt] = []
        if nest > 0 and self.chance(0.3):
            ty = self.any_type()
            name = self.fresh("t")
            out.append(Decl(ty, name, self.expr(ty, self.o.max_depth, scope, Budget(1))))
            scope.append(Var(ty, name))
        for _ in range(n):
            out.extend(self.stmt(scope, nest, can_return, ret))
        return out

    def stmt(self, scope: list[Var], nest: int, can_return: bool, ret: str) -> list[Stmt]:
        if (self.structs or any(m.kind == "local" and m.fields for m in self.mems)) and not self.in_helper \
                and self.rec.random() < 0.08:
            return self.struct_copy(scope)
        if self.h_pointer and self.rec.random() < 0.15:
            return self.helper_statement(scope) or self.stmt(scope, nest, can_return, ret)
        r = self.rng.random()
        targets = [v for v in scope if v.assignable]
        depth = self.o.max_depth
        if r < 0.25 and targets:
            v = self.pick(targets)
            return [Assign(v.name, self.expr(v.ty, depth, scope, Budget(1)))]
        if r < 0.33 and targets:
            v = self.pick(targets)
            steps = v.ty in ("unsigned", "uint64_t") or (v.ty in NARROW and v.ty != "_Bool")
            if steps and self.chance(0.25):
                return [Step(v.name, self.pick(["++", "--"]), self.chance(0.5))]
            op, value = self.compound_parts(v.ty, scope)
            return [Assign(v.name, value, op)]
        if r < 0.39 and self.o.memory:
            st = self.store(scope)
            if st:
                return st
        if r < 0.54 and nest < self.o.max_nest:
            cond = self.cond(2, scope, Budget(1), top=True)
            then = self.block(scope, nest + 1, self.rng.randint(1, self.o.max_block), can_return, ret)
            els = self.block(scope, nest + 1, self.rng.randint(1, self.o.max_block), can_return, ret) \
                if self.chance(0.5) else []
            return [If(cond, then, els)]
        if r < 0.6 and can_return:
            ret_stmt = Return(self.expr(ret, depth, scope, Budget(1)))
            if nest > 0 and self.chance(0.5):
                return [ret_stmt]
            return [If(self.cond(2, scope, Budget(1), top=True), [ret_stmt], [])]
        if r < 0.65 and self.ctl:
            jump: Stmt = Break() if "loop" not in self.ctl or self.chance(0.5) else Continue()
            if nest > 0 and self.chance(0.3):
                return [jump]
            return [If(self.cond(1, scope, Budget(1), top=True), [jump], [])]
        if r < 0.74 and (self.in_helper or self.site < 90):
            ty = self.pick(TYPES)
            return [CallStmt(Call(ty, LOG_FN[ty], [self.expr(ty, depth - 1, scope, Budget(0))],
                                  self.next_site()))]
        if r < 0.84 and self.o.loops and self.loop_nest < (1 if self.in_helper else 2) and nest < self.o.max_nest + 1:
            return self.loop(scope, nest, can_return, ret)
        if r < 0.89 and self.o.control and nest < self.o.max_nest:
            return self.switch(scope, nest, can_return, ret)
        if r < 0.94 and self.o.guards:
            st = self.guarded_shift(scope) if self.chance(0.4) else self.guarded_convert(scope)
            if st:
                return st
        if targets:
            v = self.pick(targets)
            return [Assign(v.name, self.expr(v.ty, depth, scope, Budget(1)))]
        return []

    def compound_parts(self, ty: str, scope: list[Var]) -> tuple[str, Expr]:
        """(operator, value) of a compound assignment to a ``ty`` lvalue, free of overflow."""
        if ty == "_Bool":
            return self.pick(["|=", "&=", "^="]), self.bool_expr(1, scope, Budget(1))
        if ty in NARROW:  # the lvalue is promoted: int arithmetic on two narrow values
            lo, hi = vrange(ty)
            op = self.pick(["+=", "-=", "&=", "|=", "^=", "*=", ">>=", "<<="])
            if op in (">>=", "<<="):
                if op == "<<=" and lo < 0:
                    op = ">>="
                return op, Lit("int", str(self.rng.randrange(16)))
            other = self.pick([t for t in NARROW if t != "_Bool"])
            olo, ohi = vrange(other)
            if op == "*=" and max(abs(x * y) for x in (lo, hi) for y in (olo, ohi)) > 0x7FFFFFFF:
                op = "+="
            return op, self.narrow_expr(other, 2, scope, Budget(1))
        e = self.expr(ty, 2, scope, Budget(1))
        if ty in FLOATS:
            return ("*=" if _zero_lit(e) else self.pick(["+=", "-=", "*="])), e
        if ty in ("unsigned", "uint64_t"):
            op = self.pick(["+=", "-=", "*=", "&=", "|=", "^=", ">>=", "<<="])
        else:
            op = self.pick(["&=", "|=", "^=", ">>="])
        if op in (">>=", "<<="):
            mask = BITS[ty] - 1
            return op, (Op(ty, f"({{0}} & {mask})", [self.expr(self.pick(INTS), 2, scope, Budget(0))])
                        if self.chance(0.6) else Lit("int", str(self.rng.randrange(BITS[ty]))))
        return op, e

    def trip_bound(self, scope: list[Var], limit: int) -> Expr:
        r = self.rng.random()
        if r < 0.15:  # (not 0: 'i < 0' is always false for an unsigned counter, -Wtype-limits)
            return Lit("int", str(self.rng.randint(1, limit)))
        if r < 0.35 and self.uniform and not self.in_helper:
            v = self.pick(self.uniform)
            return Op("int", f"({{0}} & {limit})", [self.convert(Ref(v.ty, v.name), "int", scope)])
        e = self.expr(self.int_type(), 1, scope, Budget(0))
        if _const(e) and scope:
            e = self.var_leaf(self.int_type(), scope)
        return Op("int", f"({{0}} & {limit})", [self.convert(e, "int", scope)])

    def loop(self, scope: list[Var], nest: int, can_return: bool, ret: str) -> list[Stmt]:
        var = self.fresh("i")
        kind = self.pick(["for", "for", "down", "while", "do"] if self.o.control else ["for"])
        ctype = self.pick(COUNTER_TYPES) if self.o.narrow else "int"
        bound = self.trip_bound(scope, 7 if self.loop_nest == 0 else 3)
        if ctype == "unsigned":
            bound = convert(bound, "unsigned")
        inner = [*scope, Var(ctype, var, assignable=False, counter=True)]
        self.loop_nest += 1
        self.ctl.append("loop")
        body = self.block(inner, nest + 1, self.rng.randint(1, self.o.max_block), can_return, ret)
        self.ctl.pop()
        self.loop_nest -= 1
        cond = self.compare(1, inner, Budget(0)) if self.o.control and self.chance(0.2) else None
        return [Loop(var, bound, body, kind, cond, ctype)] if body else []

    def switch(self, scope: list[Var], nest: int, can_return: bool, ret: str) -> list[Stmt]:
        narrow = [v for v in scope if v.ty in NARROW and v.ty != "_Bool"]
        r = self.rng.random()
        if r < 0.2 and self.uniform and not self.in_helper:
            u = self.pick(self.uniform)
            sel: Expr = Op("int", "({0} & 3)", [self.convert(Ref(u.ty, u.name), "int", scope)])
        elif r < 0.35 and narrow:
            v = self.pick(narrow)
            sel = Ref(v.ty, v.name)
        elif r < 0.5:
            sel = Op("unsigned", "({0} % 5u)", [convert(self.expr(self.int_type(), 1, scope, Budget(0)), "unsigned")])
        else:
            sel = Op("int", "({0} & 7)", [self.convert(self.expr(self.int_type(), 1, scope, Budget(0)), "int", scope)])
        labels = self.rng.sample(range(8), self.rng.randint(1, 5))
        groups: list[list[int | None]] = []
        while labels:
            k = self.rng.randint(1, min(2, len(labels)))
            groups.append(labels[:k])
            labels = labels[k:]
        if self.chance(0.5):
            groups.insert(self.rng.randint(0, len(groups)), [None])
        self.ctl.append("switch")
        cases = [Case(g, self.block(scope, nest + 1, self.rng.randint(1, 3), can_return, ret), self.chance(0.75))
                 for g in groups]
        self.ctl.pop()
        return [Switch(sel, cases)]

    def guarded_convert(self, scope: list[Var]) -> list[Stmt]:
        """``if (lo < f && f < hi) v = (T)f;``: the vector code converts every lane, also those whose
        f is NaN or out of range, and keeps the active ones."""
        targets = [v for v in scope if v.assignable and v.ty not in FLOATS and v.ty != "_Bool"]
        floats = [v for v in scope if v.ty in FLOATS]
        if not targets:
            return []
        v = self.pick(targets)
        src = Ref(self.pick(floats).ty, self.pick(floats).name) if floats and self.chance(0.6) else \
            self.expr(self.pick(FLOATS), 1, scope, Budget(0))
        lo_t, hi_t = clamp_texts(v.ty, src.ty)
        if self.chance(0.3):  # a narrower range of the program's own
            k = self.pick([16.5, 100.0, 1000.0, 30000.0])
            lo, hi = (float(t.strip("()")) for t in CLAMP[v.ty])
            lo, hi, suf = max(lo, -k), min(hi, k), "f" if src.ty == "float" else ""
            lo_t, hi_t = (f"({lo!r}{suf})" if lo < 0 else f"{lo!r}{suf}"), f"{hi!r}{suf}"
        cvt = Op(v.ty, f"({v.ty}){{0}}", [src], atomic=True)
        guard = Op("int", f"(({{0}} > {lo_t}) && ({{0}} < {hi_t}))", [src], cond=True, atomic=True)
        els = [Assign(v.name, self.expr(v.ty, 1, scope, Budget(0)))] if self.chance(0.3) else []
        return [GuardedIf(guard, [Assign(v.name, cvt)], els)]

    def guarded_shift(self, scope: list[Var]) -> list[Stmt]:
        """``if (s >= 0 && s < 32) v = x << s;`` (sometimes with another test: ``&& x > 3``): the vector code
        shifts every lane, also those whose count is out of range, and keeps the active ones; a uniform shift
        under a test that differs per lane runs where no lane may be on."""
        targets = [v for v in scope if v.assignable and v.ty in INTS]
        n = self.shift_count(scope)
        test = self.count_test(targets[0].ty, n) if targets and n is not None else None
        if test is None:
            return []
        v = self.pick([t for t in targets if self.count_test(t.ty, n) == test])
        shift = Op(v.ty, self.shifted(v.ty, self.pick(["<<", ">>"])), [self.expr(v.ty, 1, scope, Budget(0)), n],
                   atomic=True)
        guard = Op("int", f"({test.replace('{1}', '{0}')})", [n], cond=True, atomic=True)
        if self.chance(0.4):
            guard = Op("int", "({0} && {1})", [guard, self.cond(1, scope, Budget(0))], cond=True, atomic=True)
        els = [Assign(v.name, self.expr(v.ty, 1, scope, Budget(0)))] if self.chance(0.3) else []
        return [GuardedIf(guard, [Assign(v.name, shift)], els)]

    # ------------------------------------------------------------ functions
    def make_helper(self) -> Func:
        ret = self.any_type()
        params = [(self.any_type(), n) for n in ("a", "b")[: self.rng.randint(1, 2)]]
        scope = [Var(t, n) for t, n in params]
        whole = False
        if self.o.records and self.rec.random() < 0.25:  # a struct parameter: by value (maybe the result too)
            self.h_fields = self.struct_fields(False)  # or a pointer to the caller's struct (an out-parameter)
            self.records.append(("h_rec", self.h_fields))
            self.h_pointer = self.rec.random() < 0.4
            params.insert(0, ("struct h_rec *" if self.h_pointer else "struct h_rec", "p"))
            scope += [Var(t, "p->" + path[2:] if self.h_pointer else path)
                      for f in self.h_fields for t, path in f.leaves("p")]
            whole = not self.h_pointer and self.rec.random() < 0.5
            if whole:
                ret = "struct h_rec"
        self.in_helper = True
        body: list[Stmt] = []
        if self.chance(0.5):
            ty = self.any_type()
            body.append(Decl(ty, "hv", self.expr(ty, 2, scope, Budget(1))))
            scope.append(Var(ty, "hv"))
        for _ in range(self.rng.randint(1, 3)):
            body.extend(self.stmt(scope, 1, not whole, ret))
        value = Ref(ret, "p") if whole else self.expr(ret, 2, scope, Budget(1))
        body.append(Return(value, keep=True))
        self.in_helper = False
        return Func("h", ret, [*params, ("int", "site")], body, static=True)

    def choose_modes(self) -> None:
        m = self.modes
        if self.o.modes:
            m.lanes = self.pick([1] * 16 + [2] * 3 + [4])
            m.boscc = self.pick(["auto"] * 12 + ["off"] * 5 + ["all"] * 3)  # (all: the largest code)
            m.abi = self.chance(0.2)
            m.wrapper = self.chance(0.1)
            m.frontend = "clang" if self.chance(0.2) else "pycparser"
            m.vector_math = self.pick(["expand"] * 5 + ["none"] * 3 + ["sleef", "libmvec"])
            m.pragma = self.chance(0.5)

    def make_table(self) -> None:
        ty = self.pick(MEM_TYPES)
        name = f"T{len(self.tables) + 1}"
        if self.chance(0.25):
            rows, cols = 4, 8
        else:
            rows, cols = 0, self.pick([8, 16, 32, 64])
        values = [self.lit(ty).text for _ in range(max(rows, 1) * cols)]
        fields: list[Field] = []
        if self.o.records and not rows and self.rec.random() < 0.4:
            fields, values = self.record_fields(ty, cols)
        self.tables.append(Table(ty, name, values, rows, fields))
        self.mems.append(Mem(name, ty, "table", cols, rows, fields))

    def record_layout(self, ty: str) -> list[Field]:
        """The fields of records whose reads (and writes) are of type ``ty``: one or two fields of it,
        scalar or arrays of 2 or 4, among fields of other types; from the records' own stream."""
        r = self.rec
        kinds = [ty] * r.randint(1, 2) + [r.choice(MEM_TYPES) for _ in range(r.randint(0, 3))]
        r.shuffle(kinds)
        return [Field(k, f"f{j}", r.choice([0, 0, 0, 2, 4])) for j, k in enumerate(kinds)]

    def record_fields(self, ty: str, cols: int) -> tuple[list[Field], list[str]]:
        """A table of ``cols`` records read at type ``ty`` (``record_layout``) and each record's
        initializer, from the records' own stream."""
        fields = self.record_layout(ty)
        with self.records_stream():  # (the literals too)
            def init(f: Field) -> str:
                if not f.count:
                    return self.lit(f.ty).text
                return "{ " + ", ".join(self.lit(f.ty).text for _ in range(f.count)) + " }"

            values = ["{ " + ", ".join(init(f) for f in fields) + " }" for _ in range(cols)]
        return fields, values

    def program(self) -> Program:
        o = self.o
        mem = o.memory and self.chance(0.5)
        self.choose_modes()
        # The vector function ABI (--abi) takes no narrow lanes, no gang pointer and (NEON) no lanes of
        # two sizes (expand/abi.py diagnoses them): its programs keep to one width.
        abi = self.modes.abi
        width = self.pick([("int", "unsigned", "float"), ("int64_t", "uint64_t", "double")])
        ret = self.pick(width) if abi else self.any_type()
        names = ["x", "y", "z"][: self.rng.randint(1, o.max_params)]
        params = [(self.pick(width) if abi else self.any_type(), n) for n in names]
        scope = [Var(t, n) for t, n in params]
        if o.modes and self.chance(0.3):  # a uniform value parameter
            t = self.pick(["int", "int", "unsigned", "short", "float", "int64_t"]) if o.narrow else \
                self.pick(["int", "unsigned", "float"])
            params.append((t, "n"))
            v = Var(t, "n", assignable=False)  # (a varying value would make it varying: diagnosed)
            scope.append(v)
            self.modes.uniform.append("n")
            if t not in FLOATS:
                self.uniform.append(v)
        if mem:
            if o.modes and self.chance(0.5):  # a linear parameter: consecutive indexes
                params.append(("int", "i"))
                scope.append(Var("int", "i", assignable=False))
                self.linear = "i"
                self.modes.linear.append("i")
            kinds = [k for k in ("gang", "shared", "out", "scatter", "table", "table", "local") if self.chance(0.4)
                     and (k != "out" or self.linear) and (o.modes or k in ("gang", "table", "local"))
                     and not (k == "gang" and abi)]
            for k in kinds or ["table"]:
                if k == "table":
                    self.make_table()
                    continue
                if k == "local":
                    continue  # (declared below)
                ty = self.pick(MEM_TYPES)
                name = {"gang": "p", "shared": "tab", "out": "out", "scatter": "hist"}[k]
                ctype, fields = ty, []
                if self.o.records and k in ("shared", "out") and self.rec.random() < 0.3:  # (records)
                    fields = self.record_layout(ty)
                    ctype = f"struct {name}_rec"
                    self.records.append((f"{name}_rec", fields))
                params.append((f"{'const ' if k == 'shared' else ''}{ctype} *", name))
                self.mems.append(Mem(name, ty, k, 128, 0, fields))
                if k != "gang":
                    self.modes.uniform.append(name)
        self.rng.shuffle(params)
        if self.chance(o.helper):
            self.helper = self.make_helper()
        body: list[Stmt] = []
        locals_: list[Var] = []
        for _ in range(self.rng.randint(1, 4)):
            ty = self.any_type()
            name = self.fresh("v")
            init = self.lit(ty) if self.chance(0.25) else self.expr(ty, 2, scope, Budget(1))
            body.append(Decl(ty, name, init))
            v = Var(ty, name)
            scope.append(v)
            locals_.append(v)
        if mem and self.chance(0.4):
            ty, n = self.pick(MEM_TYPES), self.pick([8, 16])
            name = self.fresh("a")
            init = [self.expr(ty, 1, scope, Budget(0)) for _ in range(self.rng.randint(0, 4))]
            fields = []
            if self.o.records and self.rec.random() < 0.3:  # (an array of records: its first field is ty's)
                fields = self.record_layout(ty)
                fields = [Field(ty, "f0"), *(Field(f.ty, f"f{j + 1}", f.count) for j, f in enumerate(fields))]
            body.append(ArrayDecl(ty, name, n, init, fields))
            self.mems.append(Mem(name, ty, "local", n, 0, fields))
        if self.chance(o.union):
            kind = self.pick(UNIONS)
            u = self.fresh("u")
            init = self.chance(0.5)
            body.append(UnionDecl(u, kind, init))
            ft, fm, it, im = kind
            if not init:  # the first write is unconditional: every later read sees a value
                if self.chance(0.5):
                    body.append(Assign(f"{u}.{fm}", self.expr(ft, 2, scope, Budget(1))))
                else:
                    body.append(Assign(f"{u}.{im}", self.expr(it, 2, scope, Budget(1))))
            scope += [Var(ft, f"{u}.{fm}"), Var(it, f"{u}.{im}")]
            locals_ += [Var(ft, f"{u}.{fm}"), Var(it, f"{u}.{im}")]
        if self.o.records and (self.h_pointer or self.rec.random() < 0.2):
            for v in self.struct_locals(body, scope):
                scope.append(v)
                locals_.append(v)
        first = len(body)
        for _ in range(self.rng.randint(2, o.max_stmts)):
            body.extend(self.stmt(scope, 0, True, ret))
        refuse = False
        varying = [Var(t, n) for t, n in params if not t.endswith("*") and n not in self.modes.uniform]
        for m in [m for m in self.mems if m.kind == "scatter"]:
            e = self.expr(self.int_type(), 1, scope, Budget(0))
            if varying and self.chance(0.95):  # (a varying index: one store per lane, in lane order)
                v = self.pick(varying)
                t = "int" if v.ty in FLOATS else v.ty
                e = Op(t, "({0} ^ {1})", [self.convert(Ref(v.ty, v.name), t, scope), self.convert(e, t, scope)])
            idx = Op("int", f"({{0}} & {m.length - 1})", [self.convert(e, "int", scope)])
            body.insert(self.rng.randint(first, len(body)), Store(Elem(m.ty, m.name, [idx]),
                                                                 self.expr(m.ty, 2, scope, Budget(0))))
            refuse = True  # (a uniform index, or a second store below: lane order, refused)
            if self.chance(0.1):  # (a second store: lane order, refused)
                idx2 = self.index(m, scope)
                body.insert(self.rng.randint(first, len(body)), Store(Elem(m.ty, m.name, [idx2]),
                                                                     self.expr(m.ty, 1, scope, Budget(0))))
        # The final return reads every local, so nothing generated is dead.
        final: Expr = self.expr(ret, 1, scope, Budget(1))
        for v in locals_:
            final = Op(ret, "({0} + {1})" if ret in FLOATS or ret in ("unsigned", "uint64_t") else "({0} ^ {1})",
                       [final, convert(Ref(v.ty, v.name), ret)])
        if ret in NARROW:
            final = to_bool(final) if ret == "_Bool" else Op(ret, f"({ret}){{0}}", [final])
        elif ret in FLOATS and self.modes.vector_math in ("libmvec", "sleef") and self.chance(0.5):
            name = self.pick(ULP_MATH) + ("f" if ret == "float" else "")
            final = Call(ret, name, [final])
            self.math = True
        body.append(Return(final, keep=True))
        f = Func("f", ret, params, body)
        assigned = {s.name for s in walk_stmts(body) if isinstance(s, Assign)}
        copied = {n for _, n in params if n not in assigned}  # their NaNs are the inputs' bits
        unions = {s.name for s in body if isinstance(s, UnionDecl)}
        canonicalize_nans(f.body, {v.name: v for v in locals_ if _base_name(v.name) in unions}, copied)
        expect = None
        if self.chance(o.diagnostics):
            expect = self.pick(DIAGNOSTICS)
            self.plant_diagnostic(f, expect, scope)
        return Program(self.label, f, self.helper, expect, self.math, self.tables, self.modes, refuse,
                       self.records)

    def plant_diagnostic(self, f: Func, word: str, scope: list[Var]) -> None:
        src = next((p for t, p in f.params if t in INTS), None)
        sel = f"((int){src} & 3)" if src else "1"
        if word == "static":  # state shared between calls
            lines = ["static int calls = 0;", f"calls = calls + {sel};", "log_i32(90, calls);"]
        elif word == "volatile":
            lines = [f"volatile int vol[2] = {{{sel}, 1}};", "log_i32(91, vol[0]);"]  # (a scalar one is read)
        else:
            lines = ['__asm__("nop");']  # (an empty template is a barrier expand takes)
        pos = self.rng.randrange(len(f.body))  # before the final return
        f.body.insert(pos, Raw(lines, [src] if src else [], keep=True))


CANONICAL_NAN = {"unsigned": "0x7fc00000u", "int": "0x7fc00000", "uint64_t": "0x7ff8000000000000UL",
                 "int64_t": "0x7ff8000000000000L"}


def canonicalize_nans(stmts: list[Stmt], members: dict[str, Var], copied: set[str]) -> None:
    """After each computed store to a union's float member: ``if (u.f != u.f) u.i = <quiet NaN>;``.

    The bits of a computed NaN are the compiler's choice (see fuzz_log.c); only NaNs that are
    copied keep theirs, so the int member reads the same bits in the scalar and the vector code."""
    i = 0
    while i < len(stmts):
        s = stmts[i]
        for lst in child_lists(s):
            canonicalize_nans(lst, members, copied)
        if isinstance(s, Assign) and s.name in members and members[s.name].ty in FLOATS \
                and not isinstance(s.value, Lit) and not (isinstance(s.value, Ref) and s.value.name in copied):
            u = _base_name(s.name)
            other = next(v for v in members.values() if _base_name(v.name) == u and v.ty in INTS)
            fix = NanFix(Op("int", "({0} != {1})", [Ref(s.value.ty, s.name), Ref(s.value.ty, s.name)], cond=True),
                         [Assign(other.name, Lit(other.ty, CANONICAL_NAN[other.ty]), keep=True)], [], keep=True)
            stmts.insert(i + 1, fix)
            i += 1
        i += 1


_TYPE_NAMES = "|".join(re.escape(t) for t in sorted((*TYPES, *NARROW), key=len, reverse=True))


def _strip_casts(e: Expr) -> Expr:
    while isinstance(e, Op) and len(e.kids) == 1 and re.fullmatch(rf"\((?:{_TYPE_NAMES})\)\{{0\}}", e.fmt):
        e = e.kids[0]
    return e


def _canon(e: Expr) -> str:
    """``e``'s text as gcc's folder may see it: without casts, 'x | x' and 'x & x' as 'x', commutative
    operands in one order."""
    e = _strip_casts(e)
    if isinstance(e, Op):
        kids = [_canon(k) for k in e.kids]
        if len(kids) == 2 and kids[0] == kids[1] and e.fmt in ("({0} | {1})", "({0} & {1})"):
            return kids[0]
        if e.fmt in ("({0} | {1})", "({0} & {1})", "({0} ^ {1})", "({0} + {1})", "({0} * {1})"):
            kids.sort()  # gcc compares commutative operands either way round
        return re.sub(rf"\((?:{_TYPE_NAMES})\)", "", e.fmt.format(*kids))
    return expr_text(e)


def _zero_lit(e: Expr) -> bool:
    """A literal zero (maybe cast). gcc 12 folds '-(float)i + 0.0f' to '-(float)i' and '0.0f - (float)i'
    to '-(float)i', which are -0.0 for i == 0 where IEEE arithmetic gives +0.0 (already at -O0): the
    scalar reference would be wrong. Float additions and subtractions of literal zeros are not generated."""
    e = _strip_casts(e)
    if not isinstance(e, Lit):
        return False
    t = e.text.strip("()").lstrip("-").rstrip("fFuUlL")
    try:
        return float(int(t, 0) if t.startswith("0x") else t) == 0.0
    except ValueError:
        return False


def _lit_value(text: str) -> int | None:
    """The value of an integer literal's text (``(-5)``, ``0x10u``, ``(-2147483647 - 1)``), or None."""
    t = text.strip("()")
    if t.endswith(" - 1"):
        v = _lit_value(t[:-4])
        return None if v is None else v - 1
    neg = t.startswith("-")
    t = t.lstrip("-").rstrip("uUlL")
    try:
        v = int(t, 0)
    except ValueError:
        return None
    return -v if neg else v


_CAST = re.compile(rf"\((?:{_TYPE_NAMES})\)\{{0\}}")


def _cast_chain(e: Expr) -> list[str]:
    """The types ``e``'s value passes through: its own, then those of the casts it is made of, outside in."""
    out = [e.ty]
    while isinstance(e, Op) and len(e.kids) == 1 and _CAST.fullmatch(e.fmt):
        e = e.kids[0]
        out.append(e.ty)
    return out


_BITOPS = ("({0} & {1})", "({0} | {1})", "({0} ^ {1})")


def value_range(e: Expr) -> tuple[int, int] | None:
    """Bounds of integer expression ``e``'s value (what its type, its casts and bit operations of
    narrower operands let through: gcc's -Wtype-limits sees as much), or None (a float)."""
    chain = _cast_chain(e)
    inner = e
    while isinstance(inner, Op) and len(inner.kids) == 1 and _CAST.fullmatch(inner.fmt):
        inner = inner.kids[0]
    r: tuple[int, int] | None = None
    if isinstance(inner, Op) and inner.fmt in _BITOPS and inner.ty not in FLOATS:
        a, b = value_range(inner.kids[0]), value_range(inner.kids[1])
        if a is not None and b is not None:
            m = max(max(abs(x), abs(x + 1)).bit_length() for x in (*a, *b))
            r = (0, (1 << m) - 1) if min(a[0], b[0]) >= 0 else (-(1 << m), (1 << m) - 1)
    for t in reversed(chain):
        if t in FLOATS:
            r = None
            continue
        tr = vrange(t)
        if r is None or not (tr[0] <= r[0] and r[1] <= tr[1]):
            r = tr
    return r


def _may_be(e: Expr, v: int) -> bool:
    """Whether integer expression ``e`` may have the value ``v``."""
    r = value_range(e)
    return r is None or r[0] <= v <= r[1]


def _zero_extends(e: Expr, ty: str) -> bool:
    """Whether ``e`` (of type ``ty``) is an unsigned value narrower than ``ty`` widened: ``~e`` compared
    would be a 'promoted bitwise complement of an unsigned value' (-Wsign-compare)."""
    r = value_range(e)
    return r is not None and r[0] >= 0 and r[1] < (1 << (BITS[ty] - 1))


def _const(e: Expr) -> bool:
    return not any(isinstance(n, (Ref, Call, Elem)) for n in walk_expr(e))


def _warns(a: Expr, b: Expr) -> bool:
    """Would gcc -Wall flag ``a OP b``? A self-comparison, a constant against a truth value
    (-Wbool-compare) or against a bit operation with a constant (-Wtautological-compare), two
    constants (-Wtype-limits where the result is known)."""
    if expr_text(a) == expr_text(b) or _canon(a) == _canon(b) or (_const(a) and _const(b)):
        return True
    for x, y in ((a, b), (b, a)):
        if _const(y):
            xs = _strip_casts(x)
            if isinstance(xs, Op) and (xs.cond or (any(t in xs.fmt for t in (" & ", " | "))
                                                    and any(_const(k) for k in xs.kids))):
                return True
    return False


def clamp_texts(dst: str, src: str) -> tuple[str, str]:
    """The open range (as C literals of float type ``src``) a value must lie in to convert to ``dst``."""
    lo, hi = CLAMP[dst]
    suf = "f" if src == "float" else ""
    lo_t = lo if lo.startswith("(") else f"({lo}{suf})" if lo.startswith("-") else lo + suf
    return lo_t, hi + suf


def to_bool(e: Expr) -> Expr:
    """``e`` converted to _Bool (``(e != 0)`` where gcc would see '*', '<<' or '?:' in a boolean context)."""
    if e.ty == "_Bool":
        return e
    if _bool_safe(e):
        return Op("_Bool", "(_Bool){0}", [e])
    return Op("_Bool", "({0} != 0)", [e], cond=True)


def convert(e: Expr, dst: str) -> Expr:
    """``e`` converted to ``dst`` without undefined behaviour (floats are range-checked first)."""
    src = e.ty
    if src == dst:
        return e
    if dst == "_Bool":
        return to_bool(e)
    if src in FLOATS and dst not in FLOATS:
        lo_t, hi_t = clamp_texts(dst, src)
        return Op(dst, f"({dst})(({{0}} > {lo_t} && {{0}} < {hi_t}) ? {{0}} : 0)", [e])
    return Op(dst, f"({dst}){{0}}", [e])


#: Programs drawn for one seed at most, until one compiles without a warning.
DRAWS = 10


def generate(seed: int | str, opts: GenOptions | None = None) -> Program:
    """The program of ``seed`` (any int or string): the same seed always gives the same program.

    The generator avoids what gcc -Wall -Wextra warns about, but gcc's front end folds more than it
    knows (a comparison that folding makes constant is -Wtype-limits): a program gcc warns about, with
    plain char signed or unsigned, is drawn again from the seed's next stream (``quiet``)."""
    label = str(seed)
    for draw in range(DRAWS):
        rng = random.Random(f"expand-fuzz:{label}" + (f"/{draw}" if draw else ""))
        prog = Gen(rng, opts or GenOptions(), label).program()
        if draw == DRAWS - 1 or quiet(render(prog)):
            return prog
    raise AssertionError("unreachable")


def quiet(text: str) -> bool:
    """Whether gcc (of this host) compiles ``text`` without a warning under -Wall -Wextra, with plain
    char signed and unsigned (True when there is no gcc to ask)."""
    text = text.replace('#include "fuzz_log.h"', FUZZ_LOG_H)
    for char in ("-fsigned-char", "-funsigned-char"):
        try:
            p = subprocess.run(["gcc", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-fopenmp-simd", char,
                                "-x", "c", "-"], input=text, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return True
        if p.returncode != 0:
            return False
    return True


def program_seed(seed: int, index: int) -> str:
    return f"{seed}-{index}"


# ----------------------------------------------------------------------------- checking

#: Diagnostics a program may get instead of expanding (``/* expand-fuzz: may-refuse ... */``): a store
#: to memory the lanes share whose lane order the vector code cannot keep (expand/shared_stores.py).
REFUSALS = {"shared-store": re.compile(r"(memory that|one place) every lane shares")}


@dataclass
class Outcome:
    """What happened to one program. kind: ok, refused (a diagnostic the program may get, in its
    ``may-refuse`` class), mismatch, crash (a traceback, or expand did not finish), diagnostic (an
    ExpandError that was not planted or allowed), missing-diagnostic, build (the vector code does not
    compile or link; ``werror`` when a warning stopped it), scalar-build (the program itself does not
    compile: a generator bug), scalar-ub (the scalar code has undefined behaviour: a generator bug),
    unspecified (expand warns that a call and a read of the same expression have no order in C, so the
    scalar result is the C compiler's choice: a generator bug),
    harness (the harness crashed, or the run did not end), not-run (everything compiled and linked,
    but this host cannot run the ISA's code: emit/host.py)."""

    kind: str
    summary: str
    details: str = ""
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.kind not in ("ok", "not-run", "refused")

    @property
    def werror(self) -> bool:
        """The vector code does not compile because of a warning (-Wall -Wextra -Werror)."""
        return self.kind == "build" and re.search(r"error: .*\[-Werror=", self.details) is not None

    @property
    def traceback(self) -> bool:
        return self.kind == "crash" and "Traceback" in self.details

    def signature(self) -> tuple[str, str]:
        """What a minimized program must keep failing with."""
        if self.kind in ("crash", "diagnostic"):
            msg = re.sub(r"'[^']*'", "'_'", self.summary)
            msg = re.sub(r"\d+", "N", msg)
            return self.kind, msg
        if self.kind == "mismatch":
            return self.kind, ",".join(mismatch_aspects(self.details))
        if self.kind in ("build", "scalar-build"):
            m = re.search(r"error: (.*)", self.details)
            return self.kind, re.sub(r"[‘'][^’']*[’']", "_", m.group(1)) if m else ""
        if self.kind == "harness":
            m = re.search(r"signal \d+", self.summary)
            return self.kind, m.group(0) if m else ""
        return self.kind, ""


def mismatch_aspects(details: str) -> list[str]:
    """What differs in a verify report: return, *p, call-count (calls made or missed), call-values."""
    out: set[str] = set()
    for line in details.splitlines():
        m = re.match(r"\s*(\S.*?): DIFFERS", line)
        if m:
            out.add(m.group(1).split()[0])
        m = re.match(r"\s*calls: DIFFER.* scalar \[(.*)\] vector \[(.*)\]", line)
        if m:
            a, b = (x.split() for x in m.groups())
            out.add("call-values" if len(a) == len(b) else "call-count")
    return sorted(out)


class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):  # pragma: no cover - only on a hang
    raise _Timeout()


def _log_object(isa, d: Path) -> Path:
    """fuzz_log.c compiled for ``isa`` into directory ``d`` (once: later calls find it there)."""
    from expand.check.verify import COMPILE_FLAGS
    tag = re.sub(r"\W", "_", isa.name)
    obj = d / f"fuzz_log-{tag}-{isa.lanes}.o"
    if obj.exists():
        return obj
    write_support(d)
    tmp = d / f".{obj.name}.{os.getpid()}"
    subprocess.run([*isa.cc, *COMPILE_FLAGS, *isa.cflags, "-c", str(d / "fuzz_log.c"), "-o", str(tmp)],
                   check=True, capture_output=True, text=True)
    os.replace(tmp, obj)
    return obj


def write_support(d: Path) -> None:
    """fuzz_log.h and fuzz_log.c into directory ``d`` (what every program needs)."""
    d.mkdir(parents=True, exist_ok=True)
    for name, text in (("fuzz_log.h", FUZZ_LOG_H), ("fuzz_log.c", FUZZ_LOG_C)):
        p = d / name
        if not p.exists() or p.read_text() != text:
            p.write_text(text)


def expected_error(text: str) -> str | None:
    m = re.search(r"/\* expand-fuzz: expect-error (\w+) \*/", text)
    return m.group(1) if m else None


def loop_sites_of(text: str) -> list[int]:
    """The sites of calls in loops: named by a ``loop-sites`` comment (older programs), or tagged with
    their loop counters (``tag_sites``: ``log_i32(8 + 1024 * i7, ...)``). Verify's call log takes them
    as loose, modulo ``SITE_STEP``: a tag makes a lane call each site at most once, but lanes whose
    counters start from different values reach the same site in different rounds of the vector loop
    (program 20261126-299 on sse2: lane 3's first call has lane 0's second call's site)."""
    m = re.search(r"expand-fuzz: loop-sites ([\d,]+)", text)
    sites = {int(x) for x in m.group(1).split(",")} if m else set()
    sites |= {int(x) for x in re.findall(r"\blog_\w+\(\s*(\d+) \+ \d+ \*", text)}
    # the helper's (``site + 3 + 262144 * i2``, and ``site + 1`` too: the helper's call may be in a
    # loop of f, tagged there): at each of its calls' sites (programs 20261126-558, 20261126-1651)
    offsets = {int(x) for x in re.findall(r"\blog_\w+\(\s*site \+ (\d+)\b", text)}
    if offsets:
        sites |= {base + k for base in _helper_call_sites(text) for k in offsets}
    return sorted(sites)


def _helper_call_sites(text: str) -> set[int]:
    """The site arguments (their leading constant: a tag may follow) of the calls of the helper ``h``."""
    out: set[int] = set()
    for m in re.finditer(r"(?<![\w.])h\(", text):
        depth, start, args = 1, m.end(), []
        for i in range(m.end(), len(text)):
            c = text[i]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    args.append(text[start:i])
                    break
            elif c == "," and depth == 1:
                args.append(text[start:i])
                start = i + 1
        last = re.match(r"\s*(\d+)\b", args[-1]) if args else None
        if last:
            out.add(int(last.group(1)))
    return out


def may_refuse(text: str) -> str | None:
    m = re.search(r"/\* expand-fuzz: may-refuse (\S+) \*/", text)
    return m.group(1) if m else None


@dataclass
class Setting:
    """The expand options a program's modes come to on one ISA (what it lacks falls back to the default)."""

    lanes: int
    boscc: str
    abi: bool
    wrapper: str | None
    vector_math: str
    frontend: str
    shapes: dict[str, str]

    def command(self, isa_name: str, file: str) -> str:
        """The equivalent ``expand --verify`` command line (without the call log)."""
        words = ["expand", file, "--isa", isa_name, "--lanes", str(self.lanes), "--boscc", self.boscc,
                 "--vector-math", self.vector_math, "--frontend", self.frontend,
                 "--stateless", ",".join(LOG_FN.values())]  # (the log functions: no hidden-state warnings)
        words += ["--abi"] if self.abi else []
        words += ["--wrapper", self.wrapper] if self.wrapper else []
        for shape in ("uniform", "linear"):
            names = [n for n, s in self.shapes.items() if s == shape]
            words += [f"--{shape}", ",".join(names)] if names else []
        return " ".join(words + ["--verify"])


def setting(modes: Modes, isa_name: str) -> Setting:
    from emit import ISAS, get_isa
    isa = get_isa(isa_name)
    vm = modes.vector_math
    if vm == "libmvec" and not isa.libmvec or vm == "sleef" and (isa.sleef_suffix is None or isa.arch != "x86_64"):
        vm = "expand"  # (SLEEF is installed for the host only)
    lanes = ISAS[isa_name][2] * modes.lanes
    while lanes > isa.lanes:  # (the most the ISA's table has: AVX-512 gangs of 16 or 32 lanes)
        try:
            get_isa(isa_name, lanes)
            break
        except ValueError:
            lanes //= 2
    return Setting(lanes, modes.boscc, modes.abi and bool(isa.abi_letter),
                   "array" if modes.wrapper else None, vm, modes.frontend,
                   {} if modes.pragma else {**{n: "uniform" for n in modes.uniform},
                                            **{n: "linear" for n in modes.linear}})


#: ``check_source(sanitize=True)``: the scalar program built with UBSan, stopping at the first report.
UBSAN = ("-fsanitize=undefined,float-cast-overflow", "-fno-sanitize-recover=all")


def check_source(text: str, isa_name: str, *, n_random: int = 2000, seed: int | None = None, name: str = "prog",
                 workdir: Path | None = None, expect_error: str | None = None, timeout: float = 120.0,
                 cache_dir: Path | None = None, sanitize: bool = False) -> Outcome:
    """Expand ``f`` of ``text`` for ``isa_name`` with the program's modes and verify it (returns, call
    logs, memory); the program itself must compile with -Wall -Wextra -Werror, and so must the vector code.
    ``sanitize``: the scalar program runs under UBSan (on the host's ISAs): undefined behaviour on any
    input stops it, the outcome "scalar-ub".

    ``seed`` seeds the random inputs; by default the one the fuzz run used for the program (named in
    its ``/* expand-fuzz program LABEL */`` line), so a replay sees the same inputs."""
    from emit import get_isa
    from expand.check.verify import (
        COMPILE_FLAGS,
        cached_precompiled_header,
        defines_feature_macro,
        trip_bounds,
        verify,
        verify_params,
    )
    from expand.driver import expand_module
    from expand.ir.diagnostics import ExpandError
    from expand.vecmath import VectorMath, parse_modes
    from frontends.clang_frontend import read_file_any
    from mathlib.libm import ensure

    t0 = time.monotonic()
    if seed is None:
        m = re.search(r"/\* expand-fuzz program (\S+) \*/", text)
        seed = _verify_seed(m.group(1)) if m else 1
    if expect_error is None:
        expect_error = expected_error(text)
    refusal = may_refuse(text)
    own = workdir is None
    wd = Path(tempfile.mkdtemp(prefix="expand-fuzz-")) if workdir is None else Path(workdir)
    try:
        write_support(wd)
        src = wd / f"{name}.c"
        src.write_text(text)
        st = setting(Modes.parse(text), isa_name)
        isa = get_isa(isa_name, st.lanes)
        if threading.current_thread() is not threading.main_thread():
            timeout = 0  # signals reach the main thread only
        old = signal.signal(signal.SIGALRM, _on_alarm) if timeout else None
        if timeout:
            signal.setitimer(signal.ITIMER_REAL, timeout)
        vm = VectorMath(parse_modes(st.vector_math))
        try:
            mod = read_file_any(str(src), text, frontend=st.frontend, cc=isa.preprocessor)
            res = expand_module(mod, isa, functions=["f"], expandable=set(), shapes=st.shapes, boscc=st.boscc,
                                abi=st.abi, wrapper=st.wrapper, vector_math=vm,
                                stateless=set(LOG_FN.values()))  # (their results depend only on their arguments)
        except ExpandError as exc:
            msg = exc.render()
            first = re.sub(r"^\S*?:\d+:\d+: ", "", msg.splitlines()[0])
            if expect_error and expect_error.lower() in msg.lower():
                return Outcome("ok", f"diagnosed as expected: {msg.splitlines()[0]}", msg, time.monotonic() - t0)
            if refusal in REFUSALS and REFUSALS[refusal].search(first):
                return Outcome("refused", first, msg, time.monotonic() - t0)
            return Outcome("diagnostic", first, msg, time.monotonic() - t0)
        except _Timeout:
            return Outcome("crash", f"expand did not finish in {timeout:g} s", "", time.monotonic() - t0)
        except (Exception, RecursionError) as exc:  # a traceback is always a crash
            tb = traceback.format_exc()
            return Outcome("crash", f"{type(exc).__name__}: {exc}".splitlines()[0][:200], tb, time.monotonic() - t0)
        finally:
            if timeout:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old)
        if expect_error:
            return Outcome("missing-diagnostic", f"expected a diagnostic about '{expect_error}', got none",
                           res.text, time.monotonic() - t0)
        unordered = [w.render() for w in res.warnings if UNORDERED in w.message]
        if unordered:  # (expand/analysis/call_order.py: the scalar result is C's choice, not the program's)
            return Outcome("unspecified", unordered[0].splitlines()[0], "\n".join(unordered), time.monotonic() - t0)
        (e,) = res.functions
        try:
            log_obj = _log_object(isa, cache_dir or wd)
        except subprocess.CalledProcessError as exc:
            return Outcome("scalar-build", "fuzz_log.c does not compile", exc.stderr, time.monotonic() - t0)
        gcc = not isa.clang
        cflags = (FUZZ_CFLAGS if gcc else ()) + FUZZ_ISA_CFLAGS.get(isa.name, ())
        try:
            needs = vm.link(isa, build=ensure)
        except (RuntimeError, ValueError, OSError) as exc:
            return Outcome("harness", f"building mathlib's vector libm failed: {exc}", "", time.monotonic() - t0)
        pch = cached_precompiled_header(isa, cflags, [wd])  # (verify's, in expand's cache: only a speed-up)
        (wd / "vector.c").write_text(res.text)
        # (the precompiled headers too, where verify takes them: see its pch)
        force = ["-include", str(pch)] if pch and not defines_feature_macro(res.text) else []
        strict = [*isa.cc, *COMPILE_FLAGS, *isa.cflags, *cflags, *FUZZ_VECTOR_CFLAGS, *force, f"-I{wd}", "vector.c"]
        p = subprocess.run(strict, cwd=wd, capture_output=True, text=True, errors="replace")
        if p.returncode != 0:
            return Outcome("build", "the vector code does not compile with -Wall -Wextra -Werror",
                           f"$ {shlex.join(strict)}\n{p.stderr[-20000:]}\n--- vector code ---\n{res.text}",
                           time.monotonic() - t0)
        # Trip counts bounded as the command line bounds them, and uniform values too: each of their
        # edge values runs with every gang of edge values of the others (a product).
        bounds, _ = trip_bounds(e.params, [*e.trip_params, *(p.name for p in e.params if p.shape == "uniform")])
        rep = verify(scalar_sources=[src], scalar_name=e.scalar_name, vector_c=res.text, bounds=bounds,
                     vector_name=e.vector_name, params=verify_params(e.params), ret=e.ret, isa=isa,
                     link_files=[log_obj, *needs.link_files], libs=[*needs.libs, "m", *(["ubsan"] if sanitize else [])],
                     constants=e.constants, n_random=n_random, seed=seed, call_log=True,
                     call_log_loose=loop_sites_of(text), call_log_loose_step=SITE_STEP,
                     nan_bits=False, pch=pch,
                     cflags=cflags, scalar_cflags=(*(FUZZ_PROGRAM_CFLAGS if gcc else ()),
                                                   *(UBSAN if sanitize else ())),
                     global_vars=[(g.name, g.type) for g in e.globals], timeout=FUZZ_RUN_TIMEOUT,
                     **({"ulp_bound": needs.ulp_bound} if needs.ulp_bound is not None else {}))
        dt = time.monotonic() - t0
        if rep.ok:
            return Outcome("ok", rep.summary, "", dt)
        if rep.not_run is not None:
            return Outcome("not-run", rep.summary, rep.not_run, dt)
        details = rep.details + "\n--- vector code ---\n" + res.text
        if "compiling " + str(src.resolve()) in rep.summary or f"compiling {src}" in rep.summary:
            return Outcome("scalar-build", rep.summary, details, dt)
        if "compiling" in rep.summary or "linking" in rep.summary:
            return Outcome("build", rep.summary, details, dt)
        if rep.verdict == "scalar-ub" or sanitize and rep.verdict == "scalar-crash":
            return Outcome("scalar-ub", rep.summary, details, dt)
        if rep.mismatches:
            return Outcome("mismatch", rep.summary, details, dt)
        return Outcome("harness", rep.summary, details, dt)
    finally:
        if own:
            shutil.rmtree(wd, ignore_errors=True)


def check_file(path: Path | str, isa_name: str, *, n_random: int = 2000, seed: int | None = None) -> Outcome:
    """Check a program written by expand-fuzz (fuzz_log.h is provided if it is missing)."""
    path = Path(path)
    return check_source(path.read_text(), isa_name, n_random=n_random, seed=seed, name=path.stem)


# ----------------------------------------------------------------------------- minimizing

_MASKED = re.compile(r"\(\{0\} & \d+\)")


def strip_jumps(stmts: list[Stmt], what: tuple[type, ...]) -> list[Stmt]:
    """``stmts`` without the ``break``s and ``continue``s (of the kinds ``what``) that leave the construct
    they are in (a loop or switch being replaced by its body): those of inner loops and switches stay."""
    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, what):
            continue
        if isinstance(s, If):
            s.then, s.els = strip_jumps(s.then, what), strip_jumps(s.els, what)
        elif isinstance(s, Switch):  # (a break there is the switch's)
            for c in s.cases:
                c.body = strip_jumps(c.body, tuple(t for t in what if t is not Break))
        out.append(s)
    return out


class Minimizer:
    """Delta debugging on the program tree: statements first (ddmin over all of them, then one by
    one with if-hoisting, loops and switches replaced by their bodies), then expressions (each
    replaced by 0, 1, a same-typed operand or a parameter; an index or a trip count only by 0, or
    inside its mask), then expand's options and the shapes, repeated until nothing more goes or the
    budget is spent. Nothing it makes reads or writes out of bounds, loops long, converts a float out of
    range or shifts by a count out of range: range checks and what they guard are edited whole."""

    def __init__(self, prog: Program, pred: Callable[[Program], bool], *, max_tests: int = 400,
                 max_seconds: float = 300.0) -> None:
        self.best = prog
        self.pred = pred
        self.max_tests = max_tests
        self.deadline = time.monotonic() + max_seconds
        self.tests = 0
        self.seen: set[str] = {render(prog)}

    def spent(self) -> bool:
        return self.tests >= self.max_tests or time.monotonic() > self.deadline

    def test(self, cand: Program) -> bool:
        text = render(cand)
        if text in self.seen or self.spent():
            return False
        self.seen.add(text)
        self.tests += 1
        if self.pred(cand):
            self.best = cand
            return True
        return False

    def run(self) -> Program:
        while not self.spent():
            before = render(self.best)
            self.ddmin_statements()
            self.one_by_one(self.statement_edits)
            self.one_by_one(self.expression_edits)
            self.one_by_one(self.param_edits)
            self.one_by_one(self.mode_edits)
            if render(self.best) == before:
                break
        return self.best

    # --- statements
    def removable(self, p: Program) -> list[Stmt]:
        out = [s for s in walk_stmts(p.f.body) if not s.keep and not isinstance(s, ArrayDecl)]
        if p.helper is not None:
            out += [s for s in walk_stmts(p.helper.body) if not s.keep and not isinstance(s, ArrayDecl)]
        return out

    def without(self, p: Program, ids: set[int]) -> Program:
        """A copy of ``p`` without the statements of ids (ids of ``p``'s nodes)."""
        memo: dict[int, object] = {}
        q = copy.deepcopy(p, memo)
        drop = {id(memo[i]) for i in ids if i in memo}

        def prune(lst: list[Stmt]) -> None:
            for i, s in enumerate(lst[1:], 1):  # a NaN fix goes with its store
                if isinstance(s, NanFix) and id(lst[i - 1]) in drop:
                    drop.add(id(s))
            lst[:] = [s for s in lst if id(s) not in drop]
            for s in lst:
                for c in child_lists(s):
                    prune(c)

        prune(q.f.body)
        if q.helper is not None:
            prune(q.helper.body)
        return q

    def ddmin_statements(self) -> None:
        n = 2
        while not self.spent():
            stmts = self.removable(self.best)
            if len(stmts) < 1:
                return
            n = min(n, len(stmts))
            size = -(-len(stmts) // n)
            progressed = False
            for i in range(0, len(stmts), size):
                chunk = {id(s) for s in stmts[i:i + size]}
                if self.test(self.without(self.best, chunk)):
                    progressed = True
                    n = max(n - 1, 2)
                    break
            if not progressed:
                if size == 1:
                    return
                n = min(n * 2, len(stmts))

    def statement_edits(self, p: Program) -> Iterator[Program]:
        for idx, s in enumerate(self.removable(p)):
            yield self.edit_stmt(p, idx, "drop")
            if isinstance(s, GuardedIf):
                continue
            if isinstance(s, If):
                yield self.edit_stmt(p, idx, "then")
                if s.els:
                    yield self.edit_stmt(p, idx, "else")
                    yield self.edit_stmt(p, idx, "noelse")
            if isinstance(s, Loop):
                yield self.edit_stmt(p, idx, "unloop")
                if s.kind != "for" or s.cond is not None:
                    yield self.edit_stmt(p, idx, "for")
            if isinstance(s, Switch):
                for k in range(len(s.cases)):
                    yield self.edit_stmt(p, idx, f"case{k}")
                    if len(s.cases) > 1:
                        yield self.edit_stmt(p, idx, f"nocase{k}")
            if isinstance(s, Assign) and s.op != "=":
                yield self.edit_stmt(p, idx, "plain")

    def edit_stmt(self, p: Program, idx: int, how: str) -> Program:
        q = copy.deepcopy(p)
        target = self.removable(q)[idx]

        def fix(lst: list[Stmt]) -> bool:
            for i, s in enumerate(lst):
                if s is target:
                    if how == "drop":
                        n = 2 if i + 1 < len(lst) and isinstance(lst[i + 1], NanFix) else 1
                        lst[i:i + n] = []
                    elif how == "then":
                        lst[i:i + 1] = s.then
                    elif how == "else":
                        lst[i:i + 1] = s.els
                    elif how == "noelse":
                        s.els = []
                    elif how == "unloop":
                        lst[i:i + 1] = [Decl(s.ctype, s.var, Lit("int", "1")), *strip_jumps(s.body, (Break, Continue))]
                    elif how == "for":
                        s.kind, s.cond = "for", None
                    elif how.startswith("case"):
                        lst[i:i + 1] = strip_jumps(s.cases[int(how[4:])].body, (Break,))
                    elif how.startswith("nocase"):
                        del s.cases[int(how[6:])]
                    elif how == "plain":
                        s.op = "="
                    return True
                if any(fix(c) for c in child_lists(s)):
                    return True
            return False

        if not fix(q.f.body) and q.helper is not None:
            fix(q.helper.body)
        return q

    # --- expressions
    def exprs(self, p: Program) -> list[tuple[Node, str, int, Expr, bool]]:
        """Every expression slot as (owner, attribute, index, expression, bounded), outermost first;
        a bounded slot (an index, a trip count) keeps its value range: only 0 replaces it, and only
        the operand of its mask is edited further."""
        out: list[tuple[Node, str, int, Expr, bool]] = []

        def visit(owner: Node, attr: str, i: int, e: Expr, bounded: bool = False) -> None:
            out.append((owner, attr, i, e, bounded))
            if bounded and not isinstance(e, Elem) and not (isinstance(e, Op) and _MASKED.fullmatch(e.fmt)):
                return
            if isinstance(e, Op) and not e.atomic:
                for j, k in enumerate(e.kids):
                    visit(e, "kids", j, k)
            elif isinstance(e, Call):
                for j, a in enumerate(e.args):
                    visit(e, "args", j, a)
            elif isinstance(e, Elem):
                for j, x in enumerate(e.indexes):
                    visit(e, "indexes", j, x, True)

        fns = [p.f] + ([p.helper] if p.helper is not None else [])
        for fn in fns:
            for s in walk_stmts(fn.body):
                if (s.keep and not isinstance(s, Return)) or isinstance(s, GuardedIf):
                    continue
                if isinstance(s, Store):
                    visit(s, "target", -1, s.target, True)
                if isinstance(s, Loop):
                    visit(s, "bound", -1, s.bound, True)
                if isinstance(s, ArrayDecl):
                    for j, x in enumerate(s.init):
                        visit(s, "init", j, x)
                for attr in ("init", "value", "cond", "call", "sel"):
                    if hasattr(s, attr) and isinstance(getattr(s, attr), Expr):
                        visit(s, attr, -1, getattr(s, attr))
        return out

    def replacements(self, p: Program, e: Expr, bounded: bool) -> list[Expr]:
        if bounded:
            return [] if isinstance(e, (Lit, Elem)) else [Lit("int", "0")]
        out: list[Expr] = []
        values = [(t, n) for t, n in p.f.params if not t.endswith("*")]
        if isinstance(e, Op) and e.cond:
            out += [k for k in e.kids if isinstance(k, Op) and k.cond]
            out.append(Op("int", "({0} != 0)", [Ref(*values[0])], cond=True) if values else Lit("int", "1"))
            return out
        if isinstance(e, Call) and e.site is not None and e.func.startswith("log_"):
            out += list(e.args)
        if e.ty in TYPES or e.ty in NARROW:
            z, o = Gen.zero(e.ty), Gen.one(e.ty)
            if not (isinstance(e, Lit) and e.text in (z.text, o.text)):
                out += [z, o]
        if isinstance(e, (Op, Call, Elem)):
            out += [k for k in kids(e) if k.ty == e.ty and not (isinstance(k, Op) and k.cond)
                    and not (isinstance(e, Elem) or (isinstance(e, Op) and e.atomic))]
            out += [Ref(t, n) for t, n in values if t == e.ty]
        return out

    def expression_edits(self, p: Program) -> Iterator[Program]:
        slots = self.exprs(p)
        for idx, (_, _, _, e, bounded) in enumerate(slots):
            for r_i in range(len(self.replacements(p, e, bounded))):
                q = copy.deepcopy(p)
                owner, attr, i, e2, b2 = self.exprs(q)[idx]
                rep = self.replacements(q, e2, b2)[r_i]
                if i < 0:
                    setattr(owner, attr, rep)
                else:
                    getattr(owner, attr)[i] = rep
                yield q

    def param_edits(self, p: Program) -> Iterator[Program]:
        dropped = dead_stores(p.f)
        used = _used(p.f, dropped) | {_base_name(s.name) for s in walk_stmts(p.f.body)
                                      if isinstance(s, (Assign, Step)) and id(s) not in dropped}
        for i, (_, name) in enumerate(p.f.params):
            if name not in used:
                q = copy.deepcopy(p)
                del q.f.params[i]
                q.modes.uniform = [n for n in q.modes.uniform if n != name]
                q.modes.linear = [n for n in q.modes.linear if n != name]
                yield q

    def mode_edits(self, p: Program) -> Iterator[Program]:
        """expand's options back to their defaults, one at a time; a uniform value parameter made varying."""
        default = Modes()
        for key in ("lanes", "boscc", "abi", "wrapper", "vector_math", "frontend", "pragma"):
            if getattr(p.modes, key) != getattr(default, key):
                q = copy.deepcopy(p)
                setattr(q.modes, key, getattr(default, key))
                yield q
        for t, n in p.f.params:
            if n in p.modes.uniform and not t.endswith("*"):
                q = copy.deepcopy(p)
                q.modes.uniform.remove(n)
                yield q

    def one_by_one(self, edits: Callable[[Program], Iterator[Program]]) -> None:
        restart = True
        while restart and not self.spent():
            restart = False
            for cand in edits(self.best):
                if self.spent():
                    return
                if self.test(cand):
                    restart = True
                    break


def minimize(prog: Program, outcome: Outcome, isa_name: str, *, n_random: int = 2000, seed: int | None = None,
             max_tests: int = 400, max_seconds: float = 300.0) -> tuple[Program, int]:
    """The smallest program found that still fails like ``outcome`` did; and the number of tests."""
    want = outcome.signature()
    wd = Path(tempfile.mkdtemp(prefix="expand-fuzz-min-"))
    try:
        def pred(p: Program) -> bool:
            o = check_source(render(p), isa_name, n_random=n_random, seed=seed, workdir=wd, cache_dir=wd,
                             expect_error=p.expect_error)
            return o.signature() == want

        m = Minimizer(prog, pred, max_tests=max_tests, max_seconds=max_seconds)
        return m.run(), m.tests
    finally:
        shutil.rmtree(wd, ignore_errors=True)


# ----------------------------------------------------------------------------- the command


@dataclass
class Job:
    index: int
    seed: int
    isa: str
    n_random: int
    opts: GenOptions
    cache_dir: Path | None = None


@dataclass
class Result:
    index: int
    label: str
    outcome: Outcome


def _run_job(job: Job) -> Result:
    label = program_seed(job.seed, job.index)
    prog = generate(label, job.opts)
    wd = None
    if job.cache_dir is not None:  # one directory per worker, emptied for each program: the same paths
        wd = job.cache_dir / f"work-{os.getpid()}"  # each time, so the frontend parses the headers once
        shutil.rmtree(wd, ignore_errors=True)
        wd.mkdir()
    out = check_source(render(prog), job.isa, n_random=job.n_random, seed=_verify_seed(label),
                       expect_error=prog.expect_error, cache_dir=job.cache_dir, workdir=wd)
    return Result(job.index, label, out)


def _verify_seed(label: str) -> int:
    h = 1469598103934665603
    for ch in label.encode():
        h = ((h ^ ch) * 1099511628211) & ((1 << 64) - 1)
    return h


@dataclass
class _MinJob:
    label: str
    isa: str
    n_random: int
    opts: GenOptions
    outcome: Outcome
    max_tests: int
    max_seconds: float


def _run_min(job: _MinJob) -> tuple[str, str, int]:
    prog = generate(job.label, job.opts)
    small, tests = minimize(prog, job.outcome, job.isa, n_random=job.n_random, seed=_verify_seed(job.label),
                            max_tests=job.max_tests, max_seconds=job.max_seconds)
    return job.label, render(small), tests


@dataclass
class FuzzReport:
    programs: int
    mismatches: int
    crashes: int
    seconds: float
    failures: list[Result]
    diagnosed: int = 0
    #: programs that compiled and linked but were not run: this host cannot run the ISA (why: ``not_run_why``)
    not_run: int = 0
    not_run_why: str = ""
    #: diagnostics the programs were allowed to get (their may-refuse class), by message
    refused: dict[str, int] = field(default_factory=dict)
    #: failures by kind (``werror``: vector code stopped by a warning; ``traceback``: an exception in expand)
    kinds: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        skipped = (f", {self.not_run} compiled but NOT run ({self.not_run_why})" if self.not_run else "")
        tb, we = self.kinds.get("traceback", 0), self.kinds.get("werror", 0)
        return (f"expand-fuzz: {self.programs} programs, {self.mismatches} mismatches, {self.crashes} crashes"
                f" ({tb} tracebacks, {we} -Werror), {sum(self.refused.values())} refused, {self.diagnosed} planted"
                f" diagnostics{skipped}, {self.seconds:.1f} s")

    def breakdown(self) -> list[str]:
        """One line per kind of failure and per refusal message."""
        out = [f"  {n:5d} {k}" for k, n in sorted(self.kinds.items())]
        out += [f"  {n:5d} refused: {m}" for m, n in sorted(self.refused.items(), key=lambda x: -x[1])]
        return out


def _pool(jobs: int):
    return multiprocessing.get_context("fork").Pool(jobs) if jobs > 1 else None


def prebuild_libm(isa: str, log: Callable[[str], None] = print) -> None:
    """mathlib's vector libm with every float function the programs call, for ``isa``, built into the
    cache before the programs need it (else the first one to link builds it)."""
    from mathlib.libm import ensure
    fns = sorted({n for n, ret, _ in MATH_FUNCS if n in EXPANDM_FUNCTIONS})
    t0 = time.monotonic()
    try:
        ensure([isa], fns)
    except Exception as exc:  # (then each program that needs it reports it)
        log(f"expand-fuzz: building mathlib's vector libm for {isa} failed: {exc}")
        return
    if time.monotonic() - t0 > 5:
        log(f"expand-fuzz: built mathlib's vector libm for {isa} ({time.monotonic() - t0:.0f} s)")


def run_fuzz(*, count: int, isa: str, seed: int = 1, start: int = 0, n_random: int = 2000,
             out: Path | None = Path("fuzz-failures"), jobs: int = 2, opts: GenOptions | None = None,
             minimize_failures: bool = True, max_tests: int = 300, max_seconds: float = 240.0,
             log: Callable[[str], None] = print, without: str = "") -> FuzzReport:
    """Check ``count`` programs; write each failure, minimized, to ``out``. ``without``: the
    ``--without`` argument that gives ``opts`` (for the README's command lines)."""
    opts = opts or GenOptions()
    t0 = time.monotonic()
    if opts.math and count:
        prebuild_libm(isa, log)
    cache = Path(tempfile.mkdtemp(prefix="expand-fuzz-"))
    work = [Job(i, seed, isa, n_random, opts, cache) for i in range(start, start + count)]
    results: list[Result] = []
    failures: list[Result] = []
    pool = _pool(min(jobs, count))
    try:
        it = pool.imap_unordered(_run_job, work) if pool else map(_run_job, work)
        for r in it:
            results.append(r)
            if r.outcome.failed:
                log(f"expand-fuzz: program {r.label}: {r.outcome.kind}: {r.outcome.summary}")
        results.sort(key=lambda r: r.index)
        failures = [r for r in results if r.outcome.failed]
        if failures and out is not None:
            out.mkdir(parents=True, exist_ok=True)
            write_support(out)
            # One minimization per kind of failure: the others are most likely the same bug again.
            first: dict[tuple[str, str], Result] = {}
            for r in failures:
                first.setdefault(r.outcome.signature(), r)
            todo = [r for r in failures if minimize_failures and first[r.outcome.signature()] is r]
            mjobs = [_MinJob(r.label, isa, n_random, opts, r.outcome, max_tests, max_seconds) for r in todo]
            stem = f"fuzz-{isa.replace('.', '')}"

            def write(r: Result, small: str | None) -> None:
                name = f"{stem}-{r.label}"
                orig = render(generate(r.label, opts))
                text = small or orig
                (out / f"{name}.c").write_text(text)
                if text != orig:
                    (out / f"{name}.orig.c").write_text(orig)
                (out / f"{name}.txt").write_text(f"{r.outcome.kind}: {r.outcome.summary}\n{r.outcome.details}\n")
                same = first[r.outcome.signature()]
                note = "" if same is r else f" Looks like {stem}-{same.label}.c again."
                flags = f" --without {without}" if without else ""
                line = (f"{name}.c: {r.outcome.kind} on {isa} ({r.outcome.summary.splitlines()[0][:160]}).{note}"
                        f" Reproduce: expand-fuzz --replay {out / (name + '.c')} --isa {isa} --random {n_random}"
                        f"  (as generated: expand-fuzz --seed {seed} --start {r.index} --count 1 --isa {isa}"
                        f"{flags} --random {n_random}; expand's options: "
                        f"{setting(Modes.parse(text), isa).command(isa, name + '.c')})")
                with open(out / "README", "a") as f:
                    f.write(line + "\n")

            mine = {r.label for r in todo}
            for r in failures:  # (each minimized one as soon as it is)
                if r.label not in mine:
                    write(r, None)
            mins = pool.imap(_run_min, mjobs) if pool else map(_run_min, mjobs)
            for r, res in zip(todo, mins):
                log(f"expand-fuzz: {r.label} minimized in {res[2]} tests: {res[1].count(chr(10))} lines")
                write(r, res[1])
    finally:
        if pool:
            pool.close()
            pool.join()
        shutil.rmtree(cache, ignore_errors=True)
    mism = sum(r.outcome.kind == "mismatch" for r in failures)
    not_run = [r for r in results if r.outcome.kind == "not-run"]
    refused: dict[str, int] = {}
    for r in results:
        if r.outcome.kind == "refused":
            msg = re.sub(r"'[A-Za-z_]\w*'", "'_'", r.outcome.summary)
            refused[msg] = refused.get(msg, 0) + 1
    kinds: dict[str, int] = {}
    for r in failures:
        for k in [r.outcome.kind] + ["werror"] * r.outcome.werror + ["traceback"] * r.outcome.traceback:
            kinds[k] = kinds.get(k, 0) + 1
    return FuzzReport(len(results), mism, len(failures) - mism, time.monotonic() - t0, failures,
                      sum(r.outcome.summary.startswith("diagnosed") for r in results), len(not_run),
                      not_run[0].outcome.details if not_run else "", refused, kinds)


def main(argv: list[str] | None = None) -> int:
    from emit import ISAS, default_isa
    p = argparse.ArgumentParser(prog="expand-fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=100, help="programs to generate and check (default 100)")
    p.add_argument("--isa", default=default_isa(), choices=list(ISAS), help="target ISA")
    p.add_argument("--seed", type=int, default=1, help="seed of the run (program i uses SEED-i)")
    p.add_argument("--start", type=int, default=0, help="index of the first program (default 0)")
    p.add_argument("--out", default="fuzz-failures", help="where failures are written (default fuzz-failures/)")
    p.add_argument("--random", type=int, default=2000, help="random inputs per program besides the edge set")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1), help="worker processes (default 2)")
    p.add_argument("--without", metavar="FEATURE,...", default="",
                   help=f"features to leave out: {', '.join(FEATURES)} (all on by default)")
    p.add_argument("--no-loops", action="store_true", help="generate no loops (the same as --without loops)")
    p.add_argument("--no-minimize", action="store_true", help="write failures as generated")
    p.add_argument("--print", action="store_true", help="print the programs instead of checking them")
    p.add_argument("--replay", nargs="+", metavar="FILE.c", help="check programs written by expand-fuzz")
    args = p.parse_args(argv)
    without = [w for w in args.without.split(",") if w] + (["loops"] if args.no_loops else [])
    try:
        opts = GenOptions.without(without)
    except ValueError as exc:
        p.error(str(exc))
    if args.print:
        for i in range(args.start, args.start + args.count):
            sys.stdout.write(render(generate(program_seed(args.seed, i), opts)) + "\n")
        return 0
    if args.replay:
        bad = not_run = 0
        for f in args.replay:
            o = check_file(f, args.isa, n_random=args.random)
            print(f"{f}: {o.kind}: {o.summary}")
            if o.failed:
                print(o.details.split("\n--- vector code ---")[0], file=sys.stderr)
                bad += 1
            not_run += o.kind == "not-run"
        return 1 if bad else EXIT_NOT_RUN if not_run else 0
    rep = run_fuzz(count=args.count, isa=args.isa, seed=args.seed, start=args.start, n_random=args.random,
                   out=Path(args.out), jobs=max(1, args.jobs), opts=opts, minimize_failures=not args.no_minimize,
                   without=",".join(dict.fromkeys(without)))
    print(rep.line())
    for line in rep.breakdown():
        print(line)
    return 1 if rep.failures else EXIT_NOT_RUN if rep.not_run else 0


if __name__ == "__main__":
    sys.exit(main())
