"""sin/cos pairs (expand/passes/sincos_pairs.py): ``sinf(a)`` and ``cosf(a)`` of one value become one call
of mathlib's vector sincosf, and a call of ``sincosf(x, &s, &c)`` the user writes is that call too
(emit/printer.py ``vector_stores_call``), bit for bit with the scalar code on all 7 ISAs; a pair something
could tell apart (a write of the argument, another call between them) stays two calls.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hostrun import assert_verified

from emit import ISAS, get_isa
from expand.check.verify import Param, verify
from expand.driver import expand_module
from expand.vecmath import VectorMath, isa_tag
from frontends.pycparser_frontend import read_file
from mathlib.libm import ensure

HEAD = "#define _GNU_SOURCE\n#include <math.h>\n"

#: name -> (source, pairs fused: True = one sincosf call and no sinf/cosf call, False = no sincosf)
CASES: dict[str, tuple[str, bool]] = {
    # aobench's occlusion rays: two statements apart
    "apart": (HEAD + "float f(float x, float t)\n{\n    float phi = 6.2831855f * x;\n"
              "    float a = cosf(phi) * t;\n    float b = sinf(phi) * t;\n    return a - b;\n}\n", True),
    "one_statement": (HEAD + "float f(float x)\n{\n    return sinf(x) * cosf(x);\n}\n", True),
    # under a condition that differs per lane: the masked entry point
    "masked": (HEAD + "float f(float x)\n{\n    float r = x;\n    if (x > 1.0f) {\n        float s = sinf(x);\n"
               "        r = s + cosf(x);\n    }\n    return r;\n}\n", True),
    # in a loop whose trip count differs per lane, with errno tracked (the calls repeat)
    "loop": (HEAD + "float f(float x, int n)\n{\n    float r = 0.0f;\n    for (int i = 0; i < (n & 7); i++) {\n"
             "        r += sinf(x) * cosf(x);\n        x = x * 1.5f;\n    }\n    return r;\n}\n", True),
    # the user's own sincosf with out-parameters
    "user_sincosf": (HEAD + "float f(float x)\n{\n    float s, c;\n    sincosf(x, &s, &c);\n"
                     "    return s * 2.0f + c;\n}\n", True),
    # the argument changes between the calls: two calls
    "assigned_between": (HEAD + "float f(float x)\n{\n    float a = sinf(x);\n    x = x * 2.0f;\n"
                         "    return a + cosf(x);\n}\n", False),
    # the argument changes inside an if between the calls: two calls
    "assigned_in_if": (HEAD + "float f(float x)\n{\n    float a = sinf(x);\n    if (a > 0.5f)\n        x = -x;\n"
                       "    return a + cosf(x);\n}\n", False),
}


def _expand(tmp_path: Path, case: str, isa_name: str):
    src = tmp_path / f"{case}.c"
    src.write_text(CASES[case][0])
    isa = get_isa(isa_name)
    vm = VectorMath(["expand"])
    res = expand_module(read_file(str(src), src.read_text(), cc=isa.preprocessor), isa, functions=["f"],
                        vector_math=vm)
    return src, isa, vm, res


@pytest.mark.parametrize("isa_name", list(ISAS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_pairs_verify(tmp_path: Path, case: str, isa_name: str) -> None:
    src, isa, vm, res = _expand(tmp_path, case, isa_name)
    code = re.sub(r"/\*.*?\*/", "", res.text, flags=re.S)
    tag = isa_tag(isa)
    fused = re.search(rf"\b_Exp_sincosf_{tag}(_masked)?\(", code) is not None
    assert fused == CASES[case][1], res.text
    if fused:
        assert not re.search(rf"\b_Exp_(sin|cos)f_{tag}", code), res.text
    if case == "masked":
        assert f"_Exp_sincosf_{tag}_masked(" in code
    (e,) = res.functions
    needs = vm.link(isa, ensure)
    rep = verify(scalar_sources=[src], scalar_name=e.scalar_name, vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=isa,
                 link_files=needs.link_files, libs=(*needs.libs, "m"), constants=e.constants, n_random=3000,
                 bounds={"n": (-20, 20)} if case == "loop" else {}, nan_bits=False)  # (as --verify: any NaN)
    assert_verified(rep, res.text)


def test_without_the_library_the_calls_stay(tmp_path: Path) -> None:
    """No vector sincosf to call (--vector-math none): sinf and cosf stay as the source has them."""
    src = tmp_path / "apart.c"
    src.write_text(CASES["apart"][0])
    isa = get_isa("avx2")
    res = expand_module(read_file(str(src), src.read_text(), cc=isa.preprocessor), isa, functions=["f"])
    assert "sincosf" not in res.text and "cosf" in res.text and "sinf" in res.text


def test_no_pair_across_another_call(tmp_path: Path) -> None:
    """Another call between them (one that may set errno): two calls, in C's order. (Not verified: GCC's
    scalar code pairs them all the same, its cse_sincos taking sin and cos to set no errno, so where
    expf sets ERANGE between, its sincosf's EDOM for an infinity comes first; expand keeps C's order.)"""
    src = tmp_path / "call_between.c"
    src.write_text(HEAD + "float f(float x, float y)\n{\n    float a = sinf(x);\n    float e = expf(y);\n"
                   "    return a + e * cosf(x);\n}\n")
    isa = get_isa("avx2")
    res = expand_module(read_file(str(src), src.read_text(), cc=isa.preprocessor), isa, functions=["f"],
                        vector_math=VectorMath(["expand"]))
    assert "sincosf" not in res.text and "_Exp_sinf_avx2" in res.text and "_Exp_cosf_avx2" in res.text
