"""The kernel suite (issues 19 and 25): nine kernels in the style of ispc's examples, each a scalar C function
of one instance (one pixel, option or grid point) that a driver loop calls, and its hand-written
intrinsics anchor.

    python -m mathlib.suite        # the kernels, their sources and what expand makes of them

=============  =========================================  ===========================================
kernel         what                                       the instance
=============  =========================================  ===========================================
mandelbrot     escape time, 256 iterations at most        a pixel; a gang = consecutive pixels of a row
noise          8 octaves of Perlin noise (tables)         a pixel
black_scholes  Black-Scholes call (expf, logf, sqrtf)     an option; a gang = consecutive options
binomial       American put, 64-node local array          an option
aobench        ambient occlusion (structs, nested loops)  a pixel
stencil        25-point 3D wave-equation step             a grid point; a gang = consecutive x
rt             primary rays through a BVH (local stack)   a pixel
volume         ray marching a density grid (expf, powf)   a pixel
deferred       deferred shading, a light list (powf)      a pixel
=============  =========================================  ===========================================

The scalar sources are ``mathlib/kernels/<name>.c`` (their header comments say which ispc example
each follows); the per-instance function carries ``#pragma omp declare simd uniform(...) linear(...)``
(the frame and arrays uniform, the index of the instance linear), which both expand and GCC read.
The anchors, ``mathlib/kernels/anchor/<name>.c``, define ``anchor_<name>`` with the signature of
expand's vector function (``_Exp_<name>``: uniform and linear parameters as plain scalars) and
compute one gang the way ispc compiles the kernel (``mathlib/kernels/anchor/simd.h``).

Each ``Kernel`` also says how its driver runs it (``mathlib.kbench``: the loops, the arrays and their
initial values, the sizes of a full and of a quick run), which outputs are compared with the scalar
run and how closely the columns that may round differently must match (``Tolerance``), the
parameter ranges ``--verify`` needs (``bounds``: indices that stay inside the arrays
``expand.check.verify`` gives uniform pointers), and, for a kernel expand cannot expand yet, the
diagnostic it gives (``diagnostic``): tests/test_kernel_suite.py holds both.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from expand.check.verify import Param
from expand.ir import types as T

from .corpus import CorpusFunction

KERNELS_DIR = Path(__file__).resolve().parent / "kernels"
ANCHOR_DIR = KERNELS_DIR / "anchor"


@dataclass(frozen=True)
class Array:
    """A global array of the driver: ``ctype name[size]``, element ``k`` starting as ``init`` (a C
    expression of ``k``; ``kb_unit(k, salt)`` is a deterministic value in [0, 1)). ``output``:
    compared with the scalar run's, and set back to its initial values before each check run."""

    name: str
    ctype: str
    size: str
    init: str
    output: bool = False


@dataclass(frozen=True)
class Tolerance:
    """How close a column that need not be bit-exact (GCC ``-O3 -ffast-math`` with libmvec, GCC's
    clones) must come to the scalar run: an element matches when ``|got - want| <= abs + rel *
    |want|``; ``frac`` of the elements may miss that (kernels whose outputs are chaotic in the
    inputs: one rounding changes a Mandelbrot pixel's escape count)."""

    rel: float
    abs: float
    frac: float = 0.0

    def text(self) -> str:
        out = f"|d| <= {self.abs:g} + {self.rel:g} |ref|"
        return out + (f" on all but {self.frac:.1%} of the elements" if self.frac else "")


@dataclass(frozen=True)
class Kernel:
    """One kernel of the suite and how the benchmark drives it."""

    name: str
    what: str
    #: the driver's uniform loops, outermost first: (variable, first, end) as C expressions
    outer: tuple[tuple[str, str, str], ...]
    #: the gang loop: (variable, first, end); end - first is a multiple of 16 at both sizes
    inner: tuple[str, str, str]
    #: the arguments of one call, in C (the loop variables, the arrays, the ``scalars`` and the ``sizes``)
    args: str
    arrays: tuple[Array, ...]
    #: uniform scalars of the driver: (C type, name, C initializer)
    scalars: tuple[tuple[str, str, str], ...] = ()
    #: size macros: name -> (full run, quick run)
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: what one element (one call) is, for the tables
    unit: str = "pixel"
    tolerance: Tolerance = Tolerance(1e-4, 1e-5)
    #: --verify ranges of integer parameters (indices into the arrays verify gives uniform pointers)
    bounds: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: expand's diagnostic on this kernel today (None: it expands and verifies)
    diagnostic: str | None = None

    @property
    def source(self) -> Path:
        return KERNELS_DIR / f"{self.name}.c"

    @property
    def anchor(self) -> Path:
        return ANCHOR_DIR / f"{self.name}.c"

    @property
    def func(self) -> str:
        return self.name

    def corpus_function(self) -> CorpusFunction:
        return CorpusFunction(self.name, self.source, self.func, [KERNELS_DIR], [], ["m"], dict(self.bounds))

    def elements(self, quick: bool) -> int:
        """Calls of the per-instance function per run of the driver."""
        n = 1
        for _, lo, hi in (*self.outer, self.inner):
            n *= self.extent(lo, hi, quick)
        return n

    def extent(self, lo: str, hi: str, quick: bool) -> int:
        env = {k: v[1 if quick else 0] for k, v in self.sizes.items()}
        return int(eval(hi, {}, env)) - int(eval(lo, {}, env))  # (size macros and integers only)

    def signature(self) -> list[tuple[str, str, str]]:
        """(C type, name, shape) of each parameter of the per-instance function, from its source."""
        return signature(self.source.read_text(), self.func)

    def params(self) -> list[Param]:
        """``expand.check.verify`` parameters of the per-instance function (for an anchor's check)."""
        return [Param(name, ctype_of(ct), shape) for ct, name, shape in self.signature()]


_CTYPES = {"int": T.INT, "float": T.FLOAT}


def ctype_of(spelling: str) -> T.CType:
    """``int``, ``float``, ``int *``, ``const float *`` as expand's types."""
    words = spelling.replace("*", " * ").split()
    const = "const" in words
    words = [w for w in words if w != "const"]
    t = _CTYPES[words[0]]
    for _ in words[1:]:
        t = T.Pointer(t, const=const)
    return t


def signature(text: str, func: str) -> list[tuple[str, str, str]]:
    """(C type, name, shape) of ``func``'s parameters: its definition and the ``#pragma omp declare
    simd`` line above it (``uniform``/``linear``; a parameter it does not name is varying)."""
    m = re.search(rf"#pragma omp declare simd([^\n]*)\n\s*void\s+{re.escape(func)}\s*\(([^)]*)\)", text)
    if not m:
        raise ValueError(f"no '#pragma omp declare simd' definition of {func}")
    shapes: dict[str, str] = {}
    for clause, names in re.findall(r"(uniform|linear)\(([^)]*)\)", m.group(1)):
        shapes.update((n.strip(), clause) for n in names.split(","))
    out = []
    for p in m.group(2).split(","):
        pm = re.fullmatch(r"\s*(.*?)\s*(\w+)\s*", p, re.S)
        assert pm, p
        out.append((" ".join(pm.group(1).split()), pm.group(2), shapes.get(pm.group(2), "varying")))
    return out


#: Random options (the same for every option would make every lane take the same path): spot S and
#: strike X in [50, 150], expiry T in [0.25, 2] years, rate r in [1%, 5%], volatility v in [10%, 60%].
_OPTIONS = (
    Array("sa", "float", "N_OPTIONS", "50.0f + 100.0f * kb_unit(k, 1)"),
    Array("xa", "float", "N_OPTIONS", "50.0f + 100.0f * kb_unit(k, 2)"),
    Array("ta", "float", "N_OPTIONS", "0.25f + 1.75f * kb_unit(k, 3)"),
    Array("ra", "float", "N_OPTIONS", "0.01f + 0.04f * kb_unit(k, 4)"),
    Array("va", "float", "N_OPTIONS", "0.1f + 0.5f * kb_unit(k, 5)"),
    Array("result", "float", "N_OPTIONS", "0.0f", output=True),
)

KERNELS: tuple[Kernel, ...] = (
    Kernel("mandelbrot", "escape time of z -> z^2 + c, at most 256 iterations ([-2, 1] x [-1, 1])",
           outer=(("j", "0", "HEIGHT"),), inner=("i", "0", "WIDTH"),
           args="x0, y0, dx, dy, WIDTH, MAX_ITERATIONS, output, j, i",
           arrays=(Array("output", "int", "WIDTH * HEIGHT", "0", output=True),),
           scalars=(("float", "x0", "-2.0f"), ("float", "y0", "-1.0f"), ("float", "dx", "3.0f / WIDTH"),
                    ("float", "dy", "2.0f / HEIGHT")),
           sizes={"WIDTH": (768, 128), "HEIGHT": (512, 64), "MAX_ITERATIONS": (256, 256)},
           # -ffast-math contracts z_re * z_re + z_im * z_im: a pixel on the boundary escapes an
           # iteration earlier or later, anywhere in the count's range
           tolerance=Tolerance(0.0, 0.0, 0.01),
           bounds={"width": (0, 8), "j": (0, 7), "max_iterations": (-16, 256)}),
    Kernel("noise", "turbulence: 8 octaves of Perlin noise ([-10, 10]^2, z = 0.6)",
           outer=(("j", "0", "HEIGHT"),), inner=("i", "0", "WIDTH"),
           args="x0, y0, dx, dy, WIDTH, output, j, i",
           arrays=(Array("output", "float", "WIDTH * HEIGHT", "0.0f", output=True),),
           scalars=(("float", "x0", "-10.0f"), ("float", "y0", "-10.0f"), ("float", "dx", "20.0f / WIDTH"),
                    ("float", "dy", "20.0f / HEIGHT")),
           sizes={"WIDTH": (768, 128), "HEIGHT": (512, 64)},
           tolerance=Tolerance(1e-3, 1e-4),
           bounds={"width": (0, 8), "j": (0, 7)}),
    Kernel("black_scholes", "European call price, Black-Scholes (expf x3, logf, sqrtf)",
           outer=(), inner=("i", "0", "N_OPTIONS"), args="sa, xa, ta, ra, va, result, i", arrays=_OPTIONS,
           sizes={"N_OPTIONS": (131072, 4096)}, unit="option",
           tolerance=Tolerance(1e-4, 1e-4)),
    Kernel("binomial", "American put on a 64-step binomial tree (local float[64], powf)",
           outer=(), inner=("i", "0", "N_OPTIONS"), args="sa, xa, ta, ra, va, result, i", arrays=_OPTIONS,
           sizes={"N_OPTIONS": (16384, 512)}, unit="option",
           tolerance=Tolerance(1e-3, 1e-3)),
    Kernel("aobench", "ambient occlusion: 3 spheres and a plane, 8x8 occlusion rays per hit",
           outer=(("y", "0", "H"),), inner=("x", "0", "W"), args="W, H, NSUBSAMPLES, image, y, x",
           arrays=(Array("image", "float", "W * H", "0.0f", output=True),),
           sizes={"W": (256, 64), "H": (256, 32), "NSUBSAMPLES": (2, 1)},
           tolerance=Tolerance(0.0, 1.0 / 64, 0.01),
           bounds={"w": (0, 8), "h": (0, 8), "y": (0, 7), "nsubsamples": (0, 2)}),
    Kernel("stencil", "one step of an 8th-order 3D wave equation (25 points)",
           outer=(("z", "4", "NZ - 4"), ("y", "4", "NY - 4")), inner=("x", "4", "NX - 4"),
           args="NX, NY, coef, vsq, a_in, a_out, z, y, x",
           arrays=(Array("coef", "float", "4", "(k == 0 ? 0.5f : k == 1 ? -0.25f : k == 2 ? 0.125f : -0.0625f)"),
                   Array("vsq", "float", "NX * NY * NZ", "0.1f * kb_unit(k, 6)"),
                   Array("a_in", "float", "NX * NY * NZ", "kb_unit(k, 7)"),
                   Array("a_out", "float", "NX * NY * NZ", "kb_unit(k, 8)", output=True)),
           sizes={"NX": (136, 40), "NY": (136, 40), "NZ": (136, 40)}, unit="point",
           tolerance=Tolerance(1e-5, 1e-6),
           bounds={"nx": (0, 3), "ny": (0, 3), "z": (0, 1), "y": (0, 1)}),
    Kernel("rt", "one primary ray per pixel through a BVH (36 triangles, 39 nodes): hit distance and triangle",
           outer=(("y", "0", "H"),), inner=("x", "0", "W"), args="W, H, depth, ids, y, x",
           arrays=(Array("depth", "float", "W * H", "0.0f", output=True),
                   Array("ids", "int", "W * H", "0", output=True)),
           sizes={"W": (256, 64), "H": (256, 32)},
           # -ffast-math may round a hit distance differently, and a ray through a shared edge of two
           # triangles may then report the other one
           tolerance=Tolerance(1e-4, 1e-4, 0.01),
           bounds={"w": (0, 8), "h": (0, 8), "y": (0, 7)}),
    Kernel("volume", "ray marching through a 16^3 density grid towards one light, nested loops (expf, powf)",
           outer=(("y", "0", "H"),), inner=("x", "0", "W"), args="W, H, image, y, x",
           arrays=(Array("image", "float", "W * H", "0.0f", output=True),),
           sizes={"W": (128, 32), "H": (128, 16)},
           tolerance=Tolerance(1e-3, 1e-4, 0.01),
           bounds={"w": (0, 8), "h": (0, 8), "y": (0, 7)}),
    Kernel("deferred", "deferred shading of a G-buffer pixel: 56 point lights, Blinn-Phong (powf), 8-bit output",
           outer=(("y", "0", "H"),), inner=("x", "0", "W"), args="W, fb_r, fb_g, fb_b, y, x",
           arrays=(Array("fb_r", "int", "W * H", "0", output=True), Array("fb_g", "int", "W * H", "0", output=True),
                   Array("fb_b", "int", "W * H", "0", output=True)),
           sizes={"W": (256, 32), "H": (128, 16)},
           # 8-bit channels: a rounding that differs moves one by a step
           tolerance=Tolerance(0.0, 1.0),
           # the G-buffer is 32 x 32 pixels (a frame repeats it): every row of it, y * w within the
           # 64 spare elements --verify gives uniform arrays
           bounds={"w": (0, 2), "y": (0, 31)}),
)


def kernels(names: list[str] | None = None) -> list[Kernel]:
    """The suite's kernels (``names``: these, in this order)."""
    if not names:
        return list(KERNELS)
    known = {k.name: k for k in KERNELS}
    missing = [n for n in names if n not in known]
    if missing:
        raise SystemExit(f"unknown kernel(s): {', '.join(missing)} (known: {', '.join(known)})")
    return [known[n] for n in names]


def suite_functions() -> list[CorpusFunction]:
    """The kernels as corpus functions (for mathlib.matrix): source, function, include dir, bounds."""
    return [k.corpus_function() for k in KERNELS]


def main() -> int:
    """Print the suite (``python -m mathlib.suite``)."""
    for k in KERNELS:
        sig = ", ".join(f"{ct} {n}" + ("" if s == "varying" else f" [{s}]") for ct, n, s in k.signature())
        status = f"expand: diagnostic {k.diagnostic}" if k.diagnostic else "expand: expands"
        print(f"{k.name:14} {k.source.relative_to(KERNELS_DIR.parent.parent)}  anchor:"
              f" {k.anchor.relative_to(KERNELS_DIR.parent.parent)}\n    {k.what}; one call per {k.unit}\n"
              f"    {k.func}({sig})\n    {status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
