"""C semantics both frontends need beyond the IR's own (expand/types.py, expand/fold.py)."""

from __future__ import annotations

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
