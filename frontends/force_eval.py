"""Statements evaluated only for the floating-point exceptions they raise (the pycparser frontend's view).

libm code forces an expression's evaluation so that its exceptions are raised even where the value is
unused: glibc's ``math_force_eval (x)`` (an empty ``asm volatile`` that reads ``x``, in a statement
expression or a ``do { ... } while (0)`` whose constant ``if`` picks an asm constraint by the type's
size), ``math_check_force_underflow (x)`` (the same on ``x * x`` when ``|x|`` is tiny), musl's
``FORCE_EVAL (x)`` (a store to a ``volatile`` local, in an ``if`` chain on ``sizeof (x)`` whose arms
declare ``float``, ``double`` and ``long double`` locals). Expand's output keeps no exception flags
(frontends/fenv.py), so such a statement changes nothing it keeps: it is dropped, unread (its operand
may be ``long double``, which expand does not vectorize, or a type a dead arm names), and the output's
header says where (``Assumes (f): ...``).

A statement is taken as one when, read as C without its types, it has no effect but through its own
locals: every expression in it is free of side effects (no call but of a pure builtin, no assignment
or increment but of a local it declares), it has no jumps and no loop but ``do ... while (0)``, and it
ends in a *sink*: an empty asm statement with an input, or a store to one of its ``volatile`` locals.
Anything else is read as usual (and refused, with a diagnostic, where expand cannot take it). The
clang frontend checks the same on libclang's cursors (``ClangReader.exception_only``); the header's
sentence is ``fenv.force_eval_assumption``.
"""

from __future__ import annotations

from pycparser import c_ast

from .fenv import FORCE_EVAL_DEPTH as MAX_DEPTH
from .fenv import PURE_BUILTINS


class _Walk:
    """One statement's check: scopes of the locals it declares, and whether it has a sink."""

    def __init__(self) -> None:
        self.scopes: list[dict[str, bool]] = [{}]  # name -> volatile
        self.sink = False
        self.depth = 0

    def expr(self, e) -> bool:
        self.depth += 1
        try:  # (deeper than MAX_DEPTH: not one, and no deep recursion or quadratic walks on deep code)
            return self.depth <= MAX_DEPTH and self._expr(e)
        finally:
            self.depth -= 1

    def stmt(self, s) -> bool:
        self.depth += 1
        try:
            return self.depth <= MAX_DEPTH and self._stmt(s)
        finally:
            self.depth -= 1

    def local(self, name: str) -> bool | None:
        """Whether ``name`` is a volatile local of the statement (None: not one of its locals)."""
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def target(self, e) -> bool:
        """``e`` may be assigned: one of the statement's locals (a store to a volatile one is a sink)."""
        if not isinstance(e, c_ast.ID):
            return False
        volatile = self.local(e.name)
        if volatile:
            self.sink = True
        return volatile is not None

    def _expr(self, e) -> bool:
        if e is None or isinstance(e, (c_ast.Constant, c_ast.ID, c_ast.Typename)):
            return True
        if isinstance(e, c_ast.UnaryOp):
            if e.op in ("sizeof", "_Alignof", "__alignof__"):
                return True
            if e.op in ("++", "--", "p++", "p--"):
                return self.target(e.expr)
            return self.expr(e.expr)
        if isinstance(e, c_ast.BinaryOp):
            return self.expr(e.left) and self.expr(e.right)
        if isinstance(e, c_ast.TernaryOp):
            return self.expr(e.cond) and self.expr(e.iftrue) and self.expr(e.iffalse)
        if isinstance(e, c_ast.Cast):
            return self.expr(e.expr)
        if isinstance(e, c_ast.ArrayRef):
            return self.expr(e.name) and self.expr(e.subscript)
        if isinstance(e, c_ast.StructRef):
            return self.expr(e.name)
        if isinstance(e, c_ast.ExprList):
            return all(self.expr(x) for x in e.exprs)
        if isinstance(e, c_ast.Assignment):
            return self.target(e.lvalue) and self.expr(e.rvalue)
        if isinstance(e, c_ast.FuncCall):
            name = e.name.name if isinstance(e.name, c_ast.ID) else ""
            if name == "__builtin_types_compatible_p":  # (two type names)
                return True
            return name.startswith(PURE_BUILTINS) and all(self.expr(a) for a in getattr(e.args, "exprs", None) or [])
        if isinstance(e, c_ast.Compound):  # a statement expression
            return self.stmt(e)
        if type(e).__name__ in ("GenericSelection", "GenericAssociation", "TypeList"):
            return all(self.expr(c) for _, c in e.children())
        return False

    def _stmt(self, s) -> bool:
        if isinstance(s, c_ast.Compound):
            self.scopes.append({})
            try:
                return all(self.stmt(x) for x in s.block_items or [])
            finally:
                self.scopes.pop()
        if isinstance(s, c_ast.Decl):
            if s.storage or isinstance(s.type, (c_ast.FuncDecl,)) or type(s.type).__name__ == "FuncDeclExt" \
                    or s.name is None:
                return False
            volatile = "volatile" in (s.quals or []) or "volatile" in (getattr(s.type, "quals", None) or [])
            ok = self.init(s.init)
            self.scopes[-1][s.name] = volatile
            if volatile and s.init is not None:
                self.sink = True
            return ok
        if isinstance(s, c_ast.If):
            return self.expr(s.cond) and self.stmt(s.iftrue) and (s.iffalse is None or self.stmt(s.iffalse))
        if isinstance(s, c_ast.DoWhile):
            zero = isinstance(s.cond, c_ast.Constant) and s.cond.value in ("0", "0u", "0U")
            return zero and self.stmt(s.stmt)
        if isinstance(s, c_ast.EmptyStatement):
            return True
        if type(s).__name__ == "Asm":
            return self.asm(s)
        return self.expr(s)  # (an expression statement)

    def init(self, init) -> bool:
        if isinstance(init, c_ast.InitList):
            return all(self.init(x) for x in init.exprs)
        if isinstance(init, c_ast.NamedInitializer):
            return self.init(init.expr)
        return self.expr(init)

    def asm(self, s) -> bool:
        parts = s.template.exprs if isinstance(s.template, c_ast.ExprList) else [s.template]
        if any(not (isinstance(x, c_ast.Constant) and x.type == "string") or x.value.strip('"').strip()
               for x in parts):
            return False
        for lst, output in ((s.output_operands, True), (s.input_operands, False)):
            for op in (lst.exprs if lst is not None else []):
                if not (isinstance(op, c_ast.FuncCall) and op.args and len(op.args.exprs) == 1):
                    return False
                arg = op.args.exprs[0]
                if not (self.target(arg) if output else self.expr(arg)):
                    return False
                if not output or str(getattr(op.name, "value", "")).strip('"').startswith("+"):
                    self.sink = True
        return True


def exception_only(node) -> bool:
    """Whether statement ``node`` (a pycparser node) has no effect but the floating-point exceptions it
    raises (see the module docstring)."""
    if not isinstance(node, (c_ast.Compound, c_ast.DoWhile, c_ast.If)) and type(node).__name__ != "Asm":
        return False
    walk = _Walk()
    return walk.stmt(node) and walk.sink
