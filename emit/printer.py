"""The C printer: an if-converted function becomes vector C through one ISA table.

Uniform values print as plain scalar C; varying values go through the table (``isa``); a uniform
value meeting a varying one is broadcast (``splat``). Each group of statements is headed by a
comment with the scalar source line it came from.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from pathlib import Path

from expand.analysis.ranges import (
    Facts,
    count_in_range,
    index_bound,
    may_overflow_conversion,
    range_facts,
    shift_width,
    whole_array,
)
from expand.analysis.shapes import Shapes
from expand.ir import types as T
from expand.ir.cprint import cdecl, cexpr, const_text, literal_value
from expand.ir.diagnostics import ExpandError, Remark, error
from expand.ir.libc import ERRNO, LIBM, MATH_ERRNO, STORES_ERRNO_HIDDEN, UNSET, WRITE, libm_name, may_set_errno
from expand.ir.nodes import (
    MASK,
    Assign,
    Binary,
    BitCast,
    BreakIf,
    BreakIfNone,
    Call,
    Cast,
    Cond,
    Const,
    Coord,
    Expr,
    ExprStmt,
    Guard,
    Index,
    MaskedLoop,
    MathOp,
    Member,
    Stmt,
    Symbol,
    Unary,
    UniformIf,
    Var,
    flatten,
    int_const,
    is_local_array,
    map_expr,
    may_fault_read,
    next_free_name,
    stmt_exprs,
    vars_read,
)
from predication.ifconvert import Linear

from .isa import TableRead, is_float, kind_bits, lane_kind, negated, scalar_ctype

CMP = ("==", "!=", "<", "<=", ">", ">=")


def declare(t: T.CType, name: str) -> str:
    """A C declaration of ``name`` with scalar type ``t``."""
    return cdecl(t, name)


def read_before_written(stmts: list[Stmt]) -> set[Symbol]:
    """Variables whose first mention in the linear program reads them (a blend's old value, a
    loop-carried value) or that are written only under a BOSCC guard, rather than written in every
    lane first."""
    seen: set[Symbol] = set()
    log: list[Symbol] = []  # the members of ``seen`` in the order they came in: what a guard's body added
    early: set[Symbol] = set()

    def add(vs) -> None:
        for v in vs:
            if v not in seen:
                seen.add(v)
                log.append(v)

    def visit(stmts: list[Stmt], guarded: bool) -> None:
        for s in stmts:
            if isinstance(s, UniformIf):  # written on one side only: maybe not at all
                cond = vars_read(s.cond)
                early.update(cond - seen)
                add(cond)
                mark = len(log)
                visit(s.then, True)
                on_then = set(log[mark:])
                seen.difference_update(on_then)
                del log[mark:]
                visit(s.els, True)
                on_else = set(log[mark:])
                add(on_then)
                early.update(on_then ^ on_else)
                continue
            if isinstance(s, Guard):
                mark = len(log)
                visit(s.body, True)
                visit(s.all_body or [], True)
                early.update(log[mark:])
                continue
            if isinstance(s, MaskedLoop):
                visit(s.body, guarded)
                continue
            reads: set[Symbol] = set()
            if isinstance(s, Assign):
                reads = vars_read(s.value) | (vars_read(s.target) if not isinstance(s.target, Var) else set())
                if isinstance(s.target, Var) and s.blend:
                    reads.add(s.target.sym)
            elif isinstance(s, ExprStmt):
                reads = vars_read(s.expr)
            elif isinstance(s, BreakIf):
                reads = vars_read(s.cond)
            elif isinstance(s, BreakIfNone):
                reads = {s.mask}
            early.update(reads - seen)
            add(reads)
            if isinstance(s, Assign) and isinstance(s.target, Var):
                add((s.target.sym,))

    visit(stmts, False)
    return early


def _layout_problem(e: Expr) -> bool:
    """A record on the way of the read ``e`` whose layout may not be C's natural one."""
    return any(isinstance(t, T.Record) and t.layout_problem
               for n in e.walk() if isinstance(n, (Index, Member)) for t in (n.type, n.base.type))


def _accessed_name(e: Expr) -> str:
    """The name of what a memory access reads: its last member, else its array or pointer variable."""
    while isinstance(e, (Index, Member)):
        if isinstance(e, Member):
            return e.name
        e = e.base
    return e.sym.name.strip("_") if isinstance(e, Var) else "mem"


def _read_what(e: Expr) -> str:
    """How a remark names a read: a struct's field by its path and the element it is in (``field 'a' of
    's[i]'``, ``field 'bounds[1][2]' of 'nodes[i]'``), anything else by what it reads (``'tab'``)."""
    elem = None
    n = e
    while isinstance(n, (Index, Member)):
        if isinstance(n, Index) and isinstance(n.type, T.Record):
            elem = n
        n = n.base
    if elem is None or elem is e:
        return f"'{_accessed_name(e)}'"
    whole, at = cexpr(e), cexpr(elem)
    return f"field '{whole[len(at):].lstrip('.')}' of '{at}'"


def _shared_root(e: Expr, shapes: Shapes) -> bool:
    """The access path ``e`` (``s[i].a``, ``G[i].f[j]``, ``p->n``) starts from memory every lane shares: a
    global, or a uniform pointer parameter."""
    while isinstance(e, (Index, Member)) or isinstance(e, Unary) and e.op == "*":
        e = e.operand if isinstance(e, Unary) else e.base
    return isinstance(e, Var) and not shapes.varying(e) and (
        e.sym.kind == "global" or e.sym.kind == "param" and isinstance(e.sym.type, T.Pointer))


def _record_field(e: Expr) -> bool:
    """Whether the read ``e`` is (part of) a field of a record of an array (``T[i].f``, ``T[i].b[0][1]``)."""
    while isinstance(e, (Index, Member)):
        if isinstance(e, Member):
            return True
        e = e.base
    return False


def _read_name(e: Expr) -> str:
    """The name of a variable holding a read through a pointer: its pointer and members (``s_a`` for
    ``s[i].a``, ``nodes_bounds`` for ``nodes[i].bounds[1][2]``, ``tab_at`` for ``tab[i]``)."""
    members: list[str] = []
    while isinstance(e, (Index, Member)):
        if isinstance(e, Member):
            members.append(e.name)
        e = e.base
    root = e.sym.name.strip("_") if isinstance(e, Var) else "mem"
    return "_".join([root, *reversed(members)]) if members else f"{root}_at"


#: Stands for "some lane is on" in ``_divisor_tested``'s expressions (printed as the mask test).
_ANY_ON = Symbol("any_on", T.INT, "local")


def _divisor_tested(n: Expr) -> Expr:
    """An integer division (its divisor not a nonzero literal) with ``any_on ? divisor : 1`` as its
    divisor: GCC folds a divisor it can see is 0 (``(uint8_t)0.1f``, a ``static const int`` that is
    0, ``(int)((unsigned)i - (unsigned)i)``) and warns about a division by zero (-Wdiv-by-zero) even
    where the division runs only when some lane is on, which no lane is when the scalar code's test
    excluded the zero (tests/fuzz_regressions/uniform_division_constant_zero.c; fuzz 20261126-820).
    A variable (under casts) needs none: C's front end folds expressions, not what a variable holds."""
    d = n.right if isinstance(n, Binary) else None
    while isinstance(d, Cast):
        d = d.operand
    if isinstance(n, Binary) and n.op in ("/", "%") and n.type.is_int() and not isinstance(d, Var) \
            and not (isinstance(n.right, Const) and n.right.value != 0):
        r = n.right
        return Binary(n.type, n.op, n.left, Cond(r.type, Var(T.INT, _ANY_ON), r, Const(r.type, 1, "1")))
    return n


def shift_counts_masked(e: Expr, facts: Facts | None = None) -> Expr:
    """``e`` with the count of each shift not known to be in range (``count_in_range``, the tests of its ``?:``
    and ``&&`` taken into account) masked into it: ``y << (n & 31)``, the same value wherever the scalar
    code's shift was defined (and what x86's and RISC-V's scalar shifts give where it was not). For uniform C
    that runs where the scalar code may not have (under a mask no lane may be on, in the arm of a varying
    ``?:``): a shift by the width or more, or by a negative count, is undefined in C, and Clang makes poison
    of it, which the select dropping the value does not stop (``if (x > 100u && n < 32) r = y << n;`` with
    ``n`` 40: Clang 16 folded the function into ``ret poison``)."""
    if not any(isinstance(x, Binary) and x.op in ("<<", ">>") for x in e.walk()):
        return e
    facts = {} if facts is None else facts
    if isinstance(e, Cond):
        then = shift_counts_masked(e.then, range_facts(e.cond, facts))
        return Cond(e.type, shift_counts_masked(e.cond, facts), then, shift_counts_masked(e.els, facts))
    if isinstance(e, Binary):
        left = shift_counts_masked(e.left, facts)
        right = shift_counts_masked(e.right, range_facts(e.left, facts) if e.op == "&&" else facts)
        if e.op in ("<<", ">>") and isinstance(e.type, T.Int) and not count_in_range(e.right, shift_width(e), facts):
            t = T.promote(right.type)
            right = Binary(t, "&", right, Const(t, shift_width(e) - 1, str(shift_width(e) - 1)))
        return Binary(e.type, e.op, left, right)
    changed = {}
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, Expr):
            changed[f.name] = shift_counts_masked(v, facts)
        elif isinstance(v, list):
            changed[f.name] = [shift_counts_masked(x, facts) if isinstance(x, Expr) else
                               (x[0], shift_counts_masked(x[1], facts)) if isinstance(x, tuple) and len(x) == 2
                               and isinstance(x[1], Expr) else x for x in v]
    return dataclasses.replace(e, **changed)


def _same_value(x: Expr, y: Expr) -> bool:
    """``x`` and ``y`` are the same expression without calls (``MAX(a * b, c)``'s two ``a * b``): the
    same variables, equal constants of one type, the same operators, fields and types, node for node."""
    if type(x) is not type(y) or x.type != y.type:
        return False
    if isinstance(x, Var):
        return x.sym is y.sym
    if isinstance(x, Const):
        return x.value == y.value and str(x.value) == str(y.value)
    if isinstance(x, (Unary, Binary)) and x.op != y.op or isinstance(x, MathOp) and x.op != y.op \
            or isinstance(x, Member) and (x.name, x.arrow) != (y.name, y.arrow):
        return False
    if not isinstance(x, (Unary, Binary, Cast, BitCast, MathOp, Member, Index)) \
            or isinstance(x, Unary) and x.op == "&":
        return False  # (calls, conditionals and the rest: not matched)
    xs, ys = x.children(), y.children()
    return len(xs) == len(ys) and all(_same_value(a, b) for a, b in zip(xs, ys))


class FunctionPrinter:
    def __init__(self, isa, lin: Linear, shapes: Shapes, prefix: str, expandable: set[str]) -> None:
        self.isa = isa
        self.lin = lin
        self.sh = shapes
        self.prefix = prefix
        self.expandable = expandable
        self.lines: list[str] = []
        self.indent = "    "
        self.cur_mask: Symbol | None = None
        # While printing what the vector code computes in every lane but the scalar code only where a varying
        # test lets it (the arms of a varying ?:, the right operand of a varying && or ||): for each such test
        # around it, what gives the mask of the lanes it lets through (``speculated``, ``arm_mask``)
        self.arms: list[Callable[[], str]] = []
        self.tmp_count = 0
        self.extra_decls: list[str] = []
        self.used_names = {s.name for s in lin.fn.locals} | {p.name for p in lin.fn.params}  # (only grows)
        self.fresh_start: dict[str, int] = {}  # (next_free_name's search starts)
        # (and the globals the function reads: a fresh 'cond' or 'e' must not hide a table of that name)
        exprs = [e for s in flatten(lin.stmts) for e in stmt_exprs(s)]
        if lin.ret.value is not None:
            exprs.append(lin.ret.value)
        self.used_names |= {v.name for e in exprs for v in vars_read(e)}
        self._src_cache: dict[str, list[str]] = {}
        # Globals kept per lane (expand/passes/global_writes.py): name -> (symbol, the highest lane that wrote it so
        # far, -1 for none, and that lane's value); errno's value from the entry, for when no lane sets it.
        self.tracked: dict[str, tuple[Symbol, str, str]] = {
            g.name: (g, self.fresh(f"{g.name}_lane"), self.fresh(f"{g.name}_value")) for g in lin.fn.tracked}
        self.errno_entry = self.fresh("errno_entry") if ERRNO in self.tracked else ""
        # errno's calls: every call that may set it, and those printed as per-lane calls that put errno back
        # as they found it unless a lane set it (then errno needs no read at the entry: ``errno_restored``)
        # (a sqrt, or an fma, may be a libm call per lane, inactive lanes too: it counts as one not put back)
        self.errno_calls = [n for e in exprs for n in e.walk() if isinstance(n, Call)
                            and n.func not in (WRITE, MATH_ERRNO) and may_set_errno(n.func)
                            or isinstance(n, MathOp) and n.op in ("sqrt", "fma")]
        self.errno_calls_restored: set[int] = set()
        self.errno_written = any(isinstance(n, Call) and (n.func == MATH_ERRNO or n.func == WRITE and isinstance(
            n.args[0], Var) and n.args[0].sym.name == ERRNO) for e in exprs for n in e.walk())
        self.errno_before = ""  # (the name of errno's value before a per-lane call's loop, chosen once)
        self.entry: Symbol | None = None  # a masked variant's entry mask (set by ``function``)
        self.at: Coord | None = None  # the statement being printed (for --remarks)
        # The statement being printed: its varying subscripts (C text -> how many reads use it), and what it
        # has named so far (an index's lanes, a mask's bits: key -> variable), which its other reads reuse.
        self.index_uses: dict[str, int] = {}
        self.named: dict[tuple[str, ...], str] = {}
        self.whole: Expr | None = None  # the statement's value (a read that is all of it needs no name)
        self.loop_depth = 0  # (divergent loops around the statement being printed)
        # Names an earlier statement of the same run of plain statements declared for a value that only
        # depends on variables (an index gang, its first lane, a same-index test): key -> (name, the
        # variables it reads); an assignment to one of them, a call, or a statement with a body ends it.
        self.carried: dict[tuple[str, ...], tuple[str, frozenset[str]]] = {}
        self.stmt_indent = ""  # (the indentation of the statement being printed)

    # ------------------------------------------------------------------ helpers
    def k(self, t: T.CType) -> str:
        try:
            return lane_kind(t)
        except TypeError:
            raise error(None, f"values of type '{t}' cannot be vectorized",
                        "vectorize int and floating-point values; pointers only as parameters (p[i], *p)") from None

    def fresh(self, base: str) -> str:
        return next_free_name(base, self.used_names, self.fresh_start)

    def source_line(self, coord) -> str:
        if coord is None:
            return ""
        lines = self._src_cache.get(coord.file)
        if lines is None:
            try:
                lines = Path(coord.file).read_text(errors="replace").splitlines()
            except OSError:
                lines = []
            if coord.file == self.lin.fn.coord.file and not lines:
                lines = []
            self._src_cache[coord.file] = lines
        if 0 < coord.line <= len(lines):
            text = re.sub(r"/\*.*?(\*/|$)", "", lines[coord.line - 1])
            text = text.split("//")[0]
            return " ".join(text.split()).replace("/*", "/ *").replace("*/", "* /")
        return ""

    # ------------------------------------------------------------------ expressions
    def scalar(self, e: Expr) -> str:
        """A uniform expression as scalar C. Under a partial mask, a uniform integer division, memory
        read (a table at a uniform index that may be out of bounds when no lane reads it: a scalar loop
        counter past its end) or conversion of a floating value to an integer (``may_overflow_conversion``)
        runs only if some lane is on (if one is, the scalar code did the same); under the entry mask of a
        masked variant (some lane is on) reads and conversions need no test. There, and where the vector code
        speculates (``arms``), a shift's count not known in range is masked into it (``shift_counts_masked``:
        no test needed, the value is the scalar code's wherever that shifted); where it speculates, such a
        conversion runs only if some lane takes the arm (``arm_mask``: the mask around it does not say)."""
        m = self.cur_mask
        if self.arms or m is not None and m is not self.entry:
            e = shift_counts_masked(e)
        arm = self.isa.mask_any(self.arm_mask()) if self.arms and may_overflow_conversion(e) else None
        if m is None:
            return f"({arm} ? {cexpr(e)} : 0)" if arm else cexpr(e)
        any_on = self.isa.mask_any(m.name)
        text = cexpr(map_expr(e, _divisor_tested), lambda s: any_on if s is _ANY_ON else s.name)
        if any(isinstance(n, Binary) and n.op in ("/", "%") and n.type.is_int()
               or m is not self.entry and may_fault_read(n) for n in e.walk()) \
                or m is not self.entry and may_overflow_conversion(e) and not arm:
            text = f"({any_on} ? {text} : 0)"
        return f"({arm} ? {text} : 0)" if arm else text

    def speculated(self, e: Expr, when: Callable[[], str], how: Callable[[Expr], str] | None = None) -> str:
        """``how(e)`` (``scalar`` by default) for a value the vector code computes in every lane where the
        scalar code computed it only in the lanes of the mask ``when()`` gives (asked for only if needed)."""
        self.arms.append(when)
        try:
            return (how or self.scalar)(e)
        finally:
            self.arms.pop()

    def arm_mask(self) -> str:
        """A variable (declared before the statement) holding the mask of the lanes in which the scalar code
        evaluates what is being printed: the current mask and the tests of the arms around it."""
        arms, whole = self.arms, self.cur_mask.name if self.cur_mask is not None else None
        try:
            for i, when in enumerate(arms):
                self.arms = arms[:i]  # (the test of an arm is printed where the arms around it are)
                whole = when() if whole is None else self.isa.mask_and(whole, when())
        finally:
            self.arms = arms
        return self.name_once(("arm", whole), self.isa.mask_type(), "arm", whole)

    def splat_const(self, c: Const, k: str) -> str:
        """A broadcast constant, spelled as in the source where that spelling has the lane's value."""
        if isinstance(c.value, float):
            return self.isa.splat(k, const_text(c))
        if k[0] == "f":
            return self.isa.splat(k, f"{c.value}.0" if abs(c.value) < 2**53 else const_text(c))
        text = c.text or str(c.value)
        lv = literal_value(text)
        bits = int(k[1:])
        # (a literal wider than the lane, such as 0xffffUL for a uint8_t lane, is spelled by its value:
        # passed to a helper's uint8_t parameter it would be a -Woverflow error)
        if lv is not None and (lv - c.value) % (1 << bits) == 0 and -(1 << (bits - 1)) <= lv < (1 << bits):
            return self.isa.splat(k, text)
        return self.isa.splat(k, const_text(c))

    def minmax(self, e: Cond, k: str) -> str | None:
        """``a < b ? a : b``, ``a < b ? b : a`` and the like (a clamp, a ``larger`` helper, a ``MAX`` macro on
        expressions without calls) as the ISA's min or max instruction where it computes exactly that
        (``Isa.minmax``; floats: only ``<`` and ``>``, whose false arm takes NaNs and ties); else None."""
        c = e.cond
        if not isinstance(c, Binary) or c.op not in ("<", ">", "<=", ">=") or is_float(k) and c.op in ("<=", ">="):
            return None
        a, b = c.left, c.right
        try:
            if self.k(a.type) != k or self.k(b.type) != k:
                return None
        except ExpandError:
            return None
        less = c.op in ("<", "<=")
        if _same_value(e.then, a) and _same_value(e.els, b):  # a < b ? a : b: min(a, b)
            op = "min" if less else "max"
        elif _same_value(e.then, b) and _same_value(e.els, a):  # a < b ? b : a = b > a ? b : a: max(b, a)
            op, a, b = "max" if less else "min", b, a
        else:
            return None
        return self.isa.minmax(op, k, self.vec(a), self.vec(b))

    def vec(self, e: Expr) -> str:
        """``e`` as a vector of its lane kind (broadcast if uniform)."""
        if isinstance(e.type, type(MASK)):
            return self.mask(e)
        k = self.k(e.type)
        shape = self.sh.shape(e)
        if shape == "uniform":
            if isinstance(e, Const):
                return self.splat_const(e, k)
            return self.isa.splat(k, self.scalar(e))
        if shape == "consecutive":  # lane l = lane 0's value + l
            iota = self.isa.build(k, [str(lane) for lane in range(self.isa.lanes)])
            return self.isa.binop("+", k, self.isa.splat(k, self.scalar(e)), iota)
        return self.varying(e, k)

    def varying(self, e: Expr, k: str) -> str:
        isa = self.isa
        if isinstance(e, Var):
            return e.sym.name
        if isinstance(e, Binary):
            if e.op in CMP or e.op in ("&&", "||"):
                return isa.mask_to_int(self.mask(e)) if k == "i32" else \
                    isa.convert("i32", k, isa.mask_to_int(self.mask(e)))
            if e.op in ("<<", ">>"):
                # (a count out of range in some lane, inactive or not: the table makes it one it takes)
                known = count_in_range(e.right, shift_width(e))
                if not self.sh.varying(e.right):
                    n = self.scalar(e.right)
                    return isa.shift(e.op, k, self.vec(e.left), n if known else isa.shift_count(k, n, True), True)
                n = self.vec(e.right)
                rk = self.k(e.right.type)
                if rk != k:
                    n = isa.convert(rk, k, n)
                return isa.shift(e.op, k, self.vec(e.left), n if known else isa.shift_count(k, n, False), False)
            r = e.right
            if e.op in ("%", "/") and k[0] == "u" and isinstance(r, Const) and r.value > 0 \
                    and r.value & (r.value - 1) == 0:
                if e.op == "%":
                    return isa.binop("&", k, self.vec(e.left), isa.splat(k, hex(r.value - 1)))
                return isa.shift(">>", k, self.vec(e.left), str(r.value.bit_length() - 1), True)
            a, b = self.vec(e.left), self.vec(e.right)
            if e.op in ("/", "%") and k[0] != "f" and self.cur_mask is not None:
                b = isa.select(k, self.cur_mask.name, b, isa.splat(k, "1"))
            return isa.binop(e.op, k, a, b)
        if isinstance(e, Unary):
            if e.op == "!":
                as_int = isa.mask_to_int(self.mask(e))
                return as_int if k == "i32" else isa.convert("i32", k, as_int)
            if e.op == "*":
                return self.load(e, k)
            return isa.unop(e.op, k, self.vec(e.operand))
        if isinstance(e, Cond):
            minmax = self.minmax(e, k)
            if minmax is not None:
                return minmax
            m = self.mask(e.cond)
            return isa.select(k, m, self.speculated(e.then, lambda: m, self.vec),
                              self.speculated(e.els, lambda: isa.mask_not(m), self.vec))
        if isinstance(e, Cast):
            sk = self.k(e.operand.type)
            v = self.vec(e.operand)
            if isinstance(e.type, T.Int) and e.type.is_bool:
                as_int = isa.mask_to_int(isa.int_to_mask(sk, v))
                return as_int if k == "i32" else isa.convert("i32", k, as_int)
            return v if sk == k else isa.convert(sk, k, v)
        if isinstance(e, BitCast):
            sk = self.k(e.operand.type)
            v = self.vec(e.operand)
            return v if sk == k else isa.bitcast(sk, k, v)
        if isinstance(e, Index) and isinstance(e.base, Var) and self.lane_array(e.base.sym):
            return self.array_read(e, k)
        if isinstance(e, (Index, Member)):
            return self.gather(e, k)
        if isinstance(e, MathOp):
            return isa.math(e.op, k, [self.vec(a) for a in e.args])
        if isinstance(e, Call):
            raise error(e.coord, f"internal: call to '{e.func}' inside an expression")
        raise error(None, f"cannot vectorize expression {type(e).__name__}")

    def load(self, e: Unary, k: str) -> str:
        p = e.operand
        if isinstance(p, Var) and p.sym.kind == "param":
            return self.isa.load(k, p.sym.name)
        raise error(None, "only dereferences of pointer parameters can be vectorized",
                    "pass the value itself, or a pointer parameter")

    def on_bits(self) -> str:
        """A scalar holding the current mask's lane bits (declared before the statement, once per statement)."""
        key = ("on", self.cur_mask.name)
        if key not in self.named:
            name = self.fresh("on")
            self.lines.append(f"{self.indent}unsigned {name} = {self.isa.mask_bits(self.cur_mask.name)};")
            self.named[key] = name
        return self.named[key]

    def start_statement(self, exprs: list[Expr], whole: Expr | None = None) -> None:
        """Forget what the last statement named; count the reads of each varying subscript in ``exprs``;
        ``whole``: the statement's value."""
        self.named = {}
        self.index_uses = {}
        self.whole = whole
        for e in exprs:
            for n in e.walk():
                if isinstance(n, Index) and self.sh.varying(n.index):
                    key = cexpr(n.index)
                    self.index_uses[key] = self.index_uses.get(key, 0) + 1

    def name_once(self, key: tuple[str, ...], vtype: str, base: str, text: str | Callable[[], str],
                  deps: frozenset[str] | None = None) -> str:
        """A variable of C type ``vtype`` holding ``text``, declared before the statement the first time
        ``key`` is asked for in it (named after ``base``), the same variable after that. ``text`` may be a
        function making it (and the lines it needs first), called only then. ``deps``: the variables
        ``text`` reads, when it reads nothing else (no memory): then later statements of the same run
        reuse the name (``carried``) until one of them is assigned."""
        mask = self.cur_mask.name if self.cur_mask is not None else ""
        key = (*key, mask)
        if key not in self.named and deps is not None and key in self.carried:
            self.named[key] = self.carried[key][0]
        if key not in self.named:
            value = text if isinstance(text, str) else text()
            name = self.fresh(base)
            self.lines.append(f"{self.indent}{vtype} {name} = {value};")
            self.named[key] = name
            if deps is not None and self.indent == self.stmt_indent:  # (not declared inside a block of its own)
                deps = deps | {mask} if mask else deps
                self.carried[key] = (name, deps)
        return self.named[key]

    def index_gang(self, key: tuple[str, ...], idx: Expr, base: str) -> str:
        """The gang of the varying index ``idx`` with the lanes off (under the current mask) holding 0, named
        once (``base``), carried to later statements where it reads only variables."""
        isa = self.isa
        ik = self.k(idx.type)
        v = self.vec(idx)
        if self.cur_mask is not None:
            v = isa.select(ik, self.cur_mask.name, v, isa.splat(ik, "0"))
        return self.name_once(key, isa.vtype(ik), base, v, self.pure_deps(idx))

    def pure_deps(self, e: Expr) -> frozenset[str] | None:
        """The variables ``e`` reads when it reads nothing else (no memory, no call), else None."""
        if any(isinstance(n, (Index, Member, Call)) or isinstance(n, Unary) and n.op == "*" for n in e.walk()):
            return None
        return frozenset(v.name for v in vars_read(e))

    def through_pointer(self, e: Expr) -> Symbol | None:
        """The uniform pointer parameter a varying read ``e`` goes through (``s[i].a``, ``p[k]``), or None."""
        while isinstance(e, (Index, Member)):
            e = e.base
        if isinstance(e, Var) and e.sym.kind == "param" and isinstance(e.sym.type, T.Pointer) \
                and not self.sh.varying(e):
            return e.sym
        return None

    def index_lanes(self, idx: Expr, base: Expr) -> str:
        """A scalar array holding the lanes of varying subscript ``idx`` (of an access to ``base``), stored once
        per statement."""
        key = ("lanes", cexpr(idx), self.cur_mask.name if self.cur_mask is not None else "")
        if key not in self.named:
            ik = self.k(idx.type)
            name = self.fresh(f"{_accessed_name(base)}_idx")
            self.lines.append(f"{self.indent}{scalar_ctype(ik)} {name}[{self.isa.lanes}];")
            self.lines.append(f"{self.indent}{self.isa.storeu(ik, name, self.vec(idx))};")
            self.named[key] = name
        return self.named[key]

    def pointer_lanes(self, e: Expr, k: str) -> str:
        """A read through a uniform pointer parameter at an address that differs per lane, lane by lane and
        named after what it reads (``s_a = s[s_idx[0]].a, ...``): each varying subscript's lanes in a scalar
        array, once per statement; under a mask only the active lanes read (the pointer's element 0 need not
        exist: no inactive lane touches memory)."""
        isa = self.isa

        def lane_text(n: Expr, lane: int, at: str | None = None) -> str:
            """Lane ``lane``'s read ``n``; ``at``: a scalar index for the varying one instead."""
            if not self.sh.varying(n):
                return cexpr(n)
            if isinstance(n, Index):
                base = lane_text(n.base, lane, at)
                if not self.sh.varying(n.index):
                    return f"{base}[{cexpr(n.index)}]"
                if at is not None:
                    return f"{base}[{at}]"
                return f"{base}[{self.index_lanes(n.index, n.base)}[{lane}]]"
            if isinstance(n, Member):
                return f"{lane_text(n.base, lane, at)}{'->' if n.arrow else '.'}{n.name}"
            raise error(None, "this varying memory access is not supported yet")

        lanes = [lane_text(e, lane) for lane in range(isa.lanes)]
        if self.cur_mask is not None:
            on = self.on_bits()
            lanes = [f"({on} >> {lane} & 1) ? {t} : 0" for lane, t in enumerate(lanes)]
        text = isa.build(k, lanes)
        terms = self.varying_subscripts(e)
        if not (self.loop_depth and _record_field(e) and terms is not None and len(terms) == 1
                and kind_bits(self.k(terms[0].index.type)) == 32):
            self.per_lane_remark(e)
        else:
            idx = terms[0].index
            ik = self.k(idx.type)
            name = self.index_gang(("index", cexpr(idx)), idx, f"{_accessed_name(terms[0].base)}_idx")
            # (with no lane on the read at lane 0's index would read element 0, which need not exist)
            text = self.coherent(e, k, ik, name, lambda at: lane_text(e, 0, at), text,
                                 None if self.cur_mask is None else f"{self.on_bits()} != 0")
        if e is self.whole:  # (z = s[i].a: the variable names it)
            return text
        return self.name_once(("read", cexpr(e)), isa.vtype(k), _read_name(e), text)

    def gather(self, e: Expr, k: str) -> str:
        """A read with a varying index: one vector load when the index is consecutive, else a gather
        through the table (``Isa.gather``: gather instructions where the ISA has them, else one scalar
        load per lane); inactive lanes never touch memory (the per-lane reads read index 0 there)."""
        if isinstance(e, Index) and not self.sh.varying(e.base) and self.sh.shape(e.index) == "consecutive":
            base, i0 = cexpr(e.base), self.scalar(e.index)
            whole = self.isa.loadu(k, f"&{base}[{i0}]")
            if self.cur_mask is None:
                return whole

            def masked_read() -> str:
                idx = self.fresh("idx")
                self.lines.append(f"{self.indent}{e.index.type} {idx} = {i0};")
                self.remark("per-lane-load", f"read of '{_accessed_name(e)}' under a mask: one vector load "
                                             "when every lane is on, else one load per active lane")
                on = self.on_bits()
                full = (1 << self.isa.lanes) - 1
                lanes = [f"({on} >> {lane} & 1) ? {base}[{idx} + {lane}] : 0" for lane in range(self.isa.lanes)]
                return f"({on} == {full:#x}u ? {self.isa.loadu(k, f'&{base}[{idx}]')} : {self.isa.build(k, lanes)})"

            if e is self.whole:
                return masked_read()
            # named: a ?: of vectors as an operand of an overloaded builtin crashes powerpc GCC 12
            # (vec_mul((on == 0xfu ? vec_xl(...) : ...), ...): ICE, expand-fuzz altivec 20261129-467)
            return self.name_once(("read", cexpr(e)), self.isa.vtype(k), _read_name(e), masked_read)
        small = self.small_table_read(e, k)
        if small is not None:
            return small
        binds: dict[str, tuple[str, str, bool]] = {}  # (an index's vector, named once per statement)

        def lane_text(n: Expr, lane: int, at: str | None = None) -> str:
            """Lane ``lane``'s read ``n``; ``at``: a scalar index for the varying one instead."""
            if not self.sh.varying(n):
                return cexpr(n)
            if isinstance(n, Index):
                if self.sh.varying(n.base):  # (a table of structs: G[i].f[j], i varying)
                    if not isinstance(n.base, (Index, Member)):
                        raise error(None, "loads through varying pointers are not supported yet")
                    base = lane_text(n.base, lane, at)
                else:
                    base = cexpr(n.base)
                idx = n.index
                if not self.sh.varying(idx):
                    return f"{base}[{cexpr(idx)}]"
                key = cexpr(idx)
                if key not in binds:
                    ik = self.k(idx.type)
                    name = self.index_gang(("index", key), idx, f"{_accessed_name(n.base)}_idx")
                    # An index that is never negative (in the bounds of a whole array, or bounded) is read
                    # as unsigned: a 32-bit lane then needs no sign extension to address memory.
                    nonneg = ik in ("i8", "i16", "i32") and (index_bound(idx) is not None or whole_array(n.base))
                    binds[key] = (name, ik, nonneg)
                name, ik, nonneg = binds[key]
                if at is not None:
                    return f"{base}[{'(uint32_t)' if nonneg else ''}{at}]"
                if not nonneg:
                    return f"{base}[{self.isa.extract(ik, name, lane)}]"
                if self.isa.vtype("u32") == self.isa.vtype(ik):
                    return f"{base}[{self.isa.extract('u32', name, lane)}]"
                return f"{base}[(uint32_t){self.isa.extract(ik, name, lane)}]"
            if isinstance(n, Member):
                return f"{lane_text(n.base, lane, at)}{'->' if n.arrow else '.'}{n.name}"
            raise error(None, "this varying memory access is not supported yet")

        read = self.table_read(e, k, lambda lane: lane_text(e, lane))
        what = _read_what(e)
        if read.index is None:
            if self.through_pointer(e) is not None:
                return self.pointer_lanes(e, k)
            if self.loop_depth and _record_field(e):
                return self.coherent_read(e, k, read, binds, lambda at: lane_text(e, 0, at))
            self.per_lane_remark(e)
        else:
            apart = f", elements {read.stride * e.type.size()} bytes apart" if isinstance(e, Member) else ""
            self.remark("gather", f"read of {what} at an index that differs per lane: a gather "
                                  f"instruction{' under the mask' if self.cur_mask is not None else ''}{apart}")
        return self.isa.gather(k, read, None if self.cur_mask is None else self.cur_mask.name)

    def per_lane_remark(self, e: Expr) -> None:
        self.remark("per-lane-load", f"read of {_read_what(e)} at an index that differs per lane: "
                                     f"{self.isa.lanes} scalar loads and inserts")

    def coherent_read(self, e: Expr, k: str, read: TableRead, binds: dict[str, tuple[str, str, bool]],
                      read_at: Callable[[str], str]) -> str:
        """A field of a record of a table read per lane inside a divergent loop (``coherent``), else
        ``read``'s loads per lane. Only for a read at one varying index of 32-bit lanes."""
        isa = self.isa
        lanes = isa.gather(k, read, None if self.cur_mask is None else self.cur_mask.name)
        if len(binds) != 1 or kind_bits(next(iter(binds.values()))[1]) != 32:
            self.per_lane_remark(e)
            return lanes
        ((name, ik, _),) = binds.values()
        text = self.coherent(e, k, ik, name, read_at, lanes)
        if e is self.whole:
            return text
        return self.name_once(("read", cexpr(e)), isa.vtype(k), _read_name(e), text)

    def coherent(self, e: Expr, k: str, ik: str, idx: str, read_at: Callable[[str], str], lanes: str,
                 some_on: str | None = None) -> str:
        """The read ``e`` of a record's field inside a divergent loop (a BVH's node or triangle: the lanes
        of a gang mostly walk the same records), at the index gang ``idx`` (kind ``ik``; lanes off hold 0):
        when every lane on reads at the same index, one scalar load broadcast (``read_at``: the read at a
        scalar index), else ``lanes``, the loads per lane. Every lane on gets the same element either way;
        lanes off (whose result no read specifies) may get the element the lanes on read. ``some_on``: a
        test that some lane is on, where reading at lane 0's index with none on could fault."""
        same, at = self.same_index(ik, idx, some_on)
        self.remark("per-lane-load", f"read of {_read_what(e)} at an index that differs per lane: one load and a "
                                     f"broadcast when every lane on reads the same record, else {self.isa.lanes} "
                                     "scalar loads and inserts")
        return f"({same} ? {self.isa.splat(k, read_at(at))} : {lanes})"

    def same_index(self, ik: str, idx: str, some_on: str | None = None, mask: str | None = None) -> tuple[str, str]:
        """(a scalar test that every lane on under ``mask`` (default: the current mask) holds the same index in
        the gang ``idx`` (kind ``ik``, lanes off holding 0), and that index as a scalar), named once per
        statement (the index tested is lane 0's; ``Isa.same_index``). ``some_on``: also required."""
        isa = self.isa
        if mask is None and self.cur_mask is not None:
            mask = self.cur_mask.name
        deps = next((d for n, d in self.carried.values() if n == idx), None)  # (idx carried: so are these)
        first = self.name_once(("first", idx), isa.vtype(ik), f"{idx}_first", isa.splat(ik, isa.extract(ik, idx, 0)),
                               deps)
        same = isa.same_index(ik, idx, first, mask)
        same = self.name_once(("same", idx), "int", f"{idx}_same", same if some_on is None else f"{same} && {some_on}",
                              deps if some_on is None else None)
        return same, isa.extract(ik, first, 0)

    def varying_subscripts(self, e: Expr) -> list[Index] | None:
        """The subscripts with a varying index on the way from the read ``e`` down to its uniform table
        (through ``.`` members and subscripts), from ``e`` down; None when the way passes anything else
        (a varying pointer)."""
        terms: list[Index] = []
        node = e
        while self.sh.varying(node):
            if isinstance(node, Member) and not node.arrow:
                node = node.base
            elif isinstance(node, Index):
                if self.sh.varying(node.index):
                    terms.append(node)
                node = node.base
            else:
                return None
        return terms

    def subscripted(self, e: Expr, at: set[int], i: int) -> Expr:
        """``e`` with the varying subscripts whose ``id`` is in ``at`` indexing ``i`` instead: a uniform
        read (the element at index 0: a gather's base; each element of a two-element table)."""
        def sub(n: Expr) -> Expr:
            if isinstance(n, Member) and self.sh.varying(n):
                return Member(n.type, sub(n.base), n.name, n.arrow)
            if isinstance(n, Index) and self.sh.varying(n):
                return Index(n.type, sub(n.base), int_const(i) if id(n) in at else n.index)
            return n
        return sub(e)

    def small_table_read(self, e: Expr, k: str) -> str | None:
        """A read at one varying index ``i`` from a uniform array of known length ``L``: with ``L`` <= 2
        (glibc's ``__sincosf_table[n]``) the select of the broadcast elements (``i == 1 ? T[1] : T[0]``)
        where ``Isa.pair_select_pays``; with the elements from the one ``e`` names at ``i`` = 0 on fitting
        ``Isa.small_table`` (AVX-512), in-register permutes at ``i`` times the elements of kind ``k``
        from one index to the next. Else None. Inactive lanes' ``i`` may be anything: both read only
        the table. Not with ``--gathers on`` where the ISA has gather instructions: those then."""
        isa = self.isa
        if not isinstance(e.type, (T.Int, T.Float)):
            return None
        terms = self.varying_subscripts(e)
        if terms is None or len(terms) != 1 or not isinstance(terms[0].base.type, T.Array) \
                or not terms[0].base.type.length or _layout_problem(e):
            return None
        term = terms[0]
        length = term.base.type.length

        def at(i: int) -> Expr:  # (e with the varying index replaced by i: a uniform read)
            return self.subscripted(e, {id(term)}, i)

        what = _read_what(e)
        idx = term.index
        ik = self.k(idx.type)
        if isa.gather_native(k, ik):  # (--gathers on: the gather instructions asked for)
            return None
        if length <= 2 and isa.pair_select_pays(k):
            first = isa.splat(k, cexpr(at(0)))
            self.remark("small-table", f"read of {what} at an index that differs per lane: the table's "
                                       f"{length} element{'s' if length > 1 else ''} broadcast"
                                       f"{' and selected' if length > 1 else ''}")
            if length == 1:
                return first
            pick = isa.cmp("==", ik, self.vec(idx), isa.splat(ik, "1"))
            if self.cur_mask is not None:  # (as a read per lane does: the statement's mask read, dce kept it)
                pick = isa.mask_and(self.cur_mask.name, pick)
            return isa.select(k, pick, isa.splat(k, cexpr(at(1))), first)
        if isa.small_table_max(k) == 0:
            return None
        try:
            esz, tsz = e.type.size(), term.type.size()
        except TypeError:
            return None
        if esz == 0 or tsz % esz:
            return None
        stride = tsz // esz
        n = (length - 1) * stride + 1
        if n > isa.small_table_max(k):
            return None
        ck = isa.table_index_kind(k)
        v = self.vec(idx)
        if ik != ck:
            v = isa.bitcast(ik, ck, v) if kind_bits(ik) == kind_bits(ck) \
                else isa.convert(ik, ck, v)
        if stride > 1:
            v = isa.shift("<<", ck, v, str(stride.bit_length() - 1), True) if stride & (stride - 1) == 0 \
                else isa.binop("*", ck, v, isa.splat(ck, str(stride)))
        if self.cur_mask is not None:  # (inactive lanes read element 0, as reads per lane do: the statement's
            # mask is read, which dead code elimination kept for it: expand-fuzz avx2 20261203-69)
            v = isa.select(ck, self.cur_mask.name, v, isa.splat(ck, "0"))
        base = cexpr(e.base) if term is e else "&" + cexpr(at(0))
        self.remark("small-table", f"read of {what} at an index that differs per lane: the table's "
                                   f"{n} elements in registers, picked by permutes")
        return isa.small_table(k, base, n, v)

    def table_read(self, e: Expr, k: str, lane: Callable[[int], str]) -> TableRead:
        """The read ``e`` as ``Isa.gather`` takes it. When its address is a uniform table's plus a sum of
        varying index * stride (``tab[i]``, a struct field ``T[i].invc``, a row ``t[i][j]``, ``G[i].f[j]``)
        and the table gathers such elements natively: the address of the element at index 0, one index
        (several combine into one, in units of their strides' gcd) and the stride; ``fits32`` when
        index * stride is exact in 32 bits: the table's size is below 2^31 bytes (an index of an active
        lane is in bounds, as the scalar code's is), or the index's bounds show it. Else only ``lane``."""
        isa = self.isa
        lanes_only = TableRead("", None, "i32", 1, False, lane)
        terms = self.varying_subscripts(e)
        if not terms or _layout_problem(e):
            return lanes_only
        try:
            esz = e.type.size()
            sizes = [n.type.size() for n in terms]
        except TypeError:
            return lanes_only
        if esz == 0 or any(sz == 0 or sz % esz for sz in sizes):
            return lanes_only
        strides = [sz // esz for sz in sizes]
        table = terms[-1].base.type  # (the walk stops at the table: the deepest subscript's base)
        in_object = isinstance(table, T.Array) and bool(table.length) and table.size() < 2**31
        if len(terms) == 1:
            idx, stride = terms[0].index, strides[0]
            ik = self.k(idx.type)
            if not isa.gather_native(k, ik):
                return lanes_only
            bound = index_bound(idx)
            fits = in_object or (bound is not None and bound * stride < 2**31) or \
                (stride == 1 and ik in ("i32", "i16", "i8", "u16", "u8"))
            index = self.vec(idx)
        else:  # one index: sum of index * (stride / gcd), exact in 32 bits inside a table below 2^31 bytes
            if not in_object or not isa.gather_native(k, "i32"):
                return lanes_only
            ik, stride, fits, index = "i32", math.gcd(*strides), True, ""
            for n, st in zip(terms, strides):
                nk = self.k(n.index.type)
                v = self.vec(n.index)
                v = v if nk == "i32" else isa.convert(nk, "i32", v)
                m = st // stride
                if m > 1:
                    v = isa.shift("<<", "i32", v, str(m.bit_length() - 1), True) if m & (m - 1) == 0 \
                        else isa.binop("*", "i32", v, isa.splat("i32", str(m)))
                index = isa.binop("+", "i32", index, v) if index else v
        if len(terms) == 1 and terms[0] is e:  # tab[i]: the table (or pointer) itself
            base = cexpr(e.base)
        else:
            base = "&" + cexpr(self.subscripted(e, {id(n) for n in terms}, 0))
        name = None
        if len(terms) == 1 and self.index_uses.get(cexpr(terms[0].index), 0) > 1:  # (s[i].a and s[i].b)
            key, what = cexpr(terms[0].index), _accessed_name(terms[0].base)

            def name(vtype: str, text: str) -> str:
                return self.name_once(("gather index", key, text), vtype, f"{what}_off", text)
        return TableRead(base, index, ik, stride, fits, lane, name)

    def mask(self, e: Expr) -> str:
        isa = self.isa
        if isinstance(e, Var) and e.sym.type == MASK:
            return e.sym.name
        if isinstance(e, Binary) and e.op == "&&" and isinstance(e.left, Var) and e.left.sym.type == MASK \
                and self.cur_mask is not e.left.sym:
            # A block's condition ANDed with its parent block's mask (predication/ifconvert.py): the scalar
            # code tests it only in the parent's lanes, so it is read under that mask (table reads at a
            # varying index read element 0 in the other lanes, whose index may be past the table: a
            # counter stepped on after its lane left; uniform reads and divisions run only if a lane is on).
            outer = self.cur_mask
            self.cur_mask = e.left.sym
            try:
                return self.mask(e)
            finally:
                self.cur_mask = outer
        if isinstance(e, Const) and e.type == MASK:
            return isa.mask_const(bool(e.value))
        if not self.sh.varying(e):
            # A scalar test choosing a constant mask (no vec_splats of a comparison: powerpc GCC 12
            # crashes on it, tests/fuzz_regressions/altivec_uniform_condition.c).
            return f"(({self.scalar(e)}) ? {isa.mask_const(True)} : {isa.mask_const(False)})"
        if isinstance(e, Binary) and e.op in ("&&", "||") and not all(self.sh.varying(x) for x in (e.left, e.right)):
            # a uniform operand (a scalar loop counter's test): a scalar test, the varying side only if it matters
            u, v = (e.left, e.right) if not self.sh.varying(e.left) else (e.right, e.left)
            if u is e.left:
                us = self.scalar(u)
            else:  # (tested first, in every lane: the scalar code tests it where v lets it)
                us = self.speculated(u, (lambda: self.mask(v)) if e.op == "&&" else lambda: isa.mask_not(self.mask(v)))
            if e.op == "&&":
                return f"(({us}) ? {self.mask(v)} : {isa.mask_const(False)})"
            return f"(({us}) ? {isa.mask_const(True)} : {self.mask(v)})"
        if isinstance(e, Binary) and e.op in ("&&", "||"):  # (the right operand where the left lets it)
            left = self.mask(e.left)
            when = (lambda: left) if e.op == "&&" else lambda: isa.mask_not(left)
            if e.op == "&&" and isinstance(e.right, Unary) and e.right.op == "!":
                return isa.mask_andnot(left, self.speculated(e.right.operand, when, self.mask))
            return (isa.mask_and if e.op == "&&" else isa.mask_or)(left, self.speculated(e.right, when, self.mask))
        if isinstance(e, Unary) and e.op == "!":
            return isa.mask_not(self.mask(e.operand))
        if isinstance(e, Binary) and e.op in CMP:
            k = self.k(e.left.type)
            return isa.cmp(e.op, k, self.vec(e.left), self.vec(e.right))
        return isa.int_to_mask(self.k(e.type), self.vec(e))

    # ------------------------------------------------------------------ statements
    def remark(self, kind: str, message: str) -> None:
        """A ``--remarks`` line at the statement being printed (the driver drops repeats)."""
        self.lin.remarks.append(Remark(self.at, kind, message))

    def emit(self, s: Stmt) -> None:
        """Print ``s``; names carried from statement to statement end where ``s`` assigns what they read,
        calls anything, or has a body."""
        plain = isinstance(s, (Assign, ExprStmt))
        if not plain:
            self.carried = {}
        self.stmt_indent = self.indent
        self.print_stmt(s)
        if not plain or any(isinstance(n, Call) for e in stmt_exprs(s) for n in e.walk()):
            self.carried = {}
        elif isinstance(s, Assign) and isinstance(s.target, Var):
            gone = s.target.sym.name
            self.carried = {k: v for k, v in self.carried.items() if gone not in v[1]}

    def print_stmt(self, s: Stmt) -> None:
        isa = self.isa
        ind = self.indent
        self.at = s.coord
        if isinstance(s, MaskedLoop):
            if s.active is None or not s.head_test:
                self.lines.append(f"{ind}for (;;) {{")
            else:
                self.lines.append(f"{ind}while ({isa.mask_any(s.active.name)}) {{")
            self.indent += "    "
            self.loop_depth += 1
            self.block(s.body)
            self.loop_depth -= 1
            self.indent = ind
            self.lines.append(f"{ind}}}")
            return
        if isinstance(s, UniformIf):
            self.uniform_if(s)
            return
        if isinstance(s, Guard):
            if s.all_body is not None:  # every lane on: the statements under the mask, without blends
                self.lines.append(f"{ind}if ({isa.mask_all(s.mask.name)}) {{")
                self.indent += "    "
                self.block(s.all_body)
                self.indent = ind
                if not s.any_test:
                    self.lines.append(f"{ind}}} else {{")
                    self.indent += "    "
                    self.block(s.body)
                    self.indent = ind
                    self.lines.append(f"{ind}}}")
                    return
                self.lines.append(f"{ind}}} else if ({isa.mask_any(s.mask.name)}) {{")
            else:
                self.lines.append(f"{ind}if ({isa.mask_any(s.mask.name)}) {{")
            self.indent += "    "
            self.block(s.body)
            self.indent = ind
            if s.resets:
                self.lines.append(f"{ind}}} else {{")
                for r in sorted(s.resets, key=lambda x: x.name):
                    self.lines.append(f"{ind}    {r.name} = {isa.mask_const(False)};")
            self.lines.append(f"{ind}}}")
            return
        if isinstance(s, BreakIfNone):
            self.lines.append(f"{ind}if ({negated(isa.mask_any(s.mask.name))})")
            self.lines.append(f"{ind}    break;")
            return
        if isinstance(s, BreakIf):  # (every lane runs a uniform loop: no mask guards its test)
            self.cur_mask = None
            if isinstance(s.cond, Const) and s.cond.value:  # (predication/counters.py: a scalar exit)
                self.lines.append(f"{ind}break;")
                return
            self.lines.append(f"{ind}if ({self.scalar(s.cond)})")
            self.lines.append(f"{ind}    break;")
            return
        self.cur_mask = getattr(s, "mask", None)
        m = self.cur_mask
        self.start_statement(stmt_exprs(s), s.value if isinstance(s, Assign) and isinstance(s.target, Var) else None)
        if isinstance(s, Assign) and isinstance(s.target, Var) and s.target.sym.type == MASK:
            self.lines.append(f"{ind}{s.target.sym.name} = {self.mask(s.value)};")
            return
        if isinstance(s, Assign) and isinstance(s.value, Call) or isinstance(s, ExprStmt):
            call = s.value if isinstance(s, Assign) else s.expr
            assert isinstance(call, Call)
            target = s.target if isinstance(s, Assign) else None
            self.call(call, target, m, getattr(s, "blend", False))
            return
        assert isinstance(s, Assign)
        tgt = s.target
        if isinstance(tgt, Var):
            name = tgt.sym.name
            if not self.sh.is_varying_sym(tgt.sym):
                self.lines.append(f"{ind}{name} = {self.scalar(s.value)};")
                return
            k = self.k(tgt.sym.type)
            v = self.vec(s.value)
            if m is not None and s.blend:
                v = isa.select(k, m.name, v, name)
            self.lines.append(f"{ind}{name} = {v};")
            return
        if isinstance(tgt, Unary) and tgt.op == "*" and isinstance(tgt.operand, Var) \
                and tgt.operand.sym.kind == "param" and tgt.operand.sym.shape == "uniform":
            self.scatter(tgt, s.value, m)
            return
        if isinstance(tgt, Unary) and tgt.op == "*" and isinstance(tgt.operand, Var) \
                and tgt.operand.sym.kind == "param":
            p = tgt.operand.sym.name
            k = self.k(tgt.type)
            v = self.vec(s.value)
            self.lines.append(f"{ind}{isa.store(k, p, v) if m is None else isa.masked_store(k, p, v, m.name)};")
            return
        if isinstance(tgt, Index) and isinstance(tgt.base, Var) and is_local_array(tgt.base.sym):
            if self.lane_array(tgt.base.sym):
                self.array_store(tgt, s.value, m)
            else:  # the same elements in every lane: a plain C array (expand/analysis/shapes.py)
                self.lines.append(f"{ind}{cexpr(tgt)} = {self.scalar(s.value)};")
            return
        if isinstance(tgt, (Index, Member)) and _shared_root(tgt, self.sh):
            self.scatter(tgt, s.value, m)
            return
        raise error(s.coord, "this assignment cannot be vectorized",
                    "assign to local variables or through pointer parameters")

    def uniform_if(self, s: UniformIf) -> None:
        """A branch on a uniform condition: plain C (its statements keep the enclosing mask)."""
        ind = self.indent
        if self.sh.varying(s.cond):  # expand/analysis/shapes.py and expand/analysis/shapes.py disagree: never guess
            raise error(s.coord, "internal: a branch kept as uniform has a condition that varies between lanes")
        self.cur_mask = s.mask  # an integer division in the condition runs only if some lane is on
        cond = self.scalar(s.cond)
        then, els = s.then, s.els
        if self.uniform_select(cond, then, els):
            return
        if not then:
            cond, then, els = f"!({cond})", els, []
        self.lines.append(f"{ind}if ({cond}) {{")
        self.indent += "    "
        self.block(then)
        self.indent = ind
        if els:
            self.lines.append(f"{ind}}} else {{")
            self.indent += "    "
            self.block(els)
            self.indent = ind
        self.lines.append(f"{ind}}}")

    def uniform_select(self, cond: str, then: list[Stmt], els: list[Stmt]) -> bool:
        """``x = c ? a : b;`` for a uniform ``if`` that assigns one uniform variable on each side
        (the scalar ``?:`` it came from): GCC folds a condition such as ``(v - v) != 0`` and then
        warns about a division by zero in the arm an ``if`` would keep but ``?:`` does not."""
        if len(then) != 1 or len(els) != 1:
            return False
        a, b = then[0], els[0]
        if not (isinstance(a, Assign) and isinstance(b, Assign) and isinstance(a.target, Var)
                and isinstance(b.target, Var) and a.target.sym is b.target.sym):
            return False
        sym = a.target.sym
        if sym.type == MASK or self.sh.is_varying_sym(sym) or isinstance(a.value, Call) \
                or isinstance(b.value, Call):
            return False
        self.cur_mask = getattr(a, "mask", None)
        va = self.scalar(a.value)
        self.cur_mask = getattr(b, "mask", None)
        vb = self.scalar(b.value)
        self.lines.append(f"{self.indent}{sym.name} = ({cond}) ? {va} : {vb};")
        return True

    # ------------------------------------------------------------------ local arrays
    def lane_array(self, sym: Symbol) -> bool:
        """A local array whose elements differ between lanes: ``T a[N][lanes]``, row i holding
        element i of every lane (expand/passes/local_arrays.py)."""
        return is_local_array(sym) and self.sh.is_varying_sym(sym)

    def array_row(self, e: Index) -> str:
        """``a[i]``, the row of a lane array at a uniform index. Under a mask with no lane on, the
        index may be anything (a bounds test the lanes failed): then row 0 is read instead, unless the
        index is always in bounds (a test GCC may see is always true: -Wtype-limits on a narrow type)."""
        arr = e.base.sym
        i = self.scalar(e.index)
        bound = index_bound(e.index)
        if self.cur_mask is not None and not isinstance(e.index, Const) \
                and not (bound is not None and bound < arr.type.length):
            i = f"(unsigned long)({i}) < {arr.type.length}u ? ({i}) : 0"
        return f"{arr.name}[{i}]"

    def array_read(self, e: Index, k: str) -> str:
        """An element of a lane array: one row for a uniform index, else each lane's own element
        (inactive lanes read element 0)."""
        isa = self.isa
        if not self.sh.varying(e.index):
            return isa.loadu(k, self.array_row(e))
        arr = e.base.sym.name
        coherent = bool(self.loop_depth) and kind_bits(self.k(e.index.type)) == 32
        self.remark("per-lane-load", f"read of local array '{arr}' at an index that differs per lane: "
                                     + ("one row when every lane on reads the same row, else " if coherent else "")
                                     + f"{isa.lanes} scalar loads and inserts")
        ik = self.k(e.index.type)
        name = self.index_gang(("array index", arr, cexpr(e.index)), e.index, f"{arr}_idx")
        lanes = isa.build(k, [f"{arr}[{isa.extract(ik, name, lane)}][{lane}]" for lane in range(isa.lanes)])
        if not coherent:
            return lanes
        # inside a loop (a stack of node numbers and its per-lane stack pointer): when every lane on reads
        # the same row, that row is each lane's own element (lanes off read an in-bounds row too)
        same, at = self.same_index(ik, name)
        return f"({same} ? {isa.loadu(k, f'{arr}[{at}]')} : {lanes})"

    def array_store(self, tgt: Index, value: Expr, m: Symbol | None) -> None:
        """``a[i] = v`` into a lane array: a row (blended with its old lanes under a mask) for a
        uniform index, else each active lane's element."""
        isa, ind = self.isa, self.indent
        k = self.k(tgt.type)
        v = self.vec(value)
        if not self.sh.varying(tgt.index):
            row = self.array_row(tgt)
            if m is not None:
                if not isinstance(tgt.index, Const):  # (the bounded index, once)
                    r = self.fresh("row")
                    self.lines.append(f"{ind}{scalar_ctype(k)} *{r} = {row};")
                    row = r
            self.lines.append(f"{ind}{isa.storeu(k, row, v) if m is None else isa.masked_storeu(k, row, v, m.name)};")
            return
        arr = tgt.base.sym.name
        ik = self.k(tgt.index.type)
        coherent = bool(self.loop_depth) and kind_bits(ik) == 32
        self.remark("per-lane-store", f"store to local array '{arr}' at an index that differs per lane: "
                                      + ("one row store when every lane on writes the same row, else " if coherent
                                         else "") + "one scalar store per lane")
        if coherent:
            # inside a loop: when every lane on stores to the same row, one (masked) store of the row;
            # with no lane on, the masked store rewrites row 0 as it is
            iv = self.vec(tgt.index)
            name = self.fresh(f"{arr}_idx")
            self.lines.append(f"{ind}{isa.vtype(ik)} {name} = "
                              f"{iv if m is None else isa.select(ik, m.name, iv, isa.splat(ik, '0'))};")
            val = self.fresh(f"{arr}_value")
            self.lines.append(f"{ind}{isa.vtype(k)} {val} = {v};")
            v = val
            same, at = self.same_index(ik, name, mask=None if m is None else m.name)
            row = f"{arr}[{at}]"
            store = isa.storeu(k, row, v) if m is None else isa.masked_storeu(k, row, v, m.name)
            self.lines.append(f"{ind}if ({same})")
            self.lines.append(f"{ind}    {store};")
            self.lines.append(f"{ind}else")
            self.indent = ind + "    "
            self.lane_stores(arr, k, ik, v, name, m)  # (the lanes off, 0 in name, store nothing)
            self.indent = ind
            return
        self.lane_stores(arr, k, ik, v, self.vec(tgt.index), m)

    def lane_stores(self, arr: str, k: str, ik: str, v: str, index: str, m: Symbol | None) -> None:
        """``arr[index[lane]][lane] = v[lane]`` for each lane (on under ``m``), in lane order."""
        isa, ind, n = self.isa, self.indent, self.isa.lanes
        vals, idx = self.fresh("lanes"), self.fresh("idx")
        self.lines.append(f"{ind}{{")
        self.lines.append(f"{ind}    {scalar_ctype(k)} {vals}[{n}];")
        self.lines.append(f"{ind}    {isa.storeu(k, vals, v)};")
        self.lines.append(f"{ind}    {scalar_ctype(ik)} {idx}[{n}];")
        self.lines.append(f"{ind}    {isa.storeu(ik, idx, index)};")
        store = f"{arr}[{idx}[lane]][lane] = {vals}[lane];"
        if m is not None:
            on = self.fresh("on")
            self.lines.append(f"{ind}    unsigned {on} = {isa.mask_bits(m.name)};")
            self.lines.append(f"{ind}    for (int lane = 0; lane < {n}; lane++)")
            self.lines.append(f"{ind}        if ({on} >> lane & 1)")
            self.lines.append(f"{ind}            {store}")
        else:
            self.lines.append(f"{ind}    for (int lane = 0; lane < {n}; lane++)")
            self.lines.append(f"{ind}        {store}")
        self.lines.append(f"{ind}}}")

    def scatter(self, tgt: Expr, value: Expr, m: Symbol | None) -> None:
        """A store to memory every lane shares, ``path = v`` (``base[i]``, ``s[i].a``, ``G[i].f[j]``, ``*p``: a
        uniform pointer's, a global table's): one vector store when the path is ``base[i]`` with a consecutive
        ``i`` and every lane is on; a plain store when its address and value are the same in every lane and
        every lane is on; else one scalar store per (active) lane, in lane order, each varying subscript's
        lanes in an array (expand/analysis/shared_stores.py lets through only the stores whose lane order
        this keeps)."""
        isa, ind = self.isa, self.indent
        k = self.k(tgt.type)
        if isinstance(tgt, Index) and not self.sh.varying(tgt.base) and self.sh.shape(tgt.index) == "consecutive" \
                and m is None:
            v = self.vec(value)
            self.lines.append(f"{ind}{isa.storeu(k, f'&{cexpr(tgt.base)}[{self.scalar(tgt.index)}]', v)};")
            return
        if not self.sh.varying(tgt) and not self.sh.varying(value) and m is None:
            self.lines.append(f"{ind}{cexpr(tgt)} = {self.scalar(value)};")
            return
        if not self.sh.varying(tgt):  # (expand/analysis/shared_stores.py refuses these first)
            raise error(None, "this store to memory every lane shares differs per lane")
        v = self.vec(value)
        n = isa.lanes
        subscripts = [n.index for n in tgt.walk() if isinstance(n, Index) and self.sh.varying(n.index)]
        why = "under a mask" if subscripts and all(self.sh.shape(i) == "consecutive" for i in subscripts) \
            else "at an index that differs per lane"
        self.remark("per-lane-store", f"store to {_read_what(tgt)} {why}: one scalar store per "
                                      f"{'active ' if m is not None else ''}lane")
        vals = self.fresh("lanes")
        body = [f"{scalar_ctype(k)} {vals}[{n}];", f"{isa.storeu(k, vals, v)};"]

        def lane_path(e: Expr) -> str:
            if not self.sh.varying(e):
                return cexpr(e)
            if isinstance(e, Member):
                return f"{lane_path(e.base)}{'->' if e.arrow else '.'}{e.name}"
            if not isinstance(e, Index):
                raise error(None, "this varying memory access is not supported yet")
            base = lane_path(e.base)
            if not self.sh.varying(e.index):
                return f"{base}[{self.scalar(e.index)}]"
            ik = self.k(e.index.type)
            idx = self.fresh("idx")
            body.append(f"{scalar_ctype(ik)} {idx}[{n}];")
            body.append(f"{isa.storeu(ik, idx, self.vec(e.index))};")
            return f"{base}[{idx}[lane]]"

        store = f"{lane_path(tgt)} = {vals}[lane];"
        if m is not None:
            on = self.fresh("on")
            body += [f"unsigned {on} = {isa.mask_bits(m.name)};", f"for (int lane = 0; lane < {n}; lane++)",
                     f"    if ({on} >> lane & 1)", f"        {store}"]
        else:
            body += [f"for (int lane = 0; lane < {n}; lane++)", f"    {store}"]
        self.lines += [f"{ind}{{", *(f"{ind}    {b}" for b in body), f"{ind}}}"]

    def call(self, call: Call, target: Expr | None, m: Symbol | None, blend: bool) -> None:
        isa = self.isa
        ind = self.indent
        if call.func in (WRITE, MATH_ERRNO):
            self.global_write(call, m)
            return
        if call.func in self.expandable:
            args = [self.vec(a) for a in call.args]
            text = f"{self.prefix}{call.func}({', '.join(args)})"
            if target is None:
                self.lines.append(f"{ind}{text};")
                return
            assert isinstance(target, Var)
            k = self.k(target.type)
            if m is not None and blend:
                text = isa.select(k, m.name, text, target.sym.name)
            self.lines.append(f"{ind}{target.sym.name} = {text};")
            return
        if self.vector_math_call(call, target, m, blend) or target is None and self.vector_stores_call(call, m):
            return
        # Not expandable: unpack, call once per active lane, pack.
        n = isa.lanes
        how = ("a libm function without a vector version in the vector math chosen (--vector-math)"
               if call.func in LIBM else "no vector version here (define it in this file, or declare its "
               "vector variants with '#pragma omp declare simd')")
        self.remark("per-lane-call", f"call of '{call.func}' runs once per {'active ' if m is not None else ''}"
                                     f"lane: {how}")
        body: list[str] = []
        arg_texts: list[str] = []
        back: dict[Symbol, str] = {}  # variables whose address a lane's call gets: their array of lanes
        copies: dict[Symbol, str] = {}  # lane arrays a lane's call gets: that lane's elements, copied out and back
        for i, a in enumerate(call.args):
            arr = a.operand.base if isinstance(a, Unary) and a.op == "&" and isinstance(a.operand, Index) else a
            if isinstance(arr, Var) and self.lane_array(arr.sym):
                if arr.sym not in copies:
                    copies[arr.sym] = self.fresh(f"{arr.sym.name}_lane")
                buf = copies[arr.sym]
                if arr is a:
                    arg_texts.append(buf)
                elif not self.sh.varying(a.operand.index):
                    arg_texts.append(f"&{buf}[{self.scalar(a.operand.index)}]")
                else:
                    ik = self.k(a.operand.index.type)
                    idx = self.fresh(f"{arr.sym.name}_idx")
                    body.append(f"{scalar_ctype(ik)} {idx}[{n}];")
                    body.append(f"{isa.storeu(ik, idx, self.vec(a.operand.index))};")
                    arg_texts.append(f"&{buf}[{idx}[lane]]")
                continue
            if isinstance(a, Unary) and a.op == "&" and isinstance(a.operand, Var) \
                    and a.operand.sym.kind in ("local", "param"):
                sym = a.operand.sym
                if sym not in back:
                    k = self.k(sym.type)
                    back[sym] = self.fresh(f"{sym.name}_lanes")
                    body.append(f"{scalar_ctype(k)} {back[sym]}[{n}];")
                    body.append(f"{isa.storeu(k, back[sym], sym.name)};")
                arg_texts.append(f"&{back[sym]}[lane]")
                continue
            if isinstance(a, Var) and a.sym.kind == "param" and isinstance(a.type, T.Pointer) \
                    and a.sym.shape != "uniform":  # a pointer to a gang: each lane's call gets its element
                k = self.k(a.type.target)
                arg_texts.append(f"&(({scalar_ctype(k)} *){a.sym.name})[lane]")
                continue
            shared = next((n.operand.sym for n in a.walk() if isinstance(n, Unary) and n.op == "&"
                           and isinstance(n.operand, Var) and n.operand.sym.kind == "global"), None)
            if shared is None and isinstance(a, Var) and a.sym.kind == "global" and isinstance(a.sym.type, T.Array) \
                    and not a.sym.const:
                shared = a.sym
            if shared is not None:
                raise error(call.coord, f"'{call.func}' is called once per lane with the address of global"
                            f" '{shared.name}', which the calls would share (each scalar call has it to itself"
                            " until the next)", "pass the address of a local variable instead")
            if not self.sh.varying(a):
                arg_texts.append(self.scalar(a))
                continue
            k = self.k(a.type)
            base = a.sym.name if isinstance(a, Var) else f"arg{i}"
            arr = self.fresh(f"{base}_lanes")
            body.append(f"{scalar_ctype(k)} {arr}[{n}];")
            body.append(f"{isa.storeu(k, arr, self.vec(a))};")
            arg_texts.append(f"{arr}[lane]")
        res = None
        if target is not None:
            assert isinstance(target, Var)
            k = self.k(target.type)
            res = self.fresh(f"{target.sym.name}_lanes")
            if blend:
                body.append(f"{scalar_ctype(k)} {res}[{n}];")
                body.append(f"{isa.storeu(k, res, target.sym.name)};")
            else:
                body.append(f"{scalar_ctype(k)} {res}[{n}] = {{0}};")
        callt = f"{self.watched_callee(call.func)}({', '.join(arg_texts)})"
        # (a libm call whose value nothing reads, kept for errno: GCC takes round & co. as having no
        # effect and -Wunused-value rejects the bare call; fuzz 20261126-1418)
        bare = f"(void){callt};" if libm_name(call.func) in LIBM else f"{callt};"
        stmt = [f"{res}[lane] = {callt};" if res else bare]
        if copies:  # (in a block of its own: the lane's copies of the arrays around the call)
            pre, post = [], []
            for sym, buf in copies.items():
                length, e = sym.type.length, self.fresh("e")
                pre.append(f"    {cdecl(sym.type, buf)};")  # (the element type the callee takes)
                pre.append(f"    for (int {e} = 0; {e} < {length}; {e}++)")
                pre.append(f"        {buf}[{e}] = {sym.name}[{e}][lane];")
                post.append(f"    for (int {e} = 0; {e} < {length}; {e}++)")
                post.append(f"        {sym.name}[{e}][lane] = {buf}[{e}];")
            stmt = ["{", *pre, f"    {stmt[0]}", *post, "}"]
        watched = self.errno_watched(call.func)
        if watched:  # this lane's write of errno, if any, seen through the sentinel
            _, lane_v, value_v = self.tracked[ERRNO]
            stmt = ["{", f"    errno = {UNSET};", *(f"    {x}" for x in stmt),
                    f"    if (errno != {UNSET} && lane >= {lane_v}) {{", f"        {lane_v} = lane;",
                    f"        {value_v} = errno;", "    }", "}"]
            # (errno as the loop found it, unless a lane set it: the sentinel does not outlive the loop)
            self.errno_before = self.errno_before or self.fresh("errno_before")
            body.append(f"int {self.errno_before} = errno;")
            self.errno_calls_restored.add(id(call))
        if m is not None:
            on = self.fresh("on")
            body.append(f"unsigned {on} = {isa.mask_bits(m.name)};")
            body.append(f"for (int lane = 0; lane < {n}; lane++)")
            body.append(f"    if ({on} >> lane & 1)")
            body.extend(f"        {x}" for x in stmt)
        else:
            body.append(f"for (int lane = 0; lane < {n}; lane++)")
            body.extend(f"    {x}" for x in stmt)
        if watched:
            body.append(f"errno = {lane_v} >= 0 ? {value_v} : {self.errno_before};")
        if res:
            body.append(f"{target.sym.name} = {isa.loadu(self.k(target.type), res)};")
        for sym, arr in back.items():
            body.append(f"{sym.name} = {isa.loadu(self.k(sym.type), arr)};")
        self.lines.append(f"{ind}{{")
        self.lines.extend(f"{ind}    {b}" for b in body)
        self.lines.append(f"{ind}}}")

    def vector_math_call(self, call: Call, target: Expr | None, m: Symbol | None, blend: bool) -> bool:
        """A libm call with a varying argument as a call of the vector math library's version
        (``isa.vector_math``, expand/vecmath.py), under the statement's mask when the library has a
        masked entry point; False (nothing printed) when no library has it for this gang."""
        vm = self.isa.vector_math
        if vm is None or not isinstance(target, Var) or T.strip_spelling(target.type) != T.strip_spelling(call.type) \
                or not self.sh.is_varying_sym(target.sym) or not any(self.sh.varying(a) for a in call.args):
            return False
        try:
            kinds = [self.k(a.type) for a in call.args]
            rk = self.k(call.type)
        except ExpandError:
            return False
        f = vm.lookup(self.isa, call.func, rk, kinds)
        if f is None:
            return False
        if f.provider == "expand" and f.masked and self.errno_watched(f.name):
            return self.vector_math_errno(call, target, m, blend, kinds, rk)
        mark, named, carried = len(self.lines), dict(self.named), dict(self.carried)
        text = vm.call(self.isa, call.func, rk, kinds, [self.vec(a) for a in call.args], m.name if m else None)
        if text is None:  # (the arguments' lines go too: the call per lane prints them again, and declares
            del self.lines[mark:]  # again the variables they named: fuzz program generic 20261126-800)
            self.named, self.carried = named, carried
            return False
        if m is not None and blend:
            text = self.isa.select(rk, m.name, text, target.sym.name)
        self.lines.append(f"{self.indent}{target.sym.name} = {text};")
        return True

    def vector_math_errno(self, call: Call, target: Var, m: Symbol | None, blend: bool, kinds: list[str],
                          rk: str) -> bool:
        """``vector_math_call`` of a mathlib function that may set errno, in a function that tracks it."""
        isa, vm = self.isa, self.isa.vector_math

        def first(text: str) -> str:
            if m is not None and blend:
                text = isa.select(rk, m.name, text, target.sym.name)
            return f"{target.sym.name} = {text};"

        return self.errno_watched_call(call, kinds, lambda names, mask: vm.call(isa, call.func, rk, kinds, names, mask),
                                       first, m)

    def errno_watched_call(self, call: Call, kinds: list[str], make: Callable[[list[str], str | None], str | None],
                           first: Callable[[str], str], m: Symbol | None) -> bool:
        """A call of mathlib's vector function (``make(arguments, mask)``: its C, or None) that may set errno,
        in a function that tracks it: mathlib's vector code leaves errno as its highest writing lane left it,
        and when it set errno, calls with one lane on at a time, from the highest down, find that lane
        (expand/passes/global_writes.py). ``first``: the statement the first call's C makes."""
        isa, ind = self.isa, self.indent
        names = [self.fresh(f"{a.sym.name if isinstance(a, Var) else 'arg'}_in") for a in call.args[:len(kinds)]]
        text = make(names, m.name if m else None)
        if text is None:
            return False
        _, lane_v, value_v = self.tracked[ERRNO]
        one = self.fresh("lane_mask")
        again = make(names, one)
        self.lines.append(f"{ind}{{")
        self.indent = ind + "    "
        for name, a, k in zip(names, call.args, kinds):
            self.lines.append(f"{ind}    {isa.vtype(k)} {name} = {self.vec(a)};")
        self.indent = ind
        iota = isa.build("i32", [str(lane) for lane in range(isa.lanes)])
        body = [f"errno = {UNSET};", first(text), f"if (errno != {UNSET}) {{"]
        loop = [f"{isa.mask_type()} {one} = {isa.cmp('==', 'i32', iota, isa.splat('i32', 'lane'))};",
                f"errno = {UNSET};", f"(void){again};", f"if (errno != {UNSET}) {{", f"    {lane_v} = lane;",
                f"    {value_v} = errno;", "    break;", "}"]
        head = f"for (int lane = {isa.lanes - 1}; lane >= 0 && lane >= {lane_v}; lane--)"
        if m is not None:
            on = self.fresh("on")
            body += [f"    unsigned {on} = {isa.mask_bits(m.name)};", f"    {head}",
                     f"        if ({on} >> lane & 1) {{", *(f"            {x}" for x in loop), "        }"]
        else:
            body += [f"    {head} {{", *(f"        {x}" for x in loop), "    }"]
        body.append("}")
        self.lines.extend(f"{ind}    {x}" for x in body)
        self.lines.append(f"{ind}}}")
        return True

    def vector_stores_call(self, call: Call, m: Symbol | None) -> bool:
        """A libm call with out-parameters (``sincosf(x, &s, &c)``, the user's or expand/passes/sincos_pairs.py's)
        whose outputs are varying local variables, as one call of mathlib's vector version storing into their
        vectors (under the statement's mask: inactive lanes keep theirs); False (nothing printed) where it
        has none."""
        vm, name = self.isa.vector_math, libm_name(call.func)
        outs = call.args[1:]
        if vm is None or not outs or not all(
                isinstance(a, Unary) and a.op == "&" and isinstance(a.operand, Var) and a.operand.sym.kind == "local"
                and self.sh.is_varying_sym(a.operand.sym) and not self.lane_array(a.operand.sym)
                and T.strip_spelling(a.operand.type) == T.strip_spelling(call.args[0].type) for a in outs):
            return False
        try:
            k = self.k(call.args[0].type)
        except ExpandError:
            return False
        ptrs = [f"&{a.operand.sym.name}" for a in outs]
        if vm.stores_call(self.isa, name, k, "", ptrs, m.name if m else None) is None:
            return False
        if self.errno_watched(name):
            return self.errno_watched_call(call, [k], lambda names, mask: vm.stores_call(self.isa, name, k, names[0],
                                                                                           ptrs, mask),
                                           lambda text: f"{text};", m)
        text = vm.stores_call(self.isa, name, k, self.vec(call.args[0]), ptrs, m.name if m else None)
        self.lines.append(f"{self.indent}{text};")
        return True

    def errno_watched(self, func: str) -> bool:
        """The function tracks errno and a call of ``func`` may set it."""
        return ERRNO in self.tracked and may_set_errno(func)

    def watched_callee(self, func: str) -> str:
        """What a lane's call of ``func`` calls: ``func``, or where GCC takes ``func`` to set no errno
        (expand/ir/libc.py, errno_hidden, STORES_ERRNO_HIDDEN) a constant volatile pointer to it, which GCC
        cannot see through: else it folds a read of errno after the call (the watch's, or the caller's
        after the vector function, where both sit in one file) to the value before it, and the lane's EDOM
        is lost."""
        name = libm_name(func)
        stores = STORES_ERRNO_HIDDEN.get(name) if not self.isa.clang else None
        if not (may_set_errno(func) and (self.isa.errno_hidden(func) or stores)):
            return func
        ptr = f"_exp_{name}_errno"
        if stores:
            proto = stores
        else:
            ret, params = LIBM[name]
            proto = f"{scalar_ctype(ret)} ({{}})({', '.join(scalar_ctype(p) for p in params)})"
        # (declared for a source that calls __builtin_sin, maybe without <math.h>; the parentheses keep
        # a function-like macro of that name, <tgmath.h>'s, from expanding)
        decl = f"extern {proto.format(name)};\n" if func != name else ""
        self.isa.need(ptr, f"/* {name} through a pointer: GCC takes {name} to leave errno alone, which the"
                           f" library's may not */\n{decl}static {proto.format(f'*const volatile {ptr}')} = {name};\n")
        return ptr

    def top_lane(self) -> str:
        """The helper giving the highest lane whose bit is set in a lane-bits word (-1: none)."""
        name = "_exp_top_lane"
        self.isa.need(name, f"static inline int {name}(unsigned on)\n{{\n"
                            "    return on ? 31 - __builtin_clz(on) : -1;\n}\n")
        return name

    def global_write(self, call: Call, m: Symbol | None) -> None:
        """A tracked global's write by the active lanes (``WRITE(g, v)``), or errno = EDOM in the active lanes
        where a sqrt's argument is negative (``MATH_ERRNO(c)``, unless -fno-math-errno): the highest writing
        lane and its value, if no higher lane wrote before (expand/passes/global_writes.py)."""
        isa, ind = self.isa, self.indent
        if call.func == MATH_ERRNO:
            g, value, cond = ERRNO, None, call.args[0]
            self.lines.append("#if !defined(__NO_MATH_ERRNO__)  /* sqrt of a negative number sets errno */")
        else:
            g, value, cond = call.args[0].sym.name, call.args[1], None
        _, lane_v, value_v = self.tracked[g]
        self.lines.append(f"{ind}{{")
        self.indent = inner = ind + "    "
        lanes = None if m is None else m.name
        top = self.fresh("top")
        if cond is not None:
            c = self.mask(cond)
            lanes = c if lanes is None else isa.mask_and(lanes, c)
        if value is None:
            v = "EDOM"
        elif not self.sh.varying(value):
            v = self.scalar(value)
        else:
            k = self.k(value.type)
            arr = self.fresh(f"{g}_lanes")
            self.lines.append(f"{inner}{scalar_ctype(k)} {arr}[{isa.lanes}];")
            self.lines.append(f"{inner}{isa.storeu(k, arr, self.vec(value))};")
            v = f"{arr}[{top if lanes is not None else isa.lanes - 1}]"
        if lanes is None:  # every lane: the last one writes last
            self.lines += [f"{inner}{lane_v} = {isa.lanes - 1};", f"{inner}{value_v} = {v};"]
        else:
            self.lines += [f"{inner}int {top} = {self.top_lane()}({isa.mask_bits(lanes)});",
                           f"{inner}if ({top} >= 0 && {top} >= {lane_v}) {{", f"{inner}    {lane_v} = {top};",
                           f"{inner}    {value_v} = {v};", f"{inner}}}"]
        self.indent = ind
        self.lines.append(f"{ind}}}")
        if value is None:
            self.lines.append("#endif")

    def errno_restored(self) -> bool:
        """Every call that may set errno was printed as a per-lane call that leaves errno as it found it
        unless a lane set it: errno is its value from the entry until a lane sets it, and the function
        needs not read it at the entry (the common path of a libm function then never touches errno)."""
        return all(id(c) in self.errno_calls_restored for c in self.errno_calls)

    def exit_written(self) -> list[str]:
        """The tracked globals the exit writes (errno not where every write of it was a per-lane call's,
        which left it right)."""
        return [g for g in self.tracked if g != ERRNO or not self.errno_restored() or self.errno_written]

    def exit_writes(self) -> None:
        """At the exit: each tracked global gets its highest writing lane's value (errno: else its value
        from the entry, which the sentinel of vector libm calls and their calls for inactive lanes may
        have changed since; not needed where ``errno_restored``)."""
        writes = self.exit_written()
        if not writes:
            return
        ind = self.indent
        self.lines.append(f"{ind}/* what the scalar code leaves, lanes in order: the highest writing lane's value */")
        for g in writes:
            _, lane_v, value_v = self.tracked[g]
            if g == ERRNO and not self.errno_restored():
                self.lines.append(f"{ind}errno = {lane_v} >= 0 ? {value_v} : {self.errno_entry};")
            else:
                self.lines += [f"{ind}if ({lane_v} >= 0)", f"{ind}    {g} = {value_v};"]

    def block(self, stmts: list[Stmt]) -> None:
        """Statements, each group headed by its scalar source line. (No name is carried into a block, nor
        out of it: a name declared in one arm is not declared in the other.)"""
        self.carried = {}
        for s in stmts:
            co = s.coord
            if co is not None and (co.file, co.line) != self.last_line:
                text = self.source_line(co)
                if text:
                    self.lines.append(f"{self.indent}/* {text} */")
                self.last_line = (co.file, co.line)
            try:
                self.emit(s)
            except ExpandError as exc:  # (a diagnostic without a position: at this statement)
                exc.coord = exc.coord or co
                raise
        self.carried = {}

    # ------------------------------------------------------------------ function
    def function(self, name: str, used: set[Symbol], entry: Symbol | None = None) -> str:
        """The C definition; ``entry`` (a masked variant's entry mask) becomes the first parameter."""
        isa = self.isa
        fn = self.lin.fn
        self.entry = entry
        params = [f"{isa.mask_type()} {entry.name}"] if entry is not None else []
        for p in fn.params:
            if p.shape in ("uniform", "linear"):
                if p.shape == "linear" and not isinstance(p.type, T.Int):
                    raise error(p.coord, f"linear parameter '{p.name}' must be an integer")
                params.append(declare(p.type, p.name))
                continue
            if p.shape:
                raise error(p.coord, f"parameter shape '{p.shape}' of '{p.name}' is not supported",
                            "use uniform(...) or linear(...) with step 1")
            if isinstance(p.type, T.Pointer):
                tgt = p.type.target
                if not tgt.is_arith():
                    raise error(p.coord, f"parameter '{p.name}' of type '{p.type}' cannot be expanded",
                                "pointer parameters must point to int or float values")
                params.append(f"{isa.mtype(self.k(tgt))} *{p.name}")
            elif p.type.is_arith():
                params.append(f"{isa.vtype(self.k(p.type))} {p.name}")
            else:
                raise error(p.coord, f"parameter '{p.name}' of type '{p.type}' cannot be expanded",
                            "expand takes int, float and pointer parameters")
        if not isinstance(fn.ret, T.Void) and not fn.ret.is_arith():
            raise error(fn.coord, f"function '{fn.name}' returns '{fn.ret}', which cannot be vectorized",
                        "return an int or floating-point value (other results through a pointer parameter)")
        ret = "void" if isinstance(fn.ret, T.Void) else isa.vtype(self.k(fn.ret))
        body_start = len(self.lines)
        if entry is not None:  # no lane on: do nothing, not even the uniform loads an active lane would do
            zero = "" if isinstance(fn.ret, T.Void) else " " + isa.splat(self.k(fn.ret), "0")
            self.lines.append(f"{self.indent}if (!{isa.mask_any(entry.name)})")
            self.lines.append(f"{self.indent}    return{zero};")
        self.last_line = None
        self.block(self.lin.stmts)
        r = self.lin.ret
        if r.value is None:
            self.exit_writes()
        else:
            # Every lane (of the entry mask) returns: not under the last statement's mask, which would
            # e.g. give a division in the returned expression divisor 1 in the other lanes.
            self.cur_mask = entry
            self.at = r.coord or fn.coord
            self.start_statement([r.value])
            try:
                value = self.vec(r.value)
            except ExpandError as exc:
                exc.coord = exc.coord or fn.coord
                raise
            if self.exit_written():  # (the value first: a libm call per lane in it may change errno)
                result = self.fresh("result")
                self.lines.append(f"{self.indent}{isa.vtype(self.k(fn.ret))} {result} = {value};")
                self.exit_writes()
                value = result
            self.lines.append(f"{self.indent}return {value};")
        body = self.lines[body_start:]
        early = read_before_written(self.lin.stmts)
        decls = []
        for g, (sym, lane_v, value_v) in self.tracked.items():  # (expand/passes/global_writes.py)
            if not any(re.search(rf"\b{lane_v}\b", ln) for ln in body):  # (no write of it was printed)
                continue
            decls.append(f"{self.indent}int {lane_v} = -1;  /* the highest lane that set {g} so far (-1: none) */")
            decls.append(f"{self.indent}{cdecl(T.strip_spelling(sym.type), value_v)} = 0;  /* and the value it set */")
        if self.errno_entry and not self.errno_restored():
            decls.append(f"{self.indent}int {self.errno_entry} = errno;")
        for sym in fn.locals:
            if sym not in used:
                continue
            # A variable whose old lanes a blend reads before any full write starts at zero
            # (those lanes are never used; the initializer keeps -Wmaybe-uninitialized quiet).
            if is_local_array(sym):  # (zeroed: a masked row store reads the row's old lanes first)
                if self.lane_array(sym):
                    rows = f"{sym.name}[{sym.type.length}][{isa.lanes}]"
                    decls.append(f"{self.indent}{scalar_ctype(self.k(sym.type.elem))} {rows} = {{{{0}}}};")
                else:
                    decls.append(f"{self.indent}{cdecl(sym.type, sym.name)} = {{0}};")
            elif sym.type == MASK:
                init = f" = {isa.mask_const(False)}" if sym in early else ""
                decls.append(f"{self.indent}{isa.mask_type()} {sym.name}{init};")
            elif self.sh.is_varying_sym(sym):
                k = self.k(sym.type)
                init = f" = {isa.splat(k, '0')}" if sym in early else ""
                decls.append(f"{self.indent}{isa.vtype(k)} {sym.name}{init};")
            else:
                init = " = 0" if sym in early else ""
                decl = cdecl(sym.type, sym.name) if isinstance(sym.type, T.Pointer) else f"{sym.type} {sym.name}"
                decls.append(f"{self.indent}{decl}{init};")  # (cdecl keeps a pointer's const target)
        # A parameter the vector code does not use (the scalar code may not either, or only where the
        # vector code needs no value from it): '(void)p;', or -Wextra warns (-Wunused-parameter).
        code = re.sub(r"/\*.*?\*/", "", "\n".join(decls + body), flags=re.S)
        unused = [p.name for p in fn.params if not re.search(rf"\b{re.escape(p.name)}\b", code)]
        decls += [f"{self.indent}(void){n};" for n in unused]
        head = f"{ret} {name}({', '.join(params) or 'void'})"
        return "\n".join([head, "{", *decls, *([""] if decls else []), *body, "}"]) + "\n"
