"""errno and other global variables the function writes, with the scalar code's lane-order semantics.

The scalar function, called on the active lanes in lane order, leaves a global variable (errno
included) holding the last write of the highest lane that wrote it, or its value from before the
calls when no lane wrote it. The vector code keeps, per tracked global, two scalars: the highest lane
that wrote it so far and that lane's value, updated at each write with the highest lane of the
write's mask (a lane's own writes happen in its order, so the last write that includes the highest
writing lane is that lane's last one), and stores the value at the function's single exit
(emit/printer.py). A lane's write of errno inside a per-lane call is seen with a sentinel: errno is
set to ``UNSET`` before each lane's call, and a value other than ``UNSET`` after it is that lane's
write (a callee that saves and restores errno writes nothing).

``canonical_errno`` (before lowering, which would hoist the call): ``*__errno_location ()``, errno.h's
``errno``, becomes the variable ``errno`` (glibc's own ``errno`` already is one).

``track_globals`` (each expanded function, after inlining):

* ``g = v`` with ``g`` a global scalar becomes ``ExprStmt(Call(void, WRITE, [Var(g), v]))``;
* a ``sqrt`` whose argument may be negative gets ``ExprStmt(Call(void, MATH_ERRNO, [c]))`` before its
  statement, ``c`` the lanes where the scalar code evaluates it with a negative argument (a path
  condition through ``?:``, ``&&`` and ``||``): glibc's sqrt sets errno to EDOM there, and GCC's inline
  sqrt calls it for them, unless compiled with -fno-math-errno (the output tests ``__NO_MATH_ERRNO__``);
* errno is tracked (``Function.tracked``) when the function writes it so, or has two or more call sites
  that may set it (any function but libm's errno-free ones, libm's vector versions included;
  ``--expandable`` ones, which run on every lane, are taken to set none) or one in a loop. One such
  call site outside loops is exact as it is: its calls run in lane order;
* diagnostics: a read of a global the function writes (of errno: when anything in it may set errno,
  since each scalar lane reads what the lanes before it left); a written global that is ``static``
  (the output would have its own copy), ``volatile`` or not an int or float; an external global
  written here that a per-lane call of a function outside libm may write too.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from expand.ir import types as T
from expand.ir.diagnostics import error
from expand.ir.libc import ERRNO, LIBM, MATH_ERRNO, PSEUDO, WRITE, libm_name, may_set_errno
from expand.ir.nodes import (
    Assign,
    Binary,
    BitCast,
    Block,
    Call,
    Cast,
    Cond,
    Const,
    Expr,
    ExprStmt,
    Function,
    If,
    Loop,
    MathOp,
    Module,
    Stmt,
    Symbol,
    Unary,
    Var,
    map_expr,
    map_stmt_exprs,
    stmt_exprs,
    walk_stmts,
)
from expand.ir.visitor import rewrite_nested


def only_errno(func: str) -> bool:
    """``func`` writes no global variable but errno: a libm function or one of glibc's error helpers."""
    name = libm_name(func)
    return name in LIBM or not may_set_errno(func) or name.startswith(("__math_", "__expandm_math_"))


def errno_symbol(mod: Module) -> Symbol:
    """The module's ``errno``: glibc's own variable where it declares one, else a global of that name
    (printed as ``errno``: the output includes <errno.h>)."""
    sym = mod.globals.get(ERRNO)
    if sym is None or sym.kind != "global":
        sym = Symbol(ERRNO, T.INT, "global")
        mod.globals[ERRNO] = sym
    elif sym.type is None:  # (a declaration the frontend left unresolved: errno is an int, C11 7.5)
        sym.type = T.INT
    return sym


def canonical_errno(mod: Module, functions: Iterable[Function] | None = None) -> None:
    """``*__errno_location ()`` -> the variable ``errno``, in ``functions`` (default: every function of ``mod``)."""
    def fix(e: Expr) -> Expr:
        if isinstance(e, Unary) and e.op == "*" and isinstance(e.operand, Call) \
                and e.operand.func == "__errno_location" and not e.operand.args:
            sym = errno_symbol(mod)
            return Var(sym.type, sym)
        return e

    for fn in mod.functions.values() if functions is None else functions:
        for s in walk_stmts(fn.body):
            map_stmt_exprs(s, fix)
            if isinstance(s, Loop) and s.cond is not None:
                s.cond = map_expr(s.cond, fix)


# ------------------------------------------------------------------ sqrt of negative numbers


def _same(a: Expr, b: Expr) -> bool:
    """``a`` and ``b`` are the same side-effect-free expression (variables, constants, conversions)."""
    if type(a) is not type(b) or T.strip_spelling(a.type) != T.strip_spelling(b.type):
        return False
    if isinstance(a, Var):
        return a.sym is b.sym
    if isinstance(a, Const):
        return a.value == b.value
    if isinstance(a, (Cast, BitCast)):
        return _same(a.operand, b.operand)
    return False


#: a local's assigned values (every definition of it in the function), for the sign tests below
Defs = dict[Symbol, list[Expr]]


def _var_is(e: Var, defs: Defs, seen: frozenset[Symbol], test) -> bool:
    """Every value the local ``e`` is ever assigned passes ``test`` (a parameter or global: unknown)."""
    vals = defs.get(e.sym)
    if e.sym.kind != "local" or not vals or e.sym in seen:
        return False
    return all(test(v, defs, seen | {e.sym}) for v in vals)


def _below(e: Expr, bits: int) -> bool:
    """Integer ``e`` is in [0, 2**bits): a constant, an unsigned value that narrow, a mask with one, or a
    conversion of one that keeps its value."""
    t = T.strip_spelling(e.type)
    if isinstance(e, Const):
        return isinstance(e.value, int) and 0 <= e.value < 1 << bits
    if isinstance(t, T.Int) and not t.signed and t.bits <= bits:
        return True
    if isinstance(e, Binary) and e.op == "&":
        return _below(e.left, bits) or _below(e.right, bits)
    if isinstance(e, Cast) and isinstance(t, T.Int) and isinstance(T.strip_spelling(e.operand.type), T.Int):
        return t.bits - t.signed >= bits and _below(e.operand, bits)
    return False


def _nonneg_int(e: Expr, defs: Defs, seen: frozenset[Symbol] = frozenset()) -> bool:
    """Integer ``e`` is never negative."""
    t = T.strip_spelling(e.type)
    if isinstance(t, T.Int) and not t.signed:
        return True
    if isinstance(e, Const):
        return isinstance(e.value, int) and e.value >= 0
    if isinstance(e, Binary) and e.op == "&":
        return _nonneg_int(e.left, defs, seen) or _nonneg_int(e.right, defs, seen)
    if isinstance(e, Cast):
        src = T.strip_spelling(e.operand.type)
        if isinstance(src, T.Int) and isinstance(t, T.Int):
            # (to a signed type: the value stays when it fits; uint64_t -> int64_t, int64_t -> int wrap)
            return _below(e.operand, t.bits - 1) or (
                src.signed and src.bits <= t.bits and _nonneg_int(e.operand, defs, seen))
        return _nonneg_int(e.operand, defs, seen)  # (a float truncated toward zero)
    if isinstance(e, Var):
        return _var_is(e, defs, seen, _nonneg_int)
    return False


def never_negative(e: Expr, defs: Defs | None = None, seen: frozenset[Symbol] = frozenset()) -> bool:
    """Float ``e`` is never less than zero, in any lane (a NaN or -0 is not): ``sqrt`` of it sets no errno.
    ``defs``: the values each local is assigned (a local is never negative if none of them is)."""
    defs = defs or {}

    def nn(x: Expr) -> bool:
        return never_negative(x, defs, seen)

    if isinstance(e, Const):
        return not e.value < 0
    if isinstance(e, Var):
        return _var_is(e, defs, seen, never_negative)
    if isinstance(e, Cast):
        src = T.strip_spelling(e.operand.type)
        return _nonneg_int(e.operand, defs, seen) if isinstance(src, T.Int) else nn(e.operand)
    if isinstance(e, BitCast):  # the float of an integer's bits: its sign bit clear (fabs: masked off)
        op, src = e.operand, T.strip_spelling(e.operand.type)
        if not isinstance(src, T.Int):
            return False
        if isinstance(op, Binary) and op.op == "&" and any(
                isinstance(c, Const) and isinstance(c.value, int) and 0 <= c.value < 1 << (src.bits - 1)
                for c in (op.left, op.right)):
            return True
        # (an unsigned integer is never negative, but its top bit is the float's sign: sqrt of the double
        # of -(uint64_t)z's bits is sqrt(-inf), EDOM; expand-fuzz 20261127-489 lost it)
        return src.signed and _nonneg_int(op, defs, seen)
    if isinstance(e, Binary) and e.op == "*" and _same(e.left, e.right):
        return True
    if isinstance(e, Binary) and e.op in ("+", "*", "/"):
        return nn(e.left) and nn(e.right)
    if isinstance(e, MathOp) and e.op == "sqrt":
        return True
    if isinstance(e, MathOp) and e.op == "fmax":
        return any(nn(a) for a in e.args)
    if isinstance(e, MathOp) and e.op == "fmin":
        return all(nn(a) for a in e.args)
    if isinstance(e, Cond):
        c = e.cond
        if isinstance(c, Binary) and c.op in (">", ">=") and isinstance(c.right, Const) and c.right.value >= 0 \
                and _same(c.left, e.then) and nn(e.els):
            return True  # x > 0 ? x : 0
        return nn(e.then) and nn(e.els)
    return False


def _and(a: Expr | None, b: Expr) -> Expr:
    return b if a is None else Binary(T.INT, "&&", a, b)


def _not(e: Expr) -> Expr:
    return Unary(T.INT, "!", e)


def negative_sqrt(e: Expr, defs: Defs, path: Expr | None = None) -> list[Expr]:
    """Conditions under which evaluating ``e`` (where ``path`` holds) takes ``sqrt`` of a negative number."""
    out: list[Expr] = []
    if isinstance(e, Cond):
        return (negative_sqrt(e.cond, defs, path) + negative_sqrt(e.then, defs, _and(path, e.cond))
                + negative_sqrt(e.els, defs, _and(path, _not(e.cond))))
    if isinstance(e, Binary) and e.op in ("&&", "||"):
        right = _and(path, e.left if e.op == "&&" else _not(e.left))
        return negative_sqrt(e.left, defs, path) + negative_sqrt(e.right, defs, right)
    for c in e.children():
        out += negative_sqrt(c, defs, path)
    if isinstance(e, MathOp) and e.op == "sqrt" and not never_negative(e.args[0], defs):
        a = e.args[0]
        zero = Const(a.type, 0.0, "0.0f" if T.strip_spelling(a.type).bits == 32 else "0.0")
        out.append(_and(path, Binary(T.INT, "<", a, zero)))
    return out


# ------------------------------------------------------------------ the pass


def _stmt_lists(stmts: list[Stmt], f) -> list[Stmt]:
    """``stmts`` with each statement ``s`` replaced by ``f(s)`` (a list), nested lists first."""
    out: list[Stmt] = []
    for s in stmts:
        rewrite_nested(s, lambda body: _stmt_lists(body, f))
        out += f(s)
    return out


def calls_with_loops(fn: Function) -> list[tuple[Call, bool]]:
    """The calls ``fn`` makes (not expand's own), each with whether it is inside a loop."""
    out: list[tuple[Call, bool]] = []

    def go(stmts: list[Stmt], in_loop: bool) -> None:
        for s in stmts:
            for e in stmt_exprs(s):
                out.extend((n, in_loop) for n in e.walk() if isinstance(n, Call) and n.func not in PSEUDO)
            if isinstance(s, If):
                go(s.then, in_loop)
                go(s.els, in_loop)
            elif isinstance(s, Block):
                go(s.body, in_loop)
            elif isinstance(s, Loop):
                go(s.init, in_loop)
                go(s.body, True)
                go(s.step, True)

    go(fn.body, False)
    return out


def track_globals(fn: Function, mod: Module, expandable: Collection[str] = ()) -> None:
    """Rewrite ``fn``'s global writes and sqrt errno as ``WRITE``/``MATH_ERRNO`` statements, set
    ``fn.tracked``, and diagnose what the vector code cannot reproduce (see the module docstring)."""
    written: dict[Symbol, Stmt] = {}  # global -> its first assignment
    defs: Defs = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, Assign) and isinstance(s.target, Var):
            defs.setdefault(s.target.sym, []).append(s.value)
        for e in stmt_exprs(s):  # (f(&x) may set x to anything: a definition by itself, never known)
            for n in e.walk():
                if isinstance(n, Unary) and n.op == "&" and isinstance(n.operand, Var):
                    defs.setdefault(n.operand.sym, []).append(Var(n.operand.type, n.operand.sym))

    def rewrite(s: Stmt) -> list[Stmt]:
        pre: list[Stmt] = []
        conds = [c for e in stmt_exprs(s) for c in negative_sqrt(e, defs)]
        if conds:
            cond = conds[0]
            for c in conds[1:]:
                cond = Binary(T.INT, "||", cond, c)
            pre.append(ExprStmt(s.coord, Call(T.VOID, MATH_ERRNO, [cond], s.coord)))
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym.kind == "global":
            g = s.target.sym
            written.setdefault(g, s)
            _check_global(g, s)
            if _thread_local(mod, g):
                g.thread_local = True  # (the output's extern declaration says so: expand/driver.py)
            s = ExprStmt(s.coord, Call(T.VOID, WRITE, [Var(g.type, g), s.value], s.coord))
        return [*pre, s]

    fn.body = _stmt_lists(fn.body, rewrite)
    errno = mod.globals.get(ERRNO)
    direct = [s for s in walk_stmts(fn.body) if isinstance(s, ExprStmt) and isinstance(s.expr, Call)
              and s.expr.func in PSEUDO and (s.expr.func == MATH_ERRNO or s.expr.args[0].sym is errno)]
    calls = calls_with_loops(fn)
    # (--expandable functions run on every lane, outside this tracking: taken to set no errno)
    setters = [(c, loop) for c, loop in calls if may_set_errno(c.func) and c.func not in expandable]
    errno_tracked = bool(direct) or len(setters) >= 2 or any(loop for _, loop in setters)
    # Reads of what the function writes.
    for s in walk_stmts(fn.body):
        for e in stmt_exprs(s):
            skip = e.args[0] if isinstance(e, Call) and e.func == WRITE else None
            for n in e.walk():
                if not isinstance(n, Var) or n is skip or n.sym.kind != "global":
                    continue
                if n.sym.name == ERRNO and (direct or setters):
                    why = (f"a call of '{setters[0][0].func}'" if not direct
                           else "sqrt of a negative number" if direct[0].expr.func == MATH_ERRNO
                           else "an assignment")
                    raise error(s.coord, f"'{fn.name}' reads errno, which it may also set ({why}): each lane of"
                                " the scalar code reads what the lanes before it left there, which the vector code"
                                " cannot reproduce", "read errno after the call of the vector function instead")
                if n.sym in written and n.sym.name != ERRNO:
                    raise error(s.coord, f"'{fn.name}' reads global variable '{n.sym.name}', which it also assigns:"
                                " each lane of the scalar code reads what the lanes before it left there, which the"
                                " vector code cannot reproduce", "keep the value in a local variable")
    # Globals a per-lane call may write too.
    for g in written:
        if g.name == ERRNO:
            continue
        other = next((c for c, _ in calls if not only_errno(c.func)), None)
        if other is not None:
            raise error(other.coord or written[g].coord,
                        f"'{other.func}' is called once per lane and may assign global variable '{g.name}', which"
                        f" '{fn.name}' assigns too: the vector code cannot order their writes as the scalar code"
                        " does", f"return the value from '{other.func}', or keep '{g.name}' out of it")
    fn.tracked = ([errno_symbol(mod)] if errno_tracked else []) + [g for g in written if g.name != ERRNO]


def _thread_local(mod: Module, g: Symbol) -> bool:
    """``g`` is declared ``_Thread_local``/``thread_local``/``__thread`` in the user's file (the words before
    its name on its declaration's line)."""
    co = g.coord
    if co is None or not mod.own(co.file) or not 0 < co.line <= len(mod.source_lines):
        return False
    return re.search(r"\b(_Thread_local|thread_local|__thread)\b", mod.source_lines[co.line - 1][:co.col]) is not None


def _check_global(g: Symbol, s: Assign) -> None:
    """A global the vector code can keep per lane: an int or float with external linkage, not volatile."""
    if g.name == ERRNO:
        return
    t = T.strip_spelling(g.type)
    if not isinstance(t, (T.Int, T.Float)):
        raise error(s.coord, f"assignment to global variable '{g.name}' cannot be vectorized",
                    "pass it through a pointer parameter or make it local")
    if g.volatile:
        raise error(s.coord, f"assignment to volatile global variable '{g.name}' cannot be vectorized")
    if g.static or getattr(g, "local_of", None) is not None:
        raise error(s.coord, f"assignment to static global variable '{g.name}' cannot be vectorized: the output"
                    " would write its own copy of it", "give it external linkage (extern, defined in one file)")
