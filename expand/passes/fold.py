"""Integer constant folding: ``(uint32_t)(1 << 4)`` becomes ``16`` (exact C semantics, LP64)."""

from __future__ import annotations

from expand.ir.nodes import Binary, Cast, Const, Expr, Function, Unary, map_expr, map_stmt_exprs, walk_stmts
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
    if isinstance(e, Binary) and isinstance(e.type, Int) and e.op not in ("&&", "||"):
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


def _fold(e: Expr) -> Expr:
    if isinstance(e, (Binary, Unary, Cast)) and isinstance(e.type, Int) and not isinstance(e, Const):
        v = fold_int(e)
        if v is not None:
            return Const(e.type, v, hex(v) if v > 255 else str(v))
    return e


def fold_constants(fn: Function) -> None:
    for s in walk_stmts(fn.body):
        map_stmt_exprs(s, _fold)


def fold_expr(e: Expr) -> Expr:
    return map_expr(e, _fold)
