"""Which integer parameters a loop's trip count depends on (``--verify`` draws them from a small range)."""

from __future__ import annotations

from expand.ir.nodes import (
    Assign,
    Block,
    Break,
    Expr,
    Function,
    Goto,
    If,
    Index,
    Label,
    Loop,
    Member,
    Return,
    Stmt,
    Symbol,
    Var,
    walk_stmts,
)
from expand.ir.types import Int


def trip_params(fn: Function) -> list[str]:
    """The integer value parameters of ``fn`` that a loop's trip count depends on, in parameter order.

    The seed is every variable a loop's exit reads: ``Loop.cond``, ``BreakIf`` conditions, and the
    conditions of the ``if``s inside a loop that lead to a ``break``, ``return`` or ``goto`` out of it
    (canonical loops, expand/passes/canonical_loops.py, test ``if (!c) break;``). The set is then closed backwards over
    assignments: when ``k`` is in it and ``k = f(n, m)`` (or ``k[i] = f(n)``), ``n``, ``m`` (and ``i``)
    are too. Control dependences (an ``if`` around ``k = ...``) are not followed."""
    needed: set[Symbol] = set()
    sources: dict[Symbol, list[Expr]] = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, Loop):
            conds = [s.cond] if s.cond is not None else []
            _exit_conds(s.body, _labels(s.body), conds, True)
            needed |= {v for c in conds for v in _reads(c)}
        elif type(s).__name__ == "BreakIf":
            needed |= _reads(s.cond)  # type: ignore[attr-defined]
        elif isinstance(s, Assign):
            base = s.target
            while isinstance(base, (Index, Member)):
                base = base.base
            if isinstance(base, Var):  # (k = ..., k[i] = ...: the value and the subscripts)
                sources.setdefault(base.sym, []).extend([s.value, s.target])
    todo = list(needed)
    while todo:
        for e in sources.get(todo.pop(), []):
            new = _reads(e) - needed
            needed |= new
            todo.extend(new)
    return [p.name for p in fn.params if p in needed and isinstance(p.type, Int) and not p.type.is_bool]


def _reads(e: Expr) -> set[Symbol]:
    return {n.sym for n in e.walk() if isinstance(n, Var)}


def _labels(stmts: list[Stmt]) -> set[str]:
    return {s.name for s in walk_stmts(stmts) if isinstance(s, Label)}


def _exit_conds(stmts: list[Stmt], inside: set[str], out: list[Expr], breaks: bool) -> bool:
    """Whether ``stmts`` can leave the loop whose labels are ``inside`` (by ``break`` if ``breaks``: not
    from a nested loop); appends the conditions of the ``if``s on the way to ``out``."""
    leaves = False
    for s in stmts:
        if isinstance(s, Return) or isinstance(s, Break) and breaks or isinstance(s, Goto) and s.label not in inside:
            leaves = True
        elif isinstance(s, If):
            then, els = _exit_conds(s.then, inside, out, breaks), _exit_conds(s.els, inside, out, breaks)
            if then or els:
                out.append(s.cond)
                leaves = True
        elif isinstance(s, Block):
            leaves |= _exit_conds(s.body, inside, out, breaks)
        elif isinstance(s, Loop):  # (a return or goto out of a nested loop leaves this one too)
            leaves |= _exit_conds(s.body, inside, out, False)
    return leaves
