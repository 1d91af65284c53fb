"""Dominator trees, post-dominators and reachability (expand/analysis/cfg.py) and what the passes built on
them decide, against brute-force definitions: on random acyclic graphs, on the control-flow graphs of
random programs (ifs, gotos, labels, early returns, loops with breaks), and, for the passes made
near-linear (issue 20: the blend rule, copy folding, BOSCC's regions, resets and savings), against
their direct definitions on random programs of expand-fuzz and on the scaling families."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import expand.analysis.shapes as shapes
import expand.driver as driver
import predication.boscc as boscc
import predication.ifconvert as ifconvert
from emit import get_isa
from expand.analysis.cfg import CFG, DomTree, build_cfg, immediate_dominators, labels_defined
from expand.check import scaling
from expand.check.fuzz import FUZZ_LOG_H, generate, render
from expand.ir.diagnostics import ExpandError
from expand.ir.nodes import (
    MASK,
    Assign,
    Block,
    Break,
    Call,
    Const,
    Expr,
    ExprStmt,
    Goto,
    Guard,
    If,
    Loop,
    MaskedLoop,
    Stmt,
    UniformIf,
    Var,
    flatten,
    vars_read,
    walk_stmts,
)
from expand.passes import copyprop
from expand.passes.canonical_loops import canonicalize_loops
from expand.passes.lower import lower_aggregates, lower_function
from frontends.clang_frontend import read_file_any
from frontends.pycparser_frontend import read_file
from predication.single_exit import single_exit
from predication.uniform_branches import Sides, UniformBranch

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)


# ----------------------------------------------------------------------------- brute force


def reach_avoiding(start, succs, avoid=None) -> set:
    """The nodes some path from ``start`` reaches without passing ``avoid`` (``start`` included)."""
    seen, work = set(), [start]
    while work:
        x = work.pop()
        if x in seen or x is avoid:
            continue
        seen.add(x)
        work.extend(succs(x))
    return seen


def brute_dominates(a, b, sources, succs) -> bool:
    """``a`` is ``b``, or no source other than ``a`` reaches ``b`` when ``a`` is taken out."""
    return a is b or not any(b in reach_avoiding(s, succs, a) for s in sources if s is not a)


# ----------------------------------------------------------------------------- random acyclic graphs


@st.composite
def dags(draw) -> tuple[int, dict[int, list[int]]]:
    n = draw(st.integers(1, 24))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    succ: dict[int, list[int]] = {v: [] for v in range(n)}
    for u, v in pairs:
        if u != v and max(u, v) not in succ[min(u, v)]:
            succ[min(u, v)].append(max(u, v))
    return n, succ


@SETTINGS
@given(dags())
def test_dominator_forest_matches_definition(graph) -> None:
    """Dominators and post-dominators (the same function on the reversed graph) of any acyclic graph
    with any number of sources and sinks, as trees with O(1) queries."""
    n, succ = graph
    pred = {v: [u for u in range(n) if v in succ[u]] for v in range(n)}
    for order, ins, outs in ((list(range(n)), pred, succ), (list(range(n - 1, -1, -1)), succ, pred)):
        tree = DomTree(immediate_dominators(order, lambda v, ins=ins: ins[v]))
        sources = [v for v in order if not ins[v]]
        for a in order:
            for b in order:
                assert tree.dominates(a, b) == brute_dominates(a, b, sources, lambda v, outs=outs: outs[v]), (a, b)


@SETTINGS
@given(st.lists(st.integers(-50, 50), min_size=1, max_size=40), st.data())
def test_range_min_max(values: list[int], data) -> None:
    table = ifconvert._MinMax(values)
    a = data.draw(st.integers(0, len(values) - 1))
    b = data.draw(st.integers(a + 1, len(values)))
    assert table.query(a, b) == (min(values[a:b]), max(values[a:b]))


# ----------------------------------------------------------------------------- random programs


def random_program(seed: int) -> str:
    """A C function with nested ifs, forward gotos to labels (also inside if arms), early returns and
    loops with breaks and returns (gotos out of the loop)."""
    rng = random.Random(seed)
    lines: list[str] = []
    count = [0]

    def block(depth: int, in_loop: bool, ind: str) -> None:
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            count[0] += 1
            k = count[0]
            if r < 0.25:
                lines.append(f"{ind}x = x * {k % 5 + 2} + b;")
            elif r < 0.5 and depth < 4:
                lines.append(f"{ind}if (x > {k} - a) {{")
                block(depth + 1, in_loop, ind + "    ")
                if rng.random() < 0.6:
                    lines.append(f"{ind}}} else {{")
                    block(depth + 1, in_loop, ind + "    ")
                lines.append(f"{ind}}}")
            elif r < 0.62:
                lines.append(f"{ind}@GOTO@")
            elif r < 0.7 and not in_loop:
                lines.append(f"{ind}L{k}: ;")
            elif r < 0.78:
                lines.append(f"{ind}if (b < {k}) return x - {k};" if rng.random() < 0.7 else f"{ind}return x;")
            elif r < 0.86 and depth < 3:
                lines.append(f"{ind}for (int i{k} = 0; i{k} < a; i{k}++) {{")
                block(depth + 1, True, ind + "    ")
                lines.append(f"{ind}}}")
            elif in_loop and r < 0.94:
                lines.append(f"{ind}if (x > b + {k}) break;" if rng.random() < 0.7 else f"{ind}break;")
            else:
                lines.append(f"{ind}b = b - x;")

    block(0, False, "    ")
    labels = [(i, ln.strip().split(":")[0]) for i, ln in enumerate(lines) if ln.strip().startswith("L")]
    for i, ln in enumerate(lines):
        if "@GOTO@" in ln:
            later = [name for j, name in labels if j > i]
            lines[i] = ln.replace("@GOTO@", f"goto {rng.choice(later)};" if later else "x = x - 1;")
    return "int f(int a, int b)\n{\n    int x = a;\n" + "\n".join(lines) + "\n    return x;\n}\n"


def cfgs_of(tmp_path: Path, text: str) -> list[CFG]:
    """The control-flow graphs of ``f``'s body and of every loop body in it (as if-conversion builds them)."""
    src = tmp_path / "f.c"
    src.write_text(text)
    fn = read_file(str(src), text).functions["f"]
    canonicalize_loops(fn)
    lower_function(fn)
    lower_aggregates(fn)
    single_exit(fn)
    try:
        out = [build_cfg(fn.body)]
        out += [build_cfg(s.body, in_loop=True) for s in walk_stmts(fn.body) if isinstance(s, Loop)]
    except ExpandError:
        return []
    return out


@settings(max_examples=120, deadline=None, derandomize=True)
@given(st.integers(0, 2**32))
def test_cfg_queries_match_definitions(tmp_path_factory, seed: int) -> None:
    """Dominance, post-dominance, reachability of an if's join from its arms (BOSCC's static
    prediction), control equivalence through the immediate dominator only (if-conversion's shared
    masks) and the sides of uniform branches, on every graph of a random program."""
    tmp_path = tmp_path_factory.mktemp("cfg")
    for g in cfgs_of(tmp_path, random_program(seed)):
        blocks = g.blocks

        def succs(b):
            return b.succs

        def preds(b):
            return b.preds

        reach = {b: reach_avoiding(b, succs) for b in blocks}
        # (a loop body that always leaves by a jump does not reach its own exit block, a second root)
        sources, sinks = [b for b in blocks if not b.preds], [b for b in blocks if not b.succs]
        dom = {(a, b): brute_dominates(a, b, sources, succs) for a in blocks for b in blocks}
        pdom = {(a, b): brute_dominates(a, b, sinks, preds) for a in blocks for b in blocks}
        for a in blocks:
            for b in blocks:
                assert g.dominates(a, b) == dom[a, b], (a, b)
                assert g.postdominates(a, b) == pdom[a, b], (a, b)
        branches = [b for b in blocks if b.term[0] == "branch"]
        for d in branches:
            for x in d.term[2:4]:
                assert g.reaches(x, d.join) == (d.join in reach[x]), (d, x)
        for b in blocks:
            strict = [d for d in blocks if d is not b and dom[d, b]]
            if g.idom[b] is None:
                assert not strict
            else:
                assert any(pdom[b, d] for d in strict) == pdom[b, g.idom[b]], b
        chosen = [d for d in branches if (d.id * 7 + seed) % 3]
        ubs = [UniformBranch(d, d.term[1], d.term[2], d.term[3], None, d.term[4]) for d in chosen]
        sides = Sides(ubs)
        for b in blocks:
            want = {(k, "then" if dom[br.then, b] else "else") for k, br in enumerate(ubs)
                    if dom[br.then, b] or dom[br.els, b]}
            assert sides.context(b) == want, b


def reference_walk(stmts: list[Stmt]):
    """``walk_stmts`` as first written: nested generators."""
    for s in stmts:
        yield s
        if isinstance(s, If):
            yield from reference_walk(s.then)
            yield from reference_walk(s.els)
        elif isinstance(s, Block):
            yield from reference_walk(s.body)
        elif isinstance(s, Loop):
            yield from reference_walk(s.init)
            yield from reference_walk(s.body)
            yield from reference_walk(s.step)


def reference_jumps(s: Stmt) -> tuple[frozenset, bool, frozenset]:
    """``shapes._jumps`` as first written, asked afresh each time: the labels of the gotos inside ``s``
    it does not define, a break of the enclosing loop inside it, the labels it defines."""
    inner = labels_defined([s], into_loops=True)
    labels = {g.label for g in reference_walk([s]) if isinstance(g, Goto) and g.label not in inner}

    def brk(x: Stmt) -> bool:
        if isinstance(x, Break):
            return True
        if isinstance(x, If):
            return any(brk(y) for y in x.then + x.els)
        if isinstance(x, Block):
            return any(brk(y) for y in x.body)
        return False

    return frozenset(labels), brk(s), frozenset(inner)


def test_walks_and_exits_match_definitions(tmp_path: Path) -> None:
    """The statement walk and divergence's exit test (one memo for all the statements of a function)
    on random programs, as read (gotos, labels, breaks, returns in nested ifs and loops)."""
    exits = loops_left = 0
    for seed in range(80):
        text = random_program(seed)
        src = tmp_path / "f.c"
        src.write_text(text)
        fn = read_file(str(src), text).functions["f"]
        canonicalize_loops(fn)
        want = list(reference_walk(fn.body))
        assert [id(s) for s in walk_stmts(fn.body)] == [id(s) for s in want]
        memo: dict = {}
        got = [shapes._jumps(s, memo) for s in want]
        assert got == [reference_jumps(s) for s in want], seed
        exits += sum(bool(f) or b for f, b, _ in got)
        loops_left += sum(bool(f) for s, (f, _, _) in zip(want, got) if isinstance(s, Loop))
    assert exits and loops_left, (exits, loops_left)  # (both answers seen, for loops left by a goto too)


# ----------------------------------------------------------------------------- the passes, by definition


def reference_ordinary(self, stmts, cfg, allowed) -> None:
    """``ifconvert._Blends.ordinary`` as stated: a masked assignment blends when a later statement
    reads the variable from a block its block does not dominate, before an unmasked assignment that
    runs whenever it did (or, with none, in the function body, when the result reads it and its block
    does not dominate the exit)."""
    reads = [ifconvert._reads(s) for s in stmts]
    defs = [ifconvert._defs(s) for s in stmts]
    for i, s in enumerate(stmts):
        if not isinstance(s, Assign) or s.mask is None or not isinstance(s.target, Var):
            continue
        x = s.target.sym
        if allowed is not None and x not in allowed:
            continue
        if x in self.addressed:
            s.blend = True
            continue
        if not (x.kind == "param" or any(x in d for d in defs[:i])):
            s.blend = False
            continue
        b = self.block_of[s]
        for j in range(i + 1, len(stmts)):
            t = stmts[j]
            if x in reads[j] and not cfg.dominates(b, self.block_of[t]):
                s.blend = True
                break
            if isinstance(t, Assign) and isinstance(t.target, Var) and t.target.sym is x and t.mask is None \
                    and ifconvert.runs_with(self.block_of.get(t), b, self.sides):
                s.blend = False
                break
        else:
            s.blend = allowed is None and x in self.final_reads and not cfg.dominates(b, cfg.exit)


def reference_fold(stmts: list[Stmt], local: set) -> list[Stmt]:
    """Fold temporaries as the docstring of ``copyprop._fold`` says: each time, the first one in
    statement order that may be folded, with everything looked at again."""
    while True:
        for i, d in enumerate(stmts):
            if not (isinstance(d, Assign) and isinstance(d.target, Var)):
                continue
            t = d.target.sym
            defs = [k for k, s in enumerate(stmts) if isinstance(s, Assign) and isinstance(s.target, Var)
                    and s.target.sym is t]
            if not t.temp or t not in local or defs != [i] or isinstance(d.value, Call) or d.blend:
                continue
            uses = [j for j, s in enumerate(stmts) for e in copyprop._reads(s) if t in vars_read(e)]
            if any(u <= i for u in uses) or not isinstance(d.value, (Var, Const)) and len(uses) != 1:
                continue
            last = max(uses, default=i)
            between = [x for j in range(i + 1, last + 1) for x in flatten([stmts[j]])]
            if any(isinstance(x, Assign) and isinstance(x.target, Var) and x.target.sym in vars_read(d.value)
                   for x in between):
                continue
            if copyprop._reads_memory(d.value) and any(copyprop._writes_memory(x) for j in range(i + 1, last)
                                                       for x in flatten([stmts[j]])):
                continue
            if any(isinstance(stmts[j], Assign) and isinstance(stmts[j].target, Var) and stmts[j].target.sym is t
                   for j in uses):
                continue
            for j in uses:
                copyprop._subst(stmts[j], t, d.value)
            del stmts[i]
            break
        else:
            return stmts


class ReferenceGuarder(boscc._Guarder):
    """BOSCC's regions as first written: a region is the run of statements its head dominates, and
    each level looks at every statement of its run again; resets and savings by looking at all."""

    def head_of(self, b, head):
        cfg = b.cfg
        if head is not None and head.cfg is not cfg:
            return None
        cur = self.mask.get(head) if head is not None else self.mask.get(cfg.entry)
        chain, d = [], b
        while d is not None and d is not head:
            chain.append(d)
            d = cfg.idom[d]
        if head is not None and d is not head:
            return None
        return next((a for a in reversed(chain) if self.mask.get(a) is not None and self.mask.get(a) is not cur), None)

    def guard_list(self, stmts, head):
        out, i = [], 0
        while i < len(stmts):
            s = stmts[i]
            b = self.block_of.get(s)
            a = self.head_of(b, head) if b is not None else None
            if a is None:
                if isinstance(s, MaskedLoop):
                    self.loop_depth += 1
                    s.body = self.guard_list(s.body, None)
                    self.loop_depth -= 1
                elif isinstance(s, UniformIf):
                    s.then, s.els = self.guard_list(s.then, head), self.guard_list(s.els, head)
                out.append(s)
                i += 1
                continue
            m = self.mask[a]
            j = i
            while j < len(stmts) and self.in_region(stmts[j], a):
                j += 1
            region = stmts[i:j]
            while region and isinstance(region[0], Assign) and isinstance(region[0].target, Var) \
                    and region[0].target.sym is m:
                out.append(region.pop(0))
            inner = self.guard_list(region, a)
            if inner and m in self.defined and self.worth(a, inner):
                out.append(Guard(inner[0].coord, m, inner))
                self.head[out[-1]] = a
            elif inner and m in self.defined and self.mode == "auto" and self.copy_alone(a, inner, m):
                out.append(Guard(inner[0].coord, m, inner, any_test=False))
                self.head[out[-1]] = a
            else:
                out.extend(inner)
            i = j
        return out

    def cost(self, s):
        if isinstance(s, Guard):
            return sum(self.cost(t) for t in s.body)
        if isinstance(s, UniformIf):
            return 1 + max(sum(self.cost(t) for t in s.then), sum(self.cost(t) for t in s.els))
        return super().cost(s)

    def saving(self, stmts, m):
        n = 0
        for s in stmts:
            if isinstance(s, Guard):
                n += self.saving(s.body, m)  # (every guard, whatever its mask)
            else:
                n += super().saving([s], m)
        return n

    def add_resets(self, stmts):
        every = list(flatten(stmts))
        for g in [s for s in every if isinstance(s, Guard)]:
            inside = list(flatten(g.body))
            ids = {id(t) for t in inside}
            defined = {t.target.sym for t in inside
                       if isinstance(t, Assign) and isinstance(t.target, Var) and t.target.sym.type == MASK}
            outside = set().union(*(boscc._reads(t) for t in every if id(t) not in ids and t is not g))
            if self.lin.ret.value is not None:
                outside |= vars_read(self.lin.ret.value)
            g.resets = [m for m in defined if m in outside]


def shape(stmts: list[Stmt]) -> list:
    """What a statement list says, as nested tuples (masks and names, not object identities)."""

    def ex(e: Expr):
        tag = getattr(e, "op", None) or getattr(e, "func", None) or getattr(e, "name", None)
        leaf = e.sym.name if isinstance(e, Var) else getattr(e, "value", None)
        return (type(e).__name__, tag, leaf, tuple(ex(c) for c in e.children()))

    out = []
    for s in stmts:
        mask = getattr(s, "mask", None)
        row = [type(s).__name__, mask.name if mask is not None and hasattr(mask, "name") else None]
        if isinstance(s, Assign):
            row += [ex(s.target), ex(s.value), s.blend]
        elif isinstance(s, ExprStmt):
            row.append(ex(s.expr))
        elif isinstance(s, MaskedLoop):
            row.append(shape(s.body))
        elif isinstance(s, UniformIf):
            row += [ex(s.cond), shape(s.then), shape(s.els)]
        elif isinstance(s, Guard):
            row += [s.any_test, sorted(r.name for r in s.resets), shape(s.body),
                    None if s.all_body is None else shape(s.all_body)]
        elif getattr(s, "cond", None) is not None:
            row.append(ex(s.cond))
        out.append(row)
    return out


@pytest.fixture
def checked_passes(monkeypatch):
    """Run every expansion's blend rule, copy folding and BOSCC twice, by definition and as shipped,
    and check both agree; counts the cases that did something."""
    seen = {"blends": 0, "folds": 0, "guards": 0}

    def blends(self, stmts, cfg, allowed):
        assigns = [t for t in flatten(stmts) if isinstance(t, Assign)]
        before = [t.blend for t in assigns]
        reference_ordinary(self, stmts, cfg, allowed)
        want = [t.blend for t in assigns]
        for t, b in zip(assigns, before):
            t.blend = b
        shipped(self, stmts, cfg, allowed)
        assert [t.blend for t in assigns] == want
        seen["blends"] += sum(want)

    def fold(stmts, local):
        syms = {id(v): v for s in flatten(stmts) for e in copyprop._reads(s) for v in vars_read(e)}
        syms |= {id(s.target.sym): s.target.sym for s in flatten(stmts)
                 if isinstance(s, Assign) and isinstance(s.target, Var)}
        want = shape(reference_fold(copy.deepcopy(stmts, dict(syms)), local))
        n = len(stmts)
        got = shipped_fold(stmts, local)
        assert shape(got) == want
        seen["folds"] += n - len(got)
        return got

    def guards(lin, mode, test_cost=4, plain_cost=None, blend_cost=1, regs=None):
        nested = {id(s): (s, getattr(s, "body", None), getattr(s, "then", None), getattr(s, "els", None))
                  for s in flatten(lin.stmts) if isinstance(s, (MaskedLoop, UniformIf))}
        top = lin.stmts
        with pytest.MonkeyPatch.context() as by_definition:
            by_definition.setattr(boscc, "_Guarder", ReferenceGuarder)
            shipped_guards(lin, mode, test_cost, plain_cost, blend_cost, regs)
        want = shape(lin.stmts)
        lin.stmts = top
        for s, body, then, els in nested.values():
            if isinstance(s, MaskedLoop):
                s.body = body
            else:
                s.then, s.els = then, els
        shipped_guards(lin, mode, test_cost, plain_cost, blend_cost, regs)
        assert shape(lin.stmts) == want
        seen["guards"] += sum(isinstance(s, Guard) for s in flatten(lin.stmts))

    shipped, shipped_fold, shipped_guards = ifconvert._Blends.ordinary, copyprop._fold, driver.insert_guards
    monkeypatch.setattr(ifconvert._Blends, "ordinary", blends)
    monkeypatch.setattr(copyprop, "_fold", fold)
    monkeypatch.setattr(driver, "insert_guards", guards)
    return seen


def _expand(tmp_path: Path, text: str, isa: str, mode: str, uniform=()) -> None:
    src = tmp_path / "in.c"
    src.write_text(text)
    (tmp_path / "fuzz_log.h").write_text(FUZZ_LOG_H)
    i = get_isa(isa)
    try:
        mod = read_file_any(str(src), text, [str(tmp_path)], cc=i.preprocessor)
        driver.expand_module(mod, i, boscc=mode, shapes={u: "uniform" for u in uniform})
    except ExpandError:
        pass  # (a program expand refuses: nothing to compare)


@pytest.mark.parametrize("mode", ["auto", pytest.param("all", marks=pytest.mark.slow)])
def test_passes_match_definitions_on_fuzz_programs(tmp_path: Path, checked_passes, mode: str) -> None:
    for seed in range(40):
        _expand(tmp_path, render(generate(f"dominators-{seed}")), "avx2" if seed % 2 else "sse4.1", mode)
    assert all(checked_passes.values()), checked_passes


@pytest.mark.parametrize("mode", ["auto", pytest.param("all", marks=pytest.mark.slow)])
def test_passes_match_definitions_on_random_programs(tmp_path: Path, checked_passes, mode: str) -> None:
    for seed in range(60):
        _expand(tmp_path, random_program(seed), "avx512", mode)
    for fam in scaling.FAMILIES:
        _expand(tmp_path, fam.make(fam.quick[0]), "avx2", mode, fam.uniform)
    assert all(checked_passes.values()), checked_passes
