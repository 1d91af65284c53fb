"""Statement semantics both frontends share: ``switch`` lowered to the IR's if/goto/label form, the
initializer of a local array, and the file-scope names of function-local ``static`` variables.

``switch`` never reaches the passes: a frontend reads the switch body as ordinary statements with
a ``CaseLabel`` marker where each ``case``/``default`` label stands, and hands it to
``lower_switch``. A switch whose sections do not fall through (each ends in ``break``, ``return``,
``goto`` or ``continue``, and no other ``break`` leaves it) becomes a chain of ``if``/``else``:
what a uniform controlling value keeps as plain branches (predication/uniform_branches.py) and a
varying one turns into masks. Any other switch (fallthrough, a ``break`` inside an ``if``, a label
inside a block) becomes forward jumps: ``if (v == c) goto case_c; ...; goto default;`` then the
body with each label in its place and each ``break`` a ``goto`` to the end, which the control-flow
graph (expand/analysis/cfg.py) and if-conversion already take as they take any forward ``goto``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from expand.ir import types as T
from expand.ir.diagnostics import error
from expand.ir.nodes import (
    Aggregate,
    Assign,
    Binary,
    Block,
    Break,
    Cast,
    Const,
    Continue,
    Coord,
    Expr,
    Function,
    Goto,
    If,
    Index,
    Label,
    Loop,
    Member,
    Module,
    Return,
    Stmt,
    Symbol,
    Var,
    init_exprs,
    zero_const,
)


@dataclass(eq=False)
class CaseLabel(Stmt):
    """A ``case lo:`` (``case lo ... hi:``) or ``default:`` label inside the switch being read;
    only between a frontend and ``lower_switch``."""

    lo: int = 0
    hi: int = 0
    default: bool = False


def _const(t: T.CType, v: int) -> Const:
    return Const(t, v, hex(v) if v > 255 else str(v))


def _reusable(e: Expr) -> bool:
    """The controlling value can be read again instead of kept in a temporary: a local or a parameter
    (nothing the switch's dispatch does can change it; a global could change in a per-lane call)."""
    while isinstance(e, Cast):
        e = e.operand
    return isinstance(e, Var) and e.sym.kind in ("local", "param")


def lower_switch(co: Coord, value: Expr, body: list[Stmt], number: int,
                 temp: Callable[[T.CType], Symbol]) -> list[Stmt]:
    """The statements of ``switch (value) { body }`` (``value`` already promoted; ``body`` holds
    ``CaseLabel`` markers). ``number`` makes the labels unique in the function (``__switchN_...``);
    ``temp(type)`` makes a local for a controlling value that cannot be read twice."""
    t = value.type
    if not isinstance(t, T.Int):
        raise error(co, f"the controlling expression of a 'switch' has type '{t}', not an integer type")
    pre: list[Stmt] = []
    if not _reusable(value):
        sym = temp(t)
        pre.append(Assign(co, Var(t, sym), value))
        value = Var(t, sym)
    labels = _labels(body, t)
    sections = _structured(body)
    if sections is not None:
        return pre + _if_chain(co, value, sections, t)
    return pre + _jumps(co, value, body, labels, number, t)


def _labels(body: list[Stmt], t: T.Int) -> list[CaseLabel]:
    """Every label of this switch in source order, values converted to ``t``; diagnoses duplicates,
    a second ``default`` and labels inside loops (Duff's device)."""
    out: list[CaseLabel] = []
    seen: list[tuple[int, int, CaseLabel]] = []
    default: CaseLabel | None = None

    def visit(stmts: list[Stmt], loop: Loop | None) -> None:
        nonlocal default
        for s in stmts:
            if isinstance(s, CaseLabel):
                kind = "default" if s.default else "case"
                if loop is not None:
                    raise error(s.coord, f"a '{kind}' label inside a loop in the 'switch' (Duff's device) is not "
                                "supported", "end the loop before the label, or write the dispatch with if/else")
                if s.default:
                    if default is not None:
                        raise error(s.coord, "multiple default labels in one switch",
                                    f"the first one is at {default.coord}")
                    default = s
                else:
                    s.lo, s.hi = t.wrap(s.lo), t.wrap(s.hi)
                    if s.lo <= s.hi:
                        for lo, hi, other in seen:
                            if s.lo <= hi and lo <= s.hi:
                                v = max(lo, s.lo)
                                raise error(s.coord, f"duplicate case value '{v}'",
                                            f"the previous one is at {other.coord}")
                        seen.append((s.lo, s.hi, s))
                out.append(s)
            elif isinstance(s, If):
                visit(s.then, loop)
                visit(s.els, loop)
            elif isinstance(s, Block):
                visit(s.body, loop)
            elif isinstance(s, Loop):
                visit(s.init, s)
                visit(s.body, s)
                visit(s.step, s)

    visit(body, None)
    return out


def _condition(value: Expr, labels: list[CaseLabel], t: T.Int) -> Expr | None:
    """``value == c || (value >= lo && value <= hi) || ...`` (None: no label can match)."""
    terms: list[Expr] = []
    for lab in labels:
        if lab.default or lab.lo > lab.hi:
            continue
        if lab.lo == lab.hi:
            terms.append(Binary(T.INT, "==", value, _const(t, lab.lo)))
        else:
            terms.append(Binary(T.INT, "&&", Binary(T.INT, ">=", value, _const(t, lab.lo)),
                                Binary(T.INT, "<=", value, _const(t, lab.hi))))
    if not terms:
        return None
    cond = terms[0]
    for x in terms[1:]:
        cond = Binary(T.INT, "||", cond, x)
    return cond


# ----------------------------------------------------------------------------- if/else chains


def _structured(body: list[Stmt]) -> list[tuple[list[CaseLabel], list[Stmt]]] | None:
    """The sections (labels, statements without their final ``break``) when the switch can be an
    if/else chain; None when it needs jumps."""
    sections: list[tuple[list[CaseLabel], list[Stmt]]] = []
    for s in body:
        if isinstance(s, CaseLabel):
            if sections and not sections[-1][1]:
                sections[-1][0].append(s)
            else:
                sections.append(([s], []))
        elif not sections:
            return None  # statements before the first label (jumped over)
        else:
            sections[-1][1].append(s)
    out = []
    for i, (labels, stmts) in enumerate(sections):
        last = i == len(sections) - 1
        stripped, ends = _strip_break(stmts)
        if not ends and not last:
            return None  # falls through into the next section
        if _has_switch_exit(stripped, labels_too=True):
            return None  # another break of the switch, or a label inside a block
        out.append((labels, stripped))
    return out


def _strip_break(stmts: list[Stmt]) -> tuple[list[Stmt], bool]:
    """``stmts`` without a final ``break``, and whether control never reaches their end."""
    if not stmts:
        return stmts, False
    last = stmts[-1]
    if isinstance(last, Break):
        return stmts[:-1], True
    if isinstance(last, (Return, Goto, Continue)):
        return stmts, True
    if isinstance(last, Block):
        inner, ends = _strip_break(last.body)
        return [*stmts[:-1], Block(last.coord, inner)], ends
    return stmts, False


def _has_switch_exit(stmts: list[Stmt], labels_too: bool) -> bool:
    """A ``break`` of the switch (not of a loop inside it), or a case label, inside ``stmts``."""
    for s in stmts:
        if isinstance(s, Break) or (labels_too and isinstance(s, CaseLabel)):
            return True
        if isinstance(s, If) and (_has_switch_exit(s.then, labels_too) or _has_switch_exit(s.els, labels_too)):
            return True
        if isinstance(s, Block) and _has_switch_exit(s.body, labels_too):
            return True
    return False


def _if_chain(co: Coord, value: Expr, sections: list[tuple[list[CaseLabel], list[Stmt]]], t: T.Int) -> list[Stmt]:
    default = next((stmts for labels, stmts in sections if any(lab.default for lab in labels)), [])
    tail: list[Stmt] = list(default)
    for labels, stmts in reversed(sections):
        if any(lab.default for lab in labels):
            continue
        cond = _condition(value, labels, t)
        if cond is None:
            continue  # only empty ranges: never entered
        tail = [If(labels[0].coord or co, cond, list(stmts), tail)]
    return tail


# ----------------------------------------------------------------------------- forward jumps


def _jumps(co: Coord, value: Expr, body: list[Stmt], labels: list[CaseLabel], number: int, t: T.Int) -> list[Stmt]:
    end = f"__switch{number}_end"
    names = {id(lab): f"__switch{number}_{'default' if lab.default else f'case{i}'}" for i, lab in enumerate(labels)}
    used_end = [False]

    def rewrite(stmts: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for s in stmts:
            if isinstance(s, CaseLabel):
                out.append(Label(s.coord, names[id(s)]))
            elif isinstance(s, Break):
                used_end[0] = True
                out.append(Goto(s.coord, end))
            elif isinstance(s, If):
                out.append(If(s.coord, s.cond, rewrite(s.then), rewrite(s.els), s.likely))
            elif isinstance(s, Block):
                out.append(Block(s.coord, rewrite(s.body)))
            else:
                out.append(s)  # (a loop's breaks are its own; _labels refused labels inside loops)
        return out

    new_body = rewrite(body)
    dispatch: list[Stmt] = []
    default = None
    for lab in labels:
        if lab.default:
            default = names[id(lab)]
            continue
        cond = _condition(value, [lab], t)
        if cond is not None:
            dispatch.append(If(lab.coord or co, cond, [Goto(lab.coord or co, names[id(lab)])], []))
    if default is None:
        used_end[0] = True
    dispatch.append(Goto(co, default or end))
    return [*dispatch, *new_body, *([Label(co, end)] if used_end[0] else [])]


# ----------------------------------------------------------------------------- local arrays


def array_initializer(co: Coord, sym: Symbol, values: list[Expr | None]) -> list[Stmt]:
    """``T a[N] = {v0, v1}``: one assignment per element, the elements without a value (None, or past
    the list) zero (C11 6.7.9p21). ``values`` are already converted to the element type."""
    t = sym.type
    assert isinstance(t, T.Array) and t.length is not None
    if len(values) > t.length:
        raise error(co, f"excess elements in the initializer of array '{sym.name}' ({len(values)} for "
                    f"{t.length})")
    elem = t.elem
    out: list[Stmt] = []
    for i in range(t.length):
        v = values[i] if i < len(values) and values[i] is not None else \
            Aggregate(elem, []) if isinstance(elem, T.Record) else zero_const(elem)
        out.append(Assign(co, Index(elem, Var(t, sym), Const(T.INT, i, str(i))), v))
    return out


def aggregate_initializer(co: Coord, sym: Symbol, entries: list[tuple[tuple, Expr]]) -> list[Stmt]:
    """A local array's, struct's or union's brace initializer, from the subobjects it names
    (``frontends/initializers.flatten``): an array's elements one by one (the rest zero); a struct or
    union as one ``Aggregate`` value (expand/passes/records.py), or a punning union (expand/passes/lower.py) by the
    member it names."""
    t = sym.type
    if isinstance(t, T.Array) and isinstance(t.elem, T.Record):  # (each element's members, as an Aggregate)
        items: dict[int, list[tuple[tuple, Expr]]] = {}
        for path, v in entries:
            items.setdefault(path[0], []).append((path[1:], v))
        return array_initializer(co, sym, [Aggregate(t.elem, items[i]) if i in items else None
                                           for i in range(max(items, default=-1) + 1)])
    if isinstance(t, T.Array):
        values: list[Expr | None] = []
        for path, v in entries:
            if len(path) != 1:
                raise error(co, f"the initializer of local array '{sym.name}' is not one value per element")
            values.extend([None] * (path[0] + 1 - len(values)))
            values[path[0]] = v
        return array_initializer(co, sym, values)
    assert isinstance(t, T.Record)
    if _punnable(t):
        return [Assign(co, Member(t.field_type(str(path[0])) or v.type, Var(t, sym), str(path[0])), v)
                for path, v in entries if len(path) == 1]
    return [Assign(co, Var(t, sym), Aggregate(t, entries))]


def record_declared(co: Coord, sym: Symbol) -> list[Stmt]:
    """What a local's declaration without an initializer does: a struct or union (but a punning union)
    is all zero bytes from here (C leaves them unspecified; expand/passes/records.py)."""
    t = sym.type
    if isinstance(t, T.Record) and not _punnable(t):
        return [Assign(co, Var(t, sym), Aggregate(t, []))]
    if isinstance(t, T.Array) and isinstance(t.elem, T.Record) and t.length:  # (each element, as one struct)
        return array_initializer(co, sym, [])
    return []


def local_record_check(co: Coord, name: str, t: T.Record, target: T.Target) -> None:
    """Refuse a local struct or union that expand cannot hold as its bits (expand/passes/records.py)."""
    if _punnable(t):
        return
    from expand.passes.records import record_problem
    why = record_problem(t, target.big_endian, layout=False)
    if why:
        raise error(co, f"local {'union' if t.is_union else 'struct'} '{name}' cannot be vectorized: {why}",
                    "expand's targets are little-endian" if target.big_endian else
                    "local structs and unions may hold integers, floating-point values and arrays, structs and "
                    "unions of them")


def compound_literal(co: Coord, t: T.CType, entries: list[tuple[tuple, Expr]], target: T.Target) -> Expr:
    """The value of compound literal ``(T){...}``: a scalar's converted value, a struct's or union's
    ``Aggregate`` (expand/passes/records.py)."""
    if isinstance(t, T.Record):
        from expand.passes.records import record_problem
        why = "" if _punnable(t) else record_problem(t, target.big_endian, layout=False)
        if why:
            raise error(co, f"this compound literal cannot be vectorized: {why}")
        return Aggregate(t, entries)
    if isinstance(t, T.Array):
        raise error(co, "compound literals of array type are not supported", "use a local array")
    if len(entries) != 1 or entries[0][0] != ():
        raise error(co, "this compound literal is not supported")
    return entries[0][1]


def _punnable(t: T.CType) -> bool:
    from expand.ir.types import punnable
    return punnable(t)


def check_local_array(co: Coord, name: str, t: T.Array) -> None:
    """A local array expand keeps per lane: one dimension of int or floating-point elements."""
    if t.length is None:
        raise error(co, f"local array '{name}' has no size", "give it a size or an initializer")
    if isinstance(t.elem, T.Array):
        raise error(co, f"local array '{name}' of arrays is not supported",
                    "use a one-dimensional array and compute the index: a[i * n + j]")
    if isinstance(t.elem, T.Record):
        from expand.passes.records import record_problem
        why = record_problem(t.elem, layout=False)
        if why:
            raise error(co, f"local array '{name}' of '{t.elem}' cannot be vectorized: {why}",
                        "local arrays of structs may hold integers, floating-point values and structs of them")
    elif not t.elem.is_arith() or isinstance(t.elem, T.Int) and t.elem.is_bool:
        raise error(co, f"local array '{name}' of '{t.elem}' is not supported",
                    "local arrays hold int or floating-point elements")
    if t.length <= 0:
        raise error(co, f"local array '{name}' has no elements")


# ----------------------------------------------------------------------------- local statics


def local_static(co: Coord, name: str, t: T.CType, const: bool, init: object, fn_name: str) -> Symbol:
    """A function-local ``static`` variable as a file-scope one (expand/driver.py copies a static
    global's definition into the output): read only, its value is the same for every lane and call.
    ``name_local_statics`` gives it its file-scope name once the whole file is read."""
    if any(isinstance(n, Var) and n.sym.kind in ("local", "param") for n in init_exprs(init)):
        raise error(co, f"the initializer of static variable '{name}' is not a constant")
    sym = Symbol(name, t, "global", co, static=True, const=const, init=init, defined_here=True)
    sym.local_of = fn_name  # type: ignore[attr-defined]
    return sym


def written_static(sym: Symbol, co: Coord) -> None:
    """Refuse an assignment to a function-local ``static`` variable."""
    if getattr(sym, "local_of", None) is not None:
        raise error(co, f"local 'static' variable '{sym.name}' is written: every call shares it",
                    "lanes computed at once cannot each see the previous call's value: make it 'static const' (a "
                    "table), or keep the state in the caller")


def name_local_statics(mod: Module, statics: list[Symbol]) -> None:
    """File-scope names for the local statics: the variable's own name where no global, function or
    local of any function of the file uses it, else ``function_name``."""
    taken = set(mod.globals) | set(mod.functions)
    for fn in mod.functions.values():
        taken |= _names_of(fn)
    for sym in statics:
        base = sym.name
        name = base if base not in taken else f"{sym.local_of.lstrip('_')}_{base}"  # type: ignore[attr-defined]
        n = 2
        while name in taken:
            name = f"{sym.local_of.lstrip('_')}_{base}_{n}"  # type: ignore[attr-defined]
            n += 1
        sym.name = name
        taken.add(name)


def _names_of(fn: Function) -> set[str]:
    return {s.name for s in fn.locals} | {p.name for p in fn.params}
