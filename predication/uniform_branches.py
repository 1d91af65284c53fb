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


def context(b: BasicBlock | None, branches: list[UniformBranch]) -> frozenset[tuple[int, str]]:
    """The uniform branch sides block ``b`` lies on."""
    if b is None:
        return frozenset()
    out = set()
    for i, br in enumerate(branches):
        sd = br.side(b)
        if sd is not None:
            out.add((i, sd))
    return frozenset(out)


def runs_with(later: BasicBlock | None, earlier: BasicBlock | None, branches: list[UniformBranch]) -> bool:
    """Whether a statement of block ``later`` runs whenever one of block ``earlier`` (before it in
    the linear order) did, as far as uniform branches go: ``later`` lies on no branch side that
    ``earlier`` does not."""
    if not branches:
        return True
    return context(later, branches) <= context(earlier, branches)


def nest(stmts: list[Stmt], branches: list[UniformBranch], block_of: dict[Stmt, BasicBlock]) -> list[Stmt]:
    """Move the statements of each uniform branch's sides under a ``UniformIf`` (also inside loops)."""
    if not branches:
        return stmts
    return _nest(stmts, branches, block_of, frozenset())


def _nest(stmts: list[Stmt], branches: list[UniformBranch], block_of: dict[Stmt, BasicBlock],
          done: frozenset[int]) -> list[Stmt]:
    out: list[Stmt] = []
    i = 0
    while i < len(stmts):
        s = stmts[i]
        b = block_of.get(s)
        # the outermost branch (its head comes first) this statement lies in, not yet opened
        inside = [k for k, br in enumerate(branches) if k not in done and b is not None and br.side(b)]
        if not inside:
            if isinstance(s, MaskedLoop):
                s.body = _nest(s.body, branches, block_of, frozenset())
            out.append(s)
            i += 1
            continue
        k = min(inside, key=lambda n: branches[n].head.order)
        br = branches[k]
        j = i
        while j < len(stmts) and block_of.get(stmts[j]) is not None and br.side(block_of[stmts[j]]):
            j += 1
        then = [x for x in stmts[i:j] if br.side(block_of[x]) == "then"]
        els = [x for x in stmts[i:j] if br.side(block_of[x]) == "else"]
        u = UniformIf(br.stmt.coord, br.cond, _nest(then, branches, block_of, done | {k}),
                      _nest(els, branches, block_of, done | {k}), br.stmt.likely, mask=br.mask)
        block_of[u] = br.head
        out.append(u)
        i = j
    return out
