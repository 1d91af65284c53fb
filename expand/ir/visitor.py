"""Visitors of the IR, in the manner of pycparser's ``NodeVisitor``: a pass subclasses one and writes
``visit_If``, ``visit_Assign``, ... for the statements it cares about; the rest are walked for it.

* ``StmtVisitor``: ``visit(stmts)`` calls ``visit_<Class>(s)`` for each statement, in order, and by default
  (``generic_visit``) visits the statement lists nested in it (``If.then``/``els``, ``Block.body``,
  ``Loop.init``/``body``/``step``, and after if-conversion ``MaskedLoop.body``, ``Guard.body``/``all_body``).
* ``StmtTransformer``: the same, but each ``visit_<Class>`` returns the statements that replace ``s`` (a
  list, possibly empty or the statement itself in a list); ``generic_visit`` rewrites the nested lists in
  place and keeps ``s``.
* ``nested`` names a statement's nested lists and ``rewrite_nested`` replaces them; ``walk_exprs`` yields
  every expression node a list of statements evaluates, nested statements included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from expand.ir.nodes import Block, Expr, Guard, If, Loop, MaskedLoop, Stmt, stmt_exprs

#: the attributes holding nested statement lists, per statement class (subclasses: their base's)
_NESTED: dict[type, tuple[str, ...]] = {If: ("then", "els"), Block: ("body",), Loop: ("init", "body", "step"),
                                        MaskedLoop: ("body",), Guard: ("body", "all_body")}


def nested(s: Stmt) -> list[tuple[str, list[Stmt]]]:
    """The statement lists nested in ``s``, with the attribute each is kept in (in source order)."""
    for cls in type(s).__mro__:
        if cls in _NESTED:
            return [(a, getattr(s, a)) for a in _NESTED[cls] if getattr(s, a) is not None]
    return []


def rewrite_nested(s: Stmt, f: Callable[[list[Stmt]], list[Stmt]]) -> None:
    """Replace each statement list nested in ``s`` by ``f`` of it."""
    for attr, body in nested(s):
        setattr(s, attr, f(body))


class StmtVisitor:
    """Walk statement lists; override ``visit_<Class>`` (call ``generic_visit`` to go on inside)."""

    def visit(self, stmts: list[Stmt]) -> None:
        for s in stmts:
            self.visit_stmt(s)

    def visit_stmt(self, s: Stmt) -> None:
        getattr(self, "visit_" + type(s).__name__, self.generic_visit)(s)

    def generic_visit(self, s: Stmt) -> None:
        for _, body in nested(s):
            self.visit(body)


class StmtTransformer:
    """Rewrite statement lists; ``visit_<Class>`` returns what replaces the statement."""

    def visit(self, stmts: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for s in stmts:
            out.extend(self.visit_stmt(s))
        return out

    def visit_stmt(self, s: Stmt) -> list[Stmt]:
        return getattr(self, "visit_" + type(s).__name__, self.generic_visit)(s)

    def generic_visit(self, s: Stmt) -> list[Stmt]:
        for attr, body in nested(s):
            setattr(s, attr, self.visit(body))
        return [s]


def drop_stmts(stmts: list[Stmt], dead: set[int]) -> list[Stmt]:
    """``stmts`` without the statements whose ``id`` is in ``dead``, at any depth (in place below)."""
    out: list[Stmt] = []
    for s in stmts:
        if id(s) in dead:
            continue
        rewrite_nested(s, lambda body: drop_stmts(body, dead))
        out.append(s)
    return out


def walk_exprs(stmts: list[Stmt]) -> Iterator[Expr]:
    """Every expression node the statements evaluate (their own expressions and those of nested lists)."""
    for s in stmts:
        for e in stmt_exprs(s):
            yield from e.walk()
        for _, body in nested(s):
            yield from walk_exprs(body)
