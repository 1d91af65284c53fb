"""Constant subscripts (EXPAND Fig. 3b): ``bp[k]`` where every definition of ``k`` is a constant
becomes ``bp_k``, assigned ``bp[c]`` next to each definition ``k = c``; the table read is then a
uniform constant instead of a per-lane load."""

from __future__ import annotations

from expand.ir.nodes import (
    Assign,
    Const,
    Function,
    Index,
    NameMaker,
    Stmt,
    Symbol,
    Var,
    map_expr,
    map_stmt_exprs,
    walk_stmts,
)
from expand.ir.visitor import rewrite_nested


def hoist_constant_subscripts(fn: Function) -> None:
    defs: dict[Symbol, list[Assign]] = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, Assign) and isinstance(s.target, Var):
            defs.setdefault(s.target.sym, []).append(s)
    candidates: dict[tuple[Symbol, Symbol], Symbol] = {}
    names = NameMaker(fn)

    def ok_index(k: Symbol, table: Symbol) -> bool:
        ds = defs.get(k, [])
        if k.kind != "local" or not ds:
            return False
        n = table.type.length if hasattr(table.type, "length") else None
        return all(isinstance(d.value, Const) and isinstance(d.value.value, int)
                   and n is not None and 0 <= d.value.value < n for d in ds)

    def rewrite(e):
        if isinstance(e, Index) and isinstance(e.base, Var) and isinstance(e.index, Var):
            table, k = e.base.sym, e.index.sym
            if table.kind == "global" and table.const and e.type.is_arith() and ok_index(k, table):
                key = (table, k)
                if key not in candidates:
                    candidates[key] = names.local(f"{table.name}_{k.name}", e.type, e.index.sym.coord)
                return Var(e.type, candidates[key])
        return e

    for s in walk_stmts(fn.body):
        map_stmt_exprs(s, rewrite)
    if not candidates:
        return

    def insert(stmts: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for s in stmts:
            rewrite_nested(s, insert)
            out.append(s)
            if isinstance(s, Assign) and isinstance(s.target, Var):
                for (table, k), var in candidates.items():
                    if s.target.sym is k:
                        c = s.value
                        read = Index(var.type, Var(table.type, table), Const(c.type, c.value, c.text))
                        out.append(Assign(s.coord, Var(var.type, var), read))
        return out

    fn.body = insert(fn.body)
    _ = map_expr
