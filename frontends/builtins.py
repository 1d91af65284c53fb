"""GCC's floating-point builtins, as <math.h> and <float.h> expand their macros (``isnan(x)`` is
``__builtin_isnan (x)``, ``INFINITY`` is ``(__builtin_inff ())``): the same IR from both frontends,
made of operations every ISA table already has, with the values GCC's own code gives.

Classification reads the bits (``BitCast`` to an integer of the float's width): ``isnan``,
``isinf`` (GCC's ``__builtin_isinf_sign``: -1, 1 or 0), ``isfinite``, ``isnormal``, ``signbit``
(``__builtin_signbit`` of a float is its sign bit in place, ``INT_MIN``; of a double, 1: measured with
GCC 12 on x86-64, AArch64 and ppc64le at -O0 and -O2; Clang gives 1 for both, for code Clang compiles:
types.Target.clang_builtins), ``fpclassify``. The comparison macros are the
comparisons themselves (they differ from ``<`` only in the FP exceptions they raise, which expand
does not keep). Constants: ``__builtin_inf[f]``, ``__builtin_huge_val[f]``, ``__builtin_nan[f]``,
``__builtin_nans[f]`` with a literal payload string, and ``nan``/``nanf`` called with one. Bit builtins
(``__builtin_clz``, ``ctz``, ``popcount``, ``bswap`` and their long forms) become integer operations and
exact conversions.
"""

from __future__ import annotations

import math

from expand.ir import types as T
from expand.ir.diagnostics import error
from expand.ir.nodes import Binary, BitCast, Cast, Cond, Const, Coord, Expr, Unary

#: Constant builtins without arguments: name -> (type, value, spelling for the output)
CONSTANTS = {
    "__builtin_inff": (T.FLOAT, math.inf), "__builtin_inf": (T.DOUBLE, math.inf),
    "__builtin_huge_valf": (T.FLOAT, math.inf), "__builtin_huge_val": (T.DOUBLE, math.inf),
}
#: NaN builtins taking a string literal: name -> (type, quiet)
NANS = {"__builtin_nanf": (T.FLOAT, True), "__builtin_nan": (T.DOUBLE, True),
        "__builtin_nansf": (T.FLOAT, False), "__builtin_nans": (T.DOUBLE, False)}
#: Library functions GCC folds as those builtins (glibc's nan("") is the same quiet NaN: newlib's wrappers)
NAN_FUNCTIONS = {"nan": "__builtin_nan", "nanf": "__builtin_nanf"}
CLASSIFY = {"__builtin_isnan": 1, "__builtin_isinf": 1, "__builtin_isinf_sign": 1, "__builtin_isfinite": 1,
            "__builtin_finite": 1, "__builtin_finitef": 1, "__builtin_isnormal": 1, "__builtin_signbit": 1,
            "__builtin_signbitf": 1, "__builtin_fpclassify": 6, "__builtin_isnanf": 1, "__builtin_isinff": 1}
#: Library functions GCC treats as its classification builtins (unless -fno-builtin): the BSD ``isinff``
#: and ``isinf`` functions (not the C99 macro) return -1 for -inf in glibc, but 1 as GCC compiles a
#: call of them; the others agree with the library.
GCC_BUILTIN_FUNCTIONS = {"isinff": "__builtin_isinff", "isinf": "__builtin_isinf", "isnanf": "__builtin_isnanf",
                         "isnan": "__builtin_isnan", "finitef": "__builtin_finitef", "finite": "__builtin_finite"}
COMPARE = {"__builtin_isgreater": ">", "__builtin_isgreaterequal": ">=", "__builtin_isless": "<",
           "__builtin_islessequal": "<=", "__builtin_islessgreater": "<>", "__builtin_isunordered": "unord"}


#: Bit builtins: name -> (operation, operand bits)
BITS = {"__builtin_clz": ("clz", 32), "__builtin_clzl": ("clz", 64), "__builtin_clzll": ("clz", 64),
        "__builtin_ctz": ("ctz", 32), "__builtin_ctzl": ("ctz", 64), "__builtin_ctzll": ("ctz", 64),
        "__builtin_popcount": ("popcount", 32), "__builtin_popcountl": ("popcount", 64),
        "__builtin_popcountll": ("popcount", 64), "__builtin_bswap16": ("bswap", 16),
        "__builtin_bswap32": ("bswap", 32), "__builtin_bswap64": ("bswap", 64)}


def is_math_builtin(name: str) -> bool:
    return name in CONSTANTS or name in NANS or name in CLASSIFY or name in COMPARE or name in BITS


def _u(v: int, t: T.Int) -> Const:
    return Const(t, v, hex(v) if v > 255 else str(v))


def _clz32(x: Expr) -> Expr:
    """Leading zeros of the unsigned int ``x`` (not 0: C leaves that undefined): the exponent of its
    exact conversion to double, ``1054 - (bits >> 52)``."""
    bits = BitCast(T.ULONG, Cast(T.DOUBLE, x))
    return Binary(T.INT, "-", _int(1054), Cast(T.INT, Binary(T.ULONG, ">>", bits, _int(52))))


def _exp2_of_power(x: Expr) -> Expr:
    """log2 of ``x``, an unsigned long that is a power of two: the exponent of its conversion to double."""
    bits = BitCast(T.ULONG, Cast(T.DOUBLE, x))
    return Binary(T.INT, "-", Cast(T.INT, Binary(T.ULONG, ">>", bits, _int(52))), _int(1023))


def bit_builtin(name: str, args: list[Expr], co: Coord | None) -> Expr:
    """``__builtin_clz``/``ctz``/``popcount``/``bswap`` and their long forms, as integer operations every
    ISA has (the count of a zero argument of clz and ctz is undefined in C: any value)."""
    op, n = BITS[name]
    if len(args) != 1 or not isinstance(T.strip_spelling(args[0].type), T.Int):
        raise error(co, f"'{name}' takes one integer argument")
    ut = {16: T.USHORT, 32: T.UINT, 64: T.ULONG}[n]
    x = args[0] if T.strip_spelling(args[0].type) == ut else Cast(ut, args[0])
    if op == "bswap":
        parts = []
        for k in range(n // 8):
            byte = Binary(ut, "&", Binary(ut, ">>", x, _int(8 * k)) if k else x, _u(0xFF, ut))
            j = n // 8 - 1 - k
            parts.append(Binary(ut, "<<", byte, _int(8 * j)) if j else byte)
        out = parts[0]
        for q in parts[1:]:
            out = Binary(ut, "|", out, q)
        return out if n > 16 else Cast(T.INT, out)  # (bswap16's uint16_t result promotes)
    if op == "clz":
        if n == 32:
            return _clz32(x)
        hi = Cast(T.UINT, Binary(T.ULONG, ">>", x, _int(32)))
        lo = Cast(T.UINT, x)
        return Cond(T.INT, Binary(T.INT, "!=", hi, _u(0, T.UINT)), _clz32(hi),
                    Binary(T.INT, "+", _int(32), _clz32(lo)))
    if op == "ctz":
        wide = x if n == 64 else Cast(T.ULONG, x)
        low = Binary(T.ULONG, "&", wide, Unary(T.ULONG, "-", wide))  # the lowest set bit alone
        return _exp2_of_power(low)
    # popcount: the bits summed in pairs, nibbles, then bytes (SWAR)
    m1, m2, m4 = (0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F)
    mask = (1 << n) - 1
    v1 = Binary(ut, "-", x, Binary(ut, "&", Binary(ut, ">>", x, _int(1)), _u(m1 & mask, ut)))
    v2 = Binary(ut, "+", Binary(ut, "&", v1, _u(m2 & mask, ut)),
                Binary(ut, "&", Binary(ut, ">>", v1, _int(2)), _u(m2 & mask, ut)))
    v3 = Binary(ut, "&", Binary(ut, "+", v2, Binary(ut, ">>", v2, _int(4))), _u(m4 & mask, ut))
    return Cast(T.INT, Binary(ut, ">>", Binary(ut, "*", v3, _u(0x0101010101010101 & mask, ut)), _int(n - 8)))


def _int(v: int, t: T.Int = T.INT) -> Const:
    return Const(t, v, str(v) if -256 < v < 256 else hex(v) if v >= 0 else str(v))


def constant(name: str, co: Coord | None) -> Expr:
    t, v = CONSTANTS[name]
    return Const(t, v, f"{name}()")


def nan_constant(name: str, literal: str, co: Coord | None) -> Expr:
    """``__builtin_nan[s][f]("...")``: ``literal`` is the C string literal as written (with its quotes)."""
    t, _ = NANS[name]
    body = literal[1:-1] if len(literal) >= 2 and literal[0] == literal[-1] == '"' else None
    if body is None or not (body == "" or body.isdigit() or (body.lower().startswith("0x") and len(body) > 2
                                                             and all(c in "0123456789abcdefABCDEF" for c in body[2:]))):
        raise error(co, f"'{name}' with a payload other than a literal number is not supported",
                    f"write {name}(\"\") or a literal payload such as {name}(\"0x1\")")
    return Const(t, math.nan, f"{name}({literal})")


def _bits(x: Expr) -> tuple[Expr, T.Int, int]:
    """``x``'s bits as a signed integer of its width, that type, and its bit count."""
    it = T.INT if x.type.size() == 4 else T.LONG
    return BitCast(it, x), it, it.bits


def classify(name: str, args: list[Expr], co: Coord | None, clang: bool = False) -> Expr:
    """A classification builtin on float or double ``args`` (already evaluated, not converted)."""
    want = CLASSIFY[name]
    if len(args) != want:
        raise error(co, f"'{name}' takes {want} argument{'s' if want > 1 else ''}, {len(args)} given")
    x = args[-1]
    xt = T.strip_spelling(x.type)
    if name.endswith("f") and name not in ("__builtin_isinf", "__builtin_isfinite"):
        if xt != T.FLOAT:
            x, xt = Cast(T.FLOAT, x), T.FLOAT
    if not isinstance(xt, T.Float) or xt.bits not in (32, 64):
        raise error(co, f"'{name}' of a value of type '{x.type}' is not supported", "classify a float or a double")
    b, it, n = _bits(x)
    mant = 23 if n == 32 else 52
    inf = (1 << (n - 1)) - (1 << mant)  # exponent all ones, mantissa 0: the infinity's magnitude bits
    absb = Binary(it, "&", b, _int((1 << (n - 1)) - 1, it))

    def cmp(op: str, a: Expr, c: int) -> Expr:
        return Binary(T.INT, op, a, _int(c, it))

    isnan = cmp(">", absb, inf)
    isinf = cmp("==", absb, inf)
    finite = cmp("<", absb, inf)
    normal = Binary(T.INT, "&&", cmp(">=", absb, 1 << mant), cmp("<", absb, inf))
    if name in ("__builtin_isnan", "__builtin_isnanf"):
        return isnan
    if name in ("__builtin_isinf", "__builtin_isinff"):
        return isinf
    if name == "__builtin_isinf_sign":
        return Cond(T.INT, isinf, Cond(T.INT, cmp("<", b, 0), _int(-1), _int(1)), _int(0))
    if name in ("__builtin_isfinite", "__builtin_finite", "__builtin_finitef"):
        return finite
    if name == "__builtin_isnormal":
        return normal
    if name in ("__builtin_signbit", "__builtin_signbitf"):
        if n == 32 and clang:  # Clang: the sign bit shifted down (1), for a float too
            return Cast(T.INT, Binary(T.UINT, ">>", BitCast(T.UINT, x), _int(31, T.INT)))
        if n == 32:  # the sign bit in place (INT_MIN), as GCC gives it
            return Binary(T.INT, "&", b, _int(-(1 << 31)))
        return Cast(T.INT, Binary(T.ULONG, ">>", BitCast(T.ULONG, x), _int(63, T.INT)))
    # fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x)
    nan_v, inf_v, norm_v, sub_v, zero_v = (Cast(T.INT, a) if T.strip_spelling(a.type) != T.INT else a
                                           for a in args[:5])
    return Cond(T.INT, isnan, nan_v, Cond(T.INT, isinf, inf_v, Cond(T.INT, normal, norm_v,
                                                                      Cond(T.INT, cmp("==", absb, 0), zero_v, sub_v))))


def compare(name: str, args: list[Expr], co: Coord | None) -> Expr:
    """``isgreater(x, y)`` and the others: the comparison after the usual arithmetic conversions."""
    if len(args) != 2:
        raise error(co, f"'{name}' takes 2 arguments, {len(args)} given")
    x, y = args
    if not (isinstance(T.strip_spelling(x.type), T.Float) or isinstance(T.strip_spelling(y.type), T.Float)):
        raise error(co, f"'{name}' needs a floating-point argument")
    t = T.usual_arith(x.type, y.type)
    x = x if T.strip_spelling(x.type) == T.strip_spelling(t) else Cast(t, x)
    y = y if T.strip_spelling(y.type) == T.strip_spelling(t) else Cast(t, y)
    op = COMPARE[name]
    if op == "<>":
        return Binary(T.INT, "||", Binary(T.INT, "<", x, y), Binary(T.INT, ">", x, y))
    if op == "unord":
        return Binary(T.INT, "||", Binary(T.INT, "!=", x, x), Binary(T.INT, "!=", y, y))
    return Binary(T.INT, op, x, y)


def math_builtin(name: str, args: list[Expr], co: Coord | None, clang: bool = False) -> Expr:
    """The IR of a call of builtin ``name`` (``is_math_builtin``) with evaluated ``args`` (``clang``: the
    values Clang's builtins give, types.Target.clang_builtins)."""
    if name in CONSTANTS:
        if args:
            raise error(co, f"'{name}' takes no arguments")
        return constant(name, co)
    if name in CLASSIFY:
        return classify(name, args, co, clang)
    if name in COMPARE:
        return compare(name, args, co)
    if name in BITS:
        return bit_builtin(name, args, co)
    raise error(co, f"'{name}' needs a string literal argument")


def libm_alias(name: str) -> tuple[str, T.CType, list[T.CType]] | None:
    """``__builtin_roundf`` and the other ``__builtin_`` spellings of libm functions that are no IR
    operation: (the libm function, its result type, its parameter types), as GCC calls it (or inlines
    it with the same result); else None."""
    from expand.ir.libc import LIBM

    base = name.removeprefix("__builtin_")
    if base == name or base not in LIBM:
        return None
    kinds = {"f32": T.FLOAT, "f64": T.DOUBLE, "i32": T.INT}
    ret, params = LIBM[base]
    return base, kinds[ret], [kinds[k] for k in params]

