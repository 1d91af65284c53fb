"""Reader for C files through gcc -E and libclang, into the same typed IR as the pycparser frontend.

The second frontend (issue 7).  It produces the IR of :mod:`expand.ir` node for node equal to
:mod:`frontends.pycparser_frontend`'s (``python -m frontends.crosscheck`` proves it on the corpus),
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
  ``file:line:col: error:`` of :mod:`expand.diagnostics`, with a note naming the pycparser frontend.
* **Types**: every expression's canonical type, every implicit conversion (clang's
  ``ImplicitCastExpr``, seen as ``UNEXPOSED_EXPR``) and constant values come from clang.  At each
  operator the frontend also applies the project's rules (:mod:`expand.types`: ``promote``,
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
import subprocess
import sys
import threading
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

from expand import types as T
from expand.diagnostics import ExpandError, error
from expand.fold import fold_int
from expand.ir import (
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
    Goto,
    If,
    Index,
    InitList,
    Label,
    Loop,
    Member,
    Module,
    Return,
    Stmt,
    Symbol,
    Unary,
    Var,
)
from expand.mathcalls import signature as math_signature

from . import builtins, fenv
from . import initializers as inits
from .csemantics import (
    COMPARISONS,
    CPP_FLAGS,
    effects_only,
    float32,
    is_null_pointer_constant,
    long_double_literal,
    lvalue_name,
    module_prologue,
    null_comparison,
    pure_local_assignment,
    split_top,
    template_files,
)
from .statements import (
    CaseLabel,
    aggregate_initializer,
    check_local_array,
    compound_literal,
    local_record_check,
    local_static,
    lower_switch,
    name_local_statics,
    record_declared,
    written_static,
)

try:  # libclang is optional (the [test] extra): read_file_any falls back to pycparser without it
    import clang.cindex as ci
except ImportError:  # pragma: no cover - depends on the environment
    ci = None

CLANG_ARGS = ["-x", "c", "-std=gnu17", "-nostdinc"]  # the input is already preprocessed
PYCPARSER_HINT = "the pycparser frontend (--frontend pycparser) reads C with gcc -E and pycparser instead"
NESTING_HINT = "split deep expressions or blocks into several statements"

# --------------------------------------------------------------------------- libclang plumbing

_UNARY_KINDS = {1: "p++", 2: "p--", 3: "++", 4: "--", 5: "&", 6: "*", 7: "+", 8: "-", 9: "~", 10: "!",
                11: "__real", 12: "__imag", 13: "__extension__"}
_BINARY_KINDS: dict[int, str] = {}
_CXTYPE_ATTRIBUTED = 163
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
    lib.clang_getCursorBinaryOperatorKind.argtypes = [ci.Cursor]
    lib.clang_getCursorBinaryOperatorKind.restype = ctypes.c_int
    lib.clang_getCursorUnaryOperatorKind.argtypes = [ci.Cursor]
    lib.clang_getCursorUnaryOperatorKind.restype = ctypes.c_int
    lib.clang_getBinaryOperatorKindSpelling.argtypes = [ctypes.c_int]
    lib.clang_getBinaryOperatorKindSpelling.restype = ci._CXString
    lib.clang_getUnaryOperatorKindSpelling.argtypes = [ctypes.c_int]
    lib.clang_getUnaryOperatorKindSpelling.restype = ci._CXString
    lib.clang_getPresumedLocation.argtypes = [ci.SourceLocation, ctypes.POINTER(ci._CXString),
                                              ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint)]
    lib.clang_getPresumedLocation.restype = None
    lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
    lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
    lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getKind.restype = ctypes.c_int
    lib.clang_EvalResult_isUnsignedInt.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_isUnsignedInt.restype = ctypes.c_uint
    lib.clang_EvalResult_getAsUnsigned.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsUnsigned.restype = ctypes.c_ulonglong
    lib.clang_EvalResult_getAsLongLong.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsLongLong.restype = ctypes.c_longlong
    lib.clang_EvalResult_getAsDouble.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_getAsDouble.restype = ctypes.c_double
    lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
    lib.clang_EvalResult_dispose.restype = None
    lib.clang_Cursor_getVarDeclInitializer.argtypes = [ci.Cursor]
    lib.clang_Cursor_getVarDeclInitializer.restype = ci.Cursor
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


# --------------------------------------------------------------------------- shared with the pycparser frontend
# (duplicated, not imported: this frontend must work without pycparser installed, and vice versa)


def preprocess(path: str, text: str, include_dirs=(), defines=(), undefs=(), cc: str | Sequence[str] = "gcc") -> str:
    """Run the C preprocessor exactly as the pycparser frontend does."""
    cmd = [*([cc] if isinstance(cc, str) else cc), *CPP_FLAGS]
    cmd += [f"-I{d}" for d in include_dirs]
    cmd += [f"-D{d}" for d in defines]
    cmd += [f"-U{u}" for u in undefs]
    src_dir = str(Path(path).parent) if path != "<stdin>" else "."
    cmd += [f"-I{src_dir}", "-x", "c", "-"]
    feed = f'# 1 "{path}"\n' + text
    try:
        p = subprocess.run(cmd, input=feed, capture_output=True, text=True)
    except OSError as exc:
        raise error(None, f"cannot run the C preprocessor '{cmd[0]}': {exc.strerror or exc}") from None
    if p.returncode != 0:
        msg = p.stderr.strip().splitlines()
        first = next((m for m in msg if "error" in m), msg[0] if msg else "preprocessing failed")
        m = re.match(r"(.*?):(\d+):(?:(\d+):)? (?:fatal )?error: (.*)", first)  # (gcc gives no column at EOF)
        if m:
            raise error(Coord(m.group(1), int(m.group(2)), int(m.group(3) or 1)), m.group(4))
        raise error(Coord(path, 1, 1), f"the C preprocessor failed: {first}")
    return p.stdout




class _PtrCast(Cast):
    """A pointer cast; the punning pass turns ``*(T *)&x`` into a BitCast (same class name as the
    pycparser frontend's, so structural dumps agree)."""


def retype(e: Expr, t: T.CType) -> Expr:
    """The same value spelled with type ``t`` (a typedef of the same type)."""
    if isinstance(e, Const):
        return Const(t, e.value, e.text)
    return Cast(t, e)


def walk_shallow(stmts: list[Stmt]):
    for s in stmts:
        yield s
        if isinstance(s, If):
            yield from walk_shallow(s.then)
            yield from walk_shallow(s.els)
        elif isinstance(s, Block):
            yield from walk_shallow(s.body)


def uniquify_locals(fn: Function) -> None:
    seen = {p.name for p in fn.params}
    for s in fn.locals:
        name = s.name
        n = 2
        while name in seen:
            name = f"{s.name}_{n}"
            n += 1
        s.name = name
        seen.add(name)


def parse_declare_simd(text: str) -> dict[str, str] | None:
    """Parameter shapes from ``#pragma omp declare simd uniform(a, b) linear(i)``."""
    words = text.split()
    if words[:3] != ["omp", "declare", "simd"]:
        return None
    shapes: dict[str, str] = {}
    for clause, args in re.findall(r"(uniform|linear)\s*\(([^)]*)\)", text):
        for a in args.split(","):
            name = a.split(":")[0].strip()
            if name:
                shapes[name] = clause
    return shapes


_NONLOCAL_JUMPS = {"setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp", "longjmp", "_longjmp", "siglongjmp",
                   "__longjmp_chk", "vfork", "fork"}
_BASIC_WORDS = {"void", "_Bool", "char", "short", "int", "long", "signed", "unsigned", "float", "double",
                "__int128", "_Complex", "__signed__", "__signed"}
_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__", "__const", "__volatile__",
               "__volatile"}




def _system_header(file: str) -> bool:
    return file.startswith("/usr/") or file.startswith("<")


class TypeMismatch:
    """One place where our C type rules (expand.types) and clang disagree."""

    def __init__(self, coord: Coord, text: str, what: str, ours: T.CType, clang: str) -> None:
        self.coord, self.text, self.what, self.ours, self.clang = coord, text, what, ours, clang

    def __str__(self) -> str:
        return f"{self.coord}: {self.what} of '{self.text}': our rules say '{self.ours}', clang says '{self.clang}'"


# --------------------------------------------------------------------------- the reader


class ClangReader:
    """Builds a Module from one clang translation unit of gcc-preprocessed text."""

    def __init__(self, path: str, source: str, tu, buf_name: str, buf: bytes, target: T.Target = T.HOST) -> None:
        K = ci.CursorKind
        self.K = K
        self.path = path
        self.source = source
        self.target = target
        self.here: Coord | None = None  # the statement or declaration being read (for errors)
        self.record_errors: dict[object, ExpandError] = {}
        self.enum_rules: dict[object, T.Int] = {}
        self.depth = 0  # of expr(): stop before Python's recursion limit (inside libclang's callbacks,
        self.max_depth = 200  # hitting it prints ctypes noise instead of raising)
        self.tu = tu
        self.buf_name = buf_name
        self.buf = buf
        self.templates: frozenset[str] = frozenset()  # (set by read: .c files the user's file includes)
        self._file = tu.get_file(buf_name)
        self._line_starts = [0] + [m.end() for m in re.finditer(b"\n", buf)]
        self.records: dict[object, T.Record] = {}
        self.typedefs: dict[object, T.CType] = {}
        self.globals: dict[str, Symbol] = {}
        self.global_decls: dict[str, object] = {}
        self.functions: dict[str, Function] = {}
        self.func_nodes: dict[str, object] = {}
        self.group_head: dict[int, object] = {}
        self.local_syms: dict[int, Symbol] = {}
        self.locals: list[Symbol] = []
        # Side effects inside expressions: as the pycparser frontend's (Reader.before/conditional/unevaluated)
        self.before: list[Stmt] | None = None
        self.conditional = 0
        self.unevaluated = 0
        self.cur_ret: T.CType = T.VOID
        self.mismatches: list[TypeMismatch] = []
        self._mismatch_seen: set[str] = set()
        self.pending_simd: dict[str, str] | None = None
        self.simd: dict[str, dict[str, str]] = {}
        self.local_statics: list[Symbol] = []  # function-local statics, file-scope symbols (name_local_statics)
        self.assumptions: dict[str, str] = {}  # function -> what its output assumes (as Reader.assumptions)
        self._walk_first = {K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR,
                            K.UNARY_OPERATOR, K.CONDITIONAL_OPERATOR, K.ARRAY_SUBSCRIPT_EXPR, K.CALL_EXPR,
                            K.MEMBER_REF_EXPR}

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
        while True:
            k = c.kind
            if k in self._walk_first:
                ch = self.children(c)
                if ch and (k != K.UNEXPOSED_EXPR or self.is_cast(c)):
                    c = ch[0]
                    continue
            return self.start_coord(c) if k in (K.CSTYLE_CAST_EXPR, K.CXX_UNARY_EXPR) else self.coord(c)

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
        depth = 0
        i = start
        n = len(self.buf)
        while i < n:
            ch = self.buf[i:i + 1]
            if ch == b"(":
                depth += 1
            elif ch == b")":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        return self._spec_text(self.buf[start:i + 1].decode("utf-8", "replace"))[0]

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
            name = d.spelling
            under = self.typedef_type(d)
            if isinstance(under, T.Int):
                return T.Int(under.bits, under.signed, under.is_bool, spelling=name)
            if isinstance(under, T.Float):
                return T.Float(under.bits, spelling=name)
            return under
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
            if isinstance(t, T.Record) and not t.tag and not t.spelling:
                t.spelling = d.spelling  # (typedef struct { ... } name: the output defines it under this name)
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
        """Why ``r``'s size or member offsets (C's natural layout, expand.records) may not be clang's
        (``__attribute__((packed))``, ``_Alignas``, ``#pragma pack``); "" when they are."""
        try:
            ct = defn.type
            if ct.get_size() != r.size():
                return f"its layout is not C's natural one (size {ct.get_size()}, not {r.size()})"
            from expand.records import member_offset
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
        if self.is_knr(d):
            raise error(self.coord(d), "old-style (K&R) function definitions are not supported",
                        "declare the parameters' types in the parameter list: int f(int x)")
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
        depth, i = 0, start
        while i < len(self.buf):
            ch = self.buf[i:i + 1]
            if ch == b"(":
                depth += 1
            elif ch == b")":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        return any(a.extent.start.offset > i for a in args)

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
        self.failed: dict[str, ExpandError] = {}
        for name, fd in self.func_nodes.items():
            try:
                self.functions[name] = self.function(fd)
            except ExpandError as exc:
                # (a static helper of one of the user's headers is used if it converts, else called per lane)
                if self.in_user_file(fd):
                    self.failed[name] = exc
        mod = Module(self.path, self.source.splitlines(), self.functions, self.globals, prologue, self.templates,
                     {n: a for n, a in self.assumptions.items() if n in self.functions}, dict(self.failed))
        name_local_statics(mod, self.local_statics)
        return mod

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
        name = d.spelling
        prev = self.globals.get(name)
        quals = self.spec(d)[1]
        sym = Symbol(name, T.VOID, "global", self.decl_coord(d), static=d.storage_class == ci.StorageClass.STATIC,
                     const="const" in quals, volatile="volatile" in quals)
        sym.type = None  # resolved lazily, as the pycparser frontend: headers declare many unused things
        sym.defined_here = defined
        if prev is not None and not defined:
            return
        if d.kind == self.K.FUNCTION_DECL:
            sym.kind = "func"
        self.global_decls[name] = d
        self.globals[name] = sym

    def global_symbol(self, name: str) -> Symbol:
        sym = self.globals[name]
        if sym.type is None:
            d = self.global_decls[name]
            here, self.here = self.here, self.decl_coord(d)
            try:
                t = self.decl_type(d)
                init = var_init(d) if d.kind == self.K.VAR_DECL else None
                if isinstance(t, T.Array) and t.length is None and init is not None \
                        and init.kind == self.K.INIT_LIST_EXPR:
                    t = T.Array(t.elem, self.init_length(t, init))
                sym.type = t  # (before the initializer, which may name the symbol: sizeof x)
                value = self.global_init(init, t) if init is not None and sym.defined_here else None
            except ExpandError:
                sym.type = None  # (tried again, and refused again, by the next function that uses it)
                raise
            finally:
                self.here = here
            sym.init = value
        return sym

    def global_init(self, init, t: T.CType):
        init = self.strip_parens(init)
        if init.kind == self.K.INIT_LIST_EXPR:
            if isinstance(t, (T.Array, T.Record)):
                return inits.nest(t, self.flatten_init(t, init)[0])
            return self.global_init(self.init_items(init)[0], t)
        return self.convert(self.expr(init), t)

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
            depth, j = 0, m.start(2)
            while j < len(text):
                depth += {"[": 1, "]": -1}.get(text[j], 0)
                if depth == 0:
                    break
                j += 1
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

    def flatten_init(self, t: T.CType, init) -> tuple[list, int]:
        """The subobjects brace list ``init`` initializes in an object of type ``t`` (frontends/initializers.py)."""
        return inits.flatten(t, self.init_list(init) or [], self.coord(init), self.init_list, self.expr, self.convert)

    def init_length(self, t: T.Array, init) -> int:
        """The length brace list ``init`` gives array ``t[]`` (its values are not read)."""
        return inits.flatten(t, self.init_list(init) or [], self.coord(init), self.init_list,
                             lambda _: Const(T.INT, 0, "0"), lambda e, _: e)[1]

    # ------------------------------------------------------------------ functions
    def function(self, fd) -> Function:
        K = self.K
        ftype = self.func_type(fd)
        self.local_syms = {}
        self.locals = []
        self.before, self.conditional, self.unevaluated = None, 0, 0  # (as after a function that failed)
        self.dropped: list[str] = []  # where statements evaluated only for FP exceptions were (exception_only)
        self.switch_depth = 0  # switch statements being read around the current statement
        self.switch_count = 0  # switch statements read in this function (their labels' numbers)
        self.fn_name = fd.spelling
        params: list[Symbol] = []
        if ftype.variadic:
            m = None
            for tok in fd.get_tokens():
                if tok.spelling == "...":
                    m = tok
                    break
                if tok.spelling == "{":
                    break
            raise error(self.loc_coord(m.location) if m is not None else self.coord(fd),
                        f"variadic function '{fd.spelling}' cannot be expanded", "give it a fixed parameter list")
        for p in fd.get_arguments():
            pt = self.ctype(p.type, self.spec(p)[0], self.start_coord(p))
            if isinstance(pt, T.Void):
                continue
            if not p.spelling:
                raise error(self.decl_coord(p), "unnamed parameter")
            if p.type.is_volatile_qualified() or (isinstance(T.decay(pt), T.Pointer)
                                                  and p.type.get_canonical().get_pointee().is_volatile_qualified()):
                raise error(self.decl_coord(p), f"volatile parameter '{p.spelling}' cannot be vectorized",
                            "drop 'volatile' (vector code reads and writes whole gangs of lanes at once)")
            s = Symbol(p.spelling, T.decay(pt), "param", self.decl_coord(p),
                       volatile=p.type.is_volatile_qualified())
            params.append(s)
            self.local_syms[self.key(p)] = s
        for prm in params:
            prm.shape = self.simd.get(fd.spelling, {}).get(prm.name, "")
        for n in self.simd.get(fd.spelling, {}):
            if n not in {prm.name for prm in params}:
                raise error(self.coord(fd), f"'#pragma omp declare simd' names '{n}', which is not a parameter of "
                            f"'{fd.spelling}'", "name the function's own parameters in uniform(...) and linear(...)")
        self.cur_ret = ftype.ret
        body_c = next(c for c in self.children(fd) if c.kind == K.COMPOUND_STMT)
        body = self.compound(body_c)
        if self.dropped:
            self.assumptions[fd.spelling] = fenv.force_eval_assumption(self.dropped)
        words, quals = self.spec(fd)
        fn = Function(fd.spelling, ftype.ret, params, body, self.coord(fd),
                      static=fd.storage_class == ci.StorageClass.STATIC, inline="inline" in quals,
                      locals=self.locals, variadic=ftype.variadic)
        uniquify_locals(fn)
        return fn

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

    def side_effect(self, stmts: list[Stmt], co: Coord, what: str) -> None:
        """Run ``stmts`` before the statement being read: the side effects of an expression."""
        if self.unevaluated:
            return
        if self.before is None:
            raise error(co, f"{what} is not supported here", "write it as a statement of its own")
        if self.conditional:
            raise error(co, f"{what} inside an operand of &&, || or ?: is not supported",
                        "write it as a statement of its own before the condition")
        self.before.extend(stmts)

    def captured(self, read):
        """``read()`` and the statements its side effects need first."""
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
            if not ch:
                return [Return(co, None)]
            return [Return(co, self.convert(self.expr(ch[0]), self.cur_ret))]
        if k == K.DO_STMT:
            body_c, cond_c = self.children(c)
            cc = self.strip_parens(cond_c)
            if cc.kind == K.INTEGER_LITERAL and self.token_text(cc) == "0":
                body = self.body_of(body_c)
                if any(isinstance(s, (Break, Continue)) for s in walk_shallow(body)):
                    raise error(co, "'break' or 'continue' inside 'do { } while (0)' is not supported")
                return [Block(co, body)]
            body = self.body_of(body_c)
            cond, pre = self.captured(lambda: self.truth(self.expr(cond_c)))
            if pre:
                raise error(self.pcoord(cond_c), "an assignment or increment in a do-while condition is not"
                            " supported", "update the variable at the end of the loop body")
            return [Loop(co, "do", cond, body)]
        if k == K.WHILE_STMT:
            cond_c, body_c = self.children(c)
            cond, pre = self.captured(lambda: self.truth(self.expr(cond_c)))
            body = self.body_of(body_c)
            if pre:  # while ((n -= 1) > 0): the update runs before every test
                return [Loop(co, "for", None, [*pre, If(co, Unary(T.INT, "!", cond), [Break(co)], [])] + body)]
            return [Loop(co, "while", cond, body)]
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
            body = self.body_of(body_c)
            if pre and cond is not None:
                body = [*pre, If(co, Unary(T.INT, "!", cond), [Break(co)], []), *body]
                cond = None
            return [Loop(co, "for", cond, body, init, step)]
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
            word = "case" if k == K.CASE_STMT else "default"
            if not self.switch_depth:
                raise error(co, f"'{word}' label outside a 'switch'")
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
        own = set(self.locals[declared:])
        if self.conditional and all(pure_local_assignment(x, own) for x in stmts):
            self.before.extend(stmts)  # (only its own temporaries: evaluating them always changes nothing)
        else:
            self.side_effect(stmts, co, "a statement expression")
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
        (glibc's math_opt_barrier, math_force_eval)."""
        co = self.coord(c)
        operands = self.asm_operands(c)
        if operands is None:
            raise error(co, "inline assembly cannot be vectorized", "write the operation in C")
        outs, ins, out_c, in_c = operands
        result: list[Stmt] = []
        for cons, e in zip(ins, in_c):  # (read for their side effects only: a call is still made, first)
            if cons.isdigit():
                continue  # (tied to an output: the assignment below reads it)
            result += effects_only(co, *self.captured(lambda e=e: self.expr(e)))
        for j, (cons, target) in enumerate(zip(outs, out_c)):
            if cons.startswith("+"):
                continue
            tied = [e for cn, e in zip(ins, in_c) if cn == str(j)]
            if not cons.startswith("=") or len(tied) != 1:
                raise error(co, "an empty asm statement that sets an output is supported only with the output tied to"
                            " an input (\"=x\" (y) : \"0\" (x))")
            tgt = self.lvalue(target)
            result.append(Assign(co, tgt, self.convert(self.expr(tied[0]), tgt.type)))
        return result

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
        co = self.coord(c)
        ch = self.children(c)
        cond_c, body_c = ch[-2], ch[-1]
        value = self.expr(cond_c)
        if not isinstance(value.type, T.Int):
            raise error(self.pcoord(cond_c), f"the controlling expression of a 'switch' has type '{value.type}', "
                        "not an integer type")
        value = self.convert(value, T.promote(value.type))
        self.switch_count += 1
        number = self.switch_count
        self.switch_depth += 1
        try:
            body = self.body_of(body_c)
        finally:
            self.switch_depth -= 1

        def temp(t: T.CType) -> Symbol:
            sym = Symbol("switch_value", t, "local", co, temp=True)
            self.locals.append(sym)
            return sym

        return lower_switch(co, value, body, number, temp)

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
                 K.CSTYLE_CAST_EXPR, K.BINARY_OPERATOR):
            e = self.expr(c)
            if any(isinstance(x, Call) for x in e.walk()):
                return [ExprStmt(co, e)]  # (void) g(x);  g(x) + 1;  -- the calls stay, for their effects
            return []  # an expression statement without effect: type-checked, dropped
        if k in (K.UNARY_OPERATOR, K.CXX_UNARY_EXPR, K.CONDITIONAL_OPERATOR, K.MEMBER_REF_EXPR,
                 K.ARRAY_SUBSCRIPT_EXPR):
            e = self.expr(c)  # (their side effects are in self.before)
            if any(isinstance(x, Call) for x in e.walk()):
                return [ExprStmt(co, e)]
            return []
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
        n = fold_int(self.expr(ch[3]))
        if not (dst.type.is_arith() and src.type.is_arith()) or n != dst.type.size() or n != src.type.size():
            raise error(self.pcoord(c), "memcpy is only supported between same-size scalar variables",
                        "copy whole int/float values: memcpy(&i, &x, sizeof i)")
        value = src if T.strip_spelling(src.type) == T.strip_spelling(dst.type) else BitCast(dst.type, src)
        return Assign(self.pcoord(c), dst, value)

    def condition(self, c) -> tuple[Expr, bool | None]:
        likely = None
        s = self.strip_parens(c)
        if s.kind == self.K.CALL_EXPR:
            ch = self.children(s)
            callee = self.strip(ch[0])
            if callee.kind == self.K.DECL_REF_EXPR and callee.spelling == "__builtin_expect" and len(ch) == 3:
                v = fold_int(self.expr(ch[2]))
                if v is not None:
                    likely = bool(v)
        return self.expr(c), likely

    def update(self, c) -> Assign:
        K = self.K
        co = self.pcoord(c)
        if c.kind == K.UNARY_OPERATOR:
            target = self.lvalue(self.children(c)[0])
            op = "+" if "++" in unary_op(c) else "-"
            value = self.binary(op, target, Const(T.INT, 1, "1"), c)
            return Assign(co, target, self.convert(value, target.type))
        lhs_c, rhs_c = self.children(c)
        target = self.lvalue(lhs_c)
        rhs = self.expr(rhs_c)  # (a = b = c: b = c runs first, through self.before)
        op = binary_op(c)
        if op != "=":
            # clang converts the right operand of a compound assignment to the computation type
            rc = rhs_c if op not in ("<<=", ">>=") else None
            rhs = self.binary(op[:-1], target, rhs, c, None, rc, check_result=False)
        return Assign(co, target, self.convert(rhs, target.type))

    def lvalue(self, c) -> Expr:
        e = self.expr(c)
        if not isinstance(e, (Var, Index, Member)) and not (isinstance(e, Unary) and e.op == "*"):
            raise error(self.pcoord(c), "expression is not assignable")
        root = e
        while isinstance(root, (Index, Member)):
            root = root.base
        if isinstance(root, Var):
            written_static(root.sym, self.pcoord(c))
        # (an assignment to a global variable: expand/global_writes.py takes it or diagnoses it)
        return e

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
        if sc == ci.StorageClass.EXTERN:
            raise error(co, f"local 'extern' variable '{d.spelling}' is not supported", "move it to file scope")
        words, quals = self.spec(d)
        if "volatile" in quals:
            raise error(co, f"volatile variable '{d.spelling}' cannot be vectorized")
        for a in d.get_children():
            if a.kind == K.UNEXPOSED_ATTR and any(t.spelling.strip("_") == "cleanup" for t in a.get_tokens()):
                raise error(co, f"'__attribute__ ((cleanup))' on '{d.spelling}' is not supported",
                            "call the cleanup function at the end of the block yourself (the pycparser frontend "
                            "reads glibc's SET_RESTORE_ROUND)")
        if d.type.get_canonical()._kind_id == ci.TypeKind.VARIABLEARRAY.value:
            raise error(co, f"variable-length array '{d.spelling}' is not supported")
        t = self.ctype(d.type, words, self.start_coord(d))
        if sc == ci.StorageClass.STATIC:
            return self.local_static(d, t, "const" in quals)
        if isinstance(t, T.Array):
            check_local_array(co, d.spelling, t)
        elif isinstance(t, T.Record):
            local_record_check(co, d.spelling, t, self.target)
        sym = Symbol(d.spelling, t, "local", co, const="const" in quals)
        self.local_syms[self.key(d)] = sym
        self.locals.append(sym)
        init = var_init(d)
        if init is None:
            return record_declared(co, sym)
        init = self.strip_parens(init)
        if init.kind == K.INIT_LIST_EXPR:
            if isinstance(t, (T.Record, T.Array)):
                return aggregate_initializer(co, sym, self.flatten_init(t, init)[0])
            items = self.init_items(init)
            return [Assign(co, Var(t, sym), self.convert(self.expr(self.scalar_item(items[0])), t))]
        if isinstance(t, T.Array):
            raise error(co, f"local array '{d.spelling}' is initialized by a string or an expression, not a list",
                        "initialize it with a list: = {...}")
        return [Assign(co, Var(t, sym), self.convert(self.expr(init), t))]

    def scalar_item(self, item):
        """The expression of a scalar's initializer item: ``x``, ``{x}`` or ``{{x}}``."""
        item = self.strip_parens(item)
        while item.kind == self.K.INIT_LIST_EXPR:  # int y = {{x}};
            item = self.strip_parens(self.init_items(item)[0])
        return item

    def local_static(self, d, t: T.CType, const: bool) -> list[Stmt]:
        """A function-local ``static`` variable: a file-scope one under a file-unique name (its
        writes are refused where they are made)."""
        co = self.decl_coord(d)
        init = var_init(d)
        value = None
        if init is not None:
            here, self.here = self.here, co
            try:
                value = self.global_init(init, t)
            finally:
                self.here = here
        sym = local_static(co, d.spelling, t, const, value, self.fn_name)
        self.local_syms[self.key(d)] = sym
        self.local_statics.append(sym)
        return []

    # ------------------------------------------------------------------ expressions
    def convert(self, e: Expr, t: T.CType) -> Expr:
        """Implicit conversion of ``e`` to ``t``, shaped as the pycparser frontend shapes it."""
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
                a = self.update(c)
                self.side_effect([a], co, "an assignment inside an expression")
                return a.target
            if op == ",":  # (e1, e2): e1 for its side effects, then e2
                *first, last = self.comma_list(c)
                for e in first:
                    v = self.expr(e)
                    if any(isinstance(x, Call) for x in v.walk()):
                        self.side_effect([ExprStmt(co, v)], co, "a call in the left operand of ','")
                return self.expr(last)
            lc, rc = self.children(c)
            left = self.expr(lc)
            if op in ("&&", "||"):
                with self.sometimes():
                    right = self.expr(rc)
            else:
                right = self.expr(rc)
            return self.binary(op, left, right, c, lc, rc)
        if k == K.COMPOUND_ASSIGNMENT_OPERATOR:
            a = self.update(c)
            self.side_effect([a], co, "an assignment inside an expression")
            return a.target
        if k in (K.UNARY_OPERATOR, K.CXX_UNARY_EXPR):
            return self.unary(c)
        if k == K.CSTYLE_CAST_EXPR:
            return self.cast(c)
        if k == K.CONDITIONAL_OPERATOR:
            cc, ac, bc = self.children(c)
            cnd = self.truth(self.expr(cc))
            with self.sometimes():
                a = self.expr(ac)
                b = self.expr(bc)
            if a.type.is_arith() and b.type.is_arith():
                t = T.usual_arith(a.type, b.type)
                t = self.agree(t, c.type, c, "type")
                ta = self.agree(t, ac.type, ac, "converted type")
                tb = self.agree(t, bc.type, bc, "converted type")
                return Cond(t, cnd, self.convert(a, ta), self.convert(b, tb))
            if a.type == b.type:
                return Cond(a.type, cnd, a, b)
            raise error(co, "conditional operator with these operand types is not supported")
        if k == K.CALL_EXPR:
            return self.call(c)
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            bc, ic = self.children(c)
            base = self.expr(bc)
            idx = self.expr(ic)
            bt = base.type
            if isinstance(bt, (T.Array, T.Pointer)):
                elem = bt.elem if isinstance(bt, T.Array) else bt.target
                if not idx.type.is_int():
                    raise error(co, "array subscript is not an integer")
                elem = self.agree(elem, c.type, c, "type")
                return Index(elem, base, T.promote(idx.type) == idx.type and idx or Cast(T.promote(idx.type), idx))
            raise error(co, "subscripted value is not an array or pointer")
        if k == K.MEMBER_REF_EXPR:
            ch = self.children(c)
            base = self.expr(ch[0])
            bt = base.type
            arrow = ch[0].type.get_canonical().kind == ci.TypeKind.POINTER
            if arrow:
                if not isinstance(bt, T.Pointer) or not isinstance(bt.target, T.Record):
                    raise error(co, "'->' on a value that is not a pointer to a struct or union")
                rec = bt.target
            else:
                if not isinstance(bt, T.Record):
                    raise error(co, "'.' on a value that is not a struct or union")
                rec = bt
            ft = rec.field_type(c.spelling)
            if ft is None:
                raise error(co, f"no member named '{c.spelling}'")
            ft = self.agree(ft, c.type, c, "type")
            return Member(ft, base, c.spelling, arrow)
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

    def cast(self, c) -> Expr:
        co = self.pcoord(c)
        t = self.ctype(c.type, self.paren_words(c.extent.start.offset), co)
        inner = self.strip(self.children(c)[-1])
        if inner.kind == self.K.FLOATING_LITERAL:  # (double)1.79e308L: DBL_MAX
            text = self.slice(inner.extent.start.offset, inner.extent.end.offset)
            if text[-1:] in "lL":
                ld = long_double_literal(text, T.strip_spelling(t))
                if ld is not None:
                    return ld
        e = self.expr(self.children(c)[-1])
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
            try:
                ours, mine = T.char_constant(text, self.target)
            except T.CharConstantError as exc:
                raise error(co, str(exc)) from None
            t = self.agree(ours, c.type, c, "type")
            v = evaluate(c)
            if isinstance(v, int) and t.wrap(v) != mine:
                self.mismatch(TypeMismatch(co, text, "value", ours, str(v)))
                mine = t.wrap(v)
            return Const(t, mine, text)
        if c.kind == K.FLOATING_LITERAL:
            body, suffix = (text[:-1], text[-1].lower()) if text[-1] in "fFlL" else (text, "")
            if suffix == "l" or c.type.get_canonical().kind == ci.TypeKind.LONGDOUBLE:
                raise error(co, "long double constants are not supported")
            v = evaluate(c)
            if v is None:
                v = float.fromhex(body) if body.lower().startswith("0x") else float(body)
            if suffix == "f":
                return Const(self.agree(T.FLOAT, c.type, c, "type"), float32(v), text)
            return Const(self.agree(T.DOUBLE, c.type, c, "type"), v, text)
        m = re.match(r"^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)$", text)
        if not m:
            raise error(co, f"cannot read constant '{text}'")
        from expand.cprint import literal_type  # C11 6.4.4.1 on LP64, the rule both frontends follow
        ours = literal_type(text)
        if ours is None:
            raise error(co, f"integer constant '{text}' is too large")
        t = self.agree(ours, c.type, c, "type")
        v = evaluate(c)
        if not isinstance(v, int):
            v = int(m.group(1), 0) if not re.match(r"0[0-7]+$", m.group(1)) else int(m.group(1), 8)
        return Const(t, t.wrap(v) if isinstance(t, T.Int) else v, text)

    def truth(self, e: Expr) -> Expr:
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

    def binary(self, op: str, a: Expr, b: Expr, c, lc=None, rc=None, check_result: bool = True) -> Expr:
        """``a op b`` with C's conversions: our rules for the spelling, clang's types checked against them.
        ``lc``/``rc`` are clang's operands (with its implicit conversions) where there are any."""
        co = self.pcoord(c)
        if op in ("&&", "||"):
            t = self.agree(T.INT, c.type, c, "type") if check_result else T.INT
            return Binary(t, op, self.truth(a), self.truth(b))
        if op in ("==", "!=") and null_comparison(a, b) is not None:
            p, _ = null_comparison(a, b)
            null = Const(p.type, 0, "0")  # (the null constant in the pointer's type)
            t = self.agree(T.INT, c.type, c, "type") if check_result else T.INT
            return Binary(t, op, a if a is p else null, b if b is p else null)
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
            if lc is not None:
                lt = self.agree(lt, lc.type, lc, "promoted type")
            if rc is not None:
                rt = self.agree(rt, rc.type, rc, "promoted type")
            if check_result:
                lt = self.agree(lt, c.type, c, "type")
            return Binary(lt, op, self.convert(a, lt), self.convert(b, rt))
        t = T.usual_arith(a.type, b.type)
        if op in ("%", "&", "|", "^") and not t.is_int():
            raise error(co, f"operator '{op}' needs integer operands")
        ta = self.agree(t, lc.type, lc, "converted type") if lc is not None else t
        tb = self.agree(t, rc.type, rc, "converted type") if rc is not None else t
        a, b = self.convert(a, ta), self.convert(b, tb)
        if op in COMPARISONS:
            r = self.agree(T.INT, c.type, c, "type") if check_result else T.INT
            return Binary(r, op, a, b)
        if check_result:
            t = self.agree(ta, c.type, c, "type")
        return Binary(t, op, a, b)

    def unary(self, c) -> Expr:
        K = self.K
        co = self.pcoord(c)
        if c.kind == K.CXX_UNARY_EXPR:
            return self.sizeof(c)
        op = unary_op(c)
        if op in ("p++", "p--", "++", "--"):  # its value: the new one (++x) or the old one (x++)
            a = self.update(c)
            if op in ("++", "--"):
                self.side_effect([a], co, f"'{op}' inside an expression")
                return a.target
            old = Symbol(f"{lvalue_name(a.target)}_old", a.target.type, "local", co, temp=True)
            self.locals.append(old)
            self.side_effect([Assign(co, Var(old.type, old), a.target), a], co, f"'{op[1:]}' inside an expression")
            return Var(old.type, old)
        oc = self.children(c)[0]
        e = self.expr(oc)
        if op == "&":
            return Unary(self.agree(T.Pointer(e.type), c.type, c, "type"), "&", e)
        if op == "*":
            if isinstance(e.type, T.Pointer):
                return Unary(self.agree(e.type.target, c.type, c, "type"), "*", e)
            if isinstance(e.type, T.Array):
                return Index(self.agree(e.type.elem, c.type, c, "type"), e, Const(T.INT, 0, "0"))
            raise error(co, "dereference of a value that is not a pointer")
        if op == "!":
            return Unary(self.agree(T.INT, c.type, c, "type"), "!", self.truth(e))
        if op not in ("+", "-", "~"):
            raise error(co, f"operator '{op}' is not supported")
        if not e.type.is_arith():
            raise error(co, f"operator '{op}' on '{e.type}' is not supported")
        t = T.promote(e.type)
        t = self.agree(t, oc.type, oc, "promoted type")
        t = self.agree(t, c.type, c, "type")
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
            self.unevaluated += 1
            try:
                self.expr(ch[0])  # the same checks as the pycparser frontend's (it types the operand)
            finally:
                self.unevaluated -= 1
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
        if name in builtins.NANS:
            lit = [self.strip(a) for a in ch[1:]]
            if len(lit) != 1 or lit[0].kind != K.STRING_LITERAL:
                raise error(co, f"'{name}' takes one string literal")
            return builtins.nan_constant(name, self.slice(lit[0].extent.start.offset, lit[0].extent.end.offset), co)
        args = [self.expr(a) for a in ch[1:]]
        if name == "__builtin_expect":
            return args[0]
        if builtins.is_math_builtin(name):
            return builtins.math_builtin(name, args, co)
        ref = callee.referenced
        if ref is not None and ref.kind in (K.VAR_DECL, K.PARM_DECL) and self.key(ref) in self.local_syms:
            raise error(co, f"call through function pointer '{name}' cannot be vectorized",
                        "call the function by name")
        sig = math_signature(name)  # libm builtins, and libm calls without a prototype
        if sig is not None and len(args) == len(sig[1]) and (name.startswith("__builtin_") or name not in self.globals):
            return Call(sig[0], name, [self.convert(a, pt) for a, pt in zip(args, sig[1])], co)
        alias = builtins.libm_alias(name)  # __builtin_roundf: roundf's types (the name needs no prototype)
        if alias is not None and len(args) == len(alias[2]):
            return Call(alias[1], name, [self.convert(a, pt) for a, pt in zip(args, alias[2])], co)
        if name in _NONLOCAL_JUMPS:
            raise error(co, f"'{name}' (non-local jumps) cannot be vectorized",
                        "keep setjmp/longjmp in the scalar caller")
        if name.startswith("__builtin_"):
            raise error(co, f"builtin '{name}' is not supported")
        if name not in self.globals:
            raise error(co, f"call to undeclared function '{name}'")
        sym = self.global_symbol(name)
        ft = sym.type
        if not isinstance(ft, T.Func):
            raise error(co, f"call through function pointer '{name}' cannot be vectorized",
                        "call the function by name")
        if ft.variadic:
            raise error(co, f"call to variadic function '{name}' cannot be vectorized")
        if len(args) != len(ft.params):
            raise error(co, f"'{name}' takes {len(ft.params)} arguments, {len(args)} given")
        args = [self.convert(a, self.agree(pt, ac.type, ac, "argument type")) for a, pt, ac in
                zip(args, ft.params, ch[1:])]
        return Call(self.agree(ft.ret, c.type, c, "type"), name, args, co)


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


def _punning_union(t: T.Record) -> bool:
    from expand.lower import punnable
    return punnable(t)


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
    if "\x00" in text:  # (at the first NUL byte)
        i = text.index("\x00")
        raise error(Coord(path, text.count("\n", 0, i) + 1, i - text.rfind("\n", 0, i)),
                    "input is not a C source file (it contains NUL bytes)")
    try:
        target = T.target_of(cc, char_signed)
    except T.TargetError as exc:
        raise error(None, str(exc)) from None
    if text.startswith("\ufeff"):  # a UTF-8 byte order mark (gcc skips it)
        text = text[1:]
    pre = preprocess(path, text, include_dirs, defines, undefs, T.target_cc(cc, char_signed))
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
