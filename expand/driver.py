"""The pipeline: frontend -> libm calls -> lower -> inline -> structs and unions -> single exit -> constant subscripts
-> if-conversion -> dead code -> shapes -> C printer. One function per pass module; this file only strings them."""

from __future__ import annotations

import copy
import gc
import textwrap
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from emit.isa import lane_kind
from emit.printer import FunctionPrinter
from expand import __version__
from expand import abi as abi_mod
from expand.analysis.call_order import call_order_warnings
from expand.analysis.pointer_params import fixed_pointers, index_params
from expand.analysis.shapes import analyze
from expand.analysis.shared_stores import check_shared_stores
from expand.analysis.trip_inputs import trip_params
from expand.ir import types as T
from expand.ir.cprint import cdecl, cinit
from expand.ir.diagnostics import ExpandWarning, Remark, error
from expand.ir.libc import ERRNO
from expand.ir.nodes import (
    MASK,
    Assign,
    Binary,
    Call,
    Const,
    Coord,
    Function,
    Index,
    Member,
    Module,
    NameMaker,
    Symbol,
    Unary,
    Var,
    flatten,
    init_exprs,
    stmt_exprs,
    walk_stmts,
)
from expand.passes.canonical_loops import canonicalize_loops
from expand.passes.const_subscripts import hoist_constant_subscripts
from expand.passes.constant_branches import drop_constant_branches
from expand.passes.copyprop import fold_temporaries
from expand.passes.dce import eliminate_dead
from expand.passes.fold import fold_constants
from expand.passes.global_writes import canonical_errno, track_globals
from expand.passes.hidden_state import hidden_state, verify_note, warnings
from expand.passes.inline import inline_module
from expand.passes.local_arrays import local_arrays
from expand.passes.lower import gang_subscripts, lower_aggregates, lower_function
from expand.passes.mathcalls import rewrite_math_calls
from expand.passes.pointer_locals import pointer_locals
from expand.passes.sincos_pairs import fuse_sincos
from expand.vecmath import VectorMath
from predication.boscc import insert_guards
from predication.dot import to_dot
from predication.exit_tests import sink_exit_tests
from predication.ifconvert import if_convert
from predication.remarks import loop_remarks
from predication.single_exit import single_exit


@dataclass
class Expanded:
    """One expanded function, with what the verifier needs to know about it."""

    scalar_name: str
    vector_name: str
    params: list[Symbol]
    ret: T.CType
    constants: list[int | float] = field(default_factory=list)
    coord: Coord | None = None
    #: the masked core (``vector_name`` under an entry mask, its first parameter), when made
    masked_name: str = ""
    #: ("const" | "pure" | "", why): what a declaration may promise (expand/abi.py)
    effects: tuple[str, str] = ("", "")
    #: the scalar function is ``static`` (named with ``--functions``): not linkable from another file
    static: bool = False
    #: globals other than errno that it assigns (the verifier compares them after the calls)
    globals: list[Symbol] = field(default_factory=list)
    #: integer parameters a loop's trip count depends on (expand/analysis/trip_inputs.py: --verify bounds them)
    trip_params: list[str] = field(default_factory=list)
    #: what --verify adds to mismatches when it calls functions with hidden state (expand/passes/hidden_state.py)
    hidden_state: str = ""
    #: integer parameters a subscript through a uniform pointer depends on, and the uniform pointers read and
    #: written only at constant offsets, with the largest (expand/analysis/pointer_params.py: --verify's inputs)
    index_params: dict[str, int | None] = field(default_factory=dict)
    fixed_pointers: dict[str, int] = field(default_factory=dict)


@dataclass
class Result:
    text: str
    functions: list[Expanded]
    remarks: list[Remark] = field(default_factory=list)  # (--remarks), in source order
    warnings: list[ExpandWarning] = field(default_factory=list)  # (always printed), in source order


#: Whether table reads at varying indexes use the ISA's gather instructions (AVX2, AVX-512) unless the
#: caller says (``--gathers on|off``). Off: on the AMD Zen 5 of docs/performance.md, one load per lane
#: measured faster (Perlin noise 1.42x / 0.95x of the anchor at AVX2 / AVX-512 against 0.78x / 0.65x
#: with gathers, Black-Scholes the same); Intel cores with fast gathers may want them on.
GATHERS = False


def select_functions(mod: Module, names: list[str] | None) -> list[str]:
    """The functions to expand: ``names``, else every one with external linkage. One the frontend could not
    read (``mod.failed``) stops here with its diagnostic."""
    if names:
        for n in names:
            if n not in mod.functions and n not in mod.failed:
                raise error(None, f"function '{n}' is not defined in {mod.file}")
        roots = list(names)
    else:
        roots = [n for n, f in mod.functions.items() if not f.static]
        roots += [n for n in mod.failed if not is_static(mod, n)]
    for n in mod.failed:  # (the first in the file's order)
        if n in roots:
            raise mod.failed[n]
    if not roots:
        mine = [f for f in mod.functions.values() if f.coord is not None and mod.own(f.coord.file)]
        if mine:  # only static functions: at the first one
            raise error(mine[0].coord, f"the file defines no function with external linkage ('{mine[0].name}' is "
                        "static)", f"name the static functions to expand: --functions {mine[0].name}")
        raise error(Coord(mod.file, 1, 1), "the file defines no function with external linkage",
                    "define the function to expand in this file (with its body), without 'static'")
    return roots


def is_static(mod: Module, name: str) -> bool:
    """Whether function ``name`` of ``mod`` has internal linkage (also one its frontend could not read)."""
    fn = mod.functions.get(name)
    sym = mod.globals.get(name)
    return fn.static if fn is not None else sym is not None and sym.static


def comparison_constants(fn: Function) -> list[int | float]:
    """Constants the function compares against (the verifier tests inputs next to them)."""
    out: list[int | float] = []
    seen: set[int | float] = set()  # (the same test as ``in out``: identity, else equality)
    for s in walk_stmts(fn.body):
        for e in stmt_exprs(s):
            for n in e.walk():
                if isinstance(n, Binary) and n.op in ("==", "!=", "<", "<=", ">", ">="):
                    for side in (n.left, n.right):
                        for c in side.walk():
                            if isinstance(c, Const) and c.value not in seen:
                                seen.add(c.value)
                                out.append(c.value)
    return out


def _reached(mod: Module, roots: list[str]) -> set[str]:
    """The functions of ``mod`` that ``roots`` call, directly or not, and the roots: the only ones expand
    reads further (headers define many static inline helpers no function uses, some on types or constructs
    expand refuses). A static function the frontend could not read stops here with its diagnostic when one
    of them calls it (its body would be inlined); an external one is called per lane, its body unneeded."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in mod.failed and is_static(mod, name):
            raise mod.failed[name]
        if name in seen or name not in mod.functions:
            continue
        seen.add(name)
        for stmt in walk_stmts(mod.functions[name].body):
            for e in stmt_exprs(stmt):
                todo.extend(c.func for c in e.walk() if isinstance(c, Call))
    return seen


@contextmanager
def few_collections() -> Iterator[None]:
    """Run the cycle collector rarely: once per 100,000 allocations, and the full collection (which
    walks every live object) practically never. Reference counting frees nearly all of expand's
    garbage at once; with the default thresholds collections took a quarter of the time on a
    20,000-line function, a share growing with the input. The old thresholds come back after."""
    old = gc.get_threshold()
    gc.set_threshold(100_000, 50, 1000)
    try:
        yield
    finally:
        gc.set_threshold(*old)


def expand_module(mod: Module, isa, *, functions: list[str] | None = None, expandable: set[str] = frozenset(),
                  prefix: str = "_Exp_", command: str = "", shapes: dict[str, str] | None = None,
                  dot: list[str] | None = None, boscc: str = "auto", abi: bool = False,
                  wrapper: str | None = None, vector_math: VectorMath | None = None,
                  gathers: bool | None = None, stateless: Collection[str] = ()) -> Result:
    """Expand ``functions`` (default: every external one); ``shapes`` maps parameter names to
    "uniform" or "linear" (as ``--uniform``/``--linear``; ``#pragma omp declare simd`` also does).
    ``abi``/``wrapper`` add vector function ABI entry points / ``NAME_array`` wrappers (expand/abi.py),
    which need each function's masked core too; with ``abi`` the cores are ``static``.
    ``vector_math`` (an ``expand.vecmath.VectorMath``): libm calls become calls of its vector versions.
    ``gathers``: table reads at varying indexes use the ISA's gather instructions (None: ``GATHERS``).
    ``stateless``: functions taken to keep no hidden state (``--stateless``: no warning for their calls)."""
    roots = select_functions(mod, functions)
    for name in roots:
        for p in mod.functions[name].params:
            if shapes and p.name in shapes:
                p.shape = shapes[p.name]
    used = _reached(mod, roots)
    reached = [f for n, f in mod.functions.items() if n in used]  # (in the file's order)
    rewrite_math_calls(mod, expandable, reached)
    canonical_errno(mod, reached)
    warned: list[ExpandWarning] = []
    for fn in reached:
        warned += call_order_warnings(fn, mod)
        canonicalize_loops(fn)
        lower_function(fn)
    inline_module(mod, roots)
    isa = isa.emission(None if vector_math is None else vector_math.for_module(set(mod.functions) | set(expandable)),
                       GATHERS if gathers is None else gathers)
    bodies: list[str] = []
    expanded: list[Expanded] = []
    remarks: list[Remark] = []
    globals_used: dict[str, Symbol | None] = {}  # globals and per-lane called functions the output names
    for name in roots:
        fn = mod.functions[name]
        lower_aggregates(fn)
        hidden = hidden_state(fn, mod, expandable, stateless)
        warned += warnings(hidden, isa.lanes)
        trips = trip_params(fn)
        reach = index_params(fn), fixed_pointers(fn)
        gang_subscripts(fn)
        track_globals(fn, mod, expandable)
        consts = comparison_constants(fn)
        fold_constants(fn)
        drop_constant_branches(fn)
        single_exit(fn)
        pointer_locals(fn)
        local_arrays(fn)
        hoist_constant_subscripts(fn)
        fuse_sincos(fn, lambda name: isa.vector_math is not None and isa.vector_math.has_stores(isa, name))
        masked = copy.deepcopy(fn) if abi or wrapper else None
        vname = f"{prefix}{name}"
        e = Expanded(name, vname, fn.params, fn.ret, consts, fn.coord, effects=abi_mod.effects(fn), static=fn.static,
                     globals=[g for g in fn.tracked if g.name != ERRNO], trip_params=trips,
                     hidden_state=verify_note(hidden), index_params=reach[0], fixed_pointers=reach[1])
        bodies.append(("static inline " if abi else "") + vectorize(
            fn, isa, vname, prefix, expandable, boscc, globals_used, dot, remarks=remarks))
        if masked is not None:
            e.masked_name = f"{vname}_masked"
            entry = Symbol(NameMaker(masked).fresh("active"), MASK, "param")
            bodies.append("static inline " + vectorize(masked, isa, e.masked_name, prefix, expandable, boscc,
                                                       globals_used, None, entry))
        expanded.append(e)
    if abi or wrapper:
        bodies.append(abi_mod.definitions(expanded, isa, abi=abi, wrapper=wrapper))
    parts = [f"/* Generated by expand {__version__} from {mod.file} for {isa.name} ({isa.lanes} lanes)."]
    if command:
        parts.append(f"   {command}")
    for text in sorted({mod.assumptions[n] for n in mod.assumptions if n in used}):
        names = ", ".join(sorted(n for n in mod.assumptions if n in used and mod.assumptions[n] == text))
        parts.extend(textwrap.wrap(f"Assumes ({names}): {text}.", 100, initial_indent="   ",
                                   subsequent_indent="   "))
    parts[-1] += " */"
    parts.extend(mod.prologue)
    errno_h = ["<errno.h>"] if any(g.name == ERRNO for n in roots for g in mod.functions[n].tracked) \
        and not any("<errno.h>" in line for line in mod.prologue) else []
    parts.extend(f"#include {h}" for h in ["<stdint.h>", *errno_h, *(["<stddef.h>"] if wrapper else []),
                                           *isa.headers])
    parts.append("")
    needed = with_initializer_globals(mod, {name: sym or mod.globals.get(name) for name, sym in globals_used.items()})
    needed = {name: sym for name, sym in needed.items() if declaration(mod, sym)}
    decls = record_definitions(mod, [p.type for e in expanded for p in e.params]
                               + [e.ret for e in expanded] + [sym.type for sym in needed.values()])
    decls += [declaration(mod, sym) for sym in needed.values()]
    parts.extend(decls)
    if decls:
        parts.append("")
    # Load/store helpers for every parameter kind: callers (and the verifier's harness) need them.
    for e in expanded:
        for k in lane_kinds(e) + ([] if isinstance(e.ret, T.Void) else [lane_kind(e.ret)]):
            isa.loadu(k, "p")
            isa.storeu(k, "p", "v")
    prelude = isa.prelude()
    if prelude:
        parts.append(prelude.rstrip() + "\n")
    text = "\n".join(parts) + "\n" + "\n\n".join(bodies)
    unique = {r.key(): r for r in remarks}
    once: dict[tuple, ExpandWarning] = {}  # (one per call: a helper inlined twice, or into two functions)
    for w in warned:
        once.setdefault(w.key()[:3] if w.coord else w.key(), w)
    return Result(text, expanded, [unique[k] for k in sorted(unique)], sorted(once.values(), key=ExpandWarning.key))


def vectorize(fn: Function, isa, vname: str, prefix: str, expandable: set[str], boscc: str,
              globals_used: dict[str, Symbol | None], dot: list[str] | None, entry: Symbol | None = None,
              remarks: list[Remark] | None = None) -> str:
    """If-convert ``fn`` (under entry mask ``entry``, if given) and print it as ``vname``; records the
    static globals it reads in ``globals_used`` and adds its ``--remarks`` to ``remarks``."""
    lin = if_convert(fn, entry)
    live = [lin.ret.value] if lin.ret.value is not None else []
    lin.stmts, _ = eliminate_dead(lin.stmts, live, isa.errno_hidden)
    lin.stmts = fold_temporaries(lin.stmts, lin.ret)
    live = [lin.ret.value] if lin.ret.value is not None else []
    lin.stmts, used = eliminate_dead(lin.stmts, live, isa.errno_hidden)
    if dot is not None:
        dot.append(to_dot(lin))
    shapes = analyze(fn.params, lin.stmts, entry)
    check_shared_stores(lin.stmts, shapes, lin.ret.value)
    insert_guards(lin, boscc, isa.boscc_test_cost, isa.boscc_plain_cost, isa.boscc_blend_cost, isa.boscc_regs)
    used = used - sink_exit_tests(lin, shapes)  # (the staying masks it drops)
    printer = FunctionPrinter(isa, lin, shapes, prefix, set(expandable))
    text = printer.function(vname, used, entry)
    if remarks is not None:
        loop_remarks(lin)
        remarks.extend(lin.remarks)
    exprs = [e for s in flatten(lin.stmts) for e in stmt_exprs(s)]
    if lin.ret.value is not None:
        exprs.append(lin.ret.value)
    for e in exprs:
        for n in e.walk():
            if isinstance(n, Var) and n.sym.kind in ("global", "func"):  # (a function's name as a value too)
                globals_used[n.sym.name] = n.sym
            elif isinstance(n, Call) and n.func not in expandable:
                globals_used.setdefault(n.func, None)
    return text


def record_definitions(mod: Module, types: list[T.CType]) -> list[str]:
    """Definitions of the structs and unions the input's own file defines that ``types`` use (those of
    its headers come with the #include lines), each after those it contains."""
    out: list[str] = []
    done: set[int] = set()

    def visit(t: T.CType) -> None:
        if isinstance(t, (T.Pointer, T.Array)):
            visit(t.target if isinstance(t, T.Pointer) else t.elem)
        elif isinstance(t, T.Func):
            for x in (t.ret, *t.params):
                visit(x)
        elif isinstance(t, T.Record) and id(t) not in done:
            done.add(id(t))
            for _, ft in t.fields:
                visit(ft)
            co = t.coord
            if t.complete and co is not None and mod.own(getattr(co, "file", None)):
                kind = "union" if t.is_union else "struct"
                fields = " ".join(f"{cdecl(ft, n)};" for n, ft in t.fields)
                if t.tag:
                    out.append(f"{kind} {t.tag} {{ {fields} }};")
                elif t.spelling:
                    out.append(f"typedef {kind} {{ {fields} }} {t.spelling};")
                # (else: no name to define; cdecl spells it out where it is declared: extern const
                # union { ... } __sincostab; a compile error, never a wrong value, if two must be one)

    for t in types:
        visit(t)
    return out


def with_initializer_globals(mod: Module, needed: dict[str, Symbol | None]) -> dict[str, Symbol | None]:
    """``needed`` and the globals their initializers name (``static const S G = {T}``: ``T``), each
    before the globals that name it."""
    out: dict[str, Symbol | None] = {}

    def add(name: str, sym: Symbol | None) -> None:
        if name in out:
            return
        out[name] = None  # (placeholder: a cycle of initializers ends here)
        for n in init_exprs(sym.init if sym is not None and sym.kind == "global" else None):
            if isinstance(n, Var) and n.sym.kind == "global" and n.sym is not sym:
                add(n.sym.name, mod.globals.get(n.sym.name, n.sym))
        del out[name]
        out[name] = sym

    for name, sym in needed.items():
        add(name, sym)
    return out


def _written(mod: Module, sym: Symbol) -> str:
    """Where a function of the input writes file-scope variable ``sym`` or takes its address ("" if
    none does): the output, another file, would read its own copy of a static one."""
    for fn in mod.functions.values():
        for st in walk_stmts(fn.body):
            if isinstance(st, Assign):
                root = st.target
                while isinstance(root, (Index, Member)) and not (isinstance(root, Member) and root.arrow):
                    root = root.base
                if isinstance(root, Var) and root.sym.name == sym.name and root.sym.kind == "global":
                    return f"{fn.name} assigns it"
            for e in stmt_exprs(st):
                for n in e.walk():
                    if isinstance(n, Unary) and n.op == "&" and any(
                            isinstance(v, Var) and v.sym.name == sym.name for v in n.operand.walk()):
                        return f"{fn.name} takes its address"
                    if isinstance(n, Call) and any(isinstance(a, Var) and a.sym.name == sym.name for a in n.args):
                        return f"{fn.name} passes it to '{n.func}'"
    return ""


def declaration(mod: Module, sym: Symbol | None) -> str:
    """What the output needs of a global or function the vector code names, so that it compiles on its
    own: a static one's definition (copied from the input), a declaration of one with external linkage
    that the input's own file declares (its headers come along as #include lines), else nothing."""
    if sym is None:  # a libm builtin or a call without a prototype of the input's
        return ""
    t = sym.type
    local_static = getattr(sym, "local_of", None) is not None  # a function's static: nothing else defines it
    if not local_static and (sym.coord is None or not mod.own(sym.coord.file)) or t is None:
        return ""  # declared by a header the output includes
    try:
        if local_static and sym.init is None:
            return f"static {'const ' if sym.const else ''}{cdecl(t, sym.name)};"  # (zero)
        if sym.kind == "func" or isinstance(t, T.Func):
            if sym.static:
                raise error(sym.coord, f"static function '{sym.name}' is called per lane but not defined in the"
                            " output", "make it inline-able (no loops calling it recursively) or give it external"
                            " linkage")
            return f"extern {cdecl(t, sym.name)};"
        if sym.static and sym.defined_here:
            if sym.init is None:
                raise error(sym.coord, f"static variable '{sym.name}' has no initializer to copy into the output")
            why = "" if sym.const or local_static else _written(mod, sym)
            if why or not sym.const and not local_static and mod.failed:
                raise error(sym.coord, f"static variable '{sym.name}' is not const and "
                            f"{why or 'functions expand could not read may write it'}: the output, another file, "
                            "would read its own copy", "make it const, or give it external linkage (no 'static')")
            q = "static const " if sym.const else "static "
            return f"{q}{cdecl(t, sym.name)} = {cinit(sym.init)};"
        q = "extern const " if sym.const else "extern "
        if getattr(sym, "thread_local", False):  # (a global the function assigns: expand/passes/global_writes.py)
            q += "_Thread_local "
        return f"{q}{cdecl(t, sym.name)};"
    except TypeError:
        raise error(sym.coord, f"'{sym.name}' of type '{t}' cannot be declared in the output") from None


def lane_kinds(e: Expanded) -> list[str]:
    """The lane kinds of the parameters passed as vectors or gangs (uniform ones stay scalars)."""
    return [lane_kind(p.type.target if isinstance(p.type, T.Pointer) else p.type) for p in e.params
            if p.shape != "uniform"]
