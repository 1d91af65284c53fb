"""If-conversion: block masks, linearization, and blends (EXPAND Sec. 2.2-2.3, WFV IV-C).

Every block gets a mask: the entry's is all lanes; a block control-equivalent to an earlier one
(it dominates B and B post-dominates it) shares its mask; a block with one predecessor takes the
edge mask ``mask(P) & cond``; a join ORs its incoming edge masks. Blocks are laid out in source
order (a topological order, since the graph is acyclic), each statement tagged with its block
mask. An assignment blends (keeps the old value in inactive lanes) only when that old value may
still be read: not for the first definition of a variable, and not when every later read of the
variable happens in blocks the definition dominates.
"""

from __future__ import annotations

import re

from expand import types as T
from expand.cfg import CFG, BasicBlock, build_cfg, exprs_of_term
from expand.ir import (
    MASK,
    Assign,
    Binary,
    Call,
    Cast,
    Const,
    Expr,
    ExprStmt,
    Function,
    Index,
    Member,
    Return,
    Stmt,
    Symbol,
    Unary,
    Var,
    vars_read,
)
from expand.lower import NameMaker


class Linear:
    """The if-converted function: a straight list of masked statements, then ``return``."""

    def __init__(self, fn: Function, stmts: list[Stmt], ret: Return, cfg: CFG,
                 block_of: dict[Stmt, BasicBlock]) -> None:
        self.fn = fn
        self.stmts = stmts
        self.ret = ret
        self.cfg = cfg
        self.block_of = block_of


def cond_name(e: Expr) -> str:
    """A short identifier describing a condition (``j0 < 23`` -> ``j0_lt_23``)."""
    ops = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge", "&&": "and", "||": "or",
           "&": "and", "|": "or", "^": "xor", "+": "plus", "-": "minus", "*": "times", "<<": "shl", ">>": "shr",
           "/": "div", "%": "mod"}

    def go(n: Expr, depth: int) -> str:
        if depth > 3:
            return "x"
        if isinstance(n, Var):
            return n.sym.name
        if isinstance(n, Const):
            if isinstance(n.value, int):
                return hex(n.value).replace("-", "m") if abs(n.value) > 255 else str(n.value).replace("-", "m")
            return re.sub(r"\W", "", n.text or "c") or "c"
        if isinstance(n, (Cast,)):
            return go(n.operand, depth)
        if isinstance(n, Binary):
            if n.op == "!=" and isinstance(n.right, Const) and n.right.value == 0:
                return go(n.left, depth)
            return f"{go(n.left, depth + 1)}_{ops.get(n.op, 'op')}_{go(n.right, depth + 1)}"
        if isinstance(n, Unary):
            return {"!": "not_", "~": "inv_", "-": "neg_"}.get(n.op, "") + go(n.operand, depth + 1)
        if isinstance(n, Call):
            return n.func.strip("_")
        if isinstance(n, Member):
            return n.name
        if isinstance(n, Index):
            return go(n.base, depth + 1)
        return "c"

    s = re.sub(r"_+", "_", go(e, 0)).strip("_")
    return s[:28].rstrip("_") or "c"


def if_convert(fn: Function) -> Linear:
    cfg = build_cfg(fn.body)
    names = NameMaker(fn)
    out: list[Stmt] = []
    block_of: dict[Stmt, BasicBlock] = {}
    mask: dict[BasicBlock, Symbol | None] = {cfg.entry: None}  # None = all lanes
    edge: dict[tuple[BasicBlock, BasicBlock], Symbol | None] = {}

    def new_mask(base: str, value: Expr, b: BasicBlock, coord) -> Symbol:
        sym = Symbol(names.fresh(base), MASK, "local", coord)
        fn.locals.append(sym)
        st = Assign(coord, Var(MASK, sym), value)
        out.append(st)
        block_of[st] = b
        return sym

    def mref(m: Symbol | None) -> Expr | None:
        return None if m is None else Var(MASK, m)

    for b in cfg.blocks:
        if b is not cfg.entry:
            m = _equivalent_mask(cfg, b, mask)
            if m is not _NONE:
                mask[b] = m
            elif len(b.preds) == 1:
                mask[b] = edge[(b.preds[0], b)]
            else:
                ins = [edge[(p, b)] for p in b.preds]
                if any(x is None for x in ins):
                    mask[b] = None
                else:
                    value: Expr = Var(MASK, ins[0])
                    for x in ins[1:]:
                        value = Binary(MASK, "||", value, Var(MASK, x))
                    line = b.stmts[0].coord.line if b.stmts and b.stmts[0].coord else b.id
                    mask[b] = new_mask(f"m_join{line}", value, b, b.stmts[0].coord if b.stmts else None)
        m = mask[b]
        for s in b.stmts:
            if isinstance(s, Assign):
                st = Assign(s.coord, s.target, s.value, mask=m)
            else:
                st = ExprStmt(s.coord, s.expr, mask=m)  # type: ignore[attr-defined]
            out.append(st)
            block_of[st] = b
        if b.term[0] == "jump":
            edge[(b, b.term[1])] = m
        elif b.term[0] == "branch":
            _, cond, t, e, ifst = b.term
            base = cond_name(cond)
            cm = Binary(MASK, "&&", mref(m), cond) if m is not None else cond
            cm = _as_mask(cm)
            mt = new_mask(f"m_{base}", cm, b, ifst.coord)
            nm = Binary(MASK, "&&", mref(m), Unary(MASK, "!", Var(MASK, mt))) if m is not None \
                else Unary(MASK, "!", Var(MASK, mt))
            mf = new_mask(f"m_not_{base}", nm, b, ifst.coord)
            edge[(b, t)] = mt
            edge[(b, e)] = mf
    ret = cfg.exit.term[1]
    lin = Linear(fn, out, ret, cfg, block_of)
    decide_blends(lin, mask)
    return lin


class _Sentinel:
    pass


_NONE = _Sentinel()


def _equivalent_mask(cfg: CFG, b: BasicBlock, mask: dict) -> object:
    """The mask of an earlier block that ``b`` is control-equivalent to, or _NONE."""
    d = cfg.idom[b]
    while d is not None:
        if cfg.postdominates(b, d):
            return mask[d]
        d = cfg.idom[d]
    return _NONE


def _as_mask(e: Expr) -> Expr:
    return e


def _target_var(t: Expr) -> Symbol | None:
    return t.sym if isinstance(t, Var) else None


def decide_blends(lin: Linear, mask: dict[BasicBlock, Symbol | None]) -> None:
    """Set ``blend`` on masked assignments whose inactive lanes may still be read."""
    stmts = lin.stmts
    cfg = lin.cfg
    reads: list[set[Symbol]] = []
    for s in stmts:
        r: set[Symbol] = set()
        if isinstance(s, Assign):
            r |= vars_read(s.value)
            if not isinstance(s.target, Var):
                r |= vars_read(s.target)
        elif isinstance(s, ExprStmt):
            r |= vars_read(s.expr)
        reads.append(r)
    final_reads = set()
    for e in exprs_of_term(cfg.exit):
        final_reads |= vars_read(e)
    for i, s in enumerate(stmts):
        if not isinstance(s, Assign) or s.mask is None:
            continue
        x = _target_var(s.target)
        if x is None:
            continue  # stores through pointers are always load-blend-store
        earlier_def = x.kind == "param" or any(
            isinstance(p, Assign) and _target_var(p.target) is x for p in stmts[:i])
        if not earlier_def:
            continue
        b = lin.block_of[s]
        need = False
        for j in range(i + 1, len(stmts)):
            t = stmts[j]
            if x in reads[j] and not cfg.dominates(b, lin.block_of[t]):
                need = True
                break
            if isinstance(t, Assign) and _target_var(t.target) is x and t.mask is None:
                break
        else:
            if x in final_reads and not cfg.dominates(b, cfg.exit):
                need = True
        s.blend = need
    _ = mask
    _ = T
