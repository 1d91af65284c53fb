"""Inline the file's static helpers (asuint, checkint, log2_inline, ...) into their callers.

Choice (see README): helpers are inlined rather than expanded as vector functions of their own,
so that if-conversion sees one control-flow graph and a helper's uniform arguments stay scalar.
"""

from __future__ import annotations

from expand.ir import types as T
from expand.ir.diagnostics import error
from expand.ir.nodes import (
    Assign,
    Binary,
    Block,
    Break,
    Call,
    Cast,
    Const,
    Continue,
    Expr,
    ExprStmt,
    Function,
    Goto,
    If,
    Index,
    Label,
    Loop,
    Member,
    Module,
    NameMaker,
    Return,
    Stmt,
    Symbol,
    Unary,
    Var,
    addressed_vars,
    as_type,
    map_expr,
    walk_stmts,
)
from expand.passes.fold import through_address


def inline_module(mod: Module, roots: list[str]) -> None:
    """Inline static helpers into each root function (helpers first, recursion diagnosed)."""
    done: set[str] = set()
    for name in roots:
        _inline_fn(mod, mod.functions[name], done, [])


def is_helper(mod: Module, name: str) -> bool:
    fn = mod.functions.get(name)
    return fn is not None and fn.static


def _inline_fn(mod: Module, fn: Function, done: set[str], stack: list[str]) -> None:
    if fn.name in done:
        return
    if fn.name in stack:
        raise error(fn.coord, f"recursive function '{fn.name}' cannot be expanded",
                    "rewrite the recursion as a loop")
    stack = [*stack, fn.name]
    names = NameMaker(fn)
    counter = [0]
    # (variables whose address the caller takes: a callee may write them, given &v or a pointer holding
    # it, so an index made of them is not the caller's value during the call; each helper's own)
    addressed = addressed_vars(fn.body)

    def visit(stmts: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for s in stmts:
            if isinstance(s, Block):
                out.append(Block(s.coord, visit(s.body)))
            elif isinstance(s, If):
                out.append(If(s.coord, s.cond, visit(s.then), visit(s.els), s.likely))
            elif isinstance(s, Loop):
                s.body = visit(s.body)
                out.append(s)
            elif isinstance(s, (Assign, ExprStmt, Return)):
                call = s.value if isinstance(s, (Assign, Return)) else s.expr
                if isinstance(call, Call) and call.func in mod.functions and call.func != fn.name \
                        and not mod.functions[call.func].static:
                    pass
                if isinstance(call, Call) and call.func == fn.name:
                    raise error(call.coord, f"recursive function '{fn.name}' cannot be expanded",
                                "rewrite the recursion as a loop")
                if isinstance(call, Call) and is_helper(mod, call.func):
                    callee = mod.functions[call.func]
                    _inline_fn(mod, callee, done, stack)
                    counter[0] += 1
                    out.extend(inline_call(fn, s, call, callee, names, addressed))
                else:
                    out.append(s)
            else:
                out.append(s)
        return out

    fn.body = visit(fn.body)
    done.add(fn.name)


def inline_call(fn: Function, s: Stmt, call: Call, callee: Function, names: NameMaker,
                addressed: set[Symbol] | None = None) -> list[Stmt]:
    """The statements replacing ``s`` (which calls ``callee``). A pointer parameter that receives the
    address of one of the caller's variables (``normalize3(&x, &y, &z)``, glibc's ``reduce_fast(x, p,
    &n)``) and that the helper never reassigns stands for that variable: ``*p``, ``p[0]`` and ``p->f``
    become the variable itself, so the helper's stores through it are plain assignments. One that
    receives a pointer parameter of the caller (sincosf's ``sinp``) is that parameter. An arithmetic
    parameter the helper never assigns nor takes the address of, given a constant (glibc's
    ``sinf_poly (x, s, p, 0)``), is that constant."""
    symmap: dict[Symbol, Symbol] = {}
    aliases: dict[Symbol, Expr] = {}
    reassigned = {st.target.sym for st in walk_stmts(callee.body)
                  if isinstance(st, Assign) and isinstance(st.target, Var)}
    written = addressed if addressed is not None else addressed_vars(fn.body)
    taken = addressed_vars(callee.body)
    for p, a in zip(callee.params, call.args):
        if isinstance(p.type, T.Pointer) and p not in reassigned and (
                _address_of_variable(a) or isinstance(a, Var) and a.sym.kind == "param"
                or isinstance(a, Var) and a.sym.kind == "global" and isinstance(a.sym.type, T.Array)
                or _address_of_table_element(a, written) or _array_place(a, written)):
            aliases[p] = a  # (&v, &G[i], a table G, or the caller's own pointer parameter: a gang, or a uniform array)
        elif isinstance(a, Const) and p.type.is_arith() and p not in reassigned and p not in taken:
            aliases[p] = as_type(a, p.type)  # (a constant: the helper's tests of it fold, its dead arms go)
    for p in callee.params + callee.locals:
        if p in aliases:
            continue
        base = p.name if p.name not in names.used else f"{p.name}_{callee.name}"
        new = Symbol(names.fresh(base), p.type, "local", p.coord, temp=p in callee.params or p.temp)
        fn.locals.append(new)
        symmap[p] = new
    end = names.fresh(f"{callee.name}_done")
    result: Symbol | None = None
    if not callee.ret.spelling == "void" and not isinstance(s, ExprStmt):
        result = Symbol(names.fresh(callee.name.lstrip("_") + "_r"), callee.ret, "local", call.coord, temp=True)
        fn.locals.append(result)
    labels: dict[str, str] = {}
    for st in walk_stmts(callee.body):
        if isinstance(st, Label):
            labels[st.name] = names.fresh(st.name)
    body: list[Stmt] = []
    for p, a in zip(callee.params, call.args):
        if p not in aliases:
            body.append(Assign(s.coord, Var(p.type, symmap[p]), a))
    body.extend(copy_stmts(callee.body, symmap, labels, result, end, s.coord, aliases))
    body.append(Label(s.coord, end))
    out: list[Stmt] = [Block(s.coord, body)]
    if isinstance(s, Assign):
        assert result is not None
        out.append(Assign(s.coord, s.target, Var(result.type, result)))
    elif isinstance(s, Return):
        assert result is not None
        out.append(Return(s.coord, Var(result.type, result)))
    return out


def _address_of_variable(a: Expr) -> bool:
    """``&v`` or ``&v.f`` of a variable (a local, a parameter, or a file-scope variable such as
    aobench's ``&AO_PLANE``): an address that names one place."""
    if not (isinstance(a, Unary) and a.op == "&"):
        return False
    e = a.operand
    while isinstance(e, Member) and not e.arrow:
        e = e.base
    return isinstance(e, Var) and (e.sym.kind in ("local", "param") or e.sym.kind == "global"
                                    and not isinstance(e.sym.type, T.Array))


def _address_of_table_element(a: Expr, written: set[Symbol]) -> bool:
    """``&G[i]`` of a file-scope array or a uniform pointer parameter at an index computed from
    constants and locals or parameters the call does not give the callee the address of (aobench's
    ``&AO_SPHERES[s]``): the callee cannot change ``i``, so ``p->f`` in its body is ``G[i].f`` (a
    uniform ``i`` stays a uniform read)."""
    if not (isinstance(a, Unary) and a.op == "&" and isinstance(a.operand, Index)):
        return False
    base, i = a.operand.base, a.operand.index
    if not (isinstance(base, Var) and (base.sym.kind == "global" and isinstance(base.sym.type, T.Array)
                                       or base.sym.kind == "param" and base.sym.shape == "uniform")):
        return False
    return _fixed_during_call(i, written, (Const, Binary, Cast),
                              lambda s: s.kind in ("local", "param") and s.type.is_arith())


def _array_place(a: Expr, written: set[Symbol]) -> bool:
    """An array member the argument decays from (the ray tracer's ``BBoxIntersect(node->bounds, ...)``,
    ``node`` a local pointer), at indexes computed from constants and locals or parameters the call
    does not give the callee the address of: the parameter stands for that array."""
    if not isinstance(a.type, T.Array) or not isinstance(a, (Member, Index)):
        return False
    # (a global the callee could assign only as a table, never as an index)
    return _fixed_during_call(a, written, (Member, Index, Const, Binary, Cast),
                              lambda s: s.kind in ("local", "param")
                              or s.kind == "global" and (s.const or isinstance(s.type, T.Array)))


def _fixed_during_call(e: Expr, written: set[Symbol], kinds: tuple[type, ...], allowed) -> bool:
    """``e`` is made of ``kinds`` of nodes and of variables ``allowed`` accepts that the callee cannot
    write (not in ``written``): it has the same value all through the inlined call."""
    for n in e.walk():
        if isinstance(n, Var):
            if n.sym in written or not allowed(n.sym):
                return False
        elif not isinstance(n, kinds):
            return False
    return True


def copy_stmts(stmts: list[Stmt], symmap: dict[Symbol, Symbol], labels: dict[str, str],
               result: Symbol | None, end: str, site, aliases: dict[Symbol, Expr] | None = None) -> list[Stmt]:
    """A copy of a helper's body with fresh symbols; returns become ``result = v; goto end``;
    ``aliases``: pointer parameters standing for a variable of the caller (see ``inline_call``)."""
    aliases = aliases or {}

    def ce(e: Expr) -> Expr:
        def f(n: Expr) -> Expr:
            if isinstance(n, Var) and n.sym in aliases:  # p: &v (then *&v, (&v)[0], (&v)->f below) or q
                return map_expr(aliases[n.sym], lambda x: x)  # (new nodes, the same symbols)
            if isinstance(n, Var) and n.sym in symmap:
                return Var(n.type, symmap[n.sym])
            m = through_address(n)  # (*&v, (&v)[0], (&v)->f)
            if m is not n:
                return m
            if isinstance(n, Index) and isinstance(n.base, Unary) and n.base.op == "&" \
                    and isinstance(n.base.operand, Index):  # (&G[i])[k]: G[i + k]
                inner = n.base.operand
                t = T.usual_arith(inner.index.type, n.index.type)
                return Index(n.type, inner.base, Binary(t, "+", as_type(inner.index, t), as_type(n.index, t)))
            return n
        return map_expr(e, f)

    out: list[Stmt] = []
    for s in stmts:
        # Inlined statements keep the helper's coordinates (the comment shows the helper's line).
        if isinstance(s, Assign):
            out.append(Assign(s.coord, ce(s.target), ce(s.value)))
        elif isinstance(s, ExprStmt):
            out.append(ExprStmt(s.coord, ce(s.expr)))
        elif isinstance(s, If):
            out.append(If(s.coord, ce(s.cond), copy_stmts(s.then, symmap, labels, result, end, site, aliases),
                          copy_stmts(s.els, symmap, labels, result, end, site, aliases), s.likely))
        elif isinstance(s, Block):
            out.append(Block(s.coord, copy_stmts(s.body, symmap, labels, result, end, site, aliases)))
        elif isinstance(s, Return):
            if s.value is not None and result is not None:
                out.append(Assign(s.coord, Var(result.type, result), ce(s.value)))
            out.append(Goto(s.coord, end))
        elif isinstance(s, Goto):
            out.append(Goto(s.coord, labels.get(s.label, s.label)))
        elif isinstance(s, Label):
            out.append(Label(s.coord, labels[s.name]))
        elif isinstance(s, Loop):
            out.append(Loop(s.coord, s.kind, ce(s.cond) if s.cond is not None else None,
                            copy_stmts(s.body, symmap, labels, result, end, site, aliases)))
        elif isinstance(s, (Break, Continue)):
            out.append(s)
        else:
            out.append(s)
    return out
