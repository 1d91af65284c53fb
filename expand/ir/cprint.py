"""Print IR expressions as scalar C (uniform values in the output, and debugging dumps)."""

from __future__ import annotations

import math
import re
import struct

from expand.ir import types as T
from expand.ir.nodes import Binary, BitCast, Call, Cast, Cond, Const, Expr, Index, MathOp, Member, Unary, Var

PREC = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, "<=": 7, ">": 7, ">=": 7,
        "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}


def literal_value(text: str) -> int | None:
    m = re.match(r"^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)[uUlL]*$", text)
    if not m:
        return None
    d = m.group(1)
    if d.lower().startswith("0x"):
        return int(d, 16)
    if d.startswith("0") and len(d) > 1:
        return int(d, 8)
    return int(d)


def literal_type(text: str) -> T.Int | None:
    """The type C gives an integer literal (C11 6.4.4.1, LP64)."""
    m = re.match(r"^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([uUlL]*)$", text)
    if not m:
        return None
    v = literal_value(text)
    suffix = m.group(2).lower()
    decimal = not (m.group(1).lower().startswith("0x") or (m.group(1).startswith("0") and len(m.group(1)) > 1))
    if "u" in suffix:
        cands = [T.ULONG] if "l" in suffix else [T.UINT, T.ULONG]
    elif decimal:
        cands = [T.LONG] if "l" in suffix else [T.INT, T.LONG]
    else:
        cands = [T.LONG, T.ULONG] if "l" in suffix else [T.INT, T.UINT, T.LONG, T.ULONG]
    for t in cands:
        if t.min <= v <= t.max:
            return t
    return None


def const_text(c: Const) -> str:
    """A C literal for ``c`` in its own type (with a cast where the spelling's type differs)."""
    if isinstance(c.value, float):
        text = c.text or repr(c.value)
        is_f = text.lower().endswith("f") and not text.lower().startswith("0x") or \
            (text.lower().startswith("0x") and "p" in text.lower() and text.lower().endswith("f"))
        if c.type == T.FLOAT and not is_f:
            return f"(float){text}"
        if c.type == T.DOUBLE and is_f:
            return f"(double){text}"
        return text
    text = c.text or str(c.value)
    neg = text.startswith("-")
    body = text[1:] if neg else text
    lt = literal_type(body)
    lv = literal_value(body)
    t = c.type
    if lt is not None and lv is not None:
        val = -lv if neg else lv
        if lt == T.strip_spelling(t) and val == c.value:
            return text
        if isinstance(t, T.Int) and t.wrap(val) == c.value:
            return f"({t}){text}" if not neg else f"({t})({text})"
    if isinstance(t, T.Int):
        if c.value < 0:
            return f"({t})({c.value + 1} - 1)" if c.value == t.min else f"({t})({c.value})"
        return f"({t}){c.value}u" if c.value > 0x7fffffff else f"({t}){c.value}"
    return str(c.value)


NOISY = {"<<", ">>", "&", "|", "^", "&&", "||", "==", "!=", "<", "<=", ">", ">="}


COMPARISONS = {"==", "!=", "<", "<=", ">", ">="}


def _needs_parens(op: str, p: int, ctx) -> bool:
    """Parentheses C needs, plus those GCC's -Wparentheses asks for (``1 << (5 + 11)``, and a
    comparison inside a comparison, ``(a != b) != c``, the same operator too)."""
    if isinstance(ctx, tuple):
        cp, parent = ctx
        return p < cp or (parent in NOISY and op != parent) or (op in COMPARISONS and parent in COMPARISONS)
    return p < ctx


def _level(ctx) -> float:
    return ctx[0] if isinstance(ctx, tuple) else ctx


def cexpr(e: Expr, name=lambda s: s.name) -> str:
    """C text of ``e`` with minimal parentheses."""
    return _p(e, 0, name)


def _fold_bitcast(e: BitCast) -> Const | None:
    """A constant reinterpreted as another type, as a literal of that type: a hex float when the
    bits are a finite float, the integer otherwise (NaN bit patterns keep the union). GCC 12 crashes
    on a union-punned constant in some AVX-512 code (tests/fuzz_regressions/avx512_union_constant.c)."""
    c, src, dst = e.operand, T.strip_spelling(e.operand.type), T.strip_spelling(e.type)
    if not isinstance(c, Const) or not isinstance(src, (T.Int, T.Float)) or src.size() != dst.size():
        return None
    fmt = {4: ("<I", "<f"), 8: ("<Q", "<d")}.get(src.size())
    if fmt is None:
        return None
    if isinstance(src, T.Int) and isinstance(dst, T.Float) and isinstance(c.value, int):
        v = struct.unpack(fmt[1], struct.pack(fmt[0], c.value & ((1 << (8 * src.size())) - 1)))[0]
        if not math.isfinite(v):
            return None
        text = ("-" if math.copysign(1.0, v) < 0 else "") + abs(v).hex() + ("f" if dst.bits == 32 else "")
        return Const(e.type, v, text)
    if isinstance(src, T.Float) and isinstance(dst, T.Int) and isinstance(c.value, float):
        bits = struct.unpack(fmt[0], struct.pack(fmt[1], c.value))[0]
        return Const(e.type, dst.wrap(bits))
    return None


def _p(e: Expr, ctx, name) -> str:
    if isinstance(e, Const):
        t = const_text(e)
        return f"({t})" if (t.startswith("-") or t.startswith("(")) and ctx != 0 else t
    if isinstance(e, Var):
        return name(e.sym)
    if isinstance(e, Binary):
        p = PREC[e.op]
        s = f"{_p(e.left, (p, e.op), name)} {e.op} {_p(e.right, (p + 1, e.op), name)}"
        return f"({s})" if _needs_parens(e.op, p, ctx) else s
    if isinstance(e, Unary):
        s = f"{e.op}{_p(e.operand, 12, name)}"
        return f"({s})" if _level(ctx) > 11 else s
    if isinstance(e, Cond):
        s = f"{_p(e.cond, 1, name)} ? {_p(e.then, 0, name)} : {_p(e.els, 0, name)}"
        return f"({s})" if _level(ctx) > 0 else s
    if isinstance(e, Cast):
        s = f"({e.type}){_p(e.operand, 12, name)}"
        return f"({s})" if _level(ctx) > 11 else s
    if isinstance(e, BitCast):
        a, b = e.operand.type, e.type
        folded = _fold_bitcast(e)
        if folded is not None:
            return _p(folded, ctx, name)
        return f"((union {{ {a} from; {b} to; }}){{ {_p(e.operand, 0, name)} }}.to)"
    if isinstance(e, Call):
        return f"{e.func}({', '.join(_p(a, 0, name) for a in e.args)})"
    if isinstance(e, MathOp):
        return f"{e.func}({', '.join(_p(a, 0, name) for a in e.args)})"
    if isinstance(e, Index):
        return f"{_p(e.base, 13, name)}[{_p(e.index, 0, name)}]"
    if isinstance(e, Member):
        return f"{_p(e.base, 13, name)}{'->' if e.arrow else '.'}{e.name}"
    return f"/* {type(e).__name__} */"


#: Spellings of integer and floating types every output can use: C's keywords and <stdint.h>'s names.
_STANDARD_SPELLING = re.compile(r"((signed|unsigned|char|short|int|long|float|double|_Bool)\s*)+|u?int(8|16|32|64)_t")


def cdecl(t: T.CType, name: str) -> str:
    """A C declarator of ``name`` with type ``t`` (typedef names of the input spelled as what they
    stand for: the output does not carry them): ``float q[2][2]``, ``const float *p``, ``int f(float, float *)``."""
    if isinstance(t, (T.Int, T.Float)):
        spelled = str(t) if _STANDARD_SPELLING.fullmatch(str(t)) else str(T.strip_spelling(t))
        return f"{spelled} {name}".rstrip()
    if isinstance(t, T.Array):
        return cdecl(t.elem, f"{name}[{'' if t.length is None else t.length}]")
    if isinstance(t, T.Pointer):
        inner = f"*{name}" if not isinstance(t.target, (T.Array, T.Func)) else f"(*{name})"
        return cdecl(t.target, inner) if not t.const else "const " + cdecl(t.target, inner)
    if isinstance(t, T.Func):
        params = ", ".join(cdecl(p, "") for p in t.params) or "void"
        return cdecl(t.ret, f"{name}({params}{', ...' if t.variadic else ''})")
    if isinstance(t, T.Record) and t.tag:
        return f"{'union' if t.is_union else 'struct'} {t.tag} {name}".rstrip()
    if isinstance(t, T.Record) and t.spelling:  # typedef struct { ... } name
        return f"{t.spelling} {name}".rstrip()
    if isinstance(t, T.Record) and t.complete:  # static const union { ... } c = ...: the definition itself
        fields = " ".join(f"{cdecl(ft, n)};" for n, ft in t.fields)
        return f"{'union' if t.is_union else 'struct'} {{ {fields} }} {name}".rstrip()
    if isinstance(t, T.Void):
        return f"void {name}".rstrip()
    raise TypeError(f"no C declarator for type {t}")


def cinit(init) -> str:
    """A static initializer (an expression, or nested lists of them for aggregates) as C."""
    if isinstance(init, list):
        return "{" + ", ".join(cinit(i) for i in init) + "}"
    if isinstance(init, dict):  # a union initialized by a member other than its first: {.name = v}
        return "{" + ", ".join(f".{k} = {cinit(v)}" for k, v in init.items()) + "}"
    return cexpr(init)
