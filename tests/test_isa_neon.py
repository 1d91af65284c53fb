"""The NEON table (emit/neon.py) on AArch64 through the cross compiler and qemu-user.

Op by op against scalar C for every lane kind (tests/isa_check.py), at 4 and 8 lanes and at -O0;
the text of the common operations; and end to end: the whole corpus (and the kernels of
tests/test_kernels.py) expanded for NEON and verified bit-exact against the scalar originals, all
compiled with ``aarch64-linux-gnu-gcc`` and run under ``qemu-aarch64``.
"""

from __future__ import annotations

import random
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hostrun import assert_verified
from isa_check import (
    KINDS,
    Check,
    N,
    Prog,
    compile_and_run,
    edges,
    explain,
    random_bits,
    run_isa_kind,
)

from emit.isa import BINOPS, CMPOPS, is_float, kind_bits, scalar_ctype
from emit.neon import Neon
from expand.check.verify import Param, verify
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file

MISSING = [t for t in ("aarch64-linux-gnu-gcc", "qemu-aarch64") if shutil.which(t) is None]
pytestmark = pytest.mark.skipif(bool(MISSING), reason=f"needs {' and '.join(MISSING)} (Debian: "
                                "apt-get install gcc-aarch64-linux-gnu qemu-user) to build and run AArch64 code")

try:
    from mathlib.corpus import corpus

    CORPUS = {f.name: f for f in corpus()}
    CORPUS_ERROR = ""
except Exception as e:  # reported by test_corpus_available
    CORPUS, CORPUS_ERROR = {}, f"{type(e).__name__}: {e}"

try:
    from test_kernels import KERNELS
except ImportError:  # pragma: no cover - the SSE kernel tests are optional here
    KERNELS = {}


def run_kind(k: str, tmp: Path, lanes: int = 4, opt: str = "-O2") -> str:
    """Every op on kind ``k``; every literal shift count at 4 lanes -O2, else counts 0, 1 and max."""
    summary = run_isa_kind(Neon(lanes), k, tmp, opt, all_literals=lanes == 4 and opt == "-O2")
    print(f"neon x{lanes} {k} {opt}: {summary}")
    return summary


# --------------------------------------------------------------------------------------------------
# Every operation of every kind, bit for bit


@pytest.mark.parametrize("k", KINDS)
def test_neon_every_op(k: str, tmp_path: Path) -> None:
    run_kind(k, tmp_path)


@pytest.mark.parametrize("k", ["i8", "u16", "u32", "i64", "f32", "f64"])
def test_neon_every_op_8_lanes(k: str, tmp_path: Path) -> None:
    """Two registers per 32-bit gang, four per 64-bit gang, masks of two registers."""
    run_kind(k, tmp_path, lanes=8)


@pytest.mark.parametrize("k", ["u8", "i32", "u64", "f64"])
def test_neon_every_op_O0(k: str, tmp_path: Path) -> None:
    """Immediate operands (shift counts, lane numbers) also compile, and work, unoptimized."""
    run_kind(k, tmp_path, opt="-O0")


def test_float_to_int_out_of_range_matches_aarch64(tmp_path: Path) -> None:
    """C leaves float -> int undefined out of range; the vector lanes still give what GCC's scalar
    AArch64 code gives (fcvtzs/fcvtzu to a 32- or 64-bit register, saturating, NaN -> 0), so
    expanded code does not diverge even there (tests/test_kernels.py's mixed_conv relies on it)."""
    isa = Neon()
    rnd = random.Random(7)
    p = Prog(isa)
    for fk in ("f32", "f64"):
        e = edges(fk)
        a = p.arr(f"X_{fk}", fk, (e + [random_bits(fk, rnd) for _ in range(N)])[:N])
        for d in KINDS:
            if not is_float(d):
                p.add(Check(f"convert {fk} -> {d} (any input)", [(fk, a)], d, isa.convert(fk, d, "a0"),
                            f"({scalar_ctype(d)})x0[i]"))
    rc, out = compile_and_run(isa, p.source(), tmp_path)
    summary = out.strip().splitlines()[-1] if out.strip() else ""
    assert rc == 0 and "FAILS 0" in summary, f"{summary}\n{explain(p, out)}"


# --------------------------------------------------------------------------------------------------
# The table's text


def placeholder_calls(isa: Neon) -> list[tuple[str, str, list[str]]]:
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
        for i in range(isa.lanes):
            add(f"extract {k} {i}", isa.extract, k, "ARGV", i)
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
                for c in ("0", "5", str(kind_bits(k) - 1)):
                    add(f"shift {op} {k} literal {c}", isa.shift, op, k, "ARGA", c, True)
                add(f"shift {op} {k} per lane", isa.shift, op, k, "ARGA", "ARGN", False)
        for d in KINDS:
            add(f"convert {k} {d}", isa.convert, k, d, "ARGA")
            if kind_bits(d) == kind_bits(k):
                add(f"bitcast {k} {d}", isa.bitcast, k, d, "ARGA")
    for name in ("mask_and", "mask_or", "mask_xor", "mask_andnot"):
        add(name, getattr(isa, name), "ARGA", "ARGB")
    for name in ("mask_not", "mask_to_int", "mask_bits", "mask_any", "mask_all"):
        add(name, getattr(isa, name), "ARGA")
    return calls


@pytest.mark.parametrize("lanes", [4, 8])
def test_each_argument_used_once(lanes: int) -> None:
    isa = Neon(lanes)
    bad = []
    for desc, text, ph in placeholder_calls(isa):
        for a in ph:
            n = len(re.findall(rf"\b{a}\b", text))
            if n != 1:
                bad.append(f"{desc}: {a} used {n} times in {text}")
    assert not bad, "\n".join(bad[:30])


@pytest.mark.parametrize("lanes", [4, 8])
def test_no_memory_fallbacks(lanes: int) -> None:
    """No operation goes through the base class's lane-by-lane array helpers; the only per-lane code
    (64-bit integer division, 64-bit integer -> f32) stays in registers."""
    isa = Neon(lanes)
    calls = placeholder_calls(isa)
    assert len(calls) > 400
    assert not [n for n in isa._needs if n.endswith("_lanes")], list(isa._needs)
    per_lane = sorted(n for n, t in isa._needs.items() if "vgetq_lane" in t)
    assert per_lane == ["_exp_cvt_i64_f32", "_exp_cvt_u64_f32", "_exp_div_s64x2", "_exp_div_u64x2",
                        "_exp_rem_s64x2", "_exp_rem_u64x2"], per_lane


def test_attributes() -> None:
    isa = Neon()
    assert (isa.name, isa.lanes, isa.cflags, isa.headers, isa.cc) == \
        ("neon", 4, [], ["<arm_neon.h>"], ["aarch64-linux-gnu-gcc"])
    assert isa.run_prefix == ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]
    assert Neon(8).lanes == 8
    for bad in (0, 2, 6, 64):
        with pytest.raises(ValueError):
            Neon(bad)
    assert [isa.vtype(k) for k in KINDS] == ["int32x4_t", "uint32x4_t", "int32x4_t", "uint32x4_t", "int32x4_t",
                                             "uint32x4_t", "_Exp_s64x4", "_Exp_u64x4", "float32x4_t", "_Exp_f64x4"]
    assert isa.mask_type() == "uint32x4_t"
    assert isa.mtype("u8") == "_Exp_u8x4" and isa.mtype("f64") == "_Exp_f64x4" and isa.mtype("i32") == "int32x4_t"
    assert "typedef struct { float64x2_t v[2]; } _Exp_f64x4;" in isa.prelude()
    assert "typedef struct { int64x2_t v[2]; } _Exp_s64x4;" in isa.prelude()
    isa8 = Neon(8)
    assert isa8.mask_type() == isa8.vtype("u32") == "_Exp_u32x8"
    assert isa8.vtype("i8") == "_Exp_s32x8" and isa8.vtype("f64") == "_Exp_f64x8"
    assert "typedef struct { uint32x4_t v[2]; } _Exp_u32x8;" in isa8.prelude()
    assert "typedef struct { float64x2_t v[4]; } _Exp_f64x8;" in isa8.prelude()
    from emit import ISAS, get_isa

    if "neon" in ISAS:  # registered by emit/__init__.py
        assert type(get_isa("neon")) is Neon and get_isa("neon").lanes == 4 and get_isa("neon", 8).lanes == 8


def test_neon_is_native_where_expected() -> None:
    """The common operations print as single intrinsics."""
    isa = Neon()
    expect = {
        isa.binop("+", "f32", "a", "b"): "vaddq_f32(a, b)",
        isa.binop("/", "f32", "a", "b"): "vdivq_f32(a, b)",
        isa.binop("*", "i32", "a", "b"): "vmulq_s32(a, b)",
        isa.binop("&", "u32", "a", "b"): "vandq_u32(a, b)",
        isa.binop("|", "f32", "a", "b"): "vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(a), "
                                         "vreinterpretq_u32_f32(b)))",
        isa.shift("<<", "u32", "a", "3", True): "vshlq_n_u32(a, 3)",
        isa.shift(">>", "i32", "a", "31", True): "vshrq_n_s32(a, 31)",
        isa.shift(">>", "u32", "a", "0", True): "a",
        isa.shift(">>", "i32", "a", "n", True): "vshlq_s32(a, vdupq_n_s32(-(int32_t)(n)))",
        isa.shift(">>", "u32", "a", "n", False): "vshlq_u32(a, vnegq_s32(vreinterpretq_s32_u32(n)))",
        isa.shift("<<", "i32", "a", "n", False): "vshlq_s32(a, n)",
        isa.unop("~", "i32", "a"): "vmvnq_s32(a)",
        isa.unop("-", "f32", "a"): "vnegq_f32(a)",
        isa.cmp("<", "u32", "a", "b"): "vcltq_u32(a, b)",
        isa.cmp("!=", "f32", "a", "b"): "vmvnq_u32(vceqq_f32(a, b))",
        isa.select("f32", "m", "a", "b"): "vbslq_f32(m, a, b)",
        isa.convert("i32", "f32", "a"): "vcvtq_f32_s32(a)",
        isa.convert("u32", "f32", "a"): "vcvtq_f32_u32(a)",
        isa.convert("f32", "i32", "a"): "vcvtq_s32_f32(a)",
        isa.convert("f32", "u32", "a"): "vcvtq_u32_f32(a)",
        isa.convert("i8", "i32", "a"): "a",
        isa.convert("u32", "i32", "a"): "vreinterpretq_s32_u32(a)",
        isa.bitcast("f32", "u32", "a"): "vreinterpretq_u32_f32(a)",
        isa.splat("f32", "x"): "vdupq_n_f32(x)",
        isa.splat("u8", "3"): "vdupq_n_u32(3)",
        isa.extract("f32", "v", 2): "vgetq_lane_f32(v, 2)",
        isa.mask_and("a", "b"): "vandq_u32(a, b)",
        isa.mask_andnot("a", "b"): "vbicq_u32(a, b)",
        isa.mask_not("a"): "vmvnq_u32(a)",
        isa.mask_any("m"): "(vmaxvq_u32(m) != 0)",
        isa.mask_all("m"): "(vminvq_u32(m) != 0)",
        isa.mask_bits("m"): "((unsigned)vaddvq_u32(vandq_u32(m, (uint32x4_t){1u, 2u, 4u, 8u})))",
        isa.mask_to_int("m"): "vreinterpretq_s32_u32(vshrq_n_u32(m, 31))",
    }
    bad = [f"got  {g}\nwant {w}" for g, w in expect.items() if g != w]
    assert not bad, "\n".join(bad)
    # 64-bit kinds: native compares and conversions inside the register-pair helpers
    isa = isa.emission()
    isa.cmp(">", "i64", "a", "b")
    isa.convert("u64", "f64", "a")
    isa.convert("f64", "i64", "a")
    isa.convert("f32", "f64", "a")
    isa.convert("i32", "u64", "a")
    text = isa.prelude()
    for intr in ("vcgtq_s64", "vuzp1q_u32", "vcvtq_f64_u64", "vcvtq_s64_f64", "vcvt_high_f64_f32", "vmovl_high_s32"):
        assert intr in text, intr


def test_bad_requests_rejected() -> None:
    isa = Neon()
    for call in (lambda: isa.binop("%", "f32", "a", "b"), lambda: isa.unop("~", "f64", "a"),
                 lambda: isa.shift("<<", "f32", "a", "1", True), lambda: isa.bitcast("i32", "i64", "a"),
                 lambda: isa.cmp("<>", "i32", "a", "b"), lambda: isa.build("f32", ["a"]),
                 lambda: isa.extract("i32", "v", 4)):
        with pytest.raises(ValueError):
            call()


# --------------------------------------------------------------------------------------------------
# End to end: expand for NEON, verify under qemu


def test_corpus_available() -> None:
    assert CORPUS, f"the scalar corpus is unavailable: {CORPUS_ERROR}"
    assert len(CORPUS) == 14


@pytest.mark.parametrize("lanes,name", [(4, n) for n in sorted(CORPUS)] +
                         [(8, n) for n in ("floorf", "powf", "chroma") if n in CORPUS])
def test_corpus_function_verifies_on_neon(lanes: int, name: str) -> None:
    f = CORPUS[name]
    isa = Neon(lanes)
    mod = read_file(str(f.source), f.source.read_text(), [str(d) for d in f.include_dirs])
    res = expand_module(mod, isa, functions=[f.func])
    (e,) = res.functions
    rep = verify(scalar_sources=[f.source], scalar_name=e.scalar_name, vector_c=res.text,
                 vector_name=e.vector_name, params=[Param(p.name, p.type) for p in e.params], ret=e.ret,
                 isa=isa, include_dirs=f.include_dirs, link_files=f.link, libs=tuple(f.libs) or ("m",),
                 constants=e.constants, n_random=20_000)
    print(rep.summary)
    assert_verified(rep)
    assert rep.mismatches == 0
    assert rep.random_inputs >= 20_000
    assert rep.edge_inputs > 0
    assert "[neon, " in rep.summary
    assert "_mm_" not in res.text and "_lanes(" not in res.text  # no memory-based per-lane helpers


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_verifies_on_neon(tmp_path: Path, name: str) -> None:
    src = tmp_path / f"{name}.c"
    src.write_text(KERNELS[name] + "\n")
    isa = Neon()
    res = expand_module(read_file(str(src), src.read_text()), isa, functions=["f"])
    (e,) = res.functions
    rep = verify(scalar_sources=[src], scalar_name=e.scalar_name, vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type) for p in e.params], ret=e.ret, isa=isa,
                 constants=e.constants, n_random=5_000)
    assert_verified(rep, res.text)
