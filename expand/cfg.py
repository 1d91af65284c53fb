"""Control-flow graph of an acyclic, loop-free function body, with dominators and post-dominators."""

from __future__ import annotations

from dataclasses import dataclass, field

from .diagnostics import error
from .ir import Assign, Block, Break, Continue, Expr, ExprStmt, Goto, If, Label, Loop, Return, Stmt


@dataclass(eq=False)
class BasicBlock:
    id: int
    stmts: list[Stmt] = field(default_factory=list)
    # terminator: ('jump', succ) | ('branch', cond, then, else, stmt) | ('exit', Return)
    term: tuple | None = None
    preds: list[BasicBlock] = field(default_factory=list)
    order: int = -1

    @property
    def succs(self) -> list[BasicBlock]:
        if self.term is None or self.term[0] == "exit":
            return []
        if self.term[0] == "jump":
            return [self.term[1]]
        return [self.term[2], self.term[3]]

    def __repr__(self) -> str:
        return f"B{self.id}"


class CFG:
    def __init__(self) -> None:
        self.blocks: list[BasicBlock] = []
        self.labels: dict[str, BasicBlock] = {}
        self.entry = self.new()
        self.exit: BasicBlock | None = None
        self.dom: dict[BasicBlock, set[BasicBlock]] = {}
        self.pdom: dict[BasicBlock, set[BasicBlock]] = {}
        self.idom: dict[BasicBlock, BasicBlock | None] = {}

    def new(self) -> BasicBlock:
        b = BasicBlock(len(self.blocks))
        self.blocks.append(b)
        return b

    def dominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        return a in self.dom[b]

    def postdominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        return a in self.pdom[b]


def build_cfg(body: list[Stmt]) -> CFG:
    """Blocks in source order; diagnoses loops and backward gotos."""
    g = CFG()
    counter = [0]

    def start(b: BasicBlock) -> BasicBlock:
        if b.order < 0:
            b.order = counter[0]
            counter[0] += 1
        return b

    def label_block(name: str) -> BasicBlock:
        if name not in g.labels:
            g.labels[name] = g.new()
        return g.labels[name]

    def visit(stmts: list[Stmt], cur: BasicBlock) -> BasicBlock:
        for s in stmts:
            if isinstance(s, (Assign, ExprStmt)):
                cur.stmts.append(s)
            elif isinstance(s, Block):
                cur = visit(s.body, cur)
            elif isinstance(s, If):
                t, e, join = g.new(), g.new(), g.new()
                cur.term = ("branch", s.cond, t, e, s)
                t_end = visit(s.then, start(t))
                if t_end.term is None:
                    t_end.term = ("jump", join)
                e_end = visit(s.els, start(e))
                if e_end.term is None:
                    e_end.term = ("jump", join)
                cur = start(join)
            elif isinstance(s, Goto):
                cur.term = ("jump", label_block(s.label), s)
                cur = start(g.new())
            elif isinstance(s, Label):
                nb = label_block(s.name)
                if cur.term is None:
                    cur.term = ("jump", nb)
                cur = start(nb)
            elif isinstance(s, Return):
                cur.term = ("exit", s)
                g.exit = cur
                cur = start(g.new())
            elif isinstance(s, Loop):
                raise error(s.coord, f"'{s.kind}' loops are not supported yet",
                            "expand vectorizes loop-free functions; move the loop to the caller")
            elif isinstance(s, (Break, Continue)):
                raise error(s.coord, "'break'/'continue' outside a loop")
            else:
                raise error(s.coord, f"statement {type(s).__name__} is not supported here")
        return cur

    last = visit(body, start(g.entry))
    if last.term is None:
        last.term = ("exit", Return(None, None))
        g.exit = g.exit or last
    for name, b in g.labels.items():
        if b.order < 0:
            raise error(None, f"label '{name}' is used but not defined")
    # Keep reachable blocks only.
    seen: set[BasicBlock] = set()
    work = [g.entry]
    while work:
        b = work.pop()
        if b in seen:
            continue
        seen.add(b)
        work.extend(b.succs)
    g.blocks = sorted((b for b in g.blocks if b in seen), key=lambda b: b.order)
    for b in g.blocks:
        b.preds = []
    for b in g.blocks:
        for s in b.succs:
            s.preds.append(b)
            if s.order <= b.order:
                co = b.term[4].coord if b.term[0] == "branch" else (b.term[2].coord if len(b.term) > 2 else None)
                raise error(co, "a backward 'goto' forms a loop; loops are not supported yet",
                            "expand vectorizes loop-free functions")
    exits = [b for b in g.blocks if b.term[0] == "exit"]
    if len(exits) != 1:
        raise error(None, "internal: function does not have a single exit")
    g.exit = exits[0]
    _dominators(g)
    return g


def _dominators(g: CFG) -> None:
    blocks = g.blocks
    allb = set(blocks)
    dom = {b: set(allb) for b in blocks}
    dom[g.entry] = {g.entry}
    for b in blocks[1:]:
        ds = [dom[p] for p in b.preds]
        dom[b] = set.intersection(*ds) | {b} if ds else {b}
    pdom = {b: set(allb) for b in blocks}
    pdom[g.exit] = {g.exit}
    for b in reversed(blocks):
        if b is g.exit:
            continue
        ps = [pdom[s] for s in b.succs]
        pdom[b] = set.intersection(*ps) | {b} if ps else {b}
    g.dom, g.pdom = dom, pdom
    for b in blocks:
        strict = dom[b] - {b}
        g.idom[b] = max(strict, key=lambda d: d.order) if strict else None


def exprs_of_term(b: BasicBlock) -> list[Expr]:
    if b.term[0] == "branch":
        return [b.term[1]]
    if b.term[0] == "exit" and b.term[1].value is not None:
        return [b.term[1].value]
    return []
