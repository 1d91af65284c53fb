"""The builder of the IR from C semantics, shared by both frontends: each reader maps its own syntax tree
(pycparser's ``c_ast``, libclang's cursors) onto these methods, and what C means is decided here once.

A frontend reads a construct's operands itself (``expr``, ``lvalue``: its own methods, the only recursion
into its tree) and hands them to the builder, which makes the IR node by C11's rules (LP64, the
target's plain ``char``): the usual arithmetic conversions and integer promotions as explicit ``Cast``
nodes (``binary``, ``unary``, ``ternary``), conversion as if by assignment (``convert``: assignments,
arguments, returns, initializers), lvalues (``assignable``), truth values (``truth``: ``x`` as a condition
is ``x != 0``), constants (``int_literal``, ``float_literal``, ``char_literal``), casts, subscripts and
members, calls (builtins, libm signatures, prototypes and their argument conversions), assignments and
``++``/``--`` with their values inside expressions (the statements they run first, ``side_effect``),
declarations (globals resolved lazily, locals, function-local statics, brace initializers through
``frontends/initializers.py``), loops, ``switch`` (``frontends/statements.py``), empty ``asm`` statements,
and the diagnostics that go with all of them.

What a frontend supplies (the abstract methods below): ``expr(node)`` and
``lvalue(node)``; for initializers ``as_init_list(node)`` (the brace list ``node`` is, or None),
``scalar_init(node)`` (the expression inside a scalar's braces), ``init_list(node)`` (a brace list's
``initializers.Item`` list) and ``init_coord(node)``; for reading functions ``function(node)`` and
``in_user_file(node)``. A frontend with a second opinion on types overrides ``confirm(t, node, what)``:
the clang frontend compares each type our rules give with clang's (a disagreement is recorded and
clang's type wins); the other passes no node and the rule's type stands.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from expand.ir import types as T
from expand.ir.cprint import literal_type, literal_value
from expand.ir.diagnostics import ExpandError, error
from expand.ir.nodes import (
    Assign,
    Binary,
    BitCast,
    Block,
    Break,
    Call,
    Cast,
    Cond,
    Const,
    Continue,
    Coord,
    Expr,
    ExprStmt,
    Function,
    If,
    Index,
    InitList,
    Loop,
    Member,
    Module,
    Return,
    Stmt,
    Symbol,
    Unary,
    Var,
    next_free_name,
)
from expand.ir.visitor import nested
from expand.passes.fold import fold_int
from expand.passes.mathcalls import signature as math_signature

from . import builtins, fenv
from . import initializers as inits
from .csemantics import (
    COMPARISONS,
    effects_only,
    is_null_pointer_constant,
    lvalue_name,
    null_comparison,
    pure_local_assignment,
)
from .statements import (
    aggregate_initializer,
    check_local_array,
    local_record_check,
    local_static,
    lower_switch,
    name_local_statics,
    record_declared,
    written_static,
)

NESTING_HINT = "split deep expressions or blocks into several statements"
#: Calls that leave or re-enter a function other than by returning
NONLOCAL_JUMPS = {"setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp", "longjmp", "_longjmp", "siglongjmp",
                  "__longjmp_chk", "vfork", "fork"}


class _PtrCast(Cast):
    """A pointer cast; the punning pass turns ``*(T *)&x`` into a BitCast."""


def retype(e: Expr, t: T.CType) -> Expr:
    """The same value spelled with type ``t`` (a typedef of the same type)."""
    if isinstance(e, Const):
        return Const(t, e.value, e.text)
    return Cast(t, e)


def typedef_spelled(t: T.CType, name: str) -> T.CType:
    """The type of a use of typedef ``name`` whose type is ``t``: an arithmetic type spelled by the name
    (the output keeps the user's spelling), any other type itself."""
    if isinstance(t, T.Int):
        return T.Int(t.bits, t.signed, t.is_bool, spelling=name)
    if isinstance(t, T.Float):
        return T.Float(t.bits, spelling=name)
    return t


def name_typedef_record(t: T.CType, name: str) -> None:
    """``typedef struct { ... } name``: the output defines the record under this name."""
    if isinstance(t, T.Record) and not t.tag and not t.spelling:
        t.spelling = name


def function_pointer(t: T.CType | None) -> bool:
    return isinstance(t, T.Pointer) and isinstance(t.target, T.Func)


def walk_shallow(stmts: list[Stmt]) -> Iterator[Stmt]:
    """Statements not inside nested loops."""
    for s in stmts:
        yield s
        if not isinstance(s, Loop):
            for _, body in nested(s):
                yield from walk_shallow(body)


def uniquify_locals(fn: Function) -> None:
    """Give locals that share a name (from separate scopes or macros) distinct names."""
    seen = {p.name for p in fn.params}
    start: dict[str, int] = {}
    for s in fn.locals:
        s.name = next_free_name(s.name, seen, start)


class Builder(ABC):
    """The state of one translation unit being read and the C semantics that make its IR."""

    def __init__(self, path: str, source: str, target: T.Target = T.HOST) -> None:
        self.path = path
        self.source = source
        self.target = target
        self.templates: frozenset[str] = frozenset()  # .c files the user's file includes: its own code too
        self.here: Coord | None = None  # the statement or declaration being read (for errors)
        self.globals: dict[str, Symbol] = {}
        self.functions: dict[str, Function] = {}
        self.func_nodes: dict[str, object] = {}
        self.failed: dict[str, ExpandError] = {}  # the user's functions expand refused (Module.failed)
        self.locals: list[Symbol] = []
        self.cur_ret: T.CType = T.VOID
        self.fn_name = ""
        self.switch_depth = 0  # switch statements being read around the current statement
        self.switch_count = 0  # switch statements read in this function (their labels' numbers)
        self.pending_simd: dict[str, str] | None = None
        self.simd: dict[str, dict[str, str]] = {}
        self.local_statics: list[Symbol] = []  # function-local statics, file-scope symbols (name_local_statics)
        self.assumptions: dict[str, str] = {}  # function -> what its output assumes (frontends/fenv.py)
        self.effects: dict[str, str] = {}  # function -> "const" | "pure", as its declarations say (Module.effects)
        # Side effects inside expressions (``a = b = c``, ``x++``, ``(e1, e2)``, ``({ ... })``): the
        # statements that run before the statement being read (None: none allowed here), and how deep
        # the expression is in operands evaluated only sometimes (&&, ||, ?:) or never (sizeof, typeof).
        self.before: list[Stmt] | None = None
        self.conditional = 0
        self.unevaluated = 0

    # ------------------------------------------------------------------ what the frontend supplies
    @abstractmethod
    def expr(self, node) -> Expr:
        """The IR of the expression ``node``."""

    @abstractmethod
    def lvalue(self, node) -> Expr:
        """The IR of ``node``, an lvalue that is written (``assignable``)."""

    @abstractmethod
    def as_init_list(self, node):
        """The brace list ``node`` is (as the frontend walks it), or None for an expression."""

    @abstractmethod
    def scalar_init(self, node):
        """The expression inside the braces of a scalar's initializer ``{x}`` (``{{x}}``)."""

    @abstractmethod
    def init_list(self, node) -> list[inits.Item] | None:
        """The items of brace list ``node`` with their designators (None: ``node`` is an expression)."""

    @abstractmethod
    def init_coord(self, node) -> Coord | None:
        """Where brace list ``node`` is (for errors)."""

    @abstractmethod
    def function(self, node) -> Function:
        """The IR of the function definition ``node``."""

    @abstractmethod
    def in_user_file(self, node) -> bool:
        """``node`` is in the user's file or one of its templates."""

    def reads_function(self, name: str) -> bool:
        """Whether function ``name`` of ``func_nodes`` is read at all."""
        return True

    def confirm(self, t: T.CType, node, what: str) -> T.CType:
        """The type of ``node`` (a frontend's node, or None) where our rules give ``t``: ``t``, unless the
        frontend knows better (the clang frontend: clang's type, the disagreement recorded)."""
        return t

    # ------------------------------------------------------------------ the translation unit
    def read_functions(self) -> None:
        """Every function definition of ``func_nodes`` into ``functions``. One of the user's file that
        expand refuses is left out and its error kept in ``failed`` (``Module.failed``: raised if an
        expanded function needs it, expand/driver.py); a static helper from a header the user's file
        includes (asuint, ...) is taken if it converts, else called per lane."""
        for name, fd in self.func_nodes.items():
            if not self.reads_function(name):
                continue
            try:
                self.functions[name] = self.function(fd)
            except ExpandError as exc:
                if self.in_user_file(fd):
                    self.failed[name] = exc

    def module(self, prologue: list[str]) -> Module:
        """The Module of what has been read, the function-local statics named."""
        mod = Module(self.path, self.source.splitlines(), self.functions, self.globals, prologue, self.templates,
                     {n: a for n, a in self.assumptions.items() if n in self.functions}, dict(self.failed))
        name_local_statics(mod, self.local_statics)
        mod.effects = dict(self.effects)
        return mod

    def declare_effects(self, name: str, attributes: list[str]) -> None:
        """Note what the attributes of a declaration of function ``name`` say of its side effects:
        ``const`` or ``pure`` (``__const__`` too); ``const`` wins, as it says more."""
        said = {a.strip("_") for a in attributes} & {"const", "pure"}
        if said:
            self.effects[name] = "const" if "const" in said or self.effects.get(name) == "const" else "pure"

    def assume(self, text: str) -> None:
        """Add ``text`` to what the current function's output assumes (printed in its header)."""
        have = self.assumptions.get(self.fn_name, "")
        if text not in have.split("; "):
            self.assumptions[self.fn_name] = f"{have}; {text}" if have else text

    def new_global(self, name: str, co: Coord, static: bool, const: bool, volatile: bool, defined: bool,
                   func: bool) -> Symbol | None:
        """Declare file-scope ``name`` (its type is read when a function uses it: ``resolve_global``):
        the new Symbol, or None when an earlier declaration stands (this one defines nothing)."""
        prev = self.globals.get(name)
        sym = Symbol(name, T.VOID, "global", co, static=static, const=const, volatile=volatile)
        sym.type = None  # resolved lazily: headers declare many things we never use
        sym.defined_here = defined
        if prev is not None and not defined:
            return None
        if func:
            sym.kind = "func"
        self.globals[name] = sym
        return sym

    def resolve_global(self, sym: Symbol, co: Coord, read_type, sized_by, init) -> None:
        """Give global ``sym`` its type (``read_type()``; an array without a length takes it from the brace
        list ``sized_by``) and, when the user's file defines it, its initializer ``init``'s value."""
        here, self.here = self.here, co
        try:
            t = read_type()
            if isinstance(t, T.Array) and t.length is None and sized_by is not None \
                    and self.as_init_list(sized_by) is not None:
                t = T.Array(t.elem, self.init_length(t, sized_by))
            sym.type = t  # (before the initializer, which may name the symbol: sizeof x)
            value = self.global_init(init, t) if init is not None and sym.defined_here else None
        except ExpandError:
            sym.type = None  # (tried again, and refused again, by the next function that uses it)
            raise
        finally:
            self.here = here
        sym.init = value

    def global_init(self, init, t: T.CType):
        """The static initializer of an object of type ``t``: an expression, or nested lists."""
        lst = self.as_init_list(init)
        if lst is not None:
            if isinstance(t, (T.Array, T.Record)):
                return inits.nest(t, self.flatten_init(t, lst)[0])
            return self.convert(self.expr(self.scalar_init(lst)), t)
        return self.convert(self.expr(init), t)

    def flatten_init(self, t: T.CType, init) -> tuple[list, int]:
        """The subobjects brace list ``init`` initializes in an object of type ``t`` (frontends/initializers.py)."""
        return inits.flatten(t, self.init_list(init) or [], self.init_coord(init), self.init_list, self.expr,
                             self.convert)

    def init_length(self, t: T.Array, init) -> int:
        """The length brace list ``init`` gives array ``t[]`` (its values are not read)."""
        return inits.flatten(t, self.init_list(init) or [], self.init_coord(init), self.init_list,
                             lambda _: Const(T.INT, 0, "0"), lambda e, _: e)[1]

    # ------------------------------------------------------------------ functions
    def begin_function(self, name: str, ret: T.CType) -> None:
        self.locals = []
        self.before, self.conditional, self.unevaluated = None, 0, 0  # (as after a function that failed)
        self.dropped: list[str] = []  # where statements evaluated only for FP exceptions were (force_eval)
        self.switch_depth = 0
        self.switch_count = 0
        self.fn_name = name
        self.cur_ret = ret

    def variadic_definition(self, co: Coord, name: str) -> ExpandError:
        return error(co, f"variadic function '{name}' cannot be expanded", "give it a fixed parameter list")

    def parameter(self, co: Coord, name: str | None, t: T.CType, volatile: bool, volatile_target: bool) -> Symbol:
        """Parameter ``name`` of type ``t`` (``volatile``, or a pointer to volatile: refused)."""
        if not name:
            raise error(co, "unnamed parameter")
        if volatile or volatile_target:
            raise error(co, f"volatile parameter '{name}' cannot be vectorized",
                        "drop 'volatile' (vector code reads and writes whole gangs of lanes at once)")
        return Symbol(name, T.decay(t), "param", co, volatile=volatile)

    def simd_shapes(self, name: str, params: list[Symbol], co: Coord) -> None:
        """The parameters' shapes from the ``#pragma omp declare simd`` before function ``name``."""
        for prm in params:
            prm.shape = self.simd.get(name, {}).get(prm.name, "")
        names = {prm.name for prm in params}
        for n in self.simd.get(name, {}):
            if n not in names:
                raise error(co, f"'#pragma omp declare simd' names '{n}', which is not a parameter of "
                            f"'{name}'", "name the function's own parameters in uniform(...) and linear(...)")

    def end_function(self, name: str, ftype: T.Func, params: list[Symbol], body: list[Stmt], co: Coord,
                     static: bool, inline: bool) -> Function:
        if self.dropped:
            self.assume(fenv.force_eval_assumption(self.dropped))
        fn = Function(name, ftype.ret, params, body, co, static=static, inline=inline, locals=self.locals,
                      variadic=ftype.variadic)
        uniquify_locals(fn)
        return fn

    # ------------------------------------------------------------------ declarations in a function
    def local_storage(self, co: Coord, name: str | None, extern: bool, volatile: bool,
                      type_of: Callable[[], T.CType] | None = None) -> None:
        """Refuse a local ``extern`` variable, and a ``volatile`` one but of an arithmetic type (``type_of()``),
        which is an ordinary local in the output, the header says: libm code keeps a value in a volatile
        local to have it rounded to its type (newlib's rintf: ``w = TWO23[sx] + x; return w - TWO23[sx];``),
        which every target's float and double arithmetic does (FLT_EVAL_METHOD 0); the accesses
        themselves are not kept."""
        if extern:
            raise error(co, f"local 'extern' variable '{name}' is not supported", "move it to file scope")
        if volatile:
            t = T.strip_spelling(type_of()) if type_of is not None else None
            if t is None or not t.is_arith():
                raise error(co, f"volatile variable '{name}' cannot be vectorized",
                            "a volatile local of an arithmetic type is read as an ordinary one; drop 'volatile'")
            self.assume(f"the volatile local '{name}' ({co}) is an ordinary variable: the output keeps its values, "
                        "not its accesses")

    def cleanup_attribute(self, co: Coord, name: str, hint: str = "") -> ExpandError:
        return error(co, f"'__attribute__ ((cleanup))' on '{name}' is not supported",
                     "call the cleanup function at the end of the block yourself" + hint)

    def declare_local(self, co: Coord, name: str, t: T.CType, const: bool) -> Symbol:
        """A local variable (the frontend puts it in its scope before ``initialize_local`` reads the
        initializer, which may name it)."""
        if isinstance(t, T.Array):
            check_local_array(co, name, t)
        elif isinstance(t, T.Record):
            local_record_check(co, name, t, self.target)
        sym = Symbol(name, t, "local", co, const=const)
        self.locals.append(sym)
        return sym

    def initialize_local(self, co: Coord, sym: Symbol, init) -> list[Stmt]:
        """What the declaration of local ``sym`` with initializer ``init`` (a frontend node, or None) does."""
        t = sym.type
        if init is None:
            return record_declared(co, sym)
        lst = self.as_init_list(init)
        if lst is not None:
            if isinstance(t, (T.Record, T.Array)):
                return aggregate_initializer(co, sym, self.flatten_init(t, lst)[0])
            return [Assign(co, Var(t, sym), self.convert(self.expr(self.scalar_init(lst)), t))]
        if isinstance(t, T.Array):
            raise error(co, f"local array '{sym.name}' is initialized by a string or an expression, not a list",
                        "initialize it with a list: = {...}")
        return [Assign(co, Var(t, sym), self.convert(self.expr(init), t))]

    def static_local(self, co: Coord, name: str, t: T.CType, const: bool, init) -> Symbol:
        """A function-local ``static`` variable: a file-scope one under a file-unique name (its writes
        are refused where they are made); the frontend puts it in its scope."""
        value = None
        if init is not None:
            here, self.here = self.here, co
            try:
                value = self.global_init(init, t)
            finally:
                self.here = here
        sym = local_static(co, name, t, const, value, self.fn_name)
        self.local_statics.append(sym)
        return sym

    # ------------------------------------------------------------------ statements
    def side_effect(self, stmts: list[Stmt], co: Coord, what: str) -> None:
        """Run ``stmts`` before the statement being read: the side effects of an expression."""
        if self.unevaluated:
            return  # (sizeof, typeof: not evaluated)
        if self.before is None:
            raise error(co, f"{what} is not supported here", "write it as a statement of its own")
        if self.conditional:
            raise error(co, f"{what} inside an operand of &&, || or ?: is not supported",
                        "write it as a statement of its own before the condition")
        self.before.extend(stmts)

    def captured(self, read):
        """``read()`` (which reads an expression) and the statements its side effects need first."""
        outer, self.before = self.before, []
        try:
            value = read()
            return value, self.before
        finally:
            self.before = outer

    @contextmanager
    def sometimes(self):
        """Around reading an operand that is evaluated only sometimes (&&, ||, ?:); a context manager,
        not a callback, so that deep nesting takes no more stack frames than before."""
        self.conditional += 1
        try:
            yield
        finally:
            self.conditional -= 1

    @contextmanager
    def never(self):
        """Around reading an operand that is not evaluated (sizeof, typeof, _Generic's controlling one)."""
        self.unevaluated += 1
        try:
            yield
        finally:
            self.unevaluated -= 1

    def expression_statement(self, co: Coord, e: Expr) -> list[Stmt]:
        """An expression statement: kept where it calls a function (``(void) g(x);``, ``g(x) + 1;``: the
        calls stay, for their effects), else type-checked and dropped."""
        if any(isinstance(x, Call) for x in e.walk()):
            return [ExprStmt(co, e)]
        return []

    def return_stmt(self, co: Coord, value: Expr | None) -> list[Stmt]:
        return [Return(co, None if value is None else self.convert(value, self.cur_ret))]

    def do_once(self, co: Coord, body: list[Stmt]) -> list[Stmt]:
        """``do { body } while (0)``: a block."""
        if any(isinstance(s, (Break, Continue)) for s in walk_shallow(body)):
            raise error(co, "'break' or 'continue' inside 'do { } while (0)' is not supported")
        return [Block(co, body)]

    def do_loop(self, co: Coord, body: list[Stmt], cond: Expr, pre: list[Stmt], cond_co: Coord) -> list[Stmt]:
        """``do body while (cond)``; ``pre``: what the condition's side effects run first (refused)."""
        if pre:
            raise error(cond_co, "an assignment or increment in a do-while condition is not supported",
                        "update the variable at the end of the loop body")
        return [Loop(co, "do", cond, body)]

    def while_loop(self, co: Coord, cond: Expr, pre: list[Stmt], body: list[Stmt]) -> list[Stmt]:
        """``while (cond) body``; ``pre``: what the condition's side effects run first."""
        if pre:  # while ((n -= 1) > 0): the update runs before every test
            return [Loop(co, "for", None, [*pre, If(co, Unary(T.INT, "!", cond), [Break(co)], [])] + body)]
        return [Loop(co, "while", cond, body)]

    def for_loop(self, co: Coord, init: list[Stmt], cond: Expr | None, pre: list[Stmt], step: list[Stmt],
                 body: list[Stmt]) -> list[Stmt]:
        """``for (init; cond; step) body``; ``pre``: what the condition's side effects run first."""
        if pre and cond is not None:
            body = [*pre, If(co, Unary(T.INT, "!", cond), [Break(co)], []), *body]
            cond = None
        return [Loop(co, "for", cond, body, init, step)]

    def expect_hint(self, hint: Expr) -> bool | None:
        """The likelihood ``__builtin_expect (c, hint)`` gives an if-condition."""
        v = fold_int(hint)
        return bool(v) if v is not None else None

    def switch_value(self, value: Expr, co: Coord) -> tuple[Expr, int]:
        """A switch's controlling value (promoted) and the switch's number in the function."""
        if not isinstance(value.type, T.Int):
            raise error(co, f"the controlling expression of a 'switch' has type '{value.type}', not an integer type")
        value = self.convert(value, T.promote(value.type))
        self.switch_count += 1
        return value, self.switch_count

    @contextmanager
    def in_switch(self):
        """Around reading a switch's body (where case labels belong)."""
        self.switch_depth += 1
        try:
            yield
        finally:
            self.switch_depth -= 1

    def case_allowed(self, co: Coord, word: str) -> None:
        if not self.switch_depth:
            raise error(co, f"'{word}' label outside a 'switch'")

    def switch_statement(self, co: Coord, value: Expr, number: int, body: list[Stmt]) -> list[Stmt]:
        """``switch (value) body``, ``body`` read with case-label markers: lowered by frontends/statements.py."""

        def temp(t: T.CType) -> Symbol:
            sym = Symbol("switch_value", t, "local", co, temp=True)
            self.locals.append(sym)
            return sym

        return lower_switch(co, value, body, number, temp)

    def asm_assignments(self, co: Coord, outs: list[tuple[str, object]], ins: list[tuple[str, object]]) -> list[Stmt]:
        """An ``asm`` statement with an empty template (glibc's ``math_opt_barrier`` and ``math_force_eval``:
        they order floating-point operations and force their evaluation for the exceptions they raise, which
        expand does not keep), from its operands (constraint, frontend node): an output tied to an input
        (``"=x" (y) : "0" (x)``) is the assignment ``y = x``, a read-write one (``"+m" (y)``) keeps its
        value, and inputs alone do nothing but their calls."""
        result: list[Stmt] = []
        for cons, e in ins:  # (read for their side effects only: a call is still made, before the statement)
            if cons.isdigit():
                continue  # (tied to an output: the assignment below reads it)
            result += effects_only(co, *self.captured(lambda e=e: self.expr(e)))
        for j, (cons, target) in enumerate(outs):
            if cons.startswith("+"):
                continue
            tied = [e for c, e in ins if c == str(j)]
            if not cons.startswith("=") or len(tied) != 1:
                raise error(co, "an empty asm statement that sets an output is supported only with the output tied to"
                            " an input (\"=x\" (y) : \"0\" (x))")
            tgt = self.lvalue(target)
            result.append(Assign(co, tgt, self.convert(self.expr(tied[0]), tgt.type)))
        return result

    def statement_value(self, co: Coord, stmts: list[Stmt], own: set) -> None:
        """The statements of GNU C's ``({ stmts; e; })`` (``own``: its own locals) run before the statement
        being read; then the frontend reads ``e``, the value (glibc's math_opt_barrier and math_narrow_eval)."""
        if self.conditional and all(pure_local_assignment(x, own) for x in stmts):
            self.before.extend(stmts)  # (only its own temporaries: evaluating them always changes nothing)
        else:
            self.side_effect(stmts, co, "a statement expression")

    def bit_copy(self, co: Coord, dst: Expr, src: Expr, n: int | None) -> Assign:
        """``memcpy(&a, &b, sizeof a)`` between same-size scalars: a bit reinterpretation, not memory."""
        if not (dst.type.is_arith() and src.type.is_arith()) or n != dst.type.size() or n != src.type.size():
            raise error(co, "memcpy is only supported between same-size scalar variables",
                        "copy whole int/float values: memcpy(&i, &x, sizeof i)")
        value = src if T.strip_spelling(src.type) == T.strip_spelling(dst.type) else BitCast(dst.type, src)
        return Assign(co, dst, value)

    # ------------------------------------------------------------------ assignments
    def assignable(self, e: Expr, co: Coord) -> Expr:
        """``e`` as the target of an assignment: an lvalue, not a function-local static."""
        if not isinstance(e, (Var, Index, Member)) and not (isinstance(e, Unary) and e.op == "*"):
            raise error(co, "expression is not assignable")
        root = e
        while isinstance(root, (Index, Member)):
            root = root.base
        if isinstance(root, Var):
            written_static(root.sym, co)
        # (an assignment to a global variable: expand/passes/global_writes.py takes it or diagnoses it)
        return e

    def assign(self, co: Coord, target: Expr, op: str, rhs: Expr, right=None) -> Assign:
        """``target op rhs`` (``=``, ``+=``, ...); ``right``: the frontend's node of the right operand as
        converted to the computation type, if it has one."""
        if op != "=":
            rhs = self.binary(op[:-1], target, rhs, co, None, None, right)
        return Assign(co, target, self.convert(rhs, target.type))

    def increment(self, co: Coord, target: Expr, op: str) -> Assign:
        """``++target`` / ``--target`` (``op``: ``+`` or ``-``) as an assignment: the sum in the promoted
        type, converted back."""
        value = self.binary(op, target, Const(T.INT, 1, "1"), co)
        return Assign(co, target, self.convert(value, target.type))

    def assignment_value(self, co: Coord, a: Assign) -> Expr:
        """The value of an assignment inside an expression (the target's new value); it runs first."""
        self.side_effect([a], co, "an assignment inside an expression")
        return a.target

    def increment_value(self, co: Coord, op: str, a: Assign) -> Expr:
        """The value of ``++x`` (the new one) or ``x++`` (``op`` ``p++``: the old one, in a temporary)."""
        if op in ("++", "--"):
            self.side_effect([a], co, f"'{op}' inside an expression")
            return a.target
        old = Symbol(f"{lvalue_name(a.target)}_old", a.target.type, "local", co, temp=True)
        self.locals.append(old)
        self.side_effect([Assign(co, Var(old.type, old), a.target), a], co, f"'{op[1:]}' inside an expression")
        return Var(old.type, old)

    def comma_operand(self, co: Coord, v: Expr) -> None:
        """The left operand of ``(e1, e2)``: kept for its calls' effects."""
        if any(isinstance(x, Call) for x in v.walk()):
            self.side_effect([ExprStmt(co, v)], co, "a call in the left operand of ','")

    # ------------------------------------------------------------------ conversions
    def convert(self, e: Expr, t: T.CType) -> Expr:
        """Implicit conversion of ``e`` to ``t`` (assignment, argument, return)."""
        et = e.type
        if isinstance(t, T.Void):
            return e
        if et == t and not (isinstance(et, T.Int) and isinstance(t, T.Int) and et.is_bool != t.is_bool):
            if isinstance(t, (T.Int, T.Float)) and et.spelling != t.spelling:
                return retype(e, t)
            return e
        if isinstance(t, T.Pointer) and isinstance(et, (T.Array, T.Pointer, T.Func)):
            return e
        if isinstance(t, T.Pointer) and is_null_pointer_constant(e):
            return Const(t, 0, "0")
        if isinstance(t, (T.Int, T.Float)) and isinstance(et, (T.Int, T.Float)):
            if isinstance(e, Const) and isinstance(t, T.Int) and isinstance(e.value, int):
                return Const(t, t.wrap(e.value), e.text)
            return Cast(t, e)
        if isinstance(t, T.Record) and et is t:
            return e
        if isinstance(e, InitList):
            raise error(self.here, "this initializer list is not supported")
        raise error(self.here, f"cannot convert '{et}' to '{t}'")

    def truth(self, e: Expr) -> Expr:
        """``e`` as a C condition (int 0/1 from comparisons, otherwise ``e != 0``; a pointer: ``p != 0``)."""
        if isinstance(e, Binary) and e.op in ("==", "!=", "<", "<=", ">", ">=", "&&", "||"):
            return e
        if isinstance(e, Unary) and e.op == "!":
            return e
        if e.type.is_arith():
            zero = Const(e.type, 0.0 if e.type.is_float() else 0, "0")
            return Binary(T.INT, "!=", e, zero)
        if isinstance(e.type, T.Pointer):
            return Binary(T.INT, "!=", e, Const(e.type, 0, "0"))
        raise error(self.here, f"value of type '{e.type}' used as a condition is not supported")

    def cast(self, t: T.CType, e: Expr, co: Coord) -> Expr:
        """``(t) e``."""
        if isinstance(t, T.Void):
            return e
        if isinstance(t, T.Pointer):
            if isinstance(e.type, (T.Pointer, T.Array)):
                return _PtrCast(t, e)
            if is_null_pointer_constant(e):
                return Const(t, 0, "0")  # (T *) 0, NULL
            raise error(co, "casting an integer to a pointer is not supported")
        if not t.is_arith() or not (e.type.is_arith()):
            raise error(co, f"cast from '{e.type}' to '{t}' is not supported")
        if isinstance(e, Const) and isinstance(t, T.Int) and isinstance(e.value, int):
            return Const(t, t.wrap(e.value), e.text)
        return Cast(t, e)

    # ------------------------------------------------------------------ operators
    def binary(self, op: str, a: Expr, b: Expr, co: Coord, whole=None, left=None, right=None) -> Expr:
        """``a op b`` with C's conversions. ``whole``, ``left``, ``right``: the frontend's nodes of the
        operation and of its operands as converted (for ``confirm``), where it has them."""
        if op in ("&&", "||"):
            return Binary(self.confirm(T.INT, whole, "type"), op, self.truth(a), self.truth(b))
        if op in ("==", "!=") and null_comparison(a, b) is not None:
            p, _ = null_comparison(a, b)
            null = Const(p.type, 0, "0")  # (the null constant in the pointer's type)
            return Binary(self.confirm(T.INT, whole, "type"), op, a if a is p else null, b if b is p else null)
        if isinstance(a.type, (T.Pointer, T.Array)) or isinstance(b.type, (T.Pointer, T.Array)):
            if op in COMPARISONS:
                raise error(co, f"pointer comparison ('{op}') is not supported",
                            "only comparisons of a pointer with a null pointer constant (p == 0) are")
            raise error(co, f"pointer arithmetic ('{op}') is not supported", "index arrays with a[i] instead")
        if not a.type.is_arith() or not b.type.is_arith():
            raise error(co, f"operator '{op}' on '{a.type}' and '{b.type}' is not supported")
        if op in ("<<", ">>"):
            lt, rt = T.promote(a.type), T.promote(b.type)
            if not (lt.is_int() and rt.is_int()):
                raise error(co, "shift of a non-integer")
            lt = self.confirm(lt, left, "promoted type")
            rt = self.confirm(rt, right, "promoted type")
            lt = self.confirm(lt, whole, "type")
            return Binary(lt, op, self.convert(a, lt), self.convert(b, rt))
        t = T.usual_arith(a.type, b.type)
        if op in ("%", "&", "|", "^") and not t.is_int():
            raise error(co, f"operator '{op}' needs integer operands")
        ta = self.confirm(t, left, "converted type")
        tb = self.confirm(t, right, "converted type")
        a, b = self.convert(a, ta), self.convert(b, tb)
        if op in COMPARISONS:
            return Binary(self.confirm(T.INT, whole, "type"), op, a, b)
        if whole is not None:
            t = self.confirm(ta, whole, "type")
        return Binary(t, op, a, b)

    def unary(self, op: str, e: Expr, co: Coord, whole=None, operand=None) -> Expr:
        """``op e`` for ``&``, ``*``, ``!``, ``+``, ``-``, ``~`` (``whole``, ``operand``: as for ``binary``)."""
        if op == "&":
            return Unary(self.confirm(T.Pointer(e.type), whole, "type"), "&", e)
        if op == "*":
            if isinstance(e.type, T.Pointer):
                return Unary(self.confirm(e.type.target, whole, "type"), "*", e)
            if isinstance(e.type, T.Array):
                return Index(self.confirm(e.type.elem, whole, "type"), e, Const(T.INT, 0, "0"))
            raise error(co, "dereference of a value that is not a pointer")
        if op == "!":
            return Unary(self.confirm(T.INT, whole, "type"), "!", self.truth(e))
        if not e.type.is_arith():
            raise error(co, f"operator '{op}' on '{e.type}' is not supported")
        t = T.promote(e.type)
        t = self.confirm(t, operand, "promoted type")
        t = self.confirm(t, whole, "type")
        e = self.convert(e, t)
        if op == "+":
            return e
        if op == "-" and isinstance(e, Const) and isinstance(e.value, int):
            v = t.wrap(-e.value)
            if v == -e.value:
                return Const(t, v, f"-{e.text}")
        if op == "~" and not t.is_int():
            raise error(co, "'~' needs an integer operand")
        return Unary(t, op, e)

    def ternary(self, co: Coord, c: Expr, a: Expr, b: Expr, whole=None, left=None, right=None) -> Expr:
        """``c ? a : b`` (``c`` already a truth value)."""
        if a.type.is_arith() and b.type.is_arith():
            t = T.usual_arith(a.type, b.type)
            t = self.confirm(t, whole, "type")
            ta = self.confirm(t, left, "converted type")
            tb = self.confirm(t, right, "converted type")
            return Cond(t, c, self.convert(a, ta), self.convert(b, tb))
        if a.type == b.type:
            return Cond(a.type, c, a, b)
        raise error(co, "conditional operator with these operand types is not supported")

    def index(self, co: Coord, base: Expr, idx: Expr, whole=None) -> Expr:
        """``base[idx]``."""
        bt = base.type
        if isinstance(bt, (T.Array, T.Pointer)):
            elem = bt.elem if isinstance(bt, T.Array) else bt.target
            if not idx.type.is_int():
                raise error(co, "array subscript is not an integer")
            elem = self.confirm(elem, whole, "type")
            return Index(elem, base, T.promote(idx.type) == idx.type and idx or Cast(T.promote(idx.type), idx))
        raise error(co, "subscripted value is not an array or pointer")

    def member(self, co: Coord, base: Expr, name: str, arrow: bool, whole=None) -> Expr:
        """``base.name`` or ``base->name``."""
        bt = base.type
        if arrow:
            if not isinstance(bt, T.Pointer) or not isinstance(bt.target, T.Record):
                raise error(co, "'->' on a value that is not a pointer to a struct or union")
            rec = bt.target
        else:
            if not isinstance(bt, T.Record):
                raise error(co, "'.' on a value that is not a struct or union")
            rec = bt
        ft = rec.field_type(name)
        if ft is None:
            raise error(co, f"no member named '{name}'")
        return Member(self.confirm(ft, whole, "type"), base, name, arrow)

    # ------------------------------------------------------------------ constants
    def int_literal(self, text: str, co: Coord, whole=None, value: int | float | None = None) -> Const:
        """An integer literal as written: its type by C11 6.4.4.1 on LP64 (``value``: the frontend's own
        reading of it, which wins)."""
        if literal_value(text) is None:
            raise error(co, f"cannot read constant '{text}'")
        t = literal_type(text)
        if t is None:
            raise error(co, f"integer constant '{text}' is too large")
        t = self.confirm(t, whole, "type")
        v = value if isinstance(value, int) else literal_value(text)
        return Const(t, t.wrap(v) if isinstance(t, T.Int) else v, text)

    def float_literal(self, text: str, co: Coord, long_double: bool = False, whole=None,
                      value: float | None = None) -> Const:
        """A floating literal as written (``long_double``: the frontend reads it as ``long double``;
        ``value``: the frontend's own reading of it, which wins)."""
        body, suffix = (text[:-1], text[-1].lower()) if text[-1] in "fFlL" else (text, "")
        if suffix == "l" or long_double:
            raise error(co, "long double constants are not supported")
        v = value if value is not None else float.fromhex(body) if body.lower().startswith("0x") else float(body)
        if suffix == "f":
            return Const(self.confirm(T.FLOAT, whole, "type"), T.float32(v), text)
        return Const(self.confirm(T.DOUBLE, whole, "type"), v, text)

    def char_literal(self, text: str, co: Coord) -> tuple[T.Int, int]:
        """A character constant's type and value for the target."""
        try:
            return T.char_constant(text, self.target)
        except T.CharConstantError as exc:
            raise error(co, str(exc)) from None

    # ------------------------------------------------------------------ calls
    def nan_value(self, co: Coord, name: str, nargs: int, literal: str | None) -> Expr | None:
        """The constant of a NaN builtin's call (``__builtin_nan[s][f]``, whose one argument must be a string
        literal, and the library's ``nan``/``nanf`` called with one, which GCC folds to the same constant,
        unless the file defines them), else None. ``literal``: the call's one argument as written, when it
        is a string literal."""
        if name in builtins.NANS:
            if nargs != 1 or literal is None:
                raise error(co, f"'{name}' takes one string literal")
            return builtins.nan_constant(name, literal, co)
        if name in builtins.NAN_FUNCTIONS and nargs == 1 and literal is not None \
                and not getattr(self.globals.get(name), "defined_here", False):
            return builtins.nan_constant(builtins.NAN_FUNCTIONS[name], literal, co)
        return None

    def builtin_value(self, co: Coord, name: str, args: list[Expr]) -> Expr | None:
        """The value of builtin ``name`` that is no call (``__builtin_expect``, the classification,
        comparison, constant and bit builtins of frontends/builtins.py), else None."""
        if name == "__builtin_expect":
            return args[0]
        if name in builtins.GCC_BUILTIN_FUNCTIONS and not getattr(self.globals.get(name), "defined_here", False):
            # (GCC's builtin, not the library: isinff(-inf) is 1; Clang's is the library's value, -1)
            clang_sign = self.target.clang_builtins and name in ("isinff", "isinf")
            name = "__builtin_isinf_sign" if clang_sign else builtins.GCC_BUILTIN_FUNCTIONS[name]
        if builtins.is_math_builtin(name):
            return builtins.math_builtin(name, args, co, self.target.clang_builtins)
        return None

    def call_function(self, co: Coord, name: str, args: list[Expr], local: object = None, whole=None,
             arg_nodes: list | None = None) -> Expr:
        """A call of function ``name`` with ``args`` (``local``: a local of that name, if any: then a call
        through a pointer, refused); ``whole``, ``arg_nodes``: as for ``binary``."""
        if local is not None:
            if not function_pointer(getattr(local, "type", None)):
                raise error(co, f"called object '{name}' is not a function")
            raise error(co, f"call through function pointer '{name}' cannot be vectorized",
                        "call the function by name")
        sig = math_signature(name)  # libm builtins, and libm calls without a prototype
        if sig is not None and len(args) == len(sig[1]) and (name.startswith("__builtin_") or name not in self.globals):
            return Call(sig[0], name, [self.convert(a, pt) for a, pt in zip(args, sig[1])], co)
        alias = builtins.libm_alias(name)  # __builtin_roundf: roundf's types (the name needs no prototype)
        if alias is not None and len(args) == len(alias[2]):
            return Call(alias[1], name, [self.convert(a, pt) for a, pt in zip(args, alias[2])], co)
        if name in NONLOCAL_JUMPS:
            raise error(co, f"'{name}' (non-local jumps) cannot be vectorized",
                        "keep setjmp/longjmp in the scalar caller")
        if name.startswith("__builtin_"):
            raise error(co, f"builtin '{name}' is not supported")
        if name not in self.globals:
            raise error(co, f"call to undeclared function '{name}'")
        ft = self.global_symbol(name).type
        if not isinstance(ft, T.Func):
            if not function_pointer(ft):
                raise error(co, f"called object '{name}' is not a function")
            raise error(co, f"call through function pointer '{name}' cannot be vectorized",
                        "call the function by name")
        if ft.variadic:
            raise error(co, f"call to variadic function '{name}' cannot be vectorized")
        if len(args) != len(ft.params):
            raise error(co, f"'{name}' takes {len(ft.params)} arguments, {len(args)} given")
        nodes = arg_nodes if arg_nodes is not None else [None] * len(args)
        args = [self.convert(a, self.confirm(pt, n, "argument type")) for a, pt, n in zip(args, ft.params, nodes)]
        return Call(self.confirm(ft.ret, whole, "type"), name, args, co)

    @abstractmethod
    def global_symbol(self, name: str) -> Symbol:
        """File-scope ``name``'s Symbol, its type resolved."""
