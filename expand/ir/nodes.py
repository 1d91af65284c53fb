"""The typed IR: a small C-like tree that every frontend produces and every pass rewrites.

Every expression carries its C type *after* conversions: the frontend makes implicit
conversions explicit as ``Cast`` nodes, so a ``Binary`` arithmetic node has operands of its
own type (shifts: the left operand's type; comparisons: ``int`` result, operands of a common
type). Expressions are side-effect free except ``Call``; normalization moves calls and
assignments into statements.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from expand.ir.types import INT, Array, CType, Pointer


@dataclass(frozen=True)
class Coord:
    file: str
    line: int
    col: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(eq=False)
class Symbol:
    """A named object: parameter, local, global or function."""

    name: str
    type: CType
    kind: str  # 'param' | 'local' | 'global' | 'func'
    coord: Coord | None = None
    static: bool = False
    const: bool = False
    volatile: bool = False
    init: object = None  # Expr, or nested lists of Expr for aggregates (globals only)
    defined_here: bool = False  # a global defined (not just declared) in the user's file
    decl_text: str = ""  # the global's declaration as the user's file spells it
    shape: str = ""  # parameters: "uniform" or "linear" (vector function ABI); "" = varying
    temp: bool = False  # introduced by a pass (helper parameters, results, call values): may be folded away

    def __repr__(self) -> str:
        return f"Symbol({self.name}:{self.type})"


# ----------------------------------------------------------------------------- expressions


@dataclass(eq=False)
class Expr:
    type: CType

    def children(self) -> list[Expr]:
        return []

    def walk(self) -> Iterator[Expr]:
        yield self
        for c in self.children():
            yield from c.walk()


@dataclass(eq=False)
class Const(Expr):
    value: int | float
    text: str = ""  # exact spelling for float constants (hex floats survive)


@dataclass(eq=False)
class Var(Expr):
    sym: Symbol


@dataclass(eq=False)
class Unary(Expr):
    op: str  # '-', '~', '!', '&' (address of), '*' (dereference)
    operand: Expr

    def children(self) -> list[Expr]:
        return [self.operand]


@dataclass(eq=False)
class Binary(Expr):
    op: str  # + - * / % & | ^ << >> == != < <= > >= && ||
    left: Expr
    right: Expr

    def children(self) -> list[Expr]:
        return [self.left, self.right]


@dataclass(eq=False)
class Cond(Expr):
    cond: Expr
    then: Expr
    els: Expr

    def children(self) -> list[Expr]:
        return [self.cond, self.then, self.els]


@dataclass(eq=False)
class Cast(Expr):
    """A value conversion to ``type`` (C's cast and implicit conversions)."""

    operand: Expr

    def children(self) -> list[Expr]:
        return [self.operand]


@dataclass(eq=False)
class BitCast(Expr):
    """Reinterpret the bits of ``operand`` (same size) as ``type``: unions, memcpy, pointer casts."""

    operand: Expr

    def children(self) -> list[Expr]:
        return [self.operand]


@dataclass(eq=False)
class Call(Expr):
    func: str
    args: list[Expr]
    coord: Coord | None = None

    def children(self) -> list[Expr]:
        return list(self.args)


#: libm operations with a vector form (``MathOp.op``, the double function's name) -> argument count
MATH_OPS = {"sqrt": 1, "floor": 1, "ceil": 1, "trunc": 1, "rint": 1, "nearbyint": 1, "fmin": 2, "fmax": 2,
            "fma": 3}


@dataclass(eq=False)
class MathOp(Expr):
    """A call of a pure libm function (expand/passes/mathcalls.py): ``op`` (a key of ``MATH_OPS``) on
    ``args`` of the result's type (float: ``sqrtf``, double: ``sqrt``). ``func`` is how scalar C
    spells the call (``sqrtf`` or ``__builtin_sqrtf``). Side-effect free, except errno."""

    op: str
    args: list[Expr]
    func: str = ""

    def children(self) -> list[Expr]:
        return list(self.args)


@dataclass(eq=False)
class Index(Expr):
    base: Expr  # array or pointer
    index: Expr

    def children(self) -> list[Expr]:
        return [self.base, self.index]


@dataclass(eq=False)
class Member(Expr):
    base: Expr  # a record (``.``) or pointer to record (``->``)
    name: str
    arrow: bool = False

    def children(self) -> list[Expr]:
        return [self.base]


@dataclass(eq=False)
class InitList(Expr):
    """Brace initializer of a local aggregate (only before normalization)."""

    items: list[Expr] = field(default_factory=list)

    def children(self) -> list[Expr]:
        return list(self.items)


@dataclass(eq=False)
class Aggregate(Expr):
    """A struct or union value made from a brace initializer: a compound literal ``(union u){x}`` or
    a local's ``= {...}``. ``items`` are the initialized subobjects in order, each a path from the
    value (member names and constant array indexes: ``("parts", "msw")``, ``("w", 1)``) and the value
    stored there (converted to its type); every byte no item names is zero. expand/passes/records.py
    turns it into the words of the value."""

    items: list[tuple[tuple[str | int, ...], Expr]] = field(default_factory=list)

    def children(self) -> list[Expr]:
        return [v for _, v in self.items]



def same_value(a: Expr, b: Expr) -> bool:
    """``a`` and ``b`` are the same expression: the same nodes with the same types, operators,
    constants and symbols (``c ? e : e`` is ``e``, expand/passes/fold.py)."""
    if type(a) is not type(b) or a.type != b.type:
        return False
    for f in a.__dataclass_fields__:
        x, y = getattr(a, f), getattr(b, f)
        if isinstance(x, Expr):
            if not same_value(x, y):
                return False
        elif isinstance(x, list):
            if len(x) != len(y) or not all(same_value(i, j) if isinstance(i, Expr) else i == j
                                           for i, j in zip(x, y)):
                return False
        elif isinstance(x, Symbol) or f == "coord":
            if f != "coord" and x is not y:
                return False
        elif x != y:
            return False
    return True

# ------------------------------------------------------------------------------ statements


@dataclass(eq=False)
class Stmt:
    coord: Coord | None


@dataclass(eq=False)
class Assign(Stmt):
    target: Expr  # Var, Unary('*'), Index or Member
    value: Expr
    mask: Symbol | None = None  # after if-conversion: the block mask (None = every lane)
    blend: bool = False  # after if-conversion: keep inactive lanes' old value


@dataclass(eq=False)
class ExprStmt(Stmt):
    expr: Expr
    mask: Symbol | None = None


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: list[Stmt]
    els: list[Stmt]
    likely: bool | None = None  # from __builtin_expect / __glibc_unlikely


@dataclass(eq=False)
class Goto(Stmt):
    label: str


@dataclass(eq=False)
class Label(Stmt):
    name: str


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None


@dataclass(eq=False)
class Block(Stmt):
    body: list[Stmt]


@dataclass(eq=False)
class Loop(Stmt):
    """Any loop. Kept so passes can diagnose it; the spine does not vectorize loops."""

    kind: str  # 'for' | 'while' | 'do'
    cond: Expr | None
    body: list[Stmt]
    init: list[Stmt] = field(default_factory=list)
    step: list[Stmt] = field(default_factory=list)


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class MaskedLoop(Stmt):
    """After if-conversion: a loop that runs while any lane of ``active`` is on; a uniform loop
    (every lane iterates the same number of times) has ``active`` None and leaves by ``BreakIf``."""

    active: Symbol | None
    body: list[Stmt]
    #: False: no test of ``active`` at the head; the loop leaves by ``BreakIfNone`` where lanes leave
    #: (predication/exit_tests.py)
    head_test: bool = True


@dataclass(eq=False)
class BreakIf(Stmt):
    """After if-conversion, in a uniform loop: ``if (cond) break;`` on a uniform condition."""

    cond: Expr


@dataclass(eq=False)
class BreakIfNone(Stmt):
    """After exit sinking (predication/exit_tests.py): ``if (!any(mask)) break;``, the divergent loop's
    last lane has left."""

    mask: Symbol


@dataclass(eq=False)
class Guard(Stmt):
    """BOSCC: run ``body`` only if some lane of ``mask`` is on; otherwise set ``resets`` (masks
    computed inside and read after) to all-false. With ``all_body`` (the same statements with
    ``mask`` taken as all lanes: no blends under it), that runs instead when every lane is on;
    ``any_test`` False: no all-false test (``body`` runs whenever not every lane is on)."""

    mask: Symbol
    body: list[Stmt]
    resets: list[Symbol] = field(default_factory=list)
    all_body: list[Stmt] | None = None
    any_test: bool = True


@dataclass(eq=False)
class UniformIf(If):
    """After if-conversion: an ``if`` whose condition is uniform (one value for every lane) stays a
    branch; its statements keep the enclosing block mask ``mask`` (None: every lane)."""

    mask: Symbol | None = None


def flatten(stmts: list[Stmt]) -> Iterator[Stmt]:
    """Every statement of an if-converted list, including those inside masked loops, guards
    (and their all-lanes copies) and uniform ifs, depth first.

    (``_depth_first``: without nested generators, each nested list looked up when the walk gets to it.)"""
    return _depth_first(stmts, _nested)


def flatten_own(stmts: list[Stmt]) -> Iterator[Stmt]:
    """``flatten`` without the bodies of the masked loops inside ``stmts`` (the loops themselves are
    among the statements): what one loop body runs itself."""
    return _depth_first(stmts, lambda s, k: None if isinstance(s, MaskedLoop) else _nested(s, k))


def _depth_first(stmts: list[Stmt], lists: Callable[[Stmt, int], list[Stmt] | None]) -> Iterator[Stmt]:
    """Every statement of ``stmts`` and of the lists nested in them, ``lists(s, k)`` being the
    ``k``-th list inside ``s`` (None: no more), depth first, as nested ``yield from``s would, and
    looking up each nested list when the walk gets to it as they would (a stack of iterators: nested
    generators pass each statement through one generator per level, a cost of the depth each)."""
    stack: list[tuple[Iterator[Stmt], Stmt | None, int]] = [(iter(stmts), None, 0)]
    while stack:
        it, owner, k = stack[-1]
        s = next(it, _END)
        if s is _END:
            stack.pop()
            nxt = lists(owner, k + 1) if owner is not None else None
            if nxt is not None:
                stack.append((iter(nxt), owner, k + 1))
            continue
        yield s
        first = lists(s, 0)
        if first is not None:
            stack.append((iter(first), s, 0))


_END = object()  # (the end of a statement list, for ``next``)


def _nested(s: Stmt, k: int) -> list[Stmt] | None:
    """The ``k``-th statement list inside ``s`` as ``flatten`` walks them (None: no more)."""
    if isinstance(s, MaskedLoop):
        return s.body if k == 0 else None
    if isinstance(s, Guard):
        return s.body if k == 0 else s.all_body if k == 1 else None
    if isinstance(s, UniformIf):
        return s.then if k == 0 else s.els if k == 1 else None
    return None


@dataclass(eq=False)
class Function:
    name: str
    ret: CType
    params: list[Symbol]
    body: list[Stmt]
    coord: Coord
    static: bool = False
    inline: bool = False
    locals: list[Symbol] = field(default_factory=list)
    variadic: bool = False
    #: globals whose value the vector code keeps per lane and stores at the exit, the highest writing
    #: lane's (errno, and globals the function assigns): expand/passes/global_writes.py
    tracked: list[Symbol] = field(default_factory=list)


@dataclass(eq=False)
class Module:
    """One translation unit as seen by expand."""

    file: str
    source_lines: list[str]
    functions: dict[str, Function]
    globals: dict[str, Symbol]
    prologue: list[str]  # the user's #include lines (and the #defines before them), printed back
    #: the ``.c`` files the user's file includes (templates such as glibc's ``s_fromfpf_main.c``): their
    #: functions, tables and declarations are the user's own code, as the file's are
    templates: frozenset[str] = field(default_factory=frozenset)
    #: what a function's output assumes beyond C's semantics (function -> one sentence), printed in the
    #: output's header: glibc's floating-point environment calls dropped (frontends/fenv.py)
    assumptions: dict[str, str] = field(default_factory=dict)
    #: functions of the user's file (or its templates) the frontend could not read, in source order: name ->
    #: its ``ExpandError``, raised only when an expanded function needs the body (expand/driver.py), so a
    #: helper nothing calls stops nothing
    failed: dict[str, Exception] = field(default_factory=dict)
    #: functions a declaration says have no side effects (``__attribute__ ((const))`` or ``((pure))`` on
    #: any declaration of theirs, the user's or a header's): name -> "const" or "pure"
    effects: dict[str, str] = field(default_factory=dict)

    def own(self, file: str | None) -> bool:
        """``file`` is the user's file or one of its templates."""
        return file == self.file or file in self.templates


# ------------------------------------------------------------------------------- utilities


class MaskType(CType):
    """The type of a mask (one boolean per lane); masks are Symbols of this type."""

    spelling = "mask"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MaskType)

    def __hash__(self) -> int:
        return 7


MASK = MaskType()


def int_const(v: int, t: CType = INT) -> Const:
    return Const(t, v, str(v))


def walk_stmts(stmts: list[Stmt]) -> Iterator[Stmt]:
    """Every statement, depth first, including nested ones (the lists of ifs, blocks and loops)."""
    return _depth_first(stmts, _source_nested)


def _source_nested(s: Stmt, k: int) -> list[Stmt] | None:
    """The ``k``-th statement list inside ``s`` as ``walk_stmts`` walks them (None: no more)."""
    if isinstance(s, If):
        return s.then if k == 0 else s.els if k == 1 else None
    if isinstance(s, Block):
        return s.body if k == 0 else None
    if isinstance(s, Loop):
        return s.init if k == 0 else s.body if k == 1 else s.step if k == 2 else None
    return None


def stmt_exprs(s: Stmt) -> list[Expr]:
    """The expressions a statement evaluates directly (not those of nested statements)."""
    if isinstance(s, Assign):
        return [s.target, s.value]
    if isinstance(s, ExprStmt):
        return [s.expr]
    if isinstance(s, If):
        return [s.cond]
    if isinstance(s, Return):
        return [s.value] if s.value is not None else []
    if isinstance(s, Loop):
        return [s.cond] if s.cond is not None else []
    if type(s).__name__ == "BreakIf":
        return [s.cond]  # type: ignore[attr-defined]
    return []


def map_expr(e: Expr, f) -> Expr:
    """Rebuild ``e`` bottom-up, replacing each node ``n`` by ``f(n)`` (children first)."""
    if isinstance(e, Unary):
        e = Unary(e.type, e.op, map_expr(e.operand, f))
    elif isinstance(e, Binary):
        e = Binary(e.type, e.op, map_expr(e.left, f), map_expr(e.right, f))
    elif isinstance(e, Cond):
        e = Cond(e.type, map_expr(e.cond, f), map_expr(e.then, f), map_expr(e.els, f))
    elif isinstance(e, Cast):
        e = Cast(e.type, map_expr(e.operand, f))
    elif isinstance(e, BitCast):
        e = BitCast(e.type, map_expr(e.operand, f))
    elif isinstance(e, Call):
        e = Call(e.type, e.func, [map_expr(a, f) for a in e.args], e.coord)
    elif isinstance(e, MathOp):
        e = MathOp(e.type, e.op, [map_expr(a, f) for a in e.args], e.func)
    elif isinstance(e, Index):
        e = Index(e.type, map_expr(e.base, f), map_expr(e.index, f))
    elif isinstance(e, Member):
        e = Member(e.type, map_expr(e.base, f), e.name, e.arrow)
    elif isinstance(e, InitList):
        e = InitList(e.type, [map_expr(i, f) for i in e.items])
    elif isinstance(e, Aggregate):
        e = Aggregate(e.type, [(path, map_expr(v, f)) for path, v in e.items])
    return f(e)


def map_stmt_exprs(s: Stmt, f) -> None:
    """Apply ``map_expr(., f)`` to the expressions of ``s`` in place (not nested statements)."""
    if isinstance(s, Assign):
        s.target = map_expr(s.target, f)
        s.value = map_expr(s.value, f)
    elif isinstance(s, ExprStmt):
        s.expr = map_expr(s.expr, f)
    elif isinstance(s, If):
        s.cond = map_expr(s.cond, f)
    elif isinstance(s, Return) and s.value is not None:
        s.value = map_expr(s.value, f)


def vars_read(e: Expr) -> set[Symbol]:
    return {n.sym for n in e.walk() if isinstance(n, Var)}


def stmt_reads(t: Stmt) -> set[Symbol]:
    """Variables one linear statement reads in its own expressions (not in nested bodies): an
    assignment's value (and a non-variable target's address), an expression, a BreakIf's
    condition, a MaskedLoop's active mask."""
    r: set[Symbol] = set()
    if isinstance(t, Assign):
        r |= vars_read(t.value)
        if not isinstance(t.target, Var):
            r |= vars_read(t.target)
    elif isinstance(t, ExprStmt):
        r |= vars_read(t.expr)
    elif isinstance(t, BreakIf):
        r |= vars_read(t.cond)
    elif isinstance(t, MaskedLoop) and t.active is not None:
        r.add(t.active)
    elif isinstance(t, BreakIfNone):
        r.add(t.mask)
    return r


def addressed_vars(stmts: list[Stmt]) -> set[Symbol]:
    """The variables whose address ``stmts`` (nested statements too) take: ``&v``."""
    return {n.operand.sym for st in walk_stmts(stmts) for e in stmt_exprs(st) for n in e.walk()
            if isinstance(n, Unary) and n.op == "&" and isinstance(n.operand, Var)}


def init_exprs(init: object) -> Iterator[Expr]:
    """Every expression node of a static initializer (``Symbol.init``: an expression, or nested lists
    of them; a union's ``{.member = v}`` is a dict)."""
    if isinstance(init, list):
        for i in init:
            yield from init_exprs(i)
    elif isinstance(init, dict):
        for i in init.values():
            yield from init_exprs(i)
    elif isinstance(init, Expr):
        yield from init.walk()


def zero_const(t: CType) -> Const:
    """The zero of arithmetic type ``t`` (``0.0f``, ``0.0``, ``0``)."""
    if t.is_float():
        return Const(t, 0.0, "0.0f" if t.size() == 4 else "0.0")
    return Const(t, 0, "0")


def as_type(e: Expr, t: CType) -> Expr:
    """``e`` converted to ``t`` (itself when it has that type already, typedef names aside)."""
    from expand.ir.types import strip_spelling
    return e if strip_spelling(e.type) == strip_spelling(t) else Cast(t, e)


def may_fault_read(n: Expr) -> bool:
    """Node ``n`` reads memory that may not be there: a dereference, ``->``, or an index other than a
    constant one into an array object (``tab[3]``, ``__logf_data.poly[1]``: no pointer on the way). Under
    a partial mask the printer reads such memory only for active lanes (it reads the mask); the rest is
    read whatever the mask."""
    if isinstance(n, Unary) and n.op == "*":
        # (a pointer parameter to a gang: each lane's element, loaded whole whatever the mask)
        return not (isinstance(n.operand, Var) and n.operand.sym.kind == "param" and n.operand.sym.shape != "uniform")
    if isinstance(n, Member) and n.arrow:
        return True
    if not isinstance(n, Index):
        return False
    e: Expr = n
    while isinstance(e, Index) and isinstance(e.index, Const) or isinstance(e, Member) and not e.arrow:
        e = e.base
    return not (isinstance(e, Var) and not isinstance(e.sym.type, Pointer))


def is_pure(e: Expr) -> bool:
    """True when evaluating ``e`` has no side effects and cannot fault (no calls, loads, division)."""
    for n in e.walk():
        if isinstance(n, Call):
            return False
        if isinstance(n, (Index, Member)) or (isinstance(n, Unary) and n.op == "*"):
            return False
        if isinstance(n, Binary) and n.op in ("/", "%") and n.type.is_int():
            return False
    return True


def next_free_name(base: str, used: set[str], start: dict[str, int]) -> str:
    """The first of ``base``, ``base_2``, ``base_3``, ... not in ``used`` (added to it). ``start``
    keeps, per base, the number the next search starts from: valid as long as ``used`` only grows, it
    makes many names from one base cost linear time, not quadratic (a scan from 1 each time)."""
    n = start.get(base, 1)
    name = base if n == 1 else f"{base}_{n}"
    while name in used:
        n += 1
        name = f"{base}_{n}"
    used.add(name)
    start[base] = n + 1
    return name


class NameMaker:
    """Fresh local names derived from the source (``zeroinfnan_r``, ``or_1``)."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.used = {s.name for s in fn.locals} | {p.name for p in fn.params}
        # The number each base's search starts from: names are only ever added, so the smallest free
        # one never goes down (many names from one base, ``active``, ``m_join``: not a scan from 1 each).
        self.start: dict[str, int] = {}

    def fresh(self, base: str) -> str:
        return next_free_name(re.sub(r"\W", "_", base).strip("_") or "t", self.used, self.start)

    def local(self, base: str, t: CType, coord=None) -> Symbol:
        s = Symbol(self.fresh(base), t, "local", coord, temp=True)
        self.fn.locals.append(s)
        return s


def path_root(e: Expr) -> Expr:
    """The object an access path starts from, through members and array indexes but not pointers: ``s``
    of ``s.a[i].b``, ``tab[k]`` of ``tab[k].c`` (``tab`` a pointer), ``*p`` of ``p->x``."""
    while isinstance(e, Member) and not e.arrow or isinstance(e, Index) and isinstance(e.base.type, Array):
        e = e.base
    return e


def is_local_array(sym: Symbol) -> bool:
    """A local array (each lane has its own copy: expand/passes/local_arrays.py)."""
    return sym.kind == "local" and isinstance(sym.type, Array)
