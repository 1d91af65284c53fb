"""The command line's output paths (issue 20, section 1): every bad path, special file and failed write
ends with `expand: error: ...` and the right exit status, no traceback, and no file changed that
should not be: the input, a FIFO, a symbolic link, /dev/full, a directory."""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE = "float f(float x) { return x > 1 ? x : 2 * x; }\n"
INT_SOURCE = "int g(int i) { return i * 2; }\n"


def expand(*args: str, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    """``python -m expand ARGS`` (this checkout's), as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "expand", *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, env=env, cwd=ROOT, timeout=300)


def digest(directory: Path) -> dict[str, str]:
    """Every entry of ``directory``: its kind and, for regular files, its contents' hash."""
    out = {}
    for p in sorted(directory.rglob("*")):
        st = p.lstat()
        kind = "link" if stat.S_ISLNK(st.st_mode) else "fifo" if stat.S_ISFIFO(st.st_mode) else \
            "dir" if stat.S_ISDIR(st.st_mode) else "file"
        out[str(p.relative_to(directory))] = kind + (":" + hashlib.sha256(p.read_bytes()).hexdigest()
                                                     if kind == "file" else "")
    return out


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "a.c").write_text(SOURCE)
    (tmp_path / "b.c").write_text(INT_SOURCE)
    (tmp_path / "adir").mkdir()
    return tmp_path


def assert_error(p: subprocess.CompletedProcess, code: int, text: str) -> None:
    assert p.returncode == code, (p.returncode, p.stderr)
    assert p.stderr.startswith("expand: error: ") and text in p.stderr, p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("args, code, text", [
    (["-o", "/nonexistent/dir/x.c"], 1, "the directory '/nonexistent/dir' does not exist"),
    (["-o", "{work}/adir"], 1, "is a directory; give a file name"),
    (["-o", "{work}/newdir/"], 1, "is a directory; give a file name"),
    (["-o", ""], 1, "an empty file name"),
    (["--dot", "/nonexistent/a.dot", "-o", "{work}/o.c"], 1, "--dot '/nonexistent/a.dot'"),
    (["--verify", "-o", "/nonexistent/x.c"], 1, "-o '/nonexistent/x.c'"),
    (["--dot", "{work}/a.c", "-o", "{work}/o.c"], 2, "is the input file; refusing to overwrite it"),
    (["--header", "{work}/a.c", "--wrapper", "array", "-o", "{work}/o.c"], 2, "is the input file"),
    (["-o", "{work}/o.c", "--dot", "{work}/o.c"], 2, "-o and --dot name the same file"),
    (["-o", "{work}/a.c"], 2, "is the input file"),
    (["--prefix", "9bad", "-o", "{work}/o.c"], 2, "argument --prefix: '9bad' does not start a C identifier"),
])
def test_bad_output_paths(work: Path, args: list[str], code: int, text: str) -> None:
    before = digest(work)
    p = expand(str(work / "a.c"), "--isa", "sse2", *[a.format(work=work) for a in args])
    assert_error(p, code, text.format(work=work))
    assert digest(work) == before  # nothing written, the input untouched


def test_uniform_and_linear_on_one_parameter(work: Path) -> None:
    before = digest(work)
    p = expand(str(work / "b.c"), "--isa", "sse2", "--uniform", "i", "--linear", "i", "-o", str(work / "o.c"))
    assert_error(p, 2, "--uniform and --linear both name 'i'")
    assert digest(work) == before


def test_fifo_is_written_through_not_replaced(work: Path) -> None:
    fifo = work / "pipe.c"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    p = expand(str(work / "a.c"), "--isa", "sse2", "-o", str(fifo))
    reader.join(60)
    assert p.returncode == 0, p.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still a FIFO
    assert b"_Exp_f" in got[0]


def test_symlink_is_followed_and_kept(work: Path) -> None:
    target = work / "real.c"
    target.write_text("old\n")
    link = work / "link.c"
    link.symlink_to(target)
    p = expand(str(work / "a.c"), "--isa", "sse2", "-o", str(link))
    assert p.returncode == 0, p.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "_Exp_f" in target.read_text()


def test_symlink_to_the_input_is_refused(work: Path) -> None:
    link = work / "alias.c"
    link.symlink_to(work / "a.c")
    before = digest(work)
    assert_error(expand(str(work / "a.c"), "--isa", "sse2", "-o", str(link)), 2, "is the input file")
    assert digest(work) == before


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full on this system")
def test_dev_full(work: Path) -> None:
    mode = os.stat("/dev/full").st_mode
    assert_error(expand(str(work / "a.c"), "--isa", "sse2", "-o", "/dev/full"), 1,
                 "cannot write '/dev/full': No space left on device")
    with open("/dev/full", "w") as full:
        p = expand(str(work / "a.c"), "--isa", "sse2", stdout=full)
    assert_error(p, 1, "cannot write to standard output")
    assert os.stat("/dev/full").st_mode == mode and stat.S_ISCHR(mode)  # still the device


def test_dev_null_is_written_through(work: Path) -> None:
    p = expand(str(work / "a.c"), "--isa", "sse2", "-o", "/dev/null")
    assert p.returncode == 0, p.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_dash_is_standard_output(work: Path) -> None:
    """``-o -`` writes to standard output (as ``-`` reads standard input), also after --verify; no file
    named ``-`` appears."""
    before = set(os.listdir(ROOT))
    for extra in ([], ["--verify", "--random", "100"]):
        p = expand(str(work / "a.c"), "--isa", "sse2", "-o", "-", *extra)
        assert p.returncode == 0, p.stderr
        assert p.stdout.startswith("/* Generated by expand") and "_Exp_" in p.stdout
    assert set(os.listdir(ROOT)) == before and not (ROOT / "-").exists()


def test_failed_verify_leaves_no_output(work: Path) -> None:
    """A function whose scalar code GCC folds under undefined behaviour (``i + 1 > i`` is 1 at -O2; the
    vector code wraps at INT_MAX): --verify fails, exit 1, -o is not written."""
    (work / "c.c").write_text("int h(int i) { return i + 1 > i; }\n")
    p = expand(str(work / "c.c"), "--isa", "sse2", "--verify", "--random", "100", "-o", str(work / "o.c"))
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    assert "o.c not written: --verify failed" in p.stderr
    assert not (work / "o.c").exists()


def test_output_that_does_not_compile_is_not_written(work: Path) -> None:
    """Exit 0 promises C that compiles: expand checks its output with the ISA's compiler
    (-fsyntax-only) and stops instead of writing C that does not. Here a header the file includes
    after an included .c file names that file's struct, and the output's #include lines come before
    the struct definitions it copies (expand keeps no order between them yet)."""
    (work / "tpl.c").write_text("typedef struct { float a; } S;\nstatic float get(const S *s) { return s->a; }\n")
    (work / "scene.h").write_text("static const S TABLE[2] = {{1.0f}, {2.0f}};\n")
    src = work / "main.c"
    src.write_text('#include "tpl.c"\n#include "scene.h"\nfloat f(float x, int i) { return x * get(&TABLE[i & 1]); }\n')
    out = work / "out.c"
    p = expand(str(src), "--isa", "sse2", "-o", str(out))
    assert p.returncode == 1 and not out.exists(), p.stderr
    assert "does not compile, so it is not written" in p.stderr and "unknown type name" in p.stderr, p.stderr
