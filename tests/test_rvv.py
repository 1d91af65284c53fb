"""RISC-V RVV (emit/rvv.py: ``rvv`` = VLEN >= 128, ``rvv256`` = VLEN >= 256): the generic table's C,
compiled by clang-16 for riscv64 with the V extension and run under ``qemu-riscv64 -cpu
rv64,v=true,vlen=N``, verifies bit for bit against its scalar source, compiled by the same Clang.

Covered: the table op by op (tests/isa_check.py), that Clang makes RVV instructions of it (masked
merges, vector compares and conversions), corpus functions with branches and BOSCC guards, loops, the
vector libm, conversions of NaN, infinities and out-of-range values, and the one libm difference from
GCC the passes see (Clang keeps a dead ``sin`` call, and its EDOM). Without clang-16 the module skips;
without a qemu-riscv64 of 8.1 or later only the runs skip (emit/host.py says why)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import expand_case
import pytest
from daily import isas_once_daily
from expand_case import check_source, expand_source
from hostrun import TEST_RANDOM
from isa_check import run_isa_kind

from emit import ISAS, get_isa
from emit.host import why_not_here
from emit.isa import KINDS
from expand import driver
from expand.check.fuzz import Modes, check_file, write_support
from mathlib.corpus import corpus
from mathlib.matrix import check, loop_kernels

ROOT = Path(__file__).parent.parent
RVV = ("rvv", "rvv256")

pytestmark = pytest.mark.skipif(shutil.which("clang-16") is None or shutil.which("ld.lld-16") is None,
                                reason="clang-16 and lld-16 (Debian clang-16 lld-16) are not installed: RVV code "
                                       "cannot be compiled here")


def daily(isa: str) -> object:
    """rvv in the daily loop, rvv256 with the slow tests."""
    return pytest.param(isa, marks=() if isa == "rvv" else pytest.mark.slow)


def skip_unless_runs(isa: str) -> None:
    why = why_not_here(isa)
    if why:
        pytest.skip(why)


def test_registry() -> None:
    for name, lanes, vlen in (("rvv", 4, 128), ("rvv256", 8, 256)):
        assert name in ISAS and ISAS[name][2] == lanes
        isa = get_isa(name)
        assert isa.lanes == lanes and isa.arch == "riscv64"
        assert isa.cc[:3] == ["clang-16", "--target=riscv64-linux-gnu", "-march=rv64gcv"]
        assert f"-riscv-v-vector-bits-min={vlen}" in isa.cflags
        assert isa.run_prefix[:3] == ["qemu-riscv64", "-cpu", f"rv64,v=true,vlen={vlen}"]
        assert isa.preprocessor[0] == "riscv64-linux-gnu-gcc"
        assert not isa.errno_hidden("sin") and get_isa("neon").errno_hidden("sin")


def test_clang_makes_rvv_instructions(tmp_path: Path) -> None:
    """The output is RVV code, not scalar code: vector compares into a mask, a masked merge for the select,
    a vector float-to-int conversion."""
    _, isa, res = expand_source(tmp_path, "f", "int f(float x) {\n    float y = x;\n    if (x > 1.0f)\n"
                                "        y = x * 2.0f;\n    return (int)y;\n}\n", "rvv")
    c = tmp_path / "f_out.c"
    c.write_text(res.text)
    asm = subprocess.run([*isa.cc, "-O2", *isa.cflags, "-S", str(c), "-o", "-"], capture_output=True, text=True,
                         check=True).stdout
    for insn in ("vmfgt.v", "vmerge.v", "vfcvt.rtz.x.f.v"):
        assert insn in asm, insn


@pytest.mark.parametrize("k", [pytest.param(k, marks=() if k in ("f32", "i64", "u8") else pytest.mark.slow)
                               for k in KINDS])
@pytest.mark.parametrize("isa", ["rvv", pytest.param("rvv256", marks=pytest.mark.slow)])
def test_op_by_op(isa: str, k: str, tmp_path: Path) -> None:
    """Every table operation on kind ``k``, bit for bit against scalar C."""
    skip_unless_runs(isa)
    run_isa_kind(get_isa(isa), k, tmp_path)


CORPUS = {f.name: f for f in corpus() + loop_kernels()}


@pytest.mark.parametrize("isa", [daily(i) for i in RVV])
@pytest.mark.parametrize("fn", ["floorf", "logf", pytest.param("powf", marks=pytest.mark.slow), "gcd",
                                pytest.param("mandelbrot", marks=pytest.mark.slow), "two_exits"])
def test_corpus(fn: str, isa: str) -> None:
    """Corpus functions (branches, table reads) and loop kernels verify bit for bit."""
    skip_unless_runs(isa)
    ok, cell = check(CORPUS[fn], isa, n_random=TEST_RANDOM)
    assert ok and cell.endswith(" ok"), cell


@pytest.mark.parametrize("boscc", ["all", "off"])
def test_boscc_guards(boscc: str, tmp_path: Path, monkeypatch) -> None:
    """A region under a condition, with and without its all-lanes-off guard: both verify."""
    text = ("float g(float x) {\n    float r = x;\n    if (x > 100.0f) {\n        r = x * x;\n"
            "        r = r - 3.0f * x;\n    }\n    return r;\n}\n")
    real = driver.expand_module
    monkeypatch.setattr(expand_case, "expand_module", lambda *a, **k: real(*a, **{**k, "boscc": boscc}))
    _, _, res = expand_source(tmp_path, "g", text, "rvv")
    assert ("_exp_mask_any" in res.text) == (boscc == "all")
    check_source(tmp_path, "g", text, "rvv")


def test_conversions_of_nan_inf_and_out_of_range(tmp_path: Path) -> None:
    """float -> int32/uint32/int64/uint64 and double -> int32/uint32 on every edge input (NaN, +-inf,
    beyond the range): the vector conversion saturates as the scalar fcvt does (NaN gives the largest
    value). (Each conversion is a function's result: out of range, a conversion is undefined in C, and
    Clang's scalar code of ``a + (int64_t)b`` with ``b = (uint32_t)x`` widens before it converts, which
    gives other bits than the saturated uint32_t; verify reports those as mismatches.)"""
    skip_unless_runs("rvv")
    check_source(tmp_path, "c", "#include <stdint.h>\n"
                 "int32_t c_i32(float x) {\n    return (int32_t)x;\n}\n"
                 "uint32_t c_u32(float x) {\n    return (uint32_t)x;\n}\n"
                 "int64_t c_i64(float x) {\n    return (int64_t)x;\n}\n"
                 "uint64_t c_u64(float x) {\n    return (uint64_t)x;\n}\n"
                 "int32_t d_i32(double d) {\n    return (int32_t)d;\n}\n"
                 "uint32_t d_u32(double d) {\n    return (uint32_t)d;\n}\n", "rvv")


#: Programs whose output converted a float out of range in lanes (or under a test) the scalar code did not
#: convert in: undefined in C, and Clang made poison of it (expand-fuzz rvv 20261127-43, -108; the third, in the
#: arm of a varying ?:, written by hand).
POISON = ("rvv_convert_out_of_range_unused_lanes.c", "rvv_uniform_convert_under_false_if.c",
          "rvv_convert_in_select_arm.c")
REGRESSIONS = ROOT / "tests" / "fuzz_regressions"


@pytest.mark.parametrize("name", POISON)
def test_no_conversion_out_of_range_where_the_scalar_code_converts_none(name: str) -> None:
    """The vector conversion (emit/generic.py ``_float_to_int``) converts only in-range lanes, a uniform
    conversion under a partial mask runs only when some lane is on, and one in the arm of a varying ``?:`` only
    when some lane takes the arm (emit/printer.py): before, Clang 16 at -O1 folded these functions into
    ``ret poison`` and every input mismatched (while -O0 verified)."""
    skip_unless_runs("rvv")
    out = check_file(REGRESSIONS / name, "rvv", n_random=500)
    assert out.kind == "ok", f"{out.kind}: {out.summary}\n{out.details[:3000]}"


@pytest.mark.parametrize("guarded, expr", [(True, "(int)d"), (False, "(int)(d > -1.0 && d < 100.0 ? d : 0)"),
                                            (False, "(int)(d > 2.0 ? 3.5 : -0.5)")])
def test_uniform_conversion_under_a_mask_runs_when_some_lane_is_on(guarded: bool, expr: str, tmp_path: Path) -> None:
    """A uniform conversion under a partial mask runs only if some lane is on, unless it is known to be in range
    (a constant, or under the range test of its own ``?:``); either way the output verifies."""
    text = (f"int f(int x, double d) {{\n    int r = x;\n    if (x > 5)\n        r = x + {expr};\n"
            "    return r;\n}\n")
    _, _, res = expand_source(tmp_path, "u", text, "rvv", uniform=["d"])
    assert ("_exp_mask_any(m_x_gt_5)" in res.text) == guarded, res.text
    skip_unless_runs("rvv")
    check_source(tmp_path, "u", text, "rvv", uniform=["d"])


@pytest.mark.parametrize("guarded, arm", [(True, "(int)d"), (False, "(int)(d > -1.0 && d < 100.0 ? d : 0)"),
                                          (False, "(int)(d > 2.0 ? 3.5 : -0.5)")])
def test_uniform_conversion_in_a_select_arm_runs_when_some_lane_takes_it(guarded: bool, arm: str,
                                                                          tmp_path: Path) -> None:
    """A uniform conversion in the arm of a varying ``?:`` (computed in every lane, under no mask of its own)
    runs only if some lane takes the arm, unless it is known to be in range (a constant, or under the range
    test of its own ``?:``); either way the output verifies."""
    text = f"int f(int x, double d) {{\n    return x > 5 ? x + {arm} : x;\n}}\n"
    _, _, res = expand_source(tmp_path, "a", text, "rvv", uniform=["d"])
    assert ("_exp_mask_any(arm) ? " in res.text) == guarded, res.text
    skip_unless_runs("rvv")
    check_source(tmp_path, "a", text, "rvv", uniform=["d"])


@pytest.mark.parametrize("isa", ["generic", "sse2", "sse4.1", "avx2"])
@pytest.mark.parametrize("name", POISON)
def test_no_conversion_out_of_range_with_clang_for_this_host(name: str, isa: str, monkeypatch) -> None:
    """Not an RVV bug: the same outputs for this host's ISAs, compiled by clang-16 instead of GCC, gave garbage
    too (generic: all three; sse2: the two uniform ones; GCC gives the hardware's value and the select drops it)."""
    compile_with_clang(monkeypatch)
    out = check_file(REGRESSIONS / name, isa, n_random=500)
    assert out.kind == "ok", f"{out.kind}: {out.summary}\n{out.details[:3000]}"


def compile_with_clang(monkeypatch) -> None:
    """This host's tables (emit.get_isa) compile their output with clang-16 instead of GCC (skip where the
    table does not run here)."""
    import emit
    from emit.rvv import Rvv

    real = emit.get_isa

    def by_clang(name: str, lanes: int | None = None):
        table = real(name, lanes)
        if why_not_here(table):
            pytest.skip(why_not_here(table))
        table.cc = ["clang-16"]  # (and Clang's warning flags, as on RVV)
        table.cflags = [*table.cflags, *(f for f in Rvv.CFLAGS if f.startswith("-W") or f == "-fwrapv")]
        return table

    monkeypatch.setattr(emit, "get_isa", by_clang)


@pytest.mark.parametrize("isa", isas_once_daily("test_no_conversion_out_of_range_on_every_isa", list(ISAS)))
def test_no_conversion_out_of_range_on_every_isa(isa: str) -> None:
    """The programs verify on every table, as each is compiled here (the printer's tests run on all)."""
    for name in POISON:
        out = check_file(REGRESSIONS / name, isa, n_random=500)
        assert out.kind in ("ok", "not-run"), f"{name}: {out.kind}: {out.summary}\n{out.details[:3000]}"


#: Programs shifting by a count out of range in lanes (or under a test) the scalar code did not shift in: undefined
#: in C, and Clang made poison of it (all but rvv_shift_count_per_lane.c, which verified anyway: every input wrong
#: on rvv before emit/generic.py's shift_count and emit/printer.py's shift_counts_masked).
SHIFTS = ("rvv_shift_count_out_of_range_vector.c", "rvv_shift_count_out_of_range_uniform.c",
          "rvv_shift_count_out_of_range_select_arm.c", "rvv_shift_count_per_lane.c",
          "rvv_shift_count_per_lane_fuzz.c")


@pytest.mark.parametrize("name", SHIFTS)
def test_no_shift_count_out_of_range_where_the_scalar_code_shifts_not(name: str) -> None:
    """Vector shifts (generic's C operators on vectors) by a count not known in range mask it into the lane
    width, and so do uniform shifts under a mask or in the arm of a varying ``?:``: before, Clang 16 folded all
    but rvv_shift_count_per_lane.c into garbage and every input mismatched."""
    skip_unless_runs("rvv")
    out = check_file(REGRESSIONS / name, "rvv", n_random=500)
    assert out.kind == "ok", f"{out.kind}: {out.summary}\n{out.details[:3000]}"


@pytest.mark.parametrize("isa", ["generic", "sse2"])
@pytest.mark.parametrize("name", SHIFTS)
def test_no_shift_count_out_of_range_with_clang_for_this_host(name: str, isa: str, monkeypatch) -> None:
    """The same programs for this host's generic and SSE2 tables, compiled by clang-16 (before the fix: generic
    failed the three hand-written ones that fail on rvv, sse2 the two whose shift is uniform scalar C; its vector
    shifts are intrinsics)."""
    compile_with_clang(monkeypatch)
    out = check_file(REGRESSIONS / name, isa, n_random=500)
    assert out.kind == "ok", f"{out.kind}: {out.summary}\n{out.details[:3000]}"


def unmasked_shifts(c: str) -> list[str]:
    """The C shift operators of ``c`` (comments aside) whose count is neither a literal nor masked by one
    (``(n & 31)``, under casts: ``(_Exp_v4u32)(n & 31)``), each with the text around it."""
    from emit.generic import _TYPE, _unary_end

    bad = []
    c = re.sub(r"/\*.*?\*/", "", c, flags=re.S)  # (the comments quote the scalar source)
    for m in re.finditer(r"(<<|>>)(?!=)", c):
        i = m.end() + len(c[m.end():]) - len(c[m.end():].lstrip())
        j = _unary_end(c, i)
        count = c[i:j] if j > 0 else c[i:i + 40]
        while (t := re.match(r"\((?:[^()]*)\)", count)) and _TYPE.fullmatch(count, 1, t.end() - 1) and \
                t.end() < len(count):
            count = count[t.end():]  # (a cast)
        if not re.fullmatch(r"\(*-?(0x[0-9a-fA-F]+|\d+)[uUlL]*\)*|\(.* & (0x[0-9a-fA-F]+|\d+)[uUlL]*\)", count):
            bad.append(c[max(0, m.start() - 60):m.end() + 60])
    return bad


def test_unmasked_shifts_are_found() -> None:
    """What ``unmasked_shifts`` objects to (the outputs before the fix) and what it lets through."""
    assert unmasked_shifts("r = (_Exp_v4i32)((_Exp_v4u32)y << n);")
    assert unmasked_shifts("_exp_splat_u32((uint32_t)(y << n))")
    assert unmasked_shifts("((_Exp_v4u32)x >> (_Exp_v4u32)n)")
    assert unmasked_shifts("(x >> __builtin_convertvector(n, _Exp_v4i64))")
    assert not unmasked_shifts("(_Exp_v4i32)((_Exp_v4u32)y << (n & 31)); (y >> 24); x <<= 2; (a << 0x1fu)")
    assert not unmasked_shifts("((_Exp_v4u32)x << (_Exp_v4u32)((_Exp_v4i64)__builtin_convertvector(n, _Exp_v4u64) "
                               "& 63))")


@pytest.mark.parametrize("isa", list(ISAS))
@pytest.mark.parametrize("name", SHIFTS)
def test_every_shift_count_is_a_constant_or_masked(name: str, isa: str, tmp_path: Path) -> None:
    """In the expanded function of each program, on every table, no C shift operator has a count that may be out
    of range: the vector ones of generic and RVV (C operators on vectors) and the uniform scalar C every table
    prints (the intrinsics tables' vector shifts give every count a value: no C operator there)."""
    text = (REGRESSIONS / name).read_text()
    write_support(tmp_path)
    _, _, res = expand_source(tmp_path, "s", text, isa, ["f"], Modes.parse(text).uniform)
    body = res.text[res.text.index(f"{res.functions[0].vector_name}("):]
    assert not unmasked_shifts(body), "\n".join(unmasked_shifts(body))


def test_clang_keeps_a_dead_sin_and_its_errno() -> None:
    """GCC drops a dead call of sin (it takes sin to leave errno alone) and so does expand for GCC's
    tables; Clang keeps it, with glibc's EDOM for an infinity: the rvv output keeps the call."""
    skip_unless_runs("rvv")
    path = ROOT / "tests" / "fuzz_regressions" / "errno_dead_sin.c"
    out = check_file(path, "rvv", n_random=500)
    assert out.kind == "ok", out.summary
    assert "_exp_sin_errno" not in out.details


@pytest.mark.slow
@pytest.mark.parametrize("isa", RVV)
def test_fuzz_regressions(isa: str) -> None:
    """Every program the fuzzer ever found a bug with verifies on RVV too."""
    skip_unless_runs(isa)
    bad = []
    for path in sorted((ROOT / "tests" / "fuzz_regressions").glob("*.c")):
        if path.name.startswith("fuzz_log"):
            continue
        out = check_file(path, isa, n_random=500)
        if out.kind not in ("ok", "not-run"):
            bad.append(f"{path.name}: {out.kind}: {out.summary}")
    assert not bad, "\n".join(bad)


def test_every_run_says_rvv_is_not_yet_trusted(tmp_path: Path, monkeypatch, capsys) -> None:
    from expand.cli import QUIET_CAVEATS, main
    monkeypatch.delenv(QUIET_CAVEATS, raising=False)
    src = tmp_path / "f.c"
    src.write_text("float f(float x) {\n    return x * 2.0f;\n}\n")
    assert main([str(src), "--isa", "rvv", "-o", str(tmp_path / "o.c")]) == 0
    assert "expand: warning: --isa rvv: new and not yet trusted" in capsys.readouterr().err
    assert main([str(src), "--isa", "sse2", "-o", str(tmp_path / "o2.c")]) == 0
    assert "warning" not in capsys.readouterr().err
