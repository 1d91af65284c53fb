"""libm calls with an exact vector form become IR operations (issue 10).

Runs on every function of the module straight after the frontend (the frontends produce plain
calls; ``signature`` types the ``__builtin_`` spellings and calls without a prototype). A call of
``sqrt``, ``floor``, ``ceil``, ``trunc``, ``rint``, ``nearbyint``, ``fmin``, ``fmax`` or ``fma``
(the ``f`` form on float, the plain one on double, or their ``__builtin_`` spellings) whose
arguments and result have that type becomes a ``MathOp``: a side-effect-free expression that the
printer maps through the ISA table (``Isa.math``: the instruction where it is exact, else the libm
call lane by lane). ``fabs`` and ``copysign`` become bit operations, exact on every ISA.

A function the file defines itself under one of these names stays a call, and so does one named
``--expandable`` (the user has a vector version of it). The vector forms do not
set errno (``sqrtf(-1)`` does in scalar code, unless ``-fno-math-errno``): see the README.

GCC takes fmin, fmax and fma's two factors as commutative and passes them in its own order:
a constant second, otherwise by SSA version (which the source does not show). The order decides
the sign of ``fmaxf(-0.0f, +0.0f)`` and which of two NaNs comes out, so a constant first operand
is moved second here too (``fmaxf(0.0f, x)`` gives GCC's result for x = -0).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from expand.ir import types as T
from expand.ir.nodes import (
    MATH_OPS,
    Assign,
    Binary,
    BitCast,
    Block,
    Call,
    Cast,
    Const,
    Expr,
    ExprStmt,
    Function,
    If,
    Loop,
    MathOp,
    Module,
    Return,
    Stmt,
    Unary,
    map_expr,
)
from expand.passes.fold import pow_folded

#: every recognized function (without the ``f`` suffix) -> argument count
FUNCS = {"fabs": 1, "copysign": 2, **MATH_OPS}
BUILTIN = "__builtin_"


def _lookup(name: str) -> tuple[str, T.CType] | None:
    """(operation, float type) of libm function ``name`` (``sqrtf``, ``__builtin_fma``, ...), or None."""
    base = name.removeprefix(BUILTIN)
    if base in FUNCS:
        return base, T.DOUBLE
    if base.endswith("f") and base[:-1] in FUNCS:
        return base[:-1], T.FLOAT
    return None


def signature(name: str) -> tuple[T.CType, list[T.CType]] | None:
    """(result type, parameter types) of libm function ``name`` if this pass knows it, else None."""
    info = _lookup(name)
    if info is None:
        return None
    op, t = info
    return t, [t] * FUNCS[op]


def fabs_bits(x: Expr) -> Expr:
    """``fabs(x)`` as bit operations (exact, as GCC's ``__builtin_fabsf``)."""
    it = T.UINT if T.strip_spelling(x.type) == T.FLOAT else T.ULONG
    sign = 1 << (it.bits - 1)
    mag = Binary(it, "&", BitCast(it, x), Const(it, sign - 1, hex(sign - 1)))
    return BitCast(x.type, mag)


def copysign_bits(x: Expr, y: Expr) -> Expr:
    """``copysign(x, y)`` as bit operations."""
    it = T.UINT if T.strip_spelling(x.type) == T.FLOAT else T.ULONG
    sign = 1 << (it.bits - 1)
    mag = Binary(it, "&", BitCast(it, x), Const(it, sign - 1, hex(sign - 1)))
    sgn = Binary(it, "&", BitCast(it, y), Const(it, sign, hex(sign)))
    return BitCast(x.type, Binary(it, "|", mag, sgn))


def rewrite_math_calls(mod: Module, keep: Collection[str] = (), functions: Iterable[Function] | None = None) -> None:
    """Replace the recognized libm calls in ``functions`` (default: every function of ``mod``; in place),
    except calls of the functions named in ``keep``."""
    for fn in mod.functions.values() if functions is None else functions:
        _stmts(fn.body, mod, keep)


def _stmts(stmts: list[Stmt], mod: Module, keep: Collection[str]) -> None:
    def f(e: Expr) -> Expr:
        return map_expr(e, lambda n: _call(n, mod, keep))

    for s in stmts:
        if isinstance(s, Assign):
            s.target, s.value = f(s.target), f(s.value)
        elif isinstance(s, ExprStmt):
            s.expr = f(s.expr)
        elif isinstance(s, Return) and s.value is not None:
            s.value = f(s.value)
        elif isinstance(s, If):
            s.cond = f(s.cond)
            _stmts(s.then, mod, keep)
            _stmts(s.els, mod, keep)
        elif isinstance(s, Block):
            _stmts(s.body, mod, keep)
        elif isinstance(s, Loop):
            if s.cond is not None:
                s.cond = f(s.cond)
            _stmts(s.init, mod, keep)
            _stmts(s.body, mod, keep)
            _stmts(s.step, mod, keep)


def _call(n: Expr, mod: Module, keep: Collection[str]) -> Expr:
    if not isinstance(n, Call):
        return n
    folded = None if n.func in mod.functions else pow_folded(n)  # (pow(x, 2) is x * x: before errno is
    if folded is not None:  # tracked, as no call remains)
        return folded
    info = _lookup(n.func)
    if info is None or n.func in mod.functions or n.func in keep:
        return n
    op, t = info
    if len(n.args) != FUNCS[op] or T.strip_spelling(n.type) != t or \
            any(T.strip_spelling(a.type) != t for a in n.args):
        return n
    if op == "fabs":
        return fabs_bits(n.args[0])
    if op == "copysign":
        return copysign_bits(*n.args)
    args = list(n.args)
    if op in ("fmin", "fmax", "fma") and _constant(args[0]) and not _constant(args[1]):
        args[0], args[1] = args[1], args[0]
    declared = mod.globals.get(n.func)
    func = n.func if n.func.startswith(BUILTIN) or (declared is not None and declared.kind == "func") \
        else BUILTIN + n.func
    return MathOp(t, op, args, func)


def _constant(e: Expr) -> bool:
    """A constant expression (which GCC folds to a constant)."""
    return all(isinstance(n, (Const, Cast, Unary, Binary)) and not (isinstance(n, Unary) and n.op in "*&")
               for n in e.walk())
