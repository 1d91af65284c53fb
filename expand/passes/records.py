"""Local structs and unions as their bits (those expand/passes/struct_fields.py does not split into
members): glibc's ``ieee_double_shape_type`` (EXTRACT_WORDS,
INSERT_WORDS, SET_LOW_WORD, ...), structs nested in unions, and compound literals such as
``asuint``'s ``((union {float _f; uint32_t _i;}){f})._i``.

A local struct or union whose members are integers, floating-point values, arrays of them and
structs or unions of those (any depth) is held as its bytes, in "words": one unsigned integer per
8 bytes (``uint64_t``), or per 4 bytes (``uint32_t``) when no member is wider than 4 bytes. Every
target expand emits for (x86-64, AArch64, ppc64le) is little-endian, and so is this layout: the byte
at offset ``o`` of a word is its bits ``8*o .. 8*o+7`` (the frontends refuse local records on a
big-endian target: ``Target.big_endian``). Members are laid out as C lays them out without
attributes (``types.Record.size``: each member at the next multiple of its alignment); a record
whose layout the frontend cannot vouch for (``__attribute__((packed))``, ``_Alignas``: its
``layout_problem``) is refused. A member never straddles two words, since its offset is a multiple
of its own size and a word is at least as wide.

* reading a member extracts its bits (shift, truncate, then reinterpret as a float or convert to
  the member's integer type); writing one inserts them (``w = (w & ~mask) | (bits << shift)``), or
  replaces the word where the member covers it;
* a whole struct or union (``a = b``, ``s.inner = t.inner``, an initializer) copies bytes;
* an ``ir.Aggregate`` (a compound literal, a local's brace initializer) is a value whose words are
  computed from its items: ``(union {double f; uint64_t i;}){x}.i`` is the bits of ``x``;
* an array member indexed by a non-constant index (``u.w[i]``) selects among its elements (at most
  ``MAX_ALTERNATIVES``), reads and writes alike.

A local's bytes are zero where it is declared (C leaves them unspecified until written; GCC's
scalar code has whatever was there). glibc reads only what it wrote (EXTRACT_WORDS: the whole
value, then its halves; INSERT_WORDS: both halves, then the whole; SET_LOW_WORD: the whole, one
half, then the whole), and those reads are exact; each lane's words are its own. Everything else a
struct or union local could be used for (its address, a call argument, a copy to or from memory,
``?:`` of records) is a diagnostic. Unions of same-size scalars alone stay with expand/passes/lower.py's
punning (one variable of the first member's type).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from expand.ir import types as T
from expand.ir.diagnostics import error
from expand.ir.nodes import (
    Aggregate,
    Assign,
    Binary,
    BitCast,
    Block,
    Call,
    Cast,
    Cond,
    Const,
    Coord,
    Expr,
    ExprStmt,
    Function,
    If,
    Index,
    Label,
    Loop,
    Member,
    NameMaker,
    Return,
    Stmt,
    Symbol,
    Unary,
    Var,
    map_expr,
    stmt_reads,
)
from expand.passes.fold import fold_int

#: the most elements a non-constant index may choose among (each read or write is a chain of selects)
MAX_ALTERNATIVES = 16


def leaf_problem(t: T.CType, where: str = "", layout: bool = True) -> str:
    """Why a value of type ``t`` cannot be held as bits ("" when it can): integers, floating-point
    values, and arrays, structs and unions of them (``layout`` False: whatever their layout, which
    matters only for the bits, not for a struct split into its members: expand/passes/struct_fields.py)."""
    if isinstance(t, (T.Int, T.Float)):
        return ""
    if isinstance(t, T.Array):
        if not t.length:
            return f"its member '{where}' is an array without a size" if where else "it has no size"
        return leaf_problem(t.elem, where, layout)
    if isinstance(t, T.Record):
        kind = "union" if t.is_union else "struct"
        if not t.complete:
            return f"{kind} '{t.spelling or kind}' is incomplete"
        if t.layout_problem and layout:
            return t.layout_problem
        if not t.fields:
            return f"{kind} '{t.spelling or kind}' has no members"
        for name, ft in t.fields:
            why = leaf_problem(ft, f"{where}.{name}" if where else name, layout)
            if why:
                return why
        return ""
    return f"its member '{where}' has type '{t}'" if where else f"it has type '{t}'"


def record_problem(t: T.Record, big_endian: bool = False, layout: bool = True) -> str:
    """Why a local (or compound literal) of record type ``t`` cannot be held as its bits, "" if it can
    (``layout`` False: the frontends' check, before struct_fields.py splits what it can)."""
    if big_endian:
        return "the target is big-endian (expand lays structs and unions out little-endian)"
    return leaf_problem(t, layout=layout)


def _max_leaf(t: T.CType) -> int:
    if isinstance(t, T.Array):
        return _max_leaf(t.elem)
    if isinstance(t, T.Record):
        return max((_max_leaf(ft) for _, ft in t.fields), default=1)
    return t.size()


def word_type(t: T.Record) -> T.Int:
    """The unsigned integer a record's bytes are held in (per 8 bytes, or per 4 when that suffices)."""
    return T.Int(64, False, spelling="uint64_t") if _max_leaf(t) > 4 else T.Int(32, False, spelling="uint32_t")


def word_count(t: T.Record) -> int:
    wb = word_type(t).size()
    return max(1, (t.size() + wb - 1) // wb)


def member_offset(rec: T.Record, name: str) -> tuple[int, T.CType]:
    """Byte offset and type of member ``name`` (C's natural layout, as ``Record.size``)."""
    off = 0
    for n, ft in rec.fields:
        al = T.alignment(ft)
        if not rec.is_union:
            off = (off + al - 1) // al * al
        if n == name:
            return (0 if rec.is_union else off), ft
        if not rec.is_union:
            off += ft.size()
    raise KeyError(name)


# ----------------------------------------------------------------------------- bit arithmetic


def _uint(nbytes: int) -> T.Int:
    return T.Int(8 * nbytes, False, spelling=f"uint{8 * nbytes}_t")


def _const(t: T.Int, v: int) -> Const:
    v = t.wrap(v)
    return Const(t, v, f"{v:#x}{'UL' if t.bits == 64 else 'U'}" if v > 9 else str(v))


def _cast(t: T.Int, e: Expr) -> Expr:
    """``e`` (an integer) converted to the unsigned integer type ``t``."""
    if isinstance(e, Const) and isinstance(e.value, int):
        return _const(t, e.value)
    if T.strip_spelling(e.type) == T.strip_spelling(t):
        return e
    return Cast(t, e)


def _bin(op: str, a: Expr, b: Expr) -> Expr:
    t = a.type
    assert isinstance(t, T.Int)
    av, bv = fold_int(a), fold_int(b)
    if av is not None and bv is not None:  # (only ``op``: a shift by a mask's value would not end)
        v = av & bv if op == "&" else av | bv if op == "|" else av << bv if op == "<<" else av >> bv
        return _const(t, v)
    if op in ("<<", ">>") and bv == 0:
        return a
    if op == "|" and av == 0:
        return b
    if op == "|" and bv == 0:
        return a
    if op == "&" and (av == 0 or bv == 0):
        return _const(t, 0)
    if op == "&" and bv == t.max:
        return a
    return Binary(t, op, a, b)


def _bits_of(v: Expr, n: int) -> Expr:
    """The ``n`` bytes of scalar ``v`` as an unsigned integer of that size."""
    u = _uint(n)
    vt = T.strip_spelling(v.type)
    if isinstance(vt, T.Float):
        return BitCast(u, v)
    return _cast(u, v)


def _from_bits(bits: Expr, t: T.CType) -> Expr:
    """Unsigned ``bits`` of ``t``'s size as a value of scalar type ``t``."""
    if isinstance(T.strip_spelling(t), T.Float):
        return BitCast(t, bits)
    assert isinstance(t, T.Int)
    if isinstance(bits, Const) and isinstance(bits.value, int):
        v = int(bits.value != 0) if t.is_bool else t.wrap(bits.value)
        return Const(t, v, str(v))
    if T.strip_spelling(bits.type) == T.strip_spelling(t):
        return bits if bits.type.spelling == t.spelling else Cast(t, bits)
    return Cast(t, bits)


def extract(word: Expr, byte: int, t: T.CType) -> Expr:
    """The scalar of type ``t`` at byte ``byte`` of ``word`` (little-endian)."""
    wt = word.type
    assert isinstance(wt, T.Int)
    n = t.size()
    if n == wt.size():
        bits = word
    else:
        bits = _cast(_uint(n), _bin(">>", word, Const(T.INT, 8 * byte, str(8 * byte))))
    return _from_bits(bits, t)


def insert(word: Expr, byte: int, t: T.CType, value: Expr) -> Expr:
    """``word`` with the bytes at ``byte`` replaced by scalar ``value`` of type ``t``."""
    wt = word.type
    assert isinstance(wt, T.Int)
    n = t.size()
    bits = _bits_of(value, n)
    if n == wt.size():
        return _cast(wt, bits)
    shift = 8 * byte
    keep = wt.max ^ (((1 << (8 * n)) - 1) << shift)
    placed = _bin("<<", _cast(wt, bits), Const(T.INT, shift, str(shift)))
    return _bin("|", _bin("&", word, _const(wt, keep)), placed)


# ----------------------------------------------------------------------------- places


class Words:
    """The words of one struct or union value: a local's variables, or an aggregate's expressions."""

    def __init__(self, wt: T.Int, exprs: list[Expr], syms: list[Symbol] | None = None) -> None:
        self.wt = wt
        self.exprs = exprs  # the current value of each word (a Var for a local, until known otherwise)
        self.syms = syms  # a local's word variables; None for a value
        self.reads: dict[int, int] = {}

    def get(self, k: int) -> Expr:
        self.reads[k] = self.reads.get(k, 0) + 1
        return self.exprs[k]


@dataclass
class Place:
    """A subobject: bytes ``offset ..`` of ``words``, of type ``type``; ``alts`` are the other places
    a non-constant index may pick, each with its condition (``(cond, offset)``)."""

    words: Words
    offset: int
    type: T.CType
    alts: list[tuple[Expr | None, int]] = field(default_factory=list)


class RecordLowering:
    """The pass over one function (see the module docstring)."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.names = NameMaker(fn)
        self.locals: dict[Symbol, tuple[T.Int, list[Symbol]]] = {}  # a local record -> its words
        self.rtype: dict[Symbol, T.Record] = {}  # a local record -> its type
        self.pun = {s for s in fn.locals if isinstance(s.type, T.Record) and T.punnable(s.type)}
        self.known: dict[Symbol, Expr] = {}  # word variable -> its constant value, in straight-line code
        self.out: list[Stmt] = []  # the statements the current assignment becomes
        for s in list(fn.locals):
            if isinstance(s.type, T.Record) and s not in self.pun:
                why = record_problem(s.type)
                if why:
                    raise error(s.coord, f"local {'union' if s.type.is_union else 'struct'} '{s.name}' cannot be "
                                f"vectorized: {why}", "use scalar locals")
                wt, n = word_type(s.type), word_count(s.type)
                syms = [s] if n == 1 else [self.names.local(f"{s.name}_w{k}", wt, s.coord) for k in range(n)]
                self.locals[s] = (wt, syms)
                self.rtype[s] = s.type
        for s, (wt, syms) in self.locals.items():
            for w in syms:
                w.type = wt
                w.temp = True
        if any(len(syms) > 1 for _, syms in self.locals.values()):
            fn.locals = [s for s in fn.locals if s not in self.locals or self.locals[s][1] == [s]]

    # ---------------------------------------------------------------- expressions
    def is_ours(self, e: Expr) -> bool:
        """``e`` is (a member or element of) a local record of this pass, or an aggregate."""
        while isinstance(e, (Member, Index)) and not (isinstance(e, Member) and e.arrow) \
                and not (isinstance(e, Index) and not isinstance(e.base.type, T.Array)):
            e = e.base
        return isinstance(e, Aggregate) or (isinstance(e, Var) and e.sym in self.locals)

    def root_words(self, e: Expr, co: Coord | None) -> Words:
        if isinstance(e, Var):
            wt, syms = self.locals[e.sym]
            return Words(wt, [self.known.get(w) or Var(wt, w) for w in syms], syms)
        assert isinstance(e, Aggregate)
        return self.aggregate(e, co)

    def aggregate(self, e: Aggregate, co: Coord | None) -> Words:
        t = e.type
        assert isinstance(t, T.Record)
        why = record_problem(t)
        if why:
            raise error(co, f"this compound literal cannot be vectorized: {why}")
        wt = word_type(t)
        w = Words(wt, [_const(wt, 0) for _ in range(word_count(t))])
        for path, value in e.items:
            place = Place(w, 0, t)
            for step in path:
                place = self.step(place, step, co)
            self.store(place, self.read(value, co), co)
        return w

    def step(self, p: Place, step: str | int | Expr, co: Coord | None) -> Place:
        """The member ``step`` (a name) or element ``step`` (an index) of ``p``."""
        t = p.type
        if isinstance(step, str):
            assert isinstance(t, T.Record)
            off, ft = member_offset(t, step)
            return Place(p.words, p.offset + off, ft, [(c, o + off) for c, o in p.alts])
        assert isinstance(t, T.Array) and t.length
        es = t.elem.size()
        k = step if isinstance(step, int) else fold_int(step)
        if k is not None:
            if not 0 <= k < t.length:
                raise error(co, f"index {k} is out of the bounds of an array of {t.length} elements")
            return Place(p.words, p.offset + k * es, t.elem, [(c, o + k * es) for c, o in p.alts])
        assert isinstance(step, Expr)
        if any(isinstance(n, Call) for n in step.walk()):
            raise error(co, "a call in the index of an array member of a local struct or union is not supported",
                        "assign the index to a variable first")
        alts: list[tuple[Expr | None, int]] = []
        for c, o in p.alts or [(None, p.offset)]:
            for k in range(t.length):
                test = Binary(T.INT, "==", step, Const(step.type, k, str(k)))
                alts.append((test if c is None else Binary(T.INT, "&&", c, test), o + k * es))
        if len(alts) > MAX_ALTERNATIVES:
            raise error(co, f"a non-constant index into an array member of a local struct or union chooses among "
                        f"{len(alts)} elements (at most {MAX_ALTERNATIVES} are supported)")
        return Place(p.words, alts[0][1], t.elem, alts)

    def place(self, e: Expr, co: Coord | None) -> Place:
        """The place of ``e``, a chain of members and elements of one of ours."""
        if isinstance(e, Member):
            return self.step(self.place(e.base, co), e.name, co)
        if isinstance(e, Index):
            return self.step(self.place(e.base, co), e.index, co)
        return Place(self.root_words(e, co), 0, e.type)

    def scalar_at(self, p: Place, off: int) -> Expr:
        wb = p.words.wt.size()
        return extract(p.words.get(off // wb), off % wb, p.type)

    def load(self, p: Place) -> Expr:
        """The value of scalar place ``p``."""
        if not p.alts:
            return self.scalar_at(p, p.offset)
        value = self.scalar_at(p, p.alts[-1][1])
        for c, off in reversed(p.alts[:-1]):
            assert c is not None
            value = Cond(p.type, c, self.scalar_at(p, off), value)
        return value

    def read(self, e: Expr, co: Coord | None) -> Expr:
        """``e`` with every read of ours made of word operations (``e`` may be record-typed only as a
        whole value that ``store`` copies: then it comes back unchanged)."""
        self.check_address(e, co)
        if isinstance(e.type, T.Record) and (self.is_ours(e) or isinstance(e, Aggregate)):
            return e

        def f(n: Expr) -> Expr:
            if isinstance(n, (Member, Index)) and not isinstance(n.type, (T.Record, T.Array)) and self.is_ours(n):
                p = self.place(n, co)
                before = dict(p.words.reads)
                v = self.load(p)
                self.once(p.words, before, co)
                return v
            return n

        out = map_expr(e, f)
        for n in out.walk():
            if isinstance(n.type, T.Record) and (isinstance(n, Aggregate) or isinstance(n, Var) and n.sym in self.locals
                                                 or isinstance(n, (Member, Index)) and self.is_ours(n)):
                raise error(co, "a local struct or union is used here as a value (an argument, an operand), which "
                            "is not supported", "read its members")
            if isinstance(n, (Member, Index)) and isinstance(n.type, T.Array) and self.is_ours(n):
                raise error(co, "an array member of a local struct or union is used here as a pointer, which is "
                            "not supported", "index it: u.a[i]")
        return out

    @staticmethod
    def once(words: Words, before: dict[int, int], co: Coord | None) -> None:
        """Refuse to read twice a word of a value that contains a call (the call would run twice)."""
        if words.syms is not None:
            return
        for k, n in words.reads.items():
            if n - before.get(k, 0) > 1 and any(isinstance(x, Call) for x in words.exprs[k].walk()):
                raise error(co, "a compound literal holding a call's result is read more than once here",
                            "assign the call's result to a variable first")

    def check_address(self, e: Expr, co: Coord | None) -> None:
        for n in e.walk():
            if isinstance(n, Unary) and n.op == "&" and self.is_ours(n.operand):
                raise error(co, "the address of a local struct or union (or of its member) cannot be vectorized",
                            "copy the member to a scalar variable and pass that variable's address")
            if isinstance(n, (Member, Index)) and isinstance(n.type, T.Array) and self.is_ours(n) \
                    and not self._indexed(e, n):
                raise error(co, "an array member of a local struct or union is used here as a pointer, which is "
                            "not supported", "index it: u.a[i]")

    @staticmethod
    def _indexed(e: Expr, arr: Expr) -> bool:
        return any(isinstance(n, Index) and n.base is arr for n in e.walk())

    # ---------------------------------------------------------------- stores
    def store(self, p: Place, value: Expr, co: Coord | None) -> None:
        """``p = value`` into ``p.words`` (``value`` read already: a scalar, or a record value of ours)."""
        if isinstance(p.type, T.Record):
            self.copy(p, value, co)
            return
        if isinstance(p.type, T.Array):
            raise error(co, "assignment to an array")
        wb = p.words.wt.size()
        alts = p.alts or [(None, p.offset)]
        if len(alts) > 1 and not isinstance(value, (Var, Const)):  # (one evaluation of the value)
            tmp = self.names.local("elem", value.type, co)
            self.out.append(Assign(co, Var(value.type, tmp), value))
            value = Var(value.type, tmp)
        for c, off in alts:
            k = off // wb
            old = p.words.get(k)
            new = insert(old, off % wb, p.type, value)
            if c is not None:
                new = Cond(p.words.wt, c, new, old)
            p.words.exprs[k] = new
            self.emit(p.words, k, co)

    def copy(self, dst: Place, value: Expr, co: Coord | None) -> None:
        """Copy record ``value`` into ``dst`` byte by byte (in the widest pieces both sides allow)."""
        t = dst.type
        if value.type is not t:
            raise error(co, f"cannot assign '{value.type}' to '{t}'")
        if dst.alts:
            raise error(co, "a struct or union copied to an array element chosen by a non-constant index is not "
                        "supported", "copy its members")
        if isinstance(value, Var) and value.sym in self.pun:
            sym = value.sym
            f0, ft0 = sym.type.fields[0]  # type: ignore[union-attr]
            src_words = Words(_uint(8 if t.size() > 4 else 4), [])
            src_words.exprs = [insert(_const(src_words.wt, 0), 0, ft0, Member(ft0, Var(sym.type, sym), f0))]
            src = Place(src_words, 0, t)
        elif self.is_ours(value):
            src = self.place(value, co)
            if src.alts:
                raise error(co, "a struct or union copied from an array element chosen by a non-constant index is "
                            "not supported", "copy its members")
        else:
            raise error(co, "copying a struct or union from memory, a call or an expression into a local one is not "
                        "supported", "copy its members one by one")
        size = t.size()
        wd, ws = dst.words.wt.size(), src.words.wt.size()
        pieces: list[int] = []
        pos = 0
        while pos < size:
            n = 8
            while n > 1 and ((dst.offset + pos) % n or (src.offset + pos) % n or size - pos < n or n > wd or n > ws):
                n //= 2
            pieces.append(n)
            pos += n
        self.read_first(dst, src, pieces, co)
        pos = 0
        for n in pieces:
            piece = _uint(n)
            before = dict(src.words.reads)
            bits = extract(src.words.get((src.offset + pos) // ws), (src.offset + pos) % ws, piece)
            self.once(src.words, before, co)
            self.store(Place(dst.words, dst.offset + pos, piece), bits, co)
            pos += n

    def read_first(self, dst: Place, src: Place, pieces: list[int], co: Coord | None) -> None:
        """C reads the whole value before the copy writes: a word of a value (``(r3){s.y, s.x}``) that
        reads a word of the destination an earlier piece writes is read into a temporary first."""
        if src.words.syms is not None or dst.words.syms is None:
            return
        wd, ws = dst.words.wt.size(), src.words.wt.size()
        written: set[Symbol] = set()
        pos = 0
        for n in pieces:
            k = (src.offset + pos) // ws
            x = src.words.exprs[k]
            if any(isinstance(v, Var) and v.sym in written for v in x.walk()):
                tmp = self.names.local(f"{dst.words.syms[0].name.rsplit('_w', 1)[0]}_word", src.words.wt, co)
                self.out.append(Assign(co, Var(tmp.type, tmp), x))
                src.words.exprs[k] = Var(tmp.type, tmp)
            written.add(dst.words.syms[(dst.offset + pos) // wd])
            pos += n

    def emit(self, words: Words, k: int, co: Coord | None) -> None:
        """A changed word of a local becomes an assignment (the word of a value just changes)."""
        if words.syms is None:
            return
        sym = words.syms[k]
        value = words.exprs[k]
        self.out.append(Assign(co, Var(words.wt, sym), value))
        if isinstance(value, Const):
            self.known[sym] = value
        else:
            self.known.pop(sym, None)
        words.exprs[k] = self.known.get(sym) or Var(words.wt, sym)

    # ---------------------------------------------------------------- statements
    def stmts(self, stmts: list[Stmt]) -> list[Stmt]:
        saved, self.known = self.known, {}
        out: list[Stmt] = []
        for s in stmts:
            out.extend(self.stmt(s))
        self.known = saved
        return self.drop_overwritten(out)

    def drop_overwritten(self, out: list[Stmt]) -> list[Stmt]:
        """Without the constant stores to words (a declaration's zero) that the assignments right after
        overwrite before anything reads them (``ew_u.value = d`` after ``ieee_double_shape_type ew_u;``)."""
        words = {w for _, syms in self.locals.values() for w in syms}
        return drop_overwritten(out, lambda s: isinstance(s.value, Const) and s.target.sym in words)

    def stmt(self, s: Stmt) -> list[Stmt]:
        co = s.coord
        if not isinstance(s, Assign):
            self.known = {}
        if isinstance(s, Assign):
            return self.assign(s)
        if isinstance(s, ExprStmt):
            return [ExprStmt(co, self.read(s.expr, co), s.mask)]
        if isinstance(s, If):
            return [If(co, self.read(s.cond, co), self.stmts(s.then), self.stmts(s.els), s.likely)]
        if isinstance(s, Return):
            return [Return(co, None if s.value is None else self.read(s.value, co))]
        if isinstance(s, Block):
            return [Block(co, self.stmts(s.body))]
        if isinstance(s, Loop):
            s.init = self.stmts(s.init)
            s.cond = None if s.cond is None else self.read(s.cond, co)
            s.body = self.stmts(s.body)
            s.step = self.stmts(s.step)
            return [s]
        if isinstance(s, Label):
            return [s]
        return [s]

    def assign(self, s: Assign) -> list[Stmt]:
        co = s.coord
        self.out: list[Stmt] = []
        tgt = s.target
        self.check_address(tgt, co)
        if self.is_ours(tgt):
            if isinstance(tgt, Aggregate) or not isinstance(tgt, (Var, Member, Index)) or self._root_is_aggregate(tgt):
                raise error(co, "assignment to a compound literal is not supported")
            value = self.read(s.value, co)
            place = self.place(self._read_indexes(tgt, co), co)
            self.store(place, value, co)
            return self.out
        value = self.read(s.value, co)
        if isinstance(tgt, Var) and tgt.sym in self.pun and isinstance(value.type, T.Record):
            # a punning union (expand/passes/lower.py) given a value of ours: its first member's bits
            if not (self.is_ours(value) or isinstance(value, Aggregate)):
                return [Assign(co, tgt, value)]
            src = self.place(value, co)
            f0, ft0 = tgt.sym.type.fields[0]  # type: ignore[union-attr]
            return [Assign(co, Member(ft0, tgt, f0), self.load(Place(src.words, src.offset, ft0)))]
        if isinstance(value.type, T.Record) and (self.is_ours(value) or isinstance(value, Aggregate)):
            raise error(co, "copying a local struct or union to memory is not supported", "copy its members")
        self.known = {}
        return [Assign(co, self.read(tgt, co) if not isinstance(tgt, Var) else tgt, value, s.mask, s.blend)]

    def _root_is_aggregate(self, e: Expr) -> bool:
        while isinstance(e, (Member, Index)):
            e = e.base
        return isinstance(e, Aggregate)

    def _read_indexes(self, e: Expr, co: Coord | None) -> Expr:
        """A target chain with the reads of ours in its indexes lowered."""
        if isinstance(e, Member):
            return Member(e.type, self._read_indexes(e.base, co), e.name, e.arrow)
        if isinstance(e, Index):
            return Index(e.type, self._read_indexes(e.base, co), self.read(e.index, co))
        return e


def drop_overwritten(out: list[Stmt], droppable: Callable[[Assign], bool]) -> list[Stmt]:
    """``out`` without the assignments to a variable that ``droppable`` names (a declaration's zero)
    and that the assignments right after overwrite before any statement reads the variable or
    branches (records' words here; expand/passes/struct_fields.py's members)."""
    keep: list[Stmt] = []
    for i, s in enumerate(out):
        if isinstance(s, Assign) and isinstance(s.target, Var) and droppable(s):
            v = s.target.sym
            dead = False
            for later in out[i + 1:]:
                if not isinstance(later, Assign) or v in stmt_reads(later):
                    break
                if isinstance(later.target, Var) and later.target.sym is v:
                    dead = True
                    break
            if dead:
                continue
        keep.append(s)
    return keep


def lower_records(fn: Function) -> None:
    """Hold ``fn``'s local structs and unions (except punning unions) and its compound literals as
    words (see the module docstring)."""
    has_aggregate = False
    from expand.ir.nodes import stmt_exprs, walk_stmts
    for s in walk_stmts(fn.body):
        if any(isinstance(n, Aggregate) for e in stmt_exprs(s) for n in e.walk()):
            has_aggregate = True
            break
    if not has_aggregate and not any(isinstance(s.type, T.Record) and not T.punnable(s.type) for s in fn.locals):
        return
    low = RecordLowering(fn)
    fn.body = low.stmts(fn.body)
    for s in walk_stmts(fn.body):
        for e in stmt_exprs(s):
            for n in e.walk():
                if isinstance(n, Var) and n.sym in low.locals and isinstance(n.type, T.Record):
                    raise error(s.coord, f"local {'union' if low.rtype[n.sym].is_union else 'struct'} "
                                f"'{n.sym.name}' is used in a way that cannot be vectorized", "read its members")
