"""What each value is per lane (WFV IV-B): one analysis in two steps, one per form of the function.

1. Before if-conversion, on the structured IR (``divergence``): which loops are uniform (every lane runs
   them the same number of times: they stay plain scalar loops) and which ``if`` statements are uniform
   branches (they stay branches: predication/uniform_branches.py).
   A loop is uniform when it is entered by every lane (not inside a varying ``if``, nor inside a
   divergent loop, nor between a jump and its label), leaves only by top-level ``if (c) break;``
   statements whose conditions are uniform, and every other jump in it lands in its body before the
   next such test (``continue``, an inlined helper's ``return``). A variable is varying when a
   parameter, when assigned a varying value, or when assigned where not every lane runs (inside a
   varying ``if`` or a divergent loop, between a jump and its label, after a ``break``). The facts
   depend on each other: iterate to a fixpoint.

   The uniform branches (predication/uniform_branches.py): an ``if`` whose condition reads only
   uniform values and that no jump leaves stays a branch, so what it assigns is uniform when the
   value is, and a loop inside it can be uniform.

2. After if-conversion, on the linear statements (``analyze``): the shape of every variable and
   expression: uniform (one value for every lane), consecutive (lane l holds ``v + l``) or varying.
   Parameters are varying unless declared ``uniform``/``linear`` (``#pragma omp declare simd`` or
   ``--uniform``/``--linear``). Masks, calls (made per lane for their side effects) and anything
   assigned under a mask vary. A variable takes the shape all its definitions agree on. Uniform and
   consecutive variables stay scalars in the output (a consecutive one holds lane 0's value);
   ``p[i]`` with a uniform pointer and a consecutive ``i`` becomes one vector load or store. A local
   array (expand/passes/local_arrays.py) varies when a store puts a varying value, index or mask into it, or
   a per-lane call gets it; otherwise its elements are the same in every lane.

Both steps take a parameter's ``uniform``/``linear`` declaration, a variable whose address is taken and a
local array a call receives (one copy per lane: ``arrays_given_to_calls``) as varying.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from expand.ir import types as T
from expand.ir.diagnostics import error
from expand.ir.nodes import (
    MASK,
    Assign,
    Binary,
    BitCast,
    Block,
    Break,
    Call,
    Cast,
    Cond,
    Const,
    Expr,
    Function,
    Goto,
    If,
    Index,
    Label,
    Loop,
    MathOp,
    Member,
    Stmt,
    Symbol,
    Unary,
    Var,
    flatten,
    is_local_array,
    stmt_exprs,
    walk_stmts,
)


def _varying_expr(e: Expr, vs: set[Symbol]) -> bool:
    for n in e.walk():
        if isinstance(n, Var) and n.sym in vs:
            return True
        if isinstance(n, Call) or (isinstance(n, Unary) and n.op == "*"):
            return True
    return False


def _is_exit_test(s: Stmt) -> bool:
    """``if (c) break;``: a canonical loop's exit test."""
    return isinstance(s, If) and len(s.then) == 1 and isinstance(s.then[0], Break) and not s.els


_JumpFacts = tuple[frozenset[str], bool, frozenset[str]]


def _jumps(s: Stmt, memo: dict[Stmt, _JumpFacts]) -> _JumpFacts:
    """How lanes leave ``s`` other than by running to its end: the labels of the gotos inside ``s``
    that ``s`` does not define (those inside it, e.g. an inlined helper's ``return``, land in it),
    whether a ``break`` of the enclosing loop is inside (nested loops' breaks are their own), and the
    labels ``s`` defines (``labels_defined([s], into_loops=True)``). Remembered in ``memo``: asked of
    every statement of a nest, the questions cost the size of the nest, not the square of its depth."""
    got = memo.get(s)
    if got is not None:
        return got
    empty: frozenset[str] = frozenset()
    if isinstance(s, Goto):
        got = (frozenset([s.label]), False, empty)
    elif isinstance(s, Break):
        got = (empty, True, empty)
    elif isinstance(s, Label):
        got = (empty, False, frozenset([s.name]))
    elif isinstance(s, (If, Block, Loop)):
        if isinstance(s, Loop):
            kids = [_jumps(x, memo) for x in s.init + s.body + s.step]
            defined = empty.union(*(_jumps(x, memo)[2] for x in s.body))
        else:
            kids = [_jumps(x, memo) for x in (s.then + s.els if isinstance(s, If) else s.body)]
            defined = empty.union(*(d for _, _, d in kids))
        free = empty.union(*(f for f, _, _ in kids)) - defined
        brk = not isinstance(s, Loop) and any(b for _, b, _ in kids)
        got = (free, brk, defined)
    else:
        got = (empty, False, empty)
    memo[s] = got
    return got


def _exits_ok(loop: Loop, vs: set[Symbol], jumps: dict[Stmt, _JumpFacts]) -> bool:
    """The loop leaves only by top-level ``if (c) break;`` tests on uniform conditions: every other
    jump in its body lands in the body before the next test (``continue``'s ``goto latch``, an
    inlined helper's ``return``), so the converter's segments between the tests stay whole."""
    pending: set[str] = set()
    for s in loop.body:
        if _is_exit_test(s):
            if pending or _varying_expr(s.cond, vs):
                return False
            continue
        labels, brk, defined = _jumps(s, jumps)
        if brk:
            return False
        pending = (pending - defined) | labels
    return not pending


def uniform_loops(fn: Function) -> set[Loop]:
    """The loops of ``fn`` that stay plain scalar loops."""
    return divergence(fn).loops


@dataclass
class Divergence:
    """The loops that stay scalar loops and the ``if`` statements that stay branches."""

    loops: set[Loop] = field(default_factory=set)
    ifs: set[If] = field(default_factory=set)


def _uniform_cond(e: Expr, vs: set[Symbol]) -> bool:
    """A condition with one value for every lane that can be evaluated where no lane is on: only
    constants, uniform locals and parameters, constant globals and arithmetic (no memory reads, no
    calls; an integer division is guarded by the printer)."""
    for n in e.walk():
        if isinstance(n, Var):
            s = n.sym
            if s in vs or s.volatile or s.static and s.kind == "local":
                return False
            if not (s.kind == "local" or (s.kind == "param" and s.shape == "uniform")
                    or (s.kind == "global" and s.const)):
                return False
        elif isinstance(n, Unary):
            if n.op in ("*", "&"):
                return False
        elif not isinstance(n, (Const, Binary, Cast, BitCast, Cond, MathOp)):
            return False
    return True


def _leaves(s: If, targets: dict[str, list[Goto]], jumps: dict[Stmt, _JumpFacts]) -> bool:
    """Some jump leaves the ``if`` (a break of the enclosing loop, a goto to a label outside it, a
    return), or a goto outside it enters a label in it (``targets``: the gotos of the function, by
    label)."""
    labels, brk, defined = _jumps(s, jumps)
    if labels or brk:
        return True
    if not defined:
        return False
    inside = {id(g) for g in walk_stmts([s]) if isinstance(g, Goto)}
    return any(id(g) not in inside for name in defined for g in targets.get(name, []))


def arrays_given_to_calls(stmts: Iterable[Stmt]) -> set[Symbol]:
    """Local arrays that calls among ``stmts`` get (``f(a)``, ``f(&a[i])``): one copy per lane."""
    out: set[Symbol] = set()
    for s in stmts:
        for e in stmt_exprs(s):
            for n in e.walk():
                if isinstance(n, Call):
                    for a in n.args:
                        if isinstance(a, Unary) and a.op == "&" and isinstance(a.operand, Index):
                            a = a.operand.base
                        if isinstance(a, Var) and is_local_array(a.sym):
                            out.add(a.sym)
    return out


def divergence(fn: Function, loops_allowed: bool = True) -> Divergence:
    """Uniform loops and uniform branches of ``fn`` (``loops_allowed`` False: the function runs
    under an entry mask, so every loop is a masked loop).

    In a statement list, everything after a jump that leaves a statement (a ``break``, a ``goto``
    out of it, a divergent loop's ``goto`` out of the loop) runs under a mask until the jump's label
    (the converter's join and exit masks); a jump that lands in the statement it leaves from (an
    inlined helper's ``return``, ``continue``'s ``goto latch`` when the label follows in the same
    list) and a divergent loop left only by ``break`` (its exit mask is its entry's once every lane
    has left) do not: the facts stay consistent with the shapes computed after if-conversion."""
    vs: set[Symbol] = {p for p in fn.params if p.shape != "uniform"}
    vs |= {n.operand.sym for s in walk_stmts(fn.body) for e in stmt_exprs(s) for n in e.walk()
           if isinstance(n, Unary) and n.op == "&" and isinstance(n.operand, Var)}
    vs |= arrays_given_to_calls(walk_stmts(fn.body))
    targets: dict[str, list[Goto]] = {}
    for g in walk_stmts(fn.body):
        if isinstance(g, Goto):
            targets.setdefault(g.label, []).append(g)
    # ``vs`` only grows, and every test is monotone in it (more varying variables: more masked code,
    # more varying variables), so updating it in place during a pass reaches the same least fixpoint
    # as passes over a frozen copy, in one pass for values that flow forward (straight-line code
    # took one pass per statement of a dependence chain); the last pass adds nothing, so ``out``
    # holds the decisions made with the final set.
    jumps: dict[Stmt, _JumpFacts] = {}  # (``_jumps``: the function does not change here)
    while True:
        out = Divergence()
        before = len(vs)
        new_vs = vs

        def visit(stmts: list[Stmt], masked: bool) -> None:
            pending: set[str] = set()  # labels some lanes jumped to from earlier statements: not yet there
            gone = False  # some lanes left by a break
            for s in stmts:
                here = masked or gone or bool(pending)
                if isinstance(s, Assign) and isinstance(s.target, Var):
                    if here or _varying_expr(s.value, vs):
                        new_vs.add(s.target.sym)
                elif isinstance(s, Assign) and isinstance(s.target, Index) and isinstance(s.target.base, Var) \
                        and is_local_array(s.target.base.sym):  # a local array's elements (expand/analysis/shapes.py)
                    if here or _varying_expr(s.value, vs) or _varying_expr(s.target.index, vs):
                        new_vs.add(s.target.base.sym)
                elif isinstance(s, If):
                    if _uniform_cond(s.cond, vs) and not _leaves(s, targets, jumps):
                        out.ifs.add(s)
                        visit(s.then, here)
                        visit(s.els, here)
                    else:
                        visit(s.then, True)
                        visit(s.els, True)
                elif isinstance(s, Block):
                    visit(s.body, here)
                elif isinstance(s, Loop):
                    if loops_allowed and not here and _exits_ok(s, vs, jumps):
                        out.loops.add(s)
                        # The exit tests themselves are real branches, not masks.
                        visit([x for x in s.body if not _is_exit_test(x)], False)
                    else:
                        visit(s.body, True)
                labels, brk, defined = _jumps(s, jumps)
                pending = (pending - defined) | labels
                gone = gone or brk

        visit(fn.body, False)
        if len(vs) == before:
            return out


# ----------------------------------------------------------------------------- shapes after if-conversion

U, C, V = "uniform", "consecutive", "varying"


class Shapes:
    def __init__(self, syms: dict[Symbol, str]) -> None:
        self.syms = syms

    def sym_shape(self, s: Symbol) -> str:
        if s.type == MASK:
            return V
        return self.syms.get(s, U)

    def is_varying_sym(self, s: Symbol) -> bool:
        """Held in vector registers (consecutive variables are held as lane 0's scalar)."""
        return self.sym_shape(s) == V

    def shape(self, e: Expr) -> str:
        if isinstance(e, Const):
            return U
        if isinstance(e, Var):
            return self.sym_shape(e.sym)
        if isinstance(e, Call):
            return V
        if isinstance(e, Binary) and e.op in ("+", "-") and isinstance(e.type, T.Int) and e.type.bits >= 32:
            a, b = self.shape(e.left), self.shape(e.right)
            if a == U and b == U:
                return U
            if (a, b) == (C, U) or (e.op == "+" and (a, b) == (U, C)):
                return C
            return V
        if isinstance(e, Cast) and isinstance(e.type, T.Int) and isinstance(e.operand.type, T.Int):
            s = self.shape(e.operand)
            if s == C and e.type.bits < e.operand.type.bits:
                return V
            return s
        if isinstance(e, Unary) and e.op == "*":
            p = e.operand
            if isinstance(p, Var) and p.sym.kind == "param" and p.sym.shape != "uniform":
                return V  # a pointer to a gang (EXPAND's convention)
            return V if self.shape(p) != U else U
        if isinstance(e, (Index, Member)):
            parts = [self.shape(c) for c in e.children()]
            return U if all(s == U for s in parts) else V
        parts = [self.shape(c) for c in e.children()]
        return U if all(s == U for s in parts) else V

    def varying(self, e: Expr) -> bool:
        """Not uniform: needs a vector when used as a value."""
        return self.shape(e) != U


def analyze(params: list[Symbol], stmts: list, entry: Symbol | None = None) -> Shapes:
    """``entry``: the entry mask of a masked variant. Lanes off in it are never observed, so an
    assignment under exactly that mask keeps its value's shape, as an unmasked one does."""
    syms: dict[Symbol, str] = {}
    for p in params:
        if p.shape == "uniform":
            syms[p] = U
        elif p.shape == "linear":
            syms[p] = C
        elif p.type.is_arith():
            syms[p] = V
        else:
            syms[p] = U  # pointers to gangs: the pointer itself is one value
    sh = Shapes(syms)
    # A variable whose address a call receives is written through it, lane by lane: one storage
    # location per lane (the printer stores it to an array of lanes and reads it back).
    for s in flatten(stmts):
        for e in stmt_exprs(s):
            for n in e.walk():
                if isinstance(n, Unary) and n.op == "&" and isinstance(n.operand, Var) \
                        and n.operand.sym.kind in ("local", "param"):
                    sym = n.operand.sym
                    if sym.kind == "param" and sym.shape in ("uniform", "linear"):
                        raise error(sym.coord, f"the address of {sym.shape} parameter '{sym.name}' is taken, so each"
                                               " lane may change it", "copy it to a local variable and pass that")
                    syms[sym] = V
    defs: dict[Symbol, list[Assign]] = {}
    stores: dict[Symbol, list[Assign]] = {}  # local arrays (expand/passes/local_arrays.py): their element stores
    for s in flatten(stmts):
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym.type != MASK:
            defs.setdefault(s.target.sym, []).append(s)
        if isinstance(s, Assign) and isinstance(s.target, Index) and isinstance(s.target.base, Var) \
                and is_local_array(s.target.base.sym):
            stores.setdefault(s.target.base.sym, []).append(s)
    for arr in arrays_given_to_calls(flatten(stmts)):  # a local array a per-lane call gets: one copy per lane
        syms[arr] = V
    changed = True
    while changed:
        changed = False
        for arr, ss in stores.items():  # varying: a store of a lane-dependent value, index or mask
            if sh.sym_shape(arr) != V and any(d.mask is not None and d.mask is not entry or sh.shape(d.value) != U
                                              or sh.shape(d.target.index) != U for d in ss):
                syms[arr] = V
                changed = True
        for sym, ds in defs.items():
            old = sh.sym_shape(sym)
            if old == V:
                continue
            shapes = {V if d.mask is not None and d.mask is not entry else sh.shape(d.value) for d in ds}
            if sym.kind == "param":
                shapes.add(syms[sym])
            new = shapes.pop() if len(shapes) == 1 else V
            if new != old and sym.kind == "param" and sym.shape in ("uniform", "linear"):
                raise error(sym.coord, f"{sym.shape} parameter '{sym.name}' is assigned a value that differs "
                                       "between lanes", "assign it to a local variable instead")
            if new != old:
                syms[sym] = new
                changed = True
    return sh
