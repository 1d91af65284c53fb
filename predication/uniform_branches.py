"""Uniform branches (WFV's uniform branches; issue 5): an ``if`` whose condition has the same value
in every lane stays a plain ``if`` in the output, with no masks and no blends of its own.

expand/analysis/shapes.py finds them (the condition reads only uniform values, and no jump leaves the
``if``). The converter gives both sides the mask of the block that branches (every lane, or the
enclosing mask inside a divergent region: then the statements stay masked with it), linearizes as
usual and decides the blends on the flat list; ``nest`` then moves each side's statements under a
``UniformIf``. An ``if`` on a uniform condition that a jump leaves (an early ``return``, a
``break``, a ``goto``) keeps today's masked form: its condition is broadcast into a mask.
"""

from __future__ import annotations

from dataclasses import dataclass

from expand.analysis.cfg import BasicBlock
from expand.ir.nodes import Expr, If, MaskedLoop, Stmt, Symbol, UniformIf


@dataclass(eq=False)
class UniformBranch:
    """One uniform ``if``: the block ``head`` that branches on ``cond`` to ``then``/``els``, both
    entered with ``mask`` (the head's mask)."""

    head: BasicBlock
    cond: Expr
    then: BasicBlock
    els: BasicBlock
    mask: Symbol | None
    stmt: If

    def side(self, b: BasicBlock) -> str | None:
        """'then' or 'else' when block ``b`` lies on that side of the branch, else None."""
        if b.cfg is not self.head.cfg:
            return None
        cfg = b.cfg
        if cfg.dominates(self.then, b):
            return "then"
        if cfg.dominates(self.els, b):
            return "else"
        return None


class Sides:
    """The uniform branch sides each block lies on, as a set of (branch number, 'then' | 'else').

    A block lies on a side when that side's first block dominates it, so its set is its immediate
    dominator's plus the side it starts, if any: each block's set is made once, from its
    dominator's (``UniformBranch.side`` asks the same question of one branch)."""

    def __init__(self, branches: list[UniformBranch]) -> None:
        self.branches = branches
        self.starts: dict[BasicBlock, tuple[int, str]] = {}
        for k, br in enumerate(branches):
            self.starts.setdefault(br.then, (k, "then"))
            self.starts.setdefault(br.els, (k, "else"))
        self.memo: dict[BasicBlock, frozenset[tuple[int, str]]] = {}

    def context(self, b: BasicBlock | None) -> frozenset[tuple[int, str]]:
        if b is None or not self.branches:
            return frozenset()
        chain: list[BasicBlock] = []
        d: BasicBlock | None = b
        while d is not None and d not in self.memo:
            chain.append(d)
            d = d.cfg.idom.get(d) if d.cfg is not None else None
        ctx = self.memo[d] if d is not None else frozenset()
        for a in reversed(chain):
            if a in self.starts:
                ctx = ctx | {self.starts[a]}
            self.memo[a] = ctx
        return ctx

    def side(self, k: int, b: BasicBlock | None) -> str | None:
        """Which side of branch ``k`` block ``b`` lies on (None: neither)."""
        ctx = self.context(b)
        return "then" if (k, "then") in ctx else "else" if (k, "else") in ctx else None


def runs_with(later: BasicBlock | None, earlier: BasicBlock | None, sides: Sides) -> bool:
    """Whether a statement of block ``later`` runs whenever one of block ``earlier`` (before it in
    the linear order) did, as far as uniform branches go: ``later`` lies on no branch side that
    ``earlier`` does not."""
    if not sides.branches:
        return True
    return sides.context(later) <= sides.context(earlier)


def nest(stmts: list[Stmt], branches: list[UniformBranch], block_of: dict[Stmt, BasicBlock]) -> list[Stmt]:
    """Move the statements of each uniform branch's sides under a ``UniformIf`` (also inside loops)."""
    if not branches:
        return stmts
    return _nest(stmts, Sides(branches), block_of, frozenset())


def _nest(stmts: list[Stmt], sides: Sides, block_of: dict[Stmt, BasicBlock], done: frozenset[int]) -> list[Stmt]:
    branches = sides.branches
    out: list[Stmt] = []
    i = 0
    while i < len(stmts):
        s = stmts[i]
        b = block_of.get(s)
        # the outermost branch (its head comes first) this statement lies in, not yet opened
        inside = [k for k, _ in sides.context(b) if k not in done]
        if not inside:
            if isinstance(s, MaskedLoop):
                s.body = _nest(s.body, sides, block_of, frozenset())
            out.append(s)
            i += 1
            continue
        k = min(inside, key=lambda n: (branches[n].head.order, n))
        br = branches[k]
        j = i
        while j < len(stmts) and sides.side(k, block_of.get(stmts[j])):
            j += 1
        then = [x for x in stmts[i:j] if sides.side(k, block_of[x]) == "then"]
        els = [x for x in stmts[i:j] if sides.side(k, block_of[x]) == "else"]
        u = UniformIf(br.stmt.coord, br.cond, _nest(then, sides, block_of, done | {k}),
                      _nest(els, sides, block_of, done | {k}), br.stmt.likely, mask=br.mask)
        block_of[u] = br.head
        out.append(u)
        i = j
    return out
