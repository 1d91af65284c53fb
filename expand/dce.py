"""Dead code elimination on the if-converted statement list: no dead temporaries in the output."""

from __future__ import annotations

from .ir import Assign, Call, Expr, Stmt, Symbol, Var, vars_read


def eliminate_dead(stmts: list[Stmt], live_out: list[Expr]) -> tuple[list[Stmt], set[Symbol]]:
    """Drop assignments to variables that are never read; returns the kept statements and used symbols."""
    while True:
        used: set[Symbol] = set()
        for e in live_out:
            used |= vars_read(e)
        for s in stmts:
            for e in _reads(s):
                used |= vars_read(e)
            m = getattr(s, "mask", None)
            if m is not None:
                used.add(m)
        kept = [s for s in stmts if not _dead(s, used)]
        if len(kept) == len(stmts):
            break
        stmts = kept
    defined = {s.target.sym for s in stmts if isinstance(s, Assign) and isinstance(s.target, Var)}
    return stmts, used | defined


def _reads(s: Stmt) -> list[Expr]:
    if isinstance(s, Assign):
        out = [s.value]
        if not isinstance(s.target, Var):
            out.append(s.target)
        elif getattr(s, "blend", False):
            out.append(s.target)
        return out
    return [s.expr]  # type: ignore[attr-defined]


def _dead(s: Stmt, used: set[Symbol]) -> bool:
    return (isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym not in used
            and not isinstance(s.value, Call))
