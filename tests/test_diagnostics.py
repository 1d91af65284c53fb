"""Constructs expand does not vectorize get `file:line:col: error:`, exit 1, no traceback."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

CASES = {
    "inline_asm": ("float f(float x) { __asm__(\"nop\"); return x; }", "assembly"),
    "recursion": ("int f(int x) { if (x > 0) return f(x - 1); return 0; }", "recursive"),
    "helper_recursion": ("static int g(int x) { if (x) return g(x - 1); return 1; }\n"
                         "int f(int x) { return g(x); }", "recursive"),
    "goto_into_loop": ("int f(int x) { if (x) goto inside; while (x < 10) { inside: x++; } return x; }",
                       "into a loop"),
    "break_outside_loop": ("int f(int x) { if (x) break; return x; }", "error"),
    "backward_goto": ("int f(int x) { again: x = x + 1; if (x < 10) goto again; return x; }", "loop"),
    "function_pointer": ("int f(int (*g)(int), int x) { return g(x); }", "function pointer"),
    "duffs_device": ("int f(int x) { int s = 0; switch (x & 1) { case 0: while (s < 4) { s++; case 1: s += 2; } }"
                     " return s; }", "Duff's device"),
    "static_written": ("int f(int x) { static int n; n = n + x; return n; }", "static"),
    "volatile_local": ("int f(int x) { volatile int y[2] = {x, x}; return y[0]; }", "volatile"),
    "varargs": ("int f(int x, ...) { return x; }", "variadic"),
    "vla": ("int f(int n) { int a[n]; a[0] = n; return a[0]; }", "variable-length"),
    "struct_param": ("struct s { int a; };\nint f(struct s v) { return v.a; }", "cannot be expanded"),
    "assign_in_logical_operand": ("int f(int x) { int y = 0; if (x > 0 && (y = x) > 2) return y; return 0; }",
                                  "inside an operand of &&"),
    "do_while_update": ("int f(int x) { do { x += 3; } while (--x > 5); return x; }", "do-while"),
    "global_store": ("int g;\nint f(int x) { g = x; return g; }", "global"),
    "long_double": ("long double f(long double x) { return x; }", "long double"),
    "syntax_error": ("int f(int x) { return x +; }", "error"),
    "undeclared": ("int f(int x) { return y; }", "undeclared"),
    "truncated": ("int f(int x) { if (x) { return 1;", "error"),
    "setjmp": ("#include <setjmp.h>\nint f(int x) { jmp_buf b; if (setjmp(b)) return 1; return x; }", "error"),
}


def run(tmp_path: Path, name: str, text: str | bytes) -> subprocess.CompletedProcess:
    src = tmp_path / f"{name}.c"
    if isinstance(text, bytes):
        src.write_bytes(text)
    else:
        src.write_text(text + "\n")
    return subprocess.run([sys.executable, "-m", "expand.cli", str(src), "--isa", "sse4.1"],
                          capture_output=True, text=True, cwd=Path(__file__).parent.parent)


@pytest.mark.parametrize("name", sorted(CASES))
def test_unsupported_construct_gets_diagnostic(tmp_path: Path, name: str) -> None:
    text, word = CASES[name]
    before = text
    p = run(tmp_path, name, text)
    assert p.returncode == 1, p.stderr
    assert "Traceback" not in p.stderr
    first = p.stderr.splitlines()[0]
    assert re.match(rf"^{re.escape(str(tmp_path / name))}\.c:\d+:\d+: error: ", first), p.stderr
    assert word.lower() in p.stderr.lower(), p.stderr
    assert (tmp_path / f"{name}.c").read_text() == before + "\n"  # input untouched


@pytest.mark.parametrize("data", [b"\x00\x01\x02garbage\xff", b"int f(int x) { return x; } \xff\xfe\n"])
def test_binary_and_non_utf8_input(tmp_path: Path, data: bytes) -> None:
    p = run(tmp_path, "bin", data)
    assert p.returncode == 1
    assert "Traceback" not in p.stderr
    assert re.match(r"^.*bin\.c:\d+:\d+: error: ", p.stderr.splitlines()[0]), p.stderr


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    src = tmp_path / "ok.c"
    src.write_text("int f(int x) { return x + 1; }\n")
    p = subprocess.run([sys.executable, "-m", "expand.cli", str(src), "--isa", "nope"], capture_output=True,
                       text=True, cwd=Path(__file__).parent.parent)
    assert p.returncode == 2
    p = subprocess.run([sys.executable, "-m", "expand.cli", str(src), "-o", str(src)], capture_output=True,
                       text=True, cwd=Path(__file__).parent.parent)
    assert p.returncode == 2
    assert src.read_text() == "int f(int x) { return x + 1; }\n"
