"""Stores to memory that the lanes share: where lane order matters, a diagnostic.

The scalar function, called on the active lanes in lane order, leaves memory as the lanes' stores,
lane after lane, leave it. A store into a gang (a varying pointer parameter's element) or into a
local touches memory of one lane only; a store to a global array or record, or through a uniform
pointer, touches memory that every lane may store to and read. The vector code runs one statement
for all lanes before the next, so its order of stores is statement order, not lane order. It gives
the scalar code's result only when each shared store is lane-invariant (the same address and value
in every lane, stored unconditionally or under a uniform condition), or when it is the only
shared store with any lane-dependence, outside loops, to memory the function does not read (a
scatter: the lanes' stores of one statement go out in lane order). Everything else is refused here,
after the shape analysis, with the store's position: silently wrong memory is the worst outcome.
(Scalar global variables are expand/passes/global_writes.py's.)
"""

from __future__ import annotations

from expand.analysis.shapes import Shapes
from expand.ir import types as T
from expand.ir.diagnostics import error
from expand.ir.nodes import Assign, Expr, Index, Member, Symbol, Unary, Var, stmt_exprs


def _root(target: Expr) -> tuple[Symbol | None, list[Expr]]:
    """The variable a store target's address starts from, and the address's index expressions."""
    indexes: list[Expr] = []
    e = target
    while True:
        if isinstance(e, Index):
            indexes.append(e.index)
            e = e.base
        elif isinstance(e, Member):
            e = e.base
        elif isinstance(e, Unary) and e.op == "*":
            e = e.operand
        else:
            break
    return (e.sym if isinstance(e, Var) else None), indexes


def _shared(sym: Symbol | None) -> bool:
    """A global, or a pointer parameter declared uniform (a varying one points to a gang: one element
    per lane; a linear one to lane l's own element)."""
    if sym is None:
        return False
    if sym.kind == "global":
        return True
    return sym.kind == "param" and isinstance(sym.type, T.Pointer) and sym.shape == "uniform"


def _private(root: Symbol, stmts: list, shapes: Shapes) -> bool:
    """Whether every access to ``root`` is ``root[i]`` with one and the same consecutive index ``i``
    (``p[i]`` with a linear ``i``) of variables that keep one value at all those accesses (never
    assigned, or assigned once, for every lane, outside loops, before the first access: the
    stencil's ``int c = z * nxy + y * nx + x;``): each lane then touches its own element only, as in
    a gang."""
    spelled: set[str] = set()
    walked = list(_walk(stmts))
    writes: dict[Symbol, list[int]] = {}
    for k, (t, _) in enumerate(walked):
        if isinstance(t, Assign) and isinstance(t.target, Var):
            writes.setdefault(t.target.sym, []).append(k)
    first = next((k for k, (t, _) in enumerate(walked) for e in stmt_exprs(t) for n in e.walk()
                  if isinstance(n, Var) and n.sym is root), len(walked))
    addressed = {n.operand.sym for t, _ in walked for e in stmt_exprs(t) for n in e.walk()
                 if isinstance(n, Unary) and n.op == "&" and isinstance(n.operand, Var)}

    def fixed(v: Symbol) -> bool:
        at = writes.get(v, [])
        if not at:
            return True
        t, in_loop = walked[at[0]]
        return len(at) == 1 and at[0] < first and not in_loop and t.mask is None and v.kind == "local" \
            and v not in addressed

    for t, _ in walked:
        for e in stmt_exprs(t):
            for n in e.walk():
                if isinstance(n, Index) and isinstance(n.base, Var) and n.base.sym is root:
                    if shapes.shape(n.index) != "consecutive" or any(
                            isinstance(v, Var) and not fixed(v.sym) for v in n.index.walk()):
                        return False
                    spelled.add(repr(n.index))
                elif isinstance(n, Var) and n.sym is root and not any(
                        isinstance(m, Index) and m.base is n for m in e.walk()):
                    return False
    return len(spelled) <= 1


def _walk(stmts: list, in_loop: bool = False):
    """(statement, inside a loop) for every statement, nested ones too."""
    for s in stmts:
        yield s, in_loop
        loop = in_loop or type(s).__name__ in ("Loop", "MaskedLoop")
        for attr in ("init", "body", "then", "els", "step"):
            sub = getattr(s, attr, None)
            if isinstance(sub, list):
                yield from _walk(sub, loop)


def check_shared_stores(stmts: list, shapes: Shapes, ret: Expr | None = None) -> None:
    """Raise a diagnostic at the first shared store whose lane order the vector code would not keep
    (``ret``: the returned value, read at the exit)."""
    risky: list[tuple[Assign, Symbol, bool, bool]] = []  # (store, root, in a loop, address varies)
    stored: set[Symbol] = set()
    for s, in_loop in _walk(stmts):
        if not isinstance(s, Assign) or isinstance(s.target, Var):
            continue
        root, indexes = _root(s.target)
        if not _shared(root) or _private(root, stmts, shapes):
            continue
        # (a linear pointer parameter is consecutive: lane l's own element; a mask always differs per lane)
        address = any(shapes.varying(i) for i in indexes) or shapes.shape(Var(root.type, root)) != "uniform"
        if address or s.mask is not None or shapes.varying(s.value):
            risky.append((s, root, in_loop, address))
            stored.add(root)
    if not risky:
        return
    what = {r: (f"'{r.name}', a uniform pointer" if r.kind == "param" else f"the global '{r.name}'")
            for _, r, _, _ in risky}
    hint = ("the vector code stores for all lanes at once, statement by statement; give each lane its own "
            "memory (a varying pointer parameter, or an element per lane), or collect the values and store "
            "them once after the call")
    for s, root, in_loop, address in risky:
        if in_loop:
            raise error(s.coord, f"a store to memory that every lane shares ({what[root]}) inside a loop: the "
                        "lanes' stores would not happen in the scalar code's lane order", hint)
        if not address:
            raise error(s.coord, f"a store of a value or under a condition that differs per lane to one place "
                        f"every lane shares ({what[root]}): the vector code cannot give it the last lane's store",
                        hint)
    for j in range(1, len(risky)):
        s = risky[j][0]
        if not all(_disjoint(s.target, t.target) for t, _, _, _ in risky[:j]):
            raise error(s.coord, f"a second store to memory that every lane shares ({what[risky[j][1]]}) where the "
                        "lanes' values differ: the stores would not happen in the scalar code's lane order", hint)
    own = {id(t): [t.value, *_root(t.target)[1]] for t, _, _, _ in risky}  # (what each store reads itself)
    for s, root, _, _ in risky:
        reads = [own.get(id(t), stmt_exprs(t)) for t, _ in _walk(stmts)]
        for exprs in [*reads, [ret] if ret is not None else []]:
            if any(isinstance(n, Var) and n.sym is root for e in exprs for n in e.walk()):
                raise error(s.coord, f"a store to memory that every lane shares ({what[root]}) that the function "
                            "also reads: a lane would read what later lanes store", hint)


def _steps(target: Expr) -> tuple[Symbol | None, list[Expr]]:
    """A store target's root variable and its access steps from the root out (``s[i].a``: ``s[i]``, ``.a``)."""
    steps: list[Expr] = []
    e = target
    while isinstance(e, (Index, Member)) or isinstance(e, Unary) and e.op == "*":
        steps.append(e)
        e = e.operand if isinstance(e, Unary) else e.base
    return (e.sym if isinstance(e, Var) else None), steps[::-1]


def _disjoint(a: Expr, b: Expr) -> bool:
    """Stores to ``a`` and ``b`` never touch the same byte, whatever their indexes: the same root, the same
    steps up to two different members of a struct (``s[i].a`` and ``s[j].b``, ``G[i].p.x`` and
    ``G[k].p.y``): in C's objects those are parts of struct objects of one type, either the same object
    (different members) or objects that do not overlap. Then every lane's store of each lands where no
    other statement stores, and statement order keeps what lane order leaves."""
    ra, sa = _steps(a)
    rb, sb = _steps(b)
    if ra is None or ra is not rb:
        return False
    for x, y in zip(sa, sb):
        if type(x) is not type(y):
            return False
        if isinstance(x, Member):
            assert isinstance(y, Member)
            if x.name != y.name:
                base = x.base.type.target if x.arrow and isinstance(x.base.type, T.Pointer) else x.base.type
                return isinstance(base, T.Record) and not base.is_union and base is (
                    y.base.type.target if y.arrow and isinstance(y.base.type, T.Pointer) else y.base.type)
            if x.arrow != y.arrow:
                return False
    return False
