"""Print IR expressions as scalar C (uniform values in the output, and debugging dumps)."""

from __future__ import annotations

import re

from . import types as T
from .ir import Binary, BitCast, Call, Cast, Cond, Const, Expr, Index, Member, Unary, Var

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


def _needs_parens(op: str, p: int, ctx) -> bool:
    """Parentheses C needs, plus those GCC's -Wparentheses asks for (``1 << (5 + 11)``)."""
    if isinstance(ctx, tuple):
        cp, parent = ctx
        return p < cp or (parent in NOISY and op != parent)
    return p < ctx


def _level(ctx) -> float:
    return ctx[0] if isinstance(ctx, tuple) else ctx


def cexpr(e: Expr, name=lambda s: s.name) -> str:
    """C text of ``e`` with minimal parentheses."""
    return _p(e, 0, name)


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
        return f"((union {{ {a} from; {b} to; }}){{ {_p(e.operand, 0, name)} }}.to)"
    if isinstance(e, Call):
        return f"{e.func}({', '.join(_p(a, 0, name) for a in e.args)})"
    if isinstance(e, Index):
        return f"{_p(e.base, 13, name)}[{_p(e.index, 0, name)}]"
    if isinstance(e, Member):
        return f"{_p(e.base, 13, name)}{'->' if e.arrow else '.'}{e.name}"
    return f"/* {type(e).__name__} */"
