"""Integer constant folding: ``(uint32_t)(1 << 4)`` becomes ``16`` (exact C semantics, LP64)."""

from __future__ import annotations

import math

from expand.ir.nodes import (
    Binary,
    Call,
    Cast,
    Cond,
    Const,
    Expr,
    Function,
    Index,
    MathOp,
    Member,
    Unary,
    as_type,
    map_expr,
    map_stmt_exprs,
    same_value,
    walk_stmts,
)
from expand.ir.types import Int


def fold_int(e: Expr) -> int | None:
    """The value of an integer constant expression, or None (division by zero and overlong shifts too)."""
    if isinstance(e, Const) and isinstance(e.value, int):
        return e.value
    if isinstance(e, Cast) and isinstance(e.type, Int):
        v = fold_int(e.operand)
        return None if v is None else e.type.wrap(v)
    if isinstance(e, Unary) and isinstance(e.type, Int):
        v = fold_int(e.operand)
        if v is None:
            return None
        r = {"-": -v, "~": ~v, "!": int(not v)}.get(e.op)
        return None if r is None else e.type.wrap(r)
    if isinstance(e, Binary) and e.op in ("&&", "||"):  # (C evaluates the right only where the left does not decide)
        a = fold_int(e.left)
        if a is None or bool(a) == (e.op == "||"):
            return None if a is None else int(bool(a))
        b = fold_int(e.right)
        return None if b is None else int(bool(b))
    if isinstance(e, Binary) and isinstance(e.type, Int):
        a, b = fold_int(e.left), fold_int(e.right)
        if a is None or b is None:
            return None
        op = e.op
        if op in ("/", "%") and (b == 0 or (a == e.left.type.min and b == -1)):
            return None
        if op in ("<<", ">>") and not (0 <= b < e.type.bits):
            return None
        r = {
            "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
            "/": lambda: abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1),
            "%": lambda: a - (abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)) * b,
            "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
            "<<": lambda: a << b, ">>": lambda: a >> b,
            "==": lambda: int(a == b), "!=": lambda: int(a != b), "<": lambda: int(a < b),
            "<=": lambda: int(a <= b), ">": lambda: int(a > b), ">=": lambda: int(a >= b),
        }.get(op)
        return None if r is None else e.type.wrap(r())
    return None


_TRUTH = ("==", "!=", "<", "<=", ">", ">=", "&&", "||")


def _bits_exclude(x: Expr, c: int) -> bool:
    """Whether ``x``, ``y & C``, ``y | C`` or ``y << K`` (also truncated by a cast), or a truth value,
    can never equal the constant ``c`` (a bit of c that C leaves 0, or a bit C sets that c does not,
    one of the K low bits; a truth value is 0 or 1): gcc -Wall says 'bitwise comparison always
    evaluates to false' (-Wtautological-compare) or 'comparison of constant with boolean expression'
    (-Wbool-compare) of such a comparison, which a switch on 'y & 3' with a 'case 5' becomes, or an
    inlined helper's result compared by its caller (fuzz seed 777, programs 123 and 184)."""
    if isinstance(x, Binary) and x.op in _TRUTH or isinstance(x, Unary) and x.op == "!":
        return c not in (0, 1)
    width = x.type.bits if isinstance(x.type, Int) else 64
    while isinstance(x, Cast) and isinstance(x.type, Int) and isinstance(x.operand.type, Int) \
            and x.type.bits <= x.operand.type.bits:  # (a truncation keeps the low bits: only those count)
        width = min(width, x.type.bits)
        x = x.operand
    c &= (1 << width) - 1
    if isinstance(x, Binary) and x.op == "<<" and isinstance(x.type, Int):
        k = fold_int(x.right)
        return k is not None and 0 < k < x.type.bits and bool(c & ((1 << k) - 1))
    if not isinstance(x, Binary) or x.op not in ("&", "|") or not isinstance(x.type, Int):
        return False
    k = fold_int(x.right) if fold_int(x.right) is not None else fold_int(x.left)
    if k is None:
        return False
    m = (1 << min(width, x.type.bits)) - 1
    k, c = k & m, c & m
    return bool(c & ~k) if x.op == "&" else bool(k & ~c)


def fold_bit_compare(e: Expr) -> Expr:
    """``e`` as 0 or 1 where it compares ``y & C`` or ``y | C`` with a constant it can never equal
    (``_bits_exclude``), else ``e`` (for expressions made after constant folding: expand/passes/copyprop.py)."""
    if isinstance(e, Binary) and e.op in ("==", "!=") and isinstance(e.type, Int):
        for x, y in ((e.left, e.right), (e.right, e.left)):
            c = fold_int(y)
            if c is not None and _bits_exclude(x, c):
                v = int(e.op == "!=")
                return Const(e.type, v, str(v))
    return e


def int_range(x: Expr) -> tuple[int, int]:
    """Bounds of integer expression ``x``'s value: a constant's value, what a widening cast of a narrower
    value lets through (``(int64_t)(unsigned char)n`` is in [0, 255]), 0..1 for a truth value or _Bool, 0..K for
    ``y & K`` (K >= 0), else its type's range."""
    t = x.type
    assert isinstance(t, Int)
    v = fold_int(x)
    if v is not None:
        return v, v
    if isinstance(x, Binary) and x.op in _TRUTH or isinstance(x, Unary) and x.op == "!" or t.is_bool:
        return 0, 1
    if isinstance(x, Cast) and isinstance(x.operand.type, Int):
        lo, hi = int_range(x.operand)
        if t.min <= lo and hi <= t.max:
            return lo, hi
    if isinstance(x, Binary) and x.op == "&":
        ks = [k for k in (fold_int(x.left), fold_int(x.right)) if k is not None and 0 <= k <= t.max]
        if ks:
            return 0, min(ks)
    return t.min, t.max


_ORDER = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
          "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def fold_range_compare(e: Expr) -> Expr:
    """``e`` as 0 or 1 where it compares a value with a constant that its range (``int_range``) decides,
    else ``e``: gcc -Wextra says 'comparison is always false due to limited range of data type'
    (-Wtype-limits) of ``(int64_t)(unsigned char)n < -128``, which inlining a helper called with a
    constant makes (fuzz CI programs 20240601-29 and -180). The other side must have no call."""
    if not (isinstance(e, Binary) and e.op in _ORDER and isinstance(e.type, Int)
            and isinstance(e.left.type, Int) and e.left.type == e.right.type):
        return e
    for x, y, swap in ((e.left, e.right, False), (e.right, e.left, True)):
        c = fold_int(y)
        if c is None or any(isinstance(n, Call) for n in x.walk()):
            continue
        lo, hi = int_range(x)
        test = _ORDER[e.op]
        ends = {test(c, v) if swap else test(v, c) for v in (lo, hi)}
        if e.op in ("==", "!=") and lo <= c <= hi and lo != hi:
            continue  # (equality is not monotone: only a constant outside the range decides it)
        if len(ends) == 1:
            v = int(ends.pop())
            return Const(e.type, v, str(v))
    return e


def fold_node(e: Expr) -> Expr:
    """Node ``e`` folded: an integer constant expression as its value, a comparison that its operands'
    bits or ranges decide as 0 or 1 (for ``map_expr``, whose children are folded already)."""
    if isinstance(e, Cond) and isinstance(e.cond.type, Int):
        c = fold_int(e.cond)
        if c is not None:  # (C never evaluates the other arm: '0 ? a << 99 : 0', an inlined helper's constant test)
            return as_type(e.then if c else e.els, e.type)
    if isinstance(e, Cond) and same_value(e.then, e.els) \
            and not any(isinstance(n, (Call, MathOp)) for n in e.cond.walk()):  # (errno of a test's sqrt stays)
        # c ? x : x is x: one arm is evaluated either way. (The select of it, printed as AltiVec's
        # vec_cmpeq(x, vec_sel(x, x, m)), made powerpc GCC 12 compare zeros: true for NaN lanes,
        # expand-fuzz altivec 20261129-1630.)
        return as_type(e.then, e.type)
    if isinstance(e, Cast) and isinstance(e.type, Int) and not e.type.is_bool and e.operand.type.is_float() \
            and _undefined_conversion(e.operand, e.type):
        return Const(e.type, 0, "0")
    if isinstance(e, Cast) and isinstance(e.type, Int) and e.operand.type == e.type:  # (uint16_t)a of a uint16_t a
        return e.operand
    if isinstance(e, Cast) and isinstance(e.operand, Cast) and e.operand.operand.type == e.type \
            and isinstance(e.type, Int) and isinstance(e.operand.type, Int) and not e.operand.type.is_bool \
            and e.operand.type.bits >= e.type.bits:  # (int)(unsigned)x is x: a round trip through as many bits
        return e.operand.operand
    if isinstance(e, (Binary, Unary, Cast)) and isinstance(e.type, Int) and not isinstance(e, Const):
        v = fold_int(e)
        if v is not None:
            return Const(e.type, v, hex(v) if v > 255 else str(v))
        return fold_range_compare(fold_bit_compare(e))
    return e


def _undefined_conversion(e: Expr, t: Int) -> bool:
    """Converting floating constant ``e`` (a literal, maybe negated) to integer type ``t`` is undefined in
    C (C11 6.3.1.4: NaN, an infinity, or an integral part ``t`` cannot represent). Such a conversion is 0
    after fold: whatever reaches it is undefined, and GCC's -Woverflow rejects a guarded
    ``(unsigned short)(-1.0)`` that no lane reaches (an inlined helper's dead branch, expand-fuzz altivec
    20261129-814)."""
    sign = 1.0
    while isinstance(e, Unary) and e.op in "-+":
        sign, e = (-sign if e.op == "-" else sign), e.operand
    if not isinstance(e, Const) or not isinstance(e.value, float):
        return False
    v = sign * e.value
    return math.isnan(v) or math.isinf(v) or not t.min <= math.trunc(v) <= t.max


def through_address(n: Expr) -> Expr:
    """``n`` without an address taken and used at once: ``*&x`` is ``x``, ``(&x)->f`` is ``x.f``,
    ``(&x)[0]`` is ``x`` (once a pointer is replaced by the address it holds: inlining,
    expand/passes/address_locals.py)."""
    if isinstance(n, Unary) and n.op == "*" and isinstance(n.operand, Unary) and n.operand.op == "&":
        return n.operand.operand
    if isinstance(n, Member) and n.arrow and isinstance(n.base, Unary) and n.base.op == "&":
        return Member(n.type, n.base.operand, n.name, False)
    if isinstance(n, Index) and isinstance(n.base, Unary) and n.base.op == "&" and fold_int(n.index) == 0:
        return n.base.operand
    return n


def fold_constants(fn: Function) -> None:
    for s in walk_stmts(fn.body):
        map_stmt_exprs(s, fold_node)


def fold_expr(e: Expr) -> Expr:
    return map_expr(e, fold_node)
