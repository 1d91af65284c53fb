"""Inactive lanes never trap: on every ISA, lanes whose mask is off would divide by zero, overflow
INT_MIN / -1, or read and write past the end of an array that ends at a page boundary (the
verifier puts a PROT_NONE page right after every uniform array). Each kernel must run without a
signal and match the scalar function bit for bit."""

from __future__ import annotations

from pathlib import Path

import pytest
from daily import on_every_isa
from hostrun import assert_verified

from emit import get_isa
from expand.check.verify import OFFSET, Param, verify
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file

ISAS = ["sse2", "sse4.1", "avx2", "avx512", "neon", "altivec", "generic"]
#: inputs of the array kernels: with only a uniform pointer and a linear index there are no edge
#: inputs, so the linear index runs over OFFSET .. OFFSET + N - 1 and the arrays have N + 2 * OFFSET
#: elements (verify's layout); N is a multiple of every gang size.
N = 4096
#: the array kernels touch row[x + OFFSET + K]: in bounds exactly while x < LIMIT
K = 3
LIMIT = OFFSET + N - K

KERNELS = {
    # int division and remainder: the guard keeps b == 0 and INT_MIN / -1 out of the active lanes
    "int_div": ("int f(int a, int b) {\n"
                "    if (b != 0 && !(a == (-2147483647 - 1) && b == -1))\n"
                "        return a / b + a % b;\n"
                "    return 7;\n"
                "}\n"),
    "unsigned_div": ("unsigned f(unsigned a, unsigned b) {\n"
                     "    unsigned r = a;\n"
                     "    if (b > 2u)\n"
                     "        r = a / b - a % b;\n"
                     "    return r;\n"
                     "}\n"),
    "int64_div": ("#include <stdint.h>\n"
                  "int64_t f(int64_t a, int64_t b) {\n"
                  "    if (b == 0 || (a == INT64_MIN && b == -1))\n"
                  "        return a;\n"
                  "    return a / b;\n"
                  "}\n"),
    # a loop: lanes that left (d became 0) must not divide by their zero d in later iterations
    "loop_div": ("int f(int n, unsigned d) {\n"
                 "    int q = 0;\n"
                 "    while (d != 0) {\n"
                 "        q += (int)((unsigned)n / d);\n"
                 "        d >>= 3;\n"
                 "    }\n"
                 "    return q;\n"
                 "}\n"),
    # a varying index into a uniform array: inactive lanes hold any int (a gather would fault)
    "gather": ("#pragma omp declare simd uniform(row)\n"
               "float f(const float *row, int i) {\n"
               f"    if (i >= 0 && i < {OFFSET})\n"
               "        return row[i] * 2.0f;\n"
               "    return -1.0f;\n"
               "}\n"),
    # consecutive loads: in the last gangs the inactive lanes' elements lie past the array's end
    "load_tail": ("#pragma omp declare simd uniform(row) linear(x)\n"
                  "float f(const float *row, int x) {\n"
                  f"    if (x < {LIMIT})\n"
                  f"        return row[x + {OFFSET + K}] + 1.0f;\n"
                  "    return 0.0f;\n"
                  "}\n"),
    # consecutive stores, same: a full-vector store would write into the guard page
    "store_tail": ("#pragma omp declare simd uniform(out) linear(x)\n"
                   "void f(float *out, int x) {\n"
                   f"    if (x < {LIMIT})\n"
                   f"        out[x + {OFFSET + K}] = (float)x;\n"
                   "}\n"),
}


def expand_and_verify(tmp_path: Path, isa_name: str, name: str):
    src = tmp_path / f"{name}.c"
    src.write_text(KERNELS[name])
    isa = get_isa(isa_name)
    res = expand_module(read_file(str(src), src.read_text()), isa, functions=["f"])
    (e,) = res.functions
    rep = verify(scalar_sources=[src], scalar_name="f", vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=isa,
                 constants=e.constants, n_random=N)
    return res, rep


@pytest.mark.parametrize("name,isa", on_every_isa(sorted(KERNELS), ISAS))
def test_inactive_lanes_do_not_trap(tmp_path: Path, isa: str, name: str) -> None:
    res, rep = expand_and_verify(tmp_path, isa, name)
    assert_verified(rep, res.text)
    if name in ("load_tail", "store_tail"):
        assert rep.edge_inputs == 0 and rep.inputs == N  # so the last gangs do reach past LIMIT
        assert "PROT_NONE" in rep.harness_c


def test_the_guard_page_is_real(tmp_path: Path) -> None:
    """The same tail kernel with its guard moved K elements later reads past the end in the scalar
    code too: the harness dies with SIGSEGV, so the page boundary is really there."""
    src = tmp_path / "over.c"
    src.write_text(KERNELS["load_tail"].replace(f"x < {LIMIT}", f"x < {LIMIT + K}"))
    isa = get_isa("sse4.1")
    res = expand_module(read_file(str(src), src.read_text()), isa, functions=["f"])
    (e,) = res.functions
    rep = verify(scalar_sources=[src], scalar_name="f", vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=isa, n_random=N)
    assert not rep.ok and "SIGSEGV" in rep.summary, rep.summary
