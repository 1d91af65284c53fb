"""Which loops are uniform (every lane runs them the same number of times), decided on the
structured IR before if-conversion (WFV IV-B, seen from the loops).

A loop is uniform when it is entered by every lane (not inside any ``if``, since the spine
if-converts every branch, nor inside a divergent loop), leaves only by top-level
``if (c) break;`` statements whose conditions are uniform, and has no ``continue`` or jump out.
A variable is varying when a parameter, when assigned a varying value, or when assigned inside an
``if`` or a divergent loop. The two facts depend on each other: iterate to a fixpoint.
"""

from __future__ import annotations

from .ir import Assign, Block, Break, Call, Expr, Function, Goto, If, Label, Loop, Stmt, Symbol, Unary, Var


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
    vs: set[Symbol] = {p for p in fn.params if p.shape != "uniform"}
    while True:
        uniform: set[Loop] = set()
        new_vs = set(vs)

        def visit(stmts: list[Stmt], masked: bool) -> None:
            for s in stmts:
                if isinstance(s, Assign) and isinstance(s.target, Var):
                    if masked or _varying_expr(s.value, vs):
                        new_vs.add(s.target.sym)
                elif isinstance(s, If):
                    visit(s.then, True)
                    visit(s.els, True)
                elif isinstance(s, Block):
                    visit(s.body, masked)
                elif isinstance(s, Loop):
                    ok = not masked and _exits_ok(s, vs)
                    if ok:
                        uniform.add(s)
                        # The exit tests themselves are real branches, not masks.
                        for x in s.body:
                            if not (isinstance(x, If) and len(x.then) == 1 and isinstance(x.then[0], Break)):
                                visit([x], False)
                    else:
                        visit(s.body, True)

        visit(fn.body, False)
        if new_vs == vs:
            return uniform
        vs = new_vs
