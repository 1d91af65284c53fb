"""Local arrays of structs at indexes that are not constants: one local array per scalar member.

``struct pt q[4]`` read and written as ``q[i].x`` and ``q[i].k`` becomes ``float q_x[4]`` and
``int q_k[4]`` (a structure of arrays, as ispc lays out varying arrays of structs), each then a
local array like any other (expand/passes/local_arrays.py: a row of lanes per element). A member
array is part of its member's array: ``float v[3]`` in ``q[4]`` is ``q_v[12]``, ``q[i].v[j]`` is
``q_v[i * 3 + j]``; a nested struct's members are members too (``q[i].c.r`` is ``q_c_r[i]``).

Runs once static helpers are inlined and after expand/passes/local_arrays.py has made the arrays of
structs read only at constant indexes one struct per element. An array is split when

* its elements are structs (not unions) of integers, floating-point values, structs and arrays of
  those (expand/passes/struct_fields.py's test), at most ``MAX_MEMBERS`` arrays in all;
* every use names a scalar member of an element (``q[i].x``, ``q[i].v[j]``), or copies a whole
  element or struct member: ``q[i] = s``, ``s = q[j]``, ``q[i] = q[j]``, the declaration's brace
  initializer (``ir.Aggregate``: the members it names, zero elsewhere), ``q[i].c = s.c``, a struct
  read from memory (``q[i] = tab[k]``) or, without padding, written to it (``*out = q[i]``).

A copy of a whole struct is a copy of each scalar member (at the same index: an index expression
is evaluated once per member, as the frontends leave no calls in it). Any other use (``&q[i]``,
``q`` passed to a call) leaves the array whole, and lower.py says why it cannot be vectorized.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from expand.ir import types as T
from expand.ir.nodes import (
    Aggregate,
    Assign,
    Binary,
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
    as_type,
    is_local_array,
    map_stmt_exprs,
    path_root,
    stmt_exprs,
    walk_stmts,
)
from expand.ir.visitor import rewrite_nested
from expand.passes.fold import fold_expr
from expand.passes.struct_fields import member_copies, member_part, members_ok, padded

#: the most member arrays one array of structs may become
MAX_MEMBERS = 32

Names = tuple[str, ...]  # the member names from the element to a scalar (or to an array of scalars)


@dataclass(frozen=True)
class _Member:
    """One member array: the new local (the array's length times ``per`` elements) and the member's
    array dimensions inside an element."""

    sym: Symbol
    dims: tuple[int, ...]

    @property
    def per(self) -> int:
        """The member's scalars in one element."""
        return prod(self.dims)


def soa_members(t: T.CType, names: Names = (), dims: tuple[int, ...] = ()) -> list[tuple[Names, tuple[int, ...],
                                                                                        T.CType]]:
    """(names, dims, scalar type) of each member array of an array of struct ``t`` (arrays inside it
    add dimensions, nested structs names)."""
    if isinstance(t, T.Array):
        return soa_members(t.elem, names, (*dims, t.length or 0))
    if isinstance(t, T.Record):
        return [m for name, ft in t.fields for m in soa_members(ft, (*names, name), dims)]
    return [(names, dims, t)]


def split_struct_arrays(fn: Function) -> None:
    """Replace each splittable local array of structs of ``fn`` by one local array per scalar member."""
    candidates = {s for s in fn.locals if is_local_array(s) and isinstance(s.type.elem, T.Record)
                  and s.type.length and members_ok(s.type.elem)
                  and len(soa_members(s.type.elem)) <= MAX_MEMBERS}
    for s in walk_stmts(fn.body):
        candidates -= _misused(s, candidates)
    if not candidates:
        return
    names = NameMaker(fn)
    members: dict[tuple[Symbol, Names], _Member] = {}
    for arr in [s for s in fn.locals if s in candidates]:
        new = []
        for mnames, dims, t in soa_members(arr.type.elem):
            sym = Symbol(names.fresh("_".join((arr.name, *mnames))), T.Array(t, arr.type.length * prod(dims)),
                         "local", arr.coord, temp=arr.temp)
            members[arr, mnames] = _Member(sym, dims)
            new.append(sym)
        i = fn.locals.index(arr)
        fn.locals[i:i + 1] = new
    _Rewrite(members, names).run(fn)


# ----------------------------------------------------------------------------- accesses


def _access(e: Expr) -> tuple[Symbol, Expr, tuple[str | Expr, ...]] | None:
    """(array, index, steps) when ``e`` is ``q[i]`` followed by members and array indexes
    (``q[i].v[j]``: steps ``("v", j)``) of a local array of structs ``q``."""
    steps: list[str | Expr] = []
    while True:
        if isinstance(e, Member) and not e.arrow:
            steps.append(e.name)
            e = e.base
        elif isinstance(e, Index) and isinstance(e.base.type, T.Array):
            if isinstance(e.base, Var):
                if is_local_array(e.base.sym) and isinstance(e.base.sym.type.elem, T.Record):
                    return e.base.sym, e.index, tuple(reversed(steps))
                return None
            steps.append(e.index)
            e = e.base
        else:
            return None


def _memory(e: Expr) -> bool:
    """A struct in memory that can be read or written member by member (``tab[i]``, ``p->s``, ``*p``,
    a global, or a member of one of those), not a local array of structs."""
    while isinstance(e, Member) and not e.arrow:
        e = e.base
    if isinstance(e, Var):
        return e.sym.kind == "global"
    if isinstance(e, Index):
        return _access(e) is None and not (isinstance(path_root(e), Var) and path_root(e).sym.kind == "local")
    return isinstance(e, Member) or isinstance(e, Unary) and e.op == "*"


def _local_struct(e: Expr) -> bool:
    """A local struct or a struct member of one (``s``, ``s.c``): expand/passes/struct_fields.py
    splits or records.py keeps it; either reads and writes its members."""
    r = path_root(e)
    return isinstance(r, Var) and r.sym.kind in ("local", "param") and not isinstance(r.sym.type, T.Array)


def _misused(s: Stmt, candidates: set[Symbol]) -> set[Symbol]:
    """The candidates statement ``s`` uses in a way the split cannot express."""
    ok: set[int] = set()  # the Var nodes of candidates in an accepted position
    if isinstance(s, Assign) and isinstance(s.target.type, T.Record):
        ta, va = _access(s.target), _access(s.value)
        ours_t = ta is not None and ta[0] in candidates
        ours_v = va is not None and va[0] in candidates
        if ours_t and (ours_v or isinstance(s.value, Aggregate) or _memory(s.value) or _local_struct(s.value)):
            ok.add(id(path_root(s.target)))
            if ours_v:
                ok.add(id(path_root(s.value)))
        elif ours_v and (_local_struct(s.target) or _memory(s.target) and not padded(s.target.type)):
            ok.add(id(path_root(s.value)))
    bad: set[Symbol] = set()
    for e in stmt_exprs(s):
        for n in e.walk():
            if isinstance(n, (Member, Index)) and not isinstance(n.type, (T.Record, T.Array)):
                a = _access(n)
                if a is not None and a[0] in candidates:
                    ok.add(id(path_root(n)))
        for n in e.walk():
            if isinstance(n, Var) and n.sym in candidates and id(n) not in ok:
                bad.add(n.sym)
    return bad


# ----------------------------------------------------------------------------- the rewrite


class _Rewrite:
    """Scalar members of split arrays become elements of their member arrays; whole copies become one
    copy per scalar member."""

    def __init__(self, members: dict[tuple[Symbol, Names], _Member], names: NameMaker) -> None:
        self.members = members
        self.names = names
        self.split = {sym for sym, _ in members}

    def run(self, fn: Function) -> None:
        fn.body = self.stmts(fn.body)

    def stmts(self, stmts: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for s in stmts:
            rewrite_nested(s, self.stmts)
            if isinstance(s, Assign) and isinstance(s.target.type, T.Record) \
                    and (self._ours(s.target) or self._ours(s.value)):
                out.extend(self.copy(s))
                continue
            map_stmt_exprs(s, self.member)
            out.append(s)
        return out

    def _ours(self, e: Expr) -> bool:
        a = _access(e)
        return a is not None and a[0] in self.split

    def member(self, n: Expr) -> Expr:
        """``q[i].v[j]`` of a split array: ``q_v[i * 3 + j]`` (its indexes rewritten first: map_expr
        works bottom up)."""
        if isinstance(n, (Member, Index)) and not isinstance(n.type, (T.Record, T.Array)):
            a = _access(n)
            if a is not None and a[0] in self.split:
                return self.element(*a)
        return n

    def element(self, arr: Symbol, index: Expr, steps: tuple[str | Expr, ...]) -> Expr:
        names = tuple(st for st in steps if isinstance(st, str))
        inner = [st for st in steps if not isinstance(st, str)]
        m = self.members[arr, names]
        assert len(inner) == len(m.dims)
        flat = _scaled(index, m.per)
        stride = m.per
        for ix, d in zip(inner, m.dims):
            stride //= d
            flat = Binary(T.INT, "+", flat, _scaled(ix, stride))
        elem = m.sym.type.elem
        return Index(elem, Var(m.sym.type, m.sym), fold_expr(flat))

    def copy(self, s: Assign) -> list[Stmt]:
        """A copy of a struct to or from an element of a split array: one assignment per scalar member,
        in the order of one copy (expand/passes/struct_fields.py ``member_copies``: ``q[i] = q[q[i].n]``
        reads ``q[i].n`` once, first)."""
        return member_copies(s, self.part, self.member, self.names)

    def part(self, e: Expr, path: tuple[str | int, ...], t: T.CType) -> Expr:
        """Member ``path`` of struct-valued ``e`` (an element's: rewritten by ``member`` after)."""
        return member_part(e, path, t, self.part)


def _scaled(e: Expr, k: int) -> Expr:
    """``e * k`` as an int (``e`` when k is 1)."""
    e = as_type(e, T.INT)
    return e if k == 1 else Binary(T.INT, "*", e, Const(T.INT, k, str(k)))
