"""The generic-vector table (emit/generic.py, GCC/Clang ``vector_size`` types): every operation
bit-exact against scalar C with 4, 8 (and a few kinds with 2 and 16) lanes, no intrinsic and no
lane-by-lane fallback in its output, and the corpus expanded for it verifies bit-exact."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from isa_check import run_isa_kind
from test_isa_sse2 import FUNCS, all_calls, expand_and_verify

from emit.generic import Generic, _p
from emit.isa import KINDS

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")


def run_kind(k: str, tmp: Path, lanes: int = 4, opt: str = "-O2") -> None:
    # literal shift counts print like variable ones here: 0, 1 and bits-1 are enough
    print(f"generic x{lanes} {k} {opt}: {run_isa_kind(Generic(lanes), k, tmp, opt, all_literals=False)}")


# --------------------------------------------------------------------------------------------------
# Every operation against scalar C


@pytest.mark.parametrize("k", KINDS)
def test_generic_every_op(k: str, tmp_path: Path) -> None:
    run_kind(k, tmp_path)


@pytest.mark.parametrize("k", KINDS)
def test_generic_every_op_8_lanes(k: str, tmp_path: Path) -> None:
    run_kind(k, tmp_path, lanes=8)


@pytest.mark.parametrize("k,lanes", [("u8", 16), ("i64", 16), ("f32", 2)])
def test_generic_every_op_other_lanes(k: str, lanes: int, tmp_path: Path) -> None:
    run_kind(k, tmp_path, lanes=lanes)


@pytest.mark.parametrize("k", ["i8", "u64", "f64"])
def test_generic_every_op_O0(k: str, tmp_path: Path) -> None:
    run_kind(k, tmp_path, opt="-O0")


# --------------------------------------------------------------------------------------------------
# The text of the table


def test_attributes() -> None:
    isa = Generic()
    assert (isa.name, isa.lanes, isa.cflags, isa.headers, isa.cc, isa.run_prefix) == \
        ("generic", 4, ["-Wno-psabi"], [], ["gcc"], [])
    assert Generic(8).lanes == 8 and Generic(16).lanes == 16
    with pytest.raises(ValueError):
        Generic(3)
    assert isa.vtype("f32") == "_Exp_v4f32" and isa.vtype("u8") == isa.vtype("u32") == "_Exp_v4i32"
    assert isa.vtype("u64") == "_Exp_v4i64" and isa.vtype("f64") == "_Exp_v4f64"
    assert isa.mask_type() == "_Exp_v4i32"
    assert isa.mtype("u8") == "_Exp_u8x4" and isa.mtype("f32") == "_Exp_v4f32"
    assert "typedef float _Exp_v4f32 __attribute__((vector_size(16)));" in isa.prelude()
    assert "typedef double _Exp_v4f64 __attribute__((vector_size(32)));" in isa.prelude()


@pytest.mark.parametrize("lanes", [4, 8])
def test_each_argument_used_once(lanes: int) -> None:
    bad = []
    for desc, text, ph in all_calls(Generic(lanes)):
        for a in ph:
            n = len(re.findall(rf"\b{a}\b", text))
            if n != 1:
                bad.append(f"{desc}: {a} used {n} times in {text}")
    assert not bad, "\n".join(bad[:30])


def test_portable_and_native() -> None:
    """C operators on vectors: no intrinsic, no clang-only builtin, no ``?:`` on vectors, no fallback."""
    isa = Generic()
    assert isa.binop("+", "f32", "a", "b") == "(a + b)"
    assert isa.binop("+", "i32", "a", "b") == "(_Exp_v4i32)((_Exp_v4u32)a + (_Exp_v4u32)b)"
    assert isa.cmp("<", "u32", "a", "b") == "((_Exp_v4u32)a < (_Exp_v4u32)b)"
    assert isa.cmp("!=", "f64", "a", "b") == "__builtin_convertvector(a != b, _Exp_v4i32)"
    assert isa.shift(">>", "i32", "a", "n", True) == "(a >> n)"
    assert isa.convert("i32", "f32", "a") == "__builtin_convertvector(a, _Exp_v4f32)"
    assert isa.bitcast("f32", "u32", "a") == "(_Exp_v4i32)a"
    assert isa.loadu("f32", "p") == "((_Exp_v4f32)*(const _Exp_v4f32_u *)p)"
    isa = isa.emission()
    text = "\n".join(t for _, t, _ in all_calls(isa)) + isa.prelude()
    assert not [n for n in isa._needs if n.endswith("_lanes")]
    assert "_mm" not in text and "__builtin_shufflevector" not in text and "?" not in text


def test_operand_parentheses() -> None:
    """Operands are parenthesized only where C's precedence needs it."""
    for e in ["x", "x0[i]", "f(a, b)", "(a + b)", "(int32_t)x", "(_Exp_v4i32)(a + b)", "(_Exp_v4i32){0}",
              "-x", "*(const float *)p", "0x1p-23f", "1e-5"]:
        assert _p(e) == e, e
    for e in ["a + b", "(a) + (b)", "(a)-1", "(T)x", "--x", "a ? b : c", "x[1] * 2", "'('"]:
        assert _p(e) == f"({e})", e
    isa = Generic()
    assert isa.unop("-", "f32", "-x") == "(-(-x))"
    assert isa.mask_not("~m") == "(~(~m))"


# --------------------------------------------------------------------------------------------------
# The corpus through the real pipeline


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_corpus_function_verifies_bit_exact(name: str) -> None:
    text = expand_and_verify(name, Generic())
    assert "_mm_" not in text and "__attribute__((vector_size(16)))" in text


@pytest.mark.parametrize("name", ["floorf", "powf", "chroma"])
def test_corpus_function_verifies_bit_exact_8_lanes(name: str) -> None:
    """32-byte vectors in the functions' signatures (the -Wpsabi case)."""
    expand_and_verify(name, Generic(8))
