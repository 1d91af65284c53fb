"""Exit 0 means correct, compilable C (issue 23 section 3, issue 18 section 1): inputs that once gave
wrong or uncompilable output with exit 0, or a traceback. Each case on every ISA: plain expand's
output compiles with the ISA's compiler and -Wall -Wextra -Werror -Werror=implicit-function-declaration,
and --verify passes (or, for what cannot be made right, expand stops with file:line:col: error)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from daily import on_every_isa
from expand_case import check_source, expand_source
from hostrun import skip_if_cli_not_run

from expand.cli import main as expand_main

#: name -> (source, functions, uniform parameters, --link companion, bounds)
CASES: dict[str, tuple[str, list[str] | None, list[str], str, dict[str, tuple[int, int]]]] = {
    # issue 18 section 1: a local whose address each lane's call gets (glibc's __rem_pio2f(x, &y))
    "split": ("int split(float x, float *y);\n"
              "float f(float x) {\n    float y;\n    int n = split(x, &y);\n    if (n & 1) return -y;\n"
              "    return y;\n}\n", None, [], "split", {}),
    # the same under a mask, with an initial value the inactive lanes keep
    "split_masked": ("int split(float x, float *y);\n"
                     "float f(float x) { float y = 7.0f; if (x > 1.0f) { int n = split(x, &y); y += (float)n; }"
                     " return y; }\n", None, [], "split", {}),
    # in a loop whose trip count differs per lane
    "split_loop": ("int split(float x, float *y);\n"
                   "float f(float x, int k) { float y = 0.0f, s = 0.0f;\n"
                   "    for (int i = 0; i < k; i++) { split(x + (float)i, &y); s += y; }\n    return s; }\n",
                   None, [], "split", {"k": (0, 20)}),
    # a parameter's address; two addresses in one call, and one address twice
    "param_address": ("int split(float x, float *y);\n"
                      "float f(float x) { int n = split(x, &x); return x + (float)n; }\n", None, [], "split", {}),
    "two_addresses": ("void twice(float *a, float *b);\n"
                      "float f(float x) { float y = x * 3.0f; twice(&x, &y); twice(&y, &y); return x - y; }\n",
                      None, [], "twice", {}),
    # a pointer parameter (a gang) passed on to a per-lane call: each lane gets its own element
    "gang_pointer": ("void put(float x, float *o);\nvoid f(float x, float *out) { put(x, out); }\n", None, [],
                     "put", {}),
    # issue 23 section 3
    "file_constant": ("static const float C0 = -0.5f;\nfloat r2(float x) { return x * C0; }\n", None, [], "", {}),
    "table_2d": ("static const float q[2][2] = {{1.0f, 2.0f}, {3.0f, 4.0f}};\n"
                 "float t2d(float x) { float y = x * q[1][0]; return y; }\n", None, [], "", {}),
    "same_file_call": ("float cr_g(float x) { return x * 2.0f; }\nfloat g(float x) { return cr_g(x); }\n", None,
                       [], "", {}),
    "same_file_call_plus": ("float g(float x) { return x * 2.0f; }\n"
                            "float f(float x) { float r = g(x) + 1.0f; return r; }\n", ["f"], [], "", {}),
    "table_in_return": ("static const float k[2] = {2.0f, 3.0f};\n"
                        "float f(float x, int i) { return x * k[i & 1]; }\n", None, [], "", {}),
    "uniform_struct": ("struct S { float k; };\n"
                       "float h(float x, struct S *s) { float r = x * s->k; return r; }\n", None, ["s"], "", {}),
    "static_function": ("static float g(float x) { if (x > 1.0f) return x * 0.5f; return x + 1.0f; }\n"
                        "float pub(float x) { return g(x); }\n", ["g"], [], "", {}),
    # a masked assignment with no blend (y is assigned again before any read) reading a table at a constant
    # index, which needs no mask: no mask computed and never read (fuzz 20261126-49, -Werror)
    "dead_blend_table": ("static const unsigned T1[4] = {10u, 6u, 0xffffu, 4095u};\n"
                         "unsigned f(unsigned x, unsigned y) { if (x > 5u) y += T1[1]; y = x; return y; }\n",
                         None, [], "", {}),
}

COMPANIONS = {
    "split": "int split(float x, float *y) { int n = (int)(x * 0.5f); *y = x - (float)n * 2.0f; return n; }\n",
    "twice": "void twice(float *a, float *b) { float t = *a; *a = *b * 2.0f; *b = t + 1.0f; }\n",
    "put": "void put(float x, float *o) { *o = x + 0.25f; }\n",
}


def _expand(tmp_path: Path, name: str, isa_name: str):
    text, funcs, uniform, _, _ = CASES[name]
    return expand_source(tmp_path, name, text, isa_name, funcs, uniform)


@pytest.mark.parametrize("name,isa_name", on_every_isa(CASES))
def test_output_compiles_strictly_and_verifies(tmp_path: Path, name: str, isa_name: str) -> None:
    text, funcs, uniform, companion, bounds = CASES[name]
    check_source(tmp_path, name, text, isa_name, functions=funcs, uniform=uniform,
                 companion=COMPANIONS[companion] if companion else "", bounds=bounds)


def test_split_gets_storage_per_lane_and_a_prototype(tmp_path: Path) -> None:
    _, _, res = _expand(tmp_path, "split", "sse4.1")
    assert "extern int split(float, float *);" in res.text
    assert re.search(r"float y_lanes\[4\];", res.text) and "&y_lanes[lane]" in res.text
    assert "y = _mm_loadu_ps(y_lanes);" in res.text


def test_declarations_come_from_the_input(tmp_path: Path) -> None:
    for name, want in (("file_constant", "static const float C0 = -0.5f;"),
                       ("table_2d", "static const float q[2][2] = {{1.0f, 2.0f}, {3.0f, 4.0f}};"),
                       ("table_in_return", "static const float k[2] = {2.0f, 3.0f};"),
                       ("same_file_call", "extern float cr_g(float);"),
                       ("uniform_struct", "struct S { float k; };")):
        _, _, res = _expand(tmp_path, name, "avx2")
        assert want in res.text, name


# ------------------------------------------------------------------ what must stay a diagnostic

REFUSED = {
    "global_address": ("extern float G;\nint split(float x, float *y);\n"
                       "float f(float x) { int n = split(x, &G); return G + (float)n; }\n",
                       r"3:\d+: error: 'split' is called once per lane with the address of global 'G'"),
    "uniform_address": ("int split(float x, float *y);\n#pragma omp declare simd uniform(u)\n"
                        "float f(float x, float u) { int n = split(x, &u); return u + (float)n; }\n",
                        r"3:\d+: error: the address of uniform parameter 'u' is taken"),
    # (a pointer that only ever holds &y is y: expand/passes/address_locals.py; one of two addresses is not)
    "pointer_local": ("int split(float x, float *y);\nfloat f(float x) { float y = 0, z = 1; float *p = &y; "
                      "if (x > 0) p = &z; int n = split(x, p); return y + z + (float)n; }\n",
                      r"2:\d+: error: values of type 'float \*' cannot be vectorized"),
    "x86intrin": ("#include <x86intrin.h>\n"
                  "float f(float x) { unsigned c = _mm_getcsr(); if (c & 0x8000) return x; return x * 2.0f; }\n",
                  r"1:1: error: the header included here \(#include <x86intrin.h>\) has C that expand cannot read"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_refused_with_a_located_diagnostic(tmp_path: Path, name: str, capsys) -> None:
    text, want = REFUSED[name]
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    out = tmp_path / "out.c"
    rc = expand_main([str(src), "--isa", "sse4.1", "-o", str(out)])
    err = capsys.readouterr().err
    assert rc == 1 and re.search(rf"^{re.escape(str(src))}:{want}", err, re.M), err
    assert "Traceback" not in err and not out.exists()
    assert src.read_text() == text  # the input is untouched


# ------------------------------------------------------------------ the scalar code's own faults

UB = "int f(int k, int n) {\n    if (k + n < k) return 0;\n    return k + n;\n}\n"
CRASH = "static const float tab[4] = {1, 2, 3, 4};\nfloat f(float x, int i) { return x * tab[i]; }\n"


@pytest.mark.parametrize("isa_name", ["sse2", "sse4.1", "avx2"])  # (GCC folds k + n < k on x86)
def test_undefined_behaviour_in_the_scalar_code_is_its_own_verdict(tmp_path: Path, isa_name: str, capsys) -> None:
    src = tmp_path / "ub.c"
    src.write_text(UB)
    rc = expand_main([str(src), "--isa", isa_name, "--verify", "--random", "500", "-o", str(tmp_path / "o.c")])
    cap = capsys.readouterr()
    skip_if_cli_not_run(rc, cap.err)
    assert rc == 1
    assert re.search(r"\d+ mismatches; the scalar code has undefined behaviour for these inputs \(ub\.c:2: signed"
                     r" integer overflow\)", cap.out), cap.out
    assert re.search(r"^input \d+: .*ub\.c:2: signed integer overflow$", cap.err, re.M), cap.err


@pytest.mark.parametrize("isa_name", ["sse4.1", "neon", "altivec"])
def test_a_crashing_scalar_function_is_named_with_its_input(tmp_path: Path, isa_name: str, capsys) -> None:
    src = tmp_path / "crash.c"
    src.write_text(CRASH)
    rc = expand_main([str(src), "--isa", isa_name, "--verify", "--random", "500", "-o", str(tmp_path / "o.c")])
    cap = capsys.readouterr()
    skip_if_cli_not_run(rc, cap.err)
    assert rc == 1
    assert re.search(r"the scalar function f crashed \(SIG(SEGV|BUS)\) on input \d+ \(x=0x[0-9a-f]+ \(.*\)"
                     r" i=0x[0-9a-f]+ \(-?\d+\)\): the scalar code fails there", cap.out), cap.out
    assert "--range NAME=LO:HI" in cap.err
    rc = expand_main([str(src), "--isa", isa_name, "--verify", "--random", "500", "--range", "i=0:3",
                      "-o", str(tmp_path / "o.c")])
    cap = capsys.readouterr()
    assert rc == 0 and ", 0 mismatches" in cap.out, cap.out + cap.err


#: a recursion without end for x > 0 (each call's frame kept by the volatile pad): a stack overflow
DEEP = """float deep(float x);
float deep(float x) { volatile float pad[64]; pad[0] = x; if (x > 0.0f) return deep(x + 1.0f) + pad[0]; return x; }
float f(float x) { return x > 1e30f ? deep(x) : x; }
"""


@pytest.mark.parametrize("isa_name", ["sse4.1", "neon", "altivec"])
def test_a_stack_overflow_in_the_scalar_function_is_named(tmp_path: Path, isa_name: str, capsys) -> None:
    """The harness's signal handler runs on a stack of its own, so a scalar call that overflows the stack is
    told as a crash of the scalar function at its input (it was 'the harness crashed', with no side)."""
    src = tmp_path / "deep.c"
    src.write_text(DEEP)
    rc = expand_main([str(src), "--isa", isa_name, "--functions", "f", "--verify", "--random", "100",
                      "-o", str(tmp_path / "o.c")])
    cap = capsys.readouterr()
    skip_if_cli_not_run(rc, cap.err)
    assert rc == 1
    assert re.search(r"the scalar function f crashed \(SIGSEGV\) on input \d+ \(x=0x[0-9a-f]+", cap.out), cap.out


#: newlib's libm/math/wf_sincos.c (newlib 3.3), the K&R branch and the #if around it left out
NEWLIB_SINCOSF = """#include <math.h>
void sincosf(float x, float *sinx, float *cosx)
{
  *sinx = sinf (x);
  *cosx = cosf (x);
}
"""


@pytest.mark.parametrize("isa_name", ["avx2", "neon", "altivec"])
def test_a_libm_function_of_its_own_verifies(tmp_path: Path, isa_name: str, capsys) -> None:
    """newlib's sincosf verifies: GCC made the scalar reference's sinf and cosf calls one call of sincosf,
    itself, and the harness ran out of stack; the reference is compiled without those two builtins
    (expand.ir.libc.COMBINED_INTO)."""
    src = tmp_path / "wf_sincos.c"
    src.write_text(NEWLIB_SINCOSF)
    rc = expand_main([str(src), "--isa", isa_name, "--verify", "--random", "2000", "-o", str(tmp_path / "o.c")])
    cap = capsys.readouterr()
    skip_if_cli_not_run(rc, cap.err)
    assert rc == 0 and ", 0 mismatches" in cap.out, cap.out + cap.err
