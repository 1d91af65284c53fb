"""Reader for C files through gcc -E and pycparser + pycparserext's GNU parser, into the typed IR.

Types follow C11 on LP64 (our own rules in expand.ir.types); implicit conversions become explicit
``Cast`` nodes so later passes never re-derive C's conversion rules.  What the target decides (plain
``char``'s signedness, ``wchar_t``) comes from the target compiler (``read_file(..., cc=...)``), which
also preprocesses, so the file sees the target's headers and macros.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from pathlib import Path

from pycparser import c_ast, c_generator
from pycparser.c_parser import ParseError
from pycparserext import ext_c_parser as ext_c_ast
from pycparserext.ext_c_parser import GnuCParser

from expand.ir import types as T
from expand.ir.diagnostics import ExpandError, error
from expand.ir.nodes import (
    Assign,
    Block,
    Break,
    Call,
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

from . import fenv, force_eval
from . import initializers as inits
from .builder import NESTING_HINT, Builder, name_typedef_record, typedef_spelled
from .csemantics import (
    closing_bracket,
    include_site,
    knr_error,
    long_double_literal,
    module_prologue,
    parse_declare_simd,
    preprocess,  # noqa: F401 (this frontend's entry points: read_file, Reader, preprocess)
    preprocessed,
    template_files,
)
from .statements import CaseLabel, compound_literal


class Reader(Builder):
    """Builds a Module from one preprocessed translation unit.

    ``target``: the target's types (``T.target_of(cc)``); ``packed_enums``: ``packed_enums(pre)`` of
    the preprocessed text (pycparserext drops ``__attribute__((packed))`` from enums)."""

    def __init__(self, path: str, source: str, target: T.Target = T.HOST,
                 packed_enums: frozenset[str] = frozenset(), templates: frozenset[str] = frozenset()) -> None:
        super().__init__(path, source, target)
        self.templates = templates
        self.packed_enums = packed_enums  # first enumerator of each enum declared __attribute__((packed))
        #: where records with attributes that may change their layout are defined (``layout_lines``)
        self.layout_lines: frozenset[tuple[str, int]] | None = frozenset()
        self.typedefs: dict[str, object] = {}  # name -> ast node or CType
        self.tags: dict[str, T.Record] = {}
        self.tag_errors: dict[str, ExpandError] = {}  # struct/union tags whose members we refuse
        self.enum_tags: dict[str, T.Int | ExpandError] = {}
        self.enum_nodes: dict[int, T.Int] = {}  # id(c_ast.Enum) -> its type (each list defined once)
        self.global_nodes: dict[str, object] = {}
        self.enums: dict[str, tuple[int, T.Int] | ExpandError] = {}  # constant -> (value, type)
        self.scopes: list[dict[str, object]] = []

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
            name_typedef_record(t, name)
        return typedef_spelled(t, name)

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
            with self.never():
                return self.expr(node.expr).type
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
        self.read_functions()
        return self.module(prologue)

    def knr_to_prototype(self, fd: c_ast.FuncDef) -> ExpandError | None:
        """An old-style definition (``double drem(x, y) double x, y; { ... }``, fdlibm's and newlib's) read
        as its prototype form, ``double drem(double x, double y)``: the same function where the default
        argument promotions change no parameter's type (``knr_error``); else the error that
        says why not, the function declared without a prototype."""
        fdecl = fd.decl.type
        if not isinstance(fdecl, (c_ast.FuncDecl, ext_c_ast.FuncDeclExt)) or fdecl.args is None \
                or not any(isinstance(p, c_ast.ID) for p in fdecl.args.params):
            return None
        decls = {d.name: d for d in fd.param_decls or []}
        params = []
        for p in fdecl.args.params:
            d = decls.get(p.name) if isinstance(p, c_ast.ID) else p
            if d is None:  # (no declaration: int)
                d = c_ast.Decl(p.name, [], [], [], [], c_ast.TypeDecl(p.name, [], None, c_ast.IdentifierType(["int"])),
                               None, None, coord=p.coord)
            problem = knr_error(self.coord(fd.decl), fd.decl.name, d.name, self.ctype(d.type))
            if problem:  # (declared without a prototype, as C sees it: its callers promote the arguments)
                fdecl.args = None
                return problem
            params.append(d)
        fdecl.args.params = params
        fd.param_decls = None
        return None

    def reads_function(self, name: str) -> bool:
        return fenv.operation(name) is None  # (its calls are read as frontends/fenv.py says)

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
            knr = self.knr_to_prototype(node)
            name = node.decl.name
            storage = list(node.decl.storage or [])
            if knr is not None:  # (its error when a function expand expands needs it, as for other refusals)
                if self.in_user_file(node):
                    self.failed[name] = knr
                self.declare_global(node.decl, defined=self.in_user_file(node))
                return
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
        if isinstance(d.type, ext_c_ast.FuncDeclExt):
            self.declare_effects(d.name, _attribute_names(d))
        quals = list(d.quals or [])
        sym = self.new_global(d.name, self.coord(d), "static" in list(d.storage or []), "const" in quals,
                              "volatile" in quals, defined, isinstance(d.type, (c_ast.FuncDecl, ext_c_ast.FuncDeclExt)))
        if sym is not None:
            sym.init = d.init

    def global_symbol(self, name: str) -> Symbol:
        sym = self.globals[name]
        if sym.type is None:
            d = self.global_nodes[name]
            self.resolve_global(sym, self.coord(d), lambda: self.ctype(d.type), d.init, sym.init)
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
        self.nonempty(init)
        for i in init.exprs:
            if isinstance(i, c_ast.NamedInitializer):
                where = i.name[0] if i.name else i.expr
                raise error(self.coord(where), "a designator in the initializer of a scalar")
        return init.exprs

    def nonempty(self, init: c_ast.InitList) -> None:
        if not init.exprs:
            raise error(self.init_coord(init), "an empty initializer '{}' is not supported", "write the value: = {0}")

    def init_coord(self, init) -> Coord | None:
        return self.coord(init) if init.coord else self.here

    def as_init_list(self, init):
        return init if isinstance(init, c_ast.InitList) else None

    def init_list(self, init) -> list[inits.Item] | None:
        """The items of brace list ``init`` with their designators (None: ``init`` is an expression)."""
        if not isinstance(init, c_ast.InitList):
            return None
        self.nonempty(init)
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

    def scalar_init(self, init):
        """The expression of a scalar's initializer: ``x``, ``{x}`` or ``{{x}}``."""
        while isinstance(init, c_ast.InitList):
            init = self.init_items(init)[0]
        return init

    # ------------------------------------------------------------------ functions
    def function(self, fd: c_ast.FuncDef) -> Function:
        decl = fd.decl
        ftype = self.ctype(decl.type)
        assert isinstance(ftype, T.Func)
        self.begin_function(decl.name, ftype.ret)
        self.scopes = [{}]
        self.label_names: set[str] = set()
        params: list[Symbol] = []
        fdecl = decl.type
        if fdecl.args is not None:
            for p in fdecl.args.params:
                if isinstance(p, c_ast.EllipsisParam):
                    raise self.variadic_definition(self.coord(p), decl.name)
                pt = self.ctype(p.type)
                if isinstance(pt, T.Void):
                    continue
                quals = self._quals(p.type)
                s = self.parameter(self.coord(p), p.name, pt, "volatile" in quals,
                                   "volatile" in self._quals(getattr(p.type, "type", None)))
                if p.name in self.scopes[-1]:
                    raise error(self.coord(p), f"redefinition of parameter '{p.name}'")
                params.append(s)
                self.scopes[-1][p.name] = s
        self.simd_shapes(decl.name, params, self.coord(decl))
        self.env_prescan(fd.body)
        body = self.compound(fd.body, new_scope=False)
        return self.end_function(decl.name, ftype, params, body, self.coord(decl), "static" in list(decl.storage or []),
                                 "inline" in list(decl.funcspec or []))

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
            s = self.global_symbol(name)
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
            return self.return_stmt(co, None if node.expr is None else self.expr(node.expr))
        if isinstance(node, c_ast.DoWhile):
            c = node.cond
            if isinstance(c, c_ast.Constant) and c.value == "0":
                return self.do_once(co, self.body_of(node.stmt))
            body = self.body_of(node.stmt)
            cond, pre = self.captured(lambda: self.truth(self.expr(c)))
            return self.do_loop(co, body, cond, pre, self.coord(c))
        if isinstance(node, c_ast.While):
            cond, pre = self.captured(lambda: self.truth(self.expr(node.cond)))
            return self.while_loop(co, cond, pre, self.body_of(node.stmt))
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
            step = self.stmt(node.next) if node.next is not None else []  # (i++, j--: an ExprList)
            body = self.body_of(node.stmt)
            self.scopes.pop()
            return self.for_loop(co, init, cond, pre, step, body)
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
            self.case_allowed(co, "case" if isinstance(node, c_ast.Case) else "default")
            return [self.case_label(node), *(s for item in node.stmts or [] for s in self.stmt(item))]
        if type(node).__name__ == "Asm":
            return self.asm(node)
        if isinstance(node, c_ast.ExprList):  # a, b;  for (i = 0, j = n; ...)
            return [x for e in node.exprs for x in self.stmt(e)]
        if isinstance(node, (c_ast.ID, c_ast.Constant, c_ast.Cast, c_ast.BinaryOp, c_ast.Assignment, c_ast.UnaryOp,
                             c_ast.TernaryOp, c_ast.StructRef, c_ast.ArrayRef)):
            return self.expression_statement(co, self.expr(node))  # (side effects are in self.before)
        raise error(co, f"statement '{type(node).__name__}' is not supported")

    def asm(self, node) -> list[Stmt]:
        """An ``asm`` statement: only an empty template is taken (``Builder.asm_assignments``)."""
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

        outs = operands(node.output_operands)
        return self.asm_assignments(co, outs, operands(node.input_operands))

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
            self.statement_value(co, stmts, set(self.scopes[-1].values()))
            return self.expr(items[-1])
        finally:
            self.scopes.pop()

    def generic_selection(self, node) -> Expr:
        """C11's ``_Generic (x, T1: e1, ..., default: e)``: the association whose type is the
        controlling expression's (after lvalue conversion); ``x`` is not evaluated."""
        with self.never():
            t = T.strip_spelling(T.decay(self.expr(node.expr).type))
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
        with self.never():
            try:
                bt = self.expr(other).type
            except ExpandError:
                bt = self.static_type(other)
                if bt is None:
                    raise
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
        value, number = self.switch_value(self.expr(node.cond), self.coord(node.cond))
        with self.in_switch():
            body = self.body_of(node.stmt)
        return self.switch_statement(self.coord(node), value, number, body)

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
        return self.bit_copy(self.coord(node), dst, src, fold_int(self.expr(args[2])))

    def condition(self, node) -> tuple[Expr, bool | None]:
        """An if-condition, with its __builtin_expect hint if any."""
        likely = None
        if (isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID)
                and node.name.name == "__builtin_expect" and node.args and len(node.args.exprs) == 2):
            likely = self.expect_hint(self.expr(node.args.exprs[1]))
        return self.expr(node), likely

    @staticmethod
    def _is_update(node) -> bool:
        return isinstance(node, c_ast.Assignment) or node.op in ("p++", "p--", "++", "--")

    def update(self, node) -> Assign:
        """An assignment, ``++`` or ``--``."""
        if isinstance(node, c_ast.UnaryOp):
            return self.increment(self.coord(node), self.lvalue(node.expr), "+" if "++" in node.op else "-")
        target = self.lvalue(node.lvalue)
        rhs = self.expr(node.rvalue)  # (a = b = c: b = c runs first, through self.before)
        return self.assign(self.coord(node), target, node.op, rhs)

    def lvalue(self, node) -> Expr:
        return self.assignable(self.expr(node), self.coord(node))

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
        self.local_storage(co, d.name, "extern" in storage, "volatile" in quals, lambda: self.ctype(d.type))
        if d.name is None:
            self.ctype(d.type)
            return []
        if self.env_local(d):
            return []
        cleanup = _attribute_args(d.type, "cleanup")
        if cleanup is not None:
            raise self.cleanup_attribute(co, d.name)
        if isinstance(d.type, c_ast.ArrayDecl) and d.type.dim is not None:
            try:
                self.const_int(d.type.dim)
            except ExpandError:
                raise error(co, f"variable-length array '{d.name}' is not supported") from None
        t = self.ctype(d.type)
        if isinstance(t, T.Array) and t.length is None and isinstance(d.init, c_ast.InitList):
            t = T.Array(t.elem, self.init_length(t, d.init))
        if "static" in storage:
            const = "const" in quals or "const" in self._quals(d.type)
            self.scopes[-1][d.name] = self.static_local(co, d.name, t, const, d.init)
            return []
        sym = self.declare_local(co, d.name, t, "const" in quals)
        self.scopes[-1][d.name] = sym
        return self.initialize_local(co, sym, d.init)

    # ------------------------------------------------------------------ expressions
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
            return self.binary(node.op, left, right, co)
        if isinstance(node, c_ast.UnaryOp):
            return self.unary_expr(node)
        if isinstance(node, c_ast.Cast):
            t = self.ctype(node.to_type.type)
            if isinstance(node.expr, c_ast.Constant) and node.expr.value[-1:] in "lL" \
                    and node.expr.type in ("float", "double", "long double"):  # (double)1.79e308L: DBL_MAX
                ld = long_double_literal(node.expr.value, T.strip_spelling(t))
                if ld is not None:
                    return ld
            return self.cast(t, self.expr(node.expr), co)
        if isinstance(node, c_ast.TernaryOp):
            c = self.truth(self.expr(node.cond))
            known = fold_int(c) if isinstance(c, Const) or not any(isinstance(x, (Var, Call)) for x in c.walk()) \
                else None
            if known is not None:  # sizeof (x) == sizeof (float) ? ... : ... (glibc's __MATH_TG on AArch64)
                return self.constant_conditional(node, bool(known))
            with self.sometimes():
                a = self.expr(node.iftrue)
                b = self.expr(node.iffalse)
            return self.ternary(co, c, a, b)
        if isinstance(node, c_ast.FuncCall):
            return self.call(node)
        if isinstance(node, c_ast.ArrayRef):
            base = self.expr(node.name)
            return self.index(co, base, self.expr(node.subscript))
        if isinstance(node, c_ast.StructRef):
            return self.member(co, self.expr(node.name), node.field.name, node.type == "->")
        if isinstance(node, c_ast.Assignment):  # its value: the target's new value
            return self.assignment_value(co, self.update(node))
        if isinstance(node, c_ast.ExprList):  # (e1, e2): e1 for its side effects, then e2
            for e in node.exprs[:-1]:
                self.comma_operand(co, self.expr(e))
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
            t, v = self.char_literal(text, co)
            return Const(t, v, text)
        if kind == "string":
            raise error(co, "string literals are not supported in vectorized code")
        if kind in ("float", "double", "long double"):
            return self.float_literal(text, co, kind == "long double")
        return self.int_literal(text, co)

    def unary_expr(self, node: c_ast.UnaryOp) -> Expr:
        co = self.coord(node)
        op = node.op
        if op in ("sizeof", "_Alignof", "__alignof__", "__alignof", "alignof"):
            if isinstance(node.expr, c_ast.Typename):
                t = self.ctype(node.expr.type)
            else:
                with self.never():
                    t = self.expr(node.expr).type
            if isinstance(t, (T.Void, T.Func)):
                n = 1  # GNU C: sizeof (void) and sizeof of a function are 1
            elif isinstance(t, T.Record) and not t.complete or isinstance(t, T.Array) and t.length is None:
                raise error(co, f"invalid application of '{op}' to an incomplete type '{t}'")
            else:
                n = t.size() if op == "sizeof" else T.alignment(t)
            return Const(T.ULONG, n, str(n))
        if op in ("p++", "p--", "++", "--"):  # its value: the new one (++x) or the old one (x++)
            return self.increment_value(co, op, self.update(node))
        return self.unary(op, self.expr(node.expr), co)

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
        literal = raw[0].value if len(raw) == 1 and isinstance(raw[0], c_ast.Constant) and raw[0].type == "string" \
            else None
        value = self.nan_value(co, name, len(raw), literal)
        if value is not None:
            return value
        args = [self.expr(a) for a in raw]
        value = self.builtin_value(co, name, args)
        if value is not None:
            return value
        local = next((scope[name] for scope in self.scopes if name in scope), None)
        return self.call_function(co, name, args, local)


def _is_expression(node) -> bool:
    """An expression (not a declaration or statement) in a block's item list."""
    return not isinstance(node, (c_ast.Decl, c_ast.Compound, c_ast.If, c_ast.Return, c_ast.For, c_ast.While,
                                 c_ast.DoWhile, c_ast.Label, c_ast.Goto, c_ast.Break, c_ast.Continue,
                                 c_ast.EmptyStatement, c_ast.Switch, c_ast.Typedef, c_ast.Pragma, c_ast.Case,
                                 c_ast.Default, c_ast.StaticAssert)) and type(node).__name__ != "Asm"


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


def _attribute_names(d: c_ast.Decl) -> list[str]:
    """The names of the ``__attribute__`` s pycparserext kept on function declaration ``d``: after its
    declarator (on its type) and before it (its function specifiers)."""
    lists = [getattr(d.type, "attributes", None)]
    lists += [getattr(f, "exprlist", None) for f in d.funcspec or []]
    out = []
    for lst in lists:
        for a in getattr(lst, "exprs", None) or []:
            ident = a.name if isinstance(a, c_ast.FuncCall) else a
            if isinstance(ident, c_ast.ID):
                out.append(ident.name)
    return out


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
        j = closing_bracket(pre, m.end() - 1, "{}")
        tail = _RECORD_TAIL.match(pre, j + 1)
        text = pre[m.start():tail.end() if tail else j + 1]
        if _LAYOUT.search(text):
            (f0, l0), (_, l1) = where(m.start()), where(j)
            out.update((f0, n) for n in range(l0, l1 + 1))
    return frozenset(out)


_LINE_MARKER = re.compile(r'# \d+ "((?:[^"\\]|\\.)*)"')
#: The declarations of the headers a translation unit starts with, by their preprocessed text: the
#: file-scope declarations and the typedef names they leave (``_parse``; a few texts, newest last).
_HEADERS: dict[str, tuple[list, frozenset[str]]] = {}


def headers_end(pre: str, main: str) -> int:
    """Where the text of file ``main`` starts in preprocessed ``pre`` after the headers it includes
    first (the line marker that returns to it), or 0 when it starts with text of its own."""
    current = None
    back = 0  # (the last line marker that entered the main file)
    headers = False  # (any declaration before it)
    pos = 0
    for line in pre.splitlines(keepends=True):
        m = _LINE_MARKER.match(line)
        if m:
            if m.group(1) == main and current != main:
                back = pos
            current = m.group(1)
        elif line.strip():
            if current == main:
                return back if headers else 0
            headers = True
        pos += len(line)
    return 0


def _parse(parser: _Parser, pre: str, path: str) -> c_ast.FileAST:
    """``pre`` parsed by ``parser``; the headers it starts with parsed once per process (a fuzz run
    expands hundreds of programs that include the same <math.h>: a quarter of each one's time). The
    reader reads the shared declarations and changes none of them."""
    cut = headers_end(pre, path)
    if not cut:
        return parser.parse(pre, path)
    head = pre[:cut]
    known = _HEADERS.pop(head, None)
    if known is None:
        first = _Parser()
        try:
            decls = first.parse(head, path).ext
        except Exception:  # (an error in a header: the whole text says where, as without the cache)
            return parser.parse(pre, path)
        known = (decls, frozenset(n for n, is_type in first._scope_stack[0].items() if is_type))
    _HEADERS[head] = known
    while len(_HEADERS) > 8:
        del _HEADERS[next(iter(_HEADERS))]
    try:
        own = parser.parse(pre[cut:], path, initial_type_symbols=known[1])
    except Exception:  # (the whole text's error, or its parse where the split was wrong)
        return parser.parse(pre, path)
    return c_ast.FileAST(known[0] + own.ext, own.coord)


def read_file(path: str, text: str, include_dirs=(), defines=(), undefs=(), cc: str | Sequence[str] = "gcc",
              char_signed: bool | None = None) -> Module:
    """Preprocess and parse ``text`` (the contents of ``path``) into a Module.

    ``cc`` is the target's C compiler (a name or a command list, e.g. ``isa.cc``): it preprocesses the
    file and says what the target's types are (plain ``char`` is unsigned on AArch64 and ppc64le,
    ``wchar_t``); ``char_signed`` overrides the signedness of plain ``char``."""
    text, target, pre = preprocessed(path, text, include_dirs, defines, undefs, cc, char_signed)
    parser = _Parser()
    try:
        ast = _parse(parser, pre, path)
    except RecursionError:
        where = parser.error_coord()
        where = Coord(where.file or path, where.line, where.column or 1) if where is not None else Coord(path, 1, 1)
        raise error(where, "expression nesting is too deep for the pycparser frontend", NESTING_HINT) from None
    except MemoryError:
        raise  # (not a syntax error)
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
