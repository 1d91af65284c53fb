"""``--remarks`` for loops: which loops run under a mask and what each of their iterations blends.

A divergent loop (lanes leave it at different iterations) runs while any lane is active, and a value
carried around it that is read after it (or by lanes that left, through a later iteration's read)
is blended with the loop's mask in every iteration. These are the costs ispc's performance warnings
name; the BOSCC guards (predication/boscc.py) and the printer's per-lane calls, loads and stores
(emit/printer.py) add their own remarks to ``Linear.remarks``.
"""

from __future__ import annotations

from expand.ir.diagnostics import Remark
from expand.ir.nodes import MASK, Assign, MaskedLoop, Stmt, Var, flatten, flatten_own

from .ifconvert import Linear


def loop_remarks(lin: Linear) -> None:
    """Add a remark for each loop of ``lin`` that runs under a mask, naming its scalar counters and
    the variables blended in each iteration."""
    for loop in flatten(lin.stmts):
        if not isinstance(loop, MaskedLoop) or loop.active is None:
            continue
        counter_syms = getattr(loop, "counters", [])
        counters = [x.name for x in counter_syms]
        kept = f"; {', '.join(repr(n) for n in counters)} stays a scalar counter" if counters else ""
        lin.remarks.append(Remark(loop.coord, "divergent-loop",
                                  f"this loop runs while any lane is active: lanes leave it at different "
                                  f"iterations{kept}"))
        blended: dict[str, Stmt] = {}
        for t in flatten_own(loop.body):
            if isinstance(t, Assign) and t.mask is not None and t.blend and isinstance(t.target, Var) \
                    and t.target.sym.type != MASK and not t.target.sym.temp \
                    and not (isinstance(t.value, Var) and t.value.sym in counter_syms):  # (a live-out, once)
                blended.setdefault(t.target.sym.name, t)
        for name, t in blended.items():
            lin.remarks.append(Remark(t.coord, "loop-blend",
                                      f"'{name}' is blended with the loop's mask in every iteration: lanes "
                                      "that left keep their value, which is read after the loop or by a "
                                      "later iteration"))

