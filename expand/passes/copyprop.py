"""Fold away pass-made temporaries (helper parameters, union words, call values) so the output
reads like the source: ``ix = asuint(x)`` prints as one bit cast of ``x``, not four copies."""

from __future__ import annotations

from bisect import bisect_right
from heapq import heapify, heappop, heappush

from expand.ir.nodes import (
    Assign,
    BreakIf,
    Call,
    Const,
    Expr,
    ExprStmt,
    Index,
    MaskedLoop,
    Member,
    Return,
    Stmt,
    Symbol,
    Unary,
    UniformIf,
    Var,
    flatten,
    map_expr,
    vars_read,
)
from expand.passes.fold import fold_node


def fold_temporaries(stmts: list[Stmt], ret: Return | None = None) -> list[Stmt]:
    """Fold temporaries in ``stmts`` followed by the final ``ret`` (which counts as a use).

    Only temporaries whose definition and uses all sit in one statement list are folded (a value
    carried around or out of a loop stays a variable)."""
    if ret is not None:
        stmts = [*stmts, ret]
    everywhere: dict[Symbol, int] = {}
    for s in flatten(stmts):
        for v in _mentions(s):
            everywhere[v] = everywhere.get(v, 0) + 1
    stmts = _fold_lists(stmts, everywhere)
    return stmts[:-1] if ret is not None else stmts


def _mentions(s: Stmt) -> list[Symbol]:
    out = [v for e in _reads(s) for v in vars_read(e)]
    if isinstance(s, Assign) and isinstance(s.target, Var):
        out.append(s.target.sym)
    return out


def _fold_lists(stmts: list[Stmt], everywhere: dict[Symbol, int]) -> list[Stmt]:
    for s in stmts:
        if isinstance(s, MaskedLoop):
            s.body = _fold_lists(s.body, everywhere)
        elif isinstance(s, UniformIf):
            s.then = _fold_lists(s.then, everywhere)
            s.els = _fold_lists(s.els, everywhere)
    here: dict[Symbol, int] = {}
    for s in stmts:
        if not isinstance(s, MaskedLoop):
            for v in _mentions(s):
                here[v] = here.get(v, 0) + 1
    local = {v for v, n in here.items() if everywhere.get(v) == n}
    return _fold(stmts, local)


def _fold(stmts: list[Stmt], local: set[Symbol]) -> list[Stmt]:
    """Fold, one at a time, the first temporary (in the order of the statements defining them) that
    may be folded, until none may: a temporary defined once in this list, local to it, by a value
    that is not a call nor blended, read after its definition only (once, unless the value is a
    variable or a constant), with no assignment to the value's operands up to the last use and, when
    the value reads memory, no store before it, and no use that is a blended assignment to itself.

    Folding one changes only what its value's operands are read by and the statements that used it,
    so only the temporaries those touch are looked at again; the statements in a range are found by
    bisection in per-symbol lists of positions (which folding does not change: it only deletes
    assignments of temporaries that nothing reads any more, and substitutes into expressions)."""
    n = len(stmts)
    alive = [True] * n
    # Per symbol: {position: how many of the statement's read expressions read it}, and its definitions.
    uses: dict[Symbol, dict[int, int]] = {}
    defs: dict[Symbol, list[int]] = {}
    assigns: dict[Symbol, list[int]] = {}  # statements assigning a symbol, nested ones included
    stores: list[int] = []  # statements that write memory, nested ones included

    def count(i: int, sign: int) -> None:
        for e in _reads(stmts[i]):
            for v in vars_read(e):
                at = uses.setdefault(v, {})
                at[i] = at.get(i, 0) + sign
                if not at[i]:
                    del at[i]

    for i, st in enumerate(stmts):
        if isinstance(st, Assign) and isinstance(st.target, Var):
            defs.setdefault(st.target.sym, []).append(i)
        count(i, 1)
        targets = {x.target.sym for x in flatten([st]) if isinstance(x, Assign) and isinstance(x.target, Var)}
        for v in targets:
            assigns.setdefault(v, []).append(i)
        if any(_writes_memory(x) for x in flatten([st])):
            stores.append(i)

    def between(pos: list[int], lo: int, hi: int) -> bool:
        """Some position in ``pos`` lies in lo < p < hi."""
        k = bisect_right(pos, lo)
        return k < len(pos) and pos[k] < hi

    def foldable(t: Symbol) -> bool:
        if not t.temp or t not in local or len(defs.get(t, ())) != 1:
            return False
        i = defs[t][0]
        d = stmts[i]
        if isinstance(d.value, Call) or d.blend:
            return False
        us = uses.get(t, {})
        if us and min(us) <= i:
            return False
        if not isinstance(d.value, (Var, Const)) and sum(us.values()) != 1:
            return False
        last = max(us, default=i)
        if any(between(assigns.get(v, []), i, last + 1) for v in vars_read(d.value)):
            return False
        # A value read from memory (a local array, through a pointer) stays where it was read
        # when a store or a call (which may store) comes before the use.
        if _reads_memory(d.value) and between(stores, i, last):
            return False
        # Blended uses read the old value too: only fold into plain reads.
        return not any(isinstance(stmts[j], Assign) and isinstance(stmts[j].target, Var)
                       and stmts[j].target.sym is t for j in us)

    defined = {ds[0]: t for t, ds in defs.items() if len(ds) == 1}  # (the candidates, by their definition)
    heap = [i for i, t in defined.items() if foldable(t)]  # positions: the first one that may be folded first
    heapify(heap)
    while heap:
        i = heappop(heap)
        t = defined[i]
        if not alive[i] or not foldable(t):
            continue
        d = stmts[i]
        value = d.value
        users = sorted(uses.get(t, {}))
        count(i, -1)
        for j in users:
            count(j, -1)
            _subst(stmts[j], t, value)
            count(j, 1)
        alive[i] = False
        del defs[t]
        again = set(vars_read(value))  # now read where ``t`` was read
        again |= {stmts[j].target.sym for j in users  # their values changed
                  if isinstance(stmts[j], Assign) and isinstance(stmts[j].target, Var)}
        for v in again:
            if v in defs and len(defs[v]) == 1 and foldable(v):
                heappush(heap, defs[v][0])
    stmts[:] = [st for k, st in enumerate(stmts) if alive[k]]
    return stmts


def _reads_memory(e: Expr) -> bool:
    """Reads an object that a store may change: not a constant global's table."""
    for n in e.walk():
        if isinstance(n, Unary) and n.op == "*":
            return True
        if isinstance(n, (Index, Member)):
            root = n
            while isinstance(root, (Index, Member)):
                root = root.base
            if not (isinstance(root, Var) and root.sym.kind == "global" and root.sym.const):
                return True
    return False


def _writes_memory(s: Stmt) -> bool:
    if isinstance(s, Assign):
        return not isinstance(s.target, Var) or isinstance(s.value, Call)
    return isinstance(s, ExprStmt)


def _reads(s: Stmt) -> list[Expr]:
    if isinstance(s, Assign):
        return [s.value] if isinstance(s.target, Var) else [s.value, s.target]
    if isinstance(s, ExprStmt):
        return [s.expr]
    if isinstance(s, Return) and s.value is not None:
        return [s.value]
    if isinstance(s, (BreakIf, UniformIf)):
        return [s.cond]
    return []


def _subst(s: Stmt, t: Symbol, value: Expr) -> None:
    def f(n: Expr) -> Expr:  # (a switch's value into its case tests: '(n & 3) == 5' is never true, and gcc says so;
        if isinstance(n, Var) and n.sym is t:  # an inlined helper's constant argument into a comparison: -Wtype-limits)
            return value
        return fold_node(n)
    if isinstance(s, Assign):
        s.value = map_expr(s.value, f)
        if not isinstance(s.target, Var):
            s.target = map_expr(s.target, f)
    elif isinstance(s, ExprStmt):
        s.expr = map_expr(s.expr, f)
    elif isinstance(s, Return) and s.value is not None:
        s.value = map_expr(s.value, f)
    elif isinstance(s, (BreakIf, UniformIf)):
        s.cond = map_expr(s.cond, f)
