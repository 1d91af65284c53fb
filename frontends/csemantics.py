"""C semantics both frontends need beyond the IR's own (expand/ir/types.py, expand/passes/fold.py)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

from expand.ir import types as T
from expand.ir.diagnostics import ExpandError, error
from expand.ir.nodes import (
    Assign,
    Block,
    Call,
    Const,
    Coord,
    Expr,
    ExprStmt,
    If,
    Index,
    Member,
    Stmt,
    Unary,
    Var,
    is_pure,
)
from expand.passes.fold import fold_int

COMPARISONS = ("==", "!=", "<", "<=", ">", ">=")
#: How both frontends preprocess, after the compiler and its flags (``Isa.preprocessor``): GCC's
#: default dialect (gnu17), as the output and the scalar code are compiled.  The _FloatN types are
#: keywords of GCC that pycparser does not know: _Float32 is float, _Float64 and _Float32x double on
#: every target expand has; _Float64x and _Float128 are read as long double, which expand refuses where
#: a value has it (they only appear in declarations and in the unselected arms of glibc's type-generic
#: macros, whose _Generic then still picks the arm GCC picks: reading an arm that differs from another
#: matching one is a diagnostic, see generic_selection).
CPP_FLAGS = ["-E", "-D_Float32=float", "-D_Float64=double", "-D_Float32x=double", "-D_Float64x=long double",
             "-D_Float128=long double"]


def preprocess(path: str, text: str, include_dirs=(), defines=(), undefs=(), cc: str | Sequence[str] = "gcc") -> str:
    """Run the C preprocessor of ``cc`` (a compiler name, or a command as a list); line markers keep
    the user's file and line numbers."""
    cmd = [*([cc] if isinstance(cc, str) else cc), *CPP_FLAGS]
    cmd += [f"-I{d}" for d in include_dirs]
    cmd += [f"-D{d}" for d in defines]
    cmd += [f"-U{u}" for u in undefs]
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


def preprocessed(path: str, text: str, include_dirs=(), defines=(), undefs=(), cc: str | Sequence[str] = "gcc",
                 char_signed: bool | None = None) -> tuple[str, T.Target, str]:
    """What both readers start from: the text of ``path`` (without a UTF-8 byte order mark), the target's
    types (``cc``'s; ``char_signed`` overrides plain char's signedness) and the preprocessed text."""
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
    return text, target, preprocess(path, text, include_dirs, defines, undefs, T.target_cc(cc, char_signed))


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


def is_null_pointer_constant(e: Expr) -> bool:
    """C11 6.3.2.3: an integer constant expression 0, or one cast to a pointer type (``NULL``)."""
    if isinstance(e, Const) and isinstance(e.type, T.Pointer):
        return e.value == 0
    return isinstance(e.type, T.Int) and fold_int(e) == 0 and \
        not any(isinstance(x, (Var, Call)) for x in e.walk())


def null_comparison(a: Expr, b: Expr) -> tuple[Expr, Expr] | None:
    """(pointer, null constant) when ``a == b`` compares a pointer with a null pointer constant."""
    if isinstance(a.type, T.Pointer) and is_null_pointer_constant(b) and not is_null_pointer_constant(a):
        return a, b
    if isinstance(b.type, T.Pointer) and is_null_pointer_constant(a) and not is_null_pointer_constant(b):
        return b, a
    return None


def _round_mantissa(x: Fraction, bits: int, emin: int | None = None) -> Fraction:
    """``x`` rounded to ``bits`` significant bits, to nearest, ties to even; below ``2**emin`` (the smallest
    normal number, if given) to the subnormals' fixed quantum ``2**(emin - bits + 1)``, down to 0."""
    if x == 0:
        return x
    sign, x = (-1, -x) if x < 0 else (1, x)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if Fraction(2) ** e > x:
        e -= 1
    if emin is not None:
        e = max(e, emin)
    scale = Fraction(2) ** (bits - 1 - e)
    q = x * scale
    n, r = divmod(q.numerator, q.denominator)
    if 2 * r > q.denominator or (2 * r == q.denominator and n & 1):
        n += 1
    return sign * n / scale


def long_double_literal(text: str, t: T.CType) -> Const | None:
    """A ``long double`` literal (``1.797...e+308L``, as <float.h>'s ``DBL_MAX`` spells it) converted to
    ``t`` (float or double): the Const, when rounding the literal first to any target's long double
    (x87's 64-bit, IBM double-double's 106-bit or IEEE quad's 113-bit significand) and then to ``t``
    gives what rounding it directly does; else None."""
    body = text[:-1] if text[-1:] in "lL" else text
    if not isinstance(t, T.Float) or t.bits not in (32, 64):
        return None
    try:
        exact = Fraction(float.fromhex(body)) if body.lower().startswith("0x") else Fraction(body)
    except (ValueError, ZeroDivisionError):
        return None
    p, emin, emax = (24, -126, 127) if t.bits == 32 else (53, -1022, 1023)
    want = _round_mantissa(exact, p, emin)
    # (the long doubles: x87's and IEEE quad's exponents reach -16382; IBM double-double's low part has
    # double's subnormals, so its quantum stops at 2**-1074)
    if any(_round_mantissa(_round_mantissa(exact, q, qmin), p, emin) != want
           for q, qmin in ((64, -16382), (106, -1074 + 105), (113, -16382))):
        return None
    if abs(want) >= Fraction(2) ** (emax + 1):  # (out of the type's range: refused, not made infinite)
        return None
    v = float(want)
    if want == 0:  # (underflows: spelled so that no compiler warns the constant is truncated to zero)
        return Const(t, v, ("-0.0" if exact < 0 else "0.0") + ("f" if t.bits == 32 else ""))
    if t.bits == 32:
        spelled = body + "f" if Fraction(T.float32(float(body))) == want else float(want).hex() + "f"
        return Const(t, v, spelled)
    return Const(t, v, body if Fraction(float(body)) == want else v.hex())


def effects_only(co: Coord, value: Expr, pre: list[Stmt]) -> list[Stmt]:
    """The statements of an expression read for its side effects alone (an asm input): what its side
    effects run first (``pre``), and a statement making its calls."""
    return [*pre, *([ExprStmt(co, value)] if any(isinstance(n, Call) for n in value.walk()) else [])]


def lvalue_name(e: Expr) -> str:
    """A name for a temporary holding ``e``'s old value (``x++``): the variable's own."""
    while isinstance(e, (Index, Member, Unary)):
        e = e.base if isinstance(e, (Index, Member)) else e.operand
    return e.sym.name if isinstance(e, Var) else "tmp"


def closing_bracket(text, start: int, pair) -> int:
    """The index of the bracket that closes the one at ``start`` in ``text`` (a str, or bytes with a bytes
    ``pair``: the opening and the closing bracket); ``len(text)`` when none does."""
    depth, i = 0, start
    while i < len(text):
        ch = text[i:i + 1]
        if ch == pair[:1]:
            depth += 1
        elif ch == pair[1:]:
            depth -= 1
            if depth == 0:
                break
        i += 1
    return i


def split_top(text: str, sep: str) -> list[str]:
    """``text`` split at each ``sep`` outside parentheses, brackets and string literals."""
    out, depth, quote, cur = [], 0, None, []
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                cur.append(text[i:i + 2])
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
            i += 1
            continue
        cur.append(ch)
        i += 1
    out.append("".join(cur))
    return out


def pure_local_assignment(s: Stmt, own: set) -> bool:
    """``s`` only assigns side-effect-free values that cannot fault to the symbols ``own`` (a statement
    expression's own temporaries), directly or under an ``if`` or in a block: it may run even where C
    would not evaluate it."""
    if isinstance(s, Assign):
        return isinstance(s.target, Var) and s.target.sym in own and is_pure(s.value)
    if isinstance(s, If):
        return is_pure(s.cond) and all(pure_local_assignment(x, own) for x in s.then + s.els)
    if isinstance(s, Block):
        return all(pure_local_assignment(x, own) for x in s.body)
    return False


def include_site(pre: str, path: str, header: str) -> Coord | None:
    """Where the user's file ``path`` includes (directly or through other headers) ``header``, from the
    line markers of the preprocessed text ``pre``; None when ``header`` is the user's file or unknown."""
    if header == path:
        return None
    parent: dict[str, Coord] = {}
    cur, line = path, 1
    for text in pre.splitlines():
        m = re.match(r'#\s*(\d+)\s+"((?:[^"\\]|\\.)*)"((?:\s+\d)*)\s*$', text)
        if m is None:
            line += 1
            continue
        f, flags = m.group(2), m.group(3).split()
        if "1" in flags and f not in parent:
            parent[f] = Coord(cur, line, 1)
        cur, line = f, int(m.group(1))
    seen = set()
    while header in parent and header not in seen:
        seen.add(header)
        site = parent[header]
        if site.file == path:
            return site
        header = site.file
    return None



def _braces(line: str, depth: int, in_comment: bool) -> tuple[int, bool]:
    """Brace depth and whether a block comment is open after ``line`` (strings, character constants
    and comments skipped)."""
    i, n = 0, len(line)
    while i < n:
        if in_comment:
            end = line.find("*/", i)
            if end < 0:
                return depth, True
            i, in_comment = end + 2, False
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            i, in_comment = i + 2, True
            continue
        if c in "\"'":
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        depth += (c == "{") - (c == "}")
        i += 1
    return max(depth, 0), in_comment


def prologue_lines(text: str) -> list[str]:
    """The user's preprocessor lines up to the last ``#include``: printed back in the output."""
    lines = text.splitlines()
    directives: list[str] = []
    last_include = -1
    i = 0
    depth, in_comment = 0, False  # braces open (directives inside a function body stay there)
    while i < len(lines):
        line = lines[i]
        full = line
        while full.endswith("\\") and i + 1 < len(lines):
            i += 1
            full = full[:-1] + lines[i]
        stripped = full.strip()
        if not stripped.startswith("#") or in_comment:
            depth, in_comment = _braces(full, depth, in_comment)
        elif depth == 0:
            word = stripped[1:].strip().split(" ")[0].split("(")[0]
            if word in ("include", "define", "undef", "if", "ifdef", "ifndef", "else", "elif", "endif"):
                directives.append(stripped)
                if word == "include":
                    last_include = len(directives)
        i += 1
    kept = directives[:last_include] if last_include >= 0 else []
    # Balance conditionals cut at the end of the prologue.
    depth = 0
    for d in kept:
        w = d[1:].strip()
        if w.startswith("if"):
            depth += 1
        elif w.startswith("endif"):
            depth -= 1
    return kept + ["#endif"] * max(depth, 0)


def template_files(pre: str, path: str) -> frozenset[str]:
    """The ``.c`` files the user's file ``path`` includes (glibc's ``s_fromfpf.c`` includes
    ``s_fromfpf_main.c`` after defining its name): their functions and tables are the user's own
    code. From the line markers of the preprocessed text ``pre``."""
    parent: dict[str, str] = {}
    cur = path
    for text in pre.splitlines():
        m = re.match(r'#\s*(\d+)\s+"((?:[^"\\]|\\.)*)"((?:\s+\d)*)\s*$', text)
        if m is None:
            continue
        f, flags = m.group(2), m.group(3).split()
        if "1" in flags and f not in parent:
            parent[f] = cur
        cur = f
    out = set()
    for f in parent:
        g, seen = f, set()
        while g.endswith(".c") and g in parent and g not in seen:
            seen.add(g)
            g = parent[g]
        if g == path and f.endswith(".c"):
            out.add(f)
    return frozenset(out)


def module_prologue(text: str, templates: frozenset[str] = frozenset()) -> list[str]:
    """``prologue_lines`` of the user's file, with each ``#include`` of a template (``templates``)
    replaced by the template's own prologue: the output is not to define the template's functions."""
    names = {Path(t).name: t for t in templates}
    out: list[str] = []
    for line in prologue_lines(text):
        m = re.match(r'#\s*include\s*[<"]([^>"]+)[>"]', line)
        t = names.get(Path(m.group(1)).name) if m else None
        if t is None:
            out.append(line)
            continue
        try:
            out.extend(module_prologue(Path(t).read_text(), templates - {t}))
        except OSError:
            out.append(line)
    return out


def knr_error(co: Coord | None, function: str, name: str, t: T.CType) -> ExpandError | None:
    """Why an old-style definition's parameter ``name`` of type ``t`` keeps ``function`` from being read as
    its prototype form, or None: the caller passes the argument after the default argument promotions
    (C11 6.5.2.2p6), so a float comes as a double and a char or short as an int, which the vector function's
    parameter would not be."""
    t = T.strip_spelling(t)
    if isinstance(t, T.Float) and t.bits < 64:
        passed = "a double"
    elif isinstance(t, T.Int) and t.bits < 32:
        passed = "an int"
    else:
        return None
    return error(co, f"old-style (K&R) definition of '{function}': parameter '{name}' of type '{t}' is passed as "
                 f"{passed}", "declare the parameters' types in the parameter list: int f(int x)")
