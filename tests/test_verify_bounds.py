"""Verification that always ends (issue 20 section 2): integer parameters a loop's trip count depends on
(expand/analysis/trip_inputs.py) are drawn from TRIP_BOUNDS unless ``--range`` says otherwise, and a run that
takes longer than ``--verify-timeout`` stops with a diagnostic naming the inputs it was in."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from hostrun import skip_if_cli_not_run

from emit import get_isa
from expand.check.verify import TRIP_BOUNDS, Param, trip_bounds
from expand.cli import main as expand_main
from expand.driver import expand_module
from expand.ir.types import INT, UCHAR, UINT
from frontends.clang_frontend import read_file_any

TRIPS = {
    "direct": ("float f(float x, int n) { float s = 0; for (int i = 0; i < n; i++) s += x; return s; }", ["n"]),
    "via_local": ("float f(float x, int n) { int k = n * 2; float s = 0;\n"
                  "  for (int i = 0; i < k; i++) s += x; return s; }", ["n"]),
    "while_down": ("float f(float x, int m) { while (m > 0) { x *= 0.5f; m--; } return x; }", ["m"]),
    "no_loop": ("float f(float x, int n) { return x * (float)n; }", []),
    "body_only": ("float f(float x, int n, int c) { float s = 0;\n"
                  "  for (int i = 0; i < 10; i++) s += x * (float)n; return s + (float)c; }", []),
    # the start and the step of the counter; a break's condition; not the float parameter
    "start_step": ("float f(float x, int a, int st, int stop) { float s = 0;\n"
                   "  for (int i = a; i < 100; i += st) { if (i == stop) break; s += x; } return s; }",
                   ["a", "st", "stop"]),
    # through an inlined helper, an unsigned count; a return from a nested loop
    "helper": ("static int twice(int v) { return v * 2; }\n"
               "float f(float x, int n, unsigned u, int b) { float s = 0;\n"
               "  for (int i = 0; i < 4; i++) for (unsigned j = 0; j < u; j++) { if (j == (unsigned)b) return s;"
               " s += x; }\n"
               "  for (int i = twice(n); i > 0; i--) s += x; return s; }", ["n", "u", "b"]),
}


@pytest.mark.parametrize("name", list(TRIPS))
def test_trip_params(tmp_path: Path, name: str) -> None:
    text, want = TRIPS[name]
    src = tmp_path / f"{name}.c"
    src.write_text(text + "\n")
    isa = get_isa("sse4.1")
    res = expand_module(read_file_any(str(src), text + "\n", cc=isa.cc), isa)
    assert res.functions[0].trip_params == want


def test_trip_bounds_defaults_clip_and_yield_to_given() -> None:
    params = [Param("n", INT), Param("u", UINT), Param("c", UCHAR), Param("k", INT), Param("l", INT, "linear")]
    bounds, notes = trip_bounds(params, ["n", "u", "c", "k", "l"], {"k": (0, 3)})
    assert bounds == {"k": (0, 3), "n": TRIP_BOUNDS, "u": (0, TRIP_BOUNDS[1]), "c": (0, 255)}
    assert notes[0] == "n: drawn from -16..256 (it bounds a loop's trip count; --range n=LO:HI to change)"
    assert [n.split(":")[0] for n in notes] == ["n", "u", "c"]


LOOP = ("float f(float x, int n)\n{\n    float s = 0.0f;\n    for (int i = 0; i < n; i++)\n"
        "        s = s * 0.5f + x;\n    return s;\n}\n")
NOTE = "  n: drawn from -16..256 (it bounds a loop's trip count; --range n=LO:HI to change)"


@pytest.mark.parametrize("isa_name", ["sse4.1", "avx2"])
def test_a_trip_count_parameter_is_bounded_and_verifies(tmp_path: Path, isa_name: str, capsys) -> None:
    src, out = tmp_path / "loop.c", tmp_path / "out.c"
    src.write_text(LOOP)
    t0 = time.monotonic()
    rc = expand_main([str(src), "--isa", isa_name, "--verify", "--random", "20000", "-o", str(out)])
    cap = capsys.readouterr()
    skip_if_cli_not_run(rc, cap.err)
    assert rc == 0, cap.out + cap.err
    lines = cap.out.splitlines()
    assert re.fullmatch(r"verify: f vs _Exp_f \[.*\]: \d+ inputs \(\d+ edge \+ 20000 random\), 0 mismatches", lines[0])
    assert lines[1] == NOTE
    assert out.is_file() and time.monotonic() - t0 < 120


# Long even for small n: 100,000 trips of the inner loop per outer trip.
SLOW = ("float f(float x, int n)\n{\n    float s = 0.0f;\n    for (int i = 0; i < n; i++)\n"
        "        for (int j = 0; j < 100000; j++)\n            s = s + x;\n    return s;\n}\n")


def test_range_overrides_the_default(tmp_path: Path, capsys) -> None:
    src, out = tmp_path / "slow.c", tmp_path / "out.c"
    src.write_text(SLOW)
    rc = expand_main([str(src), "--isa", "sse4.1", "--verify", "--random", "200", "--range", "n=0:1",
                      "--verify-timeout", "60", "-o", str(out)])
    cap = capsys.readouterr()
    skip_if_cli_not_run(rc, cap.err)
    assert rc == 0, cap.out + cap.err
    assert ", 0 mismatches" in cap.out and "drawn from" not in cap.out + cap.err


def test_the_time_limit_ends_the_run(tmp_path: Path, capsys) -> None:
    src, out = tmp_path / "slow.c", tmp_path / "out.c"
    src.write_text(SLOW)
    t0 = time.monotonic()
    rc = expand_main([str(src), "--isa", "sse4.1", "--verify", "--random", "200", "--verify-timeout", "1",
                      "-o", str(out)])
    took = time.monotonic() - t0
    cap = capsys.readouterr()
    skip_if_cli_not_run(rc, cap.err)
    assert rc == 1 and not out.exists()
    assert re.search(r"^expand: error: verify: f: the run did not end within 1 s: it was in the "
                     r"(scalar call of input \d+ \(x=.* n=0x[0-9a-f]+ \(\d+\)\)|vector call of inputs (\d+)\.\.\d+)"
                     r"; nothing is verified$", cap.err, re.M), cap.err
    assert re.search(r"n=0x[0-9a-f]+ \((\d+)\)", cap.err)  # (the values of the input(s) it was in)
    assert "--verify-timeout SECONDS" in cap.err and NOTE in cap.err
    assert "Traceback" not in cap.err and f"{out} not written: --verify failed" in cap.err
    assert took < 60


def test_bad_timeout_is_a_usage_error(tmp_path: Path, capsys) -> None:
    src = tmp_path / "loop.c"
    src.write_text(LOOP)
    assert expand_main([str(src), "--verify", "--verify-timeout", "0"]) == 2
    assert "positive number of seconds" in capsys.readouterr().err
