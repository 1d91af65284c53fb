"""``python -m expand.check.scaling`` (issue 20): it prints its table for small sizes of every family, and
what it expands is correct code. Not timed: speed is for the script itself (docs/performance.md,
"Cost of expanding")."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from expand_case import check_source

from emit import ISAS
from expand.check import scaling

ROOT = Path(__file__).resolve().parents[1]


def test_quick_table_lists_every_family(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, "-m", "expand.check.scaling", "--quick", "--keep", str(tmp_path)],
                       capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert p.returncode == 0, p.stderr
    rows = [line.split("|")[1:-1] for line in p.stdout.splitlines() if line.startswith("| ")]
    runs = [[c.strip() for c in r] for r in rows if len(r) == 8 and r[0].strip() != "family"]
    fits = {r[0].strip(): r[1].strip() for r in rows if len(r) == 2 and not r[0].startswith(" family")}
    for fam in scaling.FAMILIES:
        mine = [r for r in runs if r[0] == fam.name]
        assert [int(r[1].split()[0]) for r in mine] == fam.quick, (fam.name, p.stdout)
        for r in mine:
            assert r[7] == "ok", r
            assert float(r[3]) > 0 and float(r[4]) > 0 and float(r[5]) > 0 and int(r[6]) > 0, r
        assert re.fullmatch(r"-?\d+\.\d\d", fits[fam.name]), fits
        for size in fam.quick:  # (--keep: the inputs it generated)
            assert (tmp_path / f"{fam.name.replace(' ', '_')}_{size}.c").read_text() == fam.make(size)


def test_limits_end_a_run_with_a_row() -> None:
    """A run over its processor-time or memory limit is a row that says so, and the exit status is 1."""
    for flag, value, status in (("--timeout", "1", "timeout"), ("--memory", "100", "out of memory")):
        p = subprocess.run([sys.executable, "-m", "expand.check.scaling", "--families", "straight code",
                            "--sizes", "20000", flag, value], capture_output=True, text=True, cwd=ROOT, timeout=900)
        assert p.returncode == 1, p.stdout + p.stderr
        assert re.search(rf"\| straight code \| 20000 lines \|.*\| {status}", p.stdout), p.stdout


def test_fit_of_a_power_law() -> None:
    runs = [scaling.Run("f", n, n, "ok", cpu=0.5 * n ** 1.5) for n in (10, 100, 1000, 10000)]
    assert scaling.fit_exponent(runs) == pytest.approx(1.5)
    assert scaling.fit_exponent(runs[:1]) is None


@pytest.mark.parametrize("isa_name", list(ISAS))
@pytest.mark.parametrize("family", [f.name for f in scaling.FAMILIES])
def test_family_output_verifies(tmp_path: Path, family: str, isa_name: str) -> None:
    """Each family's smallest input, expanded, compiles strictly and verifies lane by lane (NaN results
    compared as NaNs, as ``expand --verify`` does: the mixed family's ``inf - inf`` meets other NaNs,
    and which payload comes out is open, issue 20 section 2)."""
    fam = next(f for f in scaling.FAMILIES if f.name == family)
    text = fam.make(fam.quick[0])
    check_source(tmp_path, "f", text, isa_name, uniform=list(fam.uniform),
                 bounds={"k": (-3, 40)} if "int k" in text else {}, n_random=300, nan_bits=False)


def test_out_of_memory_is_a_diagnostic(tmp_path: Path) -> None:
    """``expand`` on an input too big for its memory: a message and exit 1, no traceback, no output."""
    import resource

    src = tmp_path / "big.c"
    src.write_text(scaling.straight(20000))
    out = tmp_path / "out.c"

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (120 << 20, 120 << 20))

    p = subprocess.run([sys.executable, "-m", "expand", str(src), "--isa", "avx2", "-o", str(out)],
                       capture_output=True, text=True, cwd=ROOT, preexec_fn=cap, timeout=900)
    assert p.returncode == 1, p.stderr
    assert p.stderr.strip() == f"expand: error: out of memory expanding {src}", p.stderr
    assert not out.exists()
