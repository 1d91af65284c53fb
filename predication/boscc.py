"""BOSCC (branch on superword condition code): skip a region of the linear code when its mask is
all false (EXPAND Sec. 2.4 and Fig. 3e; Pang et al.: regions from mask implication).

A region is the run of linear statements whose blocks a block A dominates: if A's mask is all
false, so is every mask in the region, and skipping it is exactly executing it with no lane on
(blends keep old values, per-lane calls and stores do nothing). Regions nest; each gets one guard.
Masks computed inside a skipped region and read after it are reset to all false.

Modes: ``off``; ``all`` (every region with a statement, EXPAND's experiment); ``auto`` (a cost
model: the region's work against the cost of the test, ``__builtin_expect`` hints or, with none,
a static prediction of the rare arm (expand/analysis/predict.py), and per-lane calls, gathers and loops,
which are almost always worth a guard).

All lanes on: a guarded region also gets a copy in which its own mask counts as every lane (no
blends, plain stores, no per-lane tests under it; inner masks stay), run when ``mask_all`` holds:
``if (all(m)) { copy } else if (any(m)) { region }``. This is exact: a mask with every lane on
selects the new value everywhere, and every mask of the region (a loop's active mask included)
lies inside the region's. ``all`` adds the copy wherever it saves something; ``auto`` where what
it saves (blends at the ISA's ``boscc_blend_cost``, stores, safe divisors, gather indexes) is at
least ``ALL_LANES_PAYBACK`` times the test: the extra test is paid whenever some lane is off, so
with S = 2T the copy pays once every lane is on in more than a third of the runs (S >= 8 blends on
SSE4.1/NEON/AltiVec, 6 on AVX2, 4 on AVX-512, 3 on SSE2 and generic, where a blend is 3 ops).
Where every lane is almost always on (``likely``: a likely edge, or the join after an unlikely
branch) one test's worth is enough, and a guarded region's copy needs only some saving (its
all-lanes test then replaces the all-false test on the common path). Not for regions marked
unlikely (every lane is then almost never on), nor, with no hint, inside loops. A region ``auto``
does not guard gets ``if (all(m)) { copy } else { region }`` on the same terms (``copy_alone``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from expand.analysis.cfg import BasicBlock
from expand.analysis.predict import likely, rare
from expand.ir.diagnostics import Remark
from expand.ir.nodes import (
    MASK,
    Assign,
    Binary,
    BitCast,
    BreakIf,
    Call,
    Cast,
    Cond,
    Const,
    Expr,
    ExprStmt,
    Guard,
    Index,
    MaskedLoop,
    MathOp,
    Stmt,
    Symbol,
    Unary,
    UniformIf,
    Var,
    flatten,
    stmt_reads,
    vars_read,
)
from expand.ir.types import CType

from .ifconvert import Linear

EXPENSIVE = 1000  # per-lane calls, gathers, loops
GUESS_PAYBACK = 2  # a region guessed rare is guarded from this many tests' work (a wrong guess mispredicts)
ALL_LANES_PAYBACK = 2  # the all-lanes copy must save this many times its test (see the docstring)


def insert_guards(lin: Linear, mode: str, test_cost: int = 4, plain_cost: int | None = None,
                  blend_cost: int = 1, regs: Callable[[CType], int] | None = None) -> None:
    """``test_cost``: ops a guard's test costs; ``plain_cost``: the work from which a region with no
    ``__builtin_expect`` hint is worth a test on this ISA (None: never); ``blend_cost``: ops of one
    blend; ``regs``: registers a gang of a C type takes (a blend of a double gang on SSE is two
    blends); all from the ISA table."""
    if mode == "off":
        return
    g = _Guarder(lin, mode, test_cost, plain_cost, blend_cost, regs or (lambda t: 1))
    # Only masks that survived dead code elimination can be tested (tests/fuzz_regressions/
    # boscc_uniform_guard.c: a region under a mask nobody else needed).
    g.defined = {s.target.sym for s in flatten(lin.stmts)
                 if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym.type == MASK}
    g.defined |= {s.active for s in flatten(lin.stmts) if isinstance(s, MaskedLoop) and s.active is not None}
    lin.stmts = g.guard_list(lin.stmts, None)
    g.add_resets(lin.stmts)
    g.add_all_lanes(lin.stmts)


class _Guarder:
    def __init__(self, lin: Linear, mode: str, test_cost: int, plain_cost: int | None, blend_cost: int,
                 regs: Callable[[CType], int]) -> None:
        self.lin = lin
        self.mode = mode
        self.test_cost = test_cost
        self.plain_cost = plain_cost
        self.loop_depth = 0
        self.block_of = lin.block_of
        self.mask = lin.block_mask
        self.blend_cost = blend_cost
        self.regs = regs
        self.head: dict[Guard, BasicBlock] = {}  # each guard's region head
        self.heads: dict[BasicBlock | None, dict[BasicBlock, BasicBlock | None]] = {}  # head_of's memo
        self.costs: dict[Stmt, int] = {}  # cost of guards and uniform ifs (their bodies are final when asked)

    def head_of(self, b: BasicBlock, head: BasicBlock | None) -> BasicBlock | None:
        """The outermost block dominating ``b`` inside ``head``'s region with a mask of its own.

        Memoized along the dominator tree: the answer for ``b`` is its immediate dominator's, or
        when that has none, ``b`` itself if its mask is new; so each (head, block) pair costs O(1)."""
        cfg = b.cfg
        if head is not None and (head.cfg is not cfg or not cfg.dominates(head, b)):
            return None
        cur_mask = self.mask.get(head) if head is not None else self.mask.get(cfg.entry)
        memo = self.heads.setdefault(head, {})
        chain: list[BasicBlock] = []
        d: BasicBlock | None = b
        while d is not None and d is not head and d not in memo:
            chain.append(d)
            d = cfg.idom[d]
        found = memo[d] if d is not None and d is not head else None
        for a in reversed(chain):  # outermost first
            if found is None:
                m = self.mask.get(a)
                if m is not None and m is not cur_mask:
                    found = a
            memo[a] = found
        return found

    def in_region(self, s: Stmt, a: BasicBlock) -> bool:
        b = self.block_of.get(s)
        return b is not None and b.cfg is a.cfg and a.cfg.dominates(a, b)

    def guard_list(self, stmts: list[Stmt], head: BasicBlock | None) -> list[Stmt]:
        """Guard the regions of ``stmts`` (inside ``head``'s region; None: a whole statement list).

        One pass with a stack of the regions open at the current statement, innermost last (a
        region inside another is a run of statements inside the other's run): each statement is
        looked at once, however deeply its regions nest."""
        out: list[Stmt] = []
        # each open region: [head block, its mask, its statements so far, whether it has begun]
        regions: list[list] = []

        def close() -> None:
            a, m, inner, _ = regions.pop()
            dest = regions[-1][2] if regions else out
            worth, why = self.decide(a, inner) if inner and m in self.defined else (False, "")
            if worth:
                dest.append(Guard(inner[0].coord, m, inner))
                self.head[dest[-1]] = a
                self.remark(inner[0], f"BOSCC guard: the code under '{m.name}' is skipped when no lane is on ({why})")
            elif inner and m in self.defined and self.mode == "auto" and self.copy_alone(a, inner, m):
                dest.append(Guard(inner[0].coord, m, inner, any_test=False))  # no all-false test
                self.head[dest[-1]] = a
                self.remark(inner[0], f"no BOSCC guard on '{m.name}' ({why}), but a copy without blends runs "
                                      "when every lane is on")
            else:
                dest.extend(inner)
                if why and not all(isinstance(t, Guard) for t in inner):  # (a live-out write has its own)
                    self.remark(inner[0], f"no BOSCC guard on '{m.name}': {why}")

        for s in stmts:
            while regions and not self.in_region(s, regions[-1][0]):
                close()
            b = self.block_of.get(s)
            while True:
                if regions and not regions[-1][3]:
                    # A join mask is defined by the region's first statement: compute it before the test.
                    if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym is regions[-1][1]:
                        (regions[-2][2] if len(regions) > 1 else out).append(s)
                        break
                    regions[-1][3] = True
                h = regions[-1][0] if regions else head
                a = self.head_of(b, h) if b is not None else None
                if a is not None:
                    regions.append([a, self.mask[a], [], False])
                    continue
                if isinstance(s, MaskedLoop):
                    self.loop_depth += 1
                    s.body = self.guard_list(s.body, None)
                    self.loop_depth -= 1
                elif isinstance(s, UniformIf):
                    s.then = self.guard_list(s.then, h)
                    s.els = self.guard_list(s.els, h)
                (regions[-1][2] if regions else out).append(s)
                break
        while regions:
            close()
        return out

    def remark(self, s: Stmt, message: str) -> None:
        self.lin.remarks.append(Remark(s.coord, "boscc", message))

    def worth(self, a: BasicBlock, body: list[Stmt]) -> bool:
        return self.decide(a, body)[0]

    def decide(self, a: BasicBlock, body: list[Stmt]) -> tuple[bool, str]:
        """Whether region ``a`` with statements ``body`` gets a guard, and why (for ``--remarks``).
        The cost model of ``auto`` (measured: see the README's BOSCC numbers). Regions with per-lane
        calls, gathers or loops are always guarded; regions the source marks likely never; regions
        marked unlikely when they do at least the test's work, or with no hint but predicted rare
        (expand/analysis/predict.py: ``j0 < 0``, an arm that returns early) when they do ``GUESS_PAYBACK``
        times that (a guess can be wrong: ``i0 < 0`` is a float's sign, set in half the lanes, and
        a test that skips now and then mispredicts); other unmarked regions when
        the ISA's test is cheap enough for their work (``plain_cost``: measured per ISA; None on
        SSE, AVX2, NEON and AltiVec, where guards on every region of the rounding functions
        measured slower than none: most of them run on every call)."""
        if self.mode == "all":
            return True, "--boscc all"
        if a.hint is True:
            return False, "the source marks it likely (__builtin_expect)"
        cost = sum(self.cost(s) for s in body)
        if cost >= EXPENSIVE:
            return True, "it has a loop, a per-lane call or per-lane memory accesses"
        if a.hint is False:
            if cost >= self.test_cost:
                return True, f"marked unlikely, and its {cost} operations pay for the test's {self.test_cost}"
            return False, f"marked unlikely, but its {cost} operations cost less than the test's {self.test_cost}"
        # Not inside loops: the loop already tests its mask every iteration, and a second branch
        # per iteration measured slower (mandelbrot, newton_sqrt, two_exits on AVX2/AVX-512).
        if self.loop_depth:
            return False, "inside a loop, which tests its mask every iteration already"
        if rare(a) and cost >= GUESS_PAYBACK * self.test_cost:
            # skipped almost always: it saves its work less the test's
            return True, f"predicted rare, and its {cost} operations pay for the test"
        if self.plain_cost is not None and cost >= self.plain_cost:
            return True, f"its {cost} operations pay for the test on this ISA (from {self.plain_cost})"
        return False, f"{cost} operations, not predicted rare: too little to pay for the test on this ISA " \
                      "(__builtin_expect(cond, 0) on a rare branch, or --boscc all, guards it)"

    def copy_alone(self, a: BasicBlock, body: list[Stmt], m: Symbol) -> bool:
        """Whether a region ``auto`` does not guard still gets its all-lanes copy, as
        ``if (all(m)) { copy } else { region }``: when ``copy_pays``, and not, with no hint, inside
        a loop (the loop already tests its mask every iteration). This is
        what makes glibc's main paths fast: in powf and logf the main computation runs under the
        join of the lanes no special case returned, which no hint covers, and every lane is on in
        the common range."""
        if a.hint is None and self.loop_depth:
            return False
        return self.copy_pays(a, self.saving(body, m))

    def copy_pays(self, a: BasicBlock | None, saved: int, guarded: bool = False) -> bool:
        """Whether an all-lanes copy of region ``a`` saving ``saved`` ops is worth its test: never in
        a region marked unlikely; else ``ALL_LANES_PAYBACK`` tests' worth, or, where every lane is
        almost always on (``likely``), one test's, or any saving at all when the region is guarded
        anyway (its all-lanes test then replaces the all-false test on the common path)."""
        if a is not None and a.hint is False:
            return False
        if a is not None and likely(a):
            return saved > 0 if guarded else saved >= self.test_cost
        return saved >= self.test_cost * ALL_LANES_PAYBACK

    def cost(self, s: Stmt) -> int:
        if isinstance(s, (MaskedLoop,)):
            return EXPENSIVE
        if isinstance(s, (Guard, UniformIf)):  # (made once: each enclosing region asks again)
            c = self.costs.get(s)
            if c is None:
                c = sum(self.cost(t) for t in s.body) if isinstance(s, Guard) else \
                    1 + max(sum(self.cost(t) for t in s.then), sum(self.cost(t) for t in s.els))
                self.costs[s] = c
            return c
        if isinstance(s, ExprStmt) or (isinstance(s, Assign) and isinstance(s.value, Call)):
            return EXPENSIVE
        if isinstance(s, Assign):
            c = _ops(s.value) + (1 if s.blend else 0)
            if not isinstance(s.target, Var):
                c += 3
            return c
        if isinstance(s, BreakIf):
            return 1
        return 1

    def saving(self, stmts: list[Stmt], m: Symbol) -> int:
        """Ops the all-lanes copy saves: the work under mask ``m`` that depends on it."""
        n = 0
        for s in stmts:
            if isinstance(s, UniformIf):
                n += max(self.saving(s.then, m), self.saving(s.els, m))
            elif isinstance(s, Guard):
                # A guard inside the region of mask ``m`` guards a block ``a`` with a mask of its own
                # (another symbol): every block ``a`` dominates has ``a``'s mask, a mask made for a block
                # ``a`` dominates, or none (a mask is that of the immediate dominator, of the single
                # predecessor, or a new one), so nothing in it runs under ``m`` and it saves nothing.
                if s.mask is m:
                    n += self.saving(s.body, m)
            elif not isinstance(s, (Assign, ExprStmt)) or s.mask is not m:
                continue
            elif isinstance(s, ExprStmt) or isinstance(s.value, Call):
                n += 1  # the per-lane test of a call
            elif isinstance(s.target, Var) and s.target.sym.type == MASK:
                continue
            else:
                blend = self.blend_cost * self.regs(s.target.type)
                if not isinstance(s.target, Var):
                    n += 1 + blend  # load-blend-store, or per-lane stores
                    if s.target.type.size() < 4:
                        n += 1  # and the widening of the loaded bytes or halves
                elif s.blend:
                    n += blend
                for e in (s.value, s.target):
                    for x in e.walk():  # safe divisors and gather indexes
                        if isinstance(x, Binary) and x.op in ("/", "%") and x.type.is_int():
                            n += self.blend_cost * self.regs(x.type)
                        elif isinstance(x, Index) and not isinstance(x.index, Const):
                            n += self.blend_cost * self.regs(x.index.type)
        return n

    def add_all_lanes(self, stmts: list[Stmt]) -> None:
        """Give guards the copy run when every lane of their mask is on (inner guards first, so
        outer copies include theirs)."""
        for s in stmts:
            if isinstance(s, MaskedLoop):
                self.add_all_lanes(s.body)
            elif isinstance(s, UniformIf):
                self.add_all_lanes(s.then)
                self.add_all_lanes(s.els)
            elif isinstance(s, Guard):
                self.add_all_lanes(s.body)
                saved = self.saving(s.body, s.mask)
                a = self.head.get(s)
                if not s.any_test or saved and (self.mode == "all" or self.copy_pays(a, saved, guarded=True)):
                    s.all_body = _all_lanes(s.body, s.mask)
                if not s.any_test:
                    s.resets = []  # the region runs whenever the copy does not

    def add_resets(self, stmts: list[Stmt]) -> None:
        """Masks defined inside a guard and read outside it are reset when the guard skips.

        In ``flatten`` order a guard's statements follow it in one run, so "read outside" is a read
        before the guard or after its run (or by the return value); each mask definition walks out
        through the guards around it only while its reads are not all inside the guard at hand."""
        order = list(flatten(stmts))
        at = {id(t): i for i, t in enumerate(order)}
        size = [1] * len(order)  # of each statement with those inside it, innermost first
        for i in range(len(order) - 1, -1, -1):
            for sub in _lists_in(order[i]):
                size[i] += sum(size[at[id(x)]] for x in sub)
        end: dict[Guard, int] = {}  # the position of a guard's last statement
        outer: dict[Guard, Guard | None] = {}  # the guard around each guard
        inner: list[Guard | None] = [None] * len(order)  # the innermost guard around each position
        open_: list[Guard] = []
        for i, t in enumerate(order):
            while open_ and end[open_[-1]] < i:
                open_.pop()
            inner[i] = open_[-1] if open_ else None
            if isinstance(t, Guard):
                outer[t] = inner[i]
                end[t] = i + size[i] - 1
                open_.append(t)
        first: dict[Symbol, int] = {}
        last: dict[Symbol, int] = {}
        for i, t in enumerate(order):
            for v in _reads(t):
                first.setdefault(v, i)
                last[v] = i
        ret = self.lin.ret.value
        always = vars_read(ret) if ret is not None else set()
        resets: dict[Guard, dict[Symbol, None]] = {g: {} for g in end}
        for i, t in enumerate(order):
            if not (isinstance(t, Assign) and isinstance(t.target, Var) and t.target.sym.type == MASK):
                continue
            m = t.target.sym
            g = inner[i]
            while g is not None and (m in always or first.get(m, at[id(g)]) < at[id(g)]
                                     or last.get(m, at[id(g)]) > end[g]):
                resets[g][m] = None
                g = outer[g]
        for g, ms in resets.items():
            g.resets = list(ms)


def _lists_in(s: Stmt) -> list[list[Stmt]]:
    """The statement lists directly inside ``s`` that ``flatten`` walks."""
    if isinstance(s, MaskedLoop):
        return [s.body]
    if isinstance(s, Guard):
        return [s.body] if s.all_body is None else [s.body, s.all_body]
    if isinstance(s, UniformIf):
        return [s.then, s.els]
    return []


def _all_lanes(stmts: list[Stmt], m: Symbol) -> list[Stmt]:
    """A copy of ``stmts`` in which mask ``m`` is taken as every lane (statements under it unmasked;
    loops are shared, their masks are their own)."""
    out: list[Stmt] = []
    for s in stmts:
        c = s
        if isinstance(s, (Assign, ExprStmt)) and s.mask is m:
            c = copy.copy(s)
            c.mask = None
            if isinstance(c, Assign):
                c.blend = False
        elif isinstance(s, UniformIf):
            c = copy.copy(s)
            c.then, c.els = _all_lanes(s.then, m), _all_lanes(s.els, m)
            if c.mask is m:
                c.mask = None
        elif isinstance(s, Guard):
            c = copy.copy(s)
            c.body = _all_lanes(s.body, m)
            c.all_body = None if s.all_body is None else _all_lanes(s.all_body, m)
            c.resets = list(s.resets)
        out.append(c)
    return out


def _reads(t: Stmt) -> set[Symbol]:
    r = stmt_reads(t)
    if isinstance(t, Guard):
        r.add(t.mask)
    m = getattr(t, "mask", None)
    if isinstance(m, Symbol):
        r.add(m)
    return r


def _ops(e: Expr) -> int:
    n = 0
    for x in e.walk():
        if isinstance(x, (Binary, Unary, Cast, BitCast, Cond, MathOp)):
            n += 1
        elif isinstance(x, Index) and not isinstance(x.index, Const):
            n += EXPENSIVE  # a gather: one scalar load per lane
    return n
