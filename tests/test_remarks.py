"""``--remarks``: file:line:col: remark: lines for what costs speed, at the source line that causes it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from emit import ISAS

ROOT = Path(__file__).resolve().parent.parent
REMARK = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): remark: (?P<text>.*) \[(?P<kind>[a-z-]+)\]$")

BLEND = """float f(float x)
{
    float s = 0.0f;
    int i = 0;
    while (s < x) {
        s = s + 1.5f;
        i++;
    }
    return s + (float)i;
}
"""

CALLS = """#include <math.h>
float ext(float);
float f(float x, const float *t, int k)
{
    float y = ext(x);
    if (__builtin_expect(x > 100.0f, 0))
        y = y * 3.0f + expf(x) * 2.0f - 1.0f;
    return y + t[k & 7];
}
"""


def run(tmp_path: Path, src: Path, *options: str) -> tuple[list[dict], str]:
    """expand ``src`` with --remarks: (the remarks as dicts, the output text); the output must be the
    same as without --remarks, and every line on standard error a remark."""
    out, plain = tmp_path / "out.c", tmp_path / "plain.c"
    p = subprocess.run([sys.executable, "-m", "expand", str(src), "-o", str(out), "--remarks", *options],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    q = subprocess.run([sys.executable, "-m", "expand", str(src), "-o", str(plain), *options],
                       capture_output=True, text=True, cwd=ROOT)
    assert q.returncode == 0 and q.stderr == "", q.stderr
    def body(path: Path) -> str:  # (the header records the command line)
        return path.read_text().split("*/", 1)[1]

    assert body(out) == body(plain)  # remarks only report
    remarks = []
    for line in p.stderr.splitlines():
        m = REMARK.match(line)
        assert m, line
        remarks.append({**m.groupdict(), "line": int(m["line"]), "col": int(m["col"])})
    assert remarks == sorted(remarks, key=lambda r: (r["line"], r["col"]))  # in source order
    return remarks, out.read_text()


def of(remarks: list[dict], kind: str) -> list[dict]:
    return [r for r in remarks if r["kind"] == kind]


@pytest.mark.parametrize("isa", list(ISAS))
def test_mandelbrot_names_the_divergent_loop_and_its_scalar_counter(tmp_path: Path, isa: str) -> None:
    src = ROOT / "mathlib" / "loops" / "mandelbrot.c"
    remarks, text = run(tmp_path, src, "--isa", isa)
    loops = of(remarks, "divergent-loop")
    assert [(r["line"], r["col"]) for r in loops] == [(6, 3)]  # the while line
    assert "'n' stays a scalar counter" in loops[0]["text"]
    assert "int n;" in text  # (which the output shows)
    assert of(remarks, "loop-blend") == []  # zr, zi are dead after the loop: no blend, no remark
    assert all(r["file"] == str(src) for r in remarks)


def test_values_read_after_a_loop_are_named_where_they_are_blended(tmp_path: Path) -> None:
    src = tmp_path / "blend.c"
    src.write_text(BLEND)
    remarks, text = run(tmp_path, src, "--isa", "avx2")
    assert [r["line"] for r in of(remarks, "divergent-loop")] == [5]
    blends = {re.match(r"'(\w+)'", r["text"])[1]: r["line"] for r in of(remarks, "loop-blend")}
    assert blends == {"s": 6, "i": 7}
    assert text.count("_mm256_blendv") >= 2  # the blends the remarks name are in the output


def test_per_lane_calls_loads_and_guards(tmp_path: Path) -> None:
    src = tmp_path / "calls.c"
    src.write_text(CALLS)
    remarks, _ = run(tmp_path, src, "--isa", "avx2", "--uniform", "t")
    calls = of(remarks, "per-lane-call")
    assert [(r["line"], r["col"]) for r in calls] == [(5, 11)] and "'ext'" in calls[0]["text"]
    assert "omp declare simd" in calls[0]["text"]
    loads = of(remarks, "per-lane-load")  # (--gathers off, the default)
    assert [r["line"] for r in loads] == [8] and "'t'" in loads[0]["text"]
    assert of(remarks, "gather") == []
    guards = of(remarks, "boscc")
    assert [r["line"] for r in guards] == [7] and guards[0]["text"].startswith("BOSCC guard:")
    # without a vector expf, the call in the unlikely arm runs per lane, and says why
    remarks, _ = run(tmp_path, src, "--isa", "avx2", "--uniform", "t", "--vector-math", "none")
    expf = [r for r in of(remarks, "per-lane-call") if "'expf'" in r["text"]]
    assert [r["line"] for r in expf] == [7] and "--vector-math" in expf[0]["text"]
    assert "per active lane" in expf[0]["text"]


def test_boscc_modes(tmp_path: Path) -> None:
    src = tmp_path / "calls.c"
    src.write_text(CALLS.replace("__builtin_expect(x > 100.0f, 0)", "x > 100.0f").replace("expf(x)", "x"))
    auto, _ = run(tmp_path, src, "--isa", "sse4.1", "--uniform", "t")
    assert [r["text"] for r in of(auto, "boscc")] and all(
        r["text"].startswith("no BOSCC guard") and "too little to pay for the test" in r["text"]
        for r in of(auto, "boscc"))
    every, _ = run(tmp_path, src, "--isa", "sse4.1", "--uniform", "t", "--boscc", "all")
    assert of(every, "boscc") and all("--boscc all" in r["text"] for r in of(every, "boscc"))
    off, _ = run(tmp_path, src, "--isa", "sse4.1", "--uniform", "t", "--boscc", "off")
    assert of(off, "boscc") == []


@pytest.mark.parametrize("isa, gathers, kind", [
    ("sse4.1", "on", "per-lane-load"), ("neon", "on", "per-lane-load"), ("avx2", "off", "per-lane-load"),
    ("avx2", "on", "gather"), ("avx512", "on", "gather")])
def test_noise_table_reads(tmp_path: Path, isa: str, gathers: str, kind: str) -> None:
    src = ROOT / "mathlib" / "kernels" / "noise.c"
    remarks, text = run(tmp_path, src, "--isa", isa, "--gathers", gathers)
    loads = of(remarks, kind)
    assert of(remarks, "gather" if kind == "per-lane-load" else "per-lane-load") == []
    assert ("gather" in text.split("*/", 1)[1]) == (kind == "gather")  # (the header records the command)
    lines = src.read_text().splitlines()
    assert loads
    text = src.read_text()
    for r in loads:  # each names the table its source line reads, itself or in the static helper it calls
        table = re.search(r"'(\w+)'", r["text"])[1]
        line = lines[r["line"] - 1]
        helpers = [re.search(rf"static \w+ {name}\(.*?\n}}", text, re.S) for name in re.findall(r"(\w+)\(", line)]
        assert table in line or any(h and table in h[0] for h in helpers), (r, line)
    assert {r["line"] for r in loads} >= {30}  # the hash: NOISE_PERM[NOISE_PERM[NOISE_PERM[x] + y] + z]
