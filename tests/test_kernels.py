"""Small kernels for each IR feature the spine promises, each verified bit-exact on SSE4.1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hostrun import assert_verified

from emit import get_isa
from expand.check.verify import Param, verify
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file

ROOT = Path(__file__).parent.parent


def code_of(text: str, fn: str = "_Exp_f(") -> str:
    """The generated function's statements without the source-line comments."""
    body = text[text.index(fn):]
    return "\n".join(line for line in body.splitlines() if not line.strip().startswith("/*"))

KERNELS = {
    # Inactive lanes would divide by zero or overflow INT_MIN / -1 without safe divisors.
    "guarded_div": "int f(int a, int b) { if (b != 0 && !(a == (-2147483647 - 1) && b == -1)) return a / b; "
                   "return 7; }",
    "guarded_mod": "unsigned f(unsigned a, unsigned b) { if (b) return a % b + a / b; return a; }",
    "pow2_mod": "unsigned f(unsigned a) { return a % 16u + a / 8u; }",
    "doubles": "double f(double x, double y) { double t = x * y - 1.5; if (t < x) t = t / (y + 2.0); return t; }",
    "int64": "#include <stdint.h>\nint64_t f(int64_t a, int64_t b) { int64_t t = a * b + (a >> 3); "
             "if ((uint64_t)t > 100u) t = t ^ (b << 2); return t; }",
    "uint64_shift": "#include <stdint.h>\nuint64_t f(uint64_t a, int n) { return (n >= 0 && n < 64) ? a >> n : a; }",
    "unsigned_cmp": "unsigned f(unsigned a, unsigned b) { return a < b ? b - a : a - b; }",
    "mixed_conv": "float f(int i, double d) { float r = (float)i * 0.5f; if (d > 1e10 || d < -1e10) return r; "
                  "return r + (float)(int)d; }",
    "char_short": "int f(signed char c, unsigned short s) { signed char t = c * 3; unsigned short u = s + 1000; "
                  "return t + u; }",
    "union_pun": "#include <stdint.h>\nfloat f(float x) { union { float f; uint32_t i; } u; u.f = x; "
                 "u.i &= 0x7fffffff; return u.f; }",
    "memcpy_pun": "#include <stdint.h>\n#include <string.h>\nfloat f(float x) { uint32_t i; memcpy(&i, &x, sizeof i); "
                  "i ^= 0x80000000u; memcpy(&x, &i, sizeof x); return x; }",
    "ternary_select": "float f(float x, float y) { return x > y ? x : (y != y ? x : y); }",
    "static_table_gather": "static const float tab[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
                           "float f(float x, unsigned k) { if (k < 8) return x * tab[k]; return x; }",
    "early_returns": "int f(int x) { if (x < 0) return -1; if (x == 0) return 0; if (x > 1000) goto big; return 1;"
                     " big: return 2; }",
    "short_circuit_call": "#include <math.h>\nfloat f(float x) { if (x > 0 && sqrtf(x) > 2.0f) return 1; return 0; }",
    "out_pointer": "void f(float x, float *y, int *flag) { if (x > 1) { *y = x * 2; *flag = 1; } }",
    "static_helper": "static int sq(int v) { if (v > 46340) return 0; return v * v; }\n"
                     "int f(int a) { return sq(a) + sq(a >> 1); }",
}


def run_kernel(tmp_path: Path, name: str, text: str, fn: str = "f", expandable=frozenset(), n_random: int = 20_000):
    src = tmp_path / f"{name}.c"
    src.write_text(text + "\n")
    isa = get_isa("sse4.1")
    mod = read_file(str(src), src.read_text())
    res = expand_module(mod, isa, functions=[fn], expandable=set(expandable))
    (e,) = res.functions
    rep = verify(scalar_sources=[src], scalar_name=e.scalar_name, vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type) for p in e.params], ret=e.ret, isa=isa,
                 constants=e.constants, n_random=n_random)
    return res, rep


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_verifies(tmp_path: Path, name: str) -> None:
    res, rep = run_kernel(tmp_path, name, KERNELS[name])
    assert_verified(rep, res.text)
    assert rep.mismatches == 0


def test_punning_is_free(tmp_path: Path) -> None:
    res, rep = run_kernel(tmp_path, "memcpy", KERNELS["memcpy_pun"])
    body = code_of(res.text)
    assert "memcpy" not in body and "_mm_castps_si128" in body and "lanes" not in body
    res, rep = run_kernel(tmp_path, "union", KERNELS["union_pun"])
    body = code_of(res.text)
    assert "union" not in body and "lanes" not in body


def test_pointer_cast_pun_is_a_bitcast(tmp_path: Path) -> None:
    # (GCC warns about strict aliasing for the scalar original, so this one is checked by text only.)
    src = tmp_path / "pc.c"
    text = "int f(float x) { int i = *(int *)&x; return i >> 23; }\n"
    res = expand_module(read_file(str(src), text), get_isa("sse4.1"), functions=["f"])
    body = code_of(res.text)
    assert "i = _mm_castps_si128(x);" in body and "_mm_srai_epi32(i, 23)" in body and "lanes" not in body


def test_uniform_values_stay_scalar(tmp_path: Path) -> None:
    text = "float f(float x) { int n = 3; int m = n * 4 + 1; float c = 0.5f * m; return x * c; }"
    res, rep = run_kernel(tmp_path, "uniform", text)
    assert rep.ok, rep.details
    body = res.text[res.text.index("_Exp_f("):]
    assert "int m;" in body and "m = n * 4 + 1;" in body  # computed in scalar registers
    assert "_mm_set1_ps(c)" in body  # broadcast only where it meets a varying value


def test_expandable_callee(tmp_path: Path) -> None:
    text = "float g(float x) { return x < 0 ? -x : x * 2; }\nfloat f(float x) { if (x > 1) return g(x) + 1; return x; }"
    src = tmp_path / "two.c"
    src.write_text(text + "\n")
    isa = get_isa("sse4.1")
    res = expand_module(read_file(str(src), text), isa, functions=["g", "f"], expandable={"g"})
    assert "_Exp_g(x)" in code_of(res.text) and "lanes" not in code_of(res.text)
    e = res.functions[1]
    rep = verify(scalar_sources=[src], scalar_name="f", vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type) for p in e.params], ret=e.ret, isa=isa, n_random=20_000)
    assert rep.ok, rep.details


def test_stdin_and_version() -> None:
    p = subprocess.run([sys.executable, "-m", "expand.cli", "-", "--isa", "sse4.1"],
                       input="int f(int x) { return x + 1; }\n", capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "_mm_add_epi32" in p.stdout
    p = subprocess.run([sys.executable, "-m", "expand.cli", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0 and p.stdout.startswith("expand ")
