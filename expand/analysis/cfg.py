"""Control-flow graphs of loop-free regions, with dominators and post-dominators.

A function body is one region; each (canonical) loop is a single node of its enclosing region
and its body is a region of its own, whose leaving edges end in pseudo blocks: ``back`` (on to
the next iteration), ``break``, and ``out:L`` (a jump to label L outside the loop, e.g. the
function's exit after single-exit normalization). So every region is acyclic.

Dominators and post-dominators are trees (immediate dominators by Cooper, Harvey and Kennedy's
intersection, one pass in topological order since the region is acyclic), and "a dominates b" is
an O(1) test of their depth-first intervals (``DomTree``). Reachability from a block to the join
of an ``if`` statement (expand/predict.py) goes through per-statement summaries (``Reach``): cost
near-linear in the size of the function, not one graph search per question.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
        self.idom: dict[BasicBlock, BasicBlock | None] = {}  # immediate dominator (None: the entry)
        self.ipdom: dict[BasicBlock, BasicBlock | None] = {}  # immediate post-dominator (None: the exit)
        self.dom_tree: DomTree | None = None
        self.pdom_tree: DomTree | None = None
        self._reach: Reach | None = None

    def new(self) -> BasicBlock:
        b = BasicBlock(len(self.blocks))
        b.cfg = self
        self.blocks.append(b)
        return b

    def dominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        """Every path from the entry to ``b`` passes ``a`` (``a`` dominates itself)."""
        return self.dom_tree.dominates(a, b)

    def postdominates(self, a: BasicBlock, b: BasicBlock) -> bool:
        """Every path from ``b`` to the exit passes ``a``."""
        return self.pdom_tree.dominates(a, b)

    def reaches(self, a: BasicBlock, b: BasicBlock) -> bool:
        """Some path leads from ``a`` to ``b`` (``a`` reaches itself); ``b`` must be the join of an
        ``if`` statement whose branch block dominates ``a``, or ``a`` itself (see ``Reach``)."""
        if self._reach is None:
            self._reach = Reach(self)
        return self._reach.reaches(a, b)


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


def immediate_dominators(order: Sequence, preds: Callable[[object], list]) -> dict:
    """The immediate dominator of each node of an acyclic graph given in topological ``order``
    (None for nodes without predecessors, and for those whose predecessors share no dominator:
    roots of a dominator forest). ``preds(n)`` are ``n``'s predecessors, all earlier in ``order``.

    Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm" (2001): a node's immediate
    dominator is the nearest common ancestor of its predecessors in the tree built so far; in
    topological order every predecessor is done first, so one pass is exact. The common ancestor
    is found with jump pointers in O(log n) steps, not by their walk up the tree (a walk as long
    as the function for each early return's post-dominator)."""
    index = {n: i for i, n in enumerate(order)}
    idom: dict = {}
    depth: dict = {}
    jump: dict = {}  # skew-binary jump pointers (Myers 1983): an ancestor in O(log n) steps, O(1) a node

    def common(a, b):
        if depth[a] < depth[b]:
            a, b = b, a
        while depth[a] > depth[b]:
            a = jump[a] if depth[jump[a]] >= depth[b] else idom[a]
        while a is not b:  # (equal depths: equal jump lengths)
            if idom[a] is None:
                return None  # two roots
            if jump[a] is not jump[b]:
                a, b = jump[a], jump[b]
            else:
                a, b = idom[a], idom[b]
        return a

    for n in order:
        cur = None
        first = True
        for p in preds(n):
            if p not in index:
                continue  # (not in the graph: unreachable)
            if first:
                cur, first = p, False
                continue
            cur = common(cur, p)
            if cur is None:
                break
        idom[n] = cur
        if cur is None:
            depth[n], jump[n] = 0, n
        else:
            depth[n] = depth[cur] + 1
            j = jump[cur]
            jump[n] = jump[j] if depth[cur] - depth[j] == depth[j] - depth[jump[j]] else cur
    return idom


class DomTree:
    """A dominator forest given by parent links: ``dominates`` in O(1) from depth-first intervals."""

    def __init__(self, parent: dict) -> None:
        self.parent = parent
        children: dict = {n: [] for n in parent}
        roots = []
        for n, p in parent.items():
            (roots if p is None else children[p]).append(n)
        self.pre: dict = {}
        self.post: dict = {}
        clock = 0
        for r in roots:
            stack = [(r, iter(children[r]))]
            self.pre[r] = clock
            clock += 1
            while stack:
                n, it = stack[-1]
                c = next(it, None)
                if c is None:
                    stack.pop()
                    self.post[n] = clock
                    clock += 1
                else:
                    self.pre[c] = clock
                    clock += 1
                    stack.append((c, iter(children[c])))

    def dominates(self, a, b) -> bool:
        """``a`` is ``b`` or one of its ancestors."""
        return self.pre[a] <= self.pre[b] and self.post[b] <= self.post[a]


def _dominators(g: CFG) -> None:
    blocks = g.blocks
    g.idom = immediate_dominators(blocks, lambda b: b.preds)
    exit_first = [g.exit, *(b for b in reversed(blocks) if b is not g.exit)]
    g.ipdom = immediate_dominators(exit_first, lambda b: [] if b is g.exit else b.succs)
    g.dom_tree, g.pdom_tree = DomTree(g.idom), DomTree(g.ipdom)


class Reach:
    """Reachability inside ``if`` statements, from per-statement summaries.

    Blocks are numbered in source order and every edge goes forward, so the blocks of an ``if``
    statement (branch block ``d``, join ``d.join``) are exactly those numbered between the two, and
    a path from inside it to its join stays inside it. The summary of ``d`` is the set of blocks
    outside the statement that paths from ``d`` reach first: its join (when an arm falls through)
    and the targets of jumps that leave it (the exit, labels, pseudo blocks). A search from a block
    of the statement then steps over each nested ``if`` through its summary, so a question costs the
    statement's own blocks, not its nested ones', and the summaries, made innermost first, cost about
    the size of the graph together."""

    def __init__(self, g: CFG) -> None:
        self.summary: dict[BasicBlock, list[BasicBlock]] = {}
        branches = [b for b in g.blocks if b.term[0] == "branch" and b.join is not None]
        for d in sorted(branches, key=lambda b: -b.order):
            self.summary[d] = self._search(d.succs, d.order, d.join.order)

    def _search(self, start: list[BasicBlock], lo: int, hi: int) -> list[BasicBlock]:
        """The blocks outside orders ``lo``..``hi`` (exclusive) first reached from ``start``, all inside."""
        out: list[BasicBlock] = []
        seen: set[BasicBlock] = set()
        work = list(start)
        while work:
            x = work.pop()
            if x in seen:
                continue
            seen.add(x)
            if not lo < x.order < hi:
                out.append(x)
            else:
                s = self.summary.get(x)
                work.extend(x.succs if s is None else s)
        return out

    def reaches(self, a: BasicBlock, b: BasicBlock) -> bool:
        if a is b:
            return True
        d = a.cfg.idom.get(a) if a.cfg is not None else None
        while d is not None and d.join is not b:
            d = a.cfg.idom.get(d)
        if d is None:
            raise ValueError(f"reaches: {b} is not the join of an if statement around {a}")
        return b in self._search([a], d.order, b.order)


def exprs_of_term(b: BasicBlock) -> list[Expr]:
    if b.term[0] == "branch":
        return [b.term[1]]
    if b.term[0] == "exit" and b.term[1].value is not None:
        return [b.term[1].value]
    return []
