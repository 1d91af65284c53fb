"""Calls of functions with hidden state: warnings, and the note ``--verify`` adds to its mismatches.

The vector code makes a call it cannot vectorize once per active lane, call site by call site: at
each site, lane 0's call, then lane 1's, and so on. For a function whose result depends only on its
arguments (and the memory they point to) that is exact. A function that keeps state between calls
(``rand``, ``drand48``, ``strtok``, the clock, a stream) sees its calls in another order than N
calls of the scalar function would make them, whenever a function makes more than one such call per
instance (two call sites, or one in a loop): the scalar calls make all of instance 0's calls, then
all of instance 1's; the vector code makes every instance's first call, then every instance's second.
Each instance then gets other values than the scalar function gives it. One such call site outside
loops keeps the scalar order (its per-lane calls run in lane order), as for errno
(expand/passes/global_writes.py).

Which callees count (``classify``), after inlining (calls of the file's ``static`` helpers are gone):

* known to keep hidden state (``HIDDEN``): the C library's random number generators and their seeds,
  ``strtok``, the clock, stdio streams;
* functions whose state is an argument (``rand_r``, ``erand48``, ``strtok_r``: ``EXPLICIT``) when that
  argument is memory every instance shares (a uniform pointer, a global): each instance's state is
  then the others' too;
* a function the file defines with external linkage (called per lane, not inlined) that assigns a
  global or calls one of these;
* any other function expand cannot see into, unless it is known to keep none (libm and glibc's
  libm internals, whose errno the vector code keeps: ``only_errno``; ``STATELESS``; GCC's builtins), a
  declaration of it says ``__attribute__ ((const))`` or ``((pure))`` (``Module.effects``), or the
  caller names it (``--stateless``): the warning then says expand cannot tell.

Not here: ``--expandable`` functions (the user's vector versions) and expand's own pseudo-calls.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from expand.ir import types as T
from expand.ir.diagnostics import ExpandWarning
from expand.ir.libc import ERRNO, LIBM, PSEUDO, libm_name
from expand.ir.nodes import (
    Assign,
    Call,
    Coord,
    Expr,
    Function,
    Index,
    Member,
    Module,
    Unary,
    Var,
    stmt_exprs,
    walk_stmts,
)
from expand.passes.global_writes import calls_with_loops, only_errno

_RNG = ("the C library's random number generator",
        "give each instance a generator state of its own and pass it explicitly (rand_r or erand48 on a local"
        " seeded from the instance's inputs), as ispc's aobench keeps one generator per program instance")
_SEED = ("it seeds the C library's random number generator", _RNG[1])
_OUT = ("the output stream: what the instances write comes out in another order",
        "collect the values and write them after the call of the vector function")
_IN = ("the input stream: each call reads on from where the last one stopped",
       "read the input before the call of the vector function and pass it as arguments")
_CLOCK = ("the clock: each call reads it anew", "read the clock once before the call and pass the time as an argument")

#: C library functions that keep state between calls: name -> (what the state is, what to do instead)
HIDDEN: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("rand", "random", "drand48", "lrand48", "mrand48"), _RNG),
    **dict.fromkeys(("srand", "srandom", "srand48", "seed48", "lcong48", "initstate", "setstate"), _SEED),
    "strtok": ("it keeps its place in the string between calls", "use strtok_r with a save pointer of each "
               "instance's own"),
    **dict.fromkeys(("time", "clock", "gettimeofday", "clock_gettime"), _CLOCK),
    **dict.fromkeys(("printf", "puts", "putchar", "fprintf", "fputs", "fputc", "putc", "fwrite", "vprintf",
                     "vfprintf", "perror"), _OUT),
    **dict.fromkeys(("getchar", "getc", "fgetc", "fgets", "fread", "scanf", "fscanf", "ungetc"), _IN),
}

#: Functions whose state is passed explicitly: name -> the index of the state argument
EXPLICIT: dict[str, int] = {"rand_r": 0, "erand48": 0, "nrand48": 0, "jrand48": 0, "strtok_r": 2, "random_r": 0,
                            "drand48_r": 0, "erand48_r": 0, "lrand48_r": 0, "nrand48_r": 0, "mrand48_r": 0,
                            "jrand48_r": 0}

#: Functions of the C library known to keep no hidden state beyond errno (besides libm's: ``only_errno``)
STATELESS = frozenset((
    # math.h beyond the functions expand knows the signatures of (their f and l forms too)
    *(f"{n}{s}" for n in ("frexp", "modf", "remquo", "sincos", "lround", "lrint", "llround", "llrint", "nan",
                          "scalbln", "nexttoward", "significand", "gamma", "j0", "j1", "jn", "y0", "y1",
                          "yn", "exp10", "pow10", "drem")
      for s in ("", "f", "l")),
    # string.h (not strtok, strerror: static state or buffers)
    "memcpy", "memmove", "memset", "memcmp", "memchr", "strlen", "strnlen", "strcmp", "strncmp", "strchr",
    "strrchr", "strstr", "strcpy", "strncpy", "strcat", "strncat", "strspn", "strcspn", "strpbrk",
    # stdlib.h, ctype.h
    "abs", "labs", "llabs", "div", "ldiv", "lldiv", "atoi", "atol", "atoll", "atof", "strtol", "strtoul", "strtoll",
    "strtoull", "strtod", "strtof", "strtold", "isalnum", "isalpha", "isblank", "iscntrl", "isdigit", "isgraph",
    "islower", "isprint", "ispunct", "isspace", "isupper", "isxdigit", "tolower", "toupper",
    "lgamma_r", "lgammaf_r",
))

#: Helpers of glibc's libm that its flt-32 and dbl-64 trees call per lane (computations on their arguments,
#: errno at most: ``python -m mathlib.realworld`` runs them): defined in other files of the library, or
#: ``static`` ones of math/fromfp.h that expand does not read (they raise FE_INVALID)
GLIBC_LIBM = frozenset(("__gamma_product", "__gamma_productf", "__lgamma_neg", "__lgamma_negf", "__lgamma_product",
                        "__lgamma_productf", "__branred", "__x2y2m1", "__x2y2m1f", "fromfp_domain_error",
                        "fromfp_max_exponent", "fromfp_round_and_return"))


@dataclass
class HiddenCall:
    """A call site (after inlining) of a function with hidden state, or one expand cannot see into."""

    func: str
    coord: Coord | None
    #: "hidden" (known to keep state), "shared" (its explicit state is shared by every instance),
    #: "unknown" (expand cannot tell)
    kind: str
    #: what the state is (kind "hidden", "shared") or why expand cannot tell ("unknown")
    what: str
    #: what to do about it
    advice: str
    in_loop: bool


@dataclass
class HiddenState:
    """The calls with hidden state of one function, and whether the vector code reorders them."""

    #: the function
    name: str
    calls: list[HiddenCall]
    #: why the vector code makes them in another order than the scalar calls ("" when it does not)
    reordered: str


def classify(func: str, args: list[Expr], mod: Module, fn: Function | None, stateless: Collection[str],
             seen: frozenset[str] = frozenset()) -> tuple[str, str, str] | None:
    """(kind, what, advice) for a call of ``func`` with ``args`` in ``fn`` (see HiddenCall), or None
    when the call keeps no hidden state."""
    name = libm_name(func)
    if func in PSEUDO or func in stateless or name in stateless:
        return None
    if name in HIDDEN:
        return ("hidden", *HIDDEN[name])
    if name in EXPLICIT:
        i = EXPLICIT[name]
        shared = _shared(args[i], fn) if fn is not None and i < len(args) else ""
        if not shared:
            return None
        return ("shared", f"its state, argument {i + 1}, is {shared}, which every instance shares",
                "give each instance its own state (a local variable, or a varying pointer parameter: one element "
                "per instance)")
    if name != func or only_errno(func) or _libm_internal(func) or name in STATELESS or mod.effects.get(func):
        return None  # (a GCC builtin, libm, or declared const or pure)
    defined = mod.functions.get(func)
    if defined is not None:  # (one already being looked into: what it does is found there)
        return None if func in seen else _defined(defined, mod, stateless, seen | {func})
    return ("unknown", "expand cannot see its definition",
            f"if its result depends only on its arguments, declare it __attribute__ ((const)) (or ((pure)) when "
            f"it reads memory but writes none), or name it with --stateless {func}; otherwise give each "
            "instance its state explicitly")


def _libm_internal(func: str) -> bool:
    """One of glibc's libm internals: its IEEE cores and kernels (``__ieee754_expf``, ``__kernel_standard``),
    the internal spellings of libm functions (``__sinf``, ``__sincos``, ``__expf_finite``), and the helpers
    its flt-32 and dbl-64 trees call (``GLIBC_LIBM``)."""
    if func.startswith(("__ieee754_", "__kernel_", "__math_")) or func in GLIBC_LIBM:
        return True
    name = func.removeprefix("__").removesuffix("_finite")
    return name != func and (name in LIBM or only_errno(name) or name in STATELESS)


def _defined(fn: Function, mod: Module, stateless: Collection[str], seen: frozenset[str]
             ) -> tuple[str, str, str] | None:
    """The hidden state of a function the file defines with external linkage (called per lane): a global
    it assigns, else the worst of its calls'."""
    unknown = None
    for s in walk_stmts(fn.body):
        if isinstance(s, Assign):
            base = s.target  # (the object written: through members, elements and dereferences)
            while isinstance(base, (Index, Member)) or isinstance(base, Unary) and base.op == "*":
                base = base.operand if isinstance(base, Unary) else base.base
            g = next((n.sym for n in base.walk() if isinstance(n, Var) and n.sym.kind == "global"
                      and n.sym.name != ERRNO), None)
            if g is not None:
                return ("hidden", f"'{fn.name}' keeps state in '{g.name}', which it assigns",
                        f"pass the state to '{fn.name}' explicitly, one per instance")
        for e in stmt_exprs(s):
            for n in e.walk():
                if isinstance(n, Call):
                    got = classify(n.func, n.args, mod, fn, stateless, seen)
                    if got is not None and got[0] != "unknown":
                        return ("hidden", f"'{fn.name}' calls '{n.func}', which has hidden state ({got[1]})", got[2])
                    if got is not None and unknown is None:
                        unknown = ("unknown", f"'{fn.name}' calls '{n.func}', whose definition expand cannot see",
                                   got[2])
    return unknown


def _shared(arg: Expr, fn: Function) -> str:
    """What makes the memory pointer ``arg`` points to every instance's: a uniform pointer parameter or a
    global, reached through pointer locals assigned from them (inlined helpers' parameters). "" when it is
    each instance's own (a local, a varying pointer), or may be (an index that may differ per instance)."""
    defs: dict[object, list[Expr]] = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, Assign) and isinstance(s.target, Var):
            defs.setdefault(s.target.sym, []).append(s.value)
    todo, seen, found = [arg], set(), ""
    while todo:
        e = todo.pop()
        for n in e.walk():
            if not isinstance(n, Var) or n.sym in seen:
                continue
            seen.add(n.sym)
            sym = n.sym
            if not isinstance(n.type, (T.Pointer, T.Array)):
                if not (sym.kind == "param" and sym.shape == "uniform" or sym.kind == "global" and sym.const):
                    return ""  # (an offset, or a local whose address it is)
            elif sym.kind == "param" and sym.shape == "uniform":
                found = found or f"the uniform pointer '{sym.name}'"
            elif sym.kind == "global" and not sym.const:
                found = found or f"the global '{sym.name}'"
            elif sym.kind == "local":
                todo.extend(defs.get(sym, []))
    return found


def hidden_state(fn: Function, mod: Module, expandable: Collection[str] = (),
                 stateless: Collection[str] = ()) -> HiddenState:
    """The calls with hidden state ``fn`` makes once inlined, and whether the vector code reorders them."""
    calls = []
    for c, in_loop in calls_with_loops(fn):
        if c.func in expandable:
            continue
        got = classify(c.func, c.args, mod, fn, stateless)
        if got is not None:
            calls.append(HiddenCall(c.func, c.coord, *got, in_loop))
    looped = next((c for c in calls if c.in_loop), None)
    if looped is not None:
        why = (f"'{looped.func}' is called in a loop, and each iteration of the vector code makes the call for "
               "every instance")
    elif len(calls) >= 2:
        names = " and ".join(dict.fromkeys(f"'{c.func}'" for c in calls))
        why = (f"'{fn.name}' calls {names} at {len(calls)} places, and the vector code makes each place's call for "
               "every instance before the next place's")
    else:
        why = ""
    return HiddenState(fn.name, calls, why)


def warnings(hs: HiddenState, lanes: int) -> list[ExpandWarning]:
    """The warnings for ``hs``: one per call site, when the vector code reorders the calls."""
    if not hs.reordered:
        return []
    out = []
    order = (f"the {lanes} instances of the vector code make their calls in another order than {lanes} calls of "
             f"'{hs.name}' would ({hs.reordered})")
    for c in hs.calls:
        if c.kind == "unknown":
            msg = f"call to '{c.func}' may have hidden state ({c.what}); if it has, {order}"
        else:
            msg = f"call to '{c.func}' has hidden state ({c.what}): {order}, so they get other values"
        out.append(ExpandWarning(c.coord, msg, c.advice))
    return out


def verify_note(hs: HiddenState) -> str:
    """What ``--verify`` adds to a summary with mismatches when the function makes such calls ("" if none)."""
    if not hs.calls:
        return ""
    sure = [c for c in hs.calls if c.kind != "unknown"]
    shown = ", ".join(dict.fromkeys(f"'{c.func}' ({c.coord})" for c in (sure or hs.calls)))
    has = "has hidden state" if sure else "may have hidden state"
    if hs.reordered:
        return (f"{hs.name} calls {shown}, which {has}: the vector code makes those calls in another order than the"
                f" scalar calls ({hs.reordered}), so these mismatches may come from that order (see the warning)")
    return (f"{hs.name} calls {shown}, which {has}: the harness's scalar calls ran first and moved that state on,"
            " so the vector call's values differ from theirs whatever the vector code does")
