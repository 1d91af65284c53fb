"""--dot writes the CFG with block masks before and after linearization."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def test_dot_shows_masks_before_and_after(tmp_path: Path) -> None:
    dot = tmp_path / "gcd.dot"
    p = subprocess.run([sys.executable, "-m", "expand.cli", str(ROOT / "mathlib/loops/gcd.c"), "--isa", "sse4.1",
                        "--dot", str(dot), "-o", str(tmp_path / "gcd.c")], capture_output=True, text=True,
                       check=False)
    assert p.returncode == 0, p.stderr
    text = dot.read_text()
    assert text.startswith("digraph")
    assert "before: gcd: function body" in text and "before: loop body 1" in text
    assert "after: linearized, masked" in text
    assert "mask: staying4" in text and "while (any(active4))" in text
    assert "(break)" in text and "(back)" in text
