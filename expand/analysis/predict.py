"""How often a block runs: from the source's ``__builtin_expect`` hints, and for branches with
none, a static prediction.

``likely`` reads the hints alone. ``rare`` adds, for unhinted branches, two of Ball and Larus's
heuristics ("Branch prediction for free", PLDI 1993), the ones that describe how libm-style code is
written:

- opcode: an integer is rarely negative (``x < 0`` and ``x <= 0`` fail), and rarely equal to a
  given constant (``x == c`` fails; ``x != c`` and ``if (x)`` hold); nor is a float;
- return: an arm whose every path leaves the construct (``return``, which single-exit normalization
  made a ``goto`` to the exit; ``break``; ``goto``) while the other arm goes on is the special case.

and one that reads the hints of a chain: in ``if (a) A else if (__builtin_expect (b, 1)) B ...`` the
source marks the way through the ``else`` as the common one, so ``A`` is the special case (glibc's
sinf and cosf: ``|x| < pi/4`` first, then the likely ``|x| < 120``).

BOSCC's ``auto`` uses both (predication/boscc.py): a rare region is skipped almost always, so a
guard on it pays when it holds more work than the test. A wrong guess costs the test, and a
misprediction whenever the lanes disagree.
"""

from __future__ import annotations

from expand.analysis.cfg import BasicBlock
from expand.ir.nodes import Binary, Cast, Const, Expr, Unary
from expand.ir.types import Int

_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def rare(b: BasicBlock) -> bool:
    """Whether block ``b`` runs almost never: reached by an edge marked unlikely, or an arm of a
    branch without hints that the heuristics predict rare."""
    if b.hint is not None:
        return b.hint is False
    d = b.cfg.idom.get(b) if b.cfg is not None else None
    if d is None or d.term is None or d.term[0] != "branch" or b not in d.term[2:4]:
        return False
    _, cond, then, els, _ = d.term
    truth = guess(cond)
    if truth is not None:
        return truth is (b is els)
    if b is then and _leads_to_likely(els):
        return True
    other = els if b is then else then
    g = d.cfg
    return d.join is not None and not g.reaches(b, d.join) and g.reaches(other, d.join)


def _leads_to_likely(b: BasicBlock) -> bool:
    """Whether block ``b`` (an ``else`` arm) goes on, straight (jumps into blocks only it enters: the
    statements of inlined helpers in the condition), to a branch whose condition the source marks likely
    (not one whose ``else`` is likely because its condition is marked unlikely)."""
    while b.term is not None and b.term[0] == "jump":  # (a cycle comes back to a block of two predecessors)
        nxt = b.term[1]
        if len(nxt.preds) != 1:
            return False
        b = nxt
    return b.term is not None and b.term[0] == "branch" and b.term[2].hint is True  # (its then arm: ``, 1)``)


def likely(a: BasicBlock) -> bool:
    """Whether the source says block ``a`` runs almost always: reached by an edge marked likely, or
    the join after a branch marked unlikely (glibc's main path after ``if (__glibc_unlikely
    (special)) {...}``: only the lanes of the rare case could be off)."""
    if a.hint is not None:
        return a.hint
    d = a.cfg.idom.get(a) if a.cfg is not None else None
    return d is not None and any(s.hint is False for s in d.succs if s is not a)


def guess(e: Expr) -> bool | None:
    """The predicted truth of branch condition ``e`` (None: no heuristic applies)."""
    while isinstance(e, Cast):
        e = e.operand
    if isinstance(e, Unary) and e.op == "!":
        inner = guess(e.operand)
        return None if inner is None else not inner
    if isinstance(e, Binary) and e.op in ("&&", "||"):
        a, b = guess(e.left), guess(e.right)
        if e.op == "&&":
            return False if False in (a, b) else True if a is True and b is True else None
        return True if True in (a, b) else False if a is False and b is False else None
    if not isinstance(e, Binary) or e.op not in _MIRROR:
        return True  # ``if (x)`` is ``x != 0``
    op, x, c = e.op, e.left, _const(e.right)
    if c is None:
        op, x, c = _MIRROR.get(op, op), e.right, _const(e.left)
    if c is None:
        return None
    if op in ("==", "!="):
        return op == "!="
    if not (isinstance(x.type, Int) and x.type.signed) or c != 0:
        return None
    return op in (">", ">=")


def _const(e: Expr) -> int | float | None:
    while isinstance(e, Cast):
        e = e.operand
    return e.value if isinstance(e, Const) else None

