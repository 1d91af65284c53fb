"""``expand --verify-file TUNED.c [SCALAR.c]`` (issue 20 section 2): an output edited by hand is verified
against its scalar source with --verify's harness, inputs and messages, the options taken from the
command its header records; nothing is written. Each edit here is made by hand (text replacements whose
effect is known without expand: an equivalent expression, two statements under disjoint masks swapped,
a changed constant, a changed signature), and each verdict is checked with the exit status and the
files of the directory, which must not change."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostrun import skip_if_cli_not_run

from emit import ISAS, default_isa, get_isa
from emit.host import EXIT_NOT_RUN, HIDE_VAR
from expand.cli import main as expand_main

ALL = list(ISAS)
ROOT = Path(__file__).resolve().parent.parent

SRC = """float f(float x, int n)
{
    float y = x * 2.0f;
    if (x > 1.5f)
        y = y - (float)n;
    else
        y = y + 3.0f;
    return y;
}
"""
SUMMARY = r"verify: f vs _Exp_f \[{isa}, {lanes} lanes\]: \d+ inputs \(\d+ edge \+ \d+ random\), {mism} mismatches"
#: the two assignments of the if and the else, each under its comment: disjoint masks, either order is right
BRANCHES = re.compile(r"(    /\* y = y - \(float\)n; \*/\n    y = [^\n]*\n)"
                      r"(    /\* y = y \+ 3\.0f; \*/\n    y = [^\n]*\n)")


def files(d: Path) -> dict[str, bytes]:
    """Every file under ``d`` with its contents."""
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def verify_file(d: Path, capsys, *args: str) -> tuple[int, str, str]:
    """(status, stdout, stderr) of ``expand --verify-file ARGS`` run in ``d``, which it must leave as it was."""
    before = files(d)
    rc = expand_main(["--verify-file", *args])
    cap = capsys.readouterr()
    assert files(d) == before, "--verify-file wrote or changed a file"
    return rc, cap.out, cap.err


def replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, (old, text)
    return text.replace(old, new)


@pytest.mark.parametrize("isa_name", ALL)
def test_hand_edits_on_every_isa(tmp_path: Path, monkeypatch, capsys, isa_name: str) -> None:
    """Two correct edits verify, a changed constant mismatches with --verify's report, a changed
    signature is a build failure citing the edited file; the options (--isa, --uniform, --random) come
    from the header's recorded command."""
    monkeypatch.chdir(tmp_path)
    Path("f.c").write_text(SRC)
    assert expand_main(["f.c", "--isa", isa_name, "--uniform", "n", "--boscc", "off", "--random", "3000",
                        "-o", "f_out.c"]) == 0
    capsys.readouterr()
    out = Path("f_out.c").read_text()
    assert out.splitlines()[1] == f"   expand f.c --isa {isa_name} --uniform n --boscc off --random 3000 -o f_out.c */"
    isa = get_isa(isa_name)
    edits = {
        # x * 2.0f is x + x, bit for bit (both round the same exact value; both overflow to inf)
        "equivalent": replace_once(out, isa.binop("*", "f32", "x", isa.splat("f32", "2.0f")),
                                   isa.binop("+", "f32", "x", "x")),
        "reordered": BRANCHES.sub(r"\2\1", out, count=1),
        "wrong": replace_once(out, "3.0f)", "3.5f)"),  # (the else branch's constant, not its comment)
        "signature": replace_once(replace_once(out, ", int n)", ")"), "((float)n)", "(1.0f)"),
    }
    assert BRANCHES.search(out) and edits["reordered"] != out
    for name, text in edits.items():
        Path(f"{name}.c").write_text(text)
    note = ("expand: note: {}.c:2: the options of the command recorded there are the defaults: expand f.c --isa "
            f"{isa_name} --uniform n --boscc off --random 3000 -o f_out.c")

    # (built before anything runs: the same on every host)
    rc, so, se = verify_file(tmp_path, capsys, "signature.c")
    assert rc == 1, so + se
    assert so == f"verify: f vs _Exp_f [{isa_name}, {isa.lanes} lanes]: compiling the harness (with the vector file) " \
        "failed\n", so
    assert se.startswith(note.format("signature") + "\ncompiling the harness (with the vector file) failed:\n")
    assert re.search(r"error: too many arguments to function '_Exp_f'|error: too many arguments to function "
                     "\u2018_Exp_f\u2019|error: too many arguments to function call", se), se  # (GCC's, Clang's)
    assert re.search(r"^signature\.c:\d+:\d+: note: (?:'_Exp_f' )?declared here", se, re.M), se
    assert "Traceback" not in se

    for name in ("equivalent", "reordered"):
        rc, so, se = verify_file(tmp_path, capsys, f"{name}.c")
        skip_if_cli_not_run(rc, se)
        assert rc == 0, so + se
        assert re.fullmatch(SUMMARY.format(isa=re.escape(isa_name), lanes=isa.lanes, mism=0) + "\n", so), so
        assert re.search(r"\+ 30\d\d random", so), so  # (--random 3000 from the header)
        assert se == note.format(name) + "\n"

    rc, so, se = verify_file(tmp_path, capsys, "wrong.c", "f.c")
    assert rc == 1, so + se
    m = re.fullmatch(SUMMARY.format(isa=re.escape(isa_name), lanes=isa.lanes, mism=r"(\d+)") + "\n", so)
    assert m and int(m.group(1)) > 0, so
    # --verify's report: the inputs and lanes, the scalar and the vector results (3 + 2x against 3.5 + 2x)
    first = re.search(r"^input \d+ \(edge\) lane \d+: x=0x([0-9a-f]{8}) \(([^)]*)\) n=0x[0-9a-f]{8} \([^)]*\)\n"
                      r"  return: DIFFERS scalar 0x[0-9a-f]{8} \(([^)]*)\) vector 0x[0-9a-f]{8} \(([^)]*)\)$", se, re.M)
    assert first, se
    x, scalar, vector = float(first.group(2)), float(first.group(3)), float(first.group(4))
    assert x <= 1.5 and scalar == 2 * x + 3.0 and vector == 2 * x + 3.5
    assert re.search(r"^\.\.\. and \d+ more mismatches$", se, re.M)


def test_header_defaults_and_overrides(tmp_path: Path, monkeypatch, capsys) -> None:
    """Options given on the command line replace the header's; a file without the recorded command
    takes its ISA and source from the header's first line and the rest from the command line."""
    isa_name = "avx2" if "avx2" in ISAS else default_isa()
    monkeypatch.chdir(tmp_path)
    Path("f.c").write_text(SRC)
    assert expand_main(["f.c", "--isa", isa_name, "--uniform", "n", "-o", "f_out.c"]) == 0
    capsys.readouterr()
    out = Path("f_out.c").read_text()
    Path("tuned.c").write_text(out)
    lanes = get_isa(isa_name).lanes

    # --uniform '' drops the header's --uniform n: the harness then passes a gang for n (a build failure)
    rc, so, se = verify_file(tmp_path, capsys, "tuned.c", "--uniform", "", "--random", "500")
    assert rc == 1 and "compiling the harness (with the vector file) failed" in so, so + se
    assert re.search(r"^tuned\.c:\d+:\d+: note: expected 'int'|^tuned\.c:\d+:\d+: note: expected \u2018int\u2019",
                     se, re.M), se

    # another ISA than the file's: said, then the compiler's verdict
    other = "sse2" if isa_name != "sse2" else "generic"
    rc, so, se = verify_file(tmp_path, capsys, "tuned.c", "--isa", other, "--random", "500")
    assert rc == 1 and "compiling the harness (with the vector file) failed" in so, so + se
    assert (f"expand: note: tuned.c was generated for {isa_name} ({lanes} lanes); verifying it as {other} "
            f"({get_isa(other).lanes} lanes)") in se

    # no recorded command: ISA and source from the first line, --uniform given here
    bare = re.sub(r"\.\n   expand [^\n]*\*/\n", ". */\n", out, count=1)
    assert bare != out and f" for {isa_name} ({lanes} lanes). */\n#include" in bare
    Path("bare.c").write_text(bare)
    rc, so, se = verify_file(tmp_path, capsys, "bare.c", "--random", "500")
    assert rc == 1 and "compiling the harness" in so, so + se
    rc, so, se = verify_file(tmp_path, capsys, "bare.c", "--uniform", "n", "--random", "500")
    skip_if_cli_not_run(rc, se)
    assert rc == 0 and re.fullmatch(SUMMARY.format(isa=isa_name, lanes=lanes, mism=0) + "\n", so), so + se
    assert se == ""


def test_readme_example(tmp_path: Path) -> None:
    """README's hand-tuning example as written there, as commands: tonemap's clamp as a min on AVX2
    verifies with the constant first; with the operands the other way round, +inf mismatches."""
    (tmp_path / "examples").mkdir()
    shutil.copy(ROOT / "examples" / "tonemap.c", tmp_path / "examples")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def expand(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "expand", *args], cwd=tmp_path, env=env, capture_output=True,
                              text=True)

    p = expand("examples/tonemap.c", "--isa", "avx2", "-o", "tuned.c", "--verify")
    skip_if_cli_not_run(p.returncode, p.stderr)
    assert p.returncode == 0, p.stdout + p.stderr
    tuned = tmp_path / "tuned.c"
    out = tuned.read_text()
    out = replace_once(out, "    __m256i m_y_gt_0999f;\n", "")
    out = "".join(ln for ln in out.splitlines(True) if not ln.startswith("    m_y_gt_0999f = "))
    clamp = "    y = _mm256_blendv_ps(y, _mm256_set1_ps(0.999f), _mm256_castsi256_ps(m_y_gt_0999f));\n"
    note = ("expand: note: tuned.c:2: the options of the command recorded there are the defaults: expand "
            "examples/tonemap.c --isa avx2 -o tuned.c --verify\n")
    summary = ("verify: tonemap vs _Exp_tonemap [avx2, 8 lanes]: 106592 inputs (6592 edge + 100000 random), "
               "{} mismatches\n")

    tuned.write_text(replace_once(out, clamp, "    y = _mm256_min_ps(_mm256_set1_ps(0.999f), y);\n"))
    before = files(tmp_path)
    p = expand("--verify-file", "tuned.c")
    assert (p.returncode, p.stdout, p.stderr) == (0, summary.format(0), note)
    assert files(tmp_path) == before

    tuned.write_text(replace_once(out, clamp, "    y = _mm256_min_ps(y, _mm256_set1_ps(0.999f));\n"))
    before = files(tmp_path)
    p = expand("--verify-file", "tuned.c")
    assert (p.returncode, p.stdout) == (1, summary.format(8)), p.stdout + p.stderr
    assert p.stderr.startswith(note + "input 4 (edge) lane 4: x=0x7f800000 (inf)\n"
                               "  return: DIFFERS scalar 0xffc00000 (-nan) vector 0x3f7fbe77 (0.999000013)\n")
    assert files(tmp_path) == before


def test_not_run_here_exits_3(tmp_path: Path, monkeypatch, capsys) -> None:
    """Where the host cannot run the file's ISA (hidden here with EXPAND_HOST_ISAS), --verify-file builds
    it all and says so with --verify's message and exit status 3."""
    monkeypatch.chdir(tmp_path)
    Path("f.c").write_text(SRC)
    assert expand_main(["f.c", "--isa", "avx2", "--uniform", "n", "-o", "tuned.c"]) == 0
    capsys.readouterr()
    monkeypatch.setenv(HIDE_VAR, "sse2")
    rc, so, se = verify_file(tmp_path, capsys, "tuned.c", "--random", "100")
    assert rc == EXIT_NOT_RUN and so == "", so + se
    assert re.search(r"^expand: verify: f vs _Exp_f \[avx2, 8 lanes\]: not run: avx2 is hidden from this host by "
                     r"EXPAND_HOST_ISAS=sse2; the output and the harness compiled and linked .*; f is NOT verified$",
                     se, re.M), se


def test_floorf_from_glibc_on_the_host_isa(tmp_path: Path, monkeypatch, capsys) -> None:
    """glibc 2.36's s_floorf.c (through the -I options the header records): a constant spelled another
    way verifies, a changed constant does not (negative non-integers round wrong)."""
    from mathlib import corpus

    try:
        flt32 = corpus.glibc_flt32_dir()
    except RuntimeError as exc:
        pytest.skip(str(exc))
    isa_name = default_isa()
    monkeypatch.chdir(tmp_path)
    assert expand_main([str(flt32 / "s_floorf.c"), "-I", str(corpus.shim_dir()), "-I", str(flt32), "--isa", isa_name,
                        "--random", "20000", "-o", "floorf.c"]) == 0
    capsys.readouterr()
    out = Path("floorf.c").read_text()
    # i0 += (0x00800000) >> j0: the constant of the code line (not of its comment)
    code = [ln for ln in out.splitlines() if "0x00800000" in ln and not ln.lstrip().startswith("/*")]
    assert len(code) == 1, code
    Path("good.c").write_text(out.replace(code[0], code[0].replace("0x00800000", "(1 << 23)")))
    Path("bad.c").write_text(out.replace(code[0], code[0].replace("0x00800000", "0x00400000")))

    rc, so, se = verify_file(tmp_path, capsys, "good.c", str(flt32 / "s_floorf.c"))
    skip_if_cli_not_run(rc, se)
    assert rc == 0, so + se
    assert re.fullmatch(SUMMARY.replace("f vs _Exp_f", "__floorf vs _Exp___floorf")
                        .format(isa=isa_name, lanes=get_isa(isa_name).lanes, mism=0) + "\n", so), so

    rc, so, se = verify_file(tmp_path, capsys, "bad.c")
    assert rc == 1, so + se
    m = re.search(r"(\d+) mismatches$", so.strip())
    assert m and int(m.group(1)) > 0, so
    # every mismatch printed is a negative non-integer (the only inputs that line changes)
    xs = [float(v) for v in re.findall(r"^input \d+ \((?:edge|random)\) lane \d+: x=0x[0-9a-f]{8} \(([^)]*)\)$", se,
                                       re.M)]
    assert xs and all(x < 0 and x != int(x) for x in xs), se


@pytest.mark.parametrize("setup, args, rc, message", [
    ("", ["missing.c", "f.c"], 1, "expand: error: cannot read 'missing.c': No such file or directory\n"),
    ("nul", ["tuned.c", "f.c"], 1, "tuned.c:1:8: error: input is not a C source file (it contains NUL bytes)\n"
                                   "tuned.c:1:8: note: give expand C source text\n"),
    ("latin1", ["tuned.c", "f.c"], 1, "tuned.c:1:4: error: input is not UTF-8 text (byte 0xe9)\n"
                                      "tuned.c:1:4: note: convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)\n"),
    ("out", ["tuned.c", "-o", "x.c"], 2, "expand: error: argument -o: --verify-file writes nothing\n"),
    ("out", ["tuned.c", "--dot", "x.dot"], 2, "expand: error: argument --dot: --verify-file writes nothing\n"),
    ("plain", ["tuned.c"], 2, "expand: error: --verify-file: tuned.c does not name its scalar source (no header of "
                              "expand's): give it, expand --verify-file tuned.c SCALAR.c\n"),
    ("moved", ["tuned.c"], 1, "expand: note: tuned.c:2: the options of the command recorded there are the defaults: "
                              "expand f.c --isa sse2\n"
                              "expand: error: cannot read 'f.c': No such file or directory\n"
                              "expand: note: tuned.c's header names 'f.c' as the scalar source; give the right path: "
                              "expand --verify-file tuned.c SCALAR.c\n"),
    ("bogus", ["tuned.c"], 2, "expand: error: --verify-file: tuned.c:2: the command recorded there does not parse "
                              "(unrecognized arguments: --bogus); edit or delete that line, or give the options "
                              "here\n"),
    ("stdin", ["tuned.c"], 2, "expand: error: --verify-file needs the scalar source as a file (tuned.c was made from "
                              "standard input): expand --verify-file tuned.c SCALAR.c\n"),
    ("out", ["tuned.c", "-"], 2, "expand: error: --verify-file needs the scalar source as a file\n"),
])
def test_cli_errors(tmp_path: Path, monkeypatch, capsys, setup: str, args: list[str], rc: int, message: str) -> None:
    """Unusable inputs and options: a diagnostic and its exit status, nothing written, no traceback."""
    monkeypatch.chdir(tmp_path)
    Path("f.c").write_text(SRC)
    header = "/* Generated by expand 0.1.0 from f.c for sse2 (4 lanes).\n   expand f.c --isa sse2{} */\n"
    text = {"nul": "float g\0(void);\n", "plain": SRC, "out": header.format(""), "moved": header.format(""),
            "bogus": header.format(" --bogus"), "stdin": header.format("").replace("f.c", "<stdin>", 1)
            .replace(" f.c ", " - ")}.get(setup)
    if text is not None:
        Path("tuned.c").write_text(text)
    if setup == "latin1":
        Path("tuned.c").write_bytes(b"/* \xe9 */\n")
    if setup == "moved":
        Path("f.c").unlink()
    assert verify_file(tmp_path, capsys, *args) == (rc, "", message)


def test_not_an_output_of_expand(tmp_path: Path, monkeypatch, capsys) -> None:
    """The scalar source given as the tuned file: it defines no _Exp_f, which the harness reports (exit 1)."""
    monkeypatch.chdir(tmp_path)
    Path("f.c").write_text(SRC)
    rc, so, se = verify_file(tmp_path, capsys, "f.c", "f.c", "--isa", "sse2", "--uniform", "n", "--random", "100")
    assert rc == 1 and "compiling the harness (with the vector file) failed" in so, so + se
    assert "_Exp_f" in se and "Traceback" not in se
