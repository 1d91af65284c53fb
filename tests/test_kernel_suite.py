"""The kernel suite of issues 19 and 25 (mathlib/suite.py, mathlib/kernels): every kernel that expand expands
verifies bit for bit on all 7 ISAs (with the vector libm where the ISA has it, as the benchmark
measures it); every kernel it cannot expand yet gives the diagnostic the suite expects, on every
ISA; every hand-written anchor computes exactly what the scalar kernel computes (expand's --verify
harness, edge and random inputs, on the three x86 widths); the sizes fit the benchmark's driver."""

from __future__ import annotations

import pytest
from hostrun import TEST_RANDOM, assert_verified

from emit import ISAS, get_isa
from expand.check.verify import Param, verify
from expand.driver import expand_module
from expand.ir import types as T
from expand.ir.diagnostics import ExpandError
from expand.vecmath import VectorMath
from frontends.pycparser_frontend import read_file
from mathlib.kbench import LIBM
from mathlib.libm import ensure
from mathlib.matrix import check_detailed, random_inputs
from mathlib.suite import ANCHOR_DIR, KERNELS, KERNELS_DIR, Kernel, ctype_of

EXPANDS = [k for k in KERNELS if k.diagnostic is None]
REFUSED = [k for k in KERNELS if k.diagnostic is not None]
#: under qemu-user these take a minute or more each
EMULATED = ("neon", "altivec")


def _isa_params(isas):
    return [pytest.param(i, marks=pytest.mark.slow) if i in EMULATED else i for i in isas]


def _read(k: Kernel, isa):
    return read_file(str(k.source), k.source.read_text(), [str(KERNELS_DIR)], cc=isa.preprocessor)


def test_the_suite_is_the_issue_s() -> None:
    assert [k.name for k in KERNELS] == ["mandelbrot", "noise", "black_scholes", "binomial", "aobench", "stencil",
                                         "rt", "volume", "deferred"]
    for k in KERNELS:
        assert k.source.is_file() and k.anchor.is_file(), k.name
        assert "github.com/ispc/ispc, examples/cpu/" in " ".join(k.source.read_text().split()), k.name  # the origin


@pytest.mark.parametrize("k", KERNELS, ids=lambda k: k.name)
def test_driver_extents_are_whole_gangs(k: Kernel) -> None:
    # the benchmark's gang loop steps by the ISA's lanes (4, 8, 16) with no remainder
    for quick in (False, True):
        var, lo, hi = k.inner
        assert k.extent(lo, hi, quick) % 16 == 0 and k.extent(lo, hi, quick) > 0, (k.name, quick)
        assert k.elements(quick) > 0
        assert var in [n for _, n, _ in k.signature()]
    shapes = {n: s for _, n, s in k.signature()}
    assert shapes[k.inner[0]] == "linear"
    assert all(shapes[v] == "uniform" for v, _, _ in k.outer)
    assert sum(s == "linear" for s in shapes.values()) == 1 and "varying" not in shapes.values()


def test_signature_reads_types_and_shapes() -> None:
    (k,) = [k for k in KERNELS if k.name == "black_scholes"]
    sig = k.signature()
    assert sig[0] == ("const float *", "sa", "uniform") and sig[-1] == ("int", "i", "linear")
    assert ctype_of("const float *") == T.Pointer(T.FLOAT) and ctype_of("int") == T.INT


@pytest.mark.parametrize("isa", _isa_params(ISAS))
@pytest.mark.parametrize("k", EXPANDS, ids=lambda k: k.name)
def test_kernel_verifies_per_lane_libm(k: Kernel, isa: str) -> None:
    """The matrix's check (mathlib.matrix): libm calls per lane, the suite's parameter ranges."""
    ok, cell, why = check_detailed(k.corpus_function(), isa, n_random=TEST_RANDOM)
    assert ok, f"{cell}\n{why}"
    if cell == "compiled, not run here":
        pytest.skip(f"{k.name} [{isa}]: compiled and linked, not run here")
    assert cell.endswith(" ok"), cell


@pytest.mark.parametrize("isa", _isa_params(ISAS))
@pytest.mark.parametrize("k", [k for k in EXPANDS
                               if k.name in ("black_scholes", "binomial", "volume", "deferred", "aobench")],
                         ids=lambda k: k.name)
def test_kernel_verifies_with_vector_libm(k: Kernel, isa: str) -> None:
    """As the benchmark expands them: expf/logf/powf calls of mathlib's vector libm (per lane where
    the library lacks a function there), aobench's cosf/sinf pair as one sincosf, bit for bit with
    glibc's sources."""
    vm = VectorMath(["expand"])
    i = get_isa(isa)
    res = expand_module(_read(k, i), i, functions=[k.func], vector_math=vm)
    (e,) = res.functions
    needs = vm.link(i, ensure)
    rep = verify(scalar_sources=[k.source], scalar_name=e.scalar_name, vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=i,
                 include_dirs=[KERNELS_DIR], link_files=needs.link_files, libs=(*needs.libs, "m"),
                 constants=e.constants, n_random=random_inputs(i, TEST_RANDOM), bounds=k.bounds)
    assert_verified(rep, res.text)


@pytest.mark.parametrize("isa", list(ISAS))
@pytest.mark.parametrize("k", REFUSED, ids=lambda k: k.name)
def test_kernel_gives_the_expected_diagnostic(k: Kernel, isa: str) -> None:
    """What expand cannot expand yet: exactly the diagnostic the suite (and the benchmark's table)
    says, at the construct's line; when expand learns the construct, this fails and the suite's
    ``diagnostic`` goes (the kernel then joins the verified ones above)."""
    i = get_isa(isa)
    with pytest.raises(ExpandError) as info:
        expand_module(_read(k, i), i, functions=[k.func])
    assert k.diagnostic in info.value.message
    assert info.value.render().split(":")[0].endswith(k.source.name)  # file:line:col: error: ...


@pytest.mark.parametrize("isa", ["sse4.1", "avx2", "avx512"])
@pytest.mark.parametrize("k", KERNELS, ids=lambda k: k.name)
def test_anchor_is_bit_exact(k: Kernel, isa: str) -> None:
    """The anchor (mathlib/kernels/anchor) against the scalar kernel, on --verify's edge and random
    inputs: the benchmark's ratios compare code that computes the same bits."""
    i = get_isa(isa)
    lib = ensure([isa], LIBM) / "lib" / "x86_64"  # (the benchmark's list: the functions the anchors call)
    rep = verify(scalar_sources=[k.source], scalar_name=k.func, vector_c=k.anchor.read_text(),
                 vector_name=f"anchor_{k.name}", params=k.params(), ret=T.VOID, isa=i,
                 include_dirs=[ANCHOR_DIR, KERNELS_DIR], link_files=[lib / "libexpandm_scalar.a", lib / "libexpandm.a"],
                 n_random=20_000, bounds=k.bounds, errno=False)
    assert_verified(rep)
