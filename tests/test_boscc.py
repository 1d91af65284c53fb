"""BOSCC: regions whose mask is all false are skipped; every mode stays bit-exact."""

from __future__ import annotations

import re

import pytest
from hostrun import TEST_RANDOM

from emit import ISAS, get_isa, why_not_here
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file
from mathlib.corpus import corpus
from mathlib.matrix import table

FUNCS = {f.name: f for f in corpus()}


def expand(name: str, mode: str, isa: str = "sse4.1") -> str:
    f = FUNCS[name]
    mod = read_file(str(f.source), f.source.read_text(), [str(d) for d in f.include_dirs])
    text = expand_module(mod, get_isa(isa), functions=[f.func], boscc=mode).text
    return text[text.index("_Exp_"):]


@pytest.mark.slow
@pytest.mark.parametrize("isa", list(ISAS))
@pytest.mark.parametrize("mode", ["off", "all"])
def test_every_function_every_isa_verifies(mode: str, isa: str) -> None:
    # (auto, the default, is what tests/test_matrix.py checks on every ISA)
    text, ok = table([isa], boscc=mode, n_random=TEST_RANDOM)
    assert ok, text
    if why_not_here(isa) is not None:
        pytest.skip(f"every function compiled and linked for {isa}, not run: {why_not_here(isa)}")


def test_off_has_no_guards_all_guards_every_region() -> None:
    assert "testz" not in expand("floorf", "off")
    guarded = expand("floorf", "all")
    assert guarded.count("if ((!_mm_testz_si128(") >= 8
    # a mask computed inside a skipped region and read after it is reset
    assert re.search(r"\} else \{\n\s+m_join6 = _mm_setzero_si128\(\);", guarded)


def test_auto_guards_the_rare_path_of_logf() -> None:
    text = expand("logf", "auto", "avx2")
    # the special cases (zero, inf, NaN, negative, subnormal) sit behind one test of their mask
    first = text.index("if ((!_mm256_testz_si256(m_ix_minus_0x800000_ge_0x7f")
    assert first < text.index("__math_divzerof") < text.index("__math_invalidf")
    # the likely path is not wrapped in its own test
    assert "testz_si256(m_not_ix_eq_0x3f800000" not in text


def test_avx512_tests_the_mask_register() -> None:
    text = expand("floorf", "all", "avx512")
    assert re.search(r"if \(\(?m_\w+ != 0\)?\)", text) or "if (m_" in text
