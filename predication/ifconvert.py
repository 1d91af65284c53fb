"""If-conversion: block masks, linearization, and blends (EXPAND Sec. 2.2-2.3, WFV IV-C).

Every block gets a mask: the entry's is all lanes; a block control-equivalent to an earlier one
(it dominates B and B post-dominates it) shares its mask; a block with one predecessor takes the
edge mask ``mask(P) & cond``; a join ORs its incoming edge masks. Blocks are laid out in source
order (a topological order, since the graph is acyclic), each statement tagged with its block
mask. An assignment blends (keeps the old value in inactive lanes) only when that old value may
still be read: not for the first definition of a variable, and not when every later read of the
variable happens in blocks the definition dominates (the ordinary rule).

Loops (``decide_blends``). A masked assignment ``x = v`` in a loop body first blends; then, per
region of the body (a divergent loop's body; each run of a uniform loop's body between its exit
tests), for each variable ``x`` the region assigns under a mask:

* ``x`` is *read after the loop* when some statement outside the loop reads it, or the return value
  does, or it is a global or its address is taken: every assignment blends (the lanes that left keep
  their value for that read).
* Otherwise, ``x`` is *carried* when some read in the region may see a value from before the region:
  a path from the region's entry to the read assigns no ``x`` first (assignments in nested loops do
  not count). Not carried, and read only in this region: the ordinary rule, on the region.
* Carried (and not read after the loop), in a divergent loop: an assignment in a *spine* block (one
  that runs in every lane still iterating: every later block the body is left from is one it
  dominates) does not blend; the lanes that left compute garbage nobody reads. An assignment under a
  narrower mask blends (lanes still iterating outside that mask read the old value next). When the
  loop is inside another loop, this holds only if an assignment to ``x`` before the loop in the
  enclosing region dominates it: each entry of the loop starts from a new ``x``, so a garbage lane is
  never read when the outer loop comes round (else every assignment blends).

Without the blend, only the final select goes away: the value is computed as before, under the same
mask, so inactive lanes cannot trap or have effects (emit/printer.py: an integer divisor is 1 in
inactive lanes, a table read with a varying index reads element 0 there, a uniform table read or
division runs only when some lane is on, stores and per-lane calls run only in active lanes;
conversions and float arithmetic of garbage do not trap). mandelbrot's ``zr`` and ``zi`` blend no more;
its count ``n`` becomes a scalar counter (predication/counters.py).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from expand.analysis.cfg import CFG, BasicBlock, build_cfg, exprs_of_term
from expand.analysis.shapes import divergence
from expand.ir.diagnostics import Remark
from expand.ir.nodes import (
    MASK,
    Assign,
    Binary,
    Break,
    BreakIf,
    Call,
    Cast,
    Const,
    Expr,
    ExprStmt,
    Function,
    If,
    Index,
    Loop,
    MaskedLoop,
    MathOp,
    Member,
    NameMaker,
    Return,
    Stmt,
    Symbol,
    Unary,
    Var,
    flatten,
    stmt_exprs,
    stmt_reads,
    vars_read,
)

from .counters import promote_counters
from .loop_body import ExitPoint, carried, spine
from .uniform_branches import Sides, UniformBranch, nest, runs_with


class Linear:
    """The if-converted function: a straight list of masked statements, then ``return``."""

    def __init__(self, fn: Function, stmts: list[Stmt], ret: Return, cfg: CFG,
                 block_of: dict[Stmt, BasicBlock]) -> None:
        self.fn = fn
        self.stmts = stmts
        self.ret = ret
        self.cfg = cfg
        self.block_of = block_of
        self.remarks: list[Remark] = []  # (--remarks: the passes after this one add theirs)


def cond_name(e: Expr) -> str:
    """A short identifier describing a condition (``j0 < 23`` -> ``j0_lt_23``)."""
    ops = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge", "&&": "and", "||": "or",
           "&": "and", "|": "or", "^": "xor", "+": "plus", "-": "minus", "*": "times", "<<": "shl", ">>": "shr",
           "/": "div", "%": "mod"}

    def go(n: Expr, depth: int) -> str:
        if depth > 3:
            return "x"
        if isinstance(n, Var):
            return n.sym.name
        if isinstance(n, Const):
            if isinstance(n.value, int):
                return hex(n.value).replace("-", "m") if abs(n.value) > 255 else str(n.value).replace("-", "m")
            return re.sub(r"\W", "", n.text or "c") or "c"
        if isinstance(n, (Cast,)):
            return go(n.operand, depth)
        if isinstance(n, Binary):
            if n.op == "!=" and isinstance(n.right, Const) and n.right.value == 0:
                return go(n.left, depth)
            return f"{go(n.left, depth + 1)}_{ops.get(n.op, 'op')}_{go(n.right, depth + 1)}"
        if isinstance(n, Unary):
            return {"!": "not_", "~": "inv_", "-": "neg_"}.get(n.op, "") + go(n.operand, depth + 1)
        if isinstance(n, (Call, MathOp)):
            return n.func.removeprefix("__builtin_").strip("_")
        if isinstance(n, Member):
            return n.name
        if isinstance(n, Index):
            return go(n.base, depth + 1)
        return "c"

    s = re.sub(r"_+", "_", go(e, 0)).strip("_")
    return s[:28].rstrip("_") or "c"


def if_convert(fn: Function, entry: Symbol | None = None) -> Linear:
    """``entry``: the function's entry mask (a masked variant: only its lanes run); None = every lane."""
    cfg = build_cfg(fn.body)
    div = divergence(fn, loops_allowed=entry is None)
    conv = _Converter(fn, div.loops)
    conv.uniform_ifs = div.ifs
    out, _ = conv.region(cfg, entry)
    ret = cfg.exit.term[1]
    lin = Linear(fn, out, ret, cfg, conv.block_of)
    lin.regions = conv.regions
    lin.block_mask = {b: m for _, masks in conv.regions for b, m in masks.items()}
    lin.uniform_branches = conv.branches
    decide_blends(lin)
    promote_counters(lin, fn, entry)
    lin.stmts = nest(lin.stmts, conv.branches, conv.block_of)
    return lin


class _Converter:
    def __init__(self, fn: Function, uniform: set[Loop]) -> None:
        self.fn = fn
        self.names = NameMaker(fn)
        self.uniform = uniform
        self.block_of: dict[Stmt, BasicBlock] = {}
        self.regions: list[tuple[CFG, dict[BasicBlock, Symbol | None]]] = []  # for --dot
        self.uniform_ifs: set[If] = set()  # branches on a uniform condition (expand/analysis/shapes.py)
        self.branches: list[UniformBranch] = []
        self.exit_points: dict[int, list[ExitPoint]] = {}  # per loop body CFG (by id), while it is converted

    def mask_sym(self, base: str, coord) -> Symbol:
        sym = Symbol(self.names.fresh(base), MASK, "local", coord)
        self.fn.locals.append(sym)
        return sym

    def region(self, cfg: CFG, entry: Symbol | None) -> tuple[list[Stmt], dict[BasicBlock, Symbol | None]]:
        """Linearize one acyclic region entered with mask ``entry`` (None: every lane)."""
        out: list[Stmt] = []
        mask: dict[BasicBlock, Symbol | None] = {cfg.entry: entry}
        edge: dict[tuple[BasicBlock, BasicBlock], Symbol | None] = {}

        def define(base: str, value: Expr, b: BasicBlock, coord) -> Symbol:
            sym = self.mask_sym(base, coord)
            st = Assign(coord, Var(MASK, sym), value)
            out.append(st)
            self.block_of[st] = b
            return sym

        def mref(m: Symbol | None) -> Expr | None:
            return None if m is None else Var(MASK, m)

        for b in cfg.blocks:
            if b is not cfg.entry:
                m = _equivalent_mask(cfg, b, mask)
                if m is not _NONE:
                    mask[b] = m
                elif len(b.preds) == 1:
                    mask[b] = edge[(b.preds[0], b)]
                else:
                    ins = [edge[(p, b)] for p in b.preds]
                    if any(x is None for x in ins):
                        mask[b] = None
                    else:
                        value: Expr = Var(MASK, ins[0])
                        for x in ins[1:]:
                            value = Binary(MASK, "||", value, Var(MASK, x))
                        co = b.stmts[0].coord if b.stmts else None
                        mask[b] = define(f"m_join{co.line if co else b.id}", value, b, co)
            m = mask[b]
            for s in b.stmts:
                st = Assign(s.coord, s.target, s.value, mask=m) if isinstance(s, Assign) \
                    else ExprStmt(s.coord, s.expr, mask=m)
                out.append(st)
                self.block_of[st] = b
            kind = b.term[0]
            if kind == "jump":
                edge[(b, b.term[1])] = m
                self.exit_point(b, b.term[1], m, out)
            elif kind == "branch":
                _, cond, t, e, ifst = b.term
                if ifst in self.uniform_ifs:  # stays a branch: both sides run under this block's mask
                    edge[(b, t)] = edge[(b, e)] = m
                    self.branches.append(UniformBranch(b, cond, t, e, m, ifst))
                    continue
                base = cond_name(cond)
                if not t.stmts and t.term[0] == "jump" and t.term[1].pseudo == "break":
                    line = ifst.coord.line if ifst.coord else b.id
                    mt = define(f"leaving{line}", Binary(MASK, "&&", mref(m), cond) if m is not None else cond,
                                b, ifst.coord)
                    nm = Binary(MASK, "&&", mref(m), Unary(MASK, "!", Var(MASK, mt))) if m is not None \
                        else Unary(MASK, "!", Var(MASK, mt))
                    edge[(b, t)] = mt
                    edge[(b, e)] = define(f"staying{line}", nm, b, ifst.coord)
                    continue
                cm = Binary(MASK, "&&", mref(m), cond) if m is not None else cond
                mt = define(f"m_{base}", cm, b, ifst.coord)
                nm = Binary(MASK, "&&", mref(m), Unary(MASK, "!", Var(MASK, mt))) if m is not None \
                    else Unary(MASK, "!", Var(MASK, mt))
                mf = define(f"m_not_{base}", nm, b, ifst.coord)
                edge[(b, t)] = mt
                edge[(b, e)] = mf
            elif kind == "loop":
                self.loop(b, m, out, edge, define)
        self.regions.append((cfg, dict(mask)))
        return out, mask

    def loop(self, b: BasicBlock, m: Symbol | None, out: list[Stmt], edge: dict, define) -> None:
        _, loop, after, outs = b.term
        co = loop.coord
        if m is None and loop in self.uniform:
            body: list[Stmt] = []
            segment: list[Stmt] = []

            def flush() -> None:
                if segment:
                    sub = build_cfg(list(segment), in_loop=True)
                    stmts, _ = self.region(sub, None)
                    body.extend(stmts)
                    segment.clear()

            for x in loop.body:
                if isinstance(x, If) and len(x.then) == 1 and isinstance(x.then[0], Break) and not x.els:
                    flush()
                    body.append(BreakIf(x.coord, x.cond))
                else:
                    segment.append(x)
            flush()
            st = MaskedLoop(co, None, body)
            out.append(st)
            self.block_of[st] = b
            edge[(b, after)] = None
            return
        line = co.line if co else b.id
        active = define(f"active{line}", Var(MASK, m) if m is not None else Const(MASK, 1, "1"), b, co)
        sub = build_cfg(loop.body, in_loop=True)
        accs: dict[str, Symbol] = {}
        for kind in sub.pseudo:
            if kind == "back":
                continue
            name = "left" if kind == "break" else f"to_{kind[4:]}"
            accs[kind] = define(f"{name}{line}", Const(MASK, 0, "0"), b, co)
        body, smask = self.region(sub, active)
        for kind, acc in accs.items():
            pm = smask[sub.pseudo[kind]]
            body.append(Assign(co, Var(MASK, acc), Binary(MASK, "||", Var(MASK, acc), Var(MASK, pm or active))))
        back = sub.pseudo.get("back")
        nxt: Expr = Var(MASK, smask[back] or active) if back is not None else Const(MASK, 0, "0")
        body.append(Assign(co, Var(MASK, active), nxt))
        st = MaskedLoop(co, active, body)
        st.cfg = sub  # type: ignore[attr-defined]
        st.accs = accs  # type: ignore[attr-defined]  # (kind of exit -> the mask of the lanes that left by it)
        out.append(st)
        self.block_of[st] = b
        st.exits = self.exit_points.pop(id(sub), [])  # type: ignore[attr-defined]
        edge[(b, after)] = accs["break"] if "break" in accs else self._false(out, b, co, define)
        for label, target in outs.items():
            # (an exit no path of the body reaches, after a return, a break or a continue, leaves with no lane)
            acc = accs.get(f"out:{label}")
            edge[(b, target)] = acc if acc is not None else self._false(out, b, co, define)
            self.exit_point(b, target, acc, out)

    def exit_point(self, b: BasicBlock, target: BasicBlock, m: Symbol | None, out: list[Stmt]) -> None:
        """An edge of a loop body from ``b`` to a ``break`` or ``out:L`` pseudo block: lanes in ``m`` leave
        the loop there, after ``out``'s statements so far (predication/counters.py writes live-outs there)."""
        if target.pseudo is not None and target.pseudo != "back" and m is not None:
            self.exit_points.setdefault(id(b.cfg), []).append(ExitPoint(m, len(out), b))

    def _false(self, out, b, co, define) -> Symbol:
        return define("never", Const(MASK, 0, "0"), b, co)


class _Sentinel:
    pass


_NONE = _Sentinel()


def _equivalent_mask(cfg: CFG, b: BasicBlock, mask: dict) -> object:
    """The mask of an earlier block that ``b`` is control-equivalent to (the nearest block that
    dominates ``b`` and that ``b`` post-dominates), or _NONE.

    Only the immediate dominator needs a look: in an acyclic graph, a block that post-dominates a
    dominator of its own post-dominates every block between them on the dominator tree (a path
    around one of them would have to come back to it), so if it does not post-dominate its
    immediate dominator, it post-dominates none."""
    d = cfg.idom[b]
    if d is not None and cfg.postdominates(b, d):
        return mask[d]
    return _NONE


def _as_mask(e: Expr) -> Expr:
    return e


def _target_var(t: Expr) -> Symbol | None:
    return t.sym if isinstance(t, Var) else None


def _reads(s: Stmt) -> set[Symbol]:
    r: set[Symbol] = set()
    for t in flatten([s]):
        r |= stmt_reads(t)
    return r


def _defs(s: Stmt) -> set[Symbol]:
    return {t.target.sym for t in flatten([s]) if isinstance(t, Assign) and isinstance(t.target, Var)}


def decide_blends(lin: Linear) -> None:
    """Set ``blend`` on masked assignments whose inactive lanes may still be read (the rule is in
    the module docstring)."""
    final_reads: set[Symbol] = set()
    for e in exprs_of_term(lin.cfg.exit):
        final_reads |= vars_read(e)
    addressed: set[Symbol] = set()
    readers: dict[Symbol, set[int]] = {}
    for t in flatten(lin.stmts):
        for v in stmt_reads(t):
            readers.setdefault(v, set()).add(id(t))
        for e in stmt_exprs(t):
            addressed |= {x.operand.sym for x in e.walk()
                          if isinstance(x, Unary) and x.op == "&" and isinstance(x.operand, Var)}
    _Blends(lin.block_of, final_reads, readers, Sides(getattr(lin, "uniform_branches", [])),
            frozenset(addressed)).region(lin.stmts, lin.cfg, None)


def _masked_var_assign(t: Stmt) -> Symbol | None:
    """The variable a masked assignment ``t`` writes (None: not one, or a mask)."""
    if isinstance(t, Assign) and t.mask is not None and isinstance(t.target, Var) and t.target.sym.type != MASK:
        return t.target.sym
    return None


def _segments(body: list[Stmt], block_of: dict[Stmt, BasicBlock]) -> list[tuple[CFG, list[Stmt]]]:
    """A loop body's statements by region: a divergent loop's body is one region; a uniform loop's,
    one per run between its ``BreakIf`` tests (statements of no block, the mask updates at the end of
    a body, go with the run before them)."""
    out: list[tuple[CFG, list[Stmt]]] = []
    for t in body:
        if isinstance(t, BreakIf):
            out.append((None, []))
            continue
        b = block_of.get(t)
        if b is not None and (not out or out[-1][0] is not b.cfg):
            out.append((b.cfg, []))
        if out:
            out[-1][1].append(t)
    return [(g, run) for g, run in out if g is not None]


class _Blends:
    def __init__(self, block_of: dict[Stmt, BasicBlock], final_reads: set[Symbol], readers: dict[Symbol, set[int]],
                 sides: Sides, addressed: frozenset[Symbol]) -> None:
        self.block_of = block_of
        self.final_reads = final_reads
        self.readers = readers  # variable -> ids of the statements reading it
        self.sides = sides  # the uniform branches: an unmasked assignment on one of their sides may not run
        self.addressed = addressed  # variables whose address is taken (a call writes them through it: they blend)

    def region(self, stmts: list[Stmt], cfg: CFG, allowed: set[Symbol] | None, in_loop: bool = False) -> None:
        """The loops among ``stmts`` (one region), then the ordinary rule on the region's own masked
        assignments to the variables ``allowed`` (None: every variable: the function body)."""
        for i, s in enumerate(stmts):
            if isinstance(s, MaskedLoop):
                self.loop(s, stmts[:i], in_loop)
        self.ordinary(stmts, cfg, allowed)

    def loop(self, s: MaskedLoop, before: list[Stmt], in_loop: bool) -> None:
        for t in flatten(s.body):
            if _masked_var_assign(t) is not None:
                t.blend = True
        inside = {id(t) for t in flatten(s.body)}
        for cfg, run in _segments(s.body, self.block_of):
            in_run = {id(t) for t in flatten(run)}
            allowed: set[Symbol] = set()
            for x in {_masked_var_assign(t) for t in run} - {None}:
                readers = self.readers.get(x, set())
                if x in self.addressed or x.kind not in ("local", "param") or x in self.final_reads \
                        or not readers <= inside:
                    continue  # read after the loop (or where the rule cannot see): every assignment blends
                if not carried(x, run, cfg, self.block_of):
                    if readers <= in_run:
                        allowed.add(x)  # the loop's own iteration-local value: the ordinary rule
                elif s.active is not None and (not in_loop or self.set_before(x, s, before)):
                    for t in run:  # carried, dead after the loop: lanes still iterating need it
                        if _masked_var_assign(t) is x and spine(self.block_of[t], cfg):
                            t.blend = False
            self.region(run, cfg, allowed, True)

    def set_before(self, x: Symbol, s: MaskedLoop, before: list[Stmt]) -> bool:
        """Some assignment to ``x`` among ``before`` (the statements before loop ``s`` in its region)
        runs on every path to ``s``: each time the enclosing loop enters ``s`` again, ``x`` is new."""
        b = self.block_of.get(s)
        for t in before:
            d = self.block_of.get(t)
            if isinstance(t, Assign) and _target_var(t.target) is x and d is not None and b is not None \
                    and d.cfg is b.cfg and b.cfg.dominates(d, b):
                return True
        return False

    def ordinary(self, stmts: list[Stmt], cfg: CFG, allowed: set[Symbol] | None) -> None:
        """An assignment blends when the old value may still be read: not for the first definition of a
        variable, and not when every later read of the variable happens in blocks it dominates."""
        reads = [_reads(s) for s in stmts]
        defs = [_defs(s) for s in stmts]
        first_def: dict[Symbol, int] = {}
        for i, d in enumerate(defs):
            for v in d:
                first_def.setdefault(v, i)
        # Per variable: the positions of the statements that read it, with the dominator-tree number of
        # their blocks (-1: no block, counted as not dominated), and of its unmasked assignments.
        tree = cfg.dom_tree
        read_at: dict[Symbol, list[int]] = {}
        read_pre: dict[Symbol, list[int]] = {}
        for j, r in enumerate(reads):
            if not r:
                continue
            c = self.block_of.get(stmts[j])
            pre = tree.pre[c] if c is not None else -1
            for v in r:
                read_at.setdefault(v, []).append(j)
                read_pre.setdefault(v, []).append(pre)
        kills: dict[Symbol, list[int]] = {}
        for j, t in enumerate(stmts):
            if isinstance(t, Assign) and t.mask is None:
                v = _target_var(t.target)
                if v is not None:
                    kills.setdefault(v, []).append(j)
        spans: dict[Symbol, _MinMax] = {}
        for i, s in enumerate(stmts):
            if not isinstance(s, Assign) or s.mask is None:
                continue
            x = _target_var(s.target)
            if x is None or (allowed is not None and x not in allowed):
                continue  # stores through pointers are always load-blend-store
            if x in self.addressed:
                s.blend = True  # (its address may have given it a value in any lane: a definition _defs misses)
                continue
            earlier_def = x.kind == "param" or first_def.get(x, i) < i
            if not earlier_def:
                s.blend = False
                continue
            b = self.block_of[s]
            # The old value is needed when a later statement reads it from a block ``b`` does not dominate,
            # up to (and including) the first unmasked assignment that runs whenever this one did; or,
            # with no such assignment, when the function's result reads it and ``b`` does not dominate the exit.
            ks = kills.get(x, [])
            end = None
            for n in range(bisect_right(ks, i), len(ks)):
                if runs_with(self.block_of.get(stmts[ks[n]]), b, self.sides):
                    end = ks[n]
                    break
            pos = read_at.get(x, [])
            lo = bisect_right(pos, i)
            hi = bisect_right(pos, end) if end is not None else len(pos)
            need = False
            if lo < hi:
                if x not in spans:
                    spans[x] = _MinMax(read_pre[x])
                least, most = spans[x].query(lo, hi)
                need = least < tree.pre[b] or most > tree.post[b]
            if not need and end is None and allowed is None and x in self.final_reads \
                    and not cfg.dominates(b, cfg.exit):
                need = True
            s.blend = need


class _MinMax:
    """The least and greatest of a fixed list of numbers over index ranges, O(1) a question (sparse tables)."""

    def __init__(self, values: list[int]) -> None:
        self.lo = [values]
        self.hi = [values]
        w = 1
        while 2 * w <= len(values):
            lo, hi = self.lo[-1], self.hi[-1]
            self.lo.append([min(lo[i], lo[i + w]) for i in range(len(lo) - w)])
            self.hi.append([max(hi[i], hi[i + w]) for i in range(len(hi) - w)])
            w *= 2

    def query(self, a: int, b: int) -> tuple[int, int]:
        """(min, max) of positions ``a`` to ``b`` (exclusive, non-empty)."""
        k = (b - a).bit_length() - 1
        e = b - (1 << k)
        return min(self.lo[k][a], self.lo[k][e]), max(self.hi[k][a], self.hi[k][e])
