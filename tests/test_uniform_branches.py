"""Issue 5's last two deliverables, verified bit-exact: a branch on a uniform condition stays a plain
``if`` (no masks, blends or guards of its own), and a guarded region gets a copy without blends for
when every lane of its mask is on (``if (all(m)) {...} else if (any(m)) {...}``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from daily import isas_once_daily
from hostrun import assert_verified

from emit import get_isa
from expand.check.verify import Param, verify
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file

#: how each ISA table spells a blend (select)
BLENDS = r"blendv|_exp_blend|_exp_select|vbslq|vec_sel|mask_blend|mask_mov|svsel"
CROSS = ("neon", "altivec")  # verified under qemu: fewer random inputs

EXAMPLE = """#pragma omp declare simd uniform(n)
float f(float x, int n) {
    float r = x;
    if (n > 3) { r = x * 2.0f; r = r + 1.0f; } else { r = x - 1.0f; }
    return r;
}
"""

IN_VARYING_IF = """#pragma omp declare simd uniform(n)
float f(float x, int n) {
    float r = x;
    int k = n * 2;
    if (x > 0.0f) {
        if (k > 6) { r = x * 2.0f; } else { r = x - 1.0f; }
        r = r + 0.5f;
        if (n != 0 && 100 / n > 3) r = r * 3.0f;
    } else if (n > 1) {
        r = -r;
    }
    return r;
}
"""

IN_DIVERGENT_LOOP = """#pragma omp declare simd uniform(n)
int f(int x, int n) {
    int acc = 0;
    int m = x & 15;
    for (int i = 0; i < m; i++) {
        if (n > 2) { acc += i; if (acc > 20) acc -= 7; } else acc -= 1;
    }
    return acc;
}
"""

EARLY_RETURN = """#pragma omp declare simd uniform(n)
float f(float x, int n) {
    if (n < 0) return 0.0f;
    float r = x;
    if (x < 1.0f) { if (n == 3) return r; r = r * 2.0f; }
    if (n > 5) r = r * 3.0f;
    return r + 1.0f;
}
"""

IN_UNIFORM_LOOP = """#pragma omp declare simd uniform(n)
float f(float x, int n) {
    float acc = 0.0f;
    for (int i = 0; i < 8; i++) {
        if (i < n) acc = acc * x + 1.0f; else acc = acc + x;
        if ((i & 1) == 0) { acc = acc * 0.5f; if (acc > 100.0f) acc = 100.0f; }
    }
    if (n > 4) {
        for (int j = 0; j < n && j < 10; j++) acc = acc + 0.25f;
    }
    return acc;
}
"""

UNIFORM_POINTER = """#pragma omp declare simd uniform(p, n) linear(i)
void f(float *p, float x, int n, int i) {
    if (n > 0) p[i] = x * 2.0f; else p[i] = x;
    if (x > 3.0f) { if (n > 2) p[i] = p[i] + 1.0f; }
}
"""

# A region with many blends, and an inner one with a single blend.
BIG_REGION = """unsigned f(unsigned x, unsigned y) {
    unsigned r = 0, s = y;
    if (x > 1000u) {
        r = x * y + 1u;
        s = s - r;
        r = r * s;
        s = s + x;
        r = r - 2u;
        s = s ^ (r >> 3);
        r = r + s;
        s = s - 1u;
        r = r * 5u;
        if (y < 77u) r = ~r;
    }
    return r + s;
}
"""

# The region after the exit test runs under the loop's staying mask.
LOOP_REGION = """unsigned f(unsigned x, unsigned y) {
    unsigned n = 0, a = x, b = y;
    while (n < (x & 31u)) {
        a = a * 3u + 1u;
        b = b ^ a;
        a = a - b;
        b = b + 7u;
        a = a >> 1;
        b = b * 5u;
        n++;
    }
    return a + b + n;
}
"""


def expand(tmp_path: Path, text: str, isa_name: str, mode: str = "auto"):
    src = tmp_path / "f.c"
    src.write_text(text)
    isa = get_isa(isa_name)
    res = expand_module(read_file(str(src), text), isa, functions=["f"], boscc=mode)
    return src, isa, res, res.text[res.text.index("_Exp_f("):]


def check(tmp_path: Path, text: str, isa_name: str, mode: str = "auto") -> str:
    """Expand, verify bit for bit, and return the vector function's text."""
    src, isa, res, body = expand(tmp_path, text, isa_name, mode)
    (e,) = res.functions
    rep = verify(scalar_sources=[src], scalar_name=e.scalar_name, vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=isa,
                 constants=e.constants, n_random=2_000 if isa_name in CROSS else 20_000)
    assert_verified(rep, body)
    return body


def region(body: str, start: str, end: str) -> str:
    i = body.index(start)
    return body[i:body.index(end, i)]


# ------------------------------------------------------------------------------ uniform branches


@pytest.mark.parametrize("isa_name", isas_once_daily("test_uniform_if_is_a_plain_if"))
def test_uniform_if_is_a_plain_if(tmp_path: Path, isa_name: str) -> None:
    body = check(tmp_path, EXAMPLE, isa_name)
    assert "if (n > 3) {" in body and "} else {" in body
    assert not re.search(BLENDS, body), body
    assert "m_n_gt_3" not in body and "cond" not in body  # no mask, no broadcast condition
    # no guard: the only branch is the plain one
    code = [line for line in body.splitlines() if not line.strip().startswith("/*")]
    assert sum("if (" in line for line in code) == 1, body


def test_boscc_modes_leave_the_uniform_if_alone(tmp_path: Path) -> None:
    texts = {m: expand(tmp_path, EXAMPLE, "avx2", m)[3] for m in ("off", "auto", "all")}
    assert texts["off"] == texts["auto"] == texts["all"]
    assert "testz" not in texts["all"] and "testc" not in texts["all"]


@pytest.mark.parametrize("isa_name", ["sse4.1", "avx512"])
def test_uniform_if_inside_a_varying_if(tmp_path: Path, isa_name: str) -> None:
    body = check(tmp_path, IN_VARYING_IF, isa_name)
    # the plain if sits inside the varying region; its statements keep the enclosing mask
    assert "if (k > 6) {" in body and "m_k_gt_6" not in body
    assert "if (n > 1) {" in body and "m_n_gt_1" not in body
    inner = region(body, "if (k > 6) {", "r + 0.5f") if "0.5f" in body else body
    assert "m_x_gt_00f" in inner
    # 100 / n runs only if some lane of the enclosing mask is on (n == 0 is an input)
    assert re.search(r"\? \(?100 / n\)?", body), body


@pytest.mark.parametrize("isa_name", ["sse4.1", "avx2"])
def test_uniform_if_in_a_loop_with_per_lane_trip_counts(tmp_path: Path, isa_name: str) -> None:
    body = check(tmp_path, IN_DIVERGENT_LOOP, isa_name)
    loop = body[body.index("for (;;)"):]  # (predication/exit_tests.py: no test at the head)
    assert "if (n > 2) {" in loop and "m_n_gt_2" not in body
    assert re.search(BLENDS, region(loop, "if (n > 2) {", "} else {"))  # still masked by the loop mask


@pytest.mark.parametrize("isa_name", ["sse4.1", "avx2"])
def test_uniform_if_with_early_return_falls_back_to_masks(tmp_path: Path, isa_name: str) -> None:
    body = check(tmp_path, EARLY_RETURN, isa_name)
    # A uniform if that a return leaves keeps the masked form (its condition is broadcast) ...
    assert "m_n_lt_0" in body and "m_n_eq_3" in body
    # ... and a later uniform if is still a plain if, under the mask of the lanes still running.
    assert "if (n > 5) {" in body and "m_n_gt_5" not in body


def test_uniform_if_inside_a_uniform_loop_and_a_uniform_loop_inside_a_uniform_if(tmp_path: Path) -> None:
    body = check(tmp_path, IN_UNIFORM_LOOP, "avx2")
    assert body.count("for (;;)") == 2
    assert "if (i < n) {" in body and "if ((i & 1) == 0) {" in body and "if (n > 4) {" in body
    assert "int j" in body  # the inner loop's counter stays a scalar
    # only the varying `acc > 100.0f` blends
    assert len(re.findall(BLENDS, body)) == 1, body


@pytest.mark.parametrize("isa_name", ["sse4.1", "avx2"])
def test_uniform_if_with_uniform_pointer(tmp_path: Path, isa_name: str) -> None:
    body = check(tmp_path, UNIFORM_POINTER, isa_name)
    assert "if (n > 0) {" in body and "if (n > 2) {" in body
    then = region(body, "if (n > 0) {", "} else {")
    assert "storeu_ps(&p[i]" in then and "lane" not in then  # one vector store, unmasked


LATER_UNIFORM_WRITE = """#pragma omp declare simd uniform(n)
float f(float x, int n) {
    float r = x;
    if (x > 2.0f) r = 5.0f;
    if (n > 3) r = 7.0f;
    float t;
    if (n > 1) t = x; else t = -x;
    if (x < 0.0f) t = t * 2.0f;
    return r + t;
}
"""


@pytest.mark.parametrize("isa_name", ["sse4.1", "avx2"])
def test_write_in_a_uniform_branch_does_not_make_an_earlier_blend_dead(tmp_path: Path, isa_name: str) -> None:
    body = check(tmp_path, LATER_UNIFORM_WRITE, isa_name, "off")
    # r = 5.0f must keep the other lanes' x: r = 7.0f runs only when n > 3
    assert re.search(rf"r = \w*({BLENDS})\w*\(", body), body
    assert re.search(r"__m\d*i? t;", body)  # written on both sides: no initializer needed


def test_masked_variant_keeps_uniform_if(tmp_path: Path) -> None:
    src = tmp_path / "f.c"
    src.write_text(EXAMPLE)
    res = expand_module(read_file(str(src), EXAMPLE), get_isa("avx2"), functions=["f"], wrapper="array")
    masked = res.text[res.text.index("_Exp_f_masked("):]
    masked = masked[:masked.index("\n}\n")]
    assert "if (n > 3) {" in masked and "m_n_gt_3" not in masked


# ------------------------------------------------------------------------------ every lane on


@pytest.mark.parametrize("isa_name", isas_once_daily("test_all_lanes_copy_runs_without_blends"))
def test_all_lanes_copy_runs_without_blends(tmp_path: Path, isa_name: str) -> None:
    isa = get_isa(isa_name)
    body = check(tmp_path, BIG_REGION, isa_name, "all")
    test_all = f"if ({isa.mask_all('m_x_gt_0x3e8')}) {{"
    test_any = f"}} else if ({isa.mask_any('m_x_gt_0x3e8')}) {{"
    assert test_all in body and test_any in body, body
    copy = region(body, test_all, test_any)
    assert "m_x_gt_0x3e8" not in copy[len(test_all):].split("m_y_lt_77 =")[0]  # no blend under the mask
    assert not re.search(BLENDS, copy.split("m_y_lt_77 =")[0])
    assert re.search(BLENDS, region(body, test_any, "return"))  # the partial case still blends


@pytest.mark.parametrize("isa_name", isas_once_daily("test_all_lanes_copy_in_a_loop"))
def test_all_lanes_copy_in_a_loop(tmp_path: Path, isa_name: str) -> None:
    isa = get_isa(isa_name)
    body = check(tmp_path, LOOP_REGION, isa_name, "all")
    # (the loop's own mask: predication/exit_tests.py drops the staying mask, and the loop is left when
    # no lane is on, so the partial case needs no all-false test)
    m = re.search(r"if \(.*\b(active\d+)\b.*\) \{\n(.*\n)*?\s*a = ", body).group(1)
    assert f"if ({isa.mask_all(m)}) {{" in body and "} else {" in body
    copy = region(body, f"if ({isa.mask_all(m)})", "} else {")
    assert not re.search(BLENDS, copy) and copy.count(m) == 1


def test_auto_takes_the_all_lanes_copy_only_where_it_pays(tmp_path: Path) -> None:
    # A test costs 3 ops on AVX2 and 4 on SSE4.1, so the copy needs >= 6 / >= 8 blends: the 9-blend
    # region gets it, the 1-blend region inside does not. Neither ISA guards an unhinted region
    # this small against all-false lanes in auto, so the copy comes alone: if (all) {...} else {...}.
    body = check(tmp_path, BIG_REGION, "avx2", "auto")
    assert body.count("_mm256_testc_si256(") == 1  # the outer region only
    assert "testc_si256(m_y_lt_77" not in body and "testz" not in body
    assert "if (_mm256_testc_si256(m_x_gt_0x3e8, _mm256_set1_epi32(-1))) {" in body
    sse = check(tmp_path, BIG_REGION, "sse4.1", "auto")
    assert sse.count("_mm_testc_si128(") == 1 and "testz" not in sse
    assert not re.search(r"testc|testz", expand(tmp_path, BIG_REGION, "avx2", "off")[3])
    # inside loops auto adds no test per iteration
    assert "testc" not in expand(tmp_path, LOOP_REGION, "avx2", "auto")[3]


def test_auto_copies_a_likely_region_without_an_all_false_test(tmp_path: Path) -> None:
    text = BIG_REGION.replace("if (x > 1000u) {", "if (__builtin_expect(x > 1000u, 1)) {")
    body = check(tmp_path, text, "avx2", "auto")
    assert "if (_mm256_testc_si256(m_x_gt_0x3e8" in body
    assert "testz_si256(m_x_gt_0x3e8" not in body  # a likely region has lanes on: no all-false test
