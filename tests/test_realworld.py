"""mathlib/realworld.py: one row per file of a libm directory (verified, diagnostic, FAIL, no function, ...),
companions found with nm, the summary line, the tables and the exit status."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from mathlib import realworld, source_tree
from mathlib.realworld import Flags, Report, Row, companions, run
from mathlib.source_tree import Scalar

FAKE = {
    # verifies
    "good.c": """
float fake_step(float x)
{
    if (x > 1.0f)
        return x - 1.0f;
    return x * 2.0f;
}
""",
    # data only: no function
    "table.c": "const float fake_table[4] = { 1.0f, 2.0f, 3.0f, 4.0f };\n",
    # needs table.c, found by nm
    "uses_table.c": """
extern const float fake_table[4];
float fake_lookup(int i)
{
    return fake_table[i & 3] * 0.5f;
}
""",
    # expand refuses it
    "refused.c": """
int fake_counter(int x)
{
    static int calls;
    calls = calls + x;
    return calls;
}
""",
    # only static functions: no function
    "helpers.c": "static float fake_helper(float x) { return x + 1.0f; }\nfloat (*fake_keep)(float) = fake_helper;\n",
    # does not compile with the flags
    "broken.c": "float fake_broken(float x) { return x + undeclared_thing; }\n",
}


@pytest.fixture(scope="module")
def fake_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("fakelibm")
    for name, text in FAKE.items():
        (d / name).write_text(text)
    return d


@pytest.fixture(scope="module")
def fake_report(fake_dir: Path) -> Report:
    return run(fake_dir, "sse4.1", jobs=2, n_random=2000, timeout=120)


def _row(report: Report, name: str) -> Row:
    return next(r for r in report.rows if r.file == name)


def test_each_row(fake_report: Report) -> None:
    assert [r.file for r in fake_report.rows] == sorted(FAKE)
    assert _row(fake_report, "good.c").status == "verified"
    assert _row(fake_report, "good.c").functions == ["fake_step"]
    assert _row(fake_report, "good.c").inputs > 2000
    assert _row(fake_report, "table.c").status == "no function"
    assert _row(fake_report, "helpers.c").status == "no function"
    assert _row(fake_report, "uses_table.c").status == "verified", _row(fake_report, "uses_table.c").detail
    assert _row(fake_report, "refused.c").status == "diagnostic: local 'static' variable 'calls' is written: every " \
        "call shares it"
    assert "refused.c:5:" in _row(fake_report, "refused.c").detail
    broken = _row(fake_report, "broken.c")
    assert broken.status.startswith("scalar build: ") and "undeclared_thing" in broken.status


def test_companions_found(fake_report: Report) -> None:
    assert _row(fake_report, "uses_table.c").companions == ["table.c"]
    assert _row(fake_report, "good.c").companions == []


def test_summary_counts_and_diagnostics(fake_report: Report) -> None:
    assert fake_report.summary() == "verified 2 of 4 (50%)"
    assert fake_report.counts() == {"verified": 2, "no function": 2, "diagnostic": 1, "scalar build": 1}
    assert fake_report.diagnostics() == [("local 'static' variable 'calls' is written: every call shares it", 1,
                                          ["refused.c"])]
    assert not fake_report.failed()


def test_tables_written(fake_report: Report, tmp_path: Path) -> None:
    md, js = realworld.write_report(fake_report, tmp_path)
    assert md.name == f"realworld-{Path(fake_report.dir).name}-sse4.1.md"
    lines = md.read_text().splitlines()
    assert lines[0].startswith("# verified 2 of 4 (50%)") and "verified 2 of 4 (50%)" in lines[2]
    assert "| uses_table.c | verified | fake_lookup | table.c |" in md.read_text()
    data = json.loads(js.read_text())
    assert data["summary"] == "verified 2 of 4 (50%)" and data["isa"] == "sse4.1" and data["cpu"]
    assert {r["file"]: r["kind"] for r in data["rows"]}["refused.c"] == "diagnostic"


def test_companion_closure_is_transitive_and_skips_the_system() -> None:
    s = {
        "a.c": Scalar("a.c", defined={"f": "T"}, undefined=["tab", "logf"], functions=["f"]),
        "tab.c": Scalar("tab.c", defined={"tab": "R"}, undefined=["err"]),
        "err.c": Scalar("err.c", defined={"err": "T"}, undefined=["errno"]),
        "weak.c": Scalar("weak.c", defined={"tab": "W"}),
        "bad.c": Scalar("bad.c", error="bad.c:1:1: error: x"),
    }
    links, missing = companions(s, {"logf"})
    assert links["a.c"] == ["tab.c", "err.c"]  # (tab.c's strong definition, not weak.c's)
    assert missing["err.c"] == ["errno"] and missing["a.c"] == ["errno"]
    assert "bad.c" not in links


def test_exit_status_is_1_with_a_fail_row(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_dir: Path) -> None:
    rows = [Row("x.c", "verified"), Row("y.c", "FAIL: f: 3 mismatches")]
    monkeypatch.setattr(realworld, "run", lambda *a, **k: Report(str(fake_dir), "sse4.1", Flags(), rows))
    assert realworld.main([str(fake_dir), "--isa", "sse4.1", "--out", str(tmp_path)]) == 1
    rows[1] = Row("y.c", "diagnostic: no")
    assert realworld.main([str(fake_dir), "--isa", "sse4.1", "--out", str(tmp_path)]) == 0


def test_main_writes_and_exits_0(fake_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = realworld.main([str(fake_dir), "--isa", "sse4.1", "--files", "good.c,table.c", "--random", "500",
                             "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0
    assert out.splitlines()[0] == "verified 1 of 1 (100%)"
    assert (tmp_path / f"realworld-{fake_dir.name}-sse4.1.json").is_file()


def test_timeout_row(tmp_path: Path) -> None:
    (tmp_path / "spin.c").write_text("unsigned fake_spin(unsigned x)\n{\n    while (x != 7u)\n"
                                     "        x = x * 3u + 1u;\n    return x;\n}\n")
    report = run(tmp_path, "sse4.1", jobs=1, n_random=1000, timeout=8)
    assert [r.kind for r in report.rows] == ["timeout"]
    # (verify's own time limit, before the worker's is killed: which input it was in)
    assert re.fullmatch(r"timeout: fake_spin: the run did not end within 1 s: it was in the scalar call of input"
                        r" \d+ \(x=0x[0-9a-f]+ \(\d+\)\); nothing is verified", report.rows[0].status)
    assert report.summary() == "verified 0 of 1 (0%)"


def test_glibc_sysdeps_order() -> None:
    tree = _glibc_tree()
    dirs = source_tree._sysdeps_dirs(tree, "x86_64/64")
    assert dirs[:3] == ["sysdeps/unix/sysv/linux/x86_64/64", "sysdeps/unix/sysv/linux/x86_64",
                        "sysdeps/unix/sysv/linux/x86"]
    assert dirs[-5:] == ["sysdeps/ieee754/dbl-64", "sysdeps/ieee754/flt-32", "sysdeps/wordsize-64",
                         "sysdeps/ieee754", "sysdeps/generic"]
    assert dirs.index("sysdeps/x86_64/fpu") < dirs.index("sysdeps/x86_64") < dirs.index("sysdeps/ieee754/flt-32")
    assert not any("multiarch" in d for d in dirs)
    arm = source_tree._sysdeps_dirs(tree, "aarch64")
    assert arm.index("sysdeps/aarch64/fpu") < arm.index("sysdeps/aarch64") < arm.index("sysdeps/ieee754/ldbl-128")


def _glibc_tree() -> Path:
    from mathlib import corpus

    try:
        flt32 = corpus.glibc_flt32_dir()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    tree = source_tree.glibc_root(flt32)
    assert tree is not None
    return source_tree.ensure_glibc_tree(tree)


@pytest.mark.slow
def test_real_glibc_files() -> None:
    """s_floorf.c, e_logf.c (with e_logf_data.c and math_errf.c found by nm) and s_truncf.c through
    glibc's own headers."""
    flt32 = _glibc_tree() / "sysdeps/ieee754/flt-32"
    report = run(flt32, "sse4.1", jobs=2, n_random=2000,
                 files=["s_floorf.c", "e_logf.c", "e_logf_data.c", "s_truncf.c"])
    by = {r.file: r for r in report.rows}
    assert report.flags.origin.startswith("glibc-")
    assert "-DMODULE_NAME=libm" in report.flags.describe()
    for name, fn in (("s_floorf.c", "__floorf"), ("e_logf.c", "__logf"), ("s_truncf.c", "__truncf")):
        assert by[name].status == "verified", (name, by[name].status, by[name].detail)
        assert by[name].functions == [fn]
    assert sorted(by["e_logf.c"].companions) == ["e_logf_data.c", "math_errf.c"]
    assert by["e_logf_data.c"].status == "no function"
    assert report.summary() == "verified 3 of 3 (100%)"


@pytest.mark.slow
def test_dbl64_log_and_hypot_agree_under_avx2_with_fma() -> None:
    """Issue 18 section 3: one preprocessing configuration. AVX2's flags include -mfma, so the compiler
    predefines __FP_FAST_FMA, and glibc's dbl-64 e_log.c and e_hypot.c take their fma paths; expand
    reads them with the same macros the reference is compiled with, so the two agree bit for bit."""
    from emit import get_isa

    isa = get_isa("avx2")
    assert "-mfma" in isa.cflags
    macros = subprocess.run([*isa.cc, *isa.cflags, "-dM", "-E", "-x", "c", "/dev/null"], capture_output=True,
                            text=True, check=True).stdout
    assert "#define __FP_FAST_FMA 1" in macros
    dbl64 = _glibc_tree() / "sysdeps/ieee754/dbl-64"
    report = run(dbl64, "avx2", jobs=2, n_random=5000, files=["e_log.c", "e_hypot.c"])
    by = {r.file: r for r in report.rows}
    for name in ("e_log.c", "e_hypot.c"):
        assert by[name].status == "verified", (name, by[name].status, by[name].detail)


def test_user_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """-I and -D go to every file (the frontend, the scalar compile, the output and the harness alike)."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "lib").mkdir()
    (tmp_path / "inc" / "scale.h").write_text("#ifndef SCALE\n#error SCALE is not defined\n#endif\n"
                                             "#define SCALED(x) ((x) * SCALE)\n")
    (tmp_path / "lib" / "scaled.c").write_text('#include "scale.h"\nfloat fake_scaled(float x) { return SCALED(x); }\n')
    status = realworld.main([str(tmp_path / "lib"), "--isa", "sse2", "-I", str(tmp_path / "inc"), "-D", "SCALE=2.0f",
                             "--random", "500", "--out", str(tmp_path)])
    assert status == 0 and capsys.readouterr().out.startswith("verified 1 of 1 (100%)")
    data = json.loads((tmp_path / "realworld-lib-sse2.json").read_text())
    assert data["flags"]["defines"] == ["SCALE=2.0f"] and data["flags"]["origin"].startswith("-I/-D")


@pytest.mark.slow
def test_glibc_flt32_has_no_fail_row_and_keeps_the_committed_count(tmp_path: Path) -> None:
    """The whole of glibc 2.36's sysdeps/ieee754/flt-32 on SSE4.1 (issue 18's CI line): no FAIL row
    (expand exited 0 with wrong or uncompilable code) and at least as many files verified as the table
    committed in mathlib/results says."""
    committed = json.loads((realworld.RESULTS_DIR / "realworld-flt-32-sse4.1.json").read_text())
    want = sum(r["status"] == "verified" for r in committed["rows"])
    report = run(_glibc_tree() / "sysdeps/ieee754/flt-32", "sse4.1", jobs=2, n_random=5000)
    fails = [f"{r.file}: {r.status}: {r.detail[:2000]}" for r in report.rows if r.status.startswith("FAIL")]
    assert not fails, "\n".join(fails)
    got = sum(r.status == "verified" for r in report.rows)
    assert got >= want, f"{report.summary()}: fewer than the {want} committed in mathlib/results"


def test_update_merges_rows_into_the_table(fake_report: Report, tmp_path: Path) -> None:
    """--update: the rows of the files checked again replace theirs; the others, the date and the time stay."""
    realworld.write_report(fake_report, tmp_path)
    again = Report(fake_report.dir, fake_report.isa, fake_report.flags,
                   [Row("refused.c", "verified", functions=["fake_counter"])], date="later")
    merged = realworld.merged(again, tmp_path)
    assert [r.file for r in merged.rows] == [r.file for r in fake_report.rows]
    assert _row(merged, "refused.c").status == "verified"
    assert _row(merged, "good.c").status == "verified" and _row(merged, "good.c").inputs > 2000
    assert merged.date == fake_report.date and merged.updated == ["later: refused.c"]
    assert "checked again (--update) later: refused.c" in merged.to_markdown()
    other = Report(str(Path("/elsewhere") / Path(fake_report.dir).name), fake_report.isa, fake_report.flags, [],
                   date="x")
    with pytest.raises(ValueError):  # (a table of the same name, of another directory)
        realworld.merged(other, tmp_path)


@pytest.mark.slow
def test_newlib_files() -> None:
    """newlib 3.3's libm/math (fdlibm, real code nobody here wrote, with the system's headers): expf and logf,
    sinf through kf_rem_pio2.c (which has a -Wmaybe-uninitialized, an error in the scan no more), a wrapper
    with _LIB_VERSION as newlib's configure leaves it, sincosf (compiled without the sinf and cosf builtins,
    or GCC makes it call itself), drem, an old-style (K&R) definition, and acosf's wrapper, which returns
    nan("")."""
    from mathlib.corpus import NEWLIB_DEFINES, newlib_math
    from mathlib.source_tree import Flags

    math_dir, incs = newlib_math()
    files = ["ef_exp.c", "ef_log.c", "sf_sin.c", "wf_exp.c", "wf_sincos.c", "s_floor.c", "w_drem.c", "wf_acos.c"]
    report = run(math_dir, "avx2", jobs=2, n_random=2000, files=files,
                 flags=Flags(include_dirs=incs, defines=NEWLIB_DEFINES, origin="newlib"))
    by = {r.file: r for r in report.rows}
    for name in files:
        assert by[name].status in ("verified", "not run here"), (name, by[name].status, by[name].detail[:3000])
    assert "kf_rem_pio2.c" in by["sf_sin.c"].companions
