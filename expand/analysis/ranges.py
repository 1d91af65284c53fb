"""Value ranges for printing uniform C safely: what the tests around a value say of it (``x > -1.0f &&
x < 256.0f``), whether a float-to-integer conversion may be out of range, whether a shift count is in
range, and bounds of indexes that are never negative. Facts only: expand/passes/fold.py folds with its
own ``int_range``; emit/printer.py decides from these where uniform C needs a guard or a mask."""

from __future__ import annotations

import math

from expand.ir import types as T
from expand.ir.cprint import cexpr
from expand.ir.nodes import Binary, Call, Cast, Cond, Const, Expr, Member, Unary, Var

#: What tests say of values: the C text of a value -> (lower bound, strict, upper bound, strict).
Facts = dict[str, tuple[float, bool, float, bool]]


def range_facts(c: Expr, facts: Facts) -> Facts:
    """``facts`` and what the test ``c`` says when true: its comparisons with constants, joined by ``&&``
    (the range checks of C code that converts only what fits: ``x > -1.0f && x < 256.0f``)."""
    out = dict(facts)
    todo = [c]
    while todo:
        t = todo.pop()
        if isinstance(t, Binary) and t.op == "&&":
            todo += [t.left, t.right]
            continue
        if not (isinstance(t, Binary) and t.op in ("<", "<=", ">", ">=")):
            continue
        x, k, op = t.left, constant_value(t.right), t.op
        if k is None:
            x, k, op = t.right, constant_value(t.left), {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
        if k is None or any(isinstance(n, Call) for n in x.walk()):  # (a call may not give the same value again)
            continue
        names = [cexpr(x)]
        if isinstance(x, Cast) and x.type.is_float() and x.operand.type.is_float():
            names.append(cexpr(x.operand))  # ((double)f: the float's value)
        for name in names:
            lo, lo_s, hi, hi_s = out.get(name, (-math.inf, False, math.inf, False))
            if op in (">", ">=") and (k, op == ">") > (lo, lo_s):
                lo, lo_s = k, op == ">"
            if op in ("<", "<=") and (-k, op == "<") > (-hi, hi_s):
                hi, hi_s = k, op == "<"
            out[name] = (lo, lo_s, hi, hi_s)
    return out


def constant_value(x: Expr) -> float | None:
    """The finite value of constant ``x`` (a literal, negated or converted: ``-0.5``, ``(double)0``), else None."""
    if isinstance(x, Unary) and x.op == "-":
        v = constant_value(x.operand)
        return None if v is None else -v
    if isinstance(x, Cast) and x.type.is_arith():
        v = constant_value(x.operand)
        if v is None or not x.type.is_float():
            return None
        return T.float32(v) if x.type.bits == 32 and abs(v) < 3e38 else float(v)
    if isinstance(x, Const) and isinstance(x.value, (int, float)) and math.isfinite(x.value):
        return x.value
    return None


def fits(t: T.Int, x: Expr, facts: Facts) -> bool:
    """Floating value ``x`` is known to convert to ``t`` in range: a constant that does, a ``?:`` of such,
    or a value the tests around it bound (``x > -1.0f && x < 256.0f ? (uint8_t)x : 0``)."""
    v = constant_value(x)
    if v is not None:
        return t.min - 1 < v < t.max + 1
    if isinstance(x, Cond):
        return fits(t, x.then, range_facts(x.cond, facts)) and fits(t, x.els, facts)
    if cexpr(x) not in facts:
        return False
    lo, lo_s, hi, hi_s = facts[cexpr(x)]
    return (lo > t.min - 1 or lo == t.min - 1 and lo_s) and (hi < t.max + 1 or hi == t.max + 1 and hi_s)


def may_overflow_conversion(e: Expr, facts: Facts | None = None) -> bool:
    """``e`` converts a floating value to an integer type where it may be out of range (undefined in C), the
    tests of its ``?:`` and ``&&`` taken into account. Where the scalar code converted only under a test no
    lane passes, the vector code must not convert it either, not even a uniform value: Clang makes poison of an
    out-of-range conversion and folds what uses it into anything (expand-fuzz rvv 20261127-108: ``(int)
    200561141380.8`` under a false ``if``; u5 got -1 in lanes the ``if`` left alone; the sse2 output,
    compiled by Clang, too)."""
    facts = {} if facts is None else facts
    if isinstance(e, Cast) and e.operand.type.is_float() and isinstance(e.type, T.Int) and not e.type.is_bool \
            and not fits(e.type, e.operand, facts):
        return True
    if isinstance(e, Cond):
        return may_overflow_conversion(e.cond, facts) or may_overflow_conversion(e.then, range_facts(e.cond, facts)) \
            or may_overflow_conversion(e.els, facts)
    if isinstance(e, Binary) and e.op == "&&":
        return may_overflow_conversion(e.left, facts) or may_overflow_conversion(e.right, range_facts(e.left, facts))
    return any(may_overflow_conversion(c, facts) for c in e.children())


def shift_width(e: Binary) -> int:
    """The width C shifts ``e`` (a ``<<`` or ``>>``) in: its promoted type's (narrow lanes shift as int)."""
    return max(32, e.type.bits)


def count_in_range(n: Expr, bits: int, facts: Facts | None = None) -> bool:
    """Shift count ``n`` is known to lie in [0, ``bits``): a constant, a mask (``n & 31``), a remainder, a
    ``?:`` of such, or a value the tests around it bound (``n >= 0 && n < 32 ? x << n : 0``)."""
    facts = {} if facts is None else facts
    top = index_bound(n)
    if top is not None:
        return top < bits
    if isinstance(n, Cond):
        return count_in_range(n.then, bits, range_facts(n.cond, facts)) and count_in_range(n.els, bits, facts)
    if cexpr(n) not in facts or not isinstance(n.type, T.Int):
        return False
    lo, lo_s, hi, hi_s = facts[cexpr(n)]  # (of an integer: n > -1 is n >= 0, n <= 31 is n < 32)
    return (lo > -1 or lo == -1 and lo_s or not n.type.signed) and (hi < bits or hi == bits and hi_s)


def whole_array(e: Expr) -> bool:
    """``e`` is an array object of known length: a variable or a member of one (``perm``,
    ``__logf_data.tab``), so an index of an element read from it lies in [0, length)."""
    if not isinstance(e.type, T.Array) or not e.type.length:
        return False
    while isinstance(e, Member) and not e.arrow:
        e = e.base
    return isinstance(e, Var)


def index_bound(e: Expr) -> int | None:
    """The largest value of integer expression ``e`` when it is known never to be negative (a mask
    ``& 255``, a remainder ``% N``, a shifted unsigned value, a narrow unsigned type), else None."""
    t = e.type
    if not isinstance(t, T.Int):
        return None
    if isinstance(e, Const):
        return e.value if isinstance(e.value, int) and e.value >= 0 else None
    if t.is_bool:
        return 1
    if not t.signed and t.bits < 32:
        return t.max
    if isinstance(e, Cast) and isinstance(e.operand.type, T.Int):
        b = index_bound(e.operand)
        return b if b is not None and b <= t.max else None
    if not isinstance(e, Binary):
        return None
    lb, rb = index_bound(e.left), index_bound(e.right)
    if e.op == "&":
        known = [b for b in (lb, rb) if b is not None]
        return min(known) if known else None
    if e.op == "%" and rb is not None and rb > 0 and (lb is not None or not t.signed):
        return rb - 1 if lb is None else min(lb, rb - 1)
    if e.op == ">>" and isinstance(e.right, Const) and isinstance(e.right.value, int):
        if lb is not None:
            return lb >> e.right.value
        return None if t.signed else t.max >> e.right.value
    if e.op in ("+", "*") and lb is not None and rb is not None:
        v = lb + rb if e.op == "+" else lb * rb
        return v if v <= t.max else None
    return None
