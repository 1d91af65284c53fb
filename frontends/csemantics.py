"""C semantics both frontends need beyond the IR's own (expand/types.py, expand/fold.py)."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

from expand import types as T
from expand.fold import fold_int
from expand.ir import Call, Const, Expr, Var

COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")


def is_null_pointer_constant(e: Expr) -> bool:
    """C11 6.3.2.3: an integer constant expression 0, or one cast to a pointer type (``NULL``)."""
    if isinstance(e, Const) and isinstance(e.type, T.Pointer):
        return e.value == 0
    return isinstance(e.type, T.Int) and fold_int(e) == 0 and \
        not any(isinstance(x, (Var, Call)) for x in e.walk())


def null_comparison(a: Expr, b: Expr) -> tuple[Expr, Expr] | None:
    """(pointer, null constant) when ``a == b`` compares a pointer with a null pointer constant."""
    if isinstance(a.type, T.Pointer) and is_null_pointer_constant(b) and not is_null_pointer_constant(a):
        return a, b
    if isinstance(b.type, T.Pointer) and is_null_pointer_constant(a) and not is_null_pointer_constant(b):
        return b, a
    return None


def _round_mantissa(x: Fraction, bits: int) -> Fraction:
    """``x`` rounded to ``bits`` significant bits, to nearest, ties to even (no exponent limits)."""
    if x == 0:
        return x
    sign, x = (-1, -x) if x < 0 else (1, x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    scale = Fraction(2) ** (bits - 1 - e)
    q = x * scale
    n, r = divmod(q.numerator, q.denominator)
    if 2 * r > q.denominator or (2 * r == q.denominator and n & 1):
        n += 1
    return sign * n / scale


def long_double_literal(text: str, t: T.CType) -> Const | None:
    """A ``long double`` literal (``1.797...e+308L``, as <float.h>'s ``DBL_MAX`` spells it) converted to
    ``t`` (float or double): the Const, when rounding the literal first to any target's long double
    (x87's 64-bit, IBM double-double's 106-bit or IEEE quad's 113-bit significand) and then to ``t``
    gives what rounding it directly does; else None."""
    body = text[:-1] if text[-1:] in "lL" else text
    if not isinstance(t, T.Float) or t.bits not in (32, 64):
        return None
    try:
        exact = Fraction(float.fromhex(body)) if body.lower().startswith("0x") else Fraction(body)
    except (ValueError, ZeroDivisionError):
        return None
    p = 24 if t.bits == 32 else 53
    want = _round_mantissa(exact, p)
    if any(_round_mantissa(_round_mantissa(exact, q), p) != want for q in (64, 106, 113)):
        return None
    try:
        v = float(want)
    except OverflowError:
        return None
    if t.bits == 32:
        spelled = body + "f" if Fraction(float32(float(body))) == want else float(want).hex() + "f"
        return Const(t, v, spelled)
    return Const(t, v, body if Fraction(float(body)) == want else v.hex())


def float32(v: float) -> float:
    """``v`` rounded to the nearest float (as a Python float)."""
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)
