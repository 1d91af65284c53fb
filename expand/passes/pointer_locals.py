"""Local pointers become integers, so that they can differ between lanes like any other value.

Into a table: glibc's sinf keeps ``const sincos_t *p = &__sincosf_table[0];``, sets ``p =
&__sincosf_table[1];`` under a condition that differs per lane, and reads ``p->sign[n & 3]`` (in
inlined helpers too, whose pointer parameter receives ``p``).

A local pointer whose every assignment is ``G``, ``&G[e]`` or another such pointer of the same
table ``G`` (a global array, or a uniform pointer parameter: the ray tracer's ``const Node *node =
&nodes[i];``) becomes an ``int`` index ``p_idx``: ``p = &G[e]`` is ``p_idx = e``,
``*p`` is ``G[p_idx]``, ``p[i]`` is ``G[p_idx + i]`` and ``p->f`` is ``G[p_idx].f``. The index
is an integer like any other: uniform while every lane has the same, varying (and then read with
one load per lane) where a condition differs between lanes.

Among the function's pointer parameters: glibc's sincosf_poly swaps its out-parameters per lane
(``float *tmp = (n & 1 ? cosp : sinp); cosp = (n & 1 ? sinp : cosp); sinp = tmp;`` once inlined:
locals holding the caller's ``sinp``/``cosp``). A local pointer whose every assignment is one of
the parameters, another such local, or a ``?:`` of those becomes ``q_which``, the number of the
parameter it holds: ``*q = v`` is ``if (q_which == k) *P_k = v;`` for each candidate ``P_k`` (each
lane stores through the pointer it has), and ``*q`` reads ``q_which == 0 ? *P_0 : ...``.

A pointer used any other way stays a pointer, which the later stages refuse with a diagnostic.
"""

from __future__ import annotations

from expand.ir import types as T
from expand.ir.nodes import (
    Assign,
    Binary,
    Block,
    Break,
    Cast,
    Cond,
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
    NameMaker,
    Return,
    Stmt,
    Symbol,
    Unary,
    Var,
    map_expr,
    map_stmt_exprs,
    stmt_exprs,
    walk_stmts,
)
from expand.ir.visitor import rewrite_nested
from expand.passes.fold import fold_expr, fold_int


def _is_table(sym: Symbol, pointers: bool) -> bool:
    """``sym`` is a global array, or (with ``pointers``) a uniform pointer parameter: the start of an array
    every lane shares (``const Node *nodes``)."""
    if sym.kind == "global" and isinstance(sym.type, T.Array):
        return True
    return pointers and sym.kind == "param" and isinstance(sym.type, T.Pointer) and sym.shape == "uniform"


def _elem(table: Symbol) -> T.CType:
    """The type of a table's elements (an array's, or what a pointer parameter points to)."""
    t = table.type
    return t.elem if isinstance(t, T.Array) else t.target  # type: ignore[attr-defined]


def _table_of(e: Expr, idx: dict[Symbol, tuple[Symbol, Symbol]], pointers: bool = False
              ) -> tuple[Symbol, Expr] | None:
    """(table, index) when ``e`` is ``G``, ``&G[i]`` of a global array ``G`` (with ``pointers``, of a
    uniform pointer parameter too: the ray tracer's ``const Node *node = &nodes[i];``), or a pointer
    already known to point into one (``idx``: pointer -> (table, index local))."""
    if isinstance(e, Cast) and isinstance(e.type, T.Pointer):  # (const T *) &G[i]: the same address
        e = e.operand
    if isinstance(e, Var) and _is_table(e.sym, pointers):
        return e.sym, Const(T.INT, 0, "0")
    if isinstance(e, Unary) and e.op == "&" and isinstance(e.operand, Index) and isinstance(e.operand.base, Var) \
            and _is_table(e.operand.base.sym, pointers):
        return e.operand.base.sym, e.operand.index
    if isinstance(e, Var) and e.sym in idx:
        table, i = idx[e.sym]
        return table, Var(T.INT, i)
    return None


def _row_of(e: Expr) -> tuple[Symbol, Expr] | None:
    """(table, row) when ``e`` is ``G[i]``, a row of a global two-dimensional array ``G`` (decaying to a
    pointer to its first element: glibc's j0f ``const float *p = Pj[index];``)."""
    if isinstance(e, Cast) and isinstance(e.type, T.Pointer):
        e = e.operand
    if isinstance(e, Index) and isinstance(e.base, Var) and e.base.sym.kind == "global" \
            and isinstance(e.base.sym.type, T.Array) and isinstance(e.base.sym.type.elem, T.Array):
        return e.base.sym, e.index
    return None


def pointer_locals(fn: Function) -> None:
    """Rewrite ``fn``'s local pointers as integers (see the module docstring)."""
    _row_pointers(fn)
    _table_pointers(fn)
    _tables_pointers(fn)
    _copy_assigned_parameters(fn)
    _parameter_pointers(fn)


def _copy_assigned_parameters(fn: Function) -> None:
    """A pointer parameter the function assigns (glibc's sincos swaps ``sinx`` and ``cosx`` per lane:
    ``double *temp = cosx; cosx = sinx; sinx = temp;``) becomes a local copy of it made at the entry,
    which ``_parameter_pointers`` then turns into the number of the parameter it holds."""
    assigned = [p for p in fn.params if isinstance(p.type, T.Pointer) and any(
        isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym is p for s in walk_stmts(fn.body))]
    in_loop_conds = {n.sym for s in walk_stmts(fn.body) if isinstance(s, Loop) and s.cond is not None
                     for n in s.cond.walk() if isinstance(n, Var)}
    names = NameMaker(fn)
    for p in assigned:
        if p in in_loop_conds:
            continue
        cur = Symbol(names.fresh(f"{p.name}_now"), p.type, "local", p.coord)
        fn.locals.append(cur)

        def f(n: Expr, p: Symbol = p, cur: Symbol = cur) -> Expr:
            return Var(n.type, cur) if isinstance(n, Var) and n.sym is p else n

        for s in walk_stmts(fn.body):
            map_stmt_exprs(s, f)
        fn.body.insert(0, Assign(p.coord, Var(p.type, cur), Var(p.type, p)))


def _row_pointers(fn: Function) -> None:
    """Local pointers to a row of one global two-dimensional table (``p = G[i]``, only read through:
    ``p[e]``, ``*p``) become the row's number ``p_row``: ``p[e]`` is ``G[p_row][e]``."""
    defs: dict[Symbol, list[Assign]] = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym.kind == "local" \
                and isinstance(s.target.sym.type, T.Pointer):
            defs.setdefault(s.target.sym, []).append(s)
    rows: dict[Symbol, tuple[Symbol, Symbol]] = {}
    names = NameMaker(fn)
    for p, ds in defs.items():
        found = [_row_of(d.value) for d in ds]
        if not all(found) or len({t.name for t, _ in found}) != 1:
            continue
        table = found[0][0]
        if T.strip_spelling(p.type.target) != T.strip_spelling(table.type.elem.elem) \
                or not _only_read_through(fn, p, ds):
            continue
        row = Symbol(names.fresh(f"{p.name}_row"), T.INT, "local", p.coord)
        fn.locals.append(row)
        rows[p] = (table, row)
    if not rows:
        return

    def at(p: Symbol, k: Expr) -> Index:
        table, row = rows[p]
        line = Index(table.type.elem, Var(table.type, table), Var(T.INT, row))
        return Index(table.type.elem.elem, line, k if T.strip_spelling(k.type) == T.INT else Cast(T.INT, k))

    def f(n: Expr) -> Expr:
        if isinstance(n, Unary) and n.op == "*" and isinstance(n.operand, Var) and n.operand.sym in rows:
            return at(n.operand.sym, Const(T.INT, 0, "0"))
        if isinstance(n, Index) and isinstance(n.base, Var) and n.base.sym in rows:
            return at(n.base.sym, n.index)
        return n

    for s in walk_stmts(fn.body):
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym in rows:
            found = _row_of(s.value)
            assert found is not None
            k = map_expr(found[1], f)  # (the row's number may read through another such pointer)
            s.target = Var(T.INT, rows[s.target.sym][1])
            s.value = k if T.strip_spelling(k.type) == T.INT else Cast(T.INT, k)
            continue
        map_stmt_exprs(s, f)
    fn.locals = [s for s in fn.locals if s not in rows]


def _tables_pointers(fn: Function) -> None:
    """Local pointers set to one of several global tables (glibc's j0: ``p = pR8; ... p = pR5;``
    under conditions that differ per lane, then ``p[0] + z * p[1]``) become a table number ``p_tab``
    and an index ``p_idx`` (a constant when every assignment gives the same one): ``p[e]`` is
    ``p_tab == 0 ? G0[k] : p_tab == 1 ? G1[k] : ...`` with ``k = p_idx + e``, each ``Gj[k]`` reading
    an index clamped to ``Gj``'s bounds (every arm is read in every lane; only the lanes of ``Gj``
    use it, and there the index is the scalar code's own). Only pointers that are only assigned and
    read through (``*p``, ``p[e]``, ``p->f``) are rewritten."""
    defs: dict[Symbol, list[Assign]] = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym.kind == "local" \
                and isinstance(s.target.sym.type, T.Pointer):
            defs.setdefault(s.target.sym, []).append(s)
    plans: dict[Symbol, tuple[list[Symbol], Symbol, Expr]] = {}  # p -> (tables, p_tab, index)
    names = NameMaker(fn)
    for p, ds in defs.items():
        found = [_table_of(d.value, {}) for d in ds]
        if not all(found) or len({t.name for t, _ in found}) < 2:
            continue
        tables = list(dict.fromkeys(t for t, _ in found))
        pt = T.strip_spelling(p.type.target)
        if any(T.strip_spelling(t.type.elem) != pt or t.type.length is None for t in tables):
            continue
        if not _only_read_through(fn, p, ds):
            continue
        consts = {fold_int(i) for _, i in found}
        tab = Symbol(names.fresh(f"{p.name}_tab"), T.INT, "local", p.coord)
        fn.locals.append(tab)
        if len(consts) == 1 and None not in consts:
            index: Expr = Const(T.INT, consts.pop(), "")
            index = Const(T.INT, index.value, str(index.value))
        else:
            i = Symbol(names.fresh(f"{p.name}_idx"), T.INT, "local", p.coord)
            fn.locals.append(i)
            index = Var(T.INT, i)
        plans[p] = (tables, tab, index)
    if not plans:
        return

    def clamp(k: Expr, n: int) -> Expr:
        v = fold_int(k)
        if v is not None and 0 <= v < n:
            return Const(T.INT, v, str(v))
        low = Cond(T.INT, Binary(T.INT, "<", k, Const(T.INT, 0, "0")), Const(T.INT, 0, "0"), k)
        return Cond(T.INT, Binary(T.INT, ">", k, Const(T.INT, n - 1, str(n - 1))), Const(T.INT, n - 1, str(n - 1)),
                    low)

    def read(p: Symbol, extra: Expr | None) -> Expr:
        tables, tab, index = plans[p]
        k = index if extra is None or fold_int(extra) == 0 else fold_expr(
            Binary(T.INT, "+", index, extra if T.strip_spelling(extra.type) == T.INT else Cast(T.INT, extra)))
        arms = [Index(t.type.elem, Var(t.type, t), clamp(k, t.type.length)) for t in tables]
        out: Expr = arms[-1]
        for j in range(len(tables) - 2, -1, -1):
            out = Cond(out.type, Binary(T.INT, "==", Var(T.INT, tab), Const(T.INT, j, str(j))), arms[j], out)
        return out

    def f(n: Expr) -> Expr:
        if isinstance(n, Unary) and n.op == "*" and isinstance(n.operand, Var) and n.operand.sym in plans:
            return read(n.operand.sym, None)
        if isinstance(n, Index) and isinstance(n.base, Var) and n.base.sym in plans:
            return read(n.base.sym, n.index)
        if isinstance(n, Member) and n.arrow and isinstance(n.base, Var) and n.base.sym in plans:
            tables, tab, index = plans[n.base.sym]
            arms = [Member(n.type, Index(t.type.elem, Var(t.type, t), clamp(index, t.type.length)), n.name, False)
                    for t in tables]
            out: Expr = arms[-1]
            for j in range(len(tables) - 2, -1, -1):
                out = Cond(n.type, Binary(T.INT, "==", Var(T.INT, tab), Const(T.INT, j, str(j))), arms[j], out)
            return out
        return n

    def rewrite(stmts: list) -> list:
        out = []
        for s in stmts:
            if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym in plans:
                tables, tab, index = plans[s.target.sym]
                found = _table_of(s.value, {})
                assert found is not None
                j = tables.index(found[0])
                out.append(Assign(s.coord, Var(T.INT, tab), Const(T.INT, j, str(j))))
                if isinstance(index, Var):
                    k = map_expr(found[1], f)
                    out.append(Assign(s.coord, index, k if T.strip_spelling(k.type) == T.INT else Cast(T.INT, k)))
                continue
            rewrite_nested(s, rewrite)
            map_stmt_exprs(s, f)
            out.append(s)
        return out

    fn.body = rewrite(fn.body)
    fn.locals = [s for s in fn.locals if s not in plans]


def _only_read_through(fn: Function, p: Symbol, defs: list[Assign]) -> bool:
    """Whether every mention of ``p`` outside ``defs`` reads through it: ``*p``, ``p[e]``, ``p->f``."""
    def ok(e: Expr, parent_ok: bool) -> bool:
        if isinstance(e, Var) and e.sym is p:
            return parent_ok
        through = (isinstance(e, Unary) and e.op == "*") or isinstance(e, Index) or \
            (isinstance(e, Member) and e.arrow)
        kids = e.children()
        return all(ok(c, through and i == 0 and isinstance(c, Var)) for i, c in enumerate(kids))

    ids = {id(d) for d in defs}
    for s in walk_stmts(fn.body):
        if id(s) in ids:
            continue
        if isinstance(s, Assign) and not isinstance(s.target, Var) and any(
                isinstance(n, Var) and n.sym is p for n in s.target.walk()):
            return False  # (a store through it)
        if not all(ok(e, False) for e in stmt_exprs(s)):
            return False
    return True


def _table_pointers(fn: Function) -> None:
    """Local pointers into global tables become indexes."""
    defs: dict[Symbol, list[Assign]] = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym.kind == "local" \
                and isinstance(s.target.sym.type, T.Pointer):
            defs.setdefault(s.target.sym, []).append(s)
    idx: dict[Symbol, tuple[Symbol, Symbol]] = {}
    names = NameMaker(fn)
    changed = True
    while changed:  # (a pointer copied from another: q = p, an inlined helper's parameter)
        changed = False
        for p, ds in defs.items():
            if p in idx:
                continue
            found = [_table_of(d.value, idx, True) for d in ds]
            if not all(found) or len({t.name for t, _ in found}) != 1:
                continue
            table = found[0][0]
            if T.strip_spelling(p.type.target) != T.strip_spelling(_elem(table)):
                continue  # (a pointer of another type into the table: left alone, refused later)
            i = Symbol(names.fresh(f"{p.name}_idx"), T.INT, "local", p.coord)
            fn.locals.append(i)
            idx[p] = (table, i)
            changed = True
    if not idx:
        return

    def as_int(e: Expr) -> Expr:
        return e if T.strip_spelling(e.type) == T.INT else Cast(T.INT, e)

    def at(p: Symbol, extra: Expr | None = None) -> Index:
        table, i = idx[p]
        k: Expr = Var(T.INT, i)
        if extra is not None and fold_int(extra) != 0:
            k = fold_expr(Binary(T.INT, "+", k, as_int(extra)))
        return Index(_elem(table), Var(table.type, table), k)

    def f(n: Expr) -> Expr:
        if isinstance(n, Unary) and n.op == "*" and isinstance(n.operand, Var) and n.operand.sym in idx:
            return at(n.operand.sym)
        if isinstance(n, Index) and isinstance(n.base, Var) and n.base.sym in idx:
            return Index(n.type, at(n.base.sym, n.index).base, at(n.base.sym, n.index).index)
        if isinstance(n, Member) and n.arrow and isinstance(n.base, Var) and n.base.sym in idx:
            return Member(n.type, at(n.base.sym), n.name, False)
        return n

    for s in walk_stmts(fn.body):
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym in idx:
            _, i = idx[s.target.sym]
            found = _table_of(s.value, idx, True)
            assert found is not None
            s.target = Var(T.INT, i)
            s.value = as_int(map_expr(found[1], f))  # (the index may read through another such pointer)
            continue
        map_stmt_exprs(s, f)
    _constant_indexes(fn.body, {i for _, i in idx.values()})
    # What is left of the pointers (their declarations): gone when nothing reads them any more.
    used = {n.sym for s in walk_stmts(fn.body) for e in stmt_exprs(s) for n in e.walk() if isinstance(n, Var)}
    fn.locals = [s for s in fn.locals if s not in idx or s in used]


def _constant_indexes(body: list[Stmt], indexes: set[Symbol]) -> None:
    """Reads of ``indexes`` where every assignment that reaches them gives one constant read that constant
    (glibc's sinf reads ``p->sign[n & 3]`` and reduce_fast's ``p->hpi`` before ``if (n & 2) p =
    &__sincosf_table[1];`` can change ``p``: ``__sincosf_table[0]``'s, one table of four, not a table per
    lane). Forward, through branches; a loop forgets what it assigns; a label keeps what every goto to it
    and the statement before it agree on (a label some goto reaches from after it: nothing)."""
    order = list(walk_stmts(body))
    seen: set[str] = set()
    backward: set[str] = set()
    for s in order:
        if isinstance(s, Label):
            seen.add(s.name)
        elif isinstance(s, Goto) and s.label in seen:
            backward.add(s.label)
    at_gotos: dict[str, list[dict[Symbol, int]]] = {}

    def meet(a: dict[Symbol, int], b: dict[Symbol, int]) -> dict[Symbol, int]:
        return {k: v for k, v in a.items() if b.get(k) == v}

    def run(stmts: list[Stmt], known: dict[Symbol, int]) -> dict[Symbol, int]:
        def sub(n: Expr) -> Expr:
            return Const(T.INT, known[n.sym], str(known[n.sym])) if isinstance(n, Var) and n.sym in known else n

        for s in stmts:
            if isinstance(s, Assign):
                s.value = map_expr(s.value, sub)
                if not isinstance(s.target, Var):
                    s.target = map_expr(s.target, sub)
                elif s.target.sym in indexes:
                    c = fold_int(s.value)
                    known = {k: v for k, v in known.items() if k is not s.target.sym}
                    if c is not None:
                        known[s.target.sym] = c
            elif isinstance(s, If):
                s.cond = map_expr(s.cond, sub)
                known = meet(run(s.then, dict(known)), run(s.els, dict(known)))
            elif isinstance(s, Block):
                known = run(s.body, known)
            elif isinstance(s, Loop):
                known = run(s.init, known)
                changed = {t.target.sym for t in walk_stmts([*s.body, *s.step])
                           if isinstance(t, Assign) and isinstance(t.target, Var)}
                known = {k: v for k, v in known.items() if k not in changed}
                if s.cond is not None:
                    s.cond = map_expr(s.cond, sub)
                run(s.body, dict(known))
                run(s.step, dict(known))
            elif isinstance(s, Label):
                if s.name in backward:
                    known = {}
                for other in at_gotos.get(s.name, []):
                    known = meet(known, other)
            elif isinstance(s, Goto):
                at_gotos.setdefault(s.label, []).append(dict(known))
            elif isinstance(s, (ExprStmt, Return)):
                map_stmt_exprs(s, sub)
            elif not isinstance(s, (Break, Continue)):
                raise AssertionError(f"_constant_indexes: {type(s).__name__}")
        return known

    run(body, {})


def _which(e: Expr, params: list[Symbol], which: dict[Symbol, Symbol]) -> Expr | None:
    """The number of the parameter ``e`` holds (an int expression), or None."""
    if isinstance(e, Cast) and isinstance(e.type, T.Pointer):
        e = e.operand
    if isinstance(e, Var) and e.sym in params:
        k = params.index(e.sym)
        return Const(T.INT, k, str(k))
    if isinstance(e, Var) and e.sym in which:
        return Var(T.INT, which[e.sym])
    if isinstance(e, Cond):
        a, b = _which(e.then, params, which), _which(e.els, params, which)
        if a is not None and b is not None:
            return Cond(T.INT, e.cond, a, b)
    return None


def _parameter_pointers(fn: Function) -> None:
    """Local pointers holding one of the function's pointer parameters become the parameter's number."""
    params = [p for p in fn.params if isinstance(p.type, T.Pointer)]
    if not params:
        return
    defs: dict[Symbol, list[Assign]] = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym.kind == "local" \
                and isinstance(s.target.sym.type, T.Pointer):
            defs.setdefault(s.target.sym, []).append(s)
    which: dict[Symbol, Symbol] = {}
    names = NameMaker(fn)
    candidates = set(defs)
    changed = True
    while changed:  # the largest set of locals whose values are parameters or each other
        changed = False
        trial = {q: Symbol("?", T.INT, "local") for q in candidates}
        for q in list(candidates):
            if any(_which(d.value, params, trial) is None for d in defs[q]):
                candidates.discard(q)
                changed = True
    if not candidates:
        return
    pts = {T.strip_spelling(p.type.target) for p in params}
    for q in [q for q in defs if q in candidates]:  # (in source order: names the same in every run)
        if T.strip_spelling(q.type.target) not in pts:
            return  # (a pointer of another type: left alone, refused later)
        which[q] = Symbol(names.fresh(f"{q.name}_which"), T.INT, "local", q.coord)
        fn.locals.append(which[q])

    def deref(q: Symbol, t: T.CType) -> Expr:
        """``*q`` as a choice among the parameters' pointees."""
        out: Expr = Unary(t, "*", Var(params[-1].type, params[-1]))
        for k in range(len(params) - 2, -1, -1):
            hit = Binary(T.INT, "==", Var(T.INT, which[q]), Const(T.INT, k, str(k)))
            out = Cond(t, hit, Unary(t, "*", Var(params[k].type, params[k])), out)
        return out

    def f(n: Expr) -> Expr:
        if isinstance(n, Unary) and n.op == "*" and isinstance(n.operand, Var) and n.operand.sym in which:
            return deref(n.operand.sym, n.type)
        if isinstance(n, Index) and isinstance(n.base, Var) and n.base.sym in which and fold_int(n.index) == 0:
            return deref(n.base.sym, n.type)
        return n

    def rewrite(stmts: list) -> list:
        out = []
        for s in stmts:
            if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym in which:
                w = _which(s.value, params, which)
                assert w is not None
                out.append(Assign(s.coord, Var(T.INT, which[s.target.sym]), w))
                continue
            tgt = s.target if isinstance(s, Assign) else None
            q = None
            if isinstance(tgt, Unary) and tgt.op == "*" and isinstance(tgt.operand, Var):
                q = tgt.operand.sym
            elif isinstance(tgt, Index) and isinstance(tgt.base, Var) and fold_int(tgt.index) == 0:
                q = tgt.base.sym
            if q in which:  # *q = v: each lane stores through the parameter it holds
                map_stmt_exprs(s, f)  # (the value)
                value = s.value
                for k, prm in enumerate(params):
                    hit = Binary(T.INT, "==", Var(T.INT, which[q]), Const(T.INT, k, str(k)))
                    out.append(If(s.coord, hit, [Assign(s.coord, Unary(tgt.type, "*", Var(prm.type, prm)),
                                                        value)], []))
                continue
            rewrite_nested(s, rewrite)
            map_stmt_exprs(s, f)
            out.append(s)
        return out

    fn.body = rewrite(fn.body)
    used = {n.sym for s in walk_stmts(fn.body) for e in stmt_exprs(s) for n in e.walk() if isinstance(n, Var)}
    fn.locals = [s for s in fn.locals if s not in which or s in used]
