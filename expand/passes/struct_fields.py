"""Local structs as one variable per field: ``ray r`` becomes ``r_org_x``, ``r_org_y``, ... (ispc's
varying structs: once vectorized, a struct of vectors, one per field).

Runs once static helpers are inlined (expand/passes/inline.py), so that a helper's struct parameters
and its struct result are plain locals of the caller, and a pointer to the caller's struct
(``ray_sphere_intersect(&is, &r, ...)``) is the struct itself. A local struct is split when

* its type is a struct (not a union) whose members are integers, floating-point values, structs
  and arrays of those, at any depth, at most ``MAX_LEAVES`` scalars in all (unions keep their
  bytes: expand/passes/records.py);
* every use names a scalar member (``r.org.x``, ``r.dirIsNeg[1]``: one variable, ``r_dirIsNeg_1``;
  ``r.dirIsNeg[axis]`` at an index that is not a constant: a select among the elements, and a store
  there is a store to each element the index may name, kept where the index is another), or
  copies the whole struct or a
  struct member: ``a = b``, ``r.dir = v``, a declaration or brace initializer (``ir.Aggregate``: the
  members it names, zero elsewhere, as records.py), a struct read from memory (``s = tab[i]``,
  ``v = p->center``) or written to it (``*out = s``).

A copy of a whole struct is a copy of each scalar member, in an order that does what C's one copy
does (``member_copies``): an index in the target's or the value's path that reads what the copy
writes (``s = tab[s.n]``) is computed once, first, and a member's value that reads a member an
earlier one writes (``s = (v2){s.y, s.x}``) is read into a temporary before the first write.

A struct used any other way (its address after inlining, a call argument, ``?:`` of structs, a union
member, the function's result) is left whole to records.py, which holds it as words of bits or says
why it cannot.
"""

from __future__ import annotations

from collections.abc import Callable

from expand.ir import types as T
from expand.ir.nodes import (
    Aggregate,
    Assign,
    Binary,
    Cond,
    Const,
    Expr,
    Function,
    Index,
    Member,
    NameMaker,
    Stmt,
    Symbol,
    Unary,
    Var,
    map_expr,
    map_stmt_exprs,
    path_root,
    stmt_exprs,
    walk_stmts,
    zero_const,
)
from expand.ir.visitor import rewrite_nested
from expand.passes.fold import fold_int
from expand.passes.records import drop_overwritten

Path = tuple[str | int, ...]  # member names and constant array indexes, from the struct
Step = str | Expr  # a member name, or an array index (an expression) in an access

#: the most scalars a split struct may have (each is a variable)
MAX_LEAVES = 64


def split_structs(fn: Function) -> None:
    """Replace each splittable local struct of ``fn`` by one local per scalar member (module docstring)."""
    candidates = {s for s in fn.locals if s.kind == "local" and _splittable(s.type)}
    if not candidates:
        return
    for s in walk_stmts(fn.body):
        candidates -= _misused(s, candidates)
        if not candidates:
            return
    names = NameMaker(fn)
    fields: dict[tuple[Symbol, Path], Symbol] = {}
    for sym in [s for s in fn.locals if s in candidates]:
        new = [Symbol(names.fresh("_".join((sym.name, *map(str, path)))), t, "local", sym.coord, temp=sym.temp)
               for path, t in leaves(sym.type)]
        for (path, _), f in zip(leaves(sym.type), new):
            fields[sym, path] = f
        i = fn.locals.index(sym)
        fn.locals[i:i + 1] = new
    _Rewrite(fields, names).run(fn)


def leaves(t: T.CType, prefix: Path = ()) -> list[tuple[Path, T.CType]]:
    """The scalar members of struct type ``t`` (nested structs' members and arrays' elements too),
    with their paths."""
    if isinstance(t, T.Array):
        return [leaf for k in range(t.length or 0) for leaf in leaves(t.elem, (*prefix, k))]
    if not isinstance(t, T.Record):
        return [(prefix, t)]
    out: list[tuple[Path, T.CType]] = []
    for name, ft in t.fields:
        out.extend(leaves(ft, (*prefix, name)))
    return out


def _splittable(t: T.CType) -> bool:
    return members_ok(t) and len(leaves(t)) <= MAX_LEAVES


def members_ok(t: T.CType) -> bool:
    if isinstance(t, T.Array):
        return bool(t.length) and (isinstance(t.elem, (T.Int, T.Float)) or members_ok(t.elem))
    if not isinstance(t, T.Record) or t.is_union or not t.complete or not t.fields:
        return False
    return all(name and (members_ok(ft) or isinstance(ft, (T.Int, T.Float))) for name, ft in t.fields)


def padded(t: T.CType) -> bool:
    """Struct ``t`` has bytes no scalar member covers."""
    return sum(ft.size() for _, ft in leaves(t)) != t.size()


def _access(e: Expr) -> tuple[Symbol, tuple[Step, ...]] | None:
    """(local, steps) when ``e`` is ``v``, ``v.a.b`` or ``v.a[i].b`` of a local variable ``v``."""
    steps: list[Step] = []
    while isinstance(e, Member) and not e.arrow or isinstance(e, Index) and isinstance(e.base.type, T.Array):
        steps.append(e.name if isinstance(e, Member) else e.index)
        e = e.base
    if isinstance(e, Var) and e.sym.kind == "local" and not isinstance(e.sym.type, T.Array):
        return e.sym, tuple(reversed(steps))
    return None


def _constant(steps: tuple[Step, ...]) -> Path | None:
    """The path of ``steps`` when every index in them is a constant."""
    out: list[str | int] = []
    for st in steps:
        if isinstance(st, str):
            out.append(st)
        elif (k := fold_int(st)) is not None:
            out.append(k)
        else:
            return None
    return tuple(out)


def _path(e: Expr) -> tuple[Symbol, Path] | None:
    """(local, path) when ``e`` is ``v``, ``v.a.b`` or ``v.a[2].b`` of a local ``v`` (constant indexes)."""
    a = _access(e)
    if a is None:
        return None
    p = _constant(a[1])
    return None if p is None else (a[0], p)


def _is_record(e: Expr) -> bool:
    return isinstance(e.type, T.Record)


def _memory(e: Expr) -> bool:
    """A struct in memory that can be read or written member by member: ``tab[i]``, ``p->s``,
    ``*p``, a global, or a member of one of those."""
    while isinstance(e, Member) and not e.arrow:
        e = e.base
    if isinstance(e, Var):
        return e.sym.kind == "global"
    return isinstance(e, (Index, Member)) or isinstance(e, Unary) and e.op == "*"


def _misused(s: Stmt, candidates: set[Symbol]) -> set[Symbol]:
    """The candidates statement ``s`` uses in a way the split cannot express."""
    ok: set[int] = set()  # the Var nodes of candidates in an accepted position
    bad: set[Symbol] = set()
    if isinstance(s, Assign) and _is_record(s.target):
        tp, vp = _path(s.target), _path(s.value)
        ours_t = tp is not None and tp[0] in candidates
        ours_v = vp is not None and vp[0] in candidates
        if ours_t and (ours_v or isinstance(s.value, Aggregate) or _memory(s.value)):
            ok.add(id(path_root(s.target)))
            if ours_v:
                ok.add(id(path_root(s.value)))
            if isinstance(s.value, Aggregate):  # (members given as whole structs: ``ray r = {o, d}``)
                ok.update(id(path_root(v)) for _, v in s.value.items if _is_record(v) and _path(v) is not None)
        elif ours_v and _memory(s.target) and not padded(s.target.type):
            ok.add(id(path_root(s.value)))  # (with padding, C's copy writes bytes the members do not: records.py)
    for e in stmt_exprs(s):
        for n in e.walk():
            if _scalar_access(n):
                a = _access(n)
                if a is not None and a[0] in candidates:
                    ok.add(id(path_root(n)))
        for n in e.walk():
            if isinstance(n, Var) and n.sym in candidates and id(n) not in ok:
                bad.add(n.sym)
    return bad


def _scalar_access(n: Expr) -> bool:
    """``n`` names a scalar member or element (``v.a``, ``v.a[i]``), not a struct or array."""
    return isinstance(n, (Member, Index)) and not (isinstance(n, Member) and n.arrow) \
        and not isinstance(n.type, (T.Record, T.Array))


# ----------------------------------------------------------------------------- copies in C's order


def _reads_memory(e: Expr) -> bool:
    return any(isinstance(n, Unary) and n.op == "*" or isinstance(n, Member) and n.arrow
               or isinstance(n, Index) and isinstance(n.base.type, T.Pointer)
               or isinstance(n, Var) and n.sym.kind == "global" for n in e.walk())


def _hoist_indexes(s: Assign, names: NameMaker) -> list[Assign]:
    """Before struct copy ``s`` becomes one copy per member: each index in the target's and the value's
    access paths that reads what the copy writes (the target's local, or memory when the target is in
    memory) is computed once into a temporary (``s = tab[s.n]``: ``s_idx = s.n``, then the members
    from ``tab[s_idx]``), as C evaluates them once, before the copy. ``s`` is changed in place; the
    temporaries' assignments are returned, to go first."""
    top = path_root(s.target)
    local = top.sym if isinstance(top, Var) and top.sym.kind != "global" else None

    def hazard(ix: Expr) -> bool:
        if local is not None:
            return any(isinstance(n, Var) and n.sym is local for n in ix.walk())
        return _reads_memory(ix)

    out: list[Assign] = []

    def walk(e: Expr) -> None:
        while isinstance(e, Member) and not e.arrow or isinstance(e, Index):
            if isinstance(e, Index) and fold_int(e.index) is None and hazard(e.index):
                base = path_root(e.base)
                tmp = names.local(f"{base.sym.name if isinstance(base, Var) else 'copy'}_idx", e.index.type, s.coord)
                out.append(Assign(s.coord, Var(tmp.type, tmp), e.index))
                e.index = Var(tmp.type, tmp)
            if isinstance(e, Index) and not isinstance(e.base.type, T.Array):
                return
            e = e.base

    walk(s.target)
    if not isinstance(s.value, Aggregate):
        walk(s.value)
    return out


def _written(e: Expr) -> Symbol | None:
    """The local a member copy's target writes: a variable, or a local array's element."""
    if isinstance(e, Var):
        return e.sym
    if isinstance(e, Index) and isinstance(e.base, Var) and e.base.sym.kind == "local":
        return e.base.sym
    return None


def _copy_in_order(s: Assign, first: list[tuple[Expr, Expr]], pairs: list[tuple[Expr, Expr]],
                   names: NameMaker) -> list[Stmt]:
    """The assignments of one struct copy ``s``: ``first`` (the hoisted indexes), then ``pairs``
    (target, value) of its members, where a value that reads a local an earlier pair writes is read
    into a temporary before the first write (``s = (v2){s.y, s.x}``: ``s_x_new = s_y ...``). Values
    in memory need none: C copies a struct onto an exactly overlapping one or a separate one."""
    out = [Assign(s.coord, t, v) for t, v in first]
    temps: list[Stmt] = []
    copies: list[Stmt] = []
    written: set[Symbol] = set()
    for t, v in pairs:
        if any(isinstance(n, Var) and n.sym in written for n in v.walk()):
            tmp = names.local(f"{_written(t).name if _written(t) else 'copy'}_new", v.type, s.coord)
            temps.append(Assign(s.coord, Var(tmp.type, tmp), v))
            v = Var(tmp.type, tmp)
        copies.append(Assign(s.coord, t, v))
        if (w := _written(t)) is not None:
            written.add(w)
    return out + temps + copies


def member_copies(s: Assign, part: Callable[[Expr, Path, T.CType], Expr], rewrite: Callable[[Expr], Expr],
                  names: NameMaker) -> list[Stmt]:
    """Struct copy ``s`` as one assignment per scalar member (``part(e, path, type)``: member ``path`` of
    either side; ``rewrite``: what the pass makes of an access), in the order of one copy: the indexes
    that read what the copy writes first (``_hoist_indexes``), then the members (``_copy_in_order``)."""
    first = [(map_expr(a.target, rewrite), map_expr(a.value, rewrite)) for a in _hoist_indexes(s, names)]
    pairs = [(map_expr(part(s.target, path, t), rewrite), map_expr(part(s.value, path, t), rewrite))
             for path, t in leaves(s.target.type)]
    return _copy_in_order(s, first, pairs, names)


def member_part(e: Expr, path: Path, t: T.CType, part: Callable[[Expr, Path, T.CType], Expr]) -> Expr:
    """Member ``path`` (names and constant indexes, of type ``t``) of struct-valued ``e``: an
    aggregate's item (``part`` of a nested struct item), zero where it names none, else the access
    (``e.a[1].b``, ``p->a`` for ``*p``)."""
    if isinstance(e, Aggregate):
        for ipath, v in e.items:
            if ipath == path:
                return v
            if path[:len(ipath)] == ipath and _is_record(v):
                return part(v, path[len(ipath):], t)
        return zero_const(t)
    out = e
    for k, name in enumerate(path):
        if isinstance(name, int):
            assert isinstance(out.type, T.Array)
            out = Index(out.type.elem, out, Const(T.INT, name, str(name)))
            continue
        rec = out.type
        assert isinstance(rec, T.Record)
        ft = rec.field_type(name)
        assert ft is not None
        if k == 0 and isinstance(out, Unary) and out.op == "*":
            out = Member(ft, out.operand, name, True)
        else:
            out = Member(ft, out, name, False)
    return out


class _Rewrite:
    """Members of split structs become their variables; whole copies become one copy per member."""

    def __init__(self, fields: dict[tuple[Symbol, Path], Symbol], names: NameMaker) -> None:
        self.fields = fields
        self.names = names
        self.split = {sym for sym, _ in fields}
        self.declared: set[int] = set()  # the zero stores of declarations (``isect is;``)

    def run(self, fn: Function) -> None:
        fn.body = self.stmts(fn.body)

    def stmts(self, stmts: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for s in stmts:
            rewrite_nested(s, self.stmts)
            if isinstance(s, Assign) and _is_record(s.target) and self._ours(s.target, s.value):
                out.extend(self.copy(s))
                continue
            a = _access(s.target) if isinstance(s, Assign) and _scalar_access(s.target) else None
            if a is not None and a[0] in self.split and _constant(a[1]) is None:
                out.extend(self.store_at(s, a[0], a[1]))
                continue
            map_stmt_exprs(s, self.member)
            out.append(s)
        return drop_overwritten(out, lambda s: id(s) in self.declared)

    def _ours(self, *es: Expr) -> bool:
        return any((p := _path(e)) is not None and p[0] in self.split for e in es)

    def member(self, n: Expr) -> Expr:
        if _scalar_access(n):
            a = _access(n)
            if a is not None and a[0] in self.split:
                choices = self.choices(a[0], a[1])
                out: Expr = Var(choices[-1][0].type, choices[-1][0])
                for f, cond in reversed(choices[:-1]):  # (a select per element the index may name)
                    out = Cond(n.type, cond, Var(f.type, f), out)
                return out
        return n

    def choices(self, sym: Symbol, steps: tuple[Step, ...]) -> list[tuple[Symbol, Expr | None]]:
        """The variables ``steps`` of ``sym`` may name, each with the condition under which it does
        (None: the only one). An index out of its array's bounds is C's undefined behaviour: there it
        names the last element."""
        out: list[tuple[Symbol, Expr | None]] = []
        for (s2, path), f in self.fields.items():
            if s2 is not sym or len(path) != len(steps):
                continue
            conds: list[Expr] = []
            for st, want in zip(steps, path):
                if isinstance(st, str) or fold_int(st) is not None:
                    if (st if isinstance(st, str) else fold_int(st)) != want:
                        break
                else:
                    conds.append(Binary(T.INT, "==", map_expr(st, self.member), Const(st.type, want, str(want))))
            else:
                cond = None
                for c in conds:
                    cond = c if cond is None else Binary(T.INT, "&&", cond, c)
                out.append((f, cond))
        assert out
        return out

    def store_at(self, s: Assign, sym: Symbol, steps: tuple[Step, ...]) -> list[Stmt]:
        """``v.a[i] = x`` at an index that is not a constant: each element ``i`` may name is ``x``
        where ``i`` names it and keeps its value elsewhere (``x`` is computed once, first)."""
        value = map_expr(s.value, self.member)
        out: list[Stmt] = []
        if not isinstance(value, (Var, Const)):
            tmp = self.names.local(f"{sym.name}_elem", s.target.type, s.coord)
            out.append(Assign(s.coord, Var(tmp.type, tmp), value))
            value = Var(tmp.type, tmp)
        for f, cond in self.choices(sym, steps):
            v = value if cond is None else Cond(f.type, cond, value, Var(f.type, f))
            out.append(Assign(s.coord, Var(f.type, f), v))
        return out

    def copy(self, s: Assign) -> list[Stmt]:
        """``a = b`` of structs: one assignment per scalar member, ordered as one copy
        (``member_copies``; a copy of a struct onto itself is skipped)."""
        if _path(s.target) is not None and _path(s.target) == _path(s.value):
            return []
        out = member_copies(s, self.part, self.member, self.names)
        if isinstance(s.value, Aggregate) and not s.value.items:
            self.declared.update(id(a) for a in out)
        return out

    def part(self, e: Expr, path: Path, t: T.CType) -> Expr:
        """Member ``path`` of struct-valued ``e``: a split struct's variable, else ``member_part``."""
        p = _path(e)
        if p is not None and p[0] in self.split:
            f = self.fields[p[0], p[1] + path]
            return Var(f.type, f)
        return member_part(e, path, t, self.part)
