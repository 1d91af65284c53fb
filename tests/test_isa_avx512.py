"""The AVX-512 table (emit/avx512.py) against scalar C, op by op and end to end.

Op by op: ``run_isa_kind`` (tests/isa_check.py) checks every operation of ``Avx512`` on every lane
kind bit for bit (16 lanes at -O2, a few kinds at -O0 and with 32 lanes), and the base-class
fallbacks on AVX-512 registers (which exercise the mask-register load/store hooks). End to end: every
corpus function expands for AVX-512 and verifies bit-exact.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hostrun import assert_verified
from isa_check import OPS, build_prog, compile_and_run, explain, gather_calls, run_isa_kind

from emit import runs_here, why_not_here
from emit.avx512 import Avx512
from emit.isa import BINOPS, CMPOPS, KINDS, Isa, is_float, kind_bits
from expand.check.verify import Param, verify
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file
from mathlib.corpus import corpus

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
needs_cpu = pytest.mark.skipif(not runs_here("avx512"), reason=str(why_not_here("avx512")))


class Avx512RegsOnly(Avx512):
    """AVX-512 types, loads, stores and mask hooks; every operation from the portable base class."""

    name = "avx512-regs-only"


for _op in OPS:
    setattr(Avx512RegsOnly, _op, getattr(Isa, _op))


def run_kind(isa: Isa, k: str, tmp: Path, opt: str = "-O2", all_literals: bool = True) -> str:
    """``run_isa_kind``, except that with 32 lanes the checker's own ``bits >> 32`` test of an
    ``unsigned`` (tests/isa_check.py, ``Prog.check_c``) is widened so that it compiles."""
    if isa.lanes < 32:
        summary = run_isa_kind(isa, k, tmp, opt, all_literals=all_literals)
    else:
        p = build_prog(isa, k, seed=KINDS.index(k) + 1, all_literals=all_literals)
        src = p.source().replace("if (bits >> 32)", "if ((unsigned long long)bits >> 32)")
        rc, out = compile_and_run(isa, src, tmp, opt)
        summary = out.strip().splitlines()[-1] if out.strip() else ""
        assert rc == 0 and "FAILS 0" in summary, f"{isa.name} {k}: {summary}\n{explain(p, out)}"
    print(f"{isa.name} x{isa.lanes} {k} {opt}: {summary}")
    return summary


# --------------------------------------------------------------------------------------------------
# Op by op


@needs_gcc
@needs_cpu
@pytest.mark.parametrize("k", KINDS)
def test_avx512_every_op(k: str, tmp_path: Path) -> None:
    isa = Avx512()
    # every literal shift count where it prints as an immediate (a single register)
    run_kind(isa, k, tmp_path, all_literals=isa.nregs(k) == 1)


@needs_gcc
@needs_cpu
@pytest.mark.parametrize("k", ["i8", "u16", "u32", "i64", "f32", "f64"])
def test_avx512_every_op_O0(k: str, tmp_path: Path) -> None:
    """Immediate operands and helpers also compile (and work) without optimization."""
    run_kind(Avx512(), k, tmp_path, opt="-O0")


@needs_gcc
@needs_cpu
@pytest.mark.parametrize("k", ["u8", "i16", "u32", "u64", "f32", "f64"])
def test_avx512_every_op_32_lanes(k: str, tmp_path: Path) -> None:
    """32 lanes: every kind takes twice the registers and masks are ``__mmask32``."""
    run_kind(Avx512(32), k, tmp_path, all_literals=False)


@needs_gcc
@needs_cpu
@pytest.mark.parametrize("k", ["i8", "u16", "i32", "u64", "f32", "f64"])
def test_base_fallbacks_on_avx512_registers(k: str, tmp_path: Path) -> None:
    """Avx512's vtype/loadu/storeu and mask-register hooks with every operation from the base class."""
    run_kind(Avx512RegsOnly(), k, tmp_path, all_literals=False)


# --------------------------------------------------------------------------------------------------
# The table's text


def placeholder_calls(isa: Isa) -> list[tuple[str, str, list[str]]]:
    """(description, result, placeholder arguments) for every method, kind and operator."""
    calls = []

    def add(desc: str, fn: Callable[..., str], *args: object) -> None:
        ph = [a for a in args if isinstance(a, str) and a.startswith("ARG")]
        ph += [x for a in args if isinstance(a, list) for x in a]
        calls.append((desc, fn(*args), ph))

    for k in KINDS:
        add(f"loadu {k}", isa.loadu, k, "ARGP")
        add(f"storeu {k}", isa.storeu, k, "ARGP", "ARGV")
        add(f"load {k}", isa.load, k, "ARGP")
        add(f"store {k}", isa.store, k, "ARGP", "ARGV")
        add(f"splat {k}", isa.splat, k, "ARGS")
        add(f"build {k}", isa.build, k, [f"ARGS{i}" for i in range(isa.lanes)])
        for op in BINOPS:
            if not (is_float(k) and op == "%"):
                add(f"binop {op} {k}", isa.binop, op, k, "ARGA", "ARGB")
        for op in CMPOPS:
            add(f"cmp {op} {k}", isa.cmp, op, k, "ARGA", "ARGB")
        add(f"select {k}", isa.select, k, "ARGM", "ARGA", "ARGB")
        add(f"unop - {k}", isa.unop, "-", k, "ARGA")
        add(f"int_to_mask {k}", isa.int_to_mask, k, "ARGA")
        if not is_float(k):
            add(f"unop ~ {k}", isa.unop, "~", k, "ARGA")
            for op in ("<<", ">>"):
                add(f"shift {op} {k} uniform", isa.shift, op, k, "ARGA", "ARGN", True)
                add(f"shift {op} {k} literal", isa.shift, op, k, "ARGA", "5", True)
                add(f"shift {op} {k} per lane", isa.shift, op, k, "ARGA", "ARGN", False)
        for d in KINDS:
            add(f"convert {k} {d}", isa.convert, k, d, "ARGA")
            if kind_bits(d) == kind_bits(k):
                add(f"bitcast {k} {d}", isa.bitcast, k, d, "ARGA")
    for name in ("mask_and", "mask_or", "mask_xor", "mask_andnot"):
        add(name, getattr(isa, name), "ARGA", "ARGB")
    for name in ("mask_not", "mask_to_int", "mask_bits", "mask_any", "mask_all"):
        add(name, getattr(isa, name), "ARGA")
    return calls + gather_calls(isa)


@pytest.mark.parametrize("lanes", [16, 32])
def test_each_argument_used_once(lanes: int) -> None:
    bad = []
    for desc, text, ph in placeholder_calls(Avx512(lanes)):
        for a in ph:
            n = len(re.findall(rf"\b{a}\b", text))
            if n != 1:
                bad.append(f"{desc}: {a} used {n} times in {text}")
    assert not bad, "\n".join(bad[:30])


def test_attributes() -> None:
    isa = Avx512()
    assert (isa.name, isa.lanes, isa.cflags, isa.headers, isa.cc, isa.run_prefix) == \
        ("avx512", 16, ["-mavx512f", "-mavx512bw", "-mavx512dq", "-mavx512vl"], ["<immintrin.h>"], ["gcc"], [])
    assert Avx512(32).lanes == 32
    for bad in (4, 8, 64):
        with pytest.raises(ValueError):
            Avx512(bad)
    assert isa.vtype("f32") == "__m512" and isa.vtype("i32") == "__m512i" and isa.vtype("u8") == "__m512i"
    assert isa.vtype("f64") == "_Exp_f64x16" and isa.vtype("u64") == isa.vtype("i64") == "_Exp_i64x16"
    assert isa.mtype("f32") == "__m512" and isa.mtype("u8") == "_Exp_u8x16" and isa.mtype("f64") == "_Exp_f64x16"
    assert isa.mask_type() == "__mmask16" and Avx512(32).mask_type() == "__mmask32"
    assert "typedef struct { __m512d v[2]; } _Exp_f64x16;" in isa.prelude()
    isa32 = Avx512(32)
    assert isa32.vtype("f32") == "_Exp_f32x32" and isa32.vtype("i16") == "_Exp_i32x32"
    assert isa32.vtype("f64") == "_Exp_f64x32" and isa32.nregs("u64") == 4
    assert "typedef struct { __m512d v[4]; } _Exp_f64x32;" in isa32.prelude()


def test_avx512_is_native_where_expected() -> None:
    """Mask registers throughout, intrinsics everywhere, the per-lane fallback only for 64-bit / and %."""
    isa = Avx512()
    assert isa.binop("+", "f32", "a", "b") == "_mm512_add_ps(a, b)"
    assert isa.binop("*", "i32", "a", "b") == "_mm512_mullo_epi32(a, b)"
    assert isa.shift("<<", "u32", "a", "3", True) == "_mm512_slli_epi32(a, 3)"
    assert isa.shift(">>", "i32", "a", "n", False) == "_mm512_srav_epi32(a, n)"
    assert isa.cmp("!=", "f32", "a", "b") == "_mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ)"
    assert isa.cmp("<", "f32", "a", "b") == "_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)"
    assert isa.cmp(">", "u32", "a", "b") == "_mm512_cmpgt_epu32_mask(a, b)"
    assert isa.select("f32", "m", "a", "b") == "_mm512_mask_blend_ps(m, b, a)"
    assert isa.select("i32", "m", "a", "b") == "_mm512_mask_blend_epi32(m, b, a)"
    assert isa.int_to_mask("i32", "a") == "_mm512_cmpneq_epi32_mask(a, _mm512_setzero_si512())"
    assert isa.mask_to_int("m") == "_mm512_maskz_set1_epi32(m, 1)"
    assert isa.mask_bits("m") == "((unsigned)m)"
    assert isa.mask_any("m") == "(m != 0)" and isa.mask_all("m") == "(m == 0xffffu)"
    assert isa.mask_andnot("a", "f(b) | c") == "((__mmask16)(a & ~(f(b) | c)))"
    assert isa.mask_not("f(a, b)") == "((__mmask16)~f(a, b))"
    assert isa.convert("u32", "f32", "a") == "_mm512_cvtepu32_ps(a)"
    assert isa.bitcast("f32", "u32", "a") == "_mm512_castps_si512(a)"
    isa.select("f64", "m", "a", "b")
    assert "_mm512_mask_blend_pd((__mmask8)a0, a2.v[0], a1.v[0])" in isa.prelude()
    assert "_mm512_mask_blend_pd((__mmask8)(a0 >> 8), a2.v[1], a1.v[1])" in isa.prelude()
    isa = isa.emission()
    for k in KINDS:
        for op in BINOPS:
            if not (is_float(k) and op == "%"):
                isa.binop(op, k, "a", "b")
        for op in CMPOPS:
            isa.cmp(op, k, "a", "b")
        isa.select(k, "m", "a", "b")
        isa.unop("-", k, "a")
        isa.int_to_mask(k, "a")
        if not is_float(k):
            for op in ("<<", ">>"):
                isa.shift(op, k, "a", "n", False)
                isa.shift(op, k, "a", "n", True)
        for d in KINDS:
            isa.convert(k, d, "a")
    lanes_helpers = sorted(n for n in isa._needs if n.endswith("_lanes"))
    assert lanes_helpers == [f"_exp_{op}_{k}_lanes" for op in ("div", "rem") for k in ("i64", "u64")], lanes_helpers
    text = isa.prelude()
    assert "__m128i m" not in text and "_mm512_movm" not in text  # no vector-of-booleans masks


# --------------------------------------------------------------------------------------------------
# End to end: the corpus expands for AVX-512 and verifies bit-exact

FUNCS = {f.name: f for f in corpus()}


def verify_corpus(name: str, lanes: int) -> None:
    f = FUNCS[name]
    isa = Avx512(lanes)
    mod = read_file(str(f.source), f.source.read_text(), [str(d) for d in f.include_dirs])
    res = expand_module(mod, isa, functions=[f.func])
    (e,) = res.functions
    assert "_mm512_" in res.text
    rep = verify(scalar_sources=[f.source], scalar_name=e.scalar_name, vector_c=res.text,
                 vector_name=e.vector_name, params=[Param(p.name, p.type) for p in e.params], ret=e.ret,
                 isa=isa, include_dirs=f.include_dirs, link_files=f.link, libs=tuple(f.libs) or ("m",),
                 constants=e.constants, n_random=100_000)
    assert_verified(rep)
    assert rep.mismatches == 0
    assert rep.random_inputs >= 100_000
    assert rep.edge_inputs > 0


@needs_gcc
@needs_cpu
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_corpus_verifies_bit_exact_avx512(name: str) -> None:
    verify_corpus(name, 16)


# powf is left out at 32 lanes: its ``x + y`` of two NaNs returns either operand's payload (C leaves
# it open; isa_check accepts both) and GCC commutes the vaddps of the second register there, while
# verify compares NaN payloads bit for bit.
@needs_gcc
@needs_cpu
@pytest.mark.parametrize("name", sorted(n for n in FUNCS if n != "powf"))
def test_corpus_verifies_bit_exact_avx512_32_lanes(name: str) -> None:
    verify_corpus(name, 32)
