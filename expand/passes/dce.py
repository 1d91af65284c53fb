"""Dead code elimination on the if-converted statement list: no dead temporaries in the output."""

from __future__ import annotations

from expand.ir.nodes import (
    Assign,
    Binary,
    BreakIf,
    Call,
    Expr,
    ExprStmt,
    MaskedLoop,
    Stmt,
    Symbol,
    UniformIf,
    Var,
    flatten,
    may_fault_read,
    vars_read,
)


def eliminate_dead(stmts: list[Stmt], live_out: list[Expr]) -> tuple[list[Stmt], set[Symbol]]:
    """Drop assignments to variables that are never read; returns the kept statements and used symbols."""
    while True:
        used: set[Symbol] = set()
        for e in live_out:
            used |= vars_read(e)
        for s in flatten(stmts):
            own = s.target.sym if isinstance(s, Assign) and isinstance(s.target, Var) \
                and not isinstance(s.value, Call) else None
            for e in _reads(s):
                used |= vars_read(e) - {own}  # a variable read only by its own updates is dead
            m = getattr(s, "mask", None)
            if m is not None and _needs_mask(s):
                used.add(m)
            if isinstance(s, MaskedLoop) and s.active is not None:
                used.add(s.active)
        kept, removed = _sweep(stmts, used)
        stmts = kept
        if not removed:
            break
    defined = {s.target.sym for s in flatten(stmts) if isinstance(s, Assign) and isinstance(s.target, Var)}
    return stmts, used | defined


def _needs_mask(s: Stmt) -> bool:
    """Whether the printer reads the statement's mask: blends, stores, per-lane calls, and the safe
    divisors of integer division and the guarded indexes of reads that may fault. A uniform ``if`` keeps
    the enclosing mask for the statements under it (they have it themselves): the printer reads it only
    for such a division or read in the condition (tests/fuzz_regressions/uniform_if_mask_unused.c)."""
    if isinstance(s, UniformIf):
        return _guarded(s.cond)
    if not isinstance(s, Assign):
        return True
    if getattr(s, "blend", False) or not isinstance(s.target, Var) or isinstance(s.value, Call):
        return True
    return _guarded(s.value)


def _guarded(e: Expr) -> bool:
    """``e`` has an integer division or a read that may fault (not a constant index into an array
    object, read whatever the mask: tests/fuzz_regressions/unused_mask_constant_index.c), which the
    printer computes under the mask."""
    return any(isinstance(n, Binary) and n.op in ("/", "%") and n.type.is_int() or may_fault_read(n)
               for n in e.walk())


def _sweep(stmts: list[Stmt], used: set[Symbol]) -> tuple[list[Stmt], bool]:
    out: list[Stmt] = []
    removed = False
    for s in stmts:
        if _dead(s, used):
            removed = True
            continue
        if isinstance(s, Assign) and isinstance(s.target, Var) and isinstance(s.value, Call) \
                and s.target.sym not in used:
            # Kept for the call's side effects; the result is dead.
            out.append(ExprStmt(s.coord, s.value, mask=s.mask))
            removed = True
            continue
        if isinstance(s, MaskedLoop):
            s.body, r = _sweep(s.body, used)
            removed = removed or r
        if isinstance(s, UniformIf):
            s.then, r1 = _sweep(s.then, used)
            s.els, r2 = _sweep(s.els, used)
            removed = removed or r1 or r2
            if not s.then and not s.els:  # nothing left to branch around (the condition cannot fault)
                removed = True
                continue
        out.append(s)
    return out, removed


def _reads(s: Stmt) -> list[Expr]:
    if isinstance(s, Assign):
        out = [s.value]
        if not isinstance(s.target, Var) or getattr(s, "blend", False):
            out.append(s.target)
        return out
    if isinstance(s, ExprStmt):
        return [s.expr]
    if isinstance(s, (BreakIf, UniformIf)):
        return [s.cond]
    return []


def _dead(s: Stmt, used: set[Symbol]) -> bool:
    return (isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym not in used
            and not isinstance(s.value, Call))
