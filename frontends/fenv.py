"""The floating-point environment as real libm code touches it (glibc's ``fenv_private.h``).

glibc's functions save the caller's environment, switch to round-to-nearest for their arithmetic and
restore the environment on the way out: ``SET_RESTORE_ROUND (FE_TONEAREST)`` (a local
``struct rm_ctx ctx __attribute__ ((cleanup (...)))`` and a call that fills it),
``libc_feholdexcept_setround (&env, FE_TONEAREST)`` ... ``libc_fesetenv (&env)``,
``libc_feholdexcept (&env)`` ... ``libc_feupdateenv (&env)``, and they raise or clear exception flags
(``feraiseexcept``, ``feclearexcept``).  Expand's output computes in the caller's rounding mode and
does not keep exception flags (vector operations raise them for inactive lanes too), so:

- saving and restoring the environment and raising or clearing flags change no value: dropped;
- a request for round-to-nearest (``FE_TONEAREST``, 0 on every target expand has) is what the output
  gives when the caller runs in round-to-nearest, the default: dropped, and the output's header says
  that it assumes it;
- any other rounding mode, reading the rounding mode or the flags (``fetestexcept``,
  ``libc_feupdateenv_test``, ``fegetround``): a diagnostic, as is a local of the environment's types
  used in any other way, and any other ``__attribute__ ((cleanup))``.

The frontends call :func:`operation` with a called function's name and act on the answer.
"""

from __future__ import annotations

#: Types of locals that only hold a saved environment (a typedef name, a struct tag)
ENV_TYPEDEFS = frozenset({"fenv_t", "femode_t", "fexcept_t"})
ENV_TAGS = frozenset({"rm_ctx"})
#: What each operation does, after :func:`operation`'s normalization of the name
KEEP_ENV = "environment"  # saves or restores the environment, raises or clears flags: no value changes
NEAREST = "round to nearest"  # also sets the rounding mode from its last argument: FE_TONEAREST only
READS = "reads"  # its value depends on the environment: cannot be vectorized
SETS = "sets"  # changes the caller's environment for good: cannot be vectorized
_OPERATIONS = {
    "feholdexcept": KEEP_ENV, "fesetenv": KEEP_ENV, "feupdateenv": KEEP_ENV, "feclearexcept": KEEP_ENV,
    "feraiseexcept": KEEP_ENV, "feresetround": KEEP_ENV, "feresetround_noex": KEEP_ENV,
    "feholdexcept_setround": NEAREST, "feholdsetround": NEAREST, "feholdsetround_noex": NEAREST,
    "feholdexcept_setround_53bit": NEAREST, "feholdsetround_53bit": NEAREST,
    "feresetround_53bit": KEEP_ENV,
    "fetestexcept": READS, "feupdateenv_test": READS, "fegetround": READS, "fegetenv": READS,
    "fegetexceptflag": READS, "fetestexceptflag": READS, "fegetexcept": READS, "fegetmode": READS,
    "fesetround": SETS, "fesetexceptflag": SETS, "feenableexcept": SETS, "fedisableexcept": SETS,
    "fesetmode": SETS, "fesetexcept": SETS,
}
#: Machine suffixes of glibc's per-target versions (libc_feholdexcept_sse, ..._aarch64_ctx, ...)
_SUFFIXES = ("_ctx", "_sse", "_387", "_aarch64", "_ppc", "_vsx", "_mips", "_riscv", "_arm", "_vfp")
#: The value of FE_TONEAREST on every target expand has (x86-64, AArch64, POWER, RISC-V)
FE_TONEAREST = 0
#: The other rounding modes' values per target (glibc's bits/fenv.h), to name them in diagnostics
_MODES = {
    "x86_64": {0x400: "FE_DOWNWARD", 0x800: "FE_UPWARD", 0xC00: "FE_TOWARDZERO"},
    "aarch64": {0x400000: "FE_UPWARD", 0x800000: "FE_DOWNWARD", 0xC00000: "FE_TOWARDZERO"},
    "powerpc64le": {1: "FE_TOWARDZERO", 2: "FE_UPWARD", 3: "FE_DOWNWARD"},
    "riscv64": {1: "FE_TOWARDZERO", 2: "FE_DOWNWARD", 3: "FE_UPWARD"},
}


def mode_name(value: int, triple: str) -> str:
    """``FE_TOWARDZERO`` for the value of a rounding mode on the target ``triple`` (``cc -dumpmachine``;
    "" for the host, x86-64), else the value in hex."""
    return _MODES.get(triple.split("-")[0] or "x86_64", {}).get(value, f"{value:#x}")


def operation(name: str) -> tuple[str, str] | None:
    """(what the call does, its base name) when ``name`` is an environment function: C's ``fe*`` of
    <fenv.h> (and their ``__`` forms) or glibc's internal ``libc_fe*`` (with ``default_``, a machine
    suffix, ``_ctx``, an ``f``/``l`` type suffix); else None."""
    base = name
    libc = False
    for prefix in ("default_", "__"):
        base = base.removeprefix(prefix)
    if base.startswith("libc_"):
        base, libc = base.removeprefix("libc_"), True
    if not base.startswith("fe"):
        return None
    changed = True
    while changed:
        changed = False
        for suffix in _SUFFIXES:
            if base.endswith(suffix) and base != suffix:
                base, changed = base[: -len(suffix)], True
    for cand in (base, base[:-1] if libc and base[-1:] in ("f", "l") else None):
        if cand in _OPERATIONS:
            return _OPERATIONS[cand], cand
    return None


def is_env_type_name(typedef: str | None = None, tag: str | None = None) -> bool:
    """Whether a local of this typedef name or struct tag only holds a saved environment."""
    return (typedef in ENV_TYPEDEFS) or (tag in ENV_TAGS)


ASSUMPTION = ("the floating-point environment: expand dropped the function's saving, restoring and "
              "round-to-nearest requests (glibc's SET_RESTORE_ROUND, libc_fe*): the output gives the "
              "scalar function's results when called in round-to-nearest (the default) and does not "
              "keep exception flags")


#: How deep such a statement's statements and expressions nest at most (glibc's nest a few levels)
FORCE_EVAL_DEPTH = 24
#: Builtins without side effects that statements evaluated only for their exceptions call (glibc's fabs_tg,
#: min_of_type, issignaling): frontends/force_eval.py and the clang frontend's ``exception_only``
PURE_BUILTINS = ("__builtin_fabs", "__builtin_copysign", "__builtin_isnan", "__builtin_isinf", "__builtin_isfinite",
                 "__builtin_isnormal", "__builtin_signbit", "__builtin_fpclassify", "__builtin_isgreater",
                 "__builtin_isless", "__builtin_islessgreater", "__builtin_isunordered", "__builtin_types_compatible_p",
                 "__builtin_expect", "__builtin_inf", "__builtin_huge_val", "__builtin_nan")


def force_eval_assumption(places: list[str]) -> str:
    """What the output's header says of statements evaluated only for their floating-point exceptions that
    the frontend dropped at ``places`` (``file:line``; frontends/force_eval.py)."""
    return ("evaluations made only for the floating-point exceptions they raise (glibc's math_force_eval and "
            "math_check_force_underflow, musl's FORCE_EVAL: an empty asm statement or a volatile local that reads "
            f"them) are dropped ({', '.join(dict.fromkeys(places))}): the output does not raise those exceptions")
