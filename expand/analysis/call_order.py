"""Calls that write a variable another part of the same expression reads: C leaves their order open.

In ``t = h(&s) + s.x`` C sequences the call's arguments before its body, but the body and the evaluation
of the other operand (``s.x``) are only indeterminately sequenced (C11 6.5.2.2p10): the call may come
first or last, and both are C. expand takes every call out of its expression before the rest of it
(expand/passes/lower.py), so ``s.x`` reads what ``h`` wrote; a C compiler may read it before the call,
and the scalar build then computes another value than the vector code, with no error on either side.
So expand warns (``call_order_warnings``), naming the call, the variable and what to write instead.

What counts, before lowering (the statement's expressions as the source wrote them):

* a call writes a variable whose address is one of its arguments (``&v``, ``&v.f``, ``&v[i]``, an array
  ``v``), unless the parameter points to ``const`` (a function of the file) or a declaration says the
  function is ``const`` or ``pure``;
* a read of that variable's value elsewhere in the expression (a call given its address reads it too),
  where C does not order the two: not
  across ``&&``, ``||`` or ``?:`` (their first operand is sequenced before the rest), nor in the call's
  own arguments (evaluated before its body); an assignment's target counts with its indexes only
  (``a[s.n] = h(&s)`` reads ``s``; ``s.x = h(&s)`` does not);
* two calls of one expression that both write the variable.

Not covered: memory reached through pointers (``h(p) + p[0]``), which would need to know what points where;
file-scope variables a helper assigns, since a function that reads a global it also assigns is refused
(expand/passes/global_writes.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from expand.ir import types as T
from expand.ir.diagnostics import ExpandWarning
from expand.ir.nodes import (
    Aggregate,
    Assign,
    Binary,
    Call,
    Cond,
    Expr,
    Function,
    Index,
    InitList,
    Member,
    Module,
    Symbol,
    Unary,
    Var,
    path_root,
    stmt_exprs,
    walk_stmts,
)

#: the words of every such warning (expand-fuzz tells them by it: expand/check/fuzz.py)
UNORDERED = "C leaves the order of the two open"

#: what an expression writes through calls (variable -> the first call that writes it) and reads
_Effects = tuple[dict[Symbol, Call], set[Symbol]]


def call_order_warnings(fn: Function, mod: Module) -> list[ExpandWarning]:
    """One warning per call whose writes meet an unordered read (or write) of the same expression."""
    found = _Finder(mod)
    for st in walk_stmts(fn.body):
        if isinstance(st, Assign):
            tw, tr = found.place(st.target)
            vw, vr = found.effects(st.value)
            found.meet(tw, tr, vw, vr)
        else:
            for e in stmt_exprs(st):  # (a condition, a returned value, a loop's condition and step)
                found.effects(e)
    return list(found.warnings.values())


class _Finder:
    def __init__(self, mod: Module) -> None:
        self.mod = mod
        self.warnings: dict[tuple, ExpandWarning] = {}

    # -- what an expression writes and reads

    def effects(self, e: Expr) -> _Effects:
        if isinstance(e, Var):
            return {}, set() if isinstance(e.type, T.Array) else {e.sym}
        if isinstance(e, Unary) and e.op == "&":
            return self.place(e.operand)
        if isinstance(e, Binary) and e.op in ("&&", "||"):
            return self.union([self.effects(e.left), self.effects(e.right)])
        if isinstance(e, Cond):
            return self.union([self.effects(e.cond), self.effects(e.then), self.effects(e.els)])
        if isinstance(e, Call):
            parts = [self.effects(a) for a in e.args]
            self.meet_all(parts)
            writes, reads = self.union(parts)
            for sym in self.call_writes(e):
                writes.setdefault(sym, e)
            return writes, reads | {sym for sym in map(_addressed, e.args) if sym is not None}
        if isinstance(e, Member) and not e.arrow:
            return self.effects(e.base)
        if isinstance(e, Index) and isinstance(e.base.type, T.Array):  # (an element of an array variable)
            writes, reads = self.place(e)
            root = _var(path_root(e.base))
            return writes, reads | ({root} if root is not None else set())
        if isinstance(e, (Aggregate, InitList)) or e.children():
            parts = [self.effects(c) for c in e.children()]
            self.meet_all(parts)
            return self.union(parts)
        return {}, set()

    def place(self, e: Expr) -> _Effects:
        """What evaluating ``e`` as a place (an assignment's target, ``&e``) writes and reads: its indexes
        and the pointers it goes through, not the object it names."""
        if isinstance(e, Var):
            return {}, set()
        if isinstance(e, Member) and not e.arrow:
            return self.place(e.base)
        if isinstance(e, Index) and isinstance(e.base.type, T.Array):
            parts = [self.place(e.base), self.effects(e.index)]
            self.meet_all(parts)
            return self.union(parts)
        return self.effects(e.operand if isinstance(e, Unary) and e.op == "*" else e)

    @staticmethod
    def union(parts: list[_Effects]) -> _Effects:
        writes: dict[Symbol, Call] = {}
        reads: set[Symbol] = set()
        for w, r in parts:
            for k, v in w.items():
                writes.setdefault(k, v)
            reads |= r
        return writes, reads

    # -- conflicts

    def meet_all(self, parts: list[_Effects]) -> None:
        """Operands C evaluates in no fixed order, pairwise."""
        for i, (wi, ri) in enumerate(parts):
            for wj, rj in parts[i + 1:]:
                self.meet(wi, ri, wj, rj)

    def meet(self, w1: dict[Symbol, Call], r1: set[Symbol], w2: dict[Symbol, Call], r2: set[Symbol]) -> None:
        both = {sym for sym, call in w1.items() if sym in w2 and w2[sym] is not call}
        for sym in both:  # (one warning for the two calls, which also read what they are given)
            self.warn(w1[sym], sym, f"writes in its call of '{w2[sym].func}'", "makes the calls from left to right")
        for writes, reads in ((w1, r2), (w2, r1)):
            for sym, call in writes.items():
                if sym in reads and sym not in both:
                    self.warn(call, sym, "reads", "makes the call first")

    def warn(self, call: Call, sym: Symbol, how: str, expand_order: str) -> None:
        key = (str(call.coord), sym.name)
        if key in self.warnings:
            return
        self.warnings[key] = ExpandWarning(
            call.coord,
            f"the call of '{call.func}' writes '{sym.name}' (its address is an argument), which the same expression "
            f"also {how}: {UNORDERED}; expand {expand_order}, a C compiler may not, and the "
            "scalar build can then compute another value than the vector code",
            f"make the call a statement of its own ('t = {call.func}(...);', then the expression with 't')")

    # -- what a call writes

    def call_writes(self, call: Call) -> Iterator[Symbol]:
        if self.mod.effects.get(call.func) in ("const", "pure"):
            return
        callee = self.mod.functions.get(call.func)
        for i, a in enumerate(call.args):
            sym = _addressed(a)
            if sym is None:
                continue
            if callee is not None and i < len(callee.params):
                pt = callee.params[i].type
                if isinstance(pt, T.Pointer) and pt.const:
                    continue
            yield sym


def _addressed(a: Expr) -> Symbol | None:
    """The variable whose storage argument ``a`` hands over: ``&v``, ``&v.f``, ``&v[i]``, an array ``v``."""
    if isinstance(a, Var) and isinstance(a.type, T.Array):
        return a.sym
    if isinstance(a, Unary) and a.op == "&":
        return _var(path_root(a.operand))
    return None


def _var(e: Expr) -> Symbol | None:
    return e.sym if isinstance(e, Var) else None
