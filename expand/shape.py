"""Shape analysis for the spine: which values are uniform (equal in every lane) and which vary.

Parameters, masks, calls (executed per lane for their side effects) and anything assigned under a
mask vary; a variable varies when any of its definitions does. Everything else stays scalar.
"""

from __future__ import annotations

from .ir import MASK, Assign, Call, Expr, ExprStmt, Symbol, Unary, Var, flatten


class Shapes:
    def __init__(self, varying_syms: set[Symbol]) -> None:
        self.vsyms = varying_syms

    def is_varying_sym(self, s: Symbol) -> bool:
        return s in self.vsyms

    def varying(self, e: Expr) -> bool:
        for n in e.walk():
            if isinstance(n, Var) and (n.sym in self.vsyms or n.sym.type == MASK):
                return True
            if isinstance(n, Call):
                return True
            if isinstance(n, Unary) and n.op == "*":
                return True
        return False


def analyze(params: list[Symbol], stmts: list) -> Shapes:
    vs: set[Symbol] = {p for p in params if p.type.is_arith()}
    sh = Shapes(vs)
    changed = True
    while changed:
        changed = False
        for s in flatten(stmts):
            if isinstance(s, Assign) and isinstance(s.target, Var):
                sym = s.target.sym
                if sym in vs:
                    continue
                if sym.type == MASK or s.mask is not None or sh.varying(s.value):
                    vs.add(sym)
                    changed = True
            elif isinstance(s, ExprStmt):
                pass
    return sh
