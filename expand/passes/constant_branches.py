"""Constant branches: ``if (c) A else B`` whose condition folded to a constant (after inlining: glibc's
``sinf_poly (x, s, p, 0)`` tests ``(n & 1) == 0`` with ``n`` = 0) becomes the arm it takes.

Without this the if-converter gives the arm no lane takes a mask that is always false (printed
``((1) ? m : zero)``), and its statements, their guard and its test stay in the output. An arm with a
label is kept (a ``goto`` from elsewhere may enter it).
"""

from __future__ import annotations

from expand.ir.nodes import Const, Function, If, Label, Stmt, walk_stmts
from expand.ir.visitor import StmtTransformer


class _Taken(StmtTransformer):
    def visit_If(self, s: If) -> list[Stmt]:
        self.generic_visit(s)
        c = s.cond
        if not (isinstance(c, Const) and isinstance(c.value, int)):
            return [s]
        taken, dropped = (s.then, s.els) if c.value else (s.els, s.then)
        if any(isinstance(t, Label) for t in walk_stmts(dropped)):
            return [s]
        return list(taken)


def drop_constant_branches(fn: Function) -> None:
    """Replace each ``if`` with a constant integer condition by the arm it takes."""
    fn.body = _Taken().visit(fn.body)
