"""Reader for C files through gcc -E and libclang, into the same typed IR as the pycparser frontend.

The second frontend (issue 7).  It produces the IR of :mod:`expand.ir.nodes` node for node equal to
:mod:`frontends.pycparser_frontend`'s (``python -m expand.check.crosscheck`` proves it on the corpus),
so ``expand_module`` prints byte-identical C whichever frontend read the file.

What comes from clang, and what follows the project's conventions:

* **Preprocessing** is gcc's (the target's: ``cc``), with the pycparser frontend's flags (``gcc -E
  -std=c11 -D_Float128=double``), and clang parses the preprocessed text for the same target
  (``--target`` from ``cc -dumpmachine``, plain ``char``'s signedness from ``__CHAR_UNSIGNED__``).
  Both frontends then see the same tokens: glibc's headers take the same ``__GNUC__`` branches as
  the gcc that compiles and verifies the output, and statement columns inside macro expansions are
  the same (clang's own preprocessor would report them at the macro call).  Positions are clang's
  *presumed* locations, which follow gcc's line markers back to the user's file.
* **Parsing, name resolution and diagnostics** are clang's: any clang error becomes the
  ``file:line:col: error:`` of :mod:`expand.ir.diagnostics`, with a note naming the pycparser frontend.
* **Types**: every expression's canonical type, every implicit conversion (clang's
  ``ImplicitCastExpr``, seen as ``UNEXPOSED_EXPR``) and constant values come from clang.  At each
  operator the frontend also applies the project's rules (:mod:`expand.ir.types`: ``promote``,
  ``usual_arith``) and compares: where they disagree, clang's type wins in the IR and the
  disagreement is recorded in :attr:`ClangReader.mismatches` (a bug in our rules).
* **Spelling** of types (``uint32_t`` vs ``unsigned int``), the shape of the IR (explicit ``Cast``
  nodes, folded integer constants, libm calls as plain calls, flattened ``do { } while (0)``,
  local initializers as ``Assign``) and the statement coordinates follow the pycparser frontend,
  because the printed output depends on them.  Clang keeps typedef sugar differently (``int32_t +
  1`` is ``int`` to clang, ``int32_t`` to our rules; ``1ll`` is ``long long``) and drops the words of
  builtin types (``unsigned`` vs ``unsigned int``), so spellings are rebuilt from the declarations'
  text.

``read_file_any`` picks a frontend; see its docstring for the ``auto`` policy.
"""

from __future__ import annotations

import ctypes
import os
import re
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from expand.ir import types as T
from expand.ir.diagnostics import ExpandError, error
from expand.ir.nodes import (
    Assign,
    Block,
    Break,
    Const,
    Continue,
    Coord,
    Expr,
    ExprStmt,
    Function,
    Goto,
    If,
    InitList,
    Label,
    Module,
    Stmt,
    Symbol,
    Var,
)
from expand.passes.fold import fold_int

from . import fenv
from . import initializers as inits
from .builder import NESTING_HINT, Builder, name_typedef_record, typedef_spelled
from .csemantics import (
    closing_bracket,
    knr_error,
    long_double_literal,
    module_prologue,
    parse_declare_simd,
    preprocessed,
    split_top,
    template_files,
)
from .statements import CaseLabel, compound_literal

try:  # libclang is optional (the [test] extra): read_file_any falls back to pycparser without it
    import clang.cindex as ci
except ImportError:  # pragma: no cover - depends on the environment
    ci = None

CLANG_ARGS = ["-x", "c", "-std=gnu17", "-nostdinc"]  # the input is already preprocessed
PYCPARSER_HINT = "the pycparser frontend (--frontend pycparser) reads C with gcc -E and pycparser instead"

# --------------------------------------------------------------------------- libclang plumbing

_UNARY_KINDS = {1: "p++", 2: "p--", 3: "++", 4: "--", 5: "&", 6: "*", 7: "+", 8: "-", 9: "~", 10: "!",
                11: "__real", 12: "__imag", 13: "__extension__"}
_BINARY_KINDS: dict[int, str] = {}
_CXTYPE_ATTRIBUTED = 163
#: the attribute cursors of a function declaration that say it has no side effects (Module.effects)
_EFFECT_ATTRS = {"CONST_ATTR": "const", "PURE_ATTR": "pure"}
_lib = None


def available() -> bool:
    """True when libclang can be loaded."""
    try:
        _setup()
    except Exception:
        return False
    return True


def _setup():
    """Declare the libclang functions cindex 18.1.1 does not wrap (operator kinds, presumed locations,
    evaluation, variable initializers)."""
    global _lib
    if _lib is not None:
        return _lib
    if ci is None:
        raise ImportError("the libclang Python package is not installed (pip install libclang)")
    lib = ci.conf.lib
    void_p, cursor, c_int = ctypes.c_void_p, ci.Cursor, ctypes.c_int
    uint_p = ctypes.POINTER(ctypes.c_uint)
    for name, args, result in (  # (function, argument types, result type)
            ("clang_getCursorBinaryOperatorKind", [cursor], c_int),
            ("clang_getCursorUnaryOperatorKind", [cursor], c_int),
            ("clang_getBinaryOperatorKindSpelling", [c_int], ci._CXString),
            ("clang_getUnaryOperatorKindSpelling", [c_int], ci._CXString),
            ("clang_getPresumedLocation", [ci.SourceLocation, ctypes.POINTER(ci._CXString), uint_p, uint_p], None),
            ("clang_Cursor_Evaluate", [cursor], void_p),
            ("clang_EvalResult_getKind", [void_p], c_int),
            ("clang_EvalResult_isUnsignedInt", [void_p], ctypes.c_uint),
            ("clang_EvalResult_getAsUnsigned", [void_p], ctypes.c_ulonglong),
            ("clang_EvalResult_getAsLongLong", [void_p], ctypes.c_longlong),
            ("clang_EvalResult_getAsDouble", [void_p], ctypes.c_double),
            ("clang_EvalResult_dispose", [void_p], None),
            ("clang_Cursor_getVarDeclInitializer", [cursor], cursor)):
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, result
    # The unary kinds are numbers in this version's enum: check the table against libclang itself.
    for k, s in _UNARY_KINDS.items():
        got = ci._CXString.from_result(lib.clang_getUnaryOperatorKindSpelling(k))
        if got != s.strip("p"):
            raise ImportError(f"libclang's unary operator kind {k} is '{got}', expected '{s}'")
    # Binary kinds 1..33 (kind 0, "invalid", crashes the spelling function): read the spellings once.
    for k in range(1, 34):
        _BINARY_KINDS[k] = ci._CXString.from_result(lib.clang_getBinaryOperatorKindSpelling(k))
    if _BINARY_KINDS.get(6) != "+" or _BINARY_KINDS.get(22) != "=":
        raise ImportError("unexpected libclang binary operator kinds")
    _lib = lib
    return lib


def binary_op(c) -> str:
    """The operator of a BINARY_OPERATOR / COMPOUND_ASSIGNMENT_OPERATOR cursor ('+', '<<=', ',')."""
    return _BINARY_KINDS.get(_lib.clang_getCursorBinaryOperatorKind(c), "?")


def unary_op(c) -> str:
    """The operator of a UNARY_OPERATOR cursor, spelled as pycparser does ('p++' is postfix)."""
    return _UNARY_KINDS.get(_lib.clang_getCursorUnaryOperatorKind(c), "?")


def evaluate(c) -> int | float | None:
    """Clang's value of a constant expression cursor (integers keep their sign)."""
    r = _lib.clang_Cursor_Evaluate(c)
    if not r:
        return None
    try:
        kind = _lib.clang_EvalResult_getKind(r)
        if kind == 1:  # CXEval_Int
            if _lib.clang_EvalResult_isUnsignedInt(r):
                return int(_lib.clang_EvalResult_getAsUnsigned(r))
            return int(_lib.clang_EvalResult_getAsLongLong(r))
        if kind == 2:  # CXEval_Float
            return float(_lib.clang_EvalResult_getAsDouble(r))
        return None
    finally:
        _lib.clang_EvalResult_dispose(r)


def presumed(loc) -> tuple[str, int, int]:
    """File, line and column of ``loc`` as gcc's line markers say (the user's file and line)."""
    f = ci._CXString()
    line, col = ctypes.c_uint(), ctypes.c_uint()
    _lib.clang_getPresumedLocation(loc, ctypes.byref(f), ctypes.byref(line), ctypes.byref(col))
    return ci._CXString.from_result(f), line.value, col.value


def var_init(c):
    """The initializer expression of a VAR_DECL cursor, or None."""
    r = _lib.clang_Cursor_getVarDeclInitializer(c)
    if r is None or r == _lib.clang_getNullCursor():
        return None
    r._tu = c._tu
    return r


_BASIC_WORDS = {"void", "_Bool", "char", "short", "int", "long", "signed", "unsigned", "float", "double",
                "__int128", "_Complex", "__signed__", "__signed"}
_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__", "__const", "__volatile__",
               "__volatile"}




def _system_header(file: str) -> bool:
    return file.startswith("/usr/") or file.startswith("<")


class TypeMismatch:
    """One place where our C type rules (expand.ir.types) and clang disagree."""

    def __init__(self, coord: Coord, text: str, what: str, ours: T.CType, clang: str) -> None:
        self.coord, self.text, self.what, self.ours, self.clang = coord, text, what, ours, clang

    def __str__(self) -> str:
        return f"{self.coord}: {self.what} of '{self.text}': our rules say '{self.ours}', clang says '{self.clang}'"


# --------------------------------------------------------------------------- the reader


class ClangReader(Builder):
    """Builds a Module from one clang translation unit of gcc-preprocessed text."""

    def __init__(self, path: str, source: str, tu, buf_name: str, buf: bytes, target: T.Target = T.HOST) -> None:
        super().__init__(path, source, target)
        K = ci.CursorKind
        self.K = K
        self.record_errors: dict[object, ExpandError] = {}
        self.enum_rules: dict[object, T.Int] = {}
        self.depth = 0  # of expr(): stop before Python's recursion limit (inside libclang's callbacks,
        self.max_depth = 200  # hitting it prints ctypes noise instead of raising)
        self.tu = tu
        self.buf_name = buf_name
        self.buf = buf
        self._file = tu.get_file(buf_name)
        self._line_starts = [0] + [m.end() for m in re.finditer(b"\n", buf)]
        self.records: dict[object, T.Record] = {}
        self.typedefs: dict[object, T.CType] = {}
        self.global_decls: dict[str, object] = {}
        self.group_head: dict[int, object] = {}
        self.local_syms: dict[int, Symbol] = {}
        self.mismatches: list[TypeMismatch] = []
        self._mismatch_seen: set[str] = set()
        self._walk_first = {K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR,
                            K.UNARY_OPERATOR, K.CONDITIONAL_OPERATOR, K.ARRAY_SUBSCRIPT_EXPR, K.CALL_EXPR,
                            K.MEMBER_REF_EXPR}
        self._pcoord_memo: dict[object, Coord] = {}

    # ------------------------------------------------------------------ positions
    def loc_coord(self, loc) -> Coord:
        f, line, col = presumed(loc)
        if not f:
            return Coord(self.path, 1, 1)
        off = loc.offset
        phys = self._phys_line(off)
        start = self._line_starts[phys]
        raw = self.buf[start:off]
        if not raw.isascii():  # pycparser counts characters, clang bytes
            col = len(raw.decode("utf-8", "replace")) + 1
        return Coord(f, line, col)

    def _phys_line(self, off: int) -> int:
        lo, hi = 0, len(self._line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self._line_starts[mid] <= off:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def offset_coord(self, off: int) -> Coord:
        return self.loc_coord(ci.SourceLocation.from_offset(self.tu, self._file, off))

    def coord(self, c) -> Coord:
        return self.loc_coord(c.location)

    def start_coord(self, c) -> Coord:
        return self.loc_coord(c.extent.start)

    def pcoord(self, c) -> Coord:
        """The position pycparser gives an expression: its leftmost operand's token, except casts and
        sizeof (their first token); parentheses are transparent."""
        K = self.K
        walked = []  # every cursor on the leftmost chain gets the same answer: each is walked once
        while True:
            known = self._pcoord_memo.get(c)
            if known is not None:
                break
            walked.append(c)
            k = c.kind
            if k in self._walk_first:
                ch = self.children(c)
                if ch and (k != K.UNEXPOSED_EXPR or self.is_cast(c)):
                    c = ch[0]
                    continue
            known = self.start_coord(c) if k in (K.CSTYLE_CAST_EXPR, K.CXX_UNARY_EXPR) else self.coord(c)
            break
        for w in walked:
            self._pcoord_memo[w] = known
        return known

    def decl_coord(self, d) -> Coord:
        """pycparser's position of a declarator: its name, or the ``*`` next to it."""
        off = d.location.offset
        if d.kind != self.K.FUNCTION_DECL:
            before = self.slice(max(0, off - 200), off)
            m = re.search(r"\*(?:\s*(?:" + "|".join(_QUALIFIERS) + r")\b)*\s*$", before)
            if m:
                return self.offset_coord(off - len(before[m.start():].encode()))
        return self.coord(d)

    def slice(self, start: int, end: int) -> str:
        """The preprocessed text between two byte offsets."""
        return self.buf[start:end].decode("utf-8", "replace")

    def text(self, c, limit: int = 60) -> str:
        s = self.slice(c.extent.start.offset, c.extent.end.offset)
        s = " ".join(ln for ln in s.splitlines() if not ln.startswith("#"))
        s = re.sub(r"\s+", " ", s)
        return s if len(s) <= limit else s[:limit - 3] + "..."

    # ------------------------------------------------------------------ cursor helpers
    @staticmethod
    def children(c) -> list:
        return list(c.get_children())

    def is_cast(self, c) -> bool:
        """An implicit conversion (clang's ImplicitCastExpr shows as UNEXPOSED_EXPR with one operand)."""
        if c.kind != self.K.UNEXPOSED_EXPR:
            return False
        ch = self.children(c)
        # (and spans its operand exactly: a type trait such as __builtin_types_compatible_p (__typeof (y),
        # float) is an UNEXPOSED_EXPR with one expression child too, but a longer text)
        return len(ch) == 1 and ch[0].kind.is_expression() and \
            (c.extent.start.offset, c.extent.end.offset) == (ch[0].extent.start.offset, ch[0].extent.end.offset)

    def strip(self, c):
        """Without parentheses and clang's implicit conversions (this IR makes its own)."""
        K = self.K
        while True:
            if c.kind == K.PAREN_EXPR:
                c = self.children(c)[0]
            elif c.kind == K.UNEXPOSED_EXPR and self.is_cast(c):
                c = self.children(c)[0]
            elif c.kind == K.UNARY_OPERATOR and unary_op(c) == "__extension__":
                c = self.children(c)[0]
            else:
                return c

    def strip_parens(self, c):
        while c.kind == self.K.PAREN_EXPR:
            c = self.children(c)[0]
        return c

    def key(self, d) -> int:
        return d.location.offset

    def spec(self, d) -> tuple[list[str], set[str]]:
        """Basic-type words and qualifiers of a declaration's specifiers, read from its text
        (clang normalizes ``unsigned`` to ``unsigned int``; the IR keeps the user's spelling)."""
        head = self.group_head.get(self.key(d), d)
        start, end = head.extent.start.offset, head.location.offset
        if head.kind == self.K.PARM_DECL and (not head.spelling or end < start):
            end = head.extent.end.offset
        return self._spec_text(self.buf[start:end].decode("utf-8", "replace"))

    @staticmethod
    def _spec_text(s: str) -> tuple[list[str], set[str]]:
        s = re.sub(r"__attribute__\s*\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)", " ", s)
        words = re.findall(r"[A-Za-z_]\w*", s)
        basic = [w for w in words if w in _BASIC_WORDS]
        basic = ["signed" if w in ("__signed__", "__signed") else w for w in basic]
        quals = {w.strip("_") for w in words if w in _QUALIFIERS}
        return basic, quals | {w for w in words if w in ("inline", "static", "extern")}

    def is_continuation(self, d) -> bool:
        """A second declarator of one declaration (``int a, *b;``): its specifiers are the first's."""
        s = self.buf[d.extent.start.offset:d.location.offset].decode("utf-8", "replace")
        s = re.sub(r"\b(?:" + "|".join(_QUALIFIERS) + r")\b", " ", s)
        return re.fullmatch(r"[\s*(]*", s) is not None

    def note_group(self, d, prev) -> None:
        if prev is not None and self.is_continuation(d):
            self.group_head[self.key(d)] = self.group_head.get(self.key(prev), prev)

    def paren_words(self, start: int) -> list[str]:
        """Basic-type words of the parenthesized type name starting at byte ``start``."""
        end = closing_bracket(self.buf, start, b"()")
        return self._spec_text(self.buf[start:end + 1].decode("utf-8", "replace"))[0]

    # ------------------------------------------------------------------ types
    def ctype(self, t, words: list[str] | None = None, where: Coord | None = None) -> T.CType:
        """The CType of a clang type; ``words`` spell its innermost basic type as the source does."""
        TK = ci.TypeKind
        if t._kind_id == _CXTYPE_ATTRIBUTED:  # not in cindex 18's TypeKind table
            return self.ctype(_lib_modified_type(t), words, where)
        try:
            k = t.kind
        except ValueError:  # another kind this cindex does not know: its canonical type
            canon = t.get_canonical()
            if canon == t:  # (_Float16, __bf16: no other spelling)
                raise error(where or self.here, f"type '{t.spelling}' is not supported",
                            "expand handles integer types up to 64 bits, float and double") from None
            return self.ctype(canon, words, where)
        if k == TK.ELABORATED:
            return self.ctype(t.get_named_type(), words, where)
        if k == TK.TYPEDEF:
            d = t.get_declaration()
            return typedef_spelled(self.typedef_type(d), d.spelling)
        if k == TK.POINTER:
            pt = t.get_pointee()
            return T.Pointer(self.ctype(pt, words, where), const=pt.is_const_qualified())
        if k == TK.CONSTANTARRAY:
            return T.Array(self.ctype(t.element_type, words, where), t.element_count)
        if k == TK.INCOMPLETEARRAY:
            return T.Array(self.ctype(t.element_type, words, where), None)
        if k in (TK.VARIABLEARRAY, TK.DEPENDENTSIZEDARRAY):
            raise error(where, "variable-length arrays are not supported")
        if k == TK.ATOMIC:
            raise error(where, "_Atomic types are not supported")
        if k == TK.RECORD:
            return self.record(t.get_declaration())
        if k == TK.ENUM:  # GCC's rule (T.enum_type), checked against clang's
            d = t.get_declaration()
            ours = self.enum_rule(d, where)
            theirs = self.canon(t)
            if theirs != ours:
                self.mismatch(TypeMismatch(where or Coord(self.path, 1, 1), t.spelling, "underlying type", ours,
                                           d.enum_type.get_canonical().spelling))
            return theirs
        if k == TK.FUNCTIONPROTO:
            params = []
            for a in t.argument_types():
                pt = self.ctype(a, None, where)
                if not isinstance(pt, T.Void):
                    params.append(T.decay(pt))
            return T.Func(self.ctype(t.get_result(), words, where), tuple(params), t.is_function_variadic())
        if k == TK.FUNCTIONNOPROTO:
            return T.Func(self.ctype(t.get_result(), words, where), (), False)
        if k == TK.UNEXPOSED and t.get_canonical().kind != TK.UNEXPOSED:  # e.g. decayed parameter types
            return self.ctype(t.get_canonical(), words, where)
        base = self.basic(t, where, words)
        if words:
            key = tuple(sorted(words))
            spelled = T.BASIC_TYPES.get(key)
            if spelled is not None and spelled == base:
                return spelled
        return base

    def basic(self, t, where: Coord | None, words: list[str] | None = None) -> T.CType:
        """The canonical CType of a clang builtin type."""
        TK = ci.TypeKind
        k = t.get_canonical().kind
        table = {TK.VOID: T.VOID, TK.BOOL: T.BOOL, TK.CHAR_S: T.Int(8, True, spelling="char"),
                 TK.CHAR_U: T.Int(8, False, spelling="char"), TK.SCHAR: T.SCHAR,
                 TK.UCHAR: T.UCHAR, TK.SHORT: T.SHORT, TK.USHORT: T.USHORT, TK.INT: T.INT, TK.UINT: T.UINT,
                 TK.LONG: T.LONG, TK.ULONG: T.ULONG, TK.LONGLONG: T.LLONG, TK.ULONGLONG: T.ULLONG,
                 TK.FLOAT: T.FLOAT, TK.DOUBLE: T.DOUBLE}
        if k in table:
            return table[k]
        if k in (TK.VECTOR, TK.EXTVECTOR):
            raise error(where, "GCC vector types (__attribute__((vector_size))) are not supported",
                        "write the scalar function on scalar types: expand makes the vectors")
        spelled = " ".join(words) if words else t.get_canonical().spelling
        raise error(where, f"type '{spelled}' is not supported",
                    "expand handles integer types up to 64 bits, float and double")

    def canon(self, t) -> T.CType:
        """Clang's canonical type as a CType (enums are their underlying integer type)."""
        TK = ci.TypeKind
        c = t.get_canonical()
        k = c.kind
        if k == TK.POINTER:
            pt = c.get_pointee()
            return T.Pointer(self.canon(pt), const=pt.is_const_qualified())
        if k == TK.CONSTANTARRAY:
            return T.Array(self.canon(c.element_type), c.element_count)
        if k == TK.INCOMPLETEARRAY:
            return T.Array(self.canon(c.element_type), None)
        if k == TK.RECORD:
            return self.record(c.get_declaration())
        if k == TK.ENUM:
            return self.canon(c.get_declaration().enum_type)
        if k == TK.FUNCTIONPROTO:
            return T.Func(self.canon(c.get_result()), tuple(T.decay(self.canon(a)) for a in c.argument_types()),
                          c.is_function_variadic())
        if k == TK.FUNCTIONNOPROTO:
            return T.Func(self.canon(c.get_result()), (), False)
        return self.basic(c, None)

    def typedef_type(self, d) -> T.CType:
        key = self.key(d)
        t = self.typedefs.get(key)
        if t is None:
            t = self.ctype(d.underlying_typedef_type, self.spec(d)[0], self.start_coord(d))
            self.typedefs[key] = t
            name_typedef_record(t, d.spelling)
        return t

    def record(self, d) -> T.Record:
        defn = d.get_definition()
        key = self.key(defn if defn is not None else d.canonical)
        if key in self.record_errors:
            raise self.record_errors[key]
        r = self.records.get(key)
        if r is not None:
            return r
        is_union = d.kind == self.K.UNION_DECL
        # The tag as written ("struct tag {"); clang names an anonymous record after its typedef.
        head = self.slice(d.extent.start.offset, d.extent.start.offset + 300)
        head = re.sub(r"__attribute__\s*\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)", " ", head)
        m = re.match(r"\s*(?:struct|union)\s+([A-Za-z_]\w*)", head)
        tag = m.group(1) if m else None
        r = T.Record(tag, is_union, [], complete=defn is not None)
        self.records[key] = r
        if defn is not None:
            fields = []
            prev = None
            try:
                anon = self.anonymous_member(defn)
                if anon is not None:
                    raise error(self.start_coord(anon), "anonymous struct or union members are not supported")
                for f in self.children(defn):
                    if f.kind != self.K.FIELD_DECL:
                        continue
                    if f.is_bitfield():
                        raise error(self.decl_coord(f), "bit-fields are not supported")
                    self.note_group(f, prev)
                    prev = f
                    fields.append((f.spelling, self.ctype(f.type, self.spec(f)[0], self.start_coord(f))))
            except ExpandError as exc:  # every later use of the record says why (not "no member named ...")
                self.record_errors[key] = exc
                raise
            r.fields = fields
            r.coord = self.start_coord(defn)
            r.layout_problem = self.layout_problem(defn, r)
        return r

    def layout_problem(self, defn, r: T.Record) -> str:
        """Why ``r``'s size or member offsets (C's natural layout, expand.passes.records) may not be clang's
        (``__attribute__((packed))``, ``_Alignas``, ``#pragma pack``); "" when they are."""
        try:
            ct = defn.type
            if ct.get_size() != r.size():
                return f"its layout is not C's natural one (size {ct.get_size()}, not {r.size()})"
            from expand.passes.records import member_offset
            for name, _ in r.fields:
                if ct.get_offset(name) != 8 * member_offset(r, name)[0]:
                    return f"its layout is not C's natural one (member '{name}' is not where it would be)"
            if ct.get_align() != max((T.alignment(ft) for _, ft in r.fields), default=1):
                return "its alignment is not C's natural one"
        except (TypeError, ValueError, KeyError):
            return "its layout is unknown"
        return ""

    def enum_rule(self, d, where: Coord | None = None) -> T.Int:
        """Our rule's type for the enumeration declared by ``d`` (GCC's: T.enum_type)."""
        defn = d.get_definition()
        if defn is None:
            raise error(where, f"incomplete enumeration type 'enum {d.spelling}' is not supported")
        key = self.key(defn)
        t = self.enum_rules.get(key)
        if t is None:
            values = [x.enum_value for x in self.children(defn) if x.kind == self.K.ENUM_CONSTANT_DECL]
            packed = any(x.kind == self.K.PACKED_ATTR for x in self.children(defn))
            t = T.enum_type(values, packed)
            if t is None:
                raise error(self.coord(defn), "enumeration values exceed the range of the largest integer type")
            self.enum_rules[key] = t
        return t

    def func_type(self, d) -> T.Func:
        """The type of a FUNCTION_DECL, its parameters spelled by their own declarations."""
        TK = ci.TypeKind
        t = d.type
        where = self.start_coord(d)
        if t.kind not in (TK.FUNCTIONPROTO, TK.FUNCTIONNOPROTO):  # declared through a typedef: fn g;
            t = t.get_canonical()
        if self.is_knr(d):  # (read as its prototype form where that is the same function)
            for p in d.get_arguments():
                problem = knr_error(self.coord(d), d.spelling, p.spelling,
                                    self.ctype(p.type, self.spec(p)[0], self.start_coord(p)))
                if problem:
                    raise problem
        if t.kind == TK.FUNCTIONNOPROTO:
            return T.Func(self.ctype(t.get_result(), self.spec(d)[0], where), (), False)
        params = []
        for p in d.get_arguments():
            pt = self.ctype(p.type, self.spec(p)[0], self.start_coord(p))
            if not isinstance(pt, T.Void):
                params.append(T.decay(pt))
        return T.Func(self.ctype(t.get_result(), self.spec(d)[0], where), tuple(params), t.is_function_variadic())

    def is_knr(self, d) -> bool:
        """An old-style definition ``int f(x) int x; { ... }``: a parameter declared after the ``)`` of
        the parameter list (clang gives it a prototype type all the same)."""
        args = list(d.get_arguments())
        if not args:
            return False
        start = self.buf.find(b"(", d.location.offset)
        if start < 0:
            return False
        end = closing_bracket(self.buf, start, b"()")
        return any(a.extent.start.offset > end for a in args)

    def anonymous_member(self, defn):
        """The first anonymous struct/union member of a record definition (``struct { int a; };``
        inside it), or None: an unnamed record child that no field's type refers to."""
        K = self.K
        TK = ci.TypeKind
        kids = self.children(defn)
        unnamed = [x for x in kids if x.kind in (K.STRUCT_DECL, K.UNION_DECL) and x.is_anonymous()]
        if not unnamed:
            return None
        used = set()
        for f in kids:
            if f.kind == K.FIELD_DECL:
                t = f.type.get_canonical()
                while t.kind in (TK.POINTER, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY):
                    t = (t.get_pointee() if t.kind == TK.POINTER else t.element_type).get_canonical()
                if t.kind == TK.RECORD:
                    used.add(self.key(t.get_declaration()))
        return next((x for x in unnamed if self.key(x) not in used), None)

    def decl_type(self, d) -> T.CType:
        if d.kind == self.K.FUNCTION_DECL:
            return self.func_type(d)
        return self.ctype(d.type, self.spec(d)[0], self.start_coord(d))

    def agree(self, ours: T.CType, clang_type, c, what: str) -> T.CType:
        """``ours`` if clang's canonical type is the same, else clang's (and the mismatch is recorded)."""
        try:
            theirs = self.canon(clang_type)
        except ExpandError:
            theirs = None
        if theirs is None or theirs == ours and not (
                isinstance(ours, T.Int) and isinstance(theirs, T.Int) and ours.is_bool != theirs.is_bool):
            return ours
        self.mismatch(TypeMismatch(self.pcoord(c), self.text(c), what, ours, clang_type.get_canonical().spelling))
        return theirs

    def confirm(self, t: T.CType, c, what: str) -> T.CType:
        """``t``, checked against clang's type of cursor ``c`` (``agree``), where there is a cursor."""
        return t if c is None else self.agree(t, c.type, c, what)

    def mismatch(self, m: TypeMismatch) -> None:
        if str(m) not in self._mismatch_seen:
            self._mismatch_seen.add(str(m))
            self.mismatches.append(m)

    # ------------------------------------------------------------------ top level
    def read(self) -> Module:
        """The Module. A function of the user's file that fails is left out and its error kept in
        :attr:`failed` (``Module.failed``: raised if an expanded function needs it, expand/driver.py)."""
        K = self.K
        frames, f = 0, sys._getframe()
        while f is not None:
            frames += 1
            f = f.f_back
        # (each level of expr() takes at most 2 frames, and libclang's visitor 3 more at the deepest)
        self.max_depth = max(16, (sys.getrecursionlimit() - frames - 120) // 3)
        prev = None
        pragmas = self.pragmas()
        prev_end = 0
        for c in self.tu.cursor.get_children():
            while pragmas and pragmas[0][0] < c.extent.start.offset:
                off, text = pragmas.pop(0)
                if off >= prev_end:  # (a pragma inside a function body is a statement, ignored)
                    self.pragma(off, text)
            prev_end = max(prev_end, c.extent.end.offset)
            if c.kind in (K.VAR_DECL, K.FUNCTION_DECL):
                self.note_group(c, prev)
            prev = c
            self.toplevel(c)
        self.templates = template_files(self.buf.decode("utf-8", "replace"), self.path)
        prologue = module_prologue(self.source, self.templates)
        self.read_functions()
        return self.module(prologue)

    def pragmas(self) -> list[tuple[int, str]]:
        """(offset, text after ``#pragma``) of the file-scope pragma lines gcc -E passed through
        (clang has no cursor for them)."""
        out = []
        for m in re.finditer(rb"^[ \t]*#[ \t]*pragma[ \t]+(.*)$", self.buf, re.M):
            out.append((m.start(), m.group(1).decode("utf-8", "replace").strip()))
        return out

    def pragma(self, off: int, text: str) -> None:
        """``#pragma omp declare simd`` before a function of the user's file: its parameters' shapes."""
        if self.offset_coord(off).file == self.path:
            self.pending_simd = parse_declare_simd(text) or self.pending_simd

    def file_of(self, c) -> str:
        return presumed(c.location)[0]

    def in_user_file(self, c) -> bool:
        f = self.file_of(c)
        return f == self.path or f in self.templates

    def toplevel(self, c) -> None:
        K = self.K
        if c.kind == K.FUNCTION_DECL:
            if c.is_definition():
                static = c.storage_class == ci.StorageClass.STATIC
                if self.in_user_file(c) and self.pending_simd is not None:
                    self.simd[c.spelling] = self.pending_simd
                    self.pending_simd = None
                if self.in_user_file(c) or (static and not _system_header(self.file_of(c))):
                    self.func_nodes[c.spelling] = c
                self.declare_global(c, defined=self.in_user_file(c))
            else:
                self.declare_global(c, defined=False)
            return
        if c.kind == K.VAR_DECL:
            self.declare_global(c, defined=self.in_user_file(c) and var_init(c) is not None)
            return
        if c.kind == K.UNEXPOSED_DECL and self.in_user_file(c):
            first = next(iter(c.get_tokens()), None)
            if first is not None and first.spelling in ("asm", "__asm__", "__asm"):
                raise error(self.coord(c), "top-level inline assembly is not supported")

    def declare_global(self, d, defined: bool) -> None:
        if d.kind == self.K.FUNCTION_DECL:
            self.declare_effects(d.spelling, [_EFFECT_ATTRS[c.kind.name] for c in d.get_children()
                                              if c.kind.name in _EFFECT_ATTRS])
        quals = self.spec(d)[1]
        if self.new_global(d.spelling, self.decl_coord(d), d.storage_class == ci.StorageClass.STATIC,
                           "const" in quals, "volatile" in quals, defined, d.kind == self.K.FUNCTION_DECL):
            self.global_decls[d.spelling] = d

    def global_symbol(self, name: str) -> Symbol:
        sym = self.globals[name]
        if sym.type is None:
            d = self.global_decls[name]
            init = var_init(d) if d.kind == self.K.VAR_DECL else None
            self.resolve_global(sym, self.decl_coord(d), lambda: self.decl_type(d), init, init)
        return sym

    def as_init_list(self, node):
        node = self.strip_parens(node)
        return node if node.kind == self.K.INIT_LIST_EXPR else None

    def scalar_init(self, init):
        return self.scalar_item(self.init_items(init)[0])

    def init_coord(self, init) -> Coord:
        return self.coord(init)

    def init_items(self, init) -> list:
        """The items of an initializer list without designators (a scalar's ``{x}``)."""
        items = self.children(init)
        if not items:  # (the pycparser frontend fails with an IndexError here)
            raise error(self.coord(init), "an empty initializer '{}' is not supported", "write the value: = {0}")
        for i in items:
            if self.buf[i.extent.start.offset:i.extent.start.offset + 1] in (b".", b"["):
                raise error(self.pcoord(i), "a designator in the initializer of a scalar")
        return items

    def init_list(self, node) -> list[inits.Item] | None:
        """The items of brace list ``node`` with their designators (None: ``node`` is an expression)."""
        node = self.strip_parens(node)
        if node.kind != self.K.INIT_LIST_EXPR:
            return None
        items = self.children(node)
        if not items:
            raise error(self.coord(node), "an empty initializer '{}' is not supported", "write the value: = {0}")
        return [self.designated(i) if self.buf[i.extent.start.offset:i.extent.start.offset + 1] in (b".", b"[")
                else inits.Item([], i, self.pcoord(i)) for i in items]

    def designated(self, i) -> inits.Item:
        """A designated item (``.a.b = v``, ``[2] = v``, ``[1 ... 3] = v``): libclang shows it as an
        unexposed expression whose children are the designators' members (MEMBER_REF) and indexes, then
        the value; the source text says which is which, and each part is checked against it."""
        ch = self.children(i)
        bad = error(self.pcoord(i), "a designator the clang frontend cannot read", PYCPARSER_HINT)
        if not ch:
            raise bad
        value, parts = ch[-1], ch[:-1]
        text = self.slice(i.extent.start.offset, value.extent.start.offset)
        ds: list[inits.Designator] = []
        pos, k = 0, 0
        while True:
            m = re.compile(r"\s*(?:\.\s*([A-Za-z_]\w*)|(\[)|(=)\s*$)").match(text, pos)
            if m is None:
                raise bad
            if m.group(3):
                break
            if m.group(1):
                if k >= len(parts) or parts[k].kind != self.K.MEMBER_REF or parts[k].spelling != m.group(1):
                    raise bad
                ds.append(inits.Designator(self.coord(parts[k]), field=m.group(1)))
                k += 1
                pos = m.end()
                continue
            j = closing_bracket(text, m.start(2), "[]")
            inner = text[m.end(2):j]
            count = 2 if re.search(r"\.\.\.", inner) else 1
            if j >= len(text) or k + count > len(parts) or any(p.kind == self.K.MEMBER_REF for p in parts[k:k + count]):
                raise bad
            vals = []
            for p in parts[k:k + count]:
                v = fold_int(self.expr(p))
                if v is None:
                    raise error(self.pcoord(p), "expected an integer constant expression")
                vals.append(v)
            ds.append(inits.Designator(self.pcoord(parts[k]), index=vals[0], last=vals[1] if count == 2 else None))
            k += count
            pos = j + 1
        if k != len(parts):
            raise bad
        return inits.Item(ds, value, self.pcoord(value))

    # ------------------------------------------------------------------ functions
    def function(self, fd) -> Function:
        K = self.K
        ftype = self.func_type(fd)
        self.begin_function(fd.spelling, ftype.ret)
        self.local_syms = {}
        params: list[Symbol] = []
        if ftype.variadic:
            m = None
            for tok in fd.get_tokens():
                if tok.spelling == "...":
                    m = tok
                    break
                if tok.spelling == "{":
                    break
            raise self.variadic_definition(self.loc_coord(m.location) if m is not None else self.coord(fd), fd.spelling)
        for p in fd.get_arguments():
            pt = self.ctype(p.type, self.spec(p)[0], self.start_coord(p))
            if isinstance(pt, T.Void):
                continue
            target_volatile = isinstance(T.decay(pt), T.Pointer) \
                and p.type.get_canonical().get_pointee().is_volatile_qualified()
            s = self.parameter(self.decl_coord(p), p.spelling, pt, p.type.is_volatile_qualified(), target_volatile)
            params.append(s)
            self.local_syms[self.key(p)] = s
        self.simd_shapes(fd.spelling, params, self.coord(fd))
        body_c = next(c for c in self.children(fd) if c.kind == K.COMPOUND_STMT)
        body = self.compound(body_c)
        return self.end_function(fd.spelling, ftype, params, body, self.coord(fd),
                                 fd.storage_class == ci.StorageClass.STATIC, "inline" in self.spec(fd)[1])

    def compound(self, c) -> list[Stmt]:
        out: list[Stmt] = []
        for item in self.children(c):
            out.extend(self.stmt(item))
        return out

    def body_of(self, c) -> list[Stmt]:
        if c is None:
            return []
        if c.kind == self.K.COMPOUND_STMT:
            return self.compound(c)
        return self.stmt(c)

    def stmt(self, c) -> list[Stmt]:
        """The IR of one statement, preceded by what its expressions' side effects run first."""
        here, self.here = self.here, self.coord(c)
        outer, self.before = self.before, []
        self.depth += 1  # (a statement level takes 3 frames: within the 3 per level max_depth allows)
        try:
            if self.depth > self.max_depth:
                raise error(self.here, "statements are nested too deeply", NESTING_HINT)
            out = self._stmt(c)
            return self.before + out
        finally:
            self.here = here
            self.before = outer
            self.depth -= 1

    def _stmt(self, c) -> list[Stmt]:
        K = self.K
        k = c.kind
        if self.exception_only(c):  # (math_force_eval, FORCE_EVAL: never read, see the output's header)
            co = self.coord(c)
            self.dropped.append(f"{Path(co.file).name}:{co.line}")
            return []
        if k.is_expression():
            return self.expr_stmt(c)
        co = self.coord(c)
        if k == K.UNEXPOSED_STMT:  # an attributed statement (#pragma GCC unroll, [[...]]): the statement
            inner = [x for x in self.children(c) if x.kind.is_statement() or x.kind.is_expression()]
            if len(inner) == 1:
                return self.stmt(inner[0])
        if k == K.COMPOUND_STMT:
            return [Block(co, self.compound(c))]
        if k == K.DECL_STMT:
            out: list[Stmt] = []
            prev = None
            for d in self.children(c):
                if d.kind in (K.VAR_DECL, K.FUNCTION_DECL):
                    self.note_group(d, prev)
                    prev = d
                out.extend(self.local_decl(d))
            return out
        if k == K.IF_STMT:
            ch = self.children(c)
            cond, likely = self.condition(ch[0])
            return [If(co, cond, self.body_of(ch[1]), self.body_of(ch[2] if len(ch) > 2 else None), likely)]
        if k == K.RETURN_STMT:
            ch = self.children(c)
            return self.return_stmt(co, self.expr(ch[0]) if ch else None)
        if k == K.DO_STMT:
            body_c, cond_c = self.children(c)
            cc = self.strip_parens(cond_c)
            if cc.kind == K.INTEGER_LITERAL and self.token_text(cc) == "0":
                return self.do_once(co, self.body_of(body_c))
            body = self.body_of(body_c)
            cond, pre = self.captured(lambda: self.truth(self.expr(cond_c)))
            return self.do_loop(co, body, cond, pre, self.pcoord(cond_c))
        if k == K.WHILE_STMT:
            cond_c, body_c = self.children(c)
            cond, pre = self.captured(lambda: self.truth(self.expr(cond_c)))
            return self.while_loop(co, cond, pre, self.body_of(body_c))
        if k == K.FOR_STMT:
            init_c, cond_c, step_c, body_c = self.for_parts(c)
            init: list[Stmt] = []
            if init_c is not None and init_c.kind == K.DECL_STMT:
                prev = None
                for d in self.children(init_c):
                    self.note_group(d, prev)
                    prev = d
                    init.extend(self.local_decl(d))
            elif init_c is not None:
                init.extend(self.stmt(init_c))
            cond, pre = self.captured(lambda: self.truth(self.expr(cond_c))) if cond_c is not None else (None, [])
            step: list[Stmt] = []
            for e in self.comma_list(step_c) if step_c is not None else []:
                step.extend(self.stmt(e))
            return self.for_loop(co, init, cond, pre, step, self.body_of(body_c))
        if k == K.INDIRECT_GOTO_STMT:
            raise error(co, "a computed 'goto *' cannot be vectorized", "branch with if/else or a plain 'goto label'")
        if k == K.GOTO_STMT:
            ref = next((x for x in self.children(c) if x.kind == K.LABEL_REF), None)
            return [Goto(co, ref.spelling if ref is not None else "")]
        if k == K.LABEL_STMT:
            ch = self.children(c)
            return [Label(co, c.spelling), *(self.stmt(ch[0]) if ch else [])]
        if k == K.BREAK_STMT:
            return [Break(co)]
        if k == K.CONTINUE_STMT:
            return [Continue(co)]
        if k == K.NULL_STMT:
            return []
        if k == K.SWITCH_STMT:
            return self.switch(c)
        if k in (K.CASE_STMT, K.DEFAULT_STMT):
            self.case_allowed(co, "case" if k == K.CASE_STMT else "default")
            ch = self.children(c)
            if k == K.DEFAULT_STMT:
                label = CaseLabel(co, default=True)
            else:
                lo = self.case_value(ch[0])
                label = CaseLabel(co, lo, self.case_value(ch[1]) if len(ch) > 2 else lo)
            return [label, *self.stmt(ch[-1])]
        if k == K.ASM_STMT:
            return self.asm(c)
        if k == K.MS_ASM_STMT:
            raise error(co, "inline assembly cannot be vectorized", "write the operation in C")
        raise error(co, f"statement '{k.name.lower()}' is not supported")

    def statement_expression(self, inner) -> Expr:
        """GNU C's ``({ stmts; e; })`` (``inner``: its compound statement): as ``Reader.statement_expression``."""
        co = self.coord(inner)
        items = self.children(inner)
        if not items or not items[-1].kind.is_expression():
            raise error(co, "a statement expression without a value is not supported here")
        declared = len(self.locals)
        stmts = [x for item in items[:-1] for x in self.stmt(item)]
        self.statement_value(co, stmts, set(self.locals[declared:]))
        return self.expr(items[-1])

    def asm_operands(self, c) -> tuple[list[str], list[str], list, list] | None:
        """(output constraints, input constraints, output cursors, input cursors) of an asm statement with
        an empty template, else None. libclang gives the operands' expressions as children (outputs, then
        inputs) but not their constraints: those come from the text."""
        text = self.slice(c.extent.start.offset, c.extent.end.offset)
        m = re.match(r"\s*(?:__asm__|__asm|asm)\b(?:\s*(?:__volatile__|__volatile|volatile|goto|inline))*\s*\(", text)
        if m is None:
            return None
        sections = split_top(text[m.end():text.rindex(")")], ":")
        if re.sub(r'"(?:[^"\\]|\\.)*"', "", sections[0]).strip() or re.sub(r'\s|"', "", sections[0]):
            return None

        def constraints(k: int) -> list[str]:
            if k >= len(sections) or not sections[k].strip():
                return []
            return [re.match(r'\s*(?:\[\w+\]\s*)?"([^"]*)"', op).group(1) for op in split_top(sections[k], ",")]

        outs, ins = constraints(1), constraints(2)
        exprs = [x for x in self.children(c) if x.kind.is_expression()]
        if len(exprs) != len(outs) + len(ins):
            raise error(self.coord(c), "this asm statement's operands are not supported")
        return outs, ins, exprs[:len(outs)], exprs[len(outs):]

    def asm(self, c) -> list[Stmt]:
        """An ``asm`` statement: only an empty template, as the pycparser frontend's ``Reader.asm``
        (glibc's math_opt_barrier, math_force_eval; ``Builder.asm_assignments``)."""
        co = self.coord(c)
        operands = self.asm_operands(c)
        if operands is None:
            raise error(co, "inline assembly cannot be vectorized", "write the operation in C")
        outs, ins, out_c, in_c = operands
        return self.asm_assignments(co, list(zip(outs, out_c)), list(zip(ins, in_c)))

    def exception_only(self, c) -> bool:
        """Whether statement ``c`` has no effect but the floating-point exceptions it raises: the pycparser
        frontend's frontends/force_eval.py on libclang's cursors (read as C without its types)."""
        K = self.K
        s = self.strip_parens(c)
        if s.kind not in (K.COMPOUND_STMT, K.DO_STMT, K.IF_STMT, K.ASM_STMT) and not self.statement_expr(s):
            return False
        scopes: list[dict[int, bool]] = [{}]  # declaration (its cursor's hash) -> volatile
        sink = [False]
        depth = [0]

        def bounded(walk):  # (deeper than fenv.FORCE_EVAL_DEPTH: not one, and no deep recursion)
            def inner(x) -> bool:
                depth[0] += 1
                try:
                    return depth[0] <= fenv.FORCE_EVAL_DEPTH and walk(x)
                finally:
                    depth[0] -= 1
            return inner

        def local(d) -> bool | None:
            ref = d.referenced if d.kind == K.DECL_REF_EXPR else None
            if ref is None:
                return None
            for scope in reversed(scopes):
                if ref.hash in scope and ref.kind == K.VAR_DECL:
                    return scope[ref.hash]
            return None

        def target(e) -> bool:
            volatile = local(self.strip(e))
            if volatile:
                sink[0] = True
            return volatile is not None

        @bounded
        def expr(e) -> bool:
            k = e.kind
            ch = self.children(e)
            if k in (K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.CHARACTER_LITERAL, K.STRING_LITERAL, K.DECL_REF_EXPR,
                     K.CXX_UNARY_EXPR, K.TYPE_REF):
                return True
            if k == K.UNARY_OPERATOR:
                return target(ch[0]) if unary_op(e) in ("++", "--", "p++", "p--") else expr(ch[0])
            if k == K.BINARY_OPERATOR and binary_op(e) == "=" or k == K.COMPOUND_ASSIGNMENT_OPERATOR:
                return target(ch[0]) and expr(ch[1])
            if k == K.CALL_EXPR:
                name = e.spelling or ""
                if name == "__builtin_types_compatible_p":
                    return True
                return name.startswith(fenv.PURE_BUILTINS) and all(expr(a) for a in ch[1:])
            if self.statement_expr(e):
                return stmt(next(x for x in ch if x.kind == K.COMPOUND_STMT))
            if k in (K.BINARY_OPERATOR, K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.CSTYLE_CAST_EXPR, K.CONDITIONAL_OPERATOR,
                     K.ARRAY_SUBSCRIPT_EXPR, K.MEMBER_REF_EXPR, K.GENERIC_SELECTION_EXPR, K.INIT_LIST_EXPR):
                return all(expr(x) for x in ch if x.kind.is_expression())
            return False

        @bounded
        def stmt(x) -> bool:
            k = x.kind
            ch = self.children(x)
            if k == K.COMPOUND_STMT:
                scopes.append({})
                try:
                    return all(stmt(y) for y in ch)
                finally:
                    scopes.pop()
            if k == K.DECL_STMT:
                for d in ch:
                    if d.kind != K.VAR_DECL or d.storage_class not in (ci.StorageClass.NONE, ci.StorageClass.AUTO):
                        return False
                    init = var_init(d)
                    volatile = d.type.is_volatile_qualified()
                    if init is not None and not expr(init):
                        return False
                    scopes[-1][d.hash] = volatile
                    sink[0] = sink[0] or volatile and init is not None
                return True
            if k == K.IF_STMT:
                return all(stmt(y) if y.kind.is_statement() else expr(y) for y in ch)
            if k == K.DO_STMT:
                cond = self.strip_parens(ch[1])
                return cond.kind == K.INTEGER_LITERAL and self.token_text(cond) == "0" and stmt(ch[0])
            if k == K.NULL_STMT:
                return True
            if k == K.ASM_STMT:
                operands = self.asm_operands(x)
                if operands is None:
                    return False
                outs, ins, out_c, in_c = operands
                if not all(target(o) for o in out_c) or not all(expr(i) for i in in_c):
                    return False
                sink[0] = sink[0] or bool(ins) or any(o.startswith("+") for o in outs)
                return True
            return k.is_expression() and expr(x)

        return stmt(s) and sink[0]

    def statement_expr(self, c) -> bool:
        """A GNU statement expression ``({ ... })`` (as ``expr`` recognizes one)."""
        K = self.K
        return c.kind.name.lower() == "stmtexpr" or c.kind == K.UNEXPOSED_EXPR and any(
            x.kind == K.COMPOUND_STMT for x in self.children(c))

    def switch(self, c) -> list[Stmt]:
        """``switch``: its body read with case-label markers, lowered by frontends/statements.py."""
        ch = self.children(c)
        cond_c, body_c = ch[-2], ch[-1]
        value, number = self.switch_value(self.expr(cond_c), self.pcoord(cond_c))
        with self.in_switch():
            body = self.body_of(body_c)
        return self.switch_statement(self.coord(c), value, number, body)

    def case_value(self, c) -> int:
        v = fold_int(self.expr(c))
        if v is None:
            raise error(self.pcoord(c), "expected an integer constant expression")
        return v

    def for_parts(self, c) -> tuple:
        """(init, cond, step, body) of a FOR_STMT: clang leaves absent parts out of its children, so
        place each child by the ``;`` and ``)`` of the header."""
        text = self.buf
        i = text.index(b"(", c.extent.start.offset)
        depth, semis, close = 0, [], None
        quote = None
        while i < len(text):
            ch = text[i:i + 1]
            if quote:
                if ch == b"\\":
                    i += 1
                elif ch == quote:
                    quote = None
            elif ch in (b"'", b'"'):
                quote = ch
            elif ch in (b"(", b"[", b"{"):
                depth += 1
            elif ch in (b")", b"]", b"}"):
                depth -= 1
                if depth == 0:
                    close = i
                    break
            elif ch == b";" and depth == 1:
                semis.append(i)
            i += 1
        parts = [None, None, None, None]
        for ch in self.children(c):
            off = ch.extent.start.offset
            slot = 0 if off < semis[0] else 1 if off < semis[1] else 2 if off < close else 3
            parts[slot] = ch
        return tuple(parts)

    def comma_list(self, c) -> list:
        """``a, b, c`` as [a, b, c] (pycparser's ExprList)."""
        if c.kind == self.K.BINARY_OPERATOR and binary_op(c) == ",":
            left, right = self.children(c)
            return [*self.comma_list(left), right]
        return [c]

    def token_text(self, c) -> str:
        return self.buf[c.extent.start.offset:c.extent.end.offset].decode("utf-8", "replace")

    def expr_stmt(self, c) -> list[Stmt]:
        K = self.K
        c = self.strip(c)
        co = self.pcoord(c)
        k = c.kind
        if k == K.BINARY_OPERATOR and binary_op(c) == "=" or k == K.COMPOUND_ASSIGNMENT_OPERATOR:
            return [self.update(c)]
        if k == K.UNARY_OPERATOR and unary_op(c) in ("p++", "p--", "++", "--"):
            return [self.update(c)]
        if k == K.CALL_EXPR:
            if c.spelling == "__builtin_unreachable" and not list(c.get_arguments()):
                return []  # (reaching it is undefined: the lanes that do may compute anything)
            pun = self.memcpy_pun(c)
            if pun is not None:
                return [pun]
            return [ExprStmt(co, self.expr(c))]
        if k == K.BINARY_OPERATOR and binary_op(c) == ",":  # a, b;
            return [x for e in self.comma_list(c) for x in self.stmt(e)]
        if k == K.StmtExpr:  # ({ ... }); as a statement: the block (pycparser reads it as one)
            inner = next(x for x in self.children(c) if x.kind == K.COMPOUND_STMT)
            return [Block(self.coord(inner), self.compound(inner))]
        if k in (K.DECL_REF_EXPR, K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.CHARACTER_LITERAL, K.STRING_LITERAL,
                 K.CSTYLE_CAST_EXPR, K.BINARY_OPERATOR, K.UNARY_OPERATOR, K.CXX_UNARY_EXPR, K.CONDITIONAL_OPERATOR,
                 K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR):
            return self.expression_statement(co, self.expr(c))  # (side effects are in self.before)
        raise error(co, f"statement '{_pyc_name(k, K)}' is not supported")

    def memcpy_pun(self, c) -> Assign | None:
        """``memcpy(&a, &b, sizeof a)`` between same-size scalars: a bit reinterpretation."""
        K = self.K
        ch = self.children(c)
        callee = self.strip(ch[0])
        if callee.kind != K.DECL_REF_EXPR or callee.spelling not in ("memcpy", "__builtin_memcpy", "memmove"):
            return None
        args = [self.strip(a) for a in ch[1:]]
        if len(args) != 3 or not all(a.kind == K.UNARY_OPERATOR and unary_op(a) == "&" for a in args[:2]):
            return None
        dst = self.lvalue(self.children(args[0])[0])
        src = self.expr(self.children(args[1])[0])
        return self.bit_copy(self.pcoord(c), dst, src, fold_int(self.expr(ch[3])))

    def condition(self, c) -> tuple[Expr, bool | None]:
        likely = None
        s = self.strip_parens(c)
        if s.kind == self.K.CALL_EXPR:
            ch = self.children(s)
            callee = self.strip(ch[0])
            if callee.kind == self.K.DECL_REF_EXPR and callee.spelling == "__builtin_expect" and len(ch) == 3:
                likely = self.expect_hint(self.expr(ch[2]))
        return self.expr(c), likely

    def update(self, c) -> Assign:
        """An assignment, ``++`` or ``--``."""
        if c.kind == self.K.UNARY_OPERATOR:
            target = self.lvalue(self.children(c)[0])  # (clang's type of x++ is x's, not the sum's: no cursor)
            return self.increment(self.pcoord(c), target, "+" if "++" in unary_op(c) else "-")
        lhs_c, rhs_c = self.children(c)
        target = self.lvalue(lhs_c)
        rhs = self.expr(rhs_c)  # (a = b = c: b = c runs first, through self.before)
        op = binary_op(c)
        # (clang converts the right operand of a compound assignment, not a shift's, to the computation type)
        return self.assign(self.pcoord(c), target, op, rhs, rhs_c if op not in ("<<=", ">>=") else None)

    def lvalue(self, c) -> Expr:
        return self.assignable(self.expr(c), self.pcoord(c))

    def local_decl(self, d) -> list[Stmt]:
        K = self.K
        if d.kind == K.FUNCTION_DECL:
            self.declare_global(d, defined=False)
            return []
        if d.kind != K.VAR_DECL:  # typedefs, struct/union/enum declarations: clang already knows them
            if d.kind in (K.STRUCT_DECL, K.UNION_DECL):
                self.record(d)
            return []
        co = self.decl_coord(d)
        sc = d.storage_class
        words, quals = self.spec(d)
        self.local_storage(co, d.spelling, sc == ci.StorageClass.EXTERN, "volatile" in quals,
                           lambda: self.ctype(d.type, words, co))
        for a in d.get_children():
            if a.kind == K.UNEXPOSED_ATTR and any(t.spelling.strip("_") == "cleanup" for t in a.get_tokens()):
                raise self.cleanup_attribute(co, d.spelling,
                                             " (the pycparser frontend reads glibc's SET_RESTORE_ROUND)")
        if d.type.get_canonical()._kind_id == ci.TypeKind.VARIABLEARRAY.value:
            raise error(co, f"variable-length array '{d.spelling}' is not supported")
        t = self.ctype(d.type, words, self.start_coord(d))
        init = var_init(d)
        if sc == ci.StorageClass.STATIC:
            self.local_syms[self.key(d)] = self.static_local(co, d.spelling, t, "const" in quals, init)
            return []
        sym = self.declare_local(co, d.spelling, t, "const" in quals)
        self.local_syms[self.key(d)] = sym
        return self.initialize_local(co, sym, None if init is None else self.strip_parens(init))

    def scalar_item(self, item):
        """The expression of a scalar's initializer item: ``x``, ``{x}`` or ``{{x}}``."""
        item = self.strip_parens(item)
        while item.kind == self.K.INIT_LIST_EXPR:  # int y = {{x}};
            item = self.strip_parens(self.init_items(item)[0])
        return item

    # ------------------------------------------------------------------ expressions
    def expr(self, c) -> Expr:
        self.depth += 1
        try:
            if self.depth > self.max_depth:
                raise error(self.pcoord(c), "expression nesting is too deep", NESTING_HINT)
            return self._expr(c)
        finally:
            self.depth -= 1

    def _expr(self, c) -> Expr:
        K = self.K
        c = self.strip(c)
        k = c.kind
        co = self.pcoord(c)
        if k in (K.INTEGER_LITERAL, K.FLOATING_LITERAL, K.CHARACTER_LITERAL, K.STRING_LITERAL):
            return self.constant(c)
        if k == K.DECL_REF_EXPR:
            return self.lookup(c)
        if k == K.BINARY_OPERATOR:
            op = binary_op(c)
            if op == "=":  # its value: the target's new value
                return self.assignment_value(co, self.update(c))
            if op == ",":  # (e1, e2): e1 for its side effects, then e2
                *first, last = self.comma_list(c)
                for e in first:
                    self.comma_operand(co, self.expr(e))
                return self.expr(last)
            lc, rc = self.children(c)
            left = self.expr(lc)
            if op in ("&&", "||"):
                with self.sometimes():
                    right = self.expr(rc)
            else:
                right = self.expr(rc)
            return self.binary(op, left, right, co, c, lc, rc)
        if k == K.COMPOUND_ASSIGNMENT_OPERATOR:
            return self.assignment_value(co, self.update(c))
        if k in (K.UNARY_OPERATOR, K.CXX_UNARY_EXPR):
            return self.unary_expr(c)
        if k == K.CSTYLE_CAST_EXPR:
            return self.cast_expr(c)
        if k == K.CONDITIONAL_OPERATOR:
            cc, ac, bc = self.children(c)
            cnd = self.truth(self.expr(cc))
            with self.sometimes():
                a = self.expr(ac)
                b = self.expr(bc)
            return self.ternary(co, cnd, a, b, c, ac, bc)
        if k == K.CALL_EXPR:
            return self.call(c)
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            bc, ic = self.children(c)
            base = self.expr(bc)
            return self.index(co, base, self.expr(ic), c)
        if k == K.MEMBER_REF_EXPR:
            ch = self.children(c)
            base = self.expr(ch[0])
            return self.member(co, base, c.spelling, ch[0].type.get_canonical().kind == ci.TypeKind.POINTER, c)
        if k == K.COMPOUND_LITERAL_EXPR:
            t = self.ctype(c.type, self.paren_words(c.extent.start.offset), self.start_coord(c))
            lists = [x for x in self.children(c) if x.kind == K.INIT_LIST_EXPR]
            if not lists:
                raise error(co, "this compound literal is not supported")
            return compound_literal(co, t, self.flatten_init(t, lists[-1])[0], self.target)
        if k == K.INIT_LIST_EXPR:
            return InitList(T.VOID, [self.expr(i) for i in self.init_items(c)])
        if k == K.GENERIC_SELECTION_EXPR:
            raise error(co, "_Generic is not supported")
        if k.name.lower() == "stmtexpr" or k == K.UNEXPOSED_EXPR and any(
                x.kind == K.COMPOUND_STMT for x in self.children(c)):
            inner = next((x for x in self.children(c) if x.kind == K.COMPOUND_STMT), c)
            return self.statement_expression(inner)
        if k == K.UNEXPOSED_EXPR and self.text(c, 40).startswith("__builtin_types_compatible_p"):
            v = evaluate(c)
            if isinstance(v, int):
                return Const(T.INT, v, str(v))
        if k == K.ADDR_LABEL_EXPR:
            raise error(co, f"the address of a label ('{self.text(c, 30)}', for a computed goto) cannot be "
                            "vectorized", "branch with if/else or a plain 'goto label'")
        raise error(co, f"expression '{self.text(c, 30)}' ({k.name.lower()}) is not supported by the clang "
                        "frontend", PYCPARSER_HINT)

    def cast_expr(self, c) -> Expr:
        co = self.pcoord(c)
        t = self.ctype(c.type, self.paren_words(c.extent.start.offset), co)
        inner = self.strip(self.children(c)[-1])
        if inner.kind == self.K.FLOATING_LITERAL:  # (double)1.79e308L: DBL_MAX
            text = self.slice(inner.extent.start.offset, inner.extent.end.offset)
            if text[-1:] in "lL":
                ld = long_double_literal(text, T.strip_spelling(t))
                if ld is not None:
                    return ld
        return self.cast(t, self.expr(self.children(c)[-1]), co)

    def lookup(self, c) -> Expr:
        K = self.K
        ref = c.referenced
        name = c.spelling
        if ref is not None:
            if ref.kind in (K.VAR_DECL, K.PARM_DECL):
                s = self.local_syms.get(self.key(ref))
                if s is not None:
                    return Var(s.type, s)
            if ref.kind == K.ENUM_CONSTANT_DECL:  # int, or the enum's type when it does not fit (GCC)
                v = ref.enum_value
                ours = T.enum_constant_type(v, self.enum_rule(ref.semantic_parent, self.pcoord(c)))
                return Const(self.agree(ours, c.type, c, "type"), v, str(v))
        if name in self.globals:
            s = self.global_symbol(name)
            return Var(s.type, s)
        raise error(self.pcoord(c), f"use of undeclared identifier '{name}'")

    def constant(self, c) -> Const:
        """A literal: its type and value from clang, its text as written."""
        K = self.K
        co = self.pcoord(c)
        text = self.token_text(c)
        if c.kind == K.STRING_LITERAL:
            raise error(co, "string literals are not supported in vectorized code")
        if c.kind == K.CHARACTER_LITERAL:
            ours, mine = self.char_literal(text, co)
            t = self.agree(ours, c.type, c, "type")
            v = evaluate(c)
            if isinstance(v, int) and t.wrap(v) != mine:
                self.mismatch(TypeMismatch(co, text, "value", ours, str(v)))
                mine = t.wrap(v)
            return Const(t, mine, text)
        if c.kind == K.FLOATING_LITERAL:
            return self.float_literal(text, co, c.type.get_canonical().kind == ci.TypeKind.LONGDOUBLE, c, evaluate(c))
        return self.int_literal(text, co, c, evaluate(c))

    def unary_expr(self, c) -> Expr:
        co = self.pcoord(c)
        if c.kind == self.K.CXX_UNARY_EXPR:
            return self.sizeof(c)
        op = unary_op(c)
        if op in ("p++", "p--", "++", "--"):  # its value: the new one (++x) or the old one (x++)
            return self.increment_value(co, op, self.update(c))
        oc = self.children(c)[0]
        e = self.expr(oc)
        if op not in ("&", "*", "!", "+", "-", "~"):
            raise error(co, f"operator '{op}' is not supported")
        return self.unary(op, e, co, c, oc)

    def sizeof(self, c) -> Const:
        co = self.pcoord(c)
        toks = self.token_text(c)
        word = re.match(r"\s*(\w+)", toks).group(1)
        if word not in ("sizeof", "_Alignof", "__alignof__", "__alignof", "alignof"):
            raise error(co, f"'{word}' is not supported")
        start = c.extent.start.offset
        rest = toks[len(word):]
        paren = start + len(word) + (len(rest) - len(rest.lstrip())) if rest.lstrip().startswith("(") else None
        ch = [x for x in self.children(c) if x.kind.is_expression()]
        if ch and (paren is None or ch[0].extent.start.offset <= paren):
            with self.never():
                self.expr(ch[0])  # the same checks as the pycparser frontend's (it types the operand)
        elif paren is not None:
            words = self.paren_words(paren)
            if words and tuple(sorted(words)) not in T.BASIC_TYPES:
                m = re.search(r"\b" + words[0] + r"\b", toks)
                raise error(self.offset_coord(start + len(toks[:m.start()].encode())) if m else co,
                            f"type '{' '.join(words)}' is not supported",
                            "expand handles integer types up to 64 bits, float and double")
        v = evaluate(c)
        if not isinstance(v, int):
            raise error(co, "expected an integer constant expression")
        return Const(self.agree(T.ULONG, c.type, c, "type"), v, str(v))

    def call(self, c) -> Expr:
        K = self.K
        co = self.pcoord(c)
        ch = self.children(c)
        callee = self.strip(ch[0])
        if callee.kind != K.DECL_REF_EXPR:
            raise error(co, "call through a function pointer cannot be vectorized", "call the function by name")
        name = callee.spelling
        if fenv.operation(name) is not None:  # (frontends/fenv.py: read by the pycparser frontend only)
            raise error(co, f"'{name}' (the floating-point environment) is not supported by the clang frontend",
                        "use the pycparser frontend (--frontend pycparser), which reads glibc's SET_RESTORE_ROUND "
                        "and libc_fe* calls")
        lit = [self.strip(a) for a in ch[1:]]
        literal = self.slice(lit[0].extent.start.offset, lit[0].extent.end.offset) \
            if len(lit) == 1 and lit[0].kind == K.STRING_LITERAL else None
        value = self.nan_value(co, name, len(lit), literal)
        if value is not None:
            return value
        args = [self.expr(a) for a in ch[1:]]
        value = self.builtin_value(co, name, args)
        if value is not None:
            return value
        ref = callee.referenced
        local = self.local_syms.get(self.key(ref)) if ref is not None and ref.kind in (K.VAR_DECL, K.PARM_DECL) \
            else None
        return self.call_function(co, name, args, local, c, ch[1:])


def _lib_modified_type(t):
    _lib.clang_Type_getModifiedType.argtypes = [ci.Type]
    _lib.clang_Type_getModifiedType.restype = ci.Type
    r = _lib.clang_Type_getModifiedType(t)
    r._tu = t._tu
    return r


def _pyc_name(k, K) -> str:
    """pycparser's class name for an expression statement it refuses (for identical messages)."""
    return {K.CONDITIONAL_OPERATOR: "TernaryOp", K.MEMBER_REF_EXPR: "StructRef", K.ARRAY_SUBSCRIPT_EXPR: "ArrayRef",
            K.COMPOUND_LITERAL_EXPR: "CompoundLiteral", K.INIT_LIST_EXPR: "InitList"}.get(k, k.name.lower())


# --------------------------------------------------------------------------- entry points


def clang_args(target: T.Target | None = None) -> list[str]:
    """libclang's arguments for ``target`` (its triple and plain char's signedness)."""
    args = list(CLANG_ARGS)
    if target is not None:
        if target.triple:
            args.append(f"--target={target.triple}")
        args.append("-fsigned-char" if target.char_signed else "-funsigned-char")
    return args


PARSE_STACK = 256 << 20  # bytes: clang's parser recurses per level of 'x + x + ...' (8 MB: ~12,000 terms)


def parse_deep(index, name: str, args: list[str], unsaved: list[tuple[str, str]]):
    """``index.parse`` on a thread with a ``PARSE_STACK`` stack (and ``LIBCLANG_NOTHREADS``, so that
    libclang parses there, not on its own 8 MB thread): a long expression is a diagnostic, not a
    segmentation fault."""
    os.environ.setdefault("LIBCLANG_NOTHREADS", "1")
    out: dict[str, object] = {}

    def work() -> None:
        try:
            out["tu"] = index.parse(name, args=args, unsaved_files=unsaved)
        except BaseException as exc:  # (re-raised on the caller's thread)
            out["exc"] = exc

    try:
        old = threading.stack_size(PARSE_STACK)
        try:
            t = threading.Thread(target=work, name="libclang-parse")
            t.start()
        finally:
            threading.stack_size(old)
    except (RuntimeError, ValueError):  # no thread with that stack here: parse on this one
        work()
    else:
        t.join()
    if "exc" in out:
        raise out["exc"]  # type: ignore[misc]
    return out["tu"]


def parse_tu(path: str, pre: str, target: T.Target | None = None):
    """Parse gcc-preprocessed text with libclang; the first clang error becomes an ExpandError."""
    _setup()
    buf_name = f"{path}.expand-clang.i" if path != "<stdin>" else "stdin.expand-clang.i"
    index = ci.Index.create()
    tu = parse_deep(index, buf_name, clang_args(target), [(buf_name, pre)])
    for d in tu.diagnostics:
        if d.severity >= ci.Diagnostic.Error:
            f, line, col = presumed(d.location)
            raise error(Coord(f or path, line or 1, col or 1), d.spelling,
                        f"reported by libclang; if gcc accepts this file, {PYCPARSER_HINT}")
    return tu, buf_name


def read_file_clang_report(path: str, text: str, include_dirs=(), defines=(), undefs=(),
                           cc: str | Sequence[str] = "gcc", char_signed: bool | None = None) \
        -> tuple[Module, list[TypeMismatch]]:
    """Like :func:`read_file_clang`, with the places where clang's types overrode our rules."""
    text, target, pre = preprocessed(path, text, include_dirs, defines, undefs, cc, char_signed)
    tu, buf_name = parse_tu(path, pre, target)
    reader = ClangReader(path, text, tu, buf_name, pre.encode("utf-8"), target)
    try:
        return reader.read(), reader.mismatches
    except (RecursionError, ctypes.ArgumentError) as exc:  # (deeply nested statements)
        if isinstance(exc, ctypes.ArgumentError) and "RecursionError" not in str(exc):
            raise
        raise error(reader.here or Coord(path, 1, 1), "the code is nested too deeply", NESTING_HINT) from None
    except ValueError as exc:  # a type or cursor kind this cindex does not know (_Float16 in cindex 18)
        if not str(exc).startswith("Unknown"):
            raise
        raise error(reader.here or Coord(path, 1, 1), "a construct the clang frontend does not know is not supported "
                    f"({exc})", PYCPARSER_HINT) from None


def read_file_clang(path: str, text: str, include_dirs=(), defines=(), undefs=(), cc: str | Sequence[str] = "gcc",
                    char_signed: bool | None = None) -> Module:
    """Preprocess ``text`` (the contents of ``path``) with the target's compiler ``cc`` and parse it
    with libclang for the same target into a Module: a drop-in for
    :func:`frontends.pycparser_frontend.read_file` (same parameters)."""
    return read_file_clang_report(path, text, include_dirs, defines, undefs, cc, char_signed)[0]


FRONTENDS = ("auto", "clang", "pycparser")


def _pycparser_available() -> bool:
    try:
        import frontends.pycparser_frontend  # noqa: F401
    except ImportError:
        return False
    return True


def _parses_only_in(clang_error: ExpandError, pycparser_error: ExpandError) -> bool:
    """Whether pycparser failed to parse a file that libclang parsed (and the clang frontend then
    refused a construct in it): the clang frontend's diagnostic is the one that names the construct."""
    syntax = pycparser_error.message.startswith(("syntax error", "illegal character"))
    return syntax and not clang_error.hint.startswith("reported by libclang") and "pycparser" not in clang_error.hint


def _reader(name: str):
    if name == "clang":
        return read_file_clang
    from frontends.pycparser_frontend import read_file
    return read_file


def _other_reads_more(first: Module, name: str, frontend: str, have: dict[str, bool], path: str, text: str,
                      include_dirs, defines, undefs, target: dict) -> Module:
    """``first`` (read by frontend ``name``) left functions out (``Module.failed``: their errors are raised
    if an expanded function needs them). With ``auto``, the other frontend's Module if it reads them and all
    the others too (a construct only it reads); with an explicit frontend, ``first`` with a note on the
    errors of the functions the other one reads."""
    other = "clang" if name == "pycparser" else "pycparser"
    if not have[other]:
        return first
    try:
        mod = _reader(other)(path, text, include_dirs, defines, undefs, **target)
    except Exception:  # (its error, or a bug in it, must not hide this frontend's Module)
        return first
    read = [n for n in first.failed if n not in mod.failed]
    if not read:
        return first
    if frontend == "auto" and set(mod.failed) < set(first.failed):
        return mod
    if frontend != "auto":
        note = f"the {other} frontend reads this function: use --frontend {other}"
        for n in read:
            exc = first.failed[n]
            exc.hint = f"{exc.hint}; {note}" if getattr(exc, "hint", "") else note
    return first


def read_file_any(path: str, text: str, include_dirs=(), defines=(), undefs=(), frontend: str = "auto",
                  cc: str | Sequence[str] = "gcc", char_signed: bool | None = None) -> Module:
    """Read a C file with the chosen frontend: ``"pycparser"``, ``"clang"`` or ``"auto"``.

    ``cc`` is the target's C compiler, a name or a command list (``isa.cc``: ``aarch64-linux-gnu-gcc``
    for NEON, ``powerpc64le-linux-gnu-gcc`` for AltiVec): it preprocesses the file, and its predefined
    macros give the target's types (plain ``char`` is unsigned on AArch64 and ppc64le, signed on
    x86-64); ``char_signed`` overrides plain char's signedness.

    ``auto`` uses the pycparser frontend when it can be imported (it is a hard dependency of expand
    and the reference the corpus outputs were made with), otherwise libclang.  Both build the same
    IR, so the choice changes nothing for a file both read.  If the preferred frontend rejects the
    file and the other one reads it, ``auto`` returns the other one's Module (a construct only one
    of them parses).  With an explicit frontend, an error it reports gets a note naming the other
    frontend when that one reads the file.
    """
    if frontend not in FRONTENDS:
        raise ValueError(f"unknown frontend '{frontend}' (choose from {', '.join(FRONTENDS)})")
    have = {"pycparser": _pycparser_available(), "clang": available()}
    if frontend == "auto":
        order = [n for n in ("pycparser", "clang") if have[n]]
        if not order:
            raise error(Coord(path, 1, 1), "no C frontend is available",
                        "install pycparser and pycparserext, or libclang")
    else:
        if not have[frontend]:
            other = "clang" if frontend == "pycparser" else "pycparser"
            what = "libclang (pip install libclang)" if frontend == "clang" else "pycparser and pycparserext"
            raise error(Coord(path, 1, 1), f"the {frontend} frontend is not available: install {what}",
                        f"or use --frontend {other}" if have[other] else "")
        order = [frontend]
    first_error: ExpandError | None = None
    target = {"cc": cc, "char_signed": char_signed}
    try:
        first = _reader(order[0])(path, text, include_dirs, defines, undefs, **target)
    except ExpandError as exc:
        first_error = exc
    else:
        return first if not first.failed else _other_reads_more(first, order[0], frontend, have, path, text,
                                                                include_dirs, defines, undefs, target)
    other = "clang" if order[0] == "pycparser" else "pycparser"
    if not have[other] or first_error.message == "expression nesting is too deep":
        raise first_error  # (the pycparser reader's limit: deeper than the clang reader's, which is slow there)
    try:
        mod = _reader(other)(path, text, include_dirs, defines, undefs, **target)
    except ExpandError as exc:
        if frontend == "auto" and _parses_only_in(exc, first_error):
            raise exc from None  # (pycparser cannot parse it; clang can, and names what expand refuses)
        raise first_error from None
    except Exception:  # (including a bug in the other one: it must not hide this frontend's diagnostic)
        raise first_error from None
    if frontend == "auto":
        return mod
    note = f"the {other} frontend reads this file: use --frontend {other}"
    first_error.hint = f"{first_error.hint}; {note}" if first_error.hint else note
    raise first_error
