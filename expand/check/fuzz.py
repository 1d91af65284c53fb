"""expand-fuzz: random scalar C functions, expanded and checked lane by lane against the original.

``generate(seed)`` writes a reproducible random C function ``f`` (same seed, same text) free of
undefined behaviour: signed arithmetic wraps through the unsigned type, shift counts are masked,
divisions are guarded (no ``/ 0``, no ``INT_MIN / -1``), floats become integers only after a range
check. It mixes int/unsigned/int64_t/uint64_t/float/double, casts and implicit conversions, punning
unions, nested if/else, ``?:``, ``&&``/``||``, early returns, a ``static`` helper (inlined by expand)
and calls of the non-expandable ``log_T(site, value)`` functions of ``fuzz_log.c``, which record
every call. ``check_source`` expands ``f`` in-process and verifies it with ``expand.check.verify`` in
call-log mode: return values bit for bit *and*, for each input, the same calls with the same
arguments in the same order in the scalar run and in that input's lane of the vector run.

NaNs: which operand's NaN an operation returns (so its sign and payload) is the C compiler's choice
(gcc orders the operands of commutative operations as it likes, and x86 returns the first NaN), so
a NaN result matches any NaN (``verify(nan_bits=False)``), the log functions record one NaN, and a
computed NaN stored to a union's float member is made the quiet NaN before the int member reads it.
NaN inputs copied unchanged keep their bits, and everything else is compared bit for bit.

A few percent of the programs carry a construct expand must refuse (a written local ``static``,
``volatile``, inline assembly): for those the diagnostic is the expected outcome. Loops with small data-dependent
per-lane trip counts, ``break`` and ``continue`` are on by default (``--no-loops`` turns them off).

``expand-fuzz --count N --isa X --seed S [--out DIR] [--random R]`` checks N programs (on 2
processes), delta-debugs the first failure of each kind down to a small program written to DIR
with a README line telling how to reproduce it, prints ``expand-fuzz: N programs, M mismatches,
C crashes, T s`` and exits 1 if anything failed (crashes: tracebacks, unexpected or missing
diagnostics, vector code that does not compile, harnesses that die). ``expand-fuzz --replay
FILE.c`` checks a written program again; ``--print`` shows the programs of a seed.
"""

from __future__ import annotations

import argparse
import copy
import multiprocessing
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from emit.host import EXIT_NOT_RUN

# ----------------------------------------------------------------------------- the C side

# Flags for every file of a check. -frounding-math: GCC 12 folds `0.0 - (double)u` to
# `-(double)u` and `0.0 + -(double)u` to `-(double)u` (u unsigned; even at -O0), which gives -0.0
# for u = 0 where IEEE arithmetic gives +0.0; the reference would be wrong, and so could the uniform
# scalar code in the vector function. With sign-dependent rounding honoured GCC keeps the additions.
FUZZ_CFLAGS = ("-frounding-math",)
# On AVX-512 the scalar reference is compiled at -O0. AVX-512 has one instruction for each unsigned-to-float
# conversion, and with -frounding-math (no folding of inexact conversions) GCC 12's RTL CSE and GCSE
# take `(float)(uint64_t)-7` (vcvtusi2ssq: 2^64) and `(float)(unsigned)-7` (vcvtusi2ssl: 2^32) for one
# value, a constant having no mode in RTL: the -O2 reference compared them equal
# (tests/fuzz_regressions/avx512_unsigned_convert_cse.c; fuzz program 2026-860). -O0 runs no such pass.
# Elsewhere the -O2 reference stays (on ppc64le an -O0 reference rounds some int64 to
# float conversions differently by one ulp: CI programs 20240601-27 and -146, not yet understood).
FUZZ_SCALAR_CFLAGS = {"avx512": ("-O0",)}
# The same GCC 12 bug hits the vector function too, where uniform scalar code keeps such
# conversions: on AVX-512 every file is compiled without the two RTL passes that merge them
# (tests/fuzz_regressions/avx512_unsigned_convert_cse.c; docs/verification.md, "Known compiler bugs").
FUZZ_ISA_CFLAGS = {"avx512": ("-fno-rerun-cse-after-loop", "-fno-gcse")}

TYPES = ("int", "unsigned", "int64_t", "uint64_t", "float", "double")
INTS = ("int", "unsigned", "int64_t", "uint64_t")
FLOATS = ("float", "double")
UNSIGNED_OF = {"int": "unsigned", "unsigned": "unsigned", "int64_t": "uint64_t", "uint64_t": "uint64_t"}
BITS = {"int": 32, "unsigned": 32, "int64_t": 64, "uint64_t": 64, "float": 32, "double": 64}
LOG_FN = {"int": "log_i32", "unsigned": "log_u32", "int64_t": "log_i64", "uint64_t": "log_u64",
          "float": "log_f32", "double": "log_f64"}
#: Open ranges a float must lie in before it is converted to each integer type (truncation then fits).
CLAMP = {"int": ("-2147483649.0", "2147483648.0"), "unsigned": ("-1.0", "4294967296.0"),
         "int64_t": ("-9223372036854775808.0", "9223372036854775808.0"),
         "uint64_t": ("-1.0", "18446744073709551616.0")}
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
    ty: str  # one of TYPES ("int" for conditions)


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


@dataclass(eq=False)
class Call(Expr):
    """``func(args..., site)`` for helpers, ``func(site, args...)`` for log calls, ``func(args)`` else."""

    func: str = ""
    args: list[Expr] = field(default_factory=list)
    site: str | None = None
    site_first: bool = True


@dataclass(eq=False)
class Stmt(Node):
    keep: bool = field(default=False, kw_only=True)  # never removed by the minimizer


@dataclass(eq=False)
class Decl(Stmt):
    ty: str
    name: str
    init: Expr


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
class If(Stmt):
    cond: Expr
    then: list[Stmt]
    els: list[Stmt]


@dataclass(eq=False)
class NanFix(If):
    """``if (u.f != u.f) u.i = NaN;`` after a store to a union's float member: goes with that store."""


@dataclass(eq=False)
class Return(Stmt):
    value: Expr


@dataclass(eq=False)
class CallStmt(Stmt):
    call: Call


@dataclass(eq=False)
class Loop(Stmt):
    var: str
    bound: Expr
    body: list[Stmt]


@dataclass(eq=False)
class Raw(Stmt):
    """Literal C lines (the constructs of intentional diagnostics)."""

    lines: list[str]
    reads: list[str] = field(default_factory=list)


@dataclass(eq=False)
class Func(Node):
    name: str
    ret: str
    params: list[tuple[str, str]]  # (type, name)
    body: list[Stmt]
    static: bool = False


@dataclass(eq=False)
class Program(Node):
    label: str
    f: Func
    helper: Func | None = None
    expect_error: str | None = None  # a word the diagnostic must contain (intentional diagnostics)
    math: bool = False


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
            args = [e.site, *args] if e.site_first else [*args, e.site]
        return f"{e.func}({', '.join(args)})"
    raise TypeError(e)


def walk_expr(e: Expr) -> Iterator[Expr]:
    yield e
    if isinstance(e, Op):
        for k in e.kids:
            yield from walk_expr(k)
    elif isinstance(e, Call):
        for a in e.args:
            yield from walk_expr(a)


def stmt_exprs(s: Stmt) -> list[Expr]:
    if isinstance(s, Decl):
        return [s.init]
    if isinstance(s, Assign):
        return [s.value]
    if isinstance(s, If):
        return [s.cond]
    if isinstance(s, Return):
        return [s.value]
    if isinstance(s, CallStmt):
        return [s.call]
    if isinstance(s, Loop):
        return [s.bound]
    return []


def child_lists(s: Stmt) -> list[list[Stmt]]:
    if isinstance(s, If):
        return [s.then, s.els]
    if isinstance(s, Loop):
        return [s.body]
    return []


def walk_stmts(stmts: list[Stmt]) -> Iterator[Stmt]:
    for s in stmts:
        yield s
        for lst in child_lists(s):
            yield from walk_stmts(lst)


def _base_name(name: str) -> str:
    return name.split(".")[0]


def _reads(fn: Func, dropped: set[int]) -> set[str]:
    """Variables read by the statements that are kept, given the dropped ones (by id)."""
    out: set[str] = set()
    for s in walk_stmts(fn.body):
        if id(s) in dropped:
            continue
        for e in stmt_exprs(s):
            for n in walk_expr(e):
                if isinstance(n, Ref):
                    out.add(_base_name(n.name))
        if isinstance(s, Raw):
            out.update(s.reads)
    return out  # (a compound assignment reads its target only for itself: not counted, as gcc does)


def dead_stores(fn: Func) -> set[int]:
    """Declarations and assignments of variables nothing reads (gcc -Wall would warn), to a fixpoint."""
    dropped: set[int] = set()
    while True:
        reads = _reads(fn, dropped)
        more = {id(s) for s in walk_stmts(fn.body) if id(s) not in dropped
                and isinstance(s, (Decl, UnionDecl, Assign)) and _base_name(s.name) not in reads
                and not s.keep}
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


def render_stmts(stmts: list[Stmt], dropped: set[int], ind: str, out: list[str]) -> None:
    for s in stmts:
        if id(s) in dropped:
            continue
        if isinstance(s, Decl):
            out.append(f"{ind}{s.ty} {s.name} = {expr_text(s.init)};")
        elif isinstance(s, UnionDecl):
            ft, fm, it, im = s.kind
            init = " = { 0 }" if s.init else ""
            out.append(f"{ind}union {{ {SPELL[ft]} {fm}; {SPELL[it]} {im}; }} {s.name}{init};")
        elif isinstance(s, Assign):
            out.append(f"{ind}{s.name} {s.op} {expr_text(s.value)};")
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
            out.append(f"{ind}for (int {s.var} = 0; {s.var} < {expr_text(s.bound)}; {s.var}++) {{")
            render_stmts(s.body, dropped, ind + "    ", out)
            out.append(f"{ind}}}")
        elif isinstance(s, Raw):
            out.extend(ind + line for line in s.lines)
        else:
            raise TypeError(s)


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


def render_func(fn: Func, out: list[str]) -> None:
    dropped = dead_stores(fn)
    params = ", ".join(f"{t} {n}" for t, n in fn.params) or "void"
    out.append(f"{'static ' if fn.static else ''}{fn.ret} {fn.name}({params})")
    out.append("{")
    render_stmts(fn.body, dropped, "    ", out)
    out.append("}")


def render(p: Program) -> str:
    out: list[str] = []
    if p.expect_error:
        out.append(f"/* expand-fuzz: expect-error {p.expect_error} */")
    out.append(f"/* expand-fuzz program {p.label} */")
    out.append("#include <stdint.h>")
    if p.math:
        out.append("#include <math.h>")
    out.append('#include "fuzz_log.h"')
    out.append("")
    if p.helper is not None and calls_helper(p.f, p.helper.name, dead_stores(p.f)):
        render_func(p.helper, out)
        out.append("")
    render_func(p.f, out)
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- generation


@dataclass
class GenOptions:
    """Knobs of the generator (the defaults are what the CI fuzz run uses)."""

    loops: bool = True  # loops with per-lane trip counts, break/continue
    diagnostics: float = 0.03  # share of programs with a construct expand must refuse
    max_params: int = 3
    max_stmts: int = 9  # top-level statements of f (besides declarations and the final return)
    max_block: int = 4
    max_nest: int = 3  # if/else nesting
    max_depth: int = 3  # expression nesting
    helper: float = 0.6
    union: float = 0.4
    math: float = 0.15


class Budget:
    """Calls (log_T, the helper) left in one full expression: at most one, so the order is defined."""

    def __init__(self, calls: int) -> None:
        self.calls = calls


@dataclass
class Var:
    ty: str
    name: str
    assignable: bool = True


DIAGNOSTICS = ("static", "volatile", "assembly")


class Gen:
    def __init__(self, rng: random.Random, opts: GenOptions, label: str) -> None:
        self.rng = rng
        self.o = opts
        self.label = label
        self.site = 0
        self.helper: Func | None = None
        self.in_helper = False
        self.helper_sites = 0
        self.helper_calls = 0
        self.names = 0
        self.math = False

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

    # ------------------------------------------------------------ literals
    def lit(self, ty: str) -> Lit:
        r = self.rng
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

    @staticmethod
    def zero(ty: str) -> Lit:
        return Lit(ty, {"int": "0", "unsigned": "0u", "int64_t": "0L", "uint64_t": "0UL", "float": "0.0f",
                        "double": "0.0"}[ty])

    @staticmethod
    def one(ty: str) -> Lit:
        return Lit(ty, {"int": "1", "unsigned": "1u", "int64_t": "1L", "uint64_t": "1UL", "float": "1.0f",
                        "double": "1.0"}[ty])

    # ------------------------------------------------------------ expressions
    def leaf(self, ty: str, scope: list[Var]) -> Expr:
        same = [v for v in scope if v.ty == ty]
        c = self.rng.random()
        if same and c < 0.6:
            v = self.pick(same)
            return Ref(ty, v.name)
        if scope and c < 0.8:
            v = self.pick(scope)
            return convert(Ref(v.ty, v.name), ty)
        return self.lit(ty)

    def expr(self, ty: str, depth: int, scope: list[Var], budget: Budget) -> Expr:
        if depth <= 0 or self.chance(0.3):
            return self.leaf(ty, scope)
        d = depth - 1
        r = self.rng.random()
        isint = ty in INTS
        if budget.calls > 0 and r < 0.08 and self.site < 90:
            budget.calls -= 1
            return Call(ty, LOG_FN[ty], [self.expr(ty, d, scope, Budget(0))], self.next_site())
        if (budget.calls > 0 and self.helper is not None and not self.in_helper and r < 0.14
                and self.helper_calls < 4 and not (self.helper.ret in FLOATS and ty in INTS)):
            # (a float result would be range-checked before becoming an int: three calls)
            budget.calls -= 1
            return convert(self.helper_call(d, scope), ty)
        r = self.rng.random()
        if r < 0.12:
            src = self.pick(TYPES)
            if src in FLOATS and ty in INTS:  # the range check repeats the operand: keep it small, no calls
                return convert(self.expr(src, min(d, 1), scope, Budget(0)), ty)
            return convert(self.expr(src, d, scope, budget), ty)
        if r < 0.2:
            return Op(ty, "({0} ? {1} : {2})", [self.cond(d, scope, budget), self.expr(ty, d, scope, budget),
                                                self.expr(ty, d, scope, budget)])
        if r < 0.26 and ty == "int":
            return self.compare(d, scope, budget)
        if r < 0.33:
            return self.implicit_mix(ty, d, scope, budget)
        if r < 0.38 and ty in FLOATS and self.chance(self.o.math * 3):
            self.math = True
            fn = self.pick(["fabsf", "sqrtf", "__builtin_fabsf"] if ty == "float" else ["fabs", "sqrt"])
            return Call(ty, fn, [self.expr(ty, d, scope, Budget(0))])
        if r < 0.45:
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
            return Op(ty, f"({{0}} {op} {{1}})", [self.expr(ty, d, scope, budget), self.expr(ty, d, scope, budget)])
        if kind == "shift":
            return self.shift(ty, self.pick(["<<", ">>"]), self.expr(ty, d, scope, budget), d, scope, budget)
        # guarded division: the operands appear twice, so they make no calls
        a, b = self.expr(ty, min(d, 1), scope, Budget(0)), self.expr(ty, min(d, 1), scope, Budget(0))
        if ty in FLOATS:
            return Op(ty, "({0} / {1})", [a, b])
        return self.divide(ty, self.pick(["/", "%"]), a, b, scope)

    def shift(self, ty: str, op: str, a: Expr, d: int, scope: list[Var], budget: Budget) -> Expr:
        mask = BITS[ty] - 1
        if self.chance(0.4):
            n: Expr = Lit("int", str(self.rng.randrange(BITS[ty])))
            cnt = "{1}"
        else:
            n = self.expr(self.pick(INTS), d, scope, budget)
            cnt = f"({{1}} & {mask})"
        if op == "<<" and ty in ("int", "int64_t"):
            u = UNSIGNED_OF[ty]
            return Op(ty, f"({ty})(({u}){{0}} << {cnt})", [a, n])
        return Op(ty, f"({{0}} {op} {cnt})", [a, n])

    def divide(self, ty: str, op: str, a: Expr, b: Expr, scope: list[Var]) -> Expr:
        # no warnings about the guard: a constant divisor, bit operations or truth values compared
        if _const(b) or _warns(b, self.zero(ty)):
            b = self.var_leaf(ty, scope)
        if _warns(a, self.zero(ty)):
            a = self.var_leaf(ty, scope)
        if ty in ("int", "int64_t"):
            m1 = "(-1)" if ty == "int" else "(-1L)"
            fmt = (f"(({{1}} != 0 && !({{0}} == {INT_MIN_TEXT[ty]} && {{1}} == {m1})) ? {{0}} {op} {{1}} : {{0}})")
        else:
            fmt = f"({{1}} != 0 ? {{0}} {op} {{1}} : {{0}})"
        return Op(ty, fmt, [a, b])

    def var_leaf(self, ty: str, scope: list[Var]) -> Expr:
        v = self.pick(scope)
        return convert(Ref(v.ty, v.name), ty)

    def unary(self, ty: str, d: int, scope: list[Var], budget: Budget) -> Expr:
        a = self.expr(ty, d, scope, budget)
        if ty in FLOATS:
            return Op(ty, "(-{0})", [a])
        if self.chance(0.5) and not (isinstance(_strip_casts(a), Op) and _strip_casts(a).cond):
            return Op(ty, "(~{0})", [a])
        if ty in ("int", "int64_t"):
            u = UNSIGNED_OF[ty]
            return Op(ty, f"({ty})(({u})0 - ({u}){{0}})", [a])
        return Op(ty, "(-{0})", [a])

    def implicit_mix(self, ty: str, d: int, scope: list[Var], budget: Budget) -> Expr:
        """A binary operation whose operands differ in type: C's usual arithmetic conversions."""
        if ty == "unsigned":
            other, ops = "int", ["+", "-", "*", "&", "|", "^"]
        elif ty == "uint64_t":
            other, ops = self.pick(["int", "unsigned", "int64_t"]), ["+", "-", "*", "&", "|", "^"]
        elif ty == "int64_t":
            other, ops = self.pick(["int", "unsigned"]), ["&", "|", "^"]
        elif ty == "float":
            other, ops = self.pick(list(INTS)), ["+", "-", "*", "/"]
        elif ty == "double":
            other, ops = self.pick([*INTS, "float"]), ["+", "-", "*", "/"]
        else:  # int: nothing narrower converts to int without promotion games; plain bit op
            return Op(ty, f"({{0}} {self.pick(['&', '|', '^'])} {{1}})",
                      [self.expr(ty, d, scope, budget), self.expr(ty, d, scope, budget)])
        a, b = self.expr(ty, d, scope, budget), self.expr(other, d, scope, budget)
        if self.chance(0.5):
            a, b = b, a
        op = self.pick(ops)
        if op == "/" and b.ty in INTS:  # gcc -Wall: "division by zero" for what folds to an integer 0
            op = "*"
        if op in "+-" and (_zero_lit(a) or _zero_lit(b)):
            op = "*"  # see _zero_lit
        return Op(ty, f"({{0}} {op} {{1}})", [a, b])

    def compare(self, d: int, scope: list[Var], budget: Budget) -> Expr:
        op = self.pick(["<", "<=", ">", ">=", "==", "!="])
        for _ in range(4):
            ta = self.pick(TYPES)
            tb = ta if self.chance(0.6) else self.pick(TYPES)
            a = self.expr(ta, d, scope, budget)
            b = self.expr(tb, d, scope, budget)
            if not _warns(a, b):
                return Op("int", f"({{0}} {op} {{1}})", [a, b], cond=True)
        v = self.pick([v for v in scope if "." not in v.name] or scope)
        return Op("int", f"({{0}} {op} {{1}})", [Ref(v.ty, v.name), self.lit(v.ty)], cond=True)

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

    def helper_call(self, d: int, scope: list[Var]) -> Expr:
        h = self.helper
        assert h is not None
        self.helper_calls += 1
        args = [self.expr(t, min(d, 1), scope, Budget(0)) for t, _ in h.params[:-1]]
        return Call(h.ret, h.name, args, str(100 * self.helper_calls), site_first=False)

    # ------------------------------------------------------------ statements
    def block(self, scope: list[Var], nest: int, n: int, can_return: bool, ret: str) -> list[Stmt]:
        scope = list(scope)
        out: list[Stmt] = []
        if nest > 0 and self.chance(0.3):
            ty = self.pick(TYPES)
            name = self.fresh("t")
            out.append(Decl(ty, name, self.expr(ty, self.o.max_depth, scope, Budget(1))))
            scope.append(Var(ty, name))
        for _ in range(n):
            out.extend(self.stmt(scope, nest, can_return, ret))
        return out

    def stmt(self, scope: list[Var], nest: int, can_return: bool, ret: str) -> list[Stmt]:
        r = self.rng.random()
        targets = [v for v in scope if v.assignable]
        depth = self.o.max_depth
        if r < 0.3 and targets:
            v = self.pick(targets)
            return [Assign(v.name, self.expr(v.ty, depth, scope, Budget(1)))]
        if r < 0.4 and targets:
            v = self.pick(targets)
            return [self.compound(v, scope)]
        if r < 0.62 and nest < self.o.max_nest:
            cond = self.cond(2, scope, Budget(1), top=True)
            then = self.block(scope, nest + 1, self.rng.randint(1, self.o.max_block), can_return, ret)
            els = self.block(scope, nest + 1, self.rng.randint(1, self.o.max_block), can_return, ret) \
                if self.chance(0.5) else []
            return [If(cond, then, els)]
        if r < 0.72 and can_return:
            ret_stmt = Return(self.expr(ret, depth, scope, Budget(1)))
            if nest > 0 and self.chance(0.5):
                return [ret_stmt]
            return [If(self.cond(2, scope, Budget(1), top=True), [ret_stmt], [])]
        if r < 0.84 and (self.in_helper or self.site < 90):
            ty = self.pick(TYPES)
            return [CallStmt(Call(ty, LOG_FN[ty], [self.expr(ty, depth - 1, scope, Budget(0))],
                                  self.next_site()))]
        if r < 0.9 and self.o.loops and not self.in_helper:
            i = self.fresh("i")
            bound = Op("int", "({0} & 7)", [self.expr("int", 1, scope, Budget(0))])
            inner = [*scope, Var("int", i, assignable=False)]
            body: list[Stmt] = [Assign(v.name, self.expr(v.ty, 2, inner, Budget(0)))
                                for v in self.rng.sample(targets, min(len(targets), 2))]
            if self.chance(0.4) and self.site < 90:  # a call site reached once per iteration
                ty = self.pick(TYPES)
                body.insert(self.rng.randint(0, len(body)),
                            CallStmt(Call(ty, LOG_FN[ty], [self.expr(ty, 1, inner, Budget(0))], self.next_site())))
            return [Loop(i, bound, body)] if body else []
        if targets:
            v = self.pick(targets)
            return [Assign(v.name, self.expr(v.ty, depth, scope, Budget(1)))]
        return []

    def compound(self, v: Var, scope: list[Var]) -> Stmt:
        e = self.expr(v.ty, 2, scope, Budget(1))
        if v.ty in FLOATS:
            return Assign(v.name, e, "*=" if _zero_lit(e) else self.pick(["+=", "-=", "*="]))
        if v.ty in ("unsigned", "uint64_t"):
            op = self.pick(["+=", "-=", "*=", "&=", "|=", "^=", ">>=", "<<="])
        else:
            op = self.pick(["&=", "|=", "^=", ">>="])
        if op in (">>=", "<<="):
            mask = BITS[v.ty] - 1
            return Assign(v.name, Op(v.ty, f"({{0}} & {mask})", [self.expr(self.pick(INTS), 2, scope, Budget(0))])
                          if self.chance(0.6) else Lit("int", str(self.rng.randrange(BITS[v.ty]))), op)
        return Assign(v.name, e, op)

    # ------------------------------------------------------------ functions
    def make_helper(self) -> Func:
        ret = self.pick(TYPES)
        params = [(self.pick(TYPES), n) for n in ("a", "b")[: self.rng.randint(1, 2)]]
        scope = [Var(t, n) for t, n in params]
        self.in_helper = True
        body: list[Stmt] = []
        if self.chance(0.5):
            ty = self.pick(TYPES)
            body.append(Decl(ty, "hv", self.expr(ty, 2, scope, Budget(1))))
            scope.append(Var(ty, "hv"))
        for _ in range(self.rng.randint(1, 3)):
            body.extend(self.stmt(scope, 1, True, ret))
        body.append(Return(self.expr(ret, 2, scope, Budget(1)), keep=True))
        self.in_helper = False
        return Func("h", ret, [*params, ("int", "site")], body, static=True)

    def program(self) -> Program:
        o = self.o
        ret = self.pick(TYPES)
        names = ["x", "y", "z"][: self.rng.randint(1, o.max_params)]
        params = [(self.pick(TYPES), n) for n in names]
        if self.chance(o.helper):
            self.helper = self.make_helper()
        scope = [Var(t, n) for t, n in params]
        body: list[Stmt] = []
        locals_: list[Var] = []
        for _ in range(self.rng.randint(1, 4)):
            ty = self.pick(TYPES)
            name = self.fresh("v")
            init = self.lit(ty) if self.chance(0.25) else self.expr(ty, 2, scope, Budget(1))
            body.append(Decl(ty, name, init))
            v = Var(ty, name)
            scope.append(v)
            locals_.append(v)
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
        for _ in range(self.rng.randint(2, o.max_stmts)):
            body.extend(self.stmt(scope, 0, True, ret))
        # The final return reads every local, so nothing generated is dead.
        final: Expr = self.expr(ret, 1, scope, Budget(1))
        for v in locals_:
            final = Op(ret, "({0} + {1})" if ret in FLOATS or ret in ("unsigned", "uint64_t") else "({0} ^ {1})",
                       [final, convert(Ref(v.ty, v.name), ret)])
        body.append(Return(final, keep=True))
        f = Func("f", ret, params, body)
        assigned = {s.name for s in walk_stmts(body) if isinstance(s, Assign)}
        copied = {n for _, n in params if n not in assigned}  # their NaNs are the inputs' bits
        canonicalize_nans(f.body, {v.name: v for v in locals_ if "." in v.name}, copied)
        expect = None
        if self.chance(o.diagnostics):
            expect = self.pick(DIAGNOSTICS)
            self.plant_diagnostic(f, expect, scope)
        return Program(self.label, f, self.helper, expect, self.math)

    def plant_diagnostic(self, f: Func, word: str, scope: list[Var]) -> None:
        src = next((p for t, p in f.params if t in INTS), None)
        sel = f"((int){src} & 3)" if src else "1"
        if word == "static":  # state shared between calls
            lines = ["static int calls = 0;", f"calls = calls + {sel};", "log_i32(90, calls);"]
        elif word == "volatile":
            lines = [f"volatile int vol = {sel};", "log_i32(91, vol);"]
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


def _strip_casts(e: Expr) -> Expr:
    while isinstance(e, Op) and len(e.kids) == 1 and re.fullmatch(r"\(\w+\)\{0\}", e.fmt):
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
        return re.sub(r"\((?:int|unsigned|int64_t|uint64_t|float|double)\)", "", e.fmt.format(*kids))
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


def _const(e: Expr) -> bool:
    return not any(isinstance(n, (Ref, Call)) for n in walk_expr(e))


def _warns(a: Expr, b: Expr) -> bool:
    """Would gcc -Wall flag ``a OP b``? A self-comparison, a constant against a truth value
    (-Wbool-compare) or against a bit operation with a constant (-Wtautological-compare)."""
    if expr_text(a) == expr_text(b) or _canon(a) == _canon(b):
        return True
    for x, y in ((a, b), (b, a)):
        if _const(y):
            xs = _strip_casts(x)
            if isinstance(xs, Op) and (xs.cond or (any(t in xs.fmt for t in (" & ", " | "))
                                                    and any(_const(k) for k in xs.kids))):
                return True
    return False


def convert(e: Expr, dst: str) -> Expr:
    """``e`` converted to ``dst`` without undefined behaviour (floats are range-checked first)."""
    src = e.ty
    if src == dst:
        return e
    if src in FLOATS and dst in INTS:
        lo, hi = CLAMP[dst]
        suf = "f" if src == "float" else ""
        lo_t = lo if lo.startswith("(") else f"({lo}{suf})" if lo.startswith("-") else lo + suf
        return Op(dst, f"({dst})(({{0}} > {lo_t} && {{0}} < {hi}{suf}) ? {{0}} : 0)", [e])
    return Op(dst, f"({dst}){{0}}", [e])


def generate(seed: int | str, opts: GenOptions | None = None) -> Program:
    """The program of ``seed`` (any int or string): the same seed always gives the same program."""
    label = str(seed)
    rng = random.Random(f"expand-fuzz:{label}")
    return Gen(rng, opts or GenOptions(), label).program()


def program_seed(seed: int, index: int) -> str:
    return f"{seed}-{index}"


# ----------------------------------------------------------------------------- checking


@dataclass
class Outcome:
    """What happened to one program. kind: ok, mismatch, crash, diagnostic (an ExpandError that was
    not planted), missing-diagnostic, build (the vector code does not compile or link), scalar-build
    (the program itself does not compile: a generator bug), harness (the harness crashed), not-run
    (everything compiled and linked, but this host cannot run the ISA's code: emit/host.py)."""

    kind: str
    summary: str
    details: str = ""
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.kind not in ("ok", "not-run")

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


def check_source(text: str, isa_name: str, *, n_random: int = 2000, seed: int | None = None, name: str = "prog",
                 workdir: Path | None = None, expect_error: str | None = None, timeout: float = 120.0,
                 cache_dir: Path | None = None) -> Outcome:
    """Expand ``f`` of ``text`` for ``isa_name`` and verify it (returns and call logs).

    ``seed`` seeds the random inputs; by default the one the fuzz run used for the program (named in
    its ``/* expand-fuzz program LABEL */`` line), so a replay sees the same inputs."""
    from emit import get_isa
    from expand.check.verify import Param, precompiled_header, verify
    from expand.driver import expand_module
    from expand.ir.diagnostics import ExpandError
    from frontends.pycparser_frontend import read_file

    t0 = time.monotonic()
    if seed is None:
        m = re.search(r"/\* expand-fuzz program (\S+) \*/", text)
        seed = _verify_seed(m.group(1)) if m else 1
    if expect_error is None:
        expect_error = expected_error(text)
    own = workdir is None
    wd = Path(tempfile.mkdtemp(prefix="expand-fuzz-")) if workdir is None else Path(workdir)
    try:
        write_support(wd)
        src = wd / f"{name}.c"
        src.write_text(text)
        isa = get_isa(isa_name)
        if threading.current_thread() is not threading.main_thread():
            timeout = 0  # signals reach the main thread only
        old = signal.signal(signal.SIGALRM, _on_alarm) if timeout else None
        if timeout:
            signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            mod = read_file(str(src), text)
            res = expand_module(mod, isa, functions=["f"], expandable=set())
        except ExpandError as exc:
            msg = exc.render()
            if expect_error and expect_error.lower() in msg.lower():
                return Outcome("ok", f"diagnosed as expected: {msg.splitlines()[0]}", msg, time.monotonic() - t0)
            first = re.sub(r"^\S*?:\d+:\d+: ", "", msg.splitlines()[0])
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
        (e,) = res.functions
        try:
            log_obj = _log_object(isa, cache_dir or wd)
        except subprocess.CalledProcessError as exc:
            return Outcome("scalar-build", "fuzz_log.c does not compile", exc.stderr, time.monotonic() - t0)
        cflags = FUZZ_CFLAGS + FUZZ_ISA_CFLAGS.get(isa.name, ())
        try:
            pch = precompiled_header(isa, cache_dir or wd, cflags)
        except Exception:  # only a speed-up: the harness compiles without it
            pch = None
        rep = verify(scalar_sources=[src], scalar_name=e.scalar_name, vector_c=res.text,
                     vector_name=e.vector_name, params=[Param(p.name, p.type) for p in e.params], ret=e.ret,
                     isa=isa, link_files=[log_obj], constants=e.constants, n_random=n_random, seed=seed,
                     call_log=True, nan_bits=False, pch=pch, cflags=cflags,
                     scalar_cflags=FUZZ_SCALAR_CFLAGS.get(isa.name, ()))
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


class Minimizer:
    """Delta debugging on the program tree: statements first (ddmin over all of them, then one by
    one with if-hoisting), then expressions (each replaced by 0, 1, a same-typed operand or a
    parameter), repeated until nothing more goes or the budget is spent."""

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
            if render(self.best) == before:
                break
        return self.best

    # --- statements
    def removable(self, p: Program) -> list[Stmt]:
        out = [s for s in walk_stmts(p.f.body) if not s.keep]
        if p.helper is not None:
            out += [s for s in walk_stmts(p.helper.body) if not s.keep]
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
            if isinstance(s, If):
                yield self.edit_stmt(p, idx, "then")
                if s.els:
                    yield self.edit_stmt(p, idx, "else")
                    yield self.edit_stmt(p, idx, "noelse")
            if isinstance(s, Loop):
                yield self.edit_stmt(p, idx, "unloop")
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
                        lst[i:i + 1] = [Decl("int", s.var, Lit("int", "0")), *s.body]
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
    def exprs(self, p: Program) -> list[tuple[Node, str, int, Expr]]:
        """Every expression slot as (owner, attribute, index, expression), outermost first."""
        out: list[tuple[Node, str, int, Expr]] = []

        def visit(owner: Node, attr: str, i: int, e: Expr) -> None:
            out.append((owner, attr, i, e))
            if isinstance(e, Op):
                for j, k in enumerate(e.kids):
                    visit(e, "kids", j, k)
            elif isinstance(e, Call):
                for j, a in enumerate(e.args):
                    visit(e, "args", j, a)

        fns = [p.f] + ([p.helper] if p.helper is not None else [])
        for fn in fns:
            for s in walk_stmts(fn.body):
                if s.keep and not isinstance(s, Return):
                    continue
                for attr in ("init", "value", "cond", "call", "bound"):
                    if hasattr(s, attr) and isinstance(getattr(s, attr), Expr):
                        visit(s, attr, -1, getattr(s, attr))
        return out

    def replacements(self, p: Program, e: Expr) -> list[Expr]:
        out: list[Expr] = []
        if isinstance(e, Op) and e.cond:
            out += [k for k in e.kids if isinstance(k, Op) and k.cond]
            out.append(Op("int", "({0} != 0)", [Ref(p.f.params[0][0], p.f.params[0][1])], cond=True)
                       if p.f.params else Lit("int", "1"))
            return out
        if isinstance(e, Call) and e.site is not None and e.func.startswith("log_"):
            out += list(e.args)
        if e.ty in TYPES:
            z, o = Gen.zero(e.ty), Gen.one(e.ty)
            if not (isinstance(e, Lit) and e.text in (z.text, o.text)):
                out += [z, o]
        if isinstance(e, (Op, Call)):
            out += [k for k in (e.kids if isinstance(e, Op) else e.args) if k.ty == e.ty and not
                    (isinstance(k, Op) and k.cond)]
            out += [Ref(t, n) for t, n in p.f.params if t == e.ty]
        return out

    def expression_edits(self, p: Program) -> Iterator[Program]:
        slots = self.exprs(p)
        for idx, (_, _, _, e) in enumerate(slots):
            for r_i in range(len(self.replacements(p, e))):
                q = copy.deepcopy(p)
                owner, attr, i, e2 = self.exprs(q)[idx]
                rep = self.replacements(q, e2)[r_i]
                if i < 0:
                    setattr(owner, attr, rep)
                else:
                    getattr(owner, attr)[i] = rep
                yield q

    def param_edits(self, p: Program) -> Iterator[Program]:
        dropped = dead_stores(p.f)
        used = _reads(p.f, dropped) | {_base_name(s.name) for s in walk_stmts(p.f.body)
                                       if isinstance(s, Assign) and id(s) not in dropped}
        for i, (_, name) in enumerate(p.f.params):
            if name not in used:
                q = copy.deepcopy(p)
                del q.f.params[i]
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
    out = check_source(render(prog), job.isa, n_random=job.n_random, seed=_verify_seed(label),
                       expect_error=prog.expect_error, cache_dir=job.cache_dir)
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

    def line(self) -> str:
        skipped = (f", {self.not_run} compiled but NOT run ({self.not_run_why})" if self.not_run else "")
        return (f"expand-fuzz: {self.programs} programs, {self.mismatches} mismatches, {self.crashes} crashes"
                f"{skipped}, {self.seconds:.1f} s")


def _pool(jobs: int):
    return multiprocessing.get_context("fork").Pool(jobs) if jobs > 1 else None


def run_fuzz(*, count: int, isa: str, seed: int = 1, start: int = 0, n_random: int = 2000,
             out: Path | None = Path("fuzz-failures"), jobs: int = 2, opts: GenOptions | None = None,
             minimize_failures: bool = True, max_tests: int = 300, max_seconds: float = 240.0,
             log: Callable[[str], None] = print) -> FuzzReport:
    """Check ``count`` programs; write each failure, minimized, to ``out``."""
    opts = opts or GenOptions()
    t0 = time.monotonic()
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
            mins = pool.imap(_run_min, mjobs) if pool else map(_run_min, mjobs)
            small = {}
            for r, res in zip(todo, mins):
                small[r.label] = res
                log(f"expand-fuzz: {r.label} minimized in {res[2]} tests: {res[1].count(chr(10))} lines")
            stem = f"fuzz-{isa.replace('.', '')}"
            for r in failures:
                name = f"{stem}-{r.label}"
                orig = render(generate(r.label, opts))
                text = small[r.label][1] if r.label in small else orig
                (out / f"{name}.c").write_text(text)
                if text != orig:
                    (out / f"{name}.orig.c").write_text(orig)
                (out / f"{name}.txt").write_text(f"{r.outcome.kind}: {r.outcome.summary}\n{r.outcome.details}\n")
                same = first[r.outcome.signature()]
                note = "" if same is r else f" Looks like {stem}-{same.label}.c again."
                line = (f"{name}.c: {r.outcome.kind} on {isa} ({r.outcome.summary.splitlines()[0][:160]}).{note}"
                        f" Reproduce: expand-fuzz --replay {out / (name + '.c')} --isa {isa} --random {n_random}"
                        f"  (as generated: expand-fuzz --seed {seed} --start {r.index} --count 1 --isa {isa}"
                        f"{'' if opts.loops else ' --no-loops'} --random {n_random})")
                with open(out / "README", "a") as f:
                    f.write(line + "\n")
    finally:
        if pool:
            pool.close()
            pool.join()
        shutil.rmtree(cache, ignore_errors=True)
    mism = sum(r.outcome.kind == "mismatch" for r in failures)
    not_run = [r for r in results if r.outcome.kind == "not-run"]
    return FuzzReport(len(results), mism, len(failures) - mism, time.monotonic() - t0, failures,
                      sum(r.outcome.summary.startswith("diagnosed") for r in results), len(not_run),
                      not_run[0].outcome.details if not_run else "")


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
    p.add_argument("--no-loops", action="store_true", help="generate no loops (loops are on by default)")
    p.add_argument("--no-minimize", action="store_true", help="write failures as generated")
    p.add_argument("--print", action="store_true", help="print the programs instead of checking them")
    p.add_argument("--replay", nargs="+", metavar="FILE.c", help="check programs written by expand-fuzz")
    args = p.parse_args(argv)
    opts = GenOptions(loops=not args.no_loops)
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
                   out=Path(args.out), jobs=max(1, args.jobs), opts=opts, minimize_failures=not args.no_minimize)
    print(rep.line())
    return 1 if rep.failures else EXIT_NOT_RUN if rep.not_run else 0


if __name__ == "__main__":
    sys.exit(main())
