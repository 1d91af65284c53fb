"""Reader for C files through gcc -E and pycparser + pycparserext's GNU parser, into the typed IR.

Types follow C11 on LP64 (our own rules in expand.types); implicit conversions become explicit
``Cast`` nodes so later passes never re-derive C's conversion rules.  What the target decides (plain
``char``'s signedness, ``wchar_t``) comes from the target compiler (``read_file(..., cc=...)``), which
also preprocesses, so the file sees the target's headers and macros.
"""

from __future__ import annotations

import bisect
import re
import subprocess
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

from pycparser import c_ast, c_generator
from pycparser.c_parser import ParseError
from pycparserext import ext_c_parser as ext_c_ast
from pycparserext.ext_c_parser import GnuCParser

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

from . import builtins, fenv, force_eval
from . import initializers as inits
from .csemantics import (
    COMPARISONS,
    CPP_FLAGS,
    effects_only,
    float32,
    include_site,
    is_null_pointer_constant,
    long_double_literal,
    lvalue_name,
    module_prologue,
    null_comparison,
    pure_local_assignment,
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

NESTING_HINT = "split deep expressions or blocks into several statements"


def preprocess(path: str, text: str, include_dirs=(), defines=(), undefs=(), cc: str | Sequence[str] = "gcc") -> str:
    """Run the C preprocessor of ``cc`` (a compiler name, or a command as a list); line markers keep
    the user's file and line numbers."""
    cmd = [*([cc] if isinstance(cc, str) else cc), *CPP_FLAGS]
    for d in include_dirs:
        cmd.append(f"-I{d}")
    for d in defines:
        cmd.append(f"-D{d}")
    for u in undefs:
        cmd.append(f"-U{u}")
    src_dir = str(Path(path).parent) if path != "<stdin>" else "."
    cmd += [f"-I{src_dir}", "-x", "c", "-"]
    # Feed the text on stdin but keep the user's file name in line markers.
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



class Reader:
    """Builds a Module from one preprocessed translation unit.

    ``target``: the target's types (``T.target_of(cc)``); ``packed_enums``: ``packed_enums(pre)`` of
    the preprocessed text (pycparserext drops ``__attribute__((packed))`` from enums)."""

    def __init__(self, path: str, source: str, target: T.Target = T.HOST,
                 packed_enums: frozenset[str] = frozenset(), templates: frozenset[str] = frozenset()) -> None:
        self.path = path
        self.templates = templates  # .c files the user's file includes: its own code too
        self.source = source
        self.target = target
        self.packed_enums = packed_enums  # first enumerator of each enum declared __attribute__((packed))
        #: where records with attributes that may change their layout are defined (``layout_lines``)
        self.layout_lines: frozenset[tuple[str, int]] | None = frozenset()
        self.typedefs: dict[str, object] = {}  # name -> ast node or CType
        self.tags: dict[str, T.Record] = {}
        self.tag_errors: dict[str, ExpandError] = {}  # struct/union tags whose members we refuse
        self.enum_tags: dict[str, T.Int | ExpandError] = {}
        self.enum_nodes: dict[int, T.Int] = {}  # id(c_ast.Enum) -> its type (each list defined once)
        self.here: Coord | None = None  # the statement or declaration being read (for errors)
        self.globals: dict[str, Symbol] = {}
        self.global_nodes: dict[str, object] = {}
        self.functions: dict[str, Function] = {}
        self.func_nodes: dict[str, c_ast.FuncDef] = {}
        self.enums: dict[str, tuple[int, T.Int] | ExpandError] = {}  # constant -> (value, type)
        self.scopes: list[dict[str, Symbol]] = []
        self.locals: list[Symbol] = []
        self.cur_ret: T.CType = T.VOID
        self.pending_simd: dict[str, str] | None = None
        self.simd: dict[str, dict[str, str]] = {}
        self.local_statics: list[Symbol] = []  # function-local statics, file-scope symbols (name_local_statics)
        self.assumptions: dict[str, str] = {}  # function -> what its output assumes (frontends/fenv.py)
        # Side effects inside expressions (``a = b = c``, ``x++``, ``(e1, e2)``, ``({ ... })``): the
        # statements that run before the statement being read (None: none allowed here), and how deep
        # the expression is in operands evaluated only sometimes (&&, ||, ?:) or never (sizeof, typeof).
        self.before: list[Stmt] | None = None
        self.conditional = 0
        self.unevaluated = 0

    # ------------------------------------------------------------------ coords and errors
    def coord(self, node) -> Coord:
        c = getattr(node, "coord", None)
        if c is None:
            return Coord(self.path, 1, 1)
        return Coord(c.file or self.path, c.line or 1, c.column or 1)

    def in_user_file(self, node) -> bool:
        c = getattr(node, "coord", None)
        return c is not None and (c.file == self.path or c.file in self.templates)

    # ------------------------------------------------------------------ types
    def typedef(self, name: str, node) -> T.CType:
        t = self.typedefs.get(name)
        if t is None:
            raise error(self.coord(node), f"unknown type name '{name}'")
        if not isinstance(t, T.CType):
            t = self.ctype(t.type)
            self.typedefs[name] = t
            if isinstance(t, T.Record) and not t.tag and not t.spelling:
                t.spelling = name  # (typedef struct { ... } name: the output defines it under this name)
        if isinstance(t, T.Int):
            return T.Int(t.bits, t.signed, t.is_bool, spelling=name)
        if isinstance(t, T.Float):
            return T.Float(t.bits, spelling=name)
        return t

    def ctype(self, node) -> T.CType:
        """The CType of a pycparser type node."""
        if isinstance(node, c_ast.TypeDecl):
            if "_Atomic" in self._quals(node):
                raise error(self.coord(node), "_Atomic types are not supported")
            if _has_attribute(node, "vector_size"):
                raise error(self.coord(node), "GCC vector types (__attribute__((vector_size))) are not supported",
                            "write the scalar function on scalar types: expand makes the vectors")
            return self.ctype(node.type)
        if isinstance(node, c_ast.IdentifierType):
            words = [w for w in node.names if w not in ("__extension__",)]
            if len(words) == 1 and words[0] in self.typedefs:
                return self.typedef(words[0], node)
            key = tuple(sorted(words))
            if key == ("char",):
                return self.target.char  # signed on x86-64, unsigned on AArch64 and ppc64le
            if key in T.BASIC_TYPES:
                return T.BASIC_TYPES[key]
            raise error(self.coord(node), f"type '{' '.join(words)}' is not supported",
                        "expand handles integer types up to 64 bits, float and double")
        if isinstance(node, c_ast.PtrDecl):
            return T.Pointer(self.ctype(node.type), const="const" in (self._quals(node.type)))
        if isinstance(node, c_ast.ArrayDecl):
            n = None
            if node.dim is not None:
                try:
                    n = self.const_int(node.dim)
                except ExpandError:
                    raise error(self.coord(node.dim), "variable-length arrays are not supported") from None
            return T.Array(self.ctype(node.type), n)
        if isinstance(node, (c_ast.FuncDecl, ext_c_ast.FuncDeclExt)):
            params: list[T.CType] = []
            variadic = False
            if node.args is not None:
                if any(isinstance(p, c_ast.ID) for p in node.args.params):
                    raise error(self.coord(node), "old-style (K&R) function definitions are not supported",
                                "declare the parameters' types in the parameter list: int f(int x)")
                for p in node.args.params:
                    if isinstance(p, c_ast.EllipsisParam):
                        variadic = True
                        continue
                    pt = self.ctype(p.type)
                    if isinstance(pt, T.Void):
                        continue
                    params.append(T.decay(pt))
            return T.Func(self.ctype(node.type), tuple(params), variadic)
        if isinstance(node, (c_ast.Struct, c_ast.Union)):
            return self.record(node)
        if isinstance(node, c_ast.Enum):
            return self.enum_type(node)
        if isinstance(node, ext_c_ast.TypeOfExpression):  # typeof (x): the expression is not evaluated
            self.unevaluated += 1
            try:
                return self.expr(node.expr).type
            finally:
                self.unevaluated -= 1
        if isinstance(node, ext_c_ast.TypeOfDeclaration):
            d = node.declaration
            return self.ctype(d.type if isinstance(d, c_ast.Typename) else d)
        raise error(self.coord(node), f"type construct {type(node).__name__} is not supported")

    @staticmethod
    def _quals(node) -> list[str]:
        return list(getattr(node, "quals", []) or [])

    def enum_type(self, node: c_ast.Enum) -> T.Int:
        """The type of ``enum tag`` or of an enumerator list (defined here, once)."""
        if node.values is not None:
            return self.define_enum(node)
        t = self.enum_tags.get(node.name)
        if isinstance(t, ExpandError):
            raise t
        if t is None:
            raise error(self.coord(node), f"incomplete enumeration type 'enum {node.name}' is not supported")
        return t

    def define_enum(self, node: c_ast.Enum) -> T.Int:
        """Register an enumerator list's constants and tag; its type follows GCC (T.enum_type)."""
        done = self.enum_nodes.get(id(node))
        if done is not None:
            return done
        names = [e.name for e in node.values.enumerators]
        try:
            values: list[int] = []
            v = -1
            for e in node.values.enumerators:
                v = self.const_int(e.value) if e.value is not None else v + 1
                values.append(v)
                self.enums[e.name] = (v, T.enum_constant_type_while_defining(v))
            t = T.enum_type(values, packed=bool(names) and names[0] in self.packed_enums)
            if t is None:
                raise error(self.coord(node), "enumeration values exceed the range of the largest integer type")
        except ExpandError as exc:  # (raised again where a constant or the tag is used)
            for n in names:
                self.enums[n] = exc
            if node.name:
                self.enum_tags[node.name] = exc
            raise
        for n, v in zip(names, values):
            self.enums[n] = (v, T.enum_constant_type(v, t))
        if node.name:
            self.enum_tags[node.name] = t
        self.enum_nodes[id(node)] = t
        return t

    def define_enums_in(self, node) -> None:
        """Define the enumerator lists inside a declaration's type now, so that their constants are
        known even when the declaration itself is never used (``typedef enum { A, B } E;``)."""
        if isinstance(node, c_ast.Enum) and node.values is not None:
            try:
                self.define_enum(node)
            except ExpandError:
                pass
            return
        if isinstance(node, (c_ast.Compound, c_ast.InitList)) or node is None:
            return
        for _, child in node.children():
            self.define_enums_in(child)

    def record(self, node) -> T.Record:
        is_union = isinstance(node, c_ast.Union)
        if node.name and node.name in self.tag_errors:
            raise self.tag_errors[node.name]
        if node.decls is None:
            if node.name and node.name in self.tags:
                return self.tags[node.name]
            r = T.Record(node.name, is_union, [], complete=False)
            if node.name:
                self.tags[node.name] = r
            return r
        r = self.tags.get(node.name) if node.name else None
        if r is None or r.complete:
            r = T.Record(node.name, is_union)
            if node.name:
                self.tags[node.name] = r
        fields = []
        layout = "it has attributes (__attribute__ on the struct or union)" if type(node).__name__.endswith("Ext") \
            else ""
        try:
            for d in node.decls:
                if d.bitsize is not None:
                    raise error(self.coord(d), "bit-fields are not supported")
                if d.name is None:
                    raise error(self.coord(d), "anonymous struct or union members are not supported")
                if d.align or d.funcspec or type(d.type).__name__.endswith("Ext") and not isinstance(
                        d.type, (ext_c_ast.FuncDeclExt,)):
                    layout = layout or f"its member '{d.name}' has an alignment or attributes"
                fields.append((d.name, self.ctype(d.type)))
        except ExpandError as exc:  # every later use of the tag says why (not "no member named ...")
            if node.name:
                self.tag_errors[node.name] = exc
            raise
        r.fields = fields
        r.complete = True
        r.coord = self.coord(node)
        if self.layout_lines is None:
            layout = layout or "the file uses #pragma pack"
        elif node.coord is not None and (node.coord.file, node.coord.line) in self.layout_lines:
            layout = layout or "it has attributes or _Alignas that may change its layout"
        r.layout_problem = layout
        return r

    def const_int(self, node) -> int:
        e = self.expr(node)
        v = fold_int(e)
        if v is None:
            raise error(self.coord(node), "expected an integer constant expression")
        return v

    # ------------------------------------------------------------------ top level
    def read(self, ast: c_ast.FileAST) -> Module:
        for node in ast.ext:
            self.toplevel(node)
        prologue = module_prologue(self.source, self.templates)
        failed: dict[str, Exception] = {}
        for name, fd in self.func_nodes.items():
            if fenv.operation(name) is not None:
                continue  # (its calls are read as frontends/fenv.py says)
            try:
                self.functions[name] = self.function(fd)
            except ExpandError as exc:
                # The user's: raised if an expanded function needs it (expand/driver.py). A static helper
                # of one of the user's headers (asuint, ...) is used if it converts, else called per lane.
                if self.in_user_file(fd):
                    failed[name] = exc
        mod = Module(self.path, self.source.splitlines(), self.functions, self.globals, prologue, self.templates,
                     {n: a for n, a in self.assumptions.items() if n in self.functions}, failed)
        name_local_statics(mod, self.local_statics)
        return mod

    def toplevel(self, node) -> None:
        if isinstance(node, (c_ast.Typedef, c_ast.Decl)):
            self.define_enums_in(node.type)
        elif isinstance(node, c_ast.FuncDef):
            self.define_enums_in(node.decl.type)
        if isinstance(node, c_ast.Typedef):
            self.typedefs[node.name] = node
            return
        if isinstance(node, c_ast.StaticAssert):
            if self.in_user_file(node):
                self.static_assert(node)
            return
        if isinstance(node, c_ast.FuncDef):
            name = node.decl.name
            storage = list(node.decl.storage or [])
            if self.in_user_file(node) and self.pending_simd is not None:
                self.simd[name] = self.pending_simd
                self.pending_simd = None
            if self.in_user_file(node) and self.in_user_file(self.func_nodes.get(name)):
                first = self.coord(self.func_nodes[name].decl)
                raise error(self.coord(node.decl), f"redefinition of function '{name}'",
                            f"define '{name}' once (its first definition is at {first})")
            if self.in_user_file(node) or ("static" in storage and not _system_header(node)):
                self.func_nodes[name] = node
            self.declare_global(node.decl, defined=self.in_user_file(node))
            return
        if isinstance(node, c_ast.Decl):
            self.declare_global(node, defined=self.in_user_file(node) and node.init is not None)
            return
        if isinstance(node, c_ast.Pragma):
            if self.in_user_file(node):
                self.pending_simd = parse_declare_simd(node.string) or self.pending_simd
            return
        if self.in_user_file(node) and not isinstance(node, (c_ast.EmptyStatement,)):
            if type(node).__name__ in ("Asm", "PreprocessorLine"):
                raise error(self.coord(node), "top-level inline assembly is not supported")

    def declare_global(self, d: c_ast.Decl, defined: bool) -> None:
        if d.name is None:
            # A bare struct/union/enum declaration: register its tag.
            try:
                self.ctype(d.type)
            except ExpandError:
                pass
            return
        self.global_nodes[d.name] = d
        quals = list(d.quals or [])
        storage = list(d.storage or [])
        prev = self.globals.get(d.name)
        sym = Symbol(d.name, T.VOID, "global", self.coord(d), static="static" in storage,
                     const="const" in quals, volatile="volatile" in quals)
        sym.type = None  # resolved lazily: headers declare many things we never use
        sym.init = d.init
        sym.defined_here = defined
        if prev is not None and not defined:
            return
        if isinstance(d.type, (c_ast.FuncDecl, ext_c_ast.FuncDeclExt)):
            sym.kind = "func"
        self.globals[d.name] = sym

    def global_symbol(self, name: str, node) -> Symbol:
        sym = self.globals[name]
        if sym.type is None:
            d = self.global_nodes[name]
            here, self.here = self.here, self.coord(d)
            try:
                t = self.ctype(d.type)
                if isinstance(t, T.Array) and t.length is None and isinstance(d.init, c_ast.InitList):
                    t = T.Array(t.elem, self.init_length(t, d.init))
                sym.type = t  # (before the initializer, which may name the symbol: sizeof x)
                init = self.global_init(sym.init, t) if sym.init is not None and sym.defined_here else None
            except ExpandError:
                sym.type = None  # (tried again, and refused again, by the next function that uses it)
                raise
            finally:
                self.here = here
            sym.init = init
        return sym

    def static_assert(self, node) -> None:
        """``_Static_assert(cond, "message")``: checked when expand can evaluate ``cond``."""
        try:
            v = self.const_int(node.cond)
        except ExpandError:
            return  # (gcc checks it when the output is compiled)
        if v == 0:
            msg = node.message.value[1:-1] if node.message is not None else ""
            raise error(self.coord(node.cond), f"static assertion failed{': ' + msg if msg else ''}")

    def init_items(self, init: c_ast.InitList) -> list:
        """The items of an initializer list without designators (a scalar's ``{x}``)."""
        if not init.exprs:
            raise error(self.coord(init) if init.coord else self.here,
                        "an empty initializer '{}' is not supported", "write the value: = {0}")
        for i in init.exprs:
            if isinstance(i, c_ast.NamedInitializer):
                where = i.name[0] if i.name else i.expr
                raise error(self.coord(where), "a designator in the initializer of a scalar")
        return init.exprs

    def init_list(self, init) -> list[inits.Item] | None:
        """The items of brace list ``init`` with their designators (None: ``init`` is an expression)."""
        if not isinstance(init, c_ast.InitList):
            return None
        if not init.exprs:
            raise error(self.coord(init) if init.coord else self.here,
                        "an empty initializer '{}' is not supported", "write the value: = {0}")
        out = []
        for i in init.exprs:
            if isinstance(i, c_ast.NamedInitializer):
                out.append(inits.Item([self.designator(n) for n in i.name], i.expr,
                                      self.coord(i.expr) if i.expr.coord else self.here))
            else:
                out.append(inits.Item([], i, self.coord(i) if i.coord else self.here))
        return out

    def designator(self, n) -> inits.Designator:
        """``.name`` or ``[index]``: pycparser gives both as an ID when the index is an identifier (an
        enumeration constant), so an ID carries both readings and the object's type picks one."""
        co = self.coord(n) if n.coord else self.here
        if isinstance(n, c_ast.ID):
            try:
                index = fold_int(self.expr(n))
            except ExpandError:
                index = None
            return inits.Designator(co, field=n.name, index=index)
        if type(n).__name__ == "RangeExpression":
            return inits.Designator(co, index=self.const_int(n.first), last=self.const_int(n.last))
        return inits.Designator(co, index=self.const_int(n))

    def flatten_init(self, t: T.CType, init: c_ast.InitList) -> tuple[list, int]:
        """The subobjects brace list ``init`` initializes in an object of type ``t`` (frontends/initializers.py)."""
        co = self.coord(init) if init.coord else self.here
        return inits.flatten(t, self.init_list(init) or [], co, self.init_list, self.expr, self.convert)

    def init_length(self, t: T.Array, init: c_ast.InitList) -> int:
        """The length brace list ``init`` gives array ``t[]`` (its values are not read)."""
        co = self.coord(init) if init.coord else self.here
        return inits.flatten(t, self.init_list(init) or [], co, self.init_list, lambda _: Const(T.INT, 0, "0"),
                             lambda e, _: e)[1]

    def scalar_init(self, init):
        """The expression of a scalar's initializer: ``x``, ``{x}`` or ``{{x}}``."""
        while isinstance(init, c_ast.InitList):
            init = self.init_items(init)[0]
        return init

    def global_init(self, init, t: T.CType):
        if isinstance(init, c_ast.InitList):
            if isinstance(t, (T.Array, T.Record)):
                return inits.nest(t, self.flatten_init(t, init)[0])
            return self.global_init(self.scalar_init(init), t)
        return self.convert(self.expr(init), t)

    # ------------------------------------------------------------------ functions
    def function(self, fd: c_ast.FuncDef) -> Function:
        decl = fd.decl
        ftype = self.ctype(decl.type)
        assert isinstance(ftype, T.Func)
        self.scopes = [{}]
        self.locals = []
        self.before, self.conditional, self.unevaluated = None, 0, 0  # (as after a function that failed)
        self.dropped: list[str] = []  # where statements evaluated only for FP exceptions were (force_eval)
        self.label_names: set[str] = set()
        self.switch_depth = 0  # switch statements being read around the current statement
        self.switch_count = 0  # switch statements read in this function (their labels' numbers)
        self.fn_name = decl.name
        params: list[Symbol] = []
        fdecl = decl.type
        if fdecl.args is not None:
            for p in fdecl.args.params:
                if isinstance(p, c_ast.EllipsisParam):
                    raise error(self.coord(p), f"variadic function '{decl.name}' cannot be expanded",
                                "give it a fixed parameter list")
                pt = self.ctype(p.type)
                if isinstance(pt, T.Void):
                    continue
                if p.name is None:
                    raise error(self.coord(p), "unnamed parameter")
                quals = self._quals(p.type)
                if "volatile" in quals or "volatile" in self._quals(getattr(p.type, "type", None)):
                    raise error(self.coord(p), f"volatile parameter '{p.name}' cannot be vectorized",
                                "drop 'volatile' (vector code reads and writes whole gangs of lanes at once)")
                if p.name in self.scopes[-1]:
                    raise error(self.coord(p), f"redefinition of parameter '{p.name}'")
                s = Symbol(p.name, T.decay(pt), "param", self.coord(p), volatile="volatile" in quals)
                params.append(s)
                self.scopes[-1][p.name] = s
        for prm in params:
            prm.shape = self.simd.get(decl.name, {}).get(prm.name, "")
        for n in self.simd.get(decl.name, {}):
            if n not in self.scopes[-1]:
                raise error(self.coord(decl), f"'#pragma omp declare simd' names '{n}', which is not a parameter of "
                            f"'{decl.name}'", "name the function's own parameters in uniform(...) and linear(...)")
        self.cur_ret = ftype.ret
        storage = list(decl.storage or [])
        self.env_prescan(fd.body)
        body = self.compound(fd.body, new_scope=False)
        if self.dropped:
            self.assume(fenv.force_eval_assumption(self.dropped))
        fn = Function(decl.name, ftype.ret, params, body, self.coord(decl), static="static" in storage,
                      inline="inline" in list(decl.funcspec or []), locals=self.locals,
                      variadic=ftype.variadic)
        uniquify_locals(fn)
        return fn

    def lookup(self, name: str, node) -> Expr:
        for scope in reversed(self.scopes):
            if name in scope:
                s = scope[name]
                if isinstance(s, _EnvLocal):
                    raise error(self.coord(node), f"'{name}' holds a floating-point environment: it can only be "
                                "passed to the <fenv.h> functions that save and restore it", _FENV_HINT)
                return Var(s.type, s)
        if name in self.enums:
            c = self.enums[name]
            if isinstance(c, ExpandError):
                raise c
            v, t = c
            return Const(t, v, str(v))
        if name in self.globals:
            s = self.global_symbol(name, node)
            return Var(s.type, s)
        raise error(self.coord(node), f"use of undeclared identifier '{name}'")

    def compound(self, node, new_scope: bool = True) -> list[Stmt]:
        if new_scope:
            self.scopes.append({})
        out: list[Stmt] = []
        for item in node.block_items or []:
            out.extend(self.stmt(item))
        if new_scope:
            self.scopes.pop()
        return out

    def body_of(self, node) -> list[Stmt]:
        if node is None:
            return []
        if isinstance(node, c_ast.Compound):
            return self.compound(node)
        self.scopes.append({})
        out = self.stmt(node)
        self.scopes.pop()
        return out

    def stmt(self, node) -> list[Stmt]:
        """The IR of one statement, preceded by what its expressions' side effects run first."""
        here, self.here = self.here, self.coord(node)
        outer, self.before = self.before, []
        try:
            out = self._stmt(node)
            return self.before + out
        except RecursionError:  # (caught here, in the statement's frame, far from the limit)
            raise error(self.here, "expression nesting is too deep", NESTING_HINT) from None
        finally:
            self.here = here
            self.before = outer

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

    def _stmt(self, node) -> list[Stmt]:
        co = self.coord(node)
        if force_eval.exception_only(node):  # (math_force_eval, FORCE_EVAL: never read, see the output's header)
            self.dropped.append(f"{Path(co.file).name}:{co.line}")
            return []
        if isinstance(node, c_ast.Compound):
            return [Block(co, self.compound(node))]
        if isinstance(node, c_ast.Decl):
            return self.local_decl(node)
        if isinstance(node, c_ast.Typedef):
            self.define_enums_in(node.type)
            self.typedefs[node.name] = node
            return []
        if isinstance(node, c_ast.StaticAssert):
            self.static_assert(node)
            return []
        if isinstance(node, (c_ast.Assignment, c_ast.UnaryOp)) and self._is_update(node):
            return [self.update(node)]
        if isinstance(node, c_ast.Cast) and isinstance(node.expr, c_ast.FuncCall) \
                and _env_operation(node.expr) is not None:
            node = node.expr  # ((void) feraiseexcept (FE_INVALID))
        if isinstance(node, c_ast.FuncCall) and _env_operation(node) is not None:
            return self.env_call(node, _env_operation(node))
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) \
                and node.name.name == "__builtin_unreachable" and not node.args:
            return []  # (reaching it is undefined: the lanes that do may compute anything)
        if isinstance(node, c_ast.FuncCall):
            pun = self.memcpy_pun(node)
            if pun is not None:
                return [pun]
            return [ExprStmt(co, self.expr(node))]
        if isinstance(node, c_ast.If):
            cond, likely = self.condition(node.cond)
            return [If(co, cond, self.body_of(node.iftrue), self.body_of(node.iffalse), likely)]
        if isinstance(node, c_ast.Return):
            if node.expr is None:
                return [Return(co, None)]
            return [Return(co, self.convert(self.expr(node.expr), self.cur_ret))]
        if isinstance(node, c_ast.DoWhile):
            c = node.cond
            if isinstance(c, c_ast.Constant) and c.value == "0":
                body = self.body_of(node.stmt)
                if any(isinstance(s, (Break, Continue)) for s in walk_shallow(body)):
                    raise error(co, "'break' or 'continue' inside 'do { } while (0)' is not supported")
                return [Block(co, body)]
            body = self.body_of(node.stmt)
            cond, pre = self.captured(lambda: self.truth(self.expr(c)))
            if pre:
                raise error(self.coord(c), "an assignment or increment in a do-while condition is not supported",
                            "update the variable at the end of the loop body")
            return [Loop(co, "do", cond, body)]
        if isinstance(node, c_ast.While):
            cond, pre = self.captured(lambda: self.truth(self.expr(node.cond)))
            body = self.body_of(node.stmt)
            if pre:  # while ((n -= 1) > 0): the update runs before every test
                return [Loop(co, "for", None, [*pre, If(co, Unary(T.INT, "!", cond), [Break(co)], [])] + body)]
            return [Loop(co, "while", cond, body)]
        if isinstance(node, c_ast.For):
            self.scopes.append({})
            init: list[Stmt] = []
            if isinstance(node.init, c_ast.DeclList):
                for d in node.init.decls:
                    init.extend(self.local_decl(d))
            elif node.init is not None:
                init.extend(self.stmt(node.init))
            cond, pre = self.captured(lambda: self.truth(self.expr(node.cond))) if node.cond is not None \
                else (None, [])
            step: list[Stmt] = []
            if isinstance(node.next, c_ast.ExprList):
                for e in node.next.exprs:
                    step.extend(self.stmt(e))
            elif node.next is not None:
                step.extend(self.stmt(node.next))
            body = self.body_of(node.stmt)
            self.scopes.pop()
            if pre and cond is not None:
                body = [*pre, If(co, Unary(T.INT, "!", cond), [Break(co)], []), *body]
                cond = None
            return [Loop(co, "for", cond, body, init, step)]
        if isinstance(node, c_ast.Goto):
            return [Goto(co, node.name)]
        if isinstance(node, c_ast.Label):
            if node.name in self.label_names:
                raise error(co, f"duplicate label '{node.name}'", "give each label its own name")
            self.label_names.add(node.name)
            return [Label(co, node.name), *self.stmt(node.stmt)]
        if isinstance(node, c_ast.Break):
            return [Break(co)]
        if isinstance(node, c_ast.Continue):
            return [Continue(co)]
        if isinstance(node, c_ast.EmptyStatement) or isinstance(node, c_ast.Pragma):
            return []
        if isinstance(node, c_ast.Switch):
            return self.switch(node)
        if isinstance(node, (c_ast.Case, c_ast.Default)):
            if not self.switch_depth:
                raise error(co, f"'{'case' if isinstance(node, c_ast.Case) else 'default'}' label outside a 'switch'")
            return [self.case_label(node), *(s for item in node.stmts or [] for s in self.stmt(item))]
        if type(node).__name__ == "Asm":
            return self.asm(node)
        if isinstance(node, (c_ast.ID, c_ast.Constant, c_ast.Cast, c_ast.BinaryOp)):
            e = self.expr(node)
            if any(isinstance(x, Call) for x in e.walk()):
                return [ExprStmt(co, e)]  # (void) g(x);  g(x) + 1;  -- the calls stay, for their effects
            return []  # an expression statement without effect: type-checked, dropped
        if isinstance(node, c_ast.ExprList):  # a, b;  for (i = 0, j = n; ...)
            return [x for e in node.exprs for x in self.stmt(e)]
        if isinstance(node, (c_ast.Assignment, c_ast.UnaryOp, c_ast.TernaryOp, c_ast.StructRef, c_ast.ArrayRef)):
            e = self.expr(node)  # (their side effects are in self.before)
            if any(isinstance(x, Call) for x in e.walk()):
                return [ExprStmt(co, e)]
            return []
        raise error(co, f"statement '{type(node).__name__}' is not supported")

    def asm(self, node) -> list[Stmt]:
        """An ``asm`` statement. Only an empty template is taken (glibc's ``math_opt_barrier`` and
        ``math_force_eval``: they order floating-point operations and force their evaluation for the
        exceptions they raise, which expand does not keep): an output tied to an input (``"=x" (y) :
        "0" (x)``) is the assignment ``y = x``, a read-write one (``"+m" (y)``) keeps its value, and inputs
        alone do nothing but their calls."""
        co = self.coord(node)
        parts = node.template.exprs if isinstance(node.template, c_ast.ExprList) else [node.template]
        if any(not (isinstance(x, c_ast.Constant) and x.type == "string") or x.value.strip('"').strip()
               for x in parts):
            raise error(co, "inline assembly cannot be vectorized", "write the operation in C")

        def operands(lst) -> list[tuple[str, object]]:
            out = []
            for op in (lst.exprs if lst is not None else []):
                if not (isinstance(op, c_ast.FuncCall) and isinstance(op.name, c_ast.Constant) and op.args
                        and len(op.args.exprs) == 1):
                    raise error(co, "this asm operand is not supported")
                out.append((op.name.value.strip('"'), op.args.exprs[0]))
            return out

        outs, ins = operands(node.output_operands), operands(node.input_operands)
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

    def statement_expression(self, node: c_ast.Compound) -> Expr:
        """GNU C's ``({ stmts; e; })``: the statements run before the statement being read, ``e`` is
        the value (glibc's math_opt_barrier and math_narrow_eval)."""
        co = self.coord(node)
        items = list(node.block_items or [])
        if not items or not _is_expression(items[-1]):
            raise error(co, "a statement expression without a value is not supported here")
        self.scopes.append({})
        try:
            stmts = [x for item in items[:-1] for x in self.stmt(item)]
            own = set(self.scopes[-1].values())
            if self.conditional and all(pure_local_assignment(x, own) for x in stmts):
                self.before.extend(stmts)  # (only its own temporaries: evaluating them always changes nothing)
            else:
                self.side_effect(stmts, co, "a statement expression")
            return self.expr(items[-1])
        finally:
            self.scopes.pop()

    def generic_selection(self, node) -> Expr:
        """C11's ``_Generic (x, T1: e1, ..., default: e)``: the association whose type is the
        controlling expression's (after lvalue conversion); ``x`` is not evaluated."""
        self.unevaluated += 1
        try:
            t = T.strip_spelling(T.decay(self.expr(node.expr).type))
        finally:
            self.unevaluated -= 1
        default = None
        chosen = []
        for assoc in node.associations:
            if assoc.type is None:
                default = assoc.expr
                continue
            try:
                at = T.strip_spelling(self.ctype(assoc.type.type))
            except ExpandError:
                continue  # (a type expand does not take: _Float64x, ...; it cannot be the one chosen)
            if at == t:
                chosen.append(assoc.expr)
        if chosen:
            gen = c_generator.CGenerator()
            if len({gen.visit(e) for e in chosen}) > 1:  # (float and _Float32, both float to expand)
                raise error(self.coord(node), f"_Generic has two different associations for type '{t}' "
                            "as expand reads types (_Float32 is float, _Float64 and _Float32x are double)",
                            "give the association of the type you use only")
            return self.expr(chosen[0])
        if default is None:
            raise error(self.coord(node), f"_Generic has no association for type '{t}'")
        return self.expr(default)

    def constant_conditional(self, node: c_ast.TernaryOp, which: bool) -> Expr:
        """``c ? a : b`` with a constant ``c``: the chosen operand, converted to the type of the whole. The
        other one is never evaluated; when expand cannot read it (a ``long double`` arm of a type-generic
        macro), its type is still known if it is a cast (``(__typeof (x)) __builtin_fabsl (x)``), or a
        conditional of such, and then only the chosen one is read."""
        chosen, other = (node.iftrue, node.iffalse) if which else (node.iffalse, node.iftrue)
        a = self.expr(chosen)
        self.unevaluated += 1
        try:
            bt = self.expr(other).type
        except ExpandError:
            bt = self.static_type(other)
            if bt is None:
                raise
        finally:
            self.unevaluated -= 1
        if a.type.is_arith() and bt.is_arith():
            return self.convert(a, T.usual_arith(a.type, bt))
        if a.type == bt:
            return a
        raise error(self.coord(node), "conditional operator with these operand types is not supported")

    def static_type(self, node) -> T.CType | None:
        """The type of an expression expand does not read, where its form says it: a cast, or a conditional
        whose operands both have the same such type; else None."""
        try:
            if isinstance(node, c_ast.Cast):
                return self.ctype(node.to_type.type)
            if isinstance(node, c_ast.TernaryOp):
                a, b = self.static_type(node.iftrue), self.static_type(node.iffalse)
                return a if a is not None and a == b else None
            if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
                d = self.global_nodes.get(node.name.name)  # a prototype: its return type alone
                if isinstance(d, c_ast.Decl) and isinstance(d.type, (c_ast.FuncDecl, ext_c_ast.FuncDeclExt)):
                    return self.ctype(d.type.type)
        except ExpandError:
            return None
        return None

    def switch(self, node: c_ast.Switch) -> list[Stmt]:
        """``switch``: its body read with case-label markers, lowered by frontends/statements.py."""
        co = self.coord(node)
        value = self.expr(node.cond)
        if not isinstance(value.type, T.Int):
            raise error(self.coord(node.cond), f"the controlling expression of a 'switch' has type '{value.type}', "
                        "not an integer type")
        value = self.convert(value, T.promote(value.type))
        self.switch_count += 1
        number = self.switch_count
        self.switch_depth += 1
        try:
            body = self.body_of(node.stmt)
        finally:
            self.switch_depth -= 1

        def temp(t: T.CType) -> Symbol:
            sym = Symbol("switch_value", t, "local", co, temp=True)
            self.locals.append(sym)
            return sym

        return lower_switch(co, value, body, number, temp)

    def case_label(self, node) -> CaseLabel:
        co = self.coord(node)
        if isinstance(node, c_ast.Default):
            return CaseLabel(co, default=True)
        e = node.expr
        if type(e).__name__ == "RangeExpression":  # GNU case range: case 1 ... 3:
            return CaseLabel(co, self.const_int(e.first), self.const_int(e.last))
        v = self.const_int(e)
        return CaseLabel(co, v, v)

    def memcpy_pun(self, node: c_ast.FuncCall) -> Assign | None:
        """``memcpy(&a, &b, sizeof a)`` between same-size scalars: a bit reinterpretation, not memory."""
        if not (isinstance(node.name, c_ast.ID) and node.name.name in ("memcpy", "__builtin_memcpy", "memmove")):
            return None
        args = node.args.exprs if node.args else []
        if len(args) != 3 or not all(isinstance(a, c_ast.UnaryOp) and a.op == "&" for a in args[:2]):
            return None
        dst, src = self.lvalue(args[0].expr), self.expr(args[1].expr)
        n = fold_int(self.expr(args[2]))
        if not (dst.type.is_arith() and src.type.is_arith()) or n != dst.type.size() or n != src.type.size():
            raise error(self.coord(node), "memcpy is only supported between same-size scalar variables",
                        "copy whole int/float values: memcpy(&i, &x, sizeof i)")
        value = src if T.strip_spelling(src.type) == T.strip_spelling(dst.type) else BitCast(dst.type, src)
        return Assign(self.coord(node), dst, value)

    def condition(self, node) -> tuple[Expr, bool | None]:
        """An if-condition, with its __builtin_expect hint if any."""
        likely = None
        if (isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID)
                and node.name.name == "__builtin_expect" and node.args and len(node.args.exprs) == 2):
            hint = self.expr(node.args.exprs[1])
            v = fold_int(hint)
            if v is not None:
                likely = bool(v)
        return self.expr(node), likely

    @staticmethod
    def _is_update(node) -> bool:
        return isinstance(node, c_ast.Assignment) or node.op in ("p++", "p--", "++", "--")

    def update(self, node) -> Assign:
        co = self.coord(node)
        if isinstance(node, c_ast.UnaryOp):
            target = self.lvalue(node.expr)
            op = "+" if "++" in node.op else "-"
            value = self.arith(op, target, Const(T.INT, 1, "1"), node)
            return Assign(co, target, self.convert(value, target.type))
        target = self.lvalue(node.lvalue)
        rhs = self.expr(node.rvalue)  # (a = b = c: b = c runs first, through self.before)
        if node.op != "=":
            rhs = self.binary(node.op[:-1], target, rhs, node)
        return Assign(co, target, self.convert(rhs, target.type))

    def lvalue(self, node) -> Expr:
        e = self.expr(node)
        if not isinstance(e, (Var, Index, Member)) and not (isinstance(e, Unary) and e.op == "*"):
            raise error(self.coord(node), "expression is not assignable")
        root = e
        while isinstance(root, (Index, Member)):
            root = root.base
        if isinstance(root, Var):
            written_static(root.sym, self.coord(node))
        # (an assignment to a global variable: expand/global_writes.py takes it or diagnoses it)
        return e

    def env_local(self, d: c_ast.Decl) -> bool:
        """Whether ``d`` declares a local that only holds a saved floating-point environment (``fenv_t
        env;``, glibc's ``struct rm_ctx ctx __attribute__ ((cleanup (...)))``): recorded, no statement."""
        node = d.type
        if not isinstance(node, c_ast.TypeDecl):
            return False
        inner = node.type
        typedef = inner.names[0] if isinstance(inner, c_ast.IdentifierType) and len(inner.names) == 1 else None
        tag = inner.name if isinstance(inner, c_ast.Struct) and inner.decls is None else None
        if not fenv.is_env_type_name(typedef, tag):
            return False
        co = self.coord(d)
        if d.init is not None or "static" in (d.storage or []):
            raise error(co, f"'{d.name}' (a floating-point environment) is initialized or static",
                        "declare it without an initializer and fill it with the <fenv.h> functions")
        cleanup = _attribute_args(d.type, "cleanup")
        if cleanup is not None:
            fn = cleanup[0] if len(cleanup) == 1 and isinstance(cleanup[0], c_ast.ID) else None
            if fn is None or (fenv.operation(fn.name) or ("", ""))[0] != fenv.KEEP_ENV:
                raise error(co, f"'__attribute__ ((cleanup))' on '{d.name}' is not supported",
                            "only glibc's functions that restore the environment can be cleanups here")
        self.scopes[-1][d.name] = _EnvLocal(d.name, co)
        return True

    def env_call(self, node: c_ast.FuncCall, op: tuple[str, str]) -> list[Stmt]:
        """A call of a floating-point environment function as a statement (frontends/fenv.py): no
        statement, or a diagnostic."""
        name = node.name.name
        what, base = op
        refused = self.env_refusal(node, op, known_only=False)
        if refused is not None:
            raise refused
        args = node.args.exprs if node.args else []
        for i, a in enumerate(args):
            if isinstance(a, c_ast.UnaryOp) and a.op == "&" and isinstance(a.expr, c_ast.ID) \
                    and isinstance(self.find_local(a.expr.name), _EnvLocal):
                continue
            if what == fenv.NEAREST and i == len(args) - 1:
                continue
            try:
                value, pre = self.captured(lambda a=a: self.expr(a))
            except ExpandError:  # (FE_DFL_ENV: a cast to const fenv_t *, a type expand does not read)
                value, pre = None, True
            if pre or isinstance(value.type, (T.Pointer, T.Array)):
                raise error(self.coord(a), f"this argument of '{name}' is not supported",
                            "pass the address of a local fenv_t, or flags without side effects")
        self.assume(fenv.ASSUMPTION)
        return []

    def env_refusal(self, node: c_ast.FuncCall, op: tuple[str, str], known_only: bool) -> ExpandError | None:
        """The diagnostic for a call of a floating-point environment function that reads the environment,
        changes it for good, or sets a rounding mode other than FE_TONEAREST, else None. ``known_only``:
        only a rounding mode known to be another one (not one expand cannot evaluate)."""
        co, name, what = self.coord(node), node.name.name, op[0]
        if what == fenv.READS:
            return error(co, f"'{name}' reads the floating-point environment: it cannot be vectorized", _FENV_HINT)
        if what == fenv.SETS:
            return error(co, f"'{name}' changes the caller's floating-point environment: it cannot be vectorized",
                         _FENV_HINT)
        args = node.args.exprs if node.args else []
        if what != fenv.NEAREST or not args:
            return None
        try:
            mode = self.const_int(args[-1])
        except ExpandError:
            mode = None
        if mode == fenv.FE_TONEAREST or known_only and mode is None:
            return None
        which = "" if mode is None else fenv.mode_name(mode, self.target.triple)
        what = f"the rounding mode {which}, not FE_TONEAREST" if which else "a rounding mode other than FE_TONEAREST"
        return error(self.coord(args[-1]), f"'{name}' sets {what}: it cannot be vectorized", _FENV_HINT)

    def env_prescan(self, body) -> None:
        """Stop at the first call in ``body`` that reads or changes the floating-point environment or sets
        another rounding mode (glibc's round-to-odd narrowing functions: FE_TOWARDZERO), before anything
        else in the function: no support of another construct could make such a function vectorizable."""
        todo = [body]
        while todo:
            node = todo.pop(0)
            if isinstance(node, c_ast.FuncCall) and _env_operation(node) is not None:
                refused = self.env_refusal(node, _env_operation(node), known_only=True)
                if refused is not None:
                    raise refused
            todo.extend(child for _, child in node.children())

    def assume(self, text: str) -> None:
        """Add ``text`` to what the current function's output assumes (printed in its header)."""
        have = self.assumptions.get(self.fn_name, "")
        if text not in have.split("; "):
            self.assumptions[self.fn_name] = f"{have}; {text}" if have else text

    def find_local(self, name: str):
        """The innermost local or parameter named ``name`` (None if there is none)."""
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def local_decl(self, d: c_ast.Decl) -> list[Stmt]:
        co = self.coord(d)
        storage = list(d.storage or [])
        quals = list(d.quals or [])
        if isinstance(d.type, (c_ast.FuncDecl, ext_c_ast.FuncDeclExt)):
            self.declare_global(d, defined=False)
            return []
        if "extern" in storage:
            raise error(co, f"local 'extern' variable '{d.name}' is not supported", "move it to file scope")
        if "volatile" in quals:
            raise error(co, f"volatile variable '{d.name}' cannot be vectorized")
        if d.name is None:
            self.ctype(d.type)
            return []
        if self.env_local(d):
            return []
        cleanup = _attribute_args(d.type, "cleanup")
        if cleanup is not None:
            raise error(co, f"'__attribute__ ((cleanup))' on '{d.name}' is not supported",
                        "call the cleanup function at the end of the block yourself")
        if isinstance(d.type, c_ast.ArrayDecl) and d.type.dim is not None:
            try:
                self.const_int(d.type.dim)
            except ExpandError:
                raise error(co, f"variable-length array '{d.name}' is not supported") from None
        t = self.ctype(d.type)
        if isinstance(t, T.Array) and t.length is None and isinstance(d.init, c_ast.InitList):
            t = T.Array(t.elem, self.init_length(t, d.init))
        if "static" in storage:
            return self.local_static(d, t, "const" in quals or "const" in self._quals(d.type))
        if isinstance(t, T.Array):
            check_local_array(co, d.name, t)
        elif isinstance(t, T.Record):
            local_record_check(co, d.name, t, self.target)
        sym = Symbol(d.name, t, "local", co, const="const" in quals)
        self.scopes[-1][d.name] = sym
        self.locals.append(sym)
        if d.init is None:
            return record_declared(co, sym)
        if isinstance(d.init, c_ast.InitList):
            if isinstance(t, (T.Record, T.Array)):
                return aggregate_initializer(co, sym, self.flatten_init(t, d.init)[0])
            return [Assign(co, Var(t, sym), self.convert(self.expr(self.scalar_init(d.init)), t))]
        if isinstance(t, T.Array):
            raise error(co, f"local array '{d.name}' is initialized by a string or an expression, not a list",
                        "initialize it with a list: = {...}")
        return [Assign(co, Var(t, sym), self.convert(self.expr(d.init), t))]

    def local_static(self, d: c_ast.Decl, t: T.CType, const: bool) -> list[Stmt]:
        """A function-local ``static`` variable: a file-scope one under a file-unique name (its
        writes are refused where they are made)."""
        co = self.coord(d)
        if d.init is not None:
            here, self.here = self.here, co
            try:
                init = self.global_init(d.init, t)
            finally:
                self.here = here
        else:
            init = None
        sym = local_static(co, d.name, t, const, init, self.fn_name)
        self.scopes[-1][d.name] = sym
        self.local_statics.append(sym)
        return []

    # ------------------------------------------------------------------ expressions
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
            return e if isinstance(et, T.Pointer) else e
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

    def expr(self, node) -> Expr:
        co = self.coord(node)
        if isinstance(node, c_ast.Constant):
            return self.constant(node)
        if isinstance(node, c_ast.ID):
            e = self.lookup(node.name, node)
            return e
        if isinstance(node, c_ast.BinaryOp):
            left = self.expr(node.left)
            if node.op in ("&&", "||"):
                with self.sometimes():
                    right = self.expr(node.right)
            else:
                right = self.expr(node.right)
            return self.binary(node.op, left, right, node)
        if isinstance(node, c_ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, c_ast.Cast):
            t = self.ctype(node.to_type.type)
            if isinstance(node.expr, c_ast.Constant) and node.expr.value[-1:] in "lL" \
                    and node.expr.type in ("float", "double", "long double"):  # (double)1.79e308L: DBL_MAX
                ld = long_double_literal(node.expr.value, T.strip_spelling(t))
                if ld is not None:
                    return ld
            e = self.expr(node.expr)
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
        if isinstance(node, c_ast.TernaryOp):
            c = self.truth(self.expr(node.cond))
            known = fold_int(c) if isinstance(c, Const) or not any(isinstance(x, (Var, Call)) for x in c.walk()) \
                else None
            if known is not None:  # sizeof (x) == sizeof (float) ? ... : ... (glibc's __MATH_TG on AArch64)
                return self.constant_conditional(node, bool(known))
            with self.sometimes():
                a = self.expr(node.iftrue)
                b = self.expr(node.iffalse)
            if a.type.is_arith() and b.type.is_arith():
                t = T.usual_arith(a.type, b.type)
                return Cond(t, c, self.convert(a, t), self.convert(b, t))
            if a.type == b.type:
                return Cond(a.type, c, a, b)
            raise error(co, "conditional operator with these operand types is not supported")
        if isinstance(node, c_ast.FuncCall):
            return self.call(node)
        if isinstance(node, c_ast.ArrayRef):
            base = self.expr(node.name)
            idx = self.expr(node.subscript)
            bt = base.type
            if isinstance(bt, (T.Array, T.Pointer)):
                elem = bt.elem if isinstance(bt, T.Array) else bt.target
                if not idx.type.is_int():
                    raise error(co, "array subscript is not an integer")
                return Index(elem, base, T.promote(idx.type) == idx.type and idx or Cast(T.promote(idx.type), idx))
            raise error(co, "subscripted value is not an array or pointer")
        if isinstance(node, c_ast.StructRef):
            base = self.expr(node.name)
            bt = base.type
            if node.type == "->":
                if not isinstance(bt, T.Pointer) or not isinstance(bt.target, T.Record):
                    raise error(co, "'->' on a value that is not a pointer to a struct or union")
                rec = bt.target
            else:
                if not isinstance(bt, T.Record):
                    raise error(co, "'.' on a value that is not a struct or union")
                rec = bt
            ft = rec.field_type(node.field.name)
            if ft is None:
                raise error(co, f"no member named '{node.field.name}'")
            return Member(ft, base, node.field.name, node.type == "->")
        if isinstance(node, c_ast.Assignment):  # its value: the target's new value
            a = self.update(node)
            self.side_effect([a], co, "an assignment inside an expression")
            return a.target
        if isinstance(node, c_ast.ExprList):  # (e1, e2): e1 for its side effects, then e2
            for e in node.exprs[:-1]:
                v = self.expr(e)
                if any(isinstance(x, Call) for x in v.walk()):
                    self.side_effect([ExprStmt(co, v)], co, "a call in the left operand of ','")
            return self.expr(node.exprs[-1])
        if isinstance(node, c_ast.CompoundLiteral):
            co = self.coord(node.type) if node.coord is None else co
            t = self.ctype(node.type.type)
            if not isinstance(node.init, c_ast.InitList):
                raise error(co, "this compound literal is not supported")
            return compound_literal(co, t, self.flatten_init(t, node.init)[0], self.target)
        if isinstance(node, c_ast.InitList):
            return InitList(T.VOID, [self.expr(i) for i in self.init_items(node)])
        if isinstance(node, c_ast.Compound):  # ({ ...; e; }): the statements first, the value of e
            return self.statement_expression(node)
        if isinstance(node, c_ast.NamedInitializer):
            raise error(self.coord(node.name[0]) if node.name else co, "designated initializers are not supported")
        if isinstance(node, c_ast.GenericSelection):
            return self.generic_selection(node)
        raise error(co, f"expression '{type(node).__name__}' is not supported")

    def constant(self, node: c_ast.Constant) -> Const:
        text = node.value
        kind = node.type
        co = self.coord(node)
        if kind == "char" or re.match(r"(?:L|u8|u|U)?'", text):  # ('ab' comes as an int constant)
            try:
                t, v = T.char_constant(text, self.target)
            except T.CharConstantError as exc:
                raise error(co, str(exc)) from None
            return Const(t, v, text)
        if kind == "string":
            raise error(co, "string literals are not supported in vectorized code")
        if kind in ("float", "double", "long double"):
            body, suffix = (text[:-1], text[-1].lower()) if text[-1] in "fFlL" else (text, "")
            if suffix == "l" or kind == "long double":
                raise error(co, "long double constants are not supported")
            v = float.fromhex(body) if body.lower().startswith("0x") else float(body)
            if suffix == "f":
                return Const(T.FLOAT, float32(v), text)
            return Const(T.DOUBLE, v, text)
        m = re.match(r"^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)$", text)
        if not m:
            raise error(co, f"cannot read constant '{text}'")
        digits, suffix = m.group(1), m.group(2).lower()
        if digits.lower().startswith("0x"):
            v = int(digits, 16)
        else:
            v = int(digits, 8) if digits.startswith("0") else int(digits)
        decimal = not (digits.lower().startswith("0x") or (digits.startswith("0") and len(digits) > 1))
        unsigned = "u" in suffix
        long_ = "l" in suffix
        cands: list[T.Int]
        if unsigned:
            cands = [T.ULONG] if long_ else [T.UINT, T.ULONG]
        elif decimal:
            cands = [T.LONG] if long_ else [T.INT, T.LONG]
        else:
            cands = [T.LONG, T.ULONG] if long_ else [T.INT, T.UINT, T.LONG, T.ULONG]
        for t in cands:
            if t.min <= v <= t.max:
                return Const(t, v, text)
        raise error(co, f"integer constant '{text}' is too large")

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

    def arith(self, op: str, a: Expr, b: Expr, node) -> Expr:
        return self.binary(op, a, b, node)

    def binary(self, op: str, a: Expr, b: Expr, node) -> Expr:
        co = self.coord(node)
        if op in ("&&", "||"):
            return Binary(T.INT, op, self.truth(a), self.truth(b))
        if op in ("==", "!=") and null_comparison(a, b) is not None:
            p, _ = null_comparison(a, b)
            null = Const(p.type, 0, "0")  # (the null constant in the pointer's type)
            return Binary(T.INT, op, a if a is p else null, b if b is p else null)
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
            return Binary(lt, op, self.convert(a, lt), self.convert(b, rt))
        t = T.usual_arith(a.type, b.type)
        if op in ("%", "&", "|", "^") and not t.is_int():
            raise error(co, f"operator '{op}' needs integer operands")
        a, b = self.convert(a, t), self.convert(b, t)
        if op in ("==", "!=", "<", "<=", ">", ">="):
            return Binary(T.INT, op, a, b)
        return Binary(t, op, a, b)

    def unary(self, node: c_ast.UnaryOp) -> Expr:
        co = self.coord(node)
        op = node.op
        if op in ("sizeof", "_Alignof", "__alignof__", "__alignof", "alignof"):
            if isinstance(node.expr, c_ast.Typename):
                t = self.ctype(node.expr.type)
            else:
                self.unevaluated += 1
                try:
                    t = self.expr(node.expr).type
                finally:
                    self.unevaluated -= 1
            if isinstance(t, (T.Void, T.Func)):
                n = 1  # GNU C: sizeof (void) and sizeof of a function are 1
            elif isinstance(t, T.Record) and not t.complete or isinstance(t, T.Array) and t.length is None:
                raise error(co, f"invalid application of '{op}' to an incomplete type '{t}'")
            else:
                n = t.size() if op == "sizeof" else T.alignment(t)
            return Const(T.ULONG, n, str(n))
        if op in ("p++", "p--", "++", "--"):  # its value: the new one (++x) or the old one (x++)
            a = self.update(node)
            if op in ("++", "--"):
                self.side_effect([a], co, f"'{op}' inside an expression")
                return a.target
            old = Symbol(f"{lvalue_name(a.target)}_old", a.target.type, "local", co, temp=True)
            self.locals.append(old)
            self.side_effect([Assign(co, Var(old.type, old), a.target), a], co, f"'{op[1:]}' inside an expression")
            return Var(old.type, old)
        e = self.expr(node.expr)
        if op == "&":
            return Unary(T.Pointer(e.type), "&", e)
        if op == "*":
            if isinstance(e.type, T.Pointer):
                return Unary(e.type.target, "*", e)
            if isinstance(e.type, T.Array):
                return Index(e.type.elem, e, Const(T.INT, 0, "0"))
            raise error(co, "dereference of a value that is not a pointer")
        if op == "!":
            return Unary(T.INT, "!", self.truth(e))
        if not e.type.is_arith():
            raise error(co, f"operator '{op}' on '{e.type}' is not supported")
        t = T.promote(e.type)
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

    def call(self, node: c_ast.FuncCall) -> Expr:
        co = self.coord(node)
        if not isinstance(node.name, c_ast.ID):
            raise error(co, "call through a function pointer cannot be vectorized",
                        "call the function by name")
        name = node.name.name
        if _env_operation(node) is not None and not self.unevaluated:
            raise error(co, f"the value of '{name}' (the floating-point environment) cannot be vectorized",
                        _FENV_HINT)
        if name == "__builtin_types_compatible_p" and type(node.args).__name__ == "TypeList" \
                and len(node.args.types) == 2:
            types: list[T.CType | None] = []
            problem = None
            for x in node.args.types:
                try:
                    types.append(T.strip_spelling(self.ctype(x.type)))
                except ExpandError as exc:  # (long double, ...: never one of the types expand takes)
                    types.append(None)
                    problem = exc
            if types[0] is None and types[1] is None:
                raise problem
            same = int(types[0] == types[1])
            return Const(T.INT, same, str(same))
        if node.args is not None and not isinstance(node.args, c_ast.ExprList):  # __builtin_offsetof(T, m), ...
            raise error(co, f"builtin '{name}' is not supported")
        raw = node.args.exprs if node.args else []
        if name in builtins.NANS:
            if len(raw) != 1 or not (isinstance(raw[0], c_ast.Constant) and raw[0].type == "string"):
                raise error(co, f"'{name}' takes one string literal")
            return builtins.nan_constant(name, raw[0].value, co)
        args = [self.expr(a) for a in raw]
        if name == "__builtin_expect":
            return args[0]
        if builtins.is_math_builtin(name):
            return builtins.math_builtin(name, args, co)
        for scope in self.scopes:
            if name in scope:
                if not _function_pointer(getattr(scope[name], "type", None)):
                    raise error(co, f"called object '{name}' is not a function")
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
        sym = self.global_symbol(name, node)
        ft = sym.type
        if not isinstance(ft, T.Func):
            if not _function_pointer(ft):
                raise error(co, f"called object '{name}' is not a function")
            raise error(co, f"call through function pointer '{name}' cannot be vectorized",
                        "call the function by name")
        if ft.variadic:
            raise error(co, f"call to variadic function '{name}' cannot be vectorized")
        if len(args) != len(ft.params):
            raise error(co, f"'{name}' takes {len(ft.params)} arguments, {len(args)} given")
        args = [self.convert(a, pt) for a, pt in zip(args, ft.params)]
        return Call(ft.ret, name, args, co)






_NONLOCAL_JUMPS = {"setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp", "longjmp", "_longjmp", "siglongjmp",
                   "__longjmp_chk", "vfork", "fork"}


class _PtrCast(Cast):
    """A pointer cast; the punning pass turns ``*(T *)&x`` into a BitCast."""


def retype(e: Expr, t: T.CType) -> Expr:
    """The same value spelled with type ``t`` (a typedef of the same type)."""
    if isinstance(e, Const):
        return Const(t, e.value, e.text)
    return Cast(t, e)


def walk_shallow(stmts: list[Stmt]):
    """Statements not inside nested loops."""
    for s in stmts:
        yield s
        if isinstance(s, If):
            yield from walk_shallow(s.then)
            yield from walk_shallow(s.els)
        elif isinstance(s, Block):
            yield from walk_shallow(s.body)


def _is_expression(node) -> bool:
    """An expression (not a declaration or statement) in a block's item list."""
    return not isinstance(node, (c_ast.Decl, c_ast.Compound, c_ast.If, c_ast.Return, c_ast.For, c_ast.While,
                                 c_ast.DoWhile, c_ast.Label, c_ast.Goto, c_ast.Break, c_ast.Continue,
                                 c_ast.EmptyStatement, c_ast.Switch, c_ast.Typedef, c_ast.Pragma, c_ast.Case,
                                 c_ast.Default, c_ast.StaticAssert)) and type(node).__name__ != "Asm"


def uniquify_locals(fn: Function) -> None:
    """Give locals that share a name (from separate scopes or macros) distinct names."""
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


def _punning_union(t: T.Record) -> bool:
    from expand.lower import punnable
    return punnable(t)


def _system_header(node) -> bool:
    f = node.coord.file if node.coord else ""
    return f.startswith("/usr/") or f.startswith("<")


class _Parser(GnuCParser):
    """pycparserext's GNU parser whose syntax errors always carry ``file:line:col``: pycparser gives
    some ("Invalid expression", "At end of input") only the file name; they get the position of
    the token the parser stopped at."""

    def _parse_error(self, msg, coord):
        if not getattr(coord, "line", None):  # (pycparser.c_parser.Coord; a str when only the file is known)
            coord = self.error_coord() or coord
        super()._parse_error(msg, coord)

    def _parse_assignment_expression(self):
        """An assignment expression. pycparser 3 reads one that starts with ``({`` as that statement
        expression alone, so ``({ ... }) + y`` (glibc's ``math_opt_barrier (x) + y`` in ROUND_TO_ODD) was
        "syntax error before '+'"; pycparserext reads ``({ ... })`` as a primary expression, so here such an
        expression is read as any other."""
        if not (self._peek_type() == "LPAREN" and self._peek_type(2) == "LBRACE"):
            return super()._parse_assignment_expression()
        expr = self._parse_conditional_expression()
        if self._is_assignment_op():
            op = self._advance().value
            return c_ast.Assignment(op, expr, self._parse_assignment_expression(), expr.coord)
        return expr

    def _lex_on_rbrace_func(self):
        try:
            super()._lex_on_rbrace_func()
        except ParseError:  # raised without a position; the lexer has just read the '}'
            clex = self.clex
            line, pos, start = (getattr(clex, a, None) for a in ("_lineno", "_pos", "_line_start"))
            if not all(isinstance(x, int) for x in (line, pos, start)):
                raise
            self._parse_error("unmatched '}'", self._coord(line, max(pos - start, 1)))

    def error_coord(self):
        """The next token's position, or at the end of the input the position after the last token."""
        try:
            tok = self._peek()
        except Exception:  # (a lexer error while looking ahead)
            tok = None
        if tok is not None:
            return self._tok_coord(tok)
        toks = [t for t in getattr(getattr(self, "_tokens", None), "_buffer", []) if t is not None]
        if not toks:
            return None
        last = toks[-1]
        return self._coord(last.lineno, (last.column or 1) + len(last.value))

    def last_coord(self) -> Coord | None:
        """Where the parser was (for errors raised without any position, e.g. an unmatched '}')."""
        clex = self.clex
        line, pos, start = (getattr(clex, a, None) for a in ("_lineno", "_pos", "_line_start"))
        if not isinstance(line, int) or line < 1:
            return None
        col = pos - start + 1 if isinstance(pos, int) and isinstance(start, int) else 1
        return Coord(getattr(clex, "filename", "") or "", line, max(col, 1))


def _function_pointer(t: T.CType | None) -> bool:
    return isinstance(t, T.Pointer) and isinstance(t.target, T.Func)


_FENV_HINT = ("expand's output computes in the caller's rounding mode and keeps no exception flags; "
              "it drops only saving, restoring and round-to-nearest requests (see README, 'The floating-point "
              "environment')")


class _EnvLocal:
    """A local that holds a saved floating-point environment (never read: frontends/fenv.py)."""

    def __init__(self, name: str, coord: Coord) -> None:
        self.name, self.coord = name, coord


def _env_operation(node: c_ast.FuncCall) -> tuple[str, str] | None:
    """What a call of a floating-point environment function does (frontends/fenv.py), else None."""
    return fenv.operation(node.name.name) if isinstance(node.name, c_ast.ID) else None


def _attribute_args(node, name: str) -> list | None:
    """The arguments of ``__attribute__ ((name (...)))`` kept by pycparserext on ``node``, else None."""
    attrs = getattr(node, "attributes", None)
    for a in getattr(attrs, "exprs", None) or []:
        if isinstance(a, c_ast.FuncCall) and isinstance(a.name, c_ast.ID) and a.name.name.strip("_") == name:
            return list(a.args.exprs) if a.args is not None else []
    return None


def _has_attribute(node, name: str) -> bool:
    """Whether pycparserext kept ``__attribute__((name(...)))`` (or ``__name__``) on ``node``."""
    attrs = getattr(node, "attributes", None)
    for a in getattr(attrs, "exprs", None) or []:
        ident = a.name if isinstance(a, c_ast.FuncCall) else a
        if isinstance(ident, c_ast.ID) and ident.name.strip("_") == name:
            return True
    return False


def _syntax_message(msg: str) -> str:
    """pycparser's ParseError text as a diagnostic ("before: x" -> "syntax error before 'x'")."""
    m = re.fullmatch(r"before: (.*)", msg, re.S)
    if m:
        return f"syntax error before '{m.group(1)}'"
    if msg == "Illegal character '\"'":  # (a '"' the lexer cannot end: gcc -E only warns)
        return "unterminated string literal: missing terminating '\"'"
    if msg == "invalid #line directive":  # (gcc -E passes a '#' inside a line through; pycparser reads a #line)
        return "syntax error: stray '#' in the program"
    if msg == "Unmatched '":
        return "unterminated character constant: missing terminating \"'\""
    if msg.startswith("Illegal character"):
        return msg[0].lower() + msg[1:]
    if msg == "At end of input":
        return "syntax error: unexpected end of input"
    return "syntax error: " + (msg[0].lower() + msg[1:] if msg else "cannot parse")


_PACKED = re.compile(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\b(?:__)?packed(?:__)?\b")


def packed_enums(pre: str) -> frozenset[str]:
    """First enumerators of the enums declared ``__attribute__((packed))`` (pycparserext drops the
    attribute, and GCC gives a packed enum the smallest type that holds its values)."""
    out = set()
    for m in re.finditer(r"\benum\b([^;{}]*)\{([^{}]*)\}([^;{}]*)", pre):
        if _PACKED.search(m.group(1)) or _PACKED.search(m.group(3)):
            first = re.match(r"\s*([A-Za-z_]\w*)", m.group(2))
            if first:
                out.add(first.group(1))
    return frozenset(out)


_ATTR = r"__attribute__\s*\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)"
_RECORD_HEAD = re.compile(rf"\b(?:struct|union)\b(?:\s|{_ATTR})*(?:[A-Za-z_]\w*)?(?:\s|{_ATTR})*\{{")
_RECORD_TAIL = re.compile(rf"(?:\s|{_ATTR}|[A-Za-z_]\w*|\*)*")
_LAYOUT = re.compile(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\b(?:__)?(?:packed|aligned|scalar_storage_order|mode|"
                     r"vector_size|ms_struct|gcc_struct)(?:__)?\b|\b_Alignas\b|\balignas\b")


def layout_lines(pre: str) -> frozenset[tuple[str, int]] | None:
    """The (file, line) positions of the struct and union definitions whose layout is not C's natural
    one (an attribute or ``_Alignas`` in or right after the definition: pycparserext drops some of
    them); None when the file uses ``#pragma pack`` (then no record's layout is known)."""
    if re.search(r"^\s*#\s*pragma\s+pack\b", pre, re.M):
        return None
    starts: list[tuple[int, str, int]] = []  # (offset of a line, file, line) at each line marker
    for m in re.finditer(r'^# (\d+) "([^"]*)"', pre, re.M):
        starts.append((m.end() + 1, m.group(2), int(m.group(1))))
    offsets = [o for o, _, _ in starts]

    def where(off: int) -> tuple[str, int]:
        i = bisect.bisect_right(offsets, off) - 1
        if i < 0:
            return "", pre.count("\n", 0, off) + 1
        o, f, line = starts[i]
        return f, line + pre.count("\n", o, off)

    out: set[tuple[str, int]] = set()
    for m in _RECORD_HEAD.finditer(pre):
        depth, j = 0, m.end() - 1
        while j < len(pre):
            depth += {"{": 1, "}": -1}.get(pre[j], 0)
            if depth == 0:
                break
            j += 1
        tail = _RECORD_TAIL.match(pre, j + 1)
        text = pre[m.start():tail.end() if tail else j + 1]
        if _LAYOUT.search(text):
            (f0, l0), (_, l1) = where(m.start()), where(j)
            out.update((f0, n) for n in range(l0, l1 + 1))
    return frozenset(out)


def read_file(path: str, text: str, include_dirs=(), defines=(), undefs=(), cc: str | Sequence[str] = "gcc",
              char_signed: bool | None = None) -> Module:
    """Preprocess and parse ``text`` (the contents of ``path``) into a Module.

    ``cc`` is the target's C compiler (a name or a command list, e.g. ``isa.cc``): it preprocesses the
    file and says what the target's types are (plain ``char`` is unsigned on AArch64 and ppc64le,
    ``wchar_t``); ``char_signed`` overrides the signedness of plain ``char``."""
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
    parser = _Parser()
    try:
        ast = parser.parse(pre, path)
    except RecursionError:
        where = parser.error_coord()
        where = Coord(where.file or path, where.line, where.column or 1) if where is not None else Coord(path, 1, 1)
        raise error(where, "expression nesting is too deep for the pycparser frontend", NESTING_HINT) from None
    except Exception as exc:  # pycparser raises ParseError with "file:line:col: msg"
        msg = str(exc)
        m = re.match(r"(.*?):(\d+):(\d+): (.*)", msg, re.S)
        if m:
            where = Coord(m.group(1), int(m.group(2)), int(m.group(3)))
            inc = include_site(pre, path, where.file)
            if inc is not None:  # in a header the user's file includes: say which, at the #include
                line = text.splitlines()[inc.line - 1].strip() if 0 < inc.line <= len(text.splitlines()) else ""
                raise error(inc, f"the header included here ({line or 'an #include'}) has C that expand cannot"
                                 f" read: {_syntax_message(m.group(4))} at {where}",
                            "include only headers of plain C declarations, or declare what the function uses"
                            " yourself (for example 'unsigned int _mm_getcsr(void);' instead of <x86intrin.h>)") \
                    from None
            raise error(where, _syntax_message(m.group(4))) from None
        m = re.match(r"(.*?):(\d+): (.*)", msg, re.S)
        if m:
            raise error(Coord(m.group(1), int(m.group(2)), 1), _syntax_message(m.group(3))) from None
        where = parser.last_coord()  # (an unmatched '}', a bad literal suffix: no position in the message)
        if where is not None and not where.file:
            where = Coord(path, where.line, where.col)
        raise error(where or Coord(path, 1, 1), _syntax_message(msg or type(exc).__name__)) from None
    reader = Reader(path, text, target, packed_enums(pre), template_files(pre, path))
    reader.layout_lines = layout_lines(pre)
    try:
        return reader.read(ast)
    except RecursionError:
        raise error(reader.here or Coord(path, 1, 1), "expression nesting is too deep", NESTING_HINT) from None
