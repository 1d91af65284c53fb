"""Brace initializers, shared by both frontends: designators (``.f =``, ``[i] =``, GNU ``[i ... j] =``),
brace elision and nested lists, as C11 6.7.9 reads them.

A frontend hands ``flatten`` a list's items (``Item``: its designators and its value, a frontend node)
and two callbacks: ``items(node)`` (the items of a nested brace list, or None when ``node`` is an
expression) and ``value(node)`` (the expression's IR, read once). The result is the subobjects the
list initializes, in order, each as a path (member names and array indexes) and its value converted
to the subobject's type (a struct or union subobject may take a whole value of its type); what no
path names is zero. ``nest`` turns that into the nested lists of a static initializer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from expand.ir import types as T
from expand.ir.diagnostics import error
from expand.ir.nodes import Call, Coord, Expr, zero_const


@dataclass
class Designator:
    """``.field`` (``field``) or ``[index]`` / ``[index ... last]`` (``index``, ``last``)."""

    coord: Coord | None
    field: str | None = None
    index: int | None = None
    last: int | None = None


@dataclass
class Item:
    designators: list[Designator]
    value: object  # a frontend node: an expression or a nested brace list
    coord: Coord | None


Path = tuple[str | int, ...]


def _count(t: T.CType) -> int | None:
    if isinstance(t, T.Record):
        return len(t.fields)
    assert isinstance(t, T.Array)
    return t.length


def _sub(t: T.CType, i: int) -> tuple[str | int, T.CType]:
    if isinstance(t, T.Record):
        name, ft = t.fields[i]
        return name, ft
    assert isinstance(t, T.Array)
    return i, t.elem


def _aggregate(t: T.CType) -> bool:
    return isinstance(t, (T.Record, T.Array))


def flatten(t: T.CType, items: list[Item], coord: Coord | None, read_items: Callable[[object], list[Item] | None],
            value: Callable[[object], Expr], convert: Callable[[Expr, T.CType], Expr]) \
        -> tuple[list[tuple[Path, Expr]], int]:
    """The subobjects a brace list ``items`` for an object of type ``t`` initializes (path, value), and
    the number of elements it gives an array (the length of ``t[]``)."""
    out: list[tuple[Path, Expr]] = []
    n = _braced(t, (), items, coord, read_items, value, convert, out)
    return out, n


def _braced(t: T.CType, path: Path, items: list[Item], coord: Coord | None, read_items, value, convert,
            out: list[tuple[Path, Expr]]) -> int:
    if not items:
        raise error(coord, "an empty initializer '{}' is not supported", "write the value: = {0}")
    if not _aggregate(t):  # int x = {v}; (braces around a scalar)
        it = items[0]
        if it.designators:
            raise error(it.designators[0].coord, f"a designator in the initializer of a '{t}'")
        if len(items) > 1:
            raise error(items[1].coord, "excess elements in a scalar initializer")
        sub = read_items(it.value)
        if sub is not None:
            return _braced(t, path, sub, it.coord, read_items, value, convert, out)
        out.append((path, convert(value(it.value), t)))
        return 1
    stack: list[list] = [[t, 0, path]]  # the aggregates being filled: type, next position, path
    hi = 0
    for it in items:
        last: int | None = None
        if it.designators:
            del stack[1:]
            for k, d in enumerate(it.designators):
                ft, _, fpath = stack[-1]
                pos = _designate(ft, d)
                stack[-1][1] = pos
                if d.last is not None:
                    if k != len(it.designators) - 1:
                        raise error(d.coord, "a range designator followed by another designator is not supported")
                    last = d.last
                if k < len(it.designators) - 1:
                    key, st = _sub(ft, pos)
                    if not _aggregate(st):
                        raise error(it.designators[k + 1].coord, f"designator into '{st}', which is not a struct, "
                                    "union or array")
                    stack.append([st, 0, (*fpath, key)])
        while True:  # the subobject this item initializes (leaving aggregates that are full)
            ft, pos, fpath = stack[-1]
            cnt = _count(ft)
            if cnt is not None and pos >= cnt:
                if len(stack) == 1:
                    raise error(it.coord, "excess elements in the initializer")
                stack.pop()
                _advance(stack[-1])
                continue
            break
        key, st = _sub(ft, pos)
        sub_items = read_items(it.value)
        keys = [key] if last is None else list(range(pos, last + 1))
        if last is not None and (not isinstance(ft, T.Array) or (ft.length is not None and last >= ft.length)):
            raise error(it.coord, "array index range in the initializer exceeds the array bounds")
        if sub_items is not None:
            if last is not None:
                raise error(it.coord, "a range designator with a brace list is not supported")
            _braced(st, (*fpath, key), sub_items, it.coord, read_items, value, convert, out)
        else:
            v = value(it.value)
            while _aggregate(st) and v.type is not st:  # brace elision: the first scalar inside
                if last is not None:
                    raise error(it.coord, "a range designator of an aggregate element is not supported")
                if isinstance(st, T.Array) and isinstance(st.elem, T.Int) and st.elem.bits == 8 \
                        and isinstance(v.type, T.Pointer):
                    raise error(it.coord, "a string initializing a char array is not supported")
                if not _count(st):
                    raise error(it.coord, f"cannot initialize '{st}' from '{v.type}'")
                stack.append([st, 0, (*fpath, key)])
                ft, fpath = st, (*fpath, key)
                key, st = _sub(st, 0)
                keys = [key]
            if last is not None and any(isinstance(x, Call) for x in v.walk()):
                raise error(it.coord, "a range designator whose value calls a function is not supported",
                            "assign the call's result to a variable first")
            cv = v if _aggregate(st) else convert(v, st)
            for k2 in keys:
                out.append(((*fpath, k2), cv))
        if last is not None:
            stack[-1][1] = last
        _advance(stack[-1])
        hi = max(hi, stack[0][1] + (1 if len(stack) > 1 else 0))
    return hi


def _advance(frame: list) -> None:
    t = frame[0]
    frame[1] = len(t.fields) if isinstance(t, T.Record) and t.is_union else frame[1] + 1


def _designate(t: T.CType, d: Designator) -> int:
    if d.field is not None:
        if not isinstance(t, T.Record):
            raise error(d.coord, f"field designator '.{d.field}' in the initializer of '{t}', which is not a struct "
                        "or union")
        for i, (name, _) in enumerate(t.fields):
            if name == d.field:
                return i
        raise error(d.coord, f"no member named '{d.field}' in '{t}'")
    if not isinstance(t, T.Array):
        raise error(d.coord, f"array designator in the initializer of '{t}', which is not an array")
    assert d.index is not None
    if d.index < 0 or (t.length is not None and d.index >= t.length) or (d.last is not None and d.last < d.index):
        raise error(d.coord, f"array designator index {d.index} is out of the bounds of '{t}'")
    return d.index


def zero(t: T.CType):
    """The static initializer of an object of type ``t`` that is all zero."""
    if isinstance(t, T.Array):
        return [zero(t.elem)]
    if isinstance(t, T.Record):
        return [zero(t.fields[0][1])] if t.fields else []
    return zero_const(t)


class UnionInit(dict):
    """A union's static initializer naming a member other than the first: ``{.name = value}``."""


def nest(t: T.CType, entries: list[tuple[Path, Expr]]):
    """The nested lists of a static initializer from ``flatten``'s entries: each aggregate's list runs
    to its last initialized element (the gaps zero), a union names its member when it is not the
    first (``UnionInit``)."""
    if entries and entries[-1][0] == ():
        return entries[-1][1]
    groups: dict[str | int, list[tuple[Path, Expr]]] = {}
    for path, v in entries:
        if not path:  # a whole value, then members: the members win where they overlap (not kept here)
            continue
        groups.setdefault(path[0], []).append((path[1:], v))
    if isinstance(t, T.Record) and t.is_union:
        key = entries[-1][0][0]
        ft = t.field_type(str(key))
        sub = nest(ft, [(p, v) for p, v in groups[key] if True]) if ft is not None else zero(t)
        return [sub] if t.fields[0][0] == key else UnionInit({key: sub})
    if isinstance(t, T.Record):
        names = [n for n, _ in t.fields]
        top = max((names.index(k) for k in groups), default=-1)
        return [nest(t.fields[i][1], groups[names[i]]) if names[i] in groups else zero(t.fields[i][1])
                for i in range(top + 1)]
    assert isinstance(t, T.Array)
    top = max((int(k) for k in groups), default=-1)
    return [nest(t.elem, groups[i]) if i in groups else zero(t.elem) for i in range(top + 1)]
