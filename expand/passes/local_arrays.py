"""Local arrays (``double y[2]``, ``float V[64]``): each lane has its own copy.

* A local pointer set once to a local array (``float *y = a``, an inlined helper's ``float *y``
  parameter bound to the caller's array) is replaced by the array: ``y[1]`` reads ``a[1]``.
* An array read and written only at constant indexes becomes one variable per element
  (``y[0]`` -> ``y_0``): plain variables, which if-conversion blends and the printer keeps in
  registers like any other.
* Any other array stays an array. Shapes (expand/analysis/shapes.py) decide whether its elements are the same
  in every lane (a plain C array) or not (one row of lanes per element, ``float V[64][4]``, which
  the printer reads and writes a vector at a time for a uniform index and lane by lane for a
  varying one); the printer copies a lane's elements out and back around a per-lane call that gets
  the array (``f(a)``, ``f(&a[i])``).
"""

from __future__ import annotations

from expand.ir import types as T
from expand.ir.diagnostics import error
from expand.ir.nodes import (
    Assign,
    Binary,
    Call,
    Const,
    Expr,
    ExprStmt,
    Function,
    Index,
    Member,
    NameMaker,
    Symbol,
    Unary,
    Var,
    as_type,
    is_local_array,
    map_stmt_exprs,
    stmt_exprs,
    walk_stmts,
)
from expand.ir.visitor import drop_stmts
from expand.passes.fold import fold_expr, fold_int


def local_arrays(fn: Function, structs: bool = False) -> None:
    """Rewrite ``fn``'s local arrays in place (see the module docstring); ``structs``: only the
    arrays of structs (expand/passes/lower.py's ``lower_aggregates``, before structs are split)."""
    arrays = [s for s in fn.locals if is_local_array(s) and (not structs or isinstance(s.type.elem, T.Record))]
    if not arrays:
        return
    _forward_pointers(fn, set(arrays))
    for arr in arrays:
        _check_uses(fn, arr)
        if _constant_only(fn, arr):
            _scalarize(fn, arr)


# ----------------------------------------------------------------------------- pointers to arrays


def _address(e: Expr) -> tuple[Symbol, Expr] | None:
    """(array, offset) when ``e`` is the address of a local array's element: ``a``, ``&a[i]`` (the
    frontends refuse pointer arithmetic)."""
    if isinstance(e, Var) and is_local_array(e.sym):
        return e.sym, Const(T.INT, 0, "0")
    if isinstance(e, Unary) and e.op == "&" and isinstance(e.operand, Index) \
            and isinstance(e.operand.base, Var) and is_local_array(e.operand.base.sym):
        return e.operand.base.sym, e.operand.index
    return None


def _forward_pointers(fn: Function, arrays: set[Symbol]) -> None:
    defs: dict[Symbol, list[Assign]] = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, Assign) and isinstance(s.target, Var) and isinstance(s.target.sym.type, T.Pointer):
            defs.setdefault(s.target.sym, []).append(s)
    forward: dict[Symbol, tuple[Symbol, Expr]] = {}
    for p, ds in defs.items():
        addrs = [a if a and a[0] in arrays else None for a in (_address(d.value) for d in ds)]
        if not any(addrs):
            continue
        arr = next(a for a in addrs if a)[0]
        if p.kind != "local" or len(ds) != 1:
            raise error(ds[-1].coord, f"pointer '{p.name}' to local array '{arr.name}' is assigned more than once",
                        "index the array itself: a[i]")
        if T.strip_spelling(p.type.target) != T.strip_spelling(arr.type.elem):
            raise error(ds[0].coord, f"pointer '{p.name}' of type '{p.type}' points into local array '{arr.name}' of"
                        f" '{arr.type.elem}'", "read the array through its own element type")
        forward[p] = addrs[0]
    if not forward:
        return

    def offset(base: Expr, i: Expr) -> Expr:
        if fold_int(base) == 0:
            return i
        t = T.usual_arith(base.type, i.type)
        return fold_expr(Binary(t, "+", as_type(base, t), as_type(i, t)))

    def f(n: Expr) -> Expr:
        if isinstance(n, Index) and isinstance(n.base, Var) and n.base.sym in forward:
            arr, off = forward[n.base.sym]
            return Index(n.type, Var(arr.type, arr), offset(off, n.index))
        if isinstance(n, Unary) and n.op == "*" and isinstance(n.operand, Var) and n.operand.sym in forward:
            arr, off = forward[n.operand.sym]
            return Index(n.type, Var(arr.type, arr), off)
        if isinstance(n, Member) and n.arrow and isinstance(n.base, Var) and n.base.sym in forward:  # p->x
            arr, off = forward[n.base.sym]
            return Member(n.type, Index(arr.type.elem, Var(arr.type, arr), off), n.name, False)
        if isinstance(n, Var) and n.sym in forward:
            arr, off = forward[n.sym]
            if fold_int(off) == 0:
                return Var(arr.type, arr)
            return Unary(n.type, "&", Index(arr.type.elem, Var(arr.type, arr), off))
        return n

    dead = {id(ds[0]) for p, ds in defs.items() if p in forward}
    fn.body = drop_stmts(fn.body, dead)
    for s in walk_stmts(fn.body):
        map_stmt_exprs(s, f)


# ----------------------------------------------------------------------------- uses


def _check_uses(fn: Function, arr: Symbol) -> None:
    """The array is indexed, or passed to a call (``f(a)``, ``f(&a[i])``); anything else is refused."""
    for s in walk_stmts(fn.body):
        allowed: set[int] = set()
        call = s.value if isinstance(s, Assign) else s.expr if isinstance(s, ExprStmt) else None
        if isinstance(call, Call):
            for a in call.args:
                if _address(a) is not None:
                    allowed.add(id(a.operand.base if isinstance(a, Unary) else a))
        for e in stmt_exprs(s):
            for n in e.walk():
                if isinstance(n, Index) and isinstance(n.base, Var) and n.base.sym is arr:
                    allowed.add(id(n.base))
            for n in e.walk():
                if isinstance(n, Var) and n.sym is arr and id(n) not in allowed:
                    raise error(s.coord, f"local array '{arr.name}' is used as a pointer here",
                                "index it (a[i]), or pass it or &a[i] to a function")


def _constant_only(fn: Function, arr: Symbol) -> bool:
    """Every use is ``a[c]`` with a constant ``c`` (a constant out of bounds is diagnosed)."""
    n = arr.type.length
    ok = True
    for s in walk_stmts(fn.body):
        for e in stmt_exprs(s):
            indexed = set()
            for x in e.walk():
                if isinstance(x, Index) and isinstance(x.base, Var) and x.base.sym is arr:
                    indexed.add(id(x.base))
                    k = fold_int(x.index)
                    if k is None:
                        ok = False
                    elif not 0 <= k < n:
                        raise error(s.coord, f"index {k} is outside local array '{arr.name}' of {n} elements")
            if any(isinstance(x, Var) and x.sym is arr and id(x) not in indexed for x in e.walk()):
                ok = False  # passed to a call
    return ok


def _scalarize(fn: Function, arr: Symbol) -> None:
    names = NameMaker(fn)
    elems: dict[int, Symbol] = {}

    def f(n: Expr) -> Expr:
        if isinstance(n, Index) and isinstance(n.base, Var) and n.base.sym is arr:
            k = fold_int(n.index)
            assert k is not None
            if k not in elems:
                elems[k] = Symbol(names.fresh(f"{arr.name}_{k}"), arr.type.elem, "local", arr.coord)
            return Var(n.type, elems[k])
        return n

    for s in walk_stmts(fn.body):
        map_stmt_exprs(s, f)
    i = fn.locals.index(arr)
    fn.locals[i:i + 1] = [elems[k] for k in sorted(elems)]
