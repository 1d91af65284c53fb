"""Fold away pass-made temporaries (helper parameters, union words, call values) so the output
reads like the source: ``ix = asuint(x)`` prints as one bit cast of ``x``, not four copies."""

from __future__ import annotations

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
from expand.passes.fold import fold_bit_compare


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
    changed = True
    while changed:
        changed = False
        defs: dict[Symbol, list[int]] = {}
        uses: dict[Symbol, list[int]] = {}
        for i, s in enumerate(stmts):
            if isinstance(s, Assign) and isinstance(s.target, Var):
                defs.setdefault(s.target.sym, []).append(i)
            for e in _reads(s):
                for v in vars_read(e):
                    uses.setdefault(v, []).append(i)
        for t, ds in defs.items():
            if not t.temp or len(ds) != 1 or t not in local:
                continue
            i = ds[0]
            d = stmts[i]
            assert isinstance(d, Assign)
            if isinstance(d.value, Call) or d.blend:
                continue
            us = uses.get(t, [])
            if any(u <= i for u in us):
                continue
            if not isinstance(d.value, (Var, Const)) and len(us) != 1:
                continue
            last = max(us, default=i)
            operands = vars_read(d.value)
            if any(isinstance(x, Assign) and isinstance(x.target, Var) and x.target.sym in operands
                   for j in range(i + 1, last + 1) for x in flatten([stmts[j]])):
                continue
            # A value read from memory (a local array, through a pointer) stays where it was read
            # when a store or a call (which may store) comes before the use.
            if _reads_memory(d.value) and any(_writes_memory(x) for j in range(i + 1, last)
                                              for x in flatten([stmts[j]])):
                continue
            # Blended uses read the old value too: only fold into plain reads.
            if any(isinstance(stmts[j], Assign) and isinstance(stmts[j].target, Var) and stmts[j].target.sym is t
                   for j in us):
                continue
            value = d.value
            for j in us:
                _subst(stmts[j], t, value)
            del stmts[i]
            changed = True
            break
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
    def f(n: Expr) -> Expr:  # (a switch's value into its case tests: '(n & 3) == 5' is never true, and gcc says so)
        if isinstance(n, Var) and n.sym is t:
            return value
        return fold_bit_compare(n)
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
