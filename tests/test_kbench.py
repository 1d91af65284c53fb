"""Smoke test of the kernel benchmark (python -m mathlib.bench --kernels --quick): it runs, checks every
column against the scalar run before timing it, proves where each column's code lives, and writes
its table, JSON and chart. It never looks at speed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mathlib import kbench
from mathlib.benchkit import WrongEntryPoint, host_isas
from mathlib.suite import kernels

REPO = Path(__file__).resolve().parent.parent
QUICK = ["mandelbrot", "black_scholes", "aobench"]  # a loop, libm calls, structs and a generator per pixel


@pytest.fixture(scope="module")
def quick(tmp_path_factory) -> Path:
    if "avx2" not in host_isas():
        pytest.skip("the kernel benchmark's smoke test runs AVX2 code")
    import matplotlib  # noqa: F401  (a test dependency: the chart must be drawn)
    out = tmp_path_factory.mktemp("kbench")
    p = subprocess.run([sys.executable, "-m", "mathlib.bench", "--kernels", ",".join(QUICK), "--quick", "--isa",
                        "avx2", "--out", str(out)], cwd=REPO, capture_output=True, text=True, timeout=1200,
                       env=dict(os.environ, EXPAND_CACHE_DIR=str(tmp_path_factory.mktemp("cache"))))
    assert p.returncode == 0, p.stdout + p.stderr
    return out


@pytest.mark.slow  # (a smoke run of the kernel benchmark: the whole suite runs it)
def test_writes_table_json_png(quick: Path) -> None:
    for name in ("kernels.md", "kernels.json", "kernels.png"):
        assert (quick / name).is_file() and (quick / name).stat().st_size > 0, name
    assert (quick / "kernels.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (quick / "kernels.md").read_text()
    assert "| kernel | ISA | scalar ns/element | expand | anchor |" in md
    for k in QUICK:
        assert f"| {k} | avx2 |" in md
    # every kernel expands now (aobench since struct locals): each column is measured
    row = next(line for line in md.splitlines() if line.startswith("| aobench | avx2 |"))
    assert "diagnostic" not in row and row.count("x |") >= 4


@pytest.mark.slow  # (a smoke run of the kernel benchmark: the whole suite runs it)
def test_every_column_checked_then_timed(quick: Path) -> None:
    data = json.loads((quick / "kernels.json").read_text())
    assert data["meta"]["quick"] is True and data["meta"]["isas"] == ["avx2"] and data["meta"]["kernels"] == QUICK
    for k in QUICK:
        r = data["results"]["avx2"][k]
        assert "error" not in r, r.get("error")
        want = {"scalar", "anchor", "fastmath", "clones", "expand"}
        assert set(r["variants"]) == want and set(r["check"]) == want
        for v in want:
            c = r["check"][v]
            assert c["n"] > 0 and c["ok"], (k, v, c)
            if v in kbench.EXACT:
                assert c["bits"] == 0, (k, v, c)  # bit for bit with the scalar run
            d = r["time"][v]
            assert d["ns_per_element"] > 0 and d["speedup"] > 0 and d["vs_anchor"] > 0
            assert len(d["samples"]) == data["meta"]["rounds"]
        assert r["diagnostic"] is None


@pytest.mark.slow  # (a smoke run of the kernel benchmark: the whole suite runs it)
def test_columns_call_what_they_name(quick: Path) -> None:
    data = json.loads((quick / "kernels.json").read_text())
    r = data["results"]["avx2"]["black_scholes"]
    where = {name: os.path.basename(obj) for name, obj in r["where"].items()}
    # GCC's -ffast-math loop calls libmvec; expand's output and the anchor call mathlib's vector libm in
    # the program; the scalar column's expf and logf are glibc's sources linked into the program
    assert r["libmvec_calls"] and all(s.startswith("_ZGVdN8v_") for s in r["libmvec_calls"])
    assert {where[f"fastmath/{s}"] for s in r["libmvec_calls"]} == {"libmvec.so.1"}
    assert where["expand/_Exp_expf_avx2"] == where["anchor/_Exp_expf_avx2"] == where["scalar/expf"] == "bench"
    assert r["clone_calls"] and all(s.endswith("_kb_clones_black_scholes") for s in r["clone_calls"])
    assert {where[v] for v in ("scalar", "expand", "anchor", "fastmath", "clones")} == {"bench"}


def test_entry_check_refuses_a_column_that_calls_elsewhere(tmp_path: Path) -> None:
    (k,) = kernels(["black_scholes"])
    prog = kbench.KProgram(k, "avx2", exe=tmp_path / "bench",
                           entries={"fastmath/_ZGVdN8v_expf": ("_ZGVdN8v_expf", "libmvec"), "expand": ("x", "exe")})
    good = f"entry fastmath/_ZGVdN8v_expf _ZGVdN8v_expf /lib/libmvec.so.1\nentry expand x {tmp_path / 'bench'}\n"
    assert kbench.check_entries(prog, good)["expand"] == str(tmp_path / "bench")
    # libexpandm.a also defines _ZGVdN8v_expf: had the program linked it as it is, the column would be ours
    with pytest.raises(WrongEntryPoint, match="GCC -O3 -ffast-math column of black_scholes"):
        kbench.check_entries(prog, good.replace("/lib/libmvec.so.1", str(tmp_path / "bench")))
    with pytest.raises(WrongEntryPoint, match="did not say"):
        kbench.check_entries(prog, "")


def test_driver_runs_the_domain_in_gangs() -> None:
    (k,) = kernels(["stencil"])
    text = kbench.driver(k, "kb_x", "f", 8)
    assert "for (int z = 4; z < KB_NZ - 4; z++)" in text and "for (int x = 4; x < KB_NX - 4; x += 8)" in text
    assert "f(KB_NX, KB_NY, kb_coef, kb_vsq, kb_a_in, kb_a_out, z, y, x);" in text
    (m,) = kernels(["mandelbrot"])
    text = kbench.driver(m, "kb_clones", "g", 1, simd=True)
    assert "const float l_y0 = kb_y0;" in text and "#pragma omp simd\n" in text  # (math.h has a y0)
    assert "g(l_x0, l_y0, l_dx, l_dy, KB_WIDTH, KB_MAX_ITERATIONS, kb_output, j, i);" in text


@pytest.mark.slow  # (a smoke run of the kernel benchmark: the whole suite runs it)
def test_doc_gets_the_speed_table(quick: Path, tmp_path: Path) -> None:
    doc = tmp_path / "performance.md"
    doc.write_text("# Speed\n\n<!-- kernels -->\n(old)\n<!-- /kernels -->\n\nafter\n")
    kbench.write(json.loads((quick / "kernels.json").read_text()), tmp_path / "out", doc)
    text = doc.read_text()
    assert "(old)" not in text and text.endswith("<!-- /kernels -->\n\nafter\n")
    assert "| mandelbrot | avx2 |" in text and "| kernel | ISA | scalar ns/element |" in text
