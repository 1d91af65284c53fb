"""A local pointer that only ever holds the address of one variable is that variable.

After inlining, a helper's pointer parameter that got ``&ray->dir`` from a caller that was itself
inlined (the ray tracer's ``Cross(&ray->dir, &e2)`` inside ``TriIntersect(tri, &ray)``) is a local
``v1 = &ray.dir``: assigned once, the address of a member of a local struct. A variable's address
does not change while it lives, so wherever ``v1`` is used it holds that address: ``*v1`` is
``ray.dir``, ``v1->x`` is ``ray.dir.x``, ``v1[0]`` is ``ray.dir``; a bare ``v1`` (a call argument)
is ``&ray.dir``. Then the struct is used member by member only, and expand/passes/struct_fields.py
can split it.

Only a pointer assigned exactly once, to ``&v`` or ``&v.a.b`` of a local, a parameter or a global
that is not an array, and whose own address is never taken.
"""

from __future__ import annotations

from expand.ir import types as T
from expand.ir.nodes import (
    Assign,
    Expr,
    Function,
    Member,
    Symbol,
    Unary,
    Var,
    addressed_vars,
    map_expr,
    map_stmt_exprs,
    walk_stmts,
)
from expand.ir.visitor import drop_stmts
from expand.passes.fold import through_address


def forward_address_locals(fn: Function) -> None:
    """Replace each local pointer of ``fn`` that holds one variable's address by that variable."""
    defs: dict[Symbol, list[Assign]] = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, Assign) and isinstance(s.target, Var) and isinstance(s.target.sym.type, T.Pointer):
            defs.setdefault(s.target.sym, []).append(s)
    taken = addressed_vars(fn.body)
    forward: dict[Symbol, Expr] = {}
    for p, ds in defs.items():
        if p.kind == "local" and len(ds) == 1 and p not in taken and _place(ds[0].value) is not None:
            forward[p] = _place(ds[0].value)
    if not forward:
        return
    dead = {id(ds[0]) for p, ds in defs.items() if p in forward}

    def f(n: Expr) -> Expr:  # (bottom-up: ``p`` first, then ``*&v``, ``(&v)->a``, ``(&v)[0]`` around it)
        if isinstance(n, Var) and n.sym in forward:
            return Unary(n.type, "&", map_expr(forward[n.sym], lambda x: x))
        return through_address(n)

    fn.body = drop_stmts(fn.body, dead)
    for s in walk_stmts(fn.body):
        map_stmt_exprs(s, f)


def _place(e: Expr) -> Expr | None:
    """``v`` or ``v.a.b`` when ``e`` is ``&v`` or ``&v.a.b`` of a variable that is not an array."""
    if not (isinstance(e, Unary) and e.op == "&"):
        return None
    x = e.operand
    while isinstance(x, Member) and not x.arrow:
        x = x.base
    if isinstance(x, Var) and x.sym.kind in ("local", "param", "global") and not isinstance(x.sym.type, T.Array):
        return e.operand
    return None
