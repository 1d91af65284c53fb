"""Which loops are uniform (every lane runs them the same number of times), decided on the
structured IR before if-conversion (WFV IV-B, seen from the loops).

A loop is uniform when it is entered by every lane (not inside a varying ``if``, nor inside a
divergent loop, nor after a jump or a divergent loop), leaves only by top-level ``if (c) break;``
statements whose conditions are uniform, and has no ``continue`` or jump out. A variable is
varying when a parameter, when assigned a varying value, or when assigned where not every lane
runs (inside a varying ``if`` or a divergent loop, after a jump or a divergent loop). The facts
depend on each other: iterate to a fixpoint.

The uniform branches (predication/uniform_branches.py): an ``if`` whose condition reads only
uniform values and that no jump leaves stays a branch, so what it assigns is uniform when the
value is, and a loop inside it can be uniform.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .ir import (
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
    Stmt,
    Symbol,
    Unary,
    Var,
    stmt_exprs,
    walk_stmts,
)
from .local_arrays import is_local_array


def _varying_expr(e: Expr, vs: set[Symbol]) -> bool:
    for n in e.walk():
        if isinstance(n, Var) and n.sym in vs:
            return True
        if isinstance(n, Call) or (isinstance(n, Unary) and n.op == "*"):
            return True
    return False


def _exits_ok(loop: Loop, vs: set[Symbol]) -> bool:
    for s in loop.body:
        if isinstance(s, If) and s.then and len(s.then) == 1 and isinstance(s.then[0], Break) and not s.els:
            if _varying_expr(s.cond, vs):
                return False
            continue
        if _has_exit(s):
            return False
    return not any(isinstance(s, Label) for s in loop.body)


def _has_exit(s: Stmt) -> bool:
    """A break of this loop, or any goto, somewhere inside ``s`` (not counting nested loops' breaks)."""
    if isinstance(s, (Break, Goto)):
        return True
    if isinstance(s, If):
        return any(_has_exit(x) for x in s.then + s.els)
    if isinstance(s, Block):
        return any(_has_exit(x) for x in s.body)
    if isinstance(s, Loop):
        return any(isinstance(x, Goto) for x in _walk(s.body))
    return False


def _walk(stmts: list[Stmt]):
    for s in stmts:
        yield s
        if isinstance(s, If):
            yield from _walk(s.then)
            yield from _walk(s.els)
        elif isinstance(s, (Block, Loop)):
            yield from _walk(s.body)


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


def _leaves(s: If) -> bool:
    """Some jump leaves the ``if`` (a break of the enclosing loop, a goto to a label outside it, a
    return), or a label in it (outside its loops) may be entered from outside."""
    inner = {x.name for x in _walk(s.then + s.els) if isinstance(x, Label)}

    def go(stmts: list[Stmt], in_loop: bool) -> bool:
        for x in stmts:
            if isinstance(x, Goto) and x.label not in inner:
                return True
            if isinstance(x, Label) and not in_loop:
                return True
            if isinstance(x, Break) and not in_loop:
                return True
            if isinstance(x, If) and (go(x.then, in_loop) or go(x.els, in_loop)):
                return True
            if isinstance(x, Block) and go(x.body, in_loop):
                return True
            if isinstance(x, Loop) and go(x.body, True):
                return True
        return False

    return go(s.then + s.els, False)


def _arrays_passed(fn: Function) -> set[Symbol]:
    """Local arrays that calls get (``f(a)``, ``f(&a[i])``): one copy per lane."""
    out: set[Symbol] = set()
    for s in walk_stmts(fn.body):
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

    Everything after a statement that a jump leaves, or after a divergent loop, runs under a mask
    (the converter's join and exit masks), and so is not uniform: the facts stay consistent with
    the shapes computed after if-conversion."""
    vs: set[Symbol] = {p for p in fn.params if p.shape != "uniform"}
    vs |= {n.operand.sym for s in walk_stmts(fn.body) for e in stmt_exprs(s) for n in e.walk()
           if isinstance(n, Unary) and n.op == "&" and isinstance(n.operand, Var)}
    vs |= _arrays_passed(fn)
    # ``vs`` only grows, and every test is monotone in it (more varying variables: more masked code,
    # more varying variables), so updating it in place during a pass reaches the same least fixpoint
    # as passes over a frozen copy, in one pass for values that flow forward (straight-line code
    # took one pass per statement of a dependence chain); the last pass adds nothing, so ``out``
    # holds the decisions made with the final set.
    while True:
        out = Divergence()
        before = len(vs)
        new_vs = vs

        def visit(stmts: list[Stmt], masked: bool) -> None:
            for s in stmts:
                if isinstance(s, Assign) and isinstance(s.target, Var):
                    if masked or _varying_expr(s.value, vs):
                        new_vs.add(s.target.sym)
                elif isinstance(s, Assign) and isinstance(s.target, Index) and isinstance(s.target.base, Var) \
                        and is_local_array(s.target.base.sym):  # a local array's elements (expand/shape.py)
                    if masked or _varying_expr(s.value, vs) or _varying_expr(s.target.index, vs):
                        new_vs.add(s.target.base.sym)
                elif isinstance(s, If):
                    if _uniform_cond(s.cond, vs) and not _leaves(s):
                        out.ifs.add(s)
                        visit(s.then, masked)
                        visit(s.els, masked)
                    else:
                        visit(s.then, True)
                        visit(s.els, True)
                elif isinstance(s, Block):
                    visit(s.body, masked)
                elif isinstance(s, Loop):
                    if loops_allowed and not masked and _exits_ok(s, vs):
                        out.loops.add(s)
                        # The exit tests themselves are real branches, not masks.
                        for x in s.body:
                            if not (isinstance(x, If) and len(x.then) == 1 and isinstance(x.then[0], Break)):
                                visit([x], False)
                    else:
                        visit(s.body, True)
                        masked = True  # after it: the lanes that left by its break
                if _has_exit(s) or isinstance(s, Label):
                    masked = True

        visit(fn.body, False)
        if len(vs) == before:
            return out
