"""The diagnostic corpus (``tests/diagnostics/``, expectations in its ``EXPECT``): every unsupported or
malformed input makes ``expand`` exit 1 with ``file:line:col: error:`` first, naming the construct;
never a traceback, never an output file, never a touched input.

The CLI runs in this process (``expand.cli.main``: it must return 1, not raise), the inputs that probe
Python's stack and the C frontends' limits also as real ``python -m expand.cli`` processes, every input
so with ``EXPAND_CORPUS_SUBPROCESS=1``.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from expand.cli import main

ROOT = Path(__file__).parent.parent
CORPUS = Path(__file__).parent / "diagnostics"

# Run as processes too: deep nesting (RecursionError, libclang's stack), bytes that are not text, and a
# file only the clang frontend parses (the pycparser frontend's syntax error loses to its diagnostic).
ALWAYS_SUBPROCESS = {"deep_parentheses.c", "deep_ifs.c", "long_sum.c", "long_sum_900.c", "binary_random.c",
                     "goto_computed.c", "missing_semicolon.c"}
ALL_SUBPROCESS = os.environ.get("EXPAND_CORPUS_SUBPROCESS", "") not in ("", "0")


def manifest() -> dict[str, tuple[str, int | None, int | None]]:
    """EXPECT as {file: (text, line, column)} (line and column None where not pinned)."""
    out: dict[str, tuple[str, int | None, int | None]] = {}
    for n, raw in enumerate((CORPUS / "EXPECT").read_text().splitlines(), 1):
        fields = shlex.split(raw, comments=True)
        if not fields:
            continue
        assert 2 <= len(fields) <= 3, f"EXPECT:{n}: FILE \"TEXT\" [LINE[:COL]]: {raw!r}"
        name, text, where = fields[0], fields[1], fields[2] if len(fields) == 3 else ""
        m = re.fullmatch(r"(?:(\d+)(?::(\d+))?)?", where)
        assert m, f"EXPECT:{n}: bad position {where!r}"
        assert name not in out, f"EXPECT:{n}: {name} again"
        out[name] = (text, int(m.group(1)) if m.group(1) else None, int(m.group(2)) if m.group(2) else None)
    return out


CASES = manifest()


def run_in_process(args: list[str]) -> tuple[int, str, str]:
    """(status, stderr, stdout) of ``expand.cli.main(args)``; it must return, not raise (nor leave
    unraisable exceptions behind, which the interpreter prints as tracebacks)."""
    err, out = io.StringIO(), io.StringIO()
    unraisable: list[str] = []
    old_hook = sys.unraisablehook
    sys.unraisablehook = lambda u: unraisable.append(f"{u.exc_type.__name__}: {u.exc_value}")
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            status = main(args)
    finally:
        sys.unraisablehook = old_hook
    assert not unraisable, unraisable
    return status, err.getvalue(), out.getvalue()


def run_process(args: list[str]) -> tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "expand.cli", *args], capture_output=True, text=True, cwd=ROOT,
                       timeout=300)
    return p.returncode, p.stderr, p.stdout


def check(name: str, src: Path, out: Path, before: bytes, status: int, stderr: str, stdout: str) -> None:
    text, line, col = CASES[name]
    assert status == 1, f"exit {status}\n{stderr}"
    assert "Traceback" not in stderr, stderr
    first = stderr.splitlines()[0] if stderr else ""
    m = re.match(rf"^{re.escape(str(src))}:(\d+):(\d+): error: ", first)
    assert m, f"not a located diagnostic:\n{stderr}"
    assert int(m.group(1)) >= 1 and int(m.group(2)) >= 1, first
    assert text.lower() in stderr.lower(), f"{text!r} not in:\n{stderr}"
    if line is not None:
        assert int(m.group(1)) == line, f"expected line {line}:\n{stderr}"
    if col is not None:
        assert int(m.group(2)) == col, f"expected column {col}:\n{stderr}"
    assert src.read_bytes() == before, "the input was modified"
    assert not out.exists(), "an output file was written"
    assert stdout == "", stdout


def test_the_manifest_covers_the_corpus() -> None:
    files = {p.name for p in CORPUS.iterdir() if p.suffix == ".c"}
    assert files - set(CASES) == set(), "inputs without a line in EXPECT"
    assert set(CASES) - files == set(), "EXPECT lines without an input"
    assert len(files) >= 50


@pytest.mark.parametrize("name", sorted(CASES))
def test_input_gets_a_located_diagnostic(tmp_path: Path, name: str) -> None:
    src, out = tmp_path / name, tmp_path / "OUT.c"
    shutil.copyfile(CORPUS / name, src)
    before = src.read_bytes()
    args = [str(src), "--isa", "sse4.1", "-o", str(out)]
    check(name, src, out, before, *(run_process(args) if ALL_SUBPROCESS else run_in_process(args)))


@pytest.mark.parametrize("name", sorted(ALWAYS_SUBPROCESS))
def test_input_gets_a_located_diagnostic_as_a_process(tmp_path: Path, name: str) -> None:
    src, out = tmp_path / name, tmp_path / "OUT.c"
    shutil.copyfile(CORPUS / name, src)
    before = src.read_bytes()
    check(name, src, out, before, *run_process([str(src), "--isa", "sse4.1", "-o", str(out)]))


@pytest.mark.parametrize("option, value, says", [
    ("--functions", "g", "argument --functions: 'g' is not defined"),
    ("--functions", "f,h,g", "'g' is not defined"),
    ("--uniform", "q", "argument --uniform: no function expanded from"),
    ("--linear", "q", "argument --linear: no function expanded from"),
])
def test_naming_what_the_file_does_not_define_is_a_usage_error(tmp_path: Path, option: str, value: str,
                                                               says: str) -> None:
    """The command line is wrong, not the file: exit 2 (as for a bad --isa), and the defined names."""
    src, out = tmp_path / "ok.c", tmp_path / "OUT.c"
    src.write_text("int f(int x)\n{\n    return x + 1;\n}\n\nstatic int h(int y)\n{\n    return y;\n}\n")
    before = src.read_bytes()
    status, stderr, stdout = run_in_process([str(src), "--isa", "sse4.1", "-o", str(out), option, value])
    assert status == 2, stderr
    assert stderr.startswith("expand: error: ") and says in stderr, stderr
    if option == "--functions":
        assert "(it defines: f, h)" in stderr
    assert src.read_bytes() == before and not out.exists() and stdout == ""
    status, stderr, _ = run_process([str(src), "--isa", "sse4.1", "-o", str(out), option, value])
    assert status == 2 and "Traceback" not in stderr and says in stderr, stderr
