"""Calls of libm functions in user code -> vector math libraries (``--vector-math``, issue 10).

A call like ``y = powf(x, 2.0f)`` with a varying argument is, by default, unpacked and made once
per active lane. With a vector math library it becomes one call of the library's vector function
per register (EXPAND's "calls to math functions reach native vector versions"):

* ``expand`` (the default of the command line): mathlib's vector libm (``python -m mathlib.libm``),
  glibc 2.36's own sources expanded for every ISA, so results are bit-exact with the scalar glibc
  source. Entry points ``_Exp_<name>_<isa>`` (``_Exp_powf_avx2(__m256, __m256)``) and, for calls
  under a mask, ``_Exp_<name>_<isa>_masked(mask, ...)`` (inactive lanes compute nothing: no errno,
  no error-helper call). Also the exact fallback of ``Isa.math`` (``floorf`` on ``generic``).
* ``libmvec``: glibc's libmvec (x86-64 only), by its vector function ABI names (``_ZGVdN8v_logf``);
  documented error up to 4 ULP.
* ``sleef``: SLEEF 3.5 (``Sleef_logf8_u10avx2``): the 1.0-ULP (u10) versions where SLEEF has
  several, its exact ones (floor, fabs, fmin, ...) as they are.
* ``none``: per-lane calls.

A comma-separated list is an order of preference (``expand,sleef``: ours where we have the
function, SLEEF for the rest). ``libmvec`` and ``sleef`` change results: ``ulp_bound`` gives the
bound ``--verify`` then checks (the library's documented bound plus the scalar reference's own error:
``GLIBC_ULP``, at least 1 ULP). Which names and types a library has per ISA comes from the tables
(``Isa.libmvec``, ``Isa.sleef_suffix``, ``Isa.vector_call``) and expand/abi.py (ABI names).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from expand import abi
from expand.ir.libc import LIBM

MODES = ("expand", "libmvec", "sleef", "none")

#: The functions of mathlib's vector libm (glibc 2.36's flt-32 sources and our sqrtf: mathlib/libm.py), the
#: first 14 as issue 10 made it, then issue 18's.
EXPANDM_FUNCTIONS: tuple[str, ...] = (
    "isinff", "finitef", "fabsf", "isnanf", "copysignf", "truncf", "ceilf", "scalbnf", "floorf", "roundf",
    "logf", "powf", "log2f", "sqrtf",
    "expf", "exp2f", "exp10f", "log10f", "sinf", "cosf", "sincosf", "tanf", "atanf", "atan2f", "asinf", "acosf",
    "sinhf", "coshf", "tanhf", "cbrtf", "hypotf", "erff", "erfcf", "expm1f", "log1pf", "acoshf", "asinhf", "atanhf",
    "fmodf", "remainderf", "rintf", "nearbyintf", "roundevenf", "nextafterf", "nextupf", "logbf", "ilogbf")

#: The functions the library lacks on an architecture, where expand cannot take what glibc's own headers
#: make of their sources there (a built library's manifest gives each unit's diagnostic under
#: "missing"; tests/test_libm_functions.py checks this table against a build). On POWER glibc's
#: powerpc fenv_private.h does not compile s_nearbyintf.c with glibc's flags (an implicit declaration of
#: libc_feholdexcept_ppc). (AArch64's __MATH_TG with a long double arm is read since 950cf0a; POWER's
#: include/time.h helpers, which no function calls, are not read since expand lowers only what it reaches.)
EXPANDM_UNAVAILABLE: dict[str, frozenset[str]] = {
    "aarch64": frozenset(),
    "ppc64le": frozenset(("nearbyintf",)),
}


#: glibc 2.36 libmvec (x86-64): the functions with variants, float and double (``nm -D libmvec.so.1``)
LIBMVEC_FUNCTIONS = frozenset(
    f"{n}{s}" for s in ("f", "") for n in (
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "cos", "cosh", "erf", "erfc", "exp",
        "exp10", "exp2", "expm1", "hypot", "log", "log10", "log1p", "log2", "pow", "sin", "sinh", "tan", "tanh"))
#: glibc's manual: "the vector math functions ... have a maximum error of 4 ULP"
LIBMVEC_ULP = 4.0

#: SLEEF 3.5: libm name (without the f/d of the type) -> the accuracy tag of the version used
#: (u10 = 1.0 ULP, u15, u05, u35; "" = exact, e.g. Sleef_floorf8_avx2)
SLEEF_FUNCTIONS: dict[str, str] = {
    **{n: "u10" for n in ("acos", "asin", "atan", "atan2", "atanh", "cbrt", "cos", "cosh", "erf",
                          "exp", "exp10", "exp2", "expm1", "lgamma", "log", "log10", "log1p", "log2", "pow", "sin",
                          "sinh", "tan", "tanh", "tgamma")},
    "erfc": "u15", "hypot": "u05",
    **{n: "" for n in ("ceil", "copysign", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "nextafter", "rint",
                       "round", "sqrt", "trunc")},
}
# (Not fmod and remainder: SLEEF 3.5's are NaN where |x / y| is large, fmodf(0x1.f2126cp+125,
# 0x1.52ed48p-90) for one, where libm's are exact: tests/fuzz_regressions/sleef_fmod.c. Not asinh and
# acosh: SLEEF's bound holds for |x| up to 1.84e19 (float) and 1.34e154 (double), its documentation says,
# and beyond they are infinite, asinhf(2e19) for 45.1: tests/fuzz_regressions/sleef_asinh_large.c.)


def sleef_ulp(tag: str) -> float:
    """The documented bound of a SLEEF accuracy tag (``u10`` -> 1.0 ULP; ``""`` -> 0: exact)."""
    return int(tag[1:]) / 10 if tag else 0.0


#: glibc 2.36's own error of its scalar functions where above 1 ULP: the largest round-to-nearest entry
#: of sysdeps/{x86_64/fpu,aarch64,powerpc/fpu}/libm-test-ulps for the functions above (test_libm.py reads
#: the files against this table). cbrt's 4: dbl-64 s_cbrt.c is a polynomial and one Newton step.
GLIBC_ULP: dict[str, int] = {
    "acosh": 2, "acoshf": 2, "asinh": 2, "asinhf": 2, "atan2f": 2, "atanh": 2, "atanhf": 2, "cbrt": 4, "cosf": 3,
    "cosh": 2, "coshf": 2, "erfc": 5, "erfcf": 3, "exp10": 2, "lgamma": 4, "lgammaf": 7, "log10": 2, "log10f": 2,
    "log2": 2, "sinh": 2, "sinhf": 2, "tanf": 3, "tanh": 2, "tanhf": 2, "tgamma": 9, "tgammaf": 8,
}


def verify_bound(ulp: float, name: str) -> int:
    """The ULP difference ``--verify`` accepts between a vector function documented within ``ulp`` of the
    exact result and the scalar libm's ``name``: that plus the scalar reference's own error (GLIBC_ULP,
    at least 1 ULP); 0 for exact functions."""
    return math.floor(ulp + max(1, GLIBC_ULP.get(name, 1))) if ulp else 0


def isa_tag(isa) -> str:
    """The ISA part of mathlib's names: ``sse41`` for ``sse4.1``."""
    return isa.name.replace(".", "")


def expandm_symbol(name: str, isa, masked: bool = False) -> str:
    """mathlib's entry point of ``name`` on ``isa``: ``_Exp_logf_avx2`` (``..._masked``)."""
    return f"_Exp_{name}_{isa_tag(isa)}{'_masked' if masked else ''}"


@dataclass(frozen=True)
class VectorFunction:
    """One vector version of a libm function: what to call, on how many lanes, and how exact."""

    provider: str
    name: str
    symbol: str
    masked: str | None
    simdlen: int
    ulp: float  # documented bound against the exact result (0: bit-exact with the scalar source)


@dataclass
class LinkNeeds:
    """What ``--verify`` (or a user's link) needs for the calls an output makes."""

    link_files: list[Path] = field(default_factory=list)
    libs: list[str] = field(default_factory=list)
    ulp_bound: int | None = None  # None: bit for bit


def parse_modes(text: str) -> list[str]:
    """``"expand,sleef"`` -> ``["expand", "sleef"]`` (``none`` alone: ``[]``); ValueError if unknown."""
    modes = [m.strip() for m in text.split(",") if m.strip()]
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise ValueError(f"--vector-math takes {', '.join(MODES)} or a comma-separated list of them, "
                         f"not {text!r}")
    if "none" in modes and len(modes) > 1:
        raise ValueError("--vector-math none cannot be combined with a library")
    return [m for m in modes if m != "none"]


def _natural_lanes(isa) -> int:
    return type(isa).default_lanes


class VectorMath:
    """The vector math libraries an output calls (``modes`` in order of preference).

    ``lib_dir``: a mathlib library (``python -m mathlib.libm --out DIR``) whose manifest says which
    functions it has per ISA; without one, the default function list (built on demand by ``link``).
    ``exclude``: names that are not libm's (functions the input defines, ``--expandable`` ones)."""

    def __init__(self, modes: Sequence[str], lib_dir: Path | None = None, exclude: Collection[str] = ()) -> None:
        self.modes = list(modes)
        self.lib_dir = Path(lib_dir) if lib_dir is not None else None
        self.exclude = set(exclude)
        self.used: dict[tuple[str, str], VectorFunction] = {}  # (isa name, libm name) -> what was called
        self._manifest: dict | None = None
        if self.lib_dir is not None and "expand" in self.modes:
            path = self.lib_dir / "expandm.json"
            try:
                self._manifest = json.loads(path.read_text())
            except (OSError, ValueError) as exc:
                raise ValueError(f"--vector-math-lib {self.lib_dir}: no mathlib library there ({path}: {exc})") \
                    from None

    def for_module(self, exclude: Collection[str]) -> VectorMath:
        """This library for one input: also excluding ``exclude`` (its own functions); shares ``used``."""
        vm = VectorMath.__new__(VectorMath)
        vm.__dict__.update(self.__dict__)
        vm.exclude = self.exclude | set(exclude)
        return vm

    # ------------------------------------------------------------------ lookup
    def _expandm_has(self, name: str, isa) -> bool:
        arch = isa.arch or _host_arch()
        if self._manifest is None:
            return name in EXPANDM_FUNCTIONS and name not in EXPANDM_UNAVAILABLE.get(arch, ())
        unit = f"{arch}/{isa.name}"
        return name in self._manifest.get("units", {}).get(unit, {}).get("functions", [])

    def lookup(self, isa, name: str, ret_k: str, arg_ks: Sequence[str], exact_only: bool = False) \
            -> VectorFunction | None:
        """The preferred vector version of libm function ``name`` (``__builtin_`` spellings too) with
        these lane kinds on ``isa``, or None."""
        name = name.removeprefix("__builtin_")
        if name in self.exclude or LIBM.get(name) != (ret_k, tuple(arg_ks)):
            return None
        for mode in self.modes:
            f = self._provider(mode, isa, name, ret_k, arg_ks)
            if f is not None and (f.ulp == 0 or not exact_only):
                return f
        return None

    def _provider(self, mode: str, isa, name: str, ret_k: str, arg_ks: Sequence[str]) -> VectorFunction | None:
        base = name[:-1] if ret_k == "f32" or arg_ks[0] == "f32" else name
        k = arg_ks[0]
        if mode == "expand":
            if not self._expandm_has(name, isa):
                return None
            return VectorFunction(mode, name, expandm_symbol(name, isa), expandm_symbol(name, isa, True),
                                  _natural_lanes(isa), 0.0)
        if mode == "libmvec":
            if not isa.libmvec or name not in LIBMVEC_FUNCTIONS or any(a != k for a in arg_ks):
                return None
            reg = abi.register_variant(isa, k, len(arg_ks), name)
            return None if reg is None else VectorFunction(mode, name, reg[0], None, reg[1], LIBMVEC_ULP)
        if mode == "sleef":
            tag = SLEEF_FUNCTIONS.get(base)
            reg_bits = getattr(isa, "reg_bits", None)
            if isa.sleef_suffix is None or tag is None or reg_bits is None or any(a != k for a in arg_ks):
                return None
            simdlen = reg_bits // int(k[1:])
            t = "f" if k == "f32" else "d"
            symbol = f"Sleef_{base}{t}{simdlen}_{tag}{isa.sleef_suffix}"
            return VectorFunction(mode, name, symbol, None, simdlen, sleef_ulp(tag))
        return None

    # ------------------------------------------------------------------ printing (emit/printer.py, Isa.math)
    def call(self, isa, name: str, ret_k: str, arg_ks: Sequence[str], args: Sequence[str],
             mask: str | None = None, exact_only: bool = False) -> str | None:
        """C for the vector call of ``name`` on the gangs ``args`` (under ``mask``), or None: no library
        has it for this ISA and gang size (the caller then calls it per lane)."""
        f = self.lookup(isa, name, ret_k, arg_ks, exact_only)
        if f is None:
            return None
        text = isa.vector_call(f.symbol, f.masked, f.simdlen, ret_k, arg_ks, args, mask)
        if text is not None:
            self.used[(isa.name, f.name)] = f
        return text

    def has_stores(self, isa, name: str) -> bool:
        """mathlib has ``name``, a function returning its results through pointers (``sincosf``), for the
        gangs of ``isa`` (only mathlib has such functions with entry points of this shape)."""
        return "expand" in self.modes and name not in self.exclude and self._expandm_has(name, isa) \
            and isa.lanes == _natural_lanes(isa)

    def stores_call(self, isa, name: str, k: str, arg: str, outs: Sequence[str], mask: str | None) -> str | None:
        """C for mathlib's vector ``name`` (``sincosf``) on the gang ``arg`` of kind ``k``, storing its results
        in the vectors ``outs`` point to (under ``mask``: only the active lanes), or None."""
        if not self.has_stores(isa, name):
            return None
        text = isa.vector_call_stores(expandm_symbol(name, isa), expandm_symbol(name, isa, True), k, arg, outs,
                                      mask)
        if text is not None:
            self.used[(isa.name, name)] = VectorFunction("expand", name, expandm_symbol(name, isa),
                                                         expandm_symbol(name, isa, True), isa.lanes, 0.0)
        return text

    def math(self, isa, op: str, k: str, args: Sequence[str]) -> str | None:
        """An exact library version of the libm operation ``op`` (``Isa.math``'s fallback), or None."""
        name = f"{op}{'f' if k == 'f32' else ''}"
        if name not in LIBM:
            return None
        return self.call(isa, name, k, LIBM[name][1], args, None, exact_only=True)

    # ------------------------------------------------------------------ linking
    def link(self, isa, build: Callable[[list[str], list[str]], Path] | None = None) -> LinkNeeds:
        """What linking the output for ``isa`` needs: mathlib's archives (``lib_dir``, else built on demand
        by ``build``: ``mathlib.libm.ensure``, which builds into a cache), ``-lmvec``, ``-lsleef``, and the
        ULP bound for ``--verify``."""
        used = [f for (i, _), f in self.used.items() if i == isa.name]
        needs = LinkNeeds()
        mine = sorted({f.name for f in used if f.provider == "expand"})
        if mine:
            lib = self.lib_dir
            if lib is None:
                if build is None:
                    raise ValueError("the output calls mathlib's vector libm: build it (python -m mathlib.libm) "
                                     "and give --vector-math-lib")
                lib = build([isa.name], mine)
            arch = isa.arch or _host_arch()
            needs.link_files += [lib / "lib" / arch / "libexpandm_scalar.a", lib / "lib" / arch / "libexpandm.a"]
        if any(f.provider == "libmvec" for f in used):
            needs.libs.append("mvec")
        if any(f.provider == "sleef" for f in used):
            needs.libs.append("sleef")
        others = [f for f in used if f.provider != "expand"]
        if others:
            needs.ulp_bound = max(verify_bound(f.ulp, f.name) for f in others)
        return needs


def _host_arch() -> str:
    import platform
    m = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64", "ppc64el": "ppc64le"}.get(m, m)
