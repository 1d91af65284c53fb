"""How a function reaches memory through its uniform pointer parameters (``--verify`` sizes its inputs by it).

A uniform pointer parameter is the start of memory every lane shares: an array (of numbers or of
structs) the function indexes, ``s[i].a`` with ``i`` computed from other parameters, or one object it
only reads and writes at constant offsets (``s->a``, ``(*s).b``, ``p[2]``). ``--verify`` draws the
integer parameters a subscript depends on from the indexes its arrays have (expand/check/verify.py,
``trip_bounds``), and moves a pointer of the second kind along its array, one element per gang, so
that each gang meets other contents (``verify(moving=...)``).

Read on the function after inlining, before its local pointers become indexes
(expand/passes/pointer_locals.py): a pointer copied into a local (``const S *t = &s[i];``) counts as
indexed, its subscript's parameters as indexes.
"""

from __future__ import annotations

from expand.ir.nodes import Assign, Const, Expr, Function, Index, Member, Symbol, Unary, Var, stmt_exprs, walk_stmts
from expand.ir.types import Array, Int, Pointer


def _uniform_pointers(fn: Function) -> set[Symbol]:
    return {p for p in fn.params if isinstance(p.type, Pointer) and p.shape == "uniform"}


def _root(e: Expr) -> Symbol | None:
    """The variable an access path starts from (``s`` of ``s[i].bounds[1]``)."""
    while isinstance(e, (Index, Member)) or isinstance(e, Unary) and e.op in ("*", "&"):
        e = e.operand if isinstance(e, Unary) else e.base
    return e.sym if isinstance(e, Var) else None


def index_params(fn: Function) -> dict[str, int | None]:
    """The integer value parameters of ``fn`` that a subscript of an access through a uniform pointer
    parameter depends on, in parameter order, each with the length of the array it indexes: None for the
    pointer's own elements (``s[i + 1].a``: ``i``), the length of an array member (``nodes[k].bounds[j][2]``:
    ``j`` 2, ``k`` None); the smallest where it indexes several. The set is closed backwards over
    assignments, as expand/analysis/trip_inputs.py's ``trip_params``: when ``k`` is in it and ``k = f(n)``,
    ``n`` is too (with ``k``'s length)."""
    ups = _uniform_pointers(fn)
    if not ups:
        return {}
    limit: dict[Symbol, int | None] = {}
    sources: dict[Symbol, list[Expr]] = {}

    def need(v: Symbol, n: int | None) -> bool:
        """Record that ``v`` indexes an array of ``n`` elements (None: the pointer's); whether that is news."""
        if v not in limit:
            limit[v] = n
            return True
        old = limit[v]
        new = old if n is None else n if old is None else min(old, n)
        limit[v] = new
        return new != old

    for s in walk_stmts(fn.body):
        for e in stmt_exprs(s):
            for n in e.walk():
                if isinstance(n, Index) and _root(n.base) in ups:
                    t = n.base.type
                    length = t.length if isinstance(t, Array) and t.length else None
                    for v in n.index.walk():
                        if isinstance(v, Var):
                            need(v.sym, length)
        if isinstance(s, Assign):
            base = s.target
            while isinstance(base, (Index, Member)):
                base = base.base
            if isinstance(base, Var):
                sources.setdefault(base.sym, []).extend([s.value, s.target])
    todo = list(limit)
    while todo:
        k = todo.pop()
        for e in sources.get(k, []):
            for v in e.walk():
                if isinstance(v, Var) and need(v.sym, limit[k]):
                    todo.append(v.sym)
    return {p.name: limit[p] for p in fn.params if p in limit and isinstance(p.type, Int) and not p.type.is_bool}


def fixed_pointers(fn: Function) -> dict[str, int]:
    """The uniform pointer parameters ``fn`` reads and writes only at constant offsets (``*s``, ``s->a``,
    ``s[2].b``), each with its largest offset in elements; one used any other way (indexed by a variable,
    copied into a local, passed to a call, its address taken) is not among them."""
    ups = _uniform_pointers(fn)
    reach: dict[Symbol, int] = {}
    bad: set[Symbol] = set()

    def visit(e: Expr) -> None:
        if isinstance(e, Var) and e.sym in ups:
            bad.add(e.sym)  # (a use that is not a read or write through it)
            return
        if isinstance(e, Unary) and e.op == "&" and _root(e.operand) in ups:
            bad.add(_root(e.operand))  # (an address into its memory: &s[0], &s->a)
        through: Symbol | None = None
        offset = 0
        if isinstance(e, Unary) and e.op == "*" and isinstance(e.operand, Var) or isinstance(e, Member) and e.arrow \
                and isinstance(e.base, Var):
            base = e.operand if isinstance(e, Unary) else e.base
            through = base.sym if base.sym in ups else None
        elif isinstance(e, Index) and isinstance(e.base, Var) and e.base.sym in ups:
            if isinstance(e.index, Const) and isinstance(e.index.value, int) and e.index.value >= 0:
                through, offset = e.base.sym, e.index.value
            else:
                bad.add(e.base.sym)
        if through is not None:
            reach[through] = max(reach.get(through, 0), offset)
            rest = [c for c in e.children() if not (isinstance(c, Var) and c.sym is through)]
        else:
            rest = e.children()
        for c in rest:
            visit(c)

    for s in walk_stmts(fn.body):
        for e in stmt_exprs(s):
            visit(e)
    return {p.name: reach[p] for p in fn.params if p in reach and p not in bad}
