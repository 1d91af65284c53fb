"""Code generation of loops (issue 19, causes 1, 2 and 4), checked for the shape of the output and verified
bit for bit on all 7 ISAs:

1. a value carried around a divergent loop and dead after it is not blended in every iteration
   (predication/ifconvert.py): mandelbrot's ``zr``, ``zi``; but a value read again when an outer loop
   comes round keeps its blend, and garbage lanes never trap (integer division, table reads past the
   end of an array followed by an inaccessible page);
2. a loop counter compared with a uniform bound stays a scalar with a per-lane live-out written where
   lanes leave (predication/counters.py), read after the loop or not, in nested loops;
3. a uniform loop whose body calls an inlined ``static`` helper (an early return, a local), or has a
   ``continue``, stays a scalar loop (expand/analysis/shapes.py);

and two printer fixes they rely on (emit/printer.py): a uniform table read under a partial mask runs
only when some lane is on, and a uniform loop's exit test is not guarded by the mask of the statement
before it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from expand_case import check_source, expand_source
from hostrun import assert_verified

from emit import ISAS, get_isa
from expand.check.verify import OFFSET, Param, verify
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file

ALL = list(ISAS)
LOOPS = Path(__file__).parent.parent / "mathlib" / "loops"

#: inputs of the kernels on a uniform array: a linear index and no edge inputs, so verify's arrays
#: have exactly N + 2 * OFFSET elements, followed by an inaccessible page
N = 4096
LEN = N + 2 * OFFSET

KERNELS = {
    # cause 2: a counter read after the loop (its live-out), compared with a uniform bound
    "count_halvings": ("int count_halvings(float x)\n"
                       "{\n"
                       "    int n = 0;\n"
                       "    float y = x;\n"
                       "    while (n < 50 && y > 1.0f) {\n"
                       "        y = y * 0.5f;\n"
                       "        n++;\n"
                       "    }\n"
                       "    return n;\n"
                       "}\n"),
    # cause 2: a counter not read after the loop (no live-out), cause 1: y is read after it (blends)
    "cube_root_steps": ("float cube_root_steps(float a)\n"
                        "{\n"
                        "    float y = a > 1.0f ? a : 1.0f;\n"
                        "    for (int i = 0; i < 40; i++) {\n"
                        "        float next = (2.0f * y + a / (y * y)) / 3.0f;\n"
                        "        if (!(next < y))\n"
                        "            break;\n"
                        "        y = next;\n"
                        "    }\n"
                        "    return y;\n"
                        "}\n"),
    # cause 2 in nested divergent loops: the inner counter k starts anew in every outer iteration
    # (under the outer loop's mask) and is read after the inner loop; the outer r is no counter
    "nested_counters": ("int nested_counters(int a)\n"
                        "{\n"
                        "    int total = 0;\n"
                        "    int r = a & 7;\n"
                        "    while (r > 0) {\n"
                        "        int k = 0;\n"
                        "        float y = (float)((a >> r) & 255);\n"
                        "        while (k < 10 && y > 1.0f) {\n"
                        "            y = y * 0.5f;\n"
                        "            k++;\n"
                        "        }\n"
                        "        total += k * r;\n"
                        "        r--;\n"
                        "    }\n"
                        "    return total;\n"
                        "}\n"),
    # cause 2: the counter's start runs in every lane, the loop only in some (its live-out is the
    # start value in the others)
    "counter_under_if": ("int counter_under_if(int a, float x)\n"
                         "{\n"
                         "    int k = 3;\n"
                         "    if (a > 0) {\n"
                         "        while (k < 40 && x < 1000.0f) {\n"
                         "            x = x * 1.25f + 1.0f;\n"
                         "            k += 2;\n"
                         "        }\n"
                         "    }\n"
                         "    return k;\n"
                         "}\n"),
    # cause 2: the counter n is read before its loop (by another loop's test): that read sees its
    # start, in n_out (tests/fuzz_regressions/counter_read_before_loop.c)
    "counter_read_before": ("int counter_read_before(int x)\n"
                            "{\n"
                            "    int n = 5;\n"
                            "    int s = 0;\n"
                            "    for (int k = 0; k < n; k++) {\n"
                            "        s += x;\n"
                            "    }\n"
                            "    while (n < 100) {\n"
                            "        if (x < n)\n"
                            "            break;\n"
                            "        n = n + 1;\n"
                            "    }\n"
                            "    return n + s;\n"
                            "}\n"),
    # cause 1: z is carried through the inner loop into the next outer iteration (nothing sets it
    # again before the inner loop): lanes that left the inner loop must keep their z (every loop has
    # a bound: z = -0.5 is a fixed point of the update)
    "outer_carried": ("float outer_carried(float x)\n"
                      "{\n"
                      "    float z = x;\n"
                      "    float acc = 0.0f;\n"
                      "    for (int i = 0; i < 4; i++) {\n"
                      "        int k = 0;\n"
                      "        while (z < 100.0f && z > -100.0f && k < 1000) {\n"
                      "            z = z * 1.5f + 0.25f;\n"
                      "            k = k * 3 + 1;\n"
                      "        }\n"
                      "        acc += (float)k;\n"
                      "        z = z * 0.125f;\n"
                      "    }\n"
                      "    return acc;\n"
                      "}\n"),
    # the same with z read only in the inner loop: still carried into the next outer iteration
    "outer_carried_only_inside": ("float outer_carried_only_inside(float x)\n"
                                  "{\n"
                                  "    float z = x;\n"
                                  "    float acc = 0.0f;\n"
                                  "    for (int i = 0; i < 4; i++) {\n"
                                  "        float w = 0.0f;\n"
                                  "        while (z < 100.0f && z > -100.0f && w < 50.0f) {\n"
                                  "            z = z * 1.5f + (float)i;\n"
                                  "            w = w + 1.0f;\n"
                                  "        }\n"
                                  "        acc += w;\n"
                                  "    }\n"
                                  "    return acc;\n"
                                  "}\n"),
    # cause 1 in a divergent outer loop: z is set again before each inner loop (no blend needed);
    # cause 2: the inner counter t starts there too
    "outer_reset": ("float outer_reset(float x, int m)\n"
                    "{\n"
                    "    float acc = 0.0f;\n"
                    "    int r = m & 7;\n"
                    "    while (r > 0) {\n"
                    "        float z = x + (float)r;\n"
                    "        int t = 0;\n"
                    "        while (t < 60 && z < 100.0f && z > -100.0f) {\n"
                    "            z = z * 1.5f + 0.25f;\n"
                    "            acc += 1.0f;\n"
                    "            t++;\n"
                    "        }\n"
                    "        r--;\n"
                    "    }\n"
                    "    return acc;\n"
                    "}\n"),
    # cause 1: d is dead after the loop, so lanes that left keep decrementing it through 0 and -1
    # (and a may be INT_MIN): their divisions must not trap
    "div_garbage": ("int div_garbage(int a, int b)\n"
                    "{\n"
                    "    int d = (b & 63) + 2;\n"
                    "    int s = 0;\n"
                    "    while (d > 1) {\n"
                    "        s += a / d + (a % d);\n"
                    "        d = d - 1 - (a & 1);\n"
                    "    }\n"
                    "    return s;\n"
                    "}\n"),
    # cause 4: a uniform loop calling a static helper with an early return
    "helper_return": ("static float helper(float x, int i)\n"
                      "{\n"
                      "    if (x > (float)i)\n"
                      "        return x - (float)i;\n"
                      "    return x * 0.5f;\n"
                      "}\n"
                      "float helper_return(float x)\n"
                      "{\n"
                      "    float acc = 0.0f;\n"
                      "    for (int i = 0; i < 8; i++)\n"
                      "        acc += helper(x, i);\n"
                      "    return acc;\n"
                      "}\n"),
    # cause 4: a helper with a local, called in a uniform loop, then a uniform if calling it again
    "helper_local": ("static float helper(float x, int i)\n"
                     "{\n"
                     "    float t = x * (float)i;\n"
                     "    if (t > 4.0f)\n"
                     "        return t;\n"
                     "    return t + 1.0f;\n"
                     "}\n"
                     "float helper_local(float x, int n)\n"
                     "{\n"
                     "    float acc = 0.0f;\n"
                     "    int m = 0;\n"
                     "    for (int i = 0; i < 6; i++) {\n"
                     "        acc += helper(x, i);\n"
                     "        m = m + i;\n"
                     "    }\n"
                     "    if (m > 10)\n"
                     "        acc += helper(acc, m);\n"
                     "    for (int j = 0; j < m; j++)\n"
                     "        acc = acc * 0.5f + (float)j;\n"
                     "    return acc + (float)n;\n"
                     "}\n"),
    # cause 4: continue in a uniform loop
    "continue_uniform": ("float continue_uniform(float x)\n"
                         "{\n"
                         "    float acc = 0.0f;\n"
                         "    for (int i = 0; i < 10; i++) {\n"
                         "        if (x > (float)i)\n"
                         "            continue;\n"
                         "        acc += x * (float)i;\n"
                         "    }\n"
                         "    return acc;\n"
                         "}\n"),
    # the exit test of a uniform loop after a masked statement: the test runs in every lane (a
    # test guarded by that statement's mask never ended the loop when no lane had x > 100)
    "exit_after_mask": ("int exit_after_mask(int x)\n"
                        "{\n"
                        "    int acc = 0;\n"
                        "    for (int i = 1; ; i++) {\n"
                        "        if (x > 100)\n"
                        "            acc += 1;\n"
                        "        if (100 / i < 3)\n"
                        "            break;\n"
                        "        acc += 2;\n"
                        "    }\n"
                        "    return acc;\n"
                        "}\n"),
}

#: kernels on a uniform array that ends at an inaccessible page (their second parameter is linear)
ARRAY_KERNELS = {
    # cause 1: i is dead after the loop, so lanes that left keep stepping past the array's end:
    # their table reads (element 0 in inactive lanes) must not fault
    "gather_garbage": ("#pragma omp declare simd uniform(tab) linear(x)\n"
                       "int gather_garbage(const int *tab, int x)\n"
                       "{\n"
                       "    int i = x & 63;\n"
                       "    int acc = 0;\n"
                       f"    while (i < {LEN - 8}) {{\n"
                       "        acc += tab[i] & 255;\n"
                       "        i += 1 + (tab[i] & 7);\n"
                       "    }\n"
                       "    return acc;\n"
                       "}\n"),
    # cause 2: n is a scalar; when it reaches the array's length every lane leaves by the second
    # test, and the uniform read tab[n] under the (then empty) mask must not run
    "uniform_read_end": ("#pragma omp declare simd uniform(tab) linear(x)\n"
                         "int uniform_read_end(const int *tab, int x)\n"
                         "{\n"
                         "    int acc = x;\n"
                         "    int n = 0;\n"
                         "    while (acc != 12345) {\n"
                         f"        if (n >= {LEN})\n"
                         "            break;\n"
                         "        acc = (acc ^ tab[n]) & 0xffff;\n"
                         "        n++;\n"
                         "    }\n"
                         "    return acc + n;\n"
                         "}\n"),
}


def body(text: str, name: str) -> str:
    """The expanded function ``_Exp_name`` of an output."""
    return text[text.index(f"_Exp_{name}("):]


def _assignments(text: str, var: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if re.match(rf"\s*{var} = ", line)]


@pytest.mark.parametrize("isa", ALL)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_loop_kernel_verifies(tmp_path: Path, isa: str, name: str) -> None:
    check_source(tmp_path, name, KERNELS[name], isa)


@pytest.mark.parametrize("isa", ALL)
@pytest.mark.parametrize("name", sorted(ARRAY_KERNELS))
def test_garbage_lanes_do_not_fault(tmp_path: Path, isa: str, name: str) -> None:
    src = tmp_path / f"{name}.c"
    src.write_text(ARRAY_KERNELS[name])
    isa_t = get_isa(isa)
    for mode in ("off", "auto"):  # (BOSCC guards could hide a missing test: off first)
        res = expand_module(read_file(str(src), src.read_text()), isa_t, boscc=mode)
        (e,) = res.functions
        rep = verify(scalar_sources=[src], scalar_name=name, vector_c=res.text, vector_name=e.vector_name,
                     params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=isa_t,
                     constants=e.constants, n_random=N)
        assert_verified(rep, res.text)
        assert rep.edge_inputs == 0 and rep.inputs == N and "PROT_NONE" in rep.harness_c


@pytest.mark.slow
@pytest.mark.parametrize("isa", ALL)
@pytest.mark.parametrize("name", ["mandelbrot", "newton_sqrt", "two_exits", "nested", "gcd"])
def test_loop_corpus_verifies_in_every_boscc_mode(tmp_path: Path, isa: str, name: str) -> None:
    """BOSCC off and all (auto: tests/test_loops.py): guards around scalar counters and live-outs."""
    text = (LOOPS / f"{name}.c").read_text()
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    isa_t = get_isa(isa)
    for mode in ("off", "all"):
        res = expand_module(read_file(str(src), text), isa_t, boscc=mode)
        (e,) = res.functions
        rep = verify(scalar_sources=[src], scalar_name=name, vector_c=res.text, vector_name=e.vector_name,
                     params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=isa_t,
                     constants=e.constants, n_random=3000)
        assert_verified(rep, res.text)


# ------------------------------------------------------------------------------------------ shapes


def test_mandelbrot_blends_only_its_live_out(tmp_path: Path) -> None:
    """zr and zi are dead after the loop: no blend; n is a scalar counter, its scalar test leaves the
    loop, and its live-out is written only where lanes leave."""
    _, _, res = expand_source(tmp_path, "mandelbrot", (LOOPS / "mandelbrot.c").read_text(), "avx2")
    b = body(res.text, "mandelbrot")
    assert _assignments(b, "zr") == ["zr = _mm256_set1_ps(0.0f);", "zr = t;"]
    assert [a for a in _assignments(b, "zi") if "blend" in a] == []
    assert "    int n;" in b and "n = 0;" in b and "n = n + 1;" in b
    assert "if (!(n < 1000)) {" in b and "break;" in b
    outs = _assignments(b, "n_out")
    assert len(outs) == 2 and all("_mm256_set1_epi32((int32_t)(n))" in a for a in outs), outs
    assert "if ((!_mm256_testz_si256(leaving6, _mm256_set1_epi32(-1)))) {" in b  # (written once per lane)
    assert "return n_out;" in b
    assert b.count("blendv") == 2  # the two live-out writes, nothing else


def test_counter_not_read_after_the_loop_has_no_live_out(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "cube_root_steps", KERNELS["cube_root_steps"], "sse4.1")
    b = body(res.text, "cube_root_steps")
    assert re.search(r"\n    int i( = 0)?;", b) and "i = i + 1;" in b and "if (!(i < 40)) {" in b
    assert "i_out" not in b
    assert any("blendv" in a for a in _assignments(b, "y"))  # y is returned: it blends


def test_counter_read_after_the_loop(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "count_halvings", KERNELS["count_halvings"], "avx2")
    b = body(res.text, "count_halvings")
    assert "    int n;" in b and "return n_out;" in b
    assert _assignments(b, "y")[-1] == "y = _mm256_mul_ps(y, _mm256_set1_ps(0.5f));"  # dead after: no blend


def test_nested_counter_starts_in_each_outer_iteration(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "nested_counters", KERNELS["nested_counters"], "avx2")
    b = body(res.text, "nested_counters")
    assert re.search(r"\n    int k( = 0)?;", b) and "k = 0;" in b and "k = k + 1;" in b and "k_out" in b
    assert "if (!(k < 10)) {" in b


def test_counter_under_if_keeps_its_start_in_other_lanes(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "counter_under_if", KERNELS["counter_under_if"], "avx2")
    b = body(res.text, "counter_under_if")
    assert "k_out = _mm256_set1_epi32((int32_t)(k));" in b  # every lane, before the loop some skip
    assert "k = k + 2;" in b


def test_counter_read_before_its_loop_reads_its_start(tmp_path: Path) -> None:
    """n is a scalar counter of the while loop; the for loop before it reads n_out (a vector: no
    scalar test on it), which holds n's start from right after n = 5."""
    _, _, res = expand_source(tmp_path, "counter_read_before", KERNELS["counter_read_before"], "avx2")
    b = body(res.text, "counter_read_before")
    start = b.index("n_out = _mm256_set1_epi32((int32_t)(n));")
    assert b.index("n = 5;") < start < b.index("_mm256_cmpgt_epi32(n_out, k)"), b
    assert "n = n + 1;" in b and "if (!(n < 100)) {" in b


def test_value_read_in_next_outer_iteration_keeps_its_blend(tmp_path: Path) -> None:
    for name in ("outer_carried", "outer_carried_only_inside"):
        _, _, res = expand_source(tmp_path, name, KERNELS[name], "avx2")
        b = body(res.text, name)
        inner = [a for a in _assignments(b, "z") if "_mm256_mul_ps(z, _mm256_set1_ps(1.5f))" in a]
        assert inner and all("blendv" in a for a in inner), inner


def test_value_set_before_each_inner_loop_does_not_blend(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "outer_reset", KERNELS["outer_reset"], "avx2")
    b = body(res.text, "outer_reset")
    inner = [a for a in _assignments(b, "z") if "_mm256_mul_ps(z, _mm256_set1_ps(1.5f))" in a]
    assert inner and not any("blendv" in a for a in inner), inner


def test_counter_met_only_by_varying_values_stays_a_vector(tmp_path: Path) -> None:
    """nested.c's j is compared with the varying m only: a scalar would be broadcast at each use."""
    _, _, res = expand_source(tmp_path, "nested", (LOOPS / "nested.c").read_text(), "avx2")
    b = body(res.text, "nested")
    assert "__m256i j;" in b and "j = _mm256_add_epi32(j, _mm256_set1_epi32((int32_t)(1)));" in b
    assert "int i;" in b and "for (;;)" in b


@pytest.mark.parametrize("name", ["helper_return", "helper_local", "continue_uniform"])
def test_uniform_loop_stays_scalar_through_jumps(tmp_path: Path, name: str) -> None:
    _, _, res = expand_source(tmp_path, name, KERNELS[name], "avx2")
    b = body(res.text, name)
    assert "for (;;)" in b and "while (" not in b and "active" not in b, b
    assert "    int i;" in b


def test_helper_local_keeps_later_loop_and_branch_uniform(tmp_path: Path) -> None:
    """After the inlined helpers, m is still uniform: the if on it stays a branch, the loop up to m a
    scalar loop."""
    _, _, res = expand_source(tmp_path, "helper_local", KERNELS["helper_local"], "avx2")
    b = body(res.text, "helper_local")
    assert "    int m;" in b and "    int j;" in b and "if (m > 10) {" in b and b.count("for (;;)") == 2


def test_uniform_read_under_a_mask_runs_only_with_a_lane_on(tmp_path: Path) -> None:
    src = tmp_path / "uniform_read_end.c"
    src.write_text(ARRAY_KERNELS["uniform_read_end"])
    res = expand_module(read_file(str(src), src.read_text()), get_isa("avx2"), boscc="off")
    b = body(res.text, "uniform_read_end")
    # (the loop mask where lanes are still on: ``active``, its exit tests in the leaving guards)
    assert re.search(r"\(\(!_mm256_testz_si256\((staying|active)\w*, _mm256_set1_epi32\(-1\)\)\) \? tab\[n\] : 0\)",
                     b), b
