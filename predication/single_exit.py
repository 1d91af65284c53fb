"""Single exit (EXPAND Fig. 3c): every ``return v`` becomes ``retval = v; goto done``."""

from __future__ import annotations

from expand.ir import types as T
from expand.ir.nodes import (
    Assign,
    Block,
    Function,
    Goto,
    If,
    Label,
    Loop,
    NameMaker,
    Return,
    Stmt,
    Symbol,
    Var,
    walk_stmts,
)


def single_exit(fn: Function) -> Symbol | None:
    """Rewrite ``fn`` in place; returns the symbol holding the result (None for void)."""
    names = NameMaker(fn)
    # (the exit label must not be one of the function's own: ``return`` would jump to the user's label)
    names.used |= {s.name for s in walk_stmts(fn.body) if isinstance(s, Label)}
    names.used |= {s.label for s in walk_stmts(fn.body) if isinstance(s, Goto)}
    retval = None
    if not isinstance(fn.ret, T.Void):
        retval = Symbol(names.fresh("retval"), fn.ret, "local", fn.coord, temp=True)
        fn.locals.append(retval)
    done = names.fresh("done")

    def visit(stmts: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for s in stmts:
            if isinstance(s, Return):
                if s.value is not None and retval is not None:
                    out.append(Assign(s.coord, Var(retval.type, retval), s.value))
                out.append(Goto(s.coord, done))
            elif isinstance(s, If):
                out.append(If(s.coord, s.cond, visit(s.then), visit(s.els), s.likely))
            elif isinstance(s, Block):
                out.append(Block(s.coord, visit(s.body)))
            elif isinstance(s, Loop):
                out.append(Loop(s.coord, s.kind, s.cond, visit(s.body)))
            else:
                out.append(s)
        return out

    end = fn.body[-1].coord if fn.body else fn.coord
    fn.body = visit(fn.body) + [Label(end, done), Return(end, Var(retval.type, retval) if retval else None)]
    return retval
