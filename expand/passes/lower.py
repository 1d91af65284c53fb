"""Expression lowering: type punning becomes BitCast, effects leave expressions.

After this pass and ``lower_aggregates`` (which runs once helpers are inlined):
* a local pointer that holds one variable's address is that variable (expand/passes/address_locals.py);
* a local array of structs read at constant indexes is one struct per element (expand/passes/local_arrays.py),
  at other indexes one local array per scalar member (expand/passes/struct_arrays.py);
* a local struct used member by member is one variable per member (expand/passes/struct_fields.py);
* every other local struct or union, and every compound literal, is words of bits (expand/passes/records.py);
* a local union whose members are same-size scalars is one scalar variable; reading another
  member is a ``BitCast`` (free in a vector register), and ``*(T *)&x`` is a ``BitCast`` too;
* ``&&``, ``||`` and ``?:`` whose right/arm operands call functions or may fault are control flow
  (C's short-circuit is kept exactly where it matters);
* calls appear only as the whole right-hand side of an ``Assign`` or as an ``ExprStmt``.
"""

from __future__ import annotations

from expand.ir import types as T
from expand.ir.diagnostics import error
from expand.ir.nodes import (
    Aggregate,
    Assign,
    Binary,
    BitCast,
    Block,
    Call,
    Cast,
    Cond,
    Const,
    Expr,
    ExprStmt,
    Function,
    If,
    Index,
    Loop,
    MathOp,
    Member,
    NameMaker,
    Return,
    Stmt,
    Symbol,
    Unary,
    Var,
    is_local_array,
    map_expr,
    map_stmt_exprs,
    walk_stmts,
)
from expand.ir.types import punnable
from expand.passes.address_locals import forward_address_locals
from expand.passes.local_arrays import local_arrays
from expand.passes.records import lower_records
from expand.passes.struct_arrays import split_struct_arrays
from expand.passes.struct_fields import split_structs


def lower_function(fn: Function) -> None:
    """Effects out of expressions (before inlining; ``lower_aggregates`` runs after it)."""
    names = NameMaker(fn)
    fn.body = lower_stmts(fn.body, fn, names)


def gang_subscripts(fn: Function) -> None:
    """``p[0]`` of a pointer parameter that points to a gang (neither uniform nor linear: each lane's
    call gets its own element) is ``*p``; any other subscript would reach another lane's element or
    past the gang (diagnosed). Run on an expanded function, after inlining."""
    gangs = {p for p in fn.params if isinstance(p.type, T.Pointer) and p.shape not in ("uniform", "linear")}
    if not gangs:
        return
    for st in walk_stmts(fn.body):
        def fix(e: Expr, st: Stmt = st) -> Expr:
            if isinstance(e, Index) and isinstance(e.base, Var) and e.base.sym in gangs:
                name = e.base.sym.name
                if isinstance(e.index, Const) and e.index.value == 0:
                    return Unary(e.type, "*", e.base)
                raise error(st.coord, f"'{name}[...]' with an index other than 0: parameter '{name}' points to "
                            "one element per lane (a gang, EXPAND's convention for pointer parameters)",
                            f"read and write that element as *{name} or {name}[0], or declare '{name}' uniform "
                            "(--uniform, or #pragma omp declare simd uniform(...)) to index an array")
            return e
        map_stmt_exprs(st, fix)


# ------------------------------------------------------------------ punning


def lower_aggregates(fn: Function) -> None:
    """Local structs and unions as scalars or words, once helpers are inlined (a helper's struct
    parameters, returns and pointers to the caller's structs are then plain locals of ``fn``)."""
    forward_address_locals(fn)
    local_arrays(fn, structs=True)
    split_struct_arrays(fn)
    for s in fn.locals:
        if is_local_array(s) and isinstance(s.type.elem, T.Record):
            raise error(s.coord, f"local array '{s.name}' of structs is indexed by a value that is not a constant"
                        " and used whole (its address, an argument)",
                        "index it with constants, or keep one local array per member")
    split_structs(fn)
    lower_records(fn)
    scalarize_unions(fn)


def scalarize_unions(fn: Function) -> None:
    """Turn punning unions into scalars of their first member's type."""
    repl: dict[Symbol, T.CType] = {}
    for s in fn.locals:
        if punnable(s.type):
            repl[s] = s.type.fields[0][1]
    for s, t in repl.items():
        s.type = t
        s.temp = True

    def fix(e: Expr) -> Expr:
        if isinstance(e, Member) and not e.arrow and isinstance(e.base, Var) and e.base.sym in repl:
            sym = e.base.sym
            v = Var(sym.type, sym)
            return v if T.strip_spelling(e.type) == T.strip_spelling(sym.type) else BitCast(e.type, v)
        if isinstance(e, Var) and e.sym in repl:
            return Var(e.sym.type, e.sym)
        if isinstance(e, Unary) and e.op == "*" and isinstance(e.operand, Cast):
            inner = e.operand.operand
            if isinstance(inner, Unary) and inner.op == "&" and e.type.is_arith() and inner.operand.type.is_arith():
                if e.type.size() == inner.operand.type.size():
                    return BitCast(e.type, inner.operand)
        return e

    for st in walk_stmts(fn.body):
        if isinstance(st, Assign) and isinstance(st.target, Member) and isinstance(st.target.base, Var) \
                and st.target.base.sym in repl:
            sym = st.target.base.sym
            val = map_expr(st.value, fix)
            if T.strip_spelling(val.type) != T.strip_spelling(sym.type):
                val = BitCast(sym.type, val)
            st.target = Var(sym.type, sym)
            st.value = val
            continue
        from expand.ir.nodes import map_stmt_exprs
        map_stmt_exprs(st, fix)


# ------------------------------------------------------------------ names


# ------------------------------------------------------------------ effects out of expressions


def needs_control_flow(e: Expr) -> bool:
    return not is_pure_or_local(e)


def is_pure_or_local(e: Expr) -> bool:
    """Pure, counting reads of locals' members and constant-index table reads as harmless."""
    for n in e.walk():
        if isinstance(n, Call):
            return False
        if isinstance(n, Binary) and n.op in ("/", "%") and n.type.is_int():
            return False
        if isinstance(n, Index) and not isinstance(n.index, Const):
            return False
        if isinstance(n, Unary) and n.op == "*":
            return False
    return True


def lower_stmts(stmts: list[Stmt], fn: Function, names: NameMaker) -> list[Stmt]:
    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, Block):
            out.append(Block(s.coord, lower_stmts(s.body, fn, names)))
        elif isinstance(s, If):
            pre, cond = hoist(s.cond, s.coord, fn, names)
            out.extend(pre)
            out.append(If(s.coord, cond, lower_stmts(s.then, fn, names), lower_stmts(s.els, fn, names), s.likely))
        elif isinstance(s, Loop):
            s.body = lower_stmts(s.body, fn, names)
            out.append(s)
        elif isinstance(s, Assign):
            pre, target = hoist(s.target, s.coord, fn, names)
            out.extend(pre)
            if isinstance(s.value, Call) and isinstance(target, Var):
                pre, args = hoist_args(s.value, s.coord, fn, names)
                out.extend(pre)
                out.append(Assign(s.coord, target, Call(s.value.type, s.value.func, args, s.value.coord)))
            else:
                pre, value = hoist(s.value, s.coord, fn, names)
                out.extend(pre)
                out.append(Assign(s.coord, target, value))
        elif isinstance(s, ExprStmt):
            e = s.expr
            if isinstance(e, Call):
                pre, args = hoist_args(e, s.coord, fn, names)
                out.extend(pre)
                out.append(ExprStmt(s.coord, Call(e.type, e.func, args, e.coord)))
            else:
                pre, _ = hoist(e, s.coord, fn, names)
                out.extend(pre)
        elif isinstance(s, Return) and s.value is not None:
            if isinstance(s.value, Call):
                pre, args = hoist_args(s.value, s.coord, fn, names)
                out.extend(pre)
                out.append(Return(s.coord, Call(s.value.type, s.value.func, args, s.value.coord)))
            else:
                pre, value = hoist(s.value, s.coord, fn, names)
                out.extend(pre)
                out.append(Return(s.coord, value))
        else:
            out.append(s)
    return out


def hoist_args(call: Call, coord, fn: Function, names: NameMaker) -> tuple[list[Stmt], list[Expr]]:
    pre: list[Stmt] = []
    args = []
    for a in call.args:
        p, a2 = hoist(a, coord, fn, names)
        pre.extend(p)
        args.append(a2)
    return pre, args


def hoist(e: Expr, coord, fn: Function, names: NameMaker) -> tuple[list[Stmt], Expr]:
    """Statements that must run before ``e``, and ``e`` with its calls replaced by temporaries."""
    pre: list[Stmt] = []

    def go(n: Expr) -> Expr:
        if isinstance(n, Binary) and n.op in ("&&", "||") and needs_control_flow(n.right):
            left = go(n.left)
            tmp = names.local(("and" if n.op == "&&" else "or"), T.INT, coord)
            rp, right = hoist(n.right, coord, fn, names)
            rhs = [*rp, Assign(coord, Var(T.INT, tmp), truth01(right))]
            const = Assign(coord, Var(T.INT, tmp), Const(T.INT, 0 if n.op == "&&" else 1, "0" if n.op == "&&" else "1"))
            if n.op == "&&":
                pre.append(If(coord, left, rhs, [const]))
            else:
                pre.append(If(coord, left, [const], rhs))
            return Binary(T.INT, "!=", Var(T.INT, tmp), Const(T.INT, 0, "0"))
        if isinstance(n, Cond) and (needs_control_flow(n.then) or needs_control_flow(n.els)):
            c = go(n.cond)
            tmp = names.local("cond", n.type, coord)
            tp, tv = hoist(n.then, coord, fn, names)
            ep, ev = hoist(n.els, coord, fn, names)
            pre.append(If(coord, c, [*tp, Assign(coord, Var(n.type, tmp), tv)],
                          [*ep, Assign(coord, Var(n.type, tmp), ev)]))
            return Var(n.type, tmp)
        if isinstance(n, Call):
            args = [go(a) for a in n.args]
            tmp = names.local((n.func.lstrip("_") or "call") + "_r", n.type, coord)
            if isinstance(n.type, T.Void):
                raise error(n.coord, f"void function '{n.func}' used as a value")
            pre.append(Assign(coord, Var(n.type, tmp), Call(n.type, n.func, args, n.coord)))
            return Var(n.type, tmp)
        # Rebuild children left to right so effects keep C's evaluation order.
        if isinstance(n, Binary):
            return Binary(n.type, n.op, go(n.left), go(n.right))
        if isinstance(n, Unary):
            return Unary(n.type, n.op, go(n.operand))
        if isinstance(n, Cond):
            return Cond(n.type, go(n.cond), go(n.then), go(n.els))
        if isinstance(n, Cast):
            return type(n)(n.type, go(n.operand))
        if isinstance(n, BitCast):
            return BitCast(n.type, go(n.operand))
        if isinstance(n, MathOp):
            return MathOp(n.type, n.op, [go(a) for a in n.args], n.func)
        if isinstance(n, Index):
            return Index(n.type, go(n.base), go(n.index))
        if isinstance(n, Member):
            return Member(n.type, go(n.base), n.name, n.arrow)
        if isinstance(n, Aggregate):  # (a brace initializer's items, in order: ``{.origin = make3()}``)
            return Aggregate(n.type, [(path, go(v)) for path, v in n.items])
        return n

    return pre, go(e)


def truth01(e: Expr) -> Expr:
    """``e`` as an int 0/1 (conditions are already 0/1)."""
    if isinstance(e, Binary) and e.op in ("==", "!=", "<", "<=", ">", ">=", "&&", "||"):
        return e
    if isinstance(e, Unary) and e.op == "!":
        return e
    zero = Const(e.type, 0.0 if e.type.is_float() else 0, "0")
    return Binary(T.INT, "!=", e, zero)
