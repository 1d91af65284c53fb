"""sin/cos pairs: ``sinf(a)`` and ``cosf(a)`` of one value become one ``sincosf(a, &a_sin, &a_cos)`` where
the vector math library has a vector sincosf, as GCC's scalar code does (its cse_sincos pass: the scalar
aobench calls sincosf for its occlusion rays' ``cosf(phi)`` and ``sinf(phi)``). One range reduction and
one pass over the branches serve both: mathlib's AVX2 sincosf takes 2.6 ns per element where sinf and
cosf take 4.7 together.

Exact: glibc's sincosf computes each result as its sinf and cosf do (the same reductions and polynomials:
every float gives the same bits, tests/test_sincos_pairs.py checks the library on all 2^32) and sets
errno as they do (EDOM for an infinity). Where the two calls are apart, nothing between them may tell
the difference: the statements from the first call's to the second's make no other call, hold no jump
or label, and do not assign the argument, whose address is never taken.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from expand.ir import types as T
from expand.ir.libc import libm_name
from expand.ir.nodes import (
    Assign,
    Break,
    Call,
    Continue,
    Expr,
    ExprStmt,
    Function,
    Goto,
    Label,
    NameMaker,
    Return,
    Stmt,
    Symbol,
    Unary,
    Var,
    map_stmt_exprs,
    stmt_exprs,
    walk_stmts,
)
from expand.ir.visitor import nested

#: (sine, cosine) -> the function giving both through two pointers
PAIRS: dict[tuple[str, str], str] = {("sinf", "cosf"): "sincosf"}
_PARTNER = {**{s: c for s, c in PAIRS}, **{c: s for s, c in PAIRS}}
_SINES = {s for s, _ in PAIRS}


def _calls(s: Stmt) -> Iterator[Call]:
    """The calls ``s`` makes, nested statements included."""
    for t in walk_stmts([s]):
        for e in stmt_exprs(t):
            for n in e.walk():
                if isinstance(n, Call):
                    yield n


def _argument(c: Call, fixed: set[Symbol]) -> Symbol | None:
    """The variable a sine's or cosine's only argument is, where it may pair."""
    if libm_name(c.func) not in _PARTNER or len(c.args) != 1:
        return None
    a = c.args[0]
    if isinstance(a, Var) and a.sym in fixed and T.strip_spelling(a.type) == T.FLOAT:
        return a.sym
    return None


def _quiet(s: Stmt, pair: tuple[Call, ...], arg: Symbol, assigns_ok: bool) -> bool:
    """``s`` makes no call but ``pair``'s, holds no jump or label, and (unless ``assigns_ok``) does not
    assign ``arg``."""
    if any(c not in pair for c in _calls(s)):
        return False
    for t in walk_stmts([s]):
        if isinstance(t, (Goto, Label, Break, Continue, Return)):
            return False
        if not assigns_ok and isinstance(t, Assign) and isinstance(t.target, Var) and t.target.sym is arg:
            return False
    return True


def _simple(s: Stmt) -> bool:
    return isinstance(s, (Assign, ExprStmt)) and not nested(s)


def _pair_in(stmts: list[Stmt], fixed: set[Symbol]) -> tuple[int, int, Call, Call, Symbol] | None:
    """The first pair in ``stmts``: (first statement, second statement, sine, cosine, argument). The
    statements from the first to the one before the second make no other call and do not assign the
    argument; the second makes no other call (it may assign the argument: after both calls read it)."""
    for i, s in enumerate(stmts):
        if not _simple(s):
            continue
        for c in _calls(s):
            arg = _argument(c, fixed)
            if arg is None:
                continue
            want = _PARTNER[libm_name(c.func)]
            for j in range(i, len(stmts)):
                t = stmts[j]
                partner = next((d for d in _calls(t) if d is not c and libm_name(d.func) == want
                                and _argument(d, fixed) is arg), None) if _simple(t) else None
                if partner is not None and _quiet(t, (c, partner), arg, True):
                    sin, cos = (c, partner) if libm_name(c.func) in _SINES else (partner, c)
                    return i, j, sin, cos, arg
                if not _quiet(t, (c,), arg, False):
                    break
    return None


def fuse_sincos(fn: Function, available: Callable[[str], bool]) -> int:
    """Pair the sines and cosines of ``fn`` whose pair function is ``available`` (the vector math library
    has it for this ISA); returns how many pairs."""
    names = {p: f for p, f in PAIRS.items() if available(f)}
    if not names:
        return 0
    addressed = {n.operand.sym for s in walk_stmts(fn.body) for e in stmt_exprs(s) for n in e.walk()
                 if isinstance(n, Unary) and n.op == "&" and isinstance(n.operand, Var)}
    fixed = {s for s in [*fn.params, *fn.locals] if s.kind in ("param", "local") and s not in addressed}
    nm = NameMaker(fn)
    count = 0

    def visit(stmts: list[Stmt]) -> list[Stmt]:
        nonlocal count
        for s in stmts:
            for attr, body in nested(s):
                setattr(s, attr, visit(body))
        while (found := _pair_in(stmts, fixed)) is not None:
            i, _, sin, cos, arg = found
            both = names.get((libm_name(sin.func), libm_name(cos.func)))
            if both is None:
                break
            outs = []
            for which in ("sin", "cos"):
                sym = Symbol(nm.fresh(f"{arg.name}_{which}"), T.FLOAT, "local", sin.coord)
                nm.used.add(sym.name)
                fn.locals.append(sym)
                outs.append(sym)

            def swap(n: Expr, outs: list[Symbol] = outs, arg: Symbol = arg) -> Expr:
                if isinstance(n, Call) and _argument(n, {arg}) is arg:
                    return Var(T.FLOAT, outs[0] if libm_name(n.func) in _SINES else outs[1])
                return n

            for s in stmts[i:found[1] + 1]:
                map_stmt_exprs(s, swap)
            ptrs: list[Expr] = [Unary(T.Pointer(T.FLOAT), "&", Var(T.FLOAT, o)) for o in outs]
            call = Call(T.VOID, both, [Var(arg.type, arg), *ptrs], sin.coord)
            stmts = [*stmts[:i], ExprStmt(stmts[i].coord, call), *stmts[i:]]
            count += 1
        return stmts

    fn.body = visit(fn.body)
    return count
