"""Exit tests of divergent loops where lanes leave (issue 19, mandelbrot): ``active`` changes only
when some lane leaves, so its all-false test belongs in the BOSCC guard of the leaving lanes.

A divergent loop with one place where lanes leave reads, after if-conversion and BOSCC::

    while (any(active)) {
        ...
        leaving = staying0 && cond;         (staying0: active, or a copy of it)
        staying = staying0 && !leaving;
        if (any(leaving)) { live-out writes }
        rest                                (under staying)
        active = staying;
    }

It becomes what ispc makes of it (one test per iteration instead of three operations)::

    for (;;) {                              (entered under if (any(active)) unless every lane enters)
        ...
        leaving = staying0 && cond;
        if (any(leaving)) { live-out writes; active = active && !leaving; if (!any(active)) break; }
        rest                                (under active)
    }

Exact when leaving in the middle of the last iteration skips nothing that matters: every statement
of ``rest`` is a no-op once ``staying`` is all false (its mask is provably all false then: ``staying``,
or a conjunction with such a mask), or assigns a uniform variable or a mask nothing outside the loop
reads. A loop that does not fit (two places where lanes leave, ``continue``, reads of ``active`` in
``rest``) keeps its head test. Runs after BOSCC: the leaving guard is BOSCC's.
"""

from __future__ import annotations

from expand.analysis.shapes import Shapes
from expand.ir.nodes import (
    MASK,
    Assign,
    Binary,
    BreakIfNone,
    Const,
    Expr,
    ExprStmt,
    Guard,
    MaskedLoop,
    Stmt,
    Symbol,
    Unary,
    UniformIf,
    Var,
    flatten,
    map_stmt_exprs,
    stmt_reads,
)

from .ifconvert import Linear


def sink_exit_tests(lin: Linear, shapes: Shapes) -> set[Symbol]:
    """Rewrite every divergent loop of ``lin`` that fits (see the module docstring); returns the
    masks no statement assigns any more."""
    done: set[int] = set()
    dropped: set[Symbol] = set()

    def visit(stmts: list[Stmt], in_loop: bool, some: frozenset[Symbol]) -> None:
        """``some``: masks the enclosing guards found with a lane on."""
        for i, s in enumerate(stmts):
            for inner in _lists(s):
                # (a guard's all-lanes copy runs with every lane on; its body with some, unless
                # it has no all-false test)
                on = isinstance(s, Guard) and (inner is s.all_body or s.any_test)
                if isinstance(s, MaskedLoop):  # (a mask tested outside may be assigned again in the loop)
                    visit(inner, True, frozenset())
                else:
                    visit(inner, in_loop, some | {s.mask} if on else some)
            if isinstance(s, MaskedLoop) and s.active is not None and id(s) not in done:
                done.add(id(s))
                # (in another loop, what the loop skips must be set again before each entry)
                again = {t.target.sym for t in stmts[:i] if isinstance(t, Assign) and isinstance(t.target, Var)
                         and t.mask is None} if in_loop else None
                gone = _rewrite(lin, s, shapes, again)
                if gone is not None:
                    dropped.update(gone)
                    if not _enters_with_some_lane(stmts[:i], s.active, some):
                        stmts[i] = Guard(s.coord, s.active, [s])

    visit(lin.stmts, False, frozenset())
    # a loop mask nothing reads any more (a loop whose body has no masked statement): its assignments go
    actives = {s.active for s in flatten(lin.stmts) if isinstance(s, MaskedLoop) and not s.head_test}
    # (a loop with no head test does not read its mask, nor does a uniform if in it: the mask, which the
    # printer reads only to guard a division in the if's condition, has a lane on all through the loop)
    read = set().union(*((stmt_reads(s) | {s.mask} - actives) if isinstance(s, UniformIf) else _reads(s)
                         for s in flatten(lin.stmts) if not (isinstance(s, MaskedLoop) and not s.head_test)))
    unread = {a for a in actives if a is not None and a not in read}
    if unread:
        lin.stmts = _without_assignments(lin.stmts, unread)
        dropped |= unread
    return dropped


def _without_assignments(stmts: list[Stmt], masks: set[Symbol]) -> list[Stmt]:
    """``stmts`` (nested lists too, in place) without the assignments of ``masks``."""
    out = []
    for s in stmts:
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym in masks:
            continue
        if isinstance(s, MaskedLoop):
            s.body = _without_assignments(s.body, masks)
        elif isinstance(s, Guard):
            s.body = _without_assignments(s.body, masks)
            if s.all_body is not None:
                s.all_body = _without_assignments(s.all_body, masks)
        elif isinstance(s, UniformIf):
            s.then = _without_assignments(s.then, masks)
            s.els = _without_assignments(s.els or [], masks)
            if s.mask in masks:
                s.mask = None
        out.append(s)
    return out


def _lists(s: Stmt) -> list[list[Stmt]]:
    if isinstance(s, MaskedLoop):
        return [s.body]
    if isinstance(s, Guard):
        return [s.body] + ([s.all_body] if s.all_body is not None else [])
    if isinstance(s, UniformIf):
        return [s.then, s.els or []]
    return []


def _enters_with_some_lane(before: list[Stmt], active: Symbol, some: frozenset[Symbol]) -> bool:
    """The last assignment of ``active`` in ``before`` is ``active = 1``, or ``active = m`` with ``m``
    a mask an enclosing guard found with a lane on (and ``before`` does not assign ``m``)."""
    for s in reversed(before):
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym is active:
            v = s.value
            if isinstance(v, Const):
                return bool(v.value)
            return isinstance(v, Var) and v.sym in some and not any(_assigns(t, v.sym) for t in flatten(before))
    return False


def _assigns(s: Stmt, sym: Symbol) -> bool:
    return isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym is sym


def _rewrite(lin: Linear, loop: MaskedLoop, shapes: Shapes, again: set[Symbol] | None) -> set[Symbol] | None:
    """Rewrite ``loop`` if it fits and return the masks it no longer assigns (None: left as it is);
    ``again``: the variables assigned before each entry of a loop inside another (None: not inside one)."""
    body = loop.body
    active = loop.active
    assert active is not None
    last = body[-1] if body else None
    if not (isinstance(last, Assign) and _assigns(last, active) and last.mask is None
            and isinstance(last.value, Var)):
        return None
    staying = last.value.sym
    k = next((i for i, s in enumerate(body) if _assigns(s, staying)), None)
    if k is None:
        return None
    sdef = body[k]
    assert isinstance(sdef, Assign)
    v = sdef.value
    if isinstance(v, Var) and v.sym is active and sdef.mask is None \
            and sum(_assigns(s, active) or _assigns(s, staying) for s in flatten(body)) == 2:
        # no lane leaves but by a uniform exit: the mask never changes (and has a lane on in the body)
        del body[-1]
        del body[k]
        _rename(body, staying, active)
        for g in flatten(body):
            if isinstance(g, Guard) and g.mask is active and g.all_body is not None:
                g.any_test = False
        loop.head_test = False
        return {staying}
    chain = _leaving_points(body, active, staying)
    if chain is None:
        return None
    if again is not None:  # (a variable each iteration sets before reading it is set again in the next entry too)
        again = again | _set_first(body)
    if sum(_assigns(s, active) for s in flatten(body)) != 1:
        return None
    outside = _read_outside(lin, loop)
    ends: list[tuple[int | None, int]] = []  # (each leaving point's guard, the index after it)
    for j, (k, stay, leaving) in enumerate(chain):
        nxt = chain[j + 1][0] if j + 1 < len(chain) else len(body) - 1
        g = next((i for i in range(k + 1, nxt) if isinstance(body[i], Guard) and body[i].mask is leaving), None)
        end = g + 1 if g is not None else k + 1  # (no guard: nothing else to do where lanes leave)
        # staying: assigned once in the body; leaving: not after staying's definition
        if sum(_assigns(s, stay) for s in flatten(body)) != 1:
            return None
        if any(_assigns(s, leaving) or stay in _reads(s) for s in flatten(body[k + 1:end])):
            return None
        rest = body[end:-1]  # (what the lanes still on do after this point: later leaving points too)
        # (active, and the mask of the leaving point before, become this point's staying lanes there)
        before = {active} | ({chain[j - 1][1]} if j else set())
        if any(before & _reads(s) for s in flatten(rest)):
            return None
        if stay in outside or not _no_op_when_false(rest, stay, outside, again, shapes):
            return None
        ends.append((g, end))
    # the rewrite, last leaving point first (the indexes before it stay)
    del body[-1]
    for (k, stay, leaving), (g, _) in reversed(list(zip(chain, ends))):
        if g is None:
            guard = Guard(loop.coord, leaving, [])
            body.insert(k + 1, guard)
        else:
            guard = body[g]
            assert isinstance(guard, Guard)
        for arm in (guard.body, guard.all_body):  # (active = active && !leaving; if (!any(active)) break;)
            if arm is not None:
                arm.extend([Assign(loop.coord, Var(MASK, active),
                                   Binary(MASK, "&&", Var(MASK, active), Unary(MASK, "!", Var(MASK, leaving)))),
                            BreakIfNone(loop.coord, active)])
        del body[k]
    for _, stay, _ in chain:
        _rename(body, stay, active)
    loop.head_test = False
    return {stay for _, stay, _ in chain}


def _set_first(body: list[Stmt]) -> set[Symbol]:
    """The variables whose first mention in ``body`` (nested statements in order) is an assignment of
    the loop's own list, for every lane, of a value not made from them: each iteration sets them before
    it reads them."""
    seen: set[Symbol] = set()
    first: set[Symbol] = set()
    top = {id(s) for s in body}
    for s in flatten(body):
        reads = _reads(s)
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym not in seen:
            x = s.target.sym
            if id(s) in top and s.mask is None and x not in reads:
                first.add(x)
            seen.add(x)
        seen |= reads
    return first


def _leaving_points(body: list[Stmt], active: Symbol, staying: Symbol) -> list[tuple[int, Symbol, Symbol]] | None:
    """The places where lanes leave, in order: (index of ``staying_j = staying_j-1 && !leaving_j``,
    ``staying_j``, ``leaving_j``), the first from ``active`` (or a copy of it), the last ``staying``."""
    chain: list[tuple[int, Symbol, Symbol]] = []
    while True:
        k = next((i for i, s in enumerate(body) if _assigns(s, staying)), None)
        if k is None or chain and k >= chain[-1][0]:
            return None
        v = body[k].value
        if not (body[k].mask is None and isinstance(v, Binary) and v.op == "&&" and isinstance(v.left, Var)
                and isinstance(v.right, Unary) and v.right.op == "!" and isinstance(v.right.operand, Var)):
            return None
        chain.append((k, staying, v.right.operand.sym))
        before = v.left.sym
        if before is active or any(_assigns(s, before) and isinstance(s.value, Var) and s.value.sym is active
                                   for s in body[:k]):
            return list(reversed(chain))
        staying = before


def _reads(s: Stmt) -> set[Symbol]:
    r = stmt_reads(s)
    m = getattr(s, "mask", None)
    if isinstance(m, Symbol):
        r = r | {m}
    if isinstance(s, Guard):
        r = r | {s.mask}
    if isinstance(s, BreakIfNone):
        r = r | {s.mask}
    if isinstance(s, UniformIf) and s.mask is not None:
        r = r | {s.mask}
    return r


def _read_outside(lin: Linear, loop: MaskedLoop) -> set[Symbol]:
    """Every variable a statement outside ``loop`` (or the return value) reads."""
    inside = {id(s) for s in flatten(loop.body)}
    out: set[Symbol] = set()
    for s in flatten(lin.stmts):
        if id(s) not in inside:
            out |= _reads(s)
    if lin.ret.value is not None:
        out |= {n.sym for n in lin.ret.value.walk() if isinstance(n, Var)}
    return out


def _false_when(e: Expr, false: set[Symbol]) -> bool:
    """``e`` (a mask) is all false whenever the masks in ``false`` are."""
    if isinstance(e, Var):
        return e.sym in false
    if isinstance(e, Const):
        return not e.value
    if isinstance(e, Binary) and e.op == "&&":
        return _false_when(e.left, false) or _false_when(e.right, false)
    if isinstance(e, Binary) and e.op == "||":
        return _false_when(e.left, false) and _false_when(e.right, false)
    return False


def _no_op_when_false(rest: list[Stmt], staying: Symbol, outside: set[Symbol], again: set[Symbol] | None,
                      shapes: Shapes) -> bool:
    """Each statement of ``rest`` does nothing that matters once ``staying`` is all false: its mask is
    then all false (a must-dataflow over ``rest``: loops to a fixed point, branches meet), or it
    assigns a mask or a uniform variable that nothing outside the loop reads (and, for a loop inside
    another, that is set again before each entry: in ``again``)."""

    def local(x: Symbol) -> bool:  # (a variable whose last value in the loop nothing reads)
        return x not in outside and x.kind == "local" and not x.volatile and (again is None or x in again)

    def step(stmts: list[Stmt], false: set[Symbol]) -> set[Symbol] | None:
        for s in stmts:
            if isinstance(s, Assign) and isinstance(s.target, Var):
                x = s.target.sym
                if x.type == MASK or not shapes.is_varying_sym(x):
                    if not local(x):
                        return None
                    if x.type == MASK:
                        false = false | {x} if s.mask is None and _false_when(s.value, false) else false - {x}
                    continue  # (a uniform assignment runs whatever its mask)
                if s.mask is None or s.mask not in false:
                    return None
            elif isinstance(s, (Assign, ExprStmt)):
                if s.mask is None or s.mask not in false:
                    return None
            elif isinstance(s, BreakIfNone):  # (an inner loop's own exit)
                continue
            elif isinstance(s, Guard) and s.any_test and s.mask in false:  # (skipped: its resets run)
                if any(not local(r) for r in s.resets):
                    return None
                false = false | set(s.resets)
            elif isinstance(s, Guard):
                arms = [step(s.body, false)] + ([step(s.all_body, false)] if s.all_body is not None else [])
                if any(a is None for a in arms):
                    return None
                for a in arms:
                    false = false & a  # type: ignore[operator]
            elif isinstance(s, UniformIf):
                a, b = step(s.then, false), step(s.els or [], false)
                if a is None or b is None:
                    return None
                false = a & b
            elif isinstance(s, MaskedLoop) and s.active is not None:
                head = false
                while True:
                    after = step(s.body, head)
                    if after is None:
                        return None
                    nxt = head & after
                    if nxt == head:
                        break
                    head = nxt
                false = head
            else:
                return None
        return false

    return step(rest, {staying}) is not None


def _rename(stmts: list[Stmt], old: Symbol, new: Symbol) -> None:
    """Reads of mask ``old`` in ``stmts`` (nested ones too) read ``new``, which has a lane on there: a
    guard of it with an all-lanes copy needs no all-false test."""

    def f(n: Expr) -> Expr:
        return Var(MASK, new) if isinstance(n, Var) and n.sym is old else n

    for s in flatten(stmts):
        map_stmt_exprs(s, f)
        if isinstance(s, Guard):
            s.resets = [new if r is old else r for r in s.resets]
            if s.mask is old and s.all_body is not None:  # (some lane is on here: else the loop was left)
                s.any_test = False
        if getattr(s, "mask", None) is old:
            s.mask = new  # type: ignore[attr-defined]
        if isinstance(s, MaskedLoop) and s.active is old:
            s.active = new
