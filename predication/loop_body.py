"""Facts about a divergent loop's body (one acyclic region, expand/analysis/cfg.py) that the blend rule
(predication/ifconvert.py) and the scalar counters (predication/counters.py) share: where lanes leave
it, which blocks run in every lane still iterating, and which variables carry a value into it."""

from __future__ import annotations

from dataclasses import dataclass

from expand.analysis.cfg import CFG, BasicBlock
from expand.ir.nodes import Assign, Stmt, Symbol, Var, flatten, stmt_reads


@dataclass(eq=False)
class ExitPoint:
    """Where lanes leave a divergent loop: those of ``mask``, after the first ``index`` statements of
    the loop's body, from block ``block`` of the body's CFG."""

    mask: Symbol
    index: int
    block: BasicBlock


def spine(b: BasicBlock, cfg: CFG) -> bool:
    """Block ``b`` of a loop body's CFG runs in every lane still in the loop when it runs: every
    block after it from which lanes leave the body (a ``break``, a jump out, the back edge) is one
    that ``b`` dominates. (Its mask is then exactly the lanes still iterating.)"""
    for x in cfg.blocks:
        if x.pseudo is not None or x is cfg.exit or x.order <= b.order:
            continue
        if any(y.pseudo is not None for y in x.succs) and not cfg.dominates(b, x):
            return False
    return True


def carried(x: Symbol, stmts: list[Stmt], cfg: CFG, block_of: dict[Stmt, BasicBlock]) -> bool:
    """Some read of ``x`` among ``stmts`` (one region of a loop body, in block order) may see its value
    from before the region: a path from the region's entry to the read assigns no ``x`` first
    (assignments inside nested loops do not count: they may run no iteration)."""
    by_block: dict[BasicBlock, list[Stmt]] = {}
    for t in stmts:
        b = block_of.get(t)
        if b is not None and b.cfg is cfg:
            by_block.setdefault(b, []).append(t)
    done: dict[BasicBlock, bool] = {}
    for b in cfg.blocks:
        d = bool(b.preds) and all(done.get(p, False) for p in b.preds)
        for t in by_block.get(b, []):
            if x in _reads(t) and not d:
                return True
            if isinstance(t, Assign) and isinstance(t.target, Var) and t.target.sym is x:
                d = True
        done[b] = d
    return False


def _reads(s: Stmt) -> set[Symbol]:
    r: set[Symbol] = set()
    for t in flatten([s]):
        r |= stmt_reads(t)
    return r
