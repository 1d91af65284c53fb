"""Issue 3/4 acceptance in CI: every corpus function, loop kernel and suite kernel x every ISA verifies bit-exact
(edge set + 100,000 random inputs natively, 20,000 under qemu), the matrix command of docs/isas.md."""

from __future__ import annotations

import pytest

from emit import ISAS, why_not_here
from mathlib.matrix import table


def test_every_isa_is_in_the_matrix() -> None:
    assert set(ISAS) == {"sse2", "sse4.1", "avx2", "avx512", "neon", "altivec", "generic", "sve128", "sve",
                          "sve512", "rvv", "rvv256"}


@pytest.mark.slow
@pytest.mark.parametrize("isa", list(ISAS))
def test_every_function_on_every_isa(isa: str) -> None:
    failures: list[str] = []
    text, ok = table([isa], failures=failures)
    assert ok, "\n\n".join(failures) + "\n\n" + text  # (what failed first: CI shows a message's head and tail)
    rows = 31  # 14 corpus functions, 8 loop kernels, the 9 suite kernels (every one expands)
    assert text.count("diagnostic (expected)") == 0, text
    if why_not_here(isa) is not None:
        assert text.count("compiled, not run here") == rows, text
        pytest.skip(f"every function compiled and linked for {isa}, not run: {why_not_here(isa)}")
    assert text.count(" ok") == rows, text
