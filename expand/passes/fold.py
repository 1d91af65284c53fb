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
    Var,
    as_type,
    int_const,
    map_expr,
    map_stmt_exprs,
    same_value,
    walk_stmts,
)
from expand.ir.types import Int, float32, strip_spelling


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
    if isinstance(e, Cast) and isinstance(e.type, Int) and e.operand.type.is_float():
        v = float_value(e.operand)
        if v is not None:
            return _converted(v, e.type)
    if isinstance(e, Binary) and e.op in _ORDER and e.left.type.is_float():
        a, b = float_value(e.left), float_value(e.right)
        if a is not None and b is not None:  # (exact in any rounding mode; with a NaN only != holds)
            return int_const(int(_ORDER[e.op](a, b)), e.type)
    if isinstance(e, Binary) and e.op in _ORDER and isinstance(e.left.type, Int) and same_value(e.left, e.right) \
            and _same_each_read(e.left):  # (x > x: GCC's -Wtautological-compare, once c ? x : x is x)
        return int_const(int(e.op in ("==", "<=", ">=")), e.type)
    if isinstance(e, Call):
        return pow_folded(e) or e
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


def float_value(e: Expr) -> float | None:
    """The value of floating constant expression ``e`` where C's is exactly that in every rounding mode:
    a literal, negated, or converted from an integer or floating constant without rounding; else None."""
    if isinstance(e, Const) and e.type.is_float() and isinstance(e.value, (int, float)):
        return float(e.value)
    if isinstance(e, Unary) and e.op in "-+" and e.type.is_float():
        v = float_value(e.operand)
        return None if v is None else -v if e.op == "-" else v
    if isinstance(e, Cast) and e.type.is_float():
        if isinstance(e.operand.type, Int):
            n = fold_int(e.operand)
            v = None if n is None or abs(n) > 1 << 53 else float(n)
        else:
            v = float_value(e.operand) if e.operand.type.is_float() else None
        if v is None or e.type.bits == 64:
            return v
        if e.type.bits != 32 or math.isnan(v):
            return None
        r = float32(v)
        return r if r == v else None
    return None


def _converted(v: float, t: Int) -> Const:
    """Floating constant ``v`` converted to integer type ``t``: its integral part, 1 or 0 for a _Bool, and 0
    where C leaves it undefined (C11 6.3.1.4: NaN, an infinity, an integral part ``t`` cannot represent):
    whatever reaches such a conversion is undefined, and GCC's -Woverflow rejects a guarded ``(unsigned
    short)(-1.0)`` that no lane reaches (an inlined helper's dead branch, expand-fuzz altivec 20261129-814)."""
    if t.is_bool:
        n = int(v != 0)
    elif math.isnan(v) or math.isinf(v) or not t.min <= math.trunc(v) <= t.max:
        n = 0
    else:
        n = math.trunc(v)
    return Const(t, n, hex(n) if n > 255 else str(n))


def _same_each_read(e: Expr) -> bool:
    """``e`` gives the same value each time it is read: no call, nothing volatile."""
    return not any(isinstance(n, Call) or isinstance(n, Var) and n.sym.volatile for n in e.walk())


#: pow(x, y) with these exponents: what GCC and Clang compile it to, even at -O0 and with errno (no call)
_POW = {"pow": 64, "powf": 32, "__builtin_pow": 64, "__builtin_powf": 32}


def pow_folded(e: Call) -> Expr | None:
    """``pow(x, y)`` as GCC and Clang compile it where y is -1, 0, 1 or 2 (``1 / x``, ``1``, ``x``,
    ``x * x``) or x is 1 (``1``), else None: no call, so no errno (``powf(0, -1)``'s ERANGE) and
    their rounding, not libm's (expand-fuzz sse2 20261130-767)."""
    bits = _POW.get(e.func)
    t = strip_spelling(e.type)
    if bits is None or len(e.args) != 2 or not t.is_float() or t.bits != bits \
            or any(strip_spelling(a.type) != t for a in e.args):
        return None
    x, y = e.args
    c, base = float_value(y), float_value(x)
    one = Const(e.type, 1.0, "1.0f" if bits == 32 else "1.0")
    stable = _same_each_read(x)  # (x * x reads x twice; pow(x, 0) reads it never)
    if c == 1:
        return x
    if c == -1:
        return Binary(e.type, "/", one, x)
    if not stable:
        return None
    if c == 0:
        return one
    if c == 2:
        return Binary(e.type, "*", x, x)
    if base == 1 and not any(isinstance(n, Call) for n in y.walk()):
        return one
    return None


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
