"""Cross-check the two frontends: same IR, same output, and our C type rules against clang's.

    python -m expand.check.crosscheck            # corpus + test kernels: first IR difference per function
    python -m expand.check.crosscheck --types    # also the generated type cross-check (>= 300 expressions)
    python -m expand.check.crosscheck FILE.c -I DIR ...

Exit status 1 on any difference.  The IR is compared through :func:`dump_module`, a structural
dump of every node: class, type (canonical and spelling), operator, constant value and text, symbol
names and kinds, and ``file:line:col`` of statements, so "no difference" means ``expand_module``
prints the same text (also compared, with ``--isa``).
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

from expand.ir import types as T
from expand.ir.diagnostics import ExpandError
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
    Expr,
    ExprStmt,
    Function,
    Goto,
    If,
    Index,
    InitList,
    Label,
    Loop,
    MaskType,
    Member,
    Module,
    Return,
    Stmt,
    Symbol,
    Unary,
    Var,
)

ROOT = Path(__file__).resolve().parents[2]  # (the repository: expand/check/crosscheck.py)

# --------------------------------------------------------------------------- structural dump


def dump_type(t: T.CType | None, _seen: tuple = ()) -> str:
    """A type with its canonical meaning and its spelling: ``Int(u32) 'uint32_t'``."""
    if t is None:
        return "None"
    if isinstance(t, MaskType):
        return "mask"
    if isinstance(t, T.Void):
        return f"void '{t.spelling}'"
    if isinstance(t, T.Int):
        return f"Int({'s' if t.signed else 'u'}{t.bits}{',bool' if t.is_bool else ''}) '{t.spelling}'"
    if isinstance(t, T.Float):
        return f"Float({t.bits}) '{t.spelling}'"
    if isinstance(t, T.Pointer):
        return f"Pointer({dump_type(t.target, _seen)}{', const' if t.const else ''}) '{t.spelling}'"
    if isinstance(t, T.Array):
        return f"Array({dump_type(t.elem, _seen)}, {t.length}) '{t.spelling}'"
    if isinstance(t, T.Record):
        head = f"{'union' if t.is_union else 'struct'} {t.tag or '<anon>'}"
        if id(t) in _seen:
            return head
        fields = "; ".join(f"{n}: {dump_type(ft, (*_seen, id(t)))}" for n, ft in t.fields)
        return f"{head} {{{fields}}}{'' if t.complete else ' incomplete'} '{t.spelling}'"
    if isinstance(t, T.Func):
        ps = ", ".join(dump_type(p, _seen) for p in t.params)
        return f"Func({dump_type(t.ret, _seen)}; {ps}{'; ...' if t.variadic else ''})"
    return f"{type(t).__name__} '{t.spelling}'"


def _coord(c) -> str:
    return str(c) if c is not None else "-"


def _sym(s: Symbol | None) -> str:
    return "-" if s is None else f"{s.name}/{s.kind}"


def dump_expr(e: Expr | None, path: str, out: list[str]) -> None:
    if e is None:
        out.append(f"{path}: None")
        return
    head = f"{path}: {type(e).__name__} {dump_type(e.type)}"
    if isinstance(e, Const):
        head += f" value={e.value!r} text={e.text!r}"
    elif isinstance(e, Var):
        head += f" sym={_sym(e.sym)}"
    elif isinstance(e, (Unary, Binary)):
        head += f" op={e.op}"
    elif isinstance(e, Call):
        head += f" func={e.func} at {_coord(e.coord)}"
    elif isinstance(e, Member):
        head += f" name={e.name} arrow={e.arrow}"
    elif isinstance(e, Aggregate):
        head += f" paths={[p for p, _ in e.items]}"
    out.append(head)
    for i, ch in enumerate(e.children()):
        name = {Binary: ("left", "right"), Cond: ("cond", "then", "els"), Index: ("base", "index")}.get(type(e))
        dump_expr(ch, f"{path}.{name[i] if name else f'arg{i}' if isinstance(e, (Call, InitList)) else 'operand'}",
                  out)


def dump_stmts(stmts: list[Stmt], path: str, out: list[str]) -> None:
    for i, s in enumerate(stmts):
        p = f"{path}[{i}]"
        head = f"{p}: {type(s).__name__} at {_coord(s.coord)}"
        if isinstance(s, If):
            head += f" likely={s.likely}"
        elif isinstance(s, (Goto, Label)):
            head += f" {s.label if isinstance(s, Goto) else s.name}"
        elif isinstance(s, Loop):
            head += f" {s.kind}"
        elif isinstance(s, Assign):
            head += f" mask={_sym(s.mask)} blend={s.blend}"
        elif isinstance(s, ExprStmt):
            head += f" mask={_sym(s.mask)}"
        out.append(head)
        if isinstance(s, Assign):
            dump_expr(s.target, f"{p}.target", out)
            dump_expr(s.value, f"{p}.value", out)
        elif isinstance(s, ExprStmt):
            dump_expr(s.expr, f"{p}.expr", out)
        elif isinstance(s, If):
            dump_expr(s.cond, f"{p}.cond", out)
            dump_stmts(s.then, f"{p}.then", out)
            dump_stmts(s.els, f"{p}.els", out)
        elif isinstance(s, Return):
            dump_expr(s.value, f"{p}.value", out)
        elif isinstance(s, Block):
            dump_stmts(s.body, f"{p}.body", out)
        elif isinstance(s, Loop):
            dump_expr(s.cond, f"{p}.cond", out)
            dump_stmts(s.init, f"{p}.init", out)
            dump_stmts(s.body, f"{p}.body", out)
            dump_stmts(s.step, f"{p}.step", out)


def _symbol_line(s: Symbol) -> str:
    return (f"{s.name}/{s.kind} {dump_type(s.type)} at {_coord(s.coord)} static={s.static} const={s.const} "
            f"volatile={s.volatile} defined_here={s.defined_here} temp={s.temp} shape={getattr(s, 'shape', '')!r}")


def _init_lines(init, path: str, out: list[str]) -> None:
    if isinstance(init, list):
        for i, x in enumerate(init):
            _init_lines(x, f"{path}[{i}]", out)
    elif isinstance(init, Expr):
        dump_expr(init, path, out)
    else:
        out.append(f"{path}: {init!r}")


def dump_function(fn: Function) -> list[str]:
    out = [f"function {fn.name}: {dump_type(fn.ret)} at {_coord(fn.coord)} static={fn.static} "
           f"inline={fn.inline} variadic={fn.variadic}"]
    out += [f"param {_symbol_line(p)}" for p in fn.params]
    out += [f"local {_symbol_line(s)}" for s in fn.locals]
    dump_stmts(fn.body, "body", out)
    return out


def dump_module(mod: Module) -> dict[str, list[str]]:
    """Per function (and ``<module>``): the lines of the structural dump."""
    mlines = [f"file {mod.file}", f"functions {list(mod.functions)}"]
    mlines += [f"prologue {line}" for line in mod.prologue]
    mlines.append(f"source {len(mod.source_lines)} lines")
    mlines.append(f"globals {sorted(mod.globals)}")
    for name in sorted(mod.globals):
        s = mod.globals[name]
        if s.type is not None:  # resolved: used by a function, or defined here
            mlines.append(f"global {_symbol_line(s)}")
            _init_lines(s.init, f"global {name}.init", mlines)
    out = {"<module>": mlines}
    for name, fn in mod.functions.items():
        out[name] = dump_function(fn)
    return out


def first_differences(a: dict[str, list[str]], b: dict[str, list[str]], names=("pycparser", "clang")) \
        -> list[tuple[str, str]]:
    """(function, description of its first difference) for every function whose dumps differ."""
    diffs = []
    for fname in list(dict.fromkeys([*a, *b])):
        la, lb = a.get(fname), b.get(fname)
        if la is None or lb is None:
            missing = names[0] if la is None else names[1]
            diffs.append((fname, f"only the {names[1] if la is None else names[0]} frontend has it "
                                 f"(missing from {missing})"))
            continue
        for i in range(max(len(la), len(lb))):
            x = la[i] if i < len(la) else "<end>"
            y = lb[i] if i < len(lb) else "<end>"
            if x != y:
                diffs.append((fname, f"line {i}:\n    {names[0]:9}: {x}\n    {names[1]:9}: {y}"))
                break
    return diffs


# --------------------------------------------------------------------------- cases


@dataclass
class Case:
    name: str
    path: str
    text: str
    include_dirs: list[str] = field(default_factory=list)
    functions: list[str] | None = None  # roots to expand


def corpus_cases() -> list[Case]:
    from mathlib.corpus import corpus
    return [Case(f.name, str(f.source), f.source.read_text(), [str(d) for d in f.include_dirs], [f.func])
            for f in corpus()]


def kernel_sources() -> dict[str, str]:
    """tests/test_kernels.py's KERNELS, read without importing the test module."""
    tree = ast.parse((ROOT / "tests" / "test_kernels.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "KERNELS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise RuntimeError("tests/test_kernels.py has no KERNELS")


def kernel_cases() -> list[Case]:
    """tests/test_kernels.py's KERNELS and the loop kernels of mathlib/loops."""
    out = [Case(f"kernel:{n}", f"/tmp/expand-crosscheck/{n}.c", t + "\n", [], ["f"])
           for n, t in kernel_sources().items()]
    for f in sorted((ROOT / "mathlib" / "loops").glob("*.c")):
        out.append(Case(f"loops:{f.stem}", str(f), f.read_text(), [], None))
    return out


def read_both(case: Case):
    """Both frontends' Modules (or the ExpandError each raised)."""
    from frontends.clang_frontend import read_file_clang
    from frontends.pycparser_frontend import read_file
    res = []
    for reader in (read_file, read_file_clang):
        try:
            res.append(reader(case.path, case.text, case.include_dirs))
        except ExpandError as exc:
            res.append(exc)
    return res


def read_per_function(case: Case) -> tuple[dict, dict]:
    """Both frontends, each user function read on its own: name -> Function or the ExpandError it raised."""
    from pycparserext.ext_c_parser import GnuCParser

    from frontends import clang_frontend as CF
    from frontends.pycparser_frontend import Reader, packed_enums, preprocess

    pre = preprocess(case.path, case.text, case.include_dirs)
    reader = Reader(case.path, case.text, T.HOST, packed_enums(pre))
    for node in GnuCParser().parse(pre, case.path).ext:
        reader.toplevel(node)
    ours: dict[str, Function | ExpandError] = {}
    for name, fd in reader.func_nodes.items():
        try:
            ours[name] = reader.function(fd)
        except ExpandError as exc:
            ours[name] = exc
    tu, buf_name = CF.parse_tu(case.path, pre)
    creader = CF.ClangReader(case.path, case.text, tu, buf_name, pre.encode("utf-8"))
    mod = creader.read()
    theirs: dict[str, Function | ExpandError] = {**mod.functions, **creader.failed}
    return ours, theirs


def compare_functions(case: Case) -> list[tuple[str, str]]:
    """Per function of ``case``: the first difference of the two frontends' IR, or of their errors."""
    ours, theirs = read_per_function(case)
    out = []
    for name in dict.fromkeys([*ours, *theirs]):
        a, b = ours.get(name), theirs.get(name)
        da = [f"error at {a.coord}: {a.message}"] if isinstance(a, ExpandError) else dump_function(a) if a else []
        db = [f"error at {b.coord}: {b.message}"] if isinstance(b, ExpandError) else dump_function(b) if b else []
        diff = first_differences({name: da}, {name: db})
        if diff:
            out.append(diff[0])
    return out


def compare_case(case: Case, isa_name: str | None = "sse4.1") -> list[str]:
    """Human-readable differences between the frontends on one case (empty: identical)."""
    a, b = read_both(case)
    if isinstance(a, ExpandError) or isinstance(b, ExpandError):
        if isinstance(a, ExpandError) and isinstance(b, ExpandError):
            if a.coord is None or b.coord is None or (a.coord.file, a.coord.line) == (b.coord.file, b.coord.line):
                return []  # both refuse it, at the same place
            return [f"{case.name}: the frontends refuse it at different places:\n    pycparser: {a.render()}\n"
                    f"    clang    : {b.render()}"]
        bad, who = (a, "pycparser") if isinstance(a, ExpandError) else (b, "clang")
        return [f"{case.name}: only the {who} frontend fails: {bad.render()}"]
    out = [f"{case.name}: {fn}: {d}" for fn, d in first_differences(dump_module(a), dump_module(b))]
    if not out and isa_name:
        from emit import get_isa
        from expand.driver import expand_module
        texts = []
        for mod in (a, b):
            try:
                texts.append(expand_module(mod, get_isa(isa_name), functions=case.functions).text)
            except ExpandError as exc:
                texts.append("error: " + exc.render())
        if texts[0] != texts[1]:
            la, lb = texts[0].splitlines(), texts[1].splitlines()
            i = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
            out.append(f"{case.name}: expand_module output differs at line {i + 1}:\n"
                       f"    pycparser: {la[i] if i < len(la) else '<end>'}\n"
                       f"    clang    : {lb[i] if i < len(lb) else '<end>'}")
    return out


# --------------------------------------------------------------------------- type cross-check

TYPE_PRELUDE = """\
#include <stdint.h>
#include <stddef.h>
typedef unsigned int myuint;
typedef myuint myuint2;
typedef short sshort_t;
typedef double real;
enum pos { P0, P1, P2 };
enum neg { N0 = -1, N1 };
enum big { B0, B1 = 0x100000000 };
enum bign { C0 = -1, C1 = 0x80000000 };
enum pk { K0, K1 = 200 } __attribute__((packed));
enum pkn { Q0 = -1, Q1 = 200 } __attribute__((packed));
typedef enum { T0, T1 = 7 } tenum;
union pun { float f; uint32_t u; int32_t i; };
struct st { char c; short s; int i; long l; float f; double d; unsigned char uc; _Bool b; };
static const float gtab[8] = {1, 2, 3, 4, 5, 6, 7, 8};
"""

# name -> declaration (globals the generated functions read)
TYPE_VARS = {
    "b": "_Bool b", "c": "char c", "sc": "signed char sc", "uc": "unsigned char uc", "s": "short s",
    "us": "unsigned short us", "i": "int i", "u": "unsigned u", "l": "long l", "ul": "unsigned long ul",
    "ll": "long long ll", "ull": "unsigned long long ull", "f": "float f", "d": "double d",
    "u8": "uint8_t u8", "i16": "int16_t i16", "u16": "uint16_t u16", "i32": "int32_t i32", "u32": "uint32_t u32",
    "i64": "int64_t i64", "u64": "uint64_t u64", "sz": "size_t sz", "mu": "myuint mu", "mu2": "myuint2 mu2",
    "ss": "sshort_t ss", "r": "real r", "ep": "enum pos ep", "en": "enum neg en", "up": "union pun up",
    "eb": "enum big eb", "ebn": "enum bign ebn", "epk": "enum pk epk", "epn": "enum pkn epn", "te": "tenum te",
    "ps": "struct st *ps", "pf": "float *pf", "pci": "const int *pci",
}
_INTS = ["b", "c", "sc", "uc", "s", "us", "i", "u", "l", "ul", "ll", "ull", "u8", "i16", "u32", "i64", "u64",
         "sz", "mu", "mu2", "ss"]
_ARITH = [*_INTS, "f", "d", "r"]
_CORE = ["b", "c", "uc", "s", "us", "i", "u", "l", "ul", "ll", "ull", "f", "d", "u32", "i64", "ep", "en"]
LITERALS = ["0", "1", "0777", "0x7fffffff", "0x80000000", "2147483647", "2147483648", "4294967295",
            "4294967296", "0xffffffff", "0x100000000", "0xffffffffffffffff", "9223372036854775807",
            "1u", "1U", "1l", "1L", "1ul", "1lu", "1ll", "1ull", "1LLU", "0x7fffffffffffffffl",
            "'a'", "'\\n'", "'\\0'", "'\\377'", "'\\x80'", "'\\x7f'", "'ab'", "'\\377\\377'", "'abcd'", "'\\e'",
            "L'a'", "L'\\xffffffff'", "u'a'", "u'\\xffff'", "U'a'", "U'\\xffffffff'", "L'\\0'",
            "1.0", "1.5f", "0x1p-3", "0x1.8p1f", "1e10", ".5",
            "-1", "-2147483648", "-0x80000000", "-1u", "-1.0f", "P1", "N0"]


def type_expressions() -> list[str]:
    """The generated expressions of the type cross-check (integer promotions, usual arithmetic
    conversions, shifts, comparisons, casts, unions, pointers, typedefs, enums, literals)."""
    ex: list[str] = []
    ex += list(_ARITH) + ["ep", "en"]
    ex += LITERALS
    for v in [*_ARITH, "ep", "en"]:
        ex += [f"-{v}", f"!{v}", f"+{v}"]
        if v not in ("f", "d", "r"):
            ex.append(f"~{v}")
    for x in _CORE:
        for y in _CORE:
            ex.append(f"{x} + {y}")
    for x in _CORE:
        for y in ["b", "c", "u", "l", "ull", "f", "ep"]:
            ex.append(f"{x} < {y}")
    for x in ["b", "c", "uc", "s", "us", "i", "u", "l", "ul", "ull", "u8", "i16", "ep"]:
        for y in ["c", "u", "l", "ull"]:
            ex += [f"{x} << {y}", f"{x} >> {y}"]
    for x in ["c", "u", "l", "i64", "u32", "ep", "en"]:
        for y in ["uc", "i", "ul", "u32", "mu"]:
            ex += [f"{x} & {y}", f"{x} % {y}", f"{x} ^ {y}"]
    for x in ["i", "u", "f", "d", "b", "ep"]:
        for y in ["l", "f", "c", "u"]:
            ex += [f"{x} && {y}", f"{x} == {y}", f"{x} / {y}", f"{x} - {y}", f"{x} * {y}"]
    ex += [f"i ? {x} : {y}" for x, y in [("u", "l"), ("f", "d"), ("s", "c"), ("u8", "i16"), ("b", "b"),
                                         ("uc", "uc"), ("u", "i"), ("l", "ul"), ("ll", "ul"), ("f", "i"),
                                         ("ep", "i"), ("ep", "u"), ("mu", "u"), ("u32", "mu2"), ("1", "2u"),
                                         ("ss", "ss"), ("r", "f"), ("c", "1.0f"), ("ll", "ull"), ("en", "ep")]]
    for t in ["unsigned char", "signed char", "char", "short", "unsigned short", "int", "unsigned", "long",
              "unsigned long", "long long", "float", "double", "_Bool", "uint32_t", "int8_t", "myuint",
              "real", "size_t", "enum pos"]:
        ex += [f"({t}) i", f"({t}) d", f"({t}) 300", f"({t}) -1", f"({t}) 2.5"]
    ex += ["(unsigned char) 300 + 1", "(signed char) 200", "(short) 70000", "(_Bool) 2", "(uint8_t) -1 + 0u",
           "(int) 3000000000u", "(unsigned) -1 >> 1", "(long) -1 >> 63"]
    ex += ["up.f", "up.u", "up.i", "up.f * 2", "up.u >> 3", "up.i + up.u", "up.u & 0x7fffffff", "-up.u",
           "up.i < up.u", "up.f + up.i", "~up.i"]
    ex += ["*pf", "*pf + 1", "pf[2]", "pf[uc] * 2", "ps->c", "ps->c + ps->s", "ps->b", "ps->b + ps->b",
           "ps->uc << 1", "ps->s * ps->uc", "ps->l + ps->i", "ps->f * ps->d", "*pci", "*pci + u", "gtab[i]",
           "gtab[u8] + 1", "&ps->f", "pf", "&i", "&gtab[1]", "!pf", "-ps->uc", "~ps->c", "ps->d > ps->f"]
    ex += ["mu + i", "mu2 + 1", "mu2 - mu", "ss * ss", "ss + s", "r + f", "r * 2", "u8 + u8", "u8 * u32",
           "sz - 1", "sz + i", "i64 * u32", "u64 >> i", "i32 + 1", "i32 + u32", "u32 + 1u", "u16 * u16",
           "i16 - u16", "mu & 3", "u32 & 0x7fffffff", "u32 >> 23", "(i32 >> 23) & 0xff", "u32 ^ 0x80000000u"]
    ex += ["ep + 1", "ep - 1", "ep - 1 > 0", "ep * 2u", "ep == P1", "en + 1", "en - 1 > 0", "ep < en", "P1 + 1",
           "N0 - 1", "P0 - 1 > 0", "ep ? ep : P1", "-ep", "ep >> 1", "ep & en"]
    ex += ["eb + 1", "eb - 1 > 0", "B1", "B1 + 0", "B0 + 0", "ebn - 1 > 0", "C1", "C0 + 0", "C1 + 0", "epk + 1",
           "epk - 1 > 0", "K1 + 0", "epn - 1 > 0", "te - 1 > 0", "T1 * 2", "sizeof(enum big)", "sizeof(enum pk)",
           "sizeof(enum pkn)", "sizeof eb", "(enum big) -1", "(enum pk) 300", "L'a' - 1 > 0", "u'a' - 1 > 0",
           "U'a' - 1 > 0", "'\\377' < 0", "(char) 200 < 0", "c < 0"]
    ex += ["pf == 0", "0 != pf", "pf != (void *) 0", "pf == (float *) 0", "pf && i", "i || pf", "pf ? 1 : 2",
           "!pci", "pci || pf", "!ps && f > 0", "_Alignof(double)", "_Alignof(struct st)", "_Alignof(char) + 1"]
    ex += ["sizeof(struct st)", "sizeof i", "sizeof(union pun)", "sizeof(real)", "sizeof gtab", "sizeof(ps->d)",
           "sizeof(char)", "sizeof(float *)", "sizeof 'a'", "sizeof(long long)", "sizeof(i + l)", "sizeof(uint8_t)",
           "sizeof(enum pos)", "sizeof(_Bool)", "sizeof(sshort_t) + 1", "sizeof(int) * -1"]
    ex += ["(i + u) * l", "(s << u8) + ull", "(c - uc) / s", "(f + i) * d", "(b + b) << b", "-(uc + us)",
           "(u - 1) < i", "l + (ul - 1)", "(i > 0) + (u > 0)", "(ll + ul) >> 1", "1 << 31", "1u << 31", "1 + 1u",
           "2147483647 + 1", "-2147483647 - 1", "0x7fffffff + 1", "1.0f + 1", "1.0f + 1.0", "'a' + 'b'",
           "'a' * 1u", "i / 2.0f", "u % 7u", "l % 3", "(unsigned char) c + (signed char) uc", "!(f < d)",
           "(f > 0) && (d < 0)", "i ? f : 0", "u ? 1u : -1", "(b ? uc : c) + 0"]
    ex += ["u < -1", "us < -1", "uc == -1", "ul == -1", "l < 4294967295u", "i64 < 4294967295u", "u32 > -1L",
           "b & 1", "b | b", "b ^ c", "f == 0.1", "(float) d == f", "d != f", "u8 == 255", "(uint8_t) 255 == -1",
           "-u8", "-us", "-u", "~uc", "~u64", "s >> 15", "u64 << 63", "l >> 63u", "c * c * c", "uc - 256",
           "1ull << 63", "0xffffffffu + 1", "0xffffffff + 1", "4294967295 + 1", "-1 >> 31", "sz * 2 - 1"]
    return ex


def type_check_source(exprs: list[str]) -> str:
    """One translation unit: the variables as globals, one ``int t_N(void) { if (EXPR) ... }`` each."""
    decls = "".join(f"extern {d};\n" for d in TYPE_VARS.values())
    funcs = [f"int t_{n}(void) {{ if ({e}) return 1; return 0; }}" for n, e in enumerate(exprs)]
    return TYPE_PRELUDE + decls + "\n".join(funcs) + "\n"


def _ours_key(t: T.CType) -> str:
    if isinstance(t, T.Int):
        return f"{'bool' if t.is_bool else ('i' if t.signed else 'u') + str(t.bits)}"
    if isinstance(t, T.Float):
        return f"f{t.bits}"
    if isinstance(t, T.Pointer):
        return f"ptr({_ours_key(t.target)})"
    if isinstance(t, T.Array):
        return f"arr({_ours_key(t.elem)},{t.length})"
    if isinstance(t, T.Record):
        return f"{'union' if t.is_union else 'struct'} {t.tag}"
    return type(t).__name__


def _clang_key(t) -> str:
    import clang.cindex as ci
    TK = ci.TypeKind
    c = t.get_canonical()
    k = c.kind
    ints = {TK.BOOL: "bool", TK.CHAR_S: "i8", TK.SCHAR: "i8", TK.CHAR_U: "u8", TK.UCHAR: "u8", TK.SHORT: "i16",
            TK.USHORT: "u16", TK.INT: "i32", TK.UINT: "u32", TK.LONG: "i64", TK.ULONG: "u64", TK.LONGLONG: "i64",
            TK.ULONGLONG: "u64", TK.FLOAT: "f32", TK.DOUBLE: "f64"}
    if k in ints:
        return ints[k]
    if k == TK.POINTER:
        return f"ptr({_clang_key(c.get_pointee())})"
    if k == TK.CONSTANTARRAY:
        return f"arr({_clang_key(c.element_type)},{c.element_count})"
    if k == TK.ENUM:
        return _clang_key(c.get_declaration().enum_type)
    if k == TK.RECORD:
        d = c.get_declaration()
        return f"{'union' if d.kind == ci.CursorKind.UNION_DECL else 'struct'} {d.spelling}"
    return c.spelling


@dataclass
class TypeResult:
    expr: str
    problems: list[str]  # empty: our rules agree with clang


def type_crosscheck(exprs: list[str] | None = None, path: str = "/tmp/expand-typecheck/types.c",
                    cc: str = "gcc") -> list[TypeResult]:
    """For every expression: our rules' type (the pycparser frontend's IR of ``if (EXPR)``) against
    clang's, plus the converted operand types of binary and conditional operators and folded values.
    ``cc`` is the target's compiler (``aarch64-linux-gnu-gcc``: plain char is unsigned there)."""
    import clang.cindex as ci
    from pycparserext.ext_c_parser import GnuCParser

    from frontends import clang_frontend as CF
    from frontends.pycparser_frontend import Reader, packed_enums, preprocess

    exprs = exprs if exprs is not None else type_expressions()
    text = type_check_source(exprs)
    target = T.target_of(cc)
    pre = preprocess(path, text, cc=cc)
    reader = Reader(path, text, target, packed_enums(pre))
    for node in GnuCParser().parse(pre, path).ext:
        reader.toplevel(node)
    ours: dict[str, Expr | ExpandError] = {}
    for name, fd in reader.func_nodes.items():
        try:
            fn = reader.function(fd)
            ours[name] = fn.body[0].cond
        except ExpandError as exc:
            ours[name] = exc
    tu, _ = CF.parse_tu(path, pre, target)
    K = ci.CursorKind
    theirs = {}
    for c in tu.cursor.get_children():
        if c.kind == K.FUNCTION_DECL and c.spelling.startswith("t_") and c.is_definition():
            body = next(x for x in c.get_children() if x.kind == K.COMPOUND_STMT)
            if_stmt = next(iter(body.get_children()))
            theirs[c.spelling] = next(iter(if_stmt.get_children()))

    def unparen(c):
        while c.kind == K.PAREN_EXPR or (c.kind == K.UNEXPOSED_EXPR and len(list(c.get_children())) == 1
                                          and _clang_key(c.type) == _clang_key(next(c.get_children()).type)):
            c = next(c.get_children())
        return c

    def raw(c):  # without parentheses and any implicit conversion
        while c.kind == K.PAREN_EXPR or (c.kind == K.UNEXPOSED_EXPR and len(list(c.get_children())) == 1):
            c = next(c.get_children())
        return c

    results = []
    for n, e in enumerate(exprs):
        name = f"t_{n}"
        mine, cl = ours.get(name), theirs.get(name)
        problems: list[str] = []
        if isinstance(mine, ExpandError):
            problems.append(f"our rules reject it: {mine.message}")
        elif mine is None or cl is None:
            problems.append("missing")
        else:
            cl = unparen(cl)
            if _ours_key(mine.type) != _clang_key(cl.type):
                problems.append(f"type: ours {mine.type} ({_ours_key(mine.type)}), clang {cl.type.spelling} "
                                f"({_clang_key(cl.type)})")
            kids = [x for x in cl.get_children()]
            if isinstance(mine, Binary) and mine.op not in ("&&", "||") and cl.kind == K.BINARY_OPERATOR:
                for side, m, k in (("left", mine.left, kids[0]), ("right", mine.right, kids[1])):
                    if _ours_key(m.type) != _clang_key(k.type):
                        problems.append(f"{side} operand converted to: ours {m.type}, clang {k.type.spelling}")
            if isinstance(mine, Cond) and cl.kind == K.CONDITIONAL_OPERATOR:
                for side, m, k in (("then", mine.then, kids[1]), ("else", mine.els, kids[2])):
                    if _ours_key(m.type) != _clang_key(k.type):
                        problems.append(f"{side} arm converted to: ours {m.type}, clang {k.type.spelling}")
            if isinstance(mine, (Unary, Cast)) and not isinstance(mine, BitCast) and len(kids) == 1 and \
                    cl.kind in (K.UNARY_OPERATOR,) and isinstance(mine, Unary) and mine.op in ("-", "~"):
                if _ours_key(mine.operand.type) != _clang_key(kids[0].type):
                    problems.append(f"operand promoted to: ours {mine.operand.type}, clang {kids[0].type.spelling}")
            if isinstance(mine, Const):
                v = CF.evaluate(raw(cl)) if raw(cl).kind in (K.CHARACTER_LITERAL,) else CF.evaluate(cl)
                if v is not None and v != mine.value:
                    problems.append(f"value: ours {mine.value!r}, clang {v!r}")
        results.append(TypeResult(e, problems))
    return results


# --------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m expand.check.crosscheck", description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="C files to compare (default: the corpus and the test kernels)")
    ap.add_argument("-I", dest="include", action="append", default=[], help="include directory")
    ap.add_argument("--isa", default="sse4.1", help="also compare expand_module output for this ISA ('' to skip)")
    ap.add_argument("--types", action="store_true", help="run the generated type cross-check too")
    ap.add_argument("--cc", default="gcc", help="the target's C compiler for --types (aarch64-linux-gnu-gcc, ...)")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every case")
    args = ap.parse_args(argv)
    if args.files:
        cases = [Case(Path(f).name, f, Path(f).read_text(), list(args.include), None) for f in args.files]
    else:
        cases = corpus_cases() + kernel_cases()
    bad = 0
    for case in cases:
        diffs = compare_case(case, args.isa or None)
        if diffs:
            bad += 1
            for d in diffs:
                print(d)
        elif args.verbose:
            print(f"{case.name}: identical")
    print(f"{len(cases) - bad}/{len(cases)} files identical in both frontends")
    if args.types:
        res = type_crosscheck(cc=args.cc)
        wrong = [r for r in res if r.problems]
        for r in wrong:
            print(f"type rule mismatch: {r.expr}: " + "; ".join(r.problems))
        print(f"{len(res) - len(wrong)}/{len(res)} expressions: our type rules agree with clang")
        bad += len(wrong)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
