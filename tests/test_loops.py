"""Loops whose trip count differs per lane (whole-function vectorization), verified bit-exact."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hostrun import assert_verified

from emit import get_isa
from expand.check.verify import Param, verify
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file

LOOPS = Path(__file__).parent.parent / "mathlib" / "loops"
KERNELS = sorted(p.stem for p in LOOPS.glob("*.c"))


def expand_file(src: Path, isa_name: str = "sse4.1", text: str | None = None):
    isa = get_isa(isa_name)
    text = text if text is not None else src.read_text()
    return isa, expand_module(read_file(str(src), text), isa)


def check(src: Path, isa_name: str = "sse4.1", n_random: int = 100_000, text: str | None = None):
    isa, res = expand_file(src, isa_name, text)
    (e,) = res.functions
    rep = verify(scalar_sources=[src], scalar_name=e.scalar_name, vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=isa,
                 constants=e.constants, n_random=n_random)
    assert_verified(rep)
    return res, rep


def test_kernel_set_is_complete() -> None:
    assert {"mandelbrot", "newton_sqrt", "two_exits", "nested", "gcd", "fmodf_bits"} <= set(KERNELS)


@pytest.mark.parametrize("name", KERNELS)
def test_loop_kernel_verifies(name: str) -> None:
    check(LOOPS / f"{name}.c")


def test_lanes_iterate_up_to_1000_times(tmp_path: Path) -> None:
    # Return the trip count itself: inputs spread it from 0 to 1000 across lanes.
    src = tmp_path / "trips.c"
    src.write_text("int trips(int n) { int i = 0; int m = n & 1023; if (m > 1000) m = 1000; "
                   "while (i < m) i++; return i; }\n")
    res, rep = check(src)
    assert "while (" in res.text


def test_uniform_loop_has_no_masks(tmp_path: Path) -> None:
    src = tmp_path / "poly.c"
    src.write_text("float poly(float x) { float acc = 0.0f; for (int i = 0; i < 8; i++) acc = acc * x + 0.5f; "
                   "return acc; }\n")
    res, _ = check(src)
    body = res.text[res.text.index("_Exp_poly("):]
    assert "for (;;)" in body and "if (!(i < 8))" in body
    assert not re.search(r"blendv|movemask|testz|cmp\w*_ps|cmp\w*_epi", body), body
    assert "int i;" in body  # the counter stays a scalar


def test_divergent_inner_loop_uniform_outer() -> None:
    _, res = expand_file(LOOPS / "nested.c")
    body = res.text[res.text.index("_Exp_nested("):]
    # (the outer loop's uniform test at its head; the inner one's where its lanes leave)
    assert body.count("for (;;)") == 2 and "while (" not in body
    assert re.search(r"(active\d+) = _mm_andnot_si128\(leaving\d+, \1\);\n\s*if \(_mm_testz_si128\(\1", body), body


def test_pixel_kernel_uses_vector_loads_and_stores() -> None:
    _, res = expand_file(LOOPS / "pixel_blur.c")
    body = res.text[res.text.index("_Exp_pixel_blur("):]
    assert "void _Exp_pixel_blur(const float *in, float *out, float gain, int x)" in res.text
    assert body.count("_mm_loadu_ps(&in[") == 3 and "_mm_storeu_ps(&out[x], v);" in body
    assert "lanes" not in body and "extract" not in body
