"""The same input gives the same output in every run of expand: no order taken from a set of
objects hashed by identity (memory addresses differ from run to run) or of strings (PYTHONHASHSEED).
Found on glibc's s_sincosf.c: its local pointers' ``_which`` variables were declared in a different
order in each run (expand/passes/pointer_locals.py iterated a set of symbols)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

POINTER_LOCALS = """\
void f(float x, float *s, float *c)
{
    float *a = s, *b = c, *d = s, *e = c;
    if (x > 0.0f) {
        a = c;
        b = s;
        d = c;
        e = s;
    }
    *a = x;
    *b = x + 1.0f;
    *d = *d + 2.0f;
    *e = *e * 3.0f;
}
"""


def expand_runs(src: Path, isa: str, runs: int) -> set[str]:
    outs = set()
    for seed in range(runs):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        p = subprocess.run([sys.executable, "-m", "expand", str(src), "--isa", isa], capture_output=True,
                           text=True, cwd=ROOT, env=env)
        assert p.returncode == 0, p.stderr
        outs.add(p.stdout)
    return outs


@pytest.mark.parametrize("isa", ["sse2", "avx512", "neon"])
def test_local_pointers_to_parameters_print_the_same_every_run(tmp_path: Path, isa: str) -> None:
    src = tmp_path / "p.c"
    src.write_text(POINTER_LOCALS)
    assert len(expand_runs(src, isa, 4)) == 1


def test_a_corpus_function_prints_the_same_every_run() -> None:
    loops = ROOT / "mathlib" / "loops" / "mandelbrot.c"
    assert len(expand_runs(loops, "avx2", 3)) == 1
