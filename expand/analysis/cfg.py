"""Control-flow graphs of loop-free regions, with dominators and post-dominators.

A function body is one region; each (canonical) loop is a single node of its enclosing region
and its body is a region of its own, whose leaving edges end in pseudo blocks: ``back`` (on to
the next iteration), ``break``, and ``out:L`` (a jump to label L outside the loop, e.g. the
function's exit after single-exit normalization). So every region is acyclic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from expand.ir.diagnostics import error
from expand.ir.nodes import Assign, Block, Break, Continue, Expr, ExprStmt, Goto, If, Label, Loop, Return, Stmt


@dataclass(eq=False)
class BasicBlock:
    id: int
    stmts: list[Stmt] = field(default_factory=list)
    # ('jump', succ, goto|None) | ('branch', cond, then, else, if) | ('exit', Return)
    # | ('loop', Loop, after, {label: block}) | ('sink',)
    term: tuple | None = None
    preds: list[BasicBlock] = field(default_factory=list)
    order: int = -1
    pseudo: str | None = None  # 'back' | 'break' | 'out:LABEL' in loop bodies
    hint: bool | None = None  # reached by a branch edge marked likely (True) / unlikely (False)
    join: BasicBlock | None = None  # of a branch block: where its if statement's arms meet again
    cfg: CFG | None = None

    @property
    def succs(self) -> list[BasicBlock]:
        if self.term is None or self.term[0] in ("exit", "sink"):
            return []
        if self.term[0] == "jump":
            return [self.term[1]]
        if self.term[0] == "loop":
            return [self.term[2], *self.term[3].values()]
        return [self.term[2], self.term[3]]

    def __repr__(self) -> str:
        return f"B{self.id}"


class CFG:
    def __init__(self) -> None:
        self.blocks: list[BasicBlock] = []
        self.labels: dict[str, BasicBlock] = {}
        self.entry = self.new()
        self.exit: BasicBlock | None = None
        self.pseudo: dict[str, BasicBlock] = {}
        self.dom: dict[BasicBlock, set[BasicBlock]] = {}
        self.pdom: dict[BasicBlock, set[BasicBlock]] = {}
        self.idom: dict[BasicBlock, BasicBlock | None] = {}

    def new(self) -> BasicBlock:
        b = BasicBlock(len(self.blocks))
        b.cfg = self
        self.blocks.append(b)
        return b

    def dominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        return a in self.dom[b]

    def postdominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        return a in self.pdom[b]


def labels_defined(stmts: list[Stmt], into_loops: bool) -> set[str]:
    out: set[str] = set()
    for s in stmts:
        if isinstance(s, Label):
            out.add(s.name)
        elif isinstance(s, If):
            out |= labels_defined(s.then, into_loops) | labels_defined(s.els, into_loops)
        elif isinstance(s, Block):
            out |= labels_defined(s.body, into_loops)
        elif isinstance(s, Loop) and into_loops:
            out |= labels_defined(s.body, True)
    return out


def goto_targets(stmts: list[Stmt]) -> list[Goto]:
    out: list[Goto] = []
    for s in stmts:
        if isinstance(s, Goto):
            out.append(s)
        elif isinstance(s, If):
            out += goto_targets(s.then) + goto_targets(s.els)
        elif isinstance(s, (Block, Loop)):
            out += goto_targets(s.body)
    return out


def build_cfg(body: list[Stmt], in_loop: bool = False) -> CFG:
    """Blocks in source order; pseudo exit blocks last. Diagnoses backward and into-loop gotos."""
    g = CFG()
    counter = [0]
    local = labels_defined(body, into_loops=False)
    nested = labels_defined(body, into_loops=True) - local

    def start(b: BasicBlock) -> BasicBlock:
        if b.order < 0:
            b.order = counter[0]
            counter[0] += 1
        return b

    def pseudo(kind: str) -> BasicBlock:
        if kind not in g.pseudo:
            b = g.new()
            b.pseudo = kind
            g.pseudo[kind] = b
        return g.pseudo[kind]

    def target(goto: Goto) -> BasicBlock:
        name = goto.label
        if name in local:
            if name not in g.labels:
                g.labels[name] = g.new()
            return g.labels[name]
        if name in nested:
            raise error(goto.coord, f"'goto {name}' jumps into a loop", "jump only forward and out of loops")
        if in_loop:
            return pseudo(f"out:{name}")
        raise error(goto.coord, f"label '{name}' is used but not defined")

    def visit(stmts: list[Stmt], cur: BasicBlock) -> BasicBlock:
        for s in stmts:
            if isinstance(s, (Assign, ExprStmt)):
                cur.stmts.append(s)
            elif isinstance(s, Block):
                cur = visit(s.body, cur)
            elif isinstance(s, If):
                t, e, join = g.new(), g.new(), g.new()
                cur.term = ("branch", s.cond, t, e, s)
                cur.join = join
                if s.likely is not None:
                    t.hint, e.hint = s.likely, not s.likely
                t_end = visit(s.then, start(t))
                if t_end.term is None:
                    t_end.term = ("jump", join, None)
                e_end = visit(s.els, start(e))
                if e_end.term is None:
                    e_end.term = ("jump", join, None)
                cur = start(join)
            elif isinstance(s, Goto):
                cur.term = ("jump", target(s), s)
                cur = start(g.new())
            elif isinstance(s, Label):
                if s.name not in g.labels:
                    g.labels[s.name] = g.new()
                nb = g.labels[s.name]
                if cur.term is None:
                    cur.term = ("jump", nb, None)
                cur = start(nb)
            elif isinstance(s, Return):
                cur.term = ("exit", s)
                g.exit = cur
                cur = start(g.new())
            elif isinstance(s, Loop):
                lb = start(g.new())
                if cur.term is None:
                    cur.term = ("jump", lb, None)
                after = g.new()
                inner = labels_defined(s.body, into_loops=True)
                outs = {}
                for gt in goto_targets(s.body):
                    if gt.label not in inner and gt.label not in outs:
                        outs[gt.label] = target(gt)
                lb.term = ("loop", s, after, outs)
                cur = start(after)
            elif isinstance(s, Break):
                if not in_loop:
                    raise error(s.coord, "'break' outside a loop", "use 'break' only inside for, while or do")
                cur.term = ("jump", pseudo("break"), s)
                cur = start(g.new())
            elif isinstance(s, Continue):
                if not in_loop:
                    raise error(s.coord, "'continue' outside a loop", "use 'continue' only inside for, while or do")
                raise error(s.coord, "internal: 'continue' survived loop canonicalization")
            else:
                raise error(s.coord, f"statement {type(s).__name__} is not supported here")
        return cur

    last = visit(body, start(g.entry))
    if in_loop:
        if last.term is None:
            last.term = ("jump", pseudo("back"), None)
        vexit = g.new()
        vexit.term = ("sink",)
        for p in g.pseudo.values():
            p.term = ("jump", vexit, None)
        for p in [*g.pseudo.values(), vexit]:
            start(p)
        g.exit = vexit
    elif last.term is None:
        last.term = ("exit", Return(None, None))
        g.exit = g.exit or last
    for name, b in g.labels.items():
        if b.order < 0:
            raise error(None, f"label '{name}' is used but not defined")
    # Keep reachable blocks only.
    seen = reachable(g.entry)
    if in_loop:
        seen.add(g.exit)
    g.blocks = sorted((b for b in g.blocks if b in seen), key=lambda b: b.order)
    g.pseudo = {k: b for k, b in g.pseudo.items() if b in seen}
    for b in g.blocks:
        b.preds = []
    for b in g.blocks:
        for s in b.succs:
            s.preds.append(b)
            if s.order <= b.order:
                co = b.term[4].coord if b.term[0] == "branch" else (
                    b.term[2].coord if b.term[0] == "jump" and b.term[2] is not None else None)
                raise error(co, "a backward 'goto' forms a loop that is not a for/while/do loop",
                            "write the loop with for, while or do")
    if not in_loop:
        exits = [b for b in g.blocks if b.term[0] == "exit"]
        if len(exits) != 1:
            raise error(None, "internal: function does not have a single exit")
        g.exit = exits[0]
    _dominators(g)
    return g


def reachable(b: BasicBlock) -> set[BasicBlock]:
    """The blocks some path from ``b`` reaches (``b`` included)."""
    seen: set[BasicBlock] = set()
    work = [b]
    while work:
        x = work.pop()
        if x not in seen:
            seen.add(x)
            work.extend(x.succs)
    return seen


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
