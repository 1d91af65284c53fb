"""Arm SVE at a fixed vector length (emit/sve.py: ``sve128``, ``sve`` = 256 bits, ``sve512``).

Built with aarch64-linux-gnu-gcc (``-march=armv8.2-a+sve -msve-vector-bits=N``) and run under
``qemu-aarch64 -cpu max,sveN=on``: each output verifies bit for bit against its scalar source. Covered:
the table op by op (tests/isa_check.py), corpus functions with branches and BOSCC guards
(``svptest_any``), loops, table reads as gathers, stores under a mask as predicated ``svst1``, and
float <-> integer conversions on NaN, infinities and out-of-range values (FCVTZS/FCVTZU saturate as
GCC's scalar AArch64 code does). Without the cross compiler the module skips; without qemu-aarch64
the code is still compiled and only the run skips (emit/host.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from expand_case import check_source, expand_source
from hostrun import TEST_RANDOM
from isa_check import run_isa_kind

from emit import ISAS, get_isa
from emit.isa import KINDS
from expand import driver
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file
from mathlib.corpus import corpus
from mathlib.matrix import check, loop_kernels

SVE = ("sve128", "sve", "sve512")

pytestmark = pytest.mark.skipif(shutil.which("aarch64-linux-gnu-gcc") is None,
                                reason="aarch64-linux-gnu-gcc (Debian gcc-aarch64-linux-gnu) is not installed: "
                                       "SVE code cannot be compiled here")


def daily(isa: str) -> object:
    """sve128 in the daily loop, the other lengths with the slow tests."""
    return pytest.param(isa, marks=() if isa == "sve128" else pytest.mark.slow)


def test_registry() -> None:
    for name, lanes, bits in (("sve128", 4, 128), ("sve", 8, 256), ("sve512", 16, 512)):
        assert name in ISAS and ISAS[name][2] == lanes
        isa = get_isa(name).emission()
        assert isa.lanes == lanes and isa.reg_bits == bits
        assert isa.cflags == ["-march=armv8.2-a+sve", f"-msve-vector-bits={bits}"]
        assert isa.run_prefix[:3] == ["qemu-aarch64", "-cpu", f"max,sve{bits}=on"]
        assert isa.mask_type() == "_Exp_sv_bool" and isa.vtype("f32") == "_Exp_sv_f32"
        assert f"arm_sve_vector_bits({bits})" in isa.prelude()
        assert isa.abi_letter is None  # GCC 12's _ZGVs variants take scalable vectors only
        assert get_isa(name, 2 * lanes).mask_type() == f"_Exp_boolx{2 * lanes}"
        with pytest.raises(ValueError):
            get_isa(name, lanes + 1)


@pytest.mark.parametrize("k", [pytest.param(k, marks=() if k in ("f32", "i64") else pytest.mark.slow)
                               for k in KINDS])
@pytest.mark.parametrize("isa", ["sve128", pytest.param("sve512", marks=pytest.mark.slow),
                                 pytest.param("sve:16", marks=pytest.mark.slow)])
def test_op_by_op(isa: str, k: str, tmp_path: Path) -> None:
    """Every table operation on kind ``k``, bit for bit against scalar C (``sve:16``: two registers per gang)."""
    name, _, lanes = isa.partition(":")
    run_isa_kind(get_isa(name, int(lanes) if lanes else None), k, tmp_path)


CORPUS = {f.name: f for f in corpus() + loop_kernels()}


@pytest.mark.parametrize("isa", [daily(i) for i in SVE])
@pytest.mark.parametrize("fn", ["floorf", "logf", pytest.param("powf", marks=pytest.mark.slow), "gcd",
                                pytest.param("mandelbrot", marks=pytest.mark.slow),
                                pytest.param("two_exits", marks=pytest.mark.slow)])
def test_corpus(fn: str, isa: str, monkeypatch) -> None:
    """Corpus functions (branches, table reads as gathers) and loop kernels verify bit for bit."""
    monkeypatch.setattr(driver, "GATHERS", True)
    ok, cell = check(CORPUS[fn], isa, n_random=TEST_RANDOM)
    if cell == "compiled, not run here":
        pytest.skip(f"{fn} compiled and linked for {isa}; qemu-aarch64 is not installed")
    assert ok and cell.endswith(" ok"), cell


@pytest.mark.parametrize("isa", [daily(i) for i in SVE])
@pytest.mark.parametrize("boscc", ["all", "off"])
def test_boscc_modes(isa: str, boscc: str) -> None:
    ok, cell = check(CORPUS["floorf"], isa, boscc=boscc, n_random=TEST_RANDOM)
    if cell == "compiled, not run here":
        pytest.skip(f"compiled and linked for {isa}; qemu-aarch64 is not installed")
    assert ok and cell.endswith(" ok"), cell


def test_guards_and_gathers_are_sve_instructions(monkeypatch) -> None:
    """BOSCC guards test the predicate with svptest_any; logf's table reads are SVE gathers."""
    monkeypatch.setattr(driver, "GATHERS", True)
    f = CORPUS["logf"]
    isa = get_isa("sve")
    mod = read_file(str(f.source), f.source.read_text(), [str(d) for d in f.include_dirs], cc=isa.preprocessor)
    res = expand_module(mod, isa, functions=[f.func], boscc="all")
    assert "svptest_any(svptrue_b32()" in res.text
    assert "svld1_gather_s32index_f64" in res.text or "svld1_gather_s64index_f64" in res.text, res.text


MASKED = """#include <stdint.h>
void clamp_store(float *p, float x, int32_t *q, double *d, signed char *c, uint16_t *h)
{
    if (x > 1.0f) {
        *p = x;
        *q = (int32_t)x;
        *d = x * 0.5;
        *c = (signed char)x;
        *h = (uint16_t)x;
    }
}
"""


@pytest.mark.parametrize("isa", [daily(i) for i in SVE])
def test_masked_stores(isa: str, tmp_path: Path) -> None:
    """A store under a mask is one predicated store: the lanes that are off are not written."""
    _, _, res = expand_source(tmp_path, "masked", MASKED, isa)
    assert "svst1_f32(m_" in res.text and "svst1b_s32(m_" in res.text, res.text
    assert "svsel" not in res.text.split("_Exp_clamp_store(")[1], res.text
    check_source(tmp_path, "masked", MASKED, isa)


CONVERSIONS = """#include <stdint.h>
int32_t f2i(float x) { return (int32_t)x; }
uint32_t f2u(float x) { return (uint32_t)x; }
int64_t f2l(float x) { return (int64_t)x; }
int32_t d2i(double x) { return (int32_t)x; }
uint8_t d2uc(double x) { return (uint8_t)x; }
int16_t f2s(float x) { return (int16_t)x; }
uint64_t d2ul(double x) { return (uint64_t)x; }
float l2f(int64_t x) { return (float)x; }
float ul2f(uint64_t x) { return (float)x; }
double u2d(uint32_t x) { return (double)x; }
float d2f(double x) { return (float)x; }
"""


@pytest.mark.parametrize("isa", [daily(i) for i in SVE])
def test_conversions(isa: str, tmp_path: Path) -> None:
    """float <-> integer on NaN, infinities and out-of-range values: the scalar AArch64 results."""
    check_source(tmp_path, "conv", CONVERSIONS, isa, n_random=2000)
