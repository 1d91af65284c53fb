"""Loop canonicalization: every loop becomes ``Loop(kind='loop')``, an endless loop left by ``break``.

    for (init; c; step) B   ->  init; loop { if (!c) break; B; latch: step }
    while (c) B             ->  loop { if (!c) break; B; latch: }
    do B while (c)          ->  loop { B; latch: if (!c) break; }

``continue`` becomes ``goto latch``. Returns inside loops are left to single exit (a jump out of
the loop to the function's exit), so a loop can have several exits.
"""

from __future__ import annotations

from expand.ir.nodes import Block, Break, Continue, Function, Goto, If, Label, Loop, NameMaker, Stmt, Unary
from expand.ir.types import INT


def canonicalize_loops(fn: Function) -> None:
    names = NameMaker(fn)
    fn.body = _stmts(fn.body, names)


def _stmts(stmts: list[Stmt], names: NameMaker) -> list[Stmt]:
    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, If):
            out.append(If(s.coord, s.cond, _stmts(s.then, names), _stmts(s.els, names), s.likely))
        elif isinstance(s, Block):
            out.append(Block(s.coord, _stmts(s.body, names)))
        elif isinstance(s, Loop) and s.kind != "loop":
            out.extend(_canonical(s, names))
        else:
            out.append(s)
    return out


def _canonical(loop: Loop, names: NameMaker) -> list[Stmt]:
    co = loop.coord
    latch = names.fresh(f"latch{co.line if co else ''}")
    body = _stmts(loop.body, names)
    uses_latch = [False]
    body = _continues(body, latch, uses_latch)
    exit_test = [If(co, Unary(INT, "!", loop.cond), [Break(co)], [])] if loop.cond is not None else []
    if loop.kind == "do":
        new = [*body, Label(co, latch), *exit_test]
    else:
        new = [*exit_test, *body, Label(co, latch), *_stmts(loop.step, names)]
    if not uses_latch[0]:
        new = [s for s in new if not (isinstance(s, Label) and s.name == latch)]
    return [*loop.init, Loop(co, "loop", None, new)]


def _continues(stmts: list[Stmt], latch: str, used: list[bool]) -> list[Stmt]:
    """``continue`` of this loop (not of nested ones) -> ``goto latch``."""
    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, Continue):
            used[0] = True
            out.append(Goto(s.coord, latch))
        elif isinstance(s, If):
            out.append(If(s.coord, s.cond, _continues(s.then, latch, used), _continues(s.els, latch, used), s.likely))
        elif isinstance(s, Block):
            out.append(Block(s.coord, _continues(s.body, latch, used)))
        else:
            out.append(s)
    return out
