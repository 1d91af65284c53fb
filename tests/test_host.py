"""One place decides which ISAs this host runs (emit/host.py), and every command that runs code says
so, without calling it a crash or a mismatch, where the host cannot (EXPAND_HOST_ISAS hides ISAs,
so any machine shows what one without AVX2 or AVX-512 does)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from emit import ISAS, default_isa, get_isa, runs_here, why_not_here
from emit.host import EXIT_NOT_RUN, HIDE_VAR

ROOT = Path(__file__).resolve().parent.parent
SRC = "float f(float x) { if (x < 1.0f) x = x * 2.0f; return x; }\n"


def test_hiding_native_isas(monkeypatch) -> None:
    monkeypatch.setenv(HIDE_VAR, "sse2,sse4.1")
    assert runs_here("sse2") == (why_not_here("sse2") is None)
    assert not runs_here("avx2") and not runs_here("avx512")
    assert "hidden" in why_not_here("avx2") or "cannot run" in why_not_here("avx2")
    assert runs_here("generic")  # not a native table with CPU features: never hidden
    assert default_isa() in ("sse4.1", "sse2", "generic", "neon", "altivec")


def test_every_table_says_what_it_needs() -> None:
    for name in ISAS:
        isa = get_isa(name)
        assert bool(isa.run_prefix) or name == "generic" or type(isa).CPU_FEATURES, name


def _run(args: list[str], tmp_path: Path, hide: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, **{HIDE_VAR: hide})
    return subprocess.run([sys.executable, *args], cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(not runs_here("sse2"), reason="needs an x86-64 host")
def test_verify_on_a_hidden_isa_compiles_and_says_not_run(tmp_path: Path) -> None:
    (tmp_path / "f.c").write_text(SRC)
    p = _run(["-m", "expand.cli", "f.c", "--isa", "avx2", "--verify", "--random", "100", "-o", "out.c"],
             tmp_path, "sse2")
    assert p.returncode == EXIT_NOT_RUN, p.stdout + p.stderr
    assert "not run: avx2 is hidden from this host by EXPAND_HOST_ISAS=sse2" in p.stderr
    assert "compiled and linked" in p.stderr and "f is NOT verified" in p.stderr
    assert "crash" not in p.stderr and "mismatch" not in p.stderr
    assert (tmp_path / "out.c").is_file()  # the output compiled; it is written, and said to be unverified


@pytest.mark.slow
@pytest.mark.skipif(not runs_here("sse2"), reason="needs an x86-64 host")
def test_fuzz_on_a_hidden_isa_compiles_and_says_not_run(tmp_path: Path) -> None:
    p = _run(["-m", "expand.check.fuzz", "--isa", "avx2", "--count", "3", "--seed", "4", "--no-minimize", "--out",
              str(tmp_path / "f")], tmp_path, "sse2")
    assert p.returncode == EXIT_NOT_RUN, p.stdout + p.stderr
    assert re.search(r"3 programs, 0 mismatches, 0 crashes \(0 tracebacks, 0 -Werror\), .*"
                     r"3 compiled but NOT run \(avx2 is hidden from this host", p.stdout), p.stdout


@pytest.mark.skipif(not runs_here("sse2"), reason="needs an x86-64 host")
def test_bench_on_a_hidden_isa_says_not_measured(tmp_path: Path) -> None:
    p = _run(["-m", "mathlib.bench", "--isa", "avx512", "--quick", "--out", str(tmp_path / "b")], tmp_path,
             "sse2,sse4.1")
    assert p.returncode == EXIT_NOT_RUN, p.stdout + p.stderr
    assert "bench: not measuring avx512: " in p.stderr
