"""Issue 3/4 acceptance in CI: every corpus function and loop kernel x every ISA verifies bit-exact
(edge set + 100,000 random inputs natively, 20,000 under qemu), the README's matrix command."""

from __future__ import annotations

from emit import ISAS
from mathlib.matrix import table


def test_every_function_on_every_isa() -> None:
    assert set(ISAS) == {"sse2", "sse4.1", "avx2", "avx512", "neon", "altivec", "generic"}
    text, ok = table(list(ISAS))
    assert ok, text
    assert text.count("ok") == 21 * 7
