"""Shape analysis (WFV IV-B): uniform (one value for every lane), consecutive (lane l holds
``v + l``) or varying, for every variable and expression of the if-converted function.

Parameters are varying unless declared ``uniform``/``linear`` (``#pragma omp declare simd`` or
``--uniform``/``--linear``). Masks, calls (made per lane for their side effects) and anything
assigned under a mask vary. A variable takes the shape all its definitions agree on. Uniform and
consecutive variables stay scalars in the output (a consecutive one holds lane 0's value);
``p[i]`` with a uniform pointer and a consecutive ``i`` becomes one vector load or store. A local
array (expand/passes/local_arrays.py) varies when a store puts a varying value, index or mask into it, or
a per-lane call gets it; otherwise its elements are the same in every lane.
"""

from __future__ import annotations

from expand.ir import types as T
from expand.ir.nodes import (
    MASK,
    Assign,
    Binary,
    Call,
    Cast,
    Const,
    Expr,
    Index,
    Member,
    Symbol,
    Unary,
    Var,
    flatten,
    is_local_array,
    stmt_exprs,
)

U, C, V = "uniform", "consecutive", "varying"


class Shapes:
    def __init__(self, syms: dict[Symbol, str]) -> None:
        self.syms = syms

    def sym_shape(self, s: Symbol) -> str:
        if s.type == MASK:
            return V
        return self.syms.get(s, U)

    def is_varying_sym(self, s: Symbol) -> bool:
        """Held in vector registers (consecutive variables are held as lane 0's scalar)."""
        return self.sym_shape(s) == V

    def shape(self, e: Expr) -> str:
        if isinstance(e, Const):
            return U
        if isinstance(e, Var):
            return self.sym_shape(e.sym)
        if isinstance(e, Call):
            return V
        if isinstance(e, Binary) and e.op in ("+", "-") and isinstance(e.type, T.Int) and e.type.bits >= 32:
            a, b = self.shape(e.left), self.shape(e.right)
            if a == U and b == U:
                return U
            if (a, b) == (C, U) or (e.op == "+" and (a, b) == (U, C)):
                return C
            return V
        if isinstance(e, Cast) and isinstance(e.type, T.Int) and isinstance(e.operand.type, T.Int):
            s = self.shape(e.operand)
            if s == C and e.type.bits < e.operand.type.bits:
                return V
            return s
        if isinstance(e, Unary) and e.op == "*":
            p = e.operand
            if isinstance(p, Var) and p.sym.kind == "param" and p.sym.shape != "uniform":
                return V  # a pointer to a gang (EXPAND's convention)
            return V if self.shape(p) != U else U
        if isinstance(e, (Index, Member)):
            parts = [self.shape(c) for c in e.children()]
            return U if all(s == U for s in parts) else V
        parts = [self.shape(c) for c in e.children()]
        return U if all(s == U for s in parts) else V

    def varying(self, e: Expr) -> bool:
        """Not uniform: needs a vector when used as a value."""
        return self.shape(e) != U


def analyze(params: list[Symbol], stmts: list, entry: Symbol | None = None) -> Shapes:
    """``entry``: the entry mask of a masked variant. Lanes off in it are never observed, so an
    assignment under exactly that mask keeps its value's shape, as an unmasked one does."""
    syms: dict[Symbol, str] = {}
    for p in params:
        if p.shape == "uniform":
            syms[p] = U
        elif p.shape == "linear":
            syms[p] = C
        elif p.type.is_arith():
            syms[p] = V
        else:
            syms[p] = U  # pointers to gangs: the pointer itself is one value
    sh = Shapes(syms)
    # A variable whose address a call receives is written through it, lane by lane: one storage
    # location per lane (the printer stores it to an array of lanes and reads it back).
    for s in flatten(stmts):
        for e in stmt_exprs(s):
            for n in e.walk():
                if isinstance(n, Unary) and n.op == "&" and isinstance(n.operand, Var) \
                        and n.operand.sym.kind in ("local", "param"):
                    sym = n.operand.sym
                    if sym.kind == "param" and sym.shape in ("uniform", "linear"):
                        from expand.ir.diagnostics import error
                        raise error(sym.coord, f"the address of {sym.shape} parameter '{sym.name}' is taken, so each"
                                               " lane may change it", "copy it to a local variable and pass that")
                    syms[sym] = V
    defs: dict[Symbol, list[Assign]] = {}
    stores: dict[Symbol, list[Assign]] = {}  # local arrays (expand/passes/local_arrays.py): their element stores
    for s in flatten(stmts):
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym.type != MASK:
            defs.setdefault(s.target.sym, []).append(s)
        if isinstance(s, Assign) and isinstance(s.target, Index) and isinstance(s.target.base, Var) \
                and is_local_array(s.target.base.sym):
            stores.setdefault(s.target.base.sym, []).append(s)
        for e in stmt_exprs(s):  # a local array a per-lane call gets: one copy per lane
            for n in e.walk():
                if isinstance(n, Call):
                    for a in n.args:
                        if isinstance(a, Unary) and a.op == "&" and isinstance(a.operand, Index):
                            a = a.operand.base
                        if isinstance(a, Var) and is_local_array(a.sym):
                            syms[a.sym] = V
    changed = True
    while changed:
        changed = False
        for arr, ss in stores.items():  # varying: a store of a lane-dependent value, index or mask
            if sh.sym_shape(arr) != V and any(d.mask is not None and d.mask is not entry or sh.shape(d.value) != U
                                              or sh.shape(d.target.index) != U for d in ss):
                syms[arr] = V
                changed = True
        for sym, ds in defs.items():
            old = sh.sym_shape(sym)
            if old == V:
                continue
            shapes = {V if d.mask is not None and d.mask is not entry else sh.shape(d.value) for d in ds}
            if sym.kind == "param":
                shapes.add(syms[sym])
            new = shapes.pop() if len(shapes) == 1 else V
            if new != old and sym.kind == "param" and sym.shape in ("uniform", "linear"):
                from expand.ir.diagnostics import error
                raise error(sym.coord, f"{sym.shape} parameter '{sym.name}' is assigned a value that differs "
                                       "between lanes", "assign it to a local variable instead")
            if new != old:
                syms[sym] = new
                changed = True
    return sh
