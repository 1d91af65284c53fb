"""Dead code elimination on the if-converted statement list: no dead temporaries in the output."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from expand.ir.nodes import (
    Assign,
    Binary,
    BreakIf,
    Call,
    Expr,
    ExprStmt,
    Index,
    MaskedLoop,
    Member,
    Stmt,
    Symbol,
    Unary,
    UniformIf,
    Var,
    flatten,
    may_fault_read,
    vars_read,
)
from expand.ir.types import Array


def eliminate_dead(stmts: list[Stmt], live_out: list[Expr],
                   errno_hidden: Callable[[str], bool] = lambda f: False) -> tuple[list[Stmt], set[Symbol]]:
    """Drop assignments whose value no later statement reads (backward liveness through uniform ifs and
    masked loops: ``y = h() - sin(y)`` with ``y`` read only by its own update's call is dead, which
    one set of the variables read anywhere kept); a call's statement stays for its side effects
    unless it has none: a libm function the compiler takes to set no errno (``errno_hidden``: the
    table's, emit/isa.py), with arguments that call nothing, goes as the compiler drops it from the
    scalar code. Returns the kept statements and the symbols they use."""
    effect_free = partial(_effect_free, errno_hidden)
    live = set()
    for e in live_out:
        live |= vars_read(e)
    while True:
        drop: set[int] = set()
        _live_before(stmts, frozenset(live), frozenset(live), drop, effect_free, _indexed_only(stmts))
        if not drop:
            break
        stmts = _sweep(stmts, drop, effect_free)
    used = set(live)
    for s in flatten(stmts):
        used |= _uses(s)
    defined = {s.target.sym for s in flatten(stmts) if isinstance(s, Assign) and isinstance(s.target, Var)}
    return stmts, used | defined


def _uses(s: Stmt) -> set[Symbol]:
    """The symbols statement ``s`` itself reads (not those of the statements nested in it)."""
    out: set[Symbol] = set()
    for e in _reads(s):
        out |= vars_read(e)
    m = getattr(s, "mask", None)
    if m is not None and _needs_mask(s):
        out.add(m)
    if isinstance(s, MaskedLoop) and s.active is not None:
        out.add(s.active)
    return out


def _indexed_only(stmts: list[Stmt]) -> frozenset[Symbol]:
    """The local arrays ``stmts`` name only to read or write an element (``a[i]``, ``a[i][j]``): no
    pointer, address or call sees them, so a store to one is dead where no later statement reads it."""
    arrays: set[Symbol] = set()
    other: set[Symbol] = set()

    def visit(e: Expr, base: bool = False, address: bool = False) -> None:
        """``base``: ``e`` is the array of a subscript; ``address``: ``e``'s address is taken (``&``) or
        it is an array value, which C turns into a pointer."""
        if isinstance(e, Var):
            if e.sym.kind == "local" and isinstance(e.sym.type, Array):
                (arrays if base and not address else other).add(e.sym)
            return
        if isinstance(e, Index):  # (a[i] of a 2-D a is an array: an element's only as a subscript's array)
            visit(e.base, True, address or isinstance(e.type, Array) and not base)
            visit(e.index)
            return
        if isinstance(e, Member):  # (&a[i].f takes a's address too)
            visit(e.base, False, address)
            return
        for c in e.children():
            visit(c, False, isinstance(e, Unary) and e.op == "&")

    for st in flatten(stmts):
        for e in [*_reads(st), *([st.target] if isinstance(st, Assign) else [])]:
            visit(e)
    return frozenset(a for a in arrays - other if not a.static and not a.volatile)


def _array_stored(s: Stmt) -> Symbol | None:
    """The array whose element assignment ``s`` stores to (``a[i] = v``, ``a[i][j] = v``), or None."""
    if not isinstance(s, Assign) or not isinstance(s.target, Index):
        return None
    t: Expr = s.target
    while isinstance(t, Index):
        t = t.base
    return t.sym if isinstance(t, Var) else None


def _live_before(stmts: list[Stmt], live: frozenset[Symbol], exit_live: frozenset[Symbol],
                 drop: set[int], effect_free: Callable[[Expr], bool],
                 arrays: frozenset[Symbol] = frozenset()) -> frozenset[Symbol]:
    """The symbols live before ``stmts`` given those live after (``exit_live``: after the innermost
    loop, where a ``BreakIf`` goes); adds to ``drop`` the ids of the statements that can go (or, for a
    call whose value is dead, lose their target): among them the stores to the local ``arrays`` that
    nothing reads after them (an element store kills nothing: the array stays live before it)."""
    for s in reversed(stmts):
        stored = _array_stored(s)
        if stored is not None and stored in arrays and stored not in live \
                and not any(isinstance(n, Call) for side in (s.value, s.target) for n in side.walk()):
            drop.add(id(s))
            continue
        if isinstance(s, Assign) and isinstance(s.target, Var) and isinstance(s.value, Var) \
                and s.value.sym is s.target.sym:  # x = x (Clang's -Wall: -Wself-assign on the output)
            drop.add(id(s))
            continue
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym not in live:
            if not isinstance(s.value, Call) or effect_free(s.value):
                drop.add(id(s))
                continue
            drop.add(id(s))  # becomes the call alone (_sweep), which reads what the assignment does
        elif isinstance(s, ExprStmt) and effect_free(s.expr):
            drop.add(id(s))
            continue
        if isinstance(s, MaskedLoop):
            head = live | _uses(s)
            while True:  # the least fixed point: what the body reads before writing, each iteration
                inner: set[int] = set()
                new = live | _uses(s) | _live_before(s.body, head, live, inner, effect_free, arrays)
                if new == head:
                    break
                head = new
            drop |= inner
            live = head
            continue
        if isinstance(s, UniformIf):
            live = (_live_before(s.then, live, exit_live, drop, effect_free, arrays)
                    | _live_before(s.els, live, exit_live, drop, effect_free, arrays)
                    | _uses(s))
            continue
        if isinstance(s, BreakIf):
            live = live | exit_live | _uses(s)
            continue
        kills = isinstance(s, Assign) and isinstance(s.target, Var) and not getattr(s, "blend", False)
        live = (live - {s.target.sym} if kills else live) | _uses(s)
    return live


def _needs_mask(s: Stmt) -> bool:
    """Whether the printer reads the statement's mask: blends, stores, per-lane calls, and the safe
    divisors of integer division and the guarded indexes of reads that may fault. A uniform ``if`` keeps
    the enclosing mask for the statements under it (they have it themselves): the printer reads it only
    for such a division or read in the condition (tests/fuzz_regressions/uniform_if_mask_unused.c)."""
    if isinstance(s, UniformIf):
        return _guarded(s.cond)
    if not isinstance(s, Assign):
        return True
    if getattr(s, "blend", False) or not isinstance(s.target, Var) or isinstance(s.value, Call):
        return True
    return _guarded(s.value)


def _guarded(e: Expr) -> bool:
    """``e`` has an integer division or a read that may fault (not a constant index into an array
    object, read whatever the mask: tests/fuzz_regressions/unused_mask_constant_index.c), which the
    printer computes under the mask."""
    return any(isinstance(n, Binary) and n.op in ("/", "%") and n.type.is_int() or may_fault_read(n)
               for n in e.walk())


def _sweep(stmts: list[Stmt], drop: set[int], effect_free: Callable[[Expr], bool]) -> list[Stmt]:
    out: list[Stmt] = []
    for s in stmts:
        if id(s) in drop:
            if isinstance(s, Assign) and isinstance(s.value, Call) and not effect_free(s.value):
                out.append(ExprStmt(s.coord, s.value, mask=s.mask))  # kept for the call's side effects
            continue
        if isinstance(s, MaskedLoop):
            s.body = _sweep(s.body, drop, effect_free)
        if isinstance(s, UniformIf):
            s.then = _sweep(s.then, drop, effect_free)
            s.els = _sweep(s.els, drop, effect_free)
            if not s.then and not s.els:  # nothing left to branch around (the condition cannot fault)
                continue
        out.append(s)
    return out


def _reads(s: Stmt) -> list[Expr]:
    if isinstance(s, Assign):
        out = [s.value]
        if not isinstance(s.target, Var) or getattr(s, "blend", False):
            out.append(s.target)
        return out
    if isinstance(s, ExprStmt):
        return [s.expr]
    if isinstance(s, (BreakIf, UniformIf)):
        return [s.cond]
    return []


def _effect_free(errno_hidden: Callable[[str], bool], e: Expr) -> bool:
    """``e`` is a call the compiler drops when its value is dead: of a function it takes to set no errno
    (GCC: sin, cos, ...), with arguments that call nothing. Kept, each lane's call set EDOM for an
    infinity where the scalar code, compiled, never called it (tests/fuzz_regressions/errno_dead_sin.c)."""
    return isinstance(e, Call) and errno_hidden(e.func) \
        and not any(isinstance(n, Call) for a in e.args for n in a.walk())
