"""The C library as the IR sees it: math.h's signatures, errno, and the pseudo-calls that passes leave
for the printer (a global write, sqrt's EDOM)."""

from __future__ import annotations

_UNARY = ("acos", "acosh", "asin", "asinh", "atan", "atanh", "cbrt", "ceil", "cos", "cosh", "erf", "erfc", "exp",
          "exp10", "exp2", "expm1", "fabs", "floor", "lgamma", "log", "log10", "log1p", "log2", "logb", "nearbyint",
          "nextup", "rint", "round", "roundeven", "sin", "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc")


_BINARY = ("atan2", "copysign", "fdim", "fmax", "fmin", "fmod", "hypot", "nextafter", "pow", "remainder")


def _signatures() -> dict[str, tuple[str, tuple[str, ...]]]:
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    for k, sfx in (("f32", "f"), ("f64", "")):
        out.update({f"{n}{sfx}": (k, (k,)) for n in _UNARY})
        out.update({f"{n}{sfx}": (k, (k, k)) for n in _BINARY})
        out[f"fma{sfx}"] = (k, (k, k, k))
        out[f"scalbn{sfx}"] = (k, (k, "i32"))
        out[f"ldexp{sfx}"] = (k, (k, "i32"))
        out[f"ilogb{sfx}"] = ("i32", (k,))
    out.update({n: ("i32", ("f32",)) for n in ("isinff", "isnanf", "finitef")})
    return out


#: libm function -> (result kind, parameter kinds), as math.h declares them
LIBM: dict[str, tuple[str, tuple[str, ...]]] = _signatures()


ERRNO = "errno"


#: ``WRITE(g, v)``: the active lanes assign ``v`` to global ``g`` (a ``Var``).
WRITE = "__expand_global_write"


#: ``MATH_ERRNO(c)``: the active lanes where ``c`` holds set errno to EDOM (a sqrt of a negative number).
MATH_ERRNO = "__expand_math_errno"


PSEUDO = (WRITE, MATH_ERRNO)


#: What errno holds around a lane's call while the vector code watches for the call's write: no
#: errno value (those are positive), nor a verifier's pattern.
UNSET = "-0x45585041"


#: libm functions that never set errno (with their ``f`` and ``l`` forms and ``__builtin_`` spellings)
_ERRNO_FREE = ("fabs", "copysign", "floor", "ceil", "trunc", "round", "roundeven", "rint", "nearbyint", "fmin",
               "fmax", "fma", "modf", "frexp", "nan", "isinf", "isnan", "finite", "signbit", "issignaling",
               "__isinf", "__isnan", "__finite", "__signbit", "__issignaling")


def libm_name(func: str) -> str:
    """``func`` without GCC's ``__builtin_`` prefix."""
    return func.removeprefix("__builtin_")


#: libm functions GCC's builtins take to leave errno alone (its builtins.def declares them without
#: errno: C lets them set none), though glibc's sin, cos and tan set EDOM for an infinity: GCC folds
#: a read of errno right after such a call to the value before it (with their ``f`` forms; checked
#: with GCC 12 on x86-64, aarch64 and ppc64le at -O2).
_ERRNO_HIDDEN = ("asinh", "atan", "cbrt", "cos", "erf", "sin", "tan", "tanh")


#: libm functions with out-parameters GCC takes to store through them only (no errno), though glibc's
#: set EDOM for an infinity: their C prototypes (a lane's call goes through a pointer as above).
STORES_ERRNO_HIDDEN: dict[str, str] = {
    "sincos": "void ({})(double, double *, double *)", "sincosf": "void ({})(float, float *, float *)"}


#: libm functions GCC makes a call of in place of other builtins' calls (at -O2, without -ffast-math): sin
#: and cos of one argument become one sincos. Such a function's own definition written with those calls
#: (newlib's ``sincosf``: ``*s = sinf (x); *c = cosf (x);``) would call itself: name -> the builtins to turn off.
COMBINED_INTO: dict[str, tuple[str, ...]] = {
    "sincos": ("sin", "cos"), "sincosf": ("sinf", "cosf"), "sincosl": ("sinl", "cosl")}


def errno_hidden(func: str) -> bool:
    """GCC takes a call of ``func`` to set no errno, which the library's may (a call through a pointer
    GCC cannot see through shows the write: emit/printer.py)."""
    name = libm_name(func)
    return name in LIBM and any(name in (b, b + "f") for b in _ERRNO_HIDDEN)


def may_set_errno(func: str) -> bool:
    """A call of ``func`` may set errno: anything but libm's errno-free functions (and expand's own
    ``WRITE``/``MATH_ERRNO``, which are tracked writes, not calls)."""
    name = libm_name(func)
    if func in PSEUDO:
        return False
    return not any(name in (b, b + "f", b + "l") for b in _ERRNO_FREE)
