"""Local structs as one variable per field: ``ray r`` becomes ``r_org_x``, ``r_org_y``, ... (ispc's
varying structs: once vectorized, a struct of vectors, one per field).

Runs once static helpers are inlined (expand/passes/inline.py), so that a helper's struct parameters
and its struct result are plain locals of the caller, and a pointer to the caller's struct
(``ray_sphere_intersect(&is, &r, ...)``) is the struct itself. A local struct is split when

* its type is a struct (not a union) whose members are integers, floating-point values or structs
  of those, at any depth (no arrays, no unions: those keep their bytes, expand/passes/records.py);
* every use names a scalar member (``r.org.x``, read or written), or copies the whole struct or a
  struct member: ``a = b``, ``r.dir = v``, a declaration or brace initializer (``ir.Aggregate``: the
  members it names, zero elsewhere, as records.py), a struct read from memory (``s = tab[i]``,
  ``v = p->center``) or written to it (``*out = s``).

A copy of a whole struct is a copy of each scalar member. A struct used any other way (its address
after inlining, a call argument, ``?:`` of structs, a union member, the function's result) is left
whole to records.py, which holds it as words of bits or says why it cannot.
"""

from __future__ import annotations

from expand.ir import types as T
from expand.ir.nodes import (
    Aggregate,
    Assign,
    Const,
    Expr,
    Function,
    Index,
    Loop,
    Member,
    NameMaker,
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

Path = tuple[str, ...]


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
        new = [Symbol(names.fresh("_".join((sym.name, *path))), t, "local", sym.coord, temp=sym.temp)
               for path, t in leaves(sym.type)]
        for (path, _), f in zip(leaves(sym.type), new):
            fields[sym, path] = f
        i = fn.locals.index(sym)
        fn.locals[i:i + 1] = new
    _Rewrite(fields).run(fn)


def leaves(t: T.CType, prefix: Path = ()) -> list[tuple[Path, T.CType]]:
    """The scalar members of struct type ``t`` (nested structs' members too), with their paths."""
    if not isinstance(t, T.Record):
        return [(prefix, t)]
    out: list[tuple[Path, T.CType]] = []
    for name, ft in t.fields:
        out.extend(leaves(ft, (*prefix, name)))
    return out


def _splittable(t: T.CType) -> bool:
    if not isinstance(t, T.Record) or t.is_union or not t.complete or not t.fields:
        return False
    return all(name and (_splittable(ft) or isinstance(ft, (T.Int, T.Float))) for name, ft in t.fields)


def _padded(t: T.CType) -> bool:
    """Struct ``t`` has bytes no scalar member covers."""
    return sum(ft.size() for _, ft in leaves(t)) != t.size()


def _path(e: Expr) -> tuple[Symbol, Path] | None:
    """(local, member path) when ``e`` is ``v`` or ``v.a.b`` of a local variable ``v``."""
    names: list[str] = []
    while isinstance(e, Member) and not e.arrow:
        names.append(e.name)
        e = e.base
    if isinstance(e, Var) and e.sym.kind == "local":
        return e.sym, tuple(reversed(names))
    return None


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
            ok.add(id(_root(s.target)))
            if ours_v:
                ok.add(id(_root(s.value)))
            if isinstance(s.value, Aggregate):  # (members given as whole structs: ``ray r = {o, d}``)
                ok.update(id(_root(v)) for _, v in s.value.items if _is_record(v) and _path(v) is not None)
        elif ours_v and _memory(s.target) and not _padded(s.target.type):
            ok.add(id(_root(s.value)))  # (with padding, C's copy writes bytes the members do not: records.py)
    for e in stmt_exprs(s):
        for n in e.walk():
            if isinstance(n, Member) and not n.arrow and not _is_record(n):
                p = _path(n)
                if p is not None and p[0] in candidates:
                    ok.add(id(_root(n)))
        for n in e.walk():
            if isinstance(n, Var) and n.sym in candidates and id(n) not in ok:
                bad.add(n.sym)
    return bad


def _root(e: Expr) -> Expr:
    while isinstance(e, Member) and not e.arrow:
        e = e.base
    return e


def _zero(t: T.CType) -> Const:
    if isinstance(t, T.Float):
        return Const(t, 0.0, "0.0f" if t.bits == 32 else "0.0")
    return Const(t, 0, "0")


class _Rewrite:
    """Members of split structs become their variables; whole copies become one copy per member."""

    def __init__(self, fields: dict[tuple[Symbol, Path], Symbol]) -> None:
        self.fields = fields
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
            map_stmt_exprs(s, self.member)
            if isinstance(s, Loop) and s.cond is not None:
                s.cond = map_expr(s.cond, self.member)
            out.append(s)
        return _drop_overwritten(out, self.declared)

    def _ours(self, *es: Expr) -> bool:
        return any((p := _path(e)) is not None and p[0] in self.split for e in es)

    def member(self, n: Expr) -> Expr:
        if isinstance(n, Member) and not n.arrow and not _is_record(n):
            p = _path(n)
            if p is not None and p[0] in self.split:
                f = self.fields[p]
                return Var(f.type, f)
        return n

    def copy(self, s: Assign) -> list[Stmt]:
        """``a = b`` of structs: one assignment per scalar member (the value's members read first
        would only matter for overlapping copies, which two distinct paths of locals never are; a
        copy of a struct onto itself is skipped)."""
        if _path(s.target) is not None and _path(s.target) == _path(s.value):
            return []
        out: list[Stmt] = []
        for path, t in leaves(s.target.type):
            value = map_expr(self.part(s.value, path, t), self.member)
            out.append(Assign(s.coord, self.part(s.target, path, t), value))
        if isinstance(s.value, Aggregate) and not s.value.items:
            self.declared.update(id(a) for a in out)
        return out

    def part(self, e: Expr, path: Path, t: T.CType) -> Expr:
        """Member ``path`` of struct-valued ``e``."""
        p = _path(e)
        if p is not None and p[0] in self.split:
            f = self.fields[p[0], p[1] + path]
            return Var(f.type, f)
        if isinstance(e, Aggregate):
            for ipath, v in e.items:
                if ipath == path:
                    return v
                if path[:len(ipath)] == ipath and _is_record(v):
                    return self.part(v, path[len(ipath):], t)
            return _zero(t)
        out = e
        for k, name in enumerate(path):
            rec = out.type
            assert isinstance(rec, T.Record)
            ft = rec.field_type(name)
            assert ft is not None
            if k == 0 and isinstance(out, Unary) and out.op == "*":
                out = Member(ft, out.operand, name, True)
            else:
                out = Member(ft, out, name, False)
        return out


def _drop_overwritten(out: list[Stmt], declared: set[int]) -> list[Stmt]:
    """``out`` without the declarations' zero stores that later assignments of the same list
    overwrite before any statement reads the variable or branches (``isect is; is.t = 1e17f;``)."""
    keep: list[Stmt] = []
    for i, s in enumerate(out):
        if id(s) in declared and isinstance(s, Assign) and isinstance(s.target, Var):
            v = s.target.sym
            dead = False
            for later in out[i + 1:]:
                if not isinstance(later, Assign) or v in _reads(later):
                    break
                if isinstance(later.target, Var) and later.target.sym is v:
                    dead = True
                    break
            if dead:
                continue
        keep.append(s)
    return keep


def _reads(s: Assign) -> set[Symbol]:
    vs = {n.sym for n in s.value.walk() if isinstance(n, Var)}
    if not isinstance(s.target, Var):
        vs |= {n.sym for n in s.target.walk() if isinstance(n, Var)}
    return vs
