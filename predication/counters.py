"""Scalar loop counters (issue 19, cause 2): a divergent loop's counter stays one scalar, with a per-lane
live-out written where lanes leave, as ispc's code does.

The rule. In a divergent loop L (a ``MaskedLoop`` with an active mask), a variable ``x`` is kept as one
scalar inside L when

* ``x`` is a local variable of an arithmetic type (not a parameter, a global, an array; its address is
  never taken);
* L assigns ``x`` once, by ``S: x = x + u``, ``x = u + x`` or ``x = x - u`` computed in ``x``'s own
  type, at the top of L's body (not in a nested loop) in a spine block (predication/loop_body.py: one
  that runs in every lane still iterating), where ``u`` is uniform, reads no memory, calls nothing,
  divides no integers and does not read ``x``;
* outside L, ``x`` is assigned once, by ``D: x = e`` before L in L's region (the function body or an
  enclosing loop's body), in a block that dominates L's, with ``e`` of the same kind as ``u``;
* it pays: some read of ``x`` in L (not S) is a comparison with a uniform value (a scalar test instead
  of a vector compare) or the index of a table read (one load instead of one per lane). A counter met
  only by varying values (nested.c's ``j < m``) would be broadcast at each use: it stays a vector.

Then every lane that enters L ran D (with one value of ``e``) and nothing else assigned ``x`` before
L; every lane still iterating runs S with one value of ``u``, so those lanes agree on ``x`` all along.
The lanes that left L see no more of the scalar: their value is the live-out.

What the output does:

* D and S are unmasked scalar assignments (``n = 0;``, ``n = n + 1;``), and reads of ``x`` in L read
  the scalar. A uniform table read at ``x`` under a partial mask runs only when some lane is on
  (emit/printer.py: when every lane has left, ``x`` may be past the table's end).
* When something outside L reads ``x`` (a statement, the return value), a vector ``x_out`` (named
  ``<x>_out``) holds each lane's ``x`` outside L: at each place lanes leave L (``ExitPoint``, from the
  converter) ``if (any(leaving)) x_out = select(leaving, x, x_out)`` (the write runs once per lane,
  not once per iteration); right after D, ``x_out = x`` under D's mask when lanes may run D without
  entering L (L's mask is not D's) or when a statement between D and L reads ``x``; every read of ``x``
  outside L reads ``x_out``, a vector (also for the tests of the loops beside L: L's counters are
  scalars only inside L). Without such a read
  there is no live-out at all (newton_sqrt's ``i``).
* L's first test, ``if (!(u && v)) break;`` at the top of its body with ``u`` uniform once the counters
  are scalars (mandelbrot's ``n < 1000``), becomes a scalar test that ends the loop for every lane still
  iterating (``if (!(n < 1000)) { n_out = select(active, n, n_out); break; }``), then the mask test of
  ``v`` alone (none when nothing varying is left).
"""

from __future__ import annotations

from expand.analysis.cfg import CFG, BasicBlock
from expand.analysis.shapes import analyze
from expand.ir import types as T
from expand.ir.diagnostics import ExpandError
from expand.ir.nodes import (
    MASK,
    Assign,
    Binary,
    BreakIf,
    Const,
    Expr,
    Function,
    Guard,
    Index,
    MaskedLoop,
    NameMaker,
    Stmt,
    Symbol,
    Unary,
    UniformIf,
    Var,
    flatten,
    is_pure,
    map_expr,
    map_stmt_exprs,
    stmt_exprs,
    stmt_reads,
    vars_read,
)

from .loop_body import ExitPoint, spine


def _step(s: Assign, x: Symbol) -> Expr | None:
    """``u`` when ``s`` is ``x = x + u``, ``x = u + x`` or ``x = x - u`` in ``x``'s type, else None."""
    v = s.value
    if not (isinstance(v, Binary) and v.op in ("+", "-")
            and T.strip_spelling(v.type) == T.strip_spelling(x.type)):
        return None
    if isinstance(v.left, Var) and v.left.sym is x and x not in vars_read(v.right):
        return v.right
    if v.op == "+" and isinstance(v.right, Var) and v.right.sym is x and x not in vars_read(v.left):
        return v.left
    return None


class _Counter:
    """One promotion: variable ``x`` of loop ``loop`` (in ``region`` at ``index``), its assignments."""

    def __init__(self, x: Symbol, loop: MaskedLoop, region: list[Stmt], d: Assign, s: Assign, u: Expr) -> None:
        self.x, self.loop, self.region, self.d, self.s, self.u = x, loop, region, d, s, u


CMP = ("==", "!=", "<", "<=", ">", ">=")


def _uniform(e: Expr, shapes, scalars: set[Symbol]) -> bool:
    """``e`` has one value in every lane once ``scalars`` are scalars, and reads no memory, calls
    nothing and divides no integers (so it can run where no lane is on)."""
    return is_pure(e) and all(n.sym in scalars or n.sym.type != MASK and shapes.sym_shape(n.sym) == "uniform"
                              for n in e.walk() if isinstance(n, Var))


def _scalars_at(counters: list[_Counter]) -> dict[int, set[Symbol]]:
    """For each statement (by id) of the counters' loops, the counters it reads as scalars: those of
    the loops around it. Elsewhere (before a counter's loop, after it, in a loop beside it) a read of
    the counter reads its per-lane live-out, a vector."""
    at: dict[int, set[Symbol]] = {}
    for c in counters:
        for t in flatten(c.loop.body):
            at.setdefault(id(t), set()).add(c.x)
    return at


def _worth_it(c: _Counter, shapes, scalars_at: dict[int, set[Symbol]]) -> bool:
    """Some read of ``x`` in the loop (not its own update) becomes scalar work: a comparison with a
    uniform value (a scalar test instead of a vector compare), or the index of a table read (one
    load instead of one per lane). A counter met only by varying values would be broadcast at each
    use instead (nested.c's ``j < m``): it stays a vector."""
    for t in flatten(c.loop.body):
        if t is c.s:
            continue
        scalars = scalars_at.get(id(t), set())
        for e in stmt_exprs(t):
            for n in e.walk():
                if isinstance(n, Binary) and n.op in CMP and c.x in vars_read(n) and _uniform(n, shapes, scalars):
                    return True
                if isinstance(n, Index) and c.x in vars_read(n.index) and _uniform(n.index, shapes, scalars):
                    return True
    return False


def promote_counters(lin, fn: Function, entry: Symbol | None = None) -> None:
    """Keep the counters of ``lin``'s divergent loops as scalars (the rule is in the module docstring).
    Runs after ``decide_blends`` and before the uniform branches are nested."""
    assigns: dict[Symbol, list[Assign]] = {}
    readers: dict[Symbol, list[Stmt]] = {}
    addressed: set[Symbol] = set()
    for t in flatten(lin.stmts):
        if isinstance(t, Assign) and isinstance(t.target, Var):
            assigns.setdefault(t.target.sym, []).append(t)
        for v in stmt_reads(t):
            readers.setdefault(v, []).append(t)
        for e in stmt_exprs(t):
            addressed |= {n.operand.sym for n in e.walk()
                          if isinstance(n, Unary) and n.op == "&" and isinstance(n.operand, Var)}
    found: list[_Counter] = []
    for region in _regions(lin.stmts):
        for i, loop in enumerate(region):
            if isinstance(loop, MaskedLoop) and loop.active is not None and getattr(loop, "cfg", None) is not None:
                found += _candidates(lin, loop, region[:i], region, assigns, addressed)
    if not found:
        return
    try:
        shapes = analyze(fn.params, lin.stmts, entry)
    except ExpandError:
        return  # (the shapes after dead code elimination decide; then no promotion)
    found = [c for c in found if _uniform(c.u, shapes, set()) and _uniform(c.d.value, shapes, set())]
    scalars_at = _scalars_at(found)
    found = [c for c in found if _worth_it(c, shapes, scalars_at)]
    scalars_at = _scalars_at(found)
    names = NameMaker(fn)
    ret = lin.ret
    final_reads = vars_read(ret.value) if ret.value is not None else set()
    names.used |= {v.name for v in readers} | {v.name for v in final_reads}  # (a global n_out stays visible)
    outs: dict[int, list[tuple[Symbol, Symbol]]] = {}  # loop (by id) -> (x, x_out) of its counters read after it
    loops: dict[int, MaskedLoop] = {}
    after_d: list[tuple[list[Stmt], Assign, Assign]] = []
    for c in found:
        x, loop, d, s = c.x, c.loop, c.d, c.s
        loops[id(loop)] = loop
        loop.counters = [*getattr(loop, "counters", []), x]  # type: ignore[attr-defined]  # (for --remarks)
        outs.setdefault(id(loop), [])
        d_mask = d.mask
        s.mask, s.blend, d.mask, d.blend = None, False, None, False
        inside = {id(t) for t in flatten(loop.body)}
        outside = [t for t in readers.get(x, []) if id(t) not in inside]
        if not outside and x not in final_reads:
            continue
        out = Symbol(names.fresh(f"{x.name}_out"), x.type, "local", x.coord)
        shapes.syms[out] = "varying"  # (each lane's value: the loop tests below must not take it as uniform)
        fn.locals.append(out)

        def rename(n: Expr, x: Symbol = x, out: Symbol = out) -> Expr:
            return Var(n.type, out) if isinstance(n, Var) and n.sym is x else n

        for t in outside:
            map_stmt_exprs(t, rename)
        if ret.value is not None:
            ret.value = map_expr(ret.value, rename)
        outs[id(loop)].append((x, out))
        # ``x_out = x`` after D when lanes may run D and skip the loop, or when something between D
        # and the loop reads ``x`` (it reads ``x_out``: D's value, not yet a loop's exit value).
        k_d = next(k for k, t in enumerate(c.region) if t is d)
        k_loop = next(k for k, t in enumerate(c.region) if t is loop)
        between = {id(t) for t in flatten(c.region[k_d + 1:k_loop])}
        if d_mask is not lin.block_mask.get(lin.block_of.get(loop)) or any(id(t) in between for t in outside):
            keep = Assign(d.coord, Var(out.type, out), Var(x.type, x), mask=d_mask, blend=d_mask is not None)
            after_d.append((c.region, d, keep))
    for key, loop in loops.items():
        split = _scalar_exit(lin, loop, outs[key], shapes, scalars_at)
        _live_outs(lin, loop, outs[key], split[2] if split else None)
        if split:  # (after the live-outs: their places count the body's statements as the converter left them)
            u, test, _ = split
            loop.body.insert(next(k for k, t in enumerate(loop.body) if t is test), u)
    for region, d, keep in after_d:
        region.insert(next(k for k, t in enumerate(region) if t is d) + 1, keep)
        lin.block_of[keep] = lin.block_of[d]


def _live_outs(lin, loop: MaskedLoop, outs: list[tuple[Symbol, Symbol]], skip: ExitPoint | None) -> None:
    """At each exit point of ``loop`` (but ``skip``), ``x_out = x`` in the lanes leaving there, run only
    when some lane does (most iterations none does: the write is once per lane, not per iteration)."""
    if not outs:
        return
    exits: list[ExitPoint] = loop.exits  # type: ignore[attr-defined]
    for ep in sorted(exits, key=lambda p: p.index, reverse=True):
        if ep is skip:
            continue
        writes: list[Stmt] = [Assign(loop.coord, Var(out.type, out), Var(x.type, x), mask=ep.mask, blend=True)
                              for x, out in outs]
        g = Guard(loop.coord, ep.mask, writes)
        for w in [g, *writes]:
            lin.block_of[w] = ep.block
        loop.body.insert(ep.index, g)


def _scalar_exit(lin, loop: MaskedLoop, outs: list[tuple[Symbol, Symbol]], shapes,
                 scalars_at: dict[int, set[Symbol]]) -> tuple[UniformIf, Assign, ExitPoint | None] | None:
    """The loop's first test, ``if (!(u && v)) break;`` at the top of its body with ``u`` uniform once
    the counters are scalars (``n < 1000``), becomes a scalar test that ends the loop for every lane
    still iterating (their live-outs written first), then the mask test of ``v`` alone. Returns the
    scalar test to put before the mask test, that mask test (changed), and the exit point that needs no
    live-out writes any more when nothing varying is left (``v`` is true); None: no such test."""
    cfg = loop.cfg  # type: ignore[attr-defined]
    exits: list[ExitPoint] = loop.exits  # type: ignore[attr-defined]
    if not exits:
        return None
    first = min(exits, key=lambda p: p.index)
    test = next((t for t in loop.body if lin.block_of.get(t) is cfg.entry and isinstance(t, Assign)
                 and isinstance(t.target, Var) and t.target.sym.type == MASK and isinstance(t.value, Binary)
                 and t.value.op == "&&" and isinstance(t.value.left, Var) and t.value.left.sym is loop.active
                 and isinstance(t.value.right, Unary) and t.value.right.op == "!"), None)
    if test is None or first.block.preds != [cfg.entry] or len(cfg.entry.succs) != 2 \
            or first.block not in cfg.entry.succs or first.mask is not test.target.sym:
        return None
    # (a plain ``break``: not an exit that first does something, ``retval = 1; goto done;`` from an early
    # return, nor one to another place: the lanes leaving by it are not the loop's ``left`` ones;
    # fuzz 20261202-173)
    if first.block.stmts or first.block.succs != [cfg.pseudo.get("break")]:
        return None
    scalars = scalars_at.get(id(test), set())  # (this loop's counters and those of the loops around it)
    terms = _conjuncts(test.value.right.operand)
    uni = [e for e in terms if _uniform(e, shapes, scalars)]
    if not uni:
        return None
    var = [e for e in terms if not _uniform(e, shapes, scalars)]
    active = loop.active
    assert active is not None
    co = test.coord
    leave: list[Stmt] = [Assign(co, Var(out.type, out), Var(x.type, x), mask=active, blend=True) for x, out in outs]
    accs: dict[str, Symbol] = getattr(loop, "accs", {})
    if "break" in accs:
        acc = accs["break"]
        leave.append(Assign(co, Var(MASK, acc), Binary(MASK, "||", Var(MASK, acc), Var(MASK, active))))
    leave.append(BreakIf(co, Const(T.INT, 1, "1")))
    fails = Unary(T.INT, "!", _conjoin(uni))
    u = UniformIf(co, fails, leave, [], mask=active)
    for t in [u, *leave]:
        lin.block_of[t] = cfg.entry
    if var:
        test.value = Binary(MASK, "&&", Var(MASK, active), Unary(T.INT, "!", _conjoin(var)))
    else:  # nothing varying left: no lane leaves here, every lane stays
        test.value = Const(MASK, 0, "0")
        stay = next((t for t in loop.body if lin.block_of.get(t) is cfg.entry and isinstance(t, Assign)
                     and isinstance(t.target, Var) and t.target.sym.type == MASK and t is not test
                     and test.target.sym in vars_read(t.value)), None)
        if stay is not None:
            stay.value = Var(MASK, active)
    return u, test, None if var else first


def _conjuncts(e: Expr) -> list[Expr]:
    if isinstance(e, Binary) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _conjoin(es: list[Expr]) -> Expr:
    out = es[0]
    for e in es[1:]:
        out = Binary(T.INT, "&&", out, e)
    return out


def _regions(stmts: list[Stmt]):
    """Every statement list of the linear program: the function body and the loop bodies."""
    yield stmts
    for s in stmts:
        if isinstance(s, MaskedLoop):
            yield from _regions(s.body)


def _candidates(lin, loop: MaskedLoop, before: list[Stmt], region: list[Stmt],
                assigns: dict[Symbol, list[Assign]], addressed: set[Symbol]) -> list[_Counter]:
    """The counters of ``loop`` (before the uniformity of ``u`` and ``e`` is checked)."""
    cfg: CFG = loop.cfg  # type: ignore[attr-defined]
    block_of = lin.block_of
    here: BasicBlock | None = block_of.get(loop)
    inside = {id(t) for t in flatten(loop.body)}
    out: list[_Counter] = []
    for s in loop.body:
        if not (isinstance(s, Assign) and s.mask is not None and isinstance(s.target, Var)):
            continue
        x = s.target.sym
        if x.kind != "local" or x in addressed or x.volatile or x.static or not x.type.is_arith() \
                or isinstance(x.type, T.Int) and x.type.is_bool:
            continue
        u = _step(s, x)
        defs = assigns.get(x, [])
        if u is None or not is_pure(u) or len(defs) != 2 or block_of.get(s) is None \
                or not spine(block_of[s], cfg):
            continue
        d = next((t for t in defs if id(t) not in inside), None)
        if d is None or not any(t is d for t in before):
            continue
        bd = block_of.get(d)
        if bd is None or here is None or bd.cfg is not here.cfg or not here.cfg.dominates(bd, here) \
                or not is_pure(d.value) or x in vars_read(d.value):
            continue
        out.append(_Counter(x, loop, region, d, s, u))
    return out
