"""Issue 3/4 acceptance in CI: every corpus function and loop kernel x every ISA verifies bit-exact
(the edge set and tests/hostrun.py's TEST_RANDOM random inputs: 20,000 natively, 4,000 under qemu), the
matrix command of docs/isas.md (which takes 100,000 and 20,000). The matrix's third part, the kernel
suite, is tests/test_kernel_suite.py's test_kernel_verifies_per_lane_libm: the same check, a test per
kernel and ISA (so not run twice here)."""

from __future__ import annotations

import pytest
from hostrun import TEST_RANDOM

from emit import ISAS, why_not_here
from mathlib.corpus import corpus
from mathlib.matrix import loop_kernels, table


def test_every_isa_is_in_the_matrix() -> None:
    assert set(ISAS) == {"sse2", "sse4.1", "avx2", "avx512", "neon", "altivec", "generic", "sve128", "sve",
                          "sve512", "rvv", "rvv256"}


@pytest.mark.slow
@pytest.mark.parametrize("isa", list(ISAS))
def test_every_function_on_every_isa(isa: str) -> None:
    failures: list[str] = []
    text, ok = table([isa], failures=failures, funcs=corpus() + loop_kernels(), n_random=TEST_RANDOM)
    assert ok, "\n\n".join(failures) + "\n\n" + text  # (what failed first: CI shows a message's head and tail)
    rows = 22  # 14 corpus functions, 8 loop kernels
    assert text.count("diagnostic (expected)") == 0, text
    if why_not_here(isa) is not None:
        assert text.count("compiled, not run here") == rows, text
        pytest.skip(f"every function compiled and linked for {isa}, not run: {why_not_here(isa)}")
    assert text.count(" ok") == rows, text
