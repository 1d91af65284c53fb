"""verify's precompiled headers in expand's cache (expand/check/verify.py cached_precompiled_header): made
once per compiler, ISA and flags, force-included in the harness, and left out where the user's include
directories could hold headers of the same names or the cache cannot be written."""

from __future__ import annotations

from pathlib import Path

import pytest

import expand.check.verify as verify_module
from emit import get_isa
from expand.check.verify import Param, verify
from expand.ir.types import FLOAT

SCALAR = "float twice(float x) { return x + x; }\n"
VECTOR = "#include <smmintrin.h>\n__m128 v_twice(__m128 x) { return _mm_add_ps(x, x); }\n"


def _verify(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **kw) -> list[list[str]]:
    """Verify ``twice`` on SSE4.1; the harness compile commands run."""
    src = tmp_path / "twice.c"
    src.write_text(SCALAR)
    seen: list[list[str]] = []
    real = verify_module._run

    def spy(cmd, what, cwd, timeout):
        if "harness.c" in cmd:
            seen.append([str(c) for c in cmd])
        return real(cmd, what, cwd, timeout)

    monkeypatch.setattr(verify_module, "_run", spy)
    rep = verify(scalar_sources=[src], scalar_name="twice", vector_c=VECTOR, vector_name="v_twice",
                 params=[Param("x", FLOAT)], ret=FLOAT, isa=get_isa("sse4.1"), n_random=1000, **kw)
    assert rep.ok, rep.summary + rep.details
    assert len(seen) == 1
    return seen


def test_made_once_in_the_cache_and_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPAND_CACHE_DIR", str(tmp_path / "cache"))
    (cmd,) = _verify(tmp_path, monkeypatch)
    (gch,) = (tmp_path / "cache").glob("verify-pch-*/verify-pch-sse4_1_4.h.gch")
    assert cmd[cmd.index("-include") + 1] == str(gch)[:-len(".gch")]
    stamp = gch.stat().st_mtime_ns
    (cmd,) = _verify(tmp_path, monkeypatch)  # the second check takes the same file, not made again
    assert "-include" in cmd and gch.stat().st_mtime_ns == stamp
    assert not [p for p in gch.parent.iterdir() if p.name.startswith(".")]  # (no temporary left over)


def test_not_where_an_include_directory_has_a_system_header_name(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPAND_CACHE_DIR", str(tmp_path / "cache"))
    inc = tmp_path / "inc"
    (inc / "bits").mkdir(parents=True)  # (as glibc's own include/ has)
    (cmd,) = _verify(tmp_path, monkeypatch, include_dirs=[inc])
    assert "-include" not in cmd and f"-isystem{inc}" in cmd


def test_not_where_the_cache_cannot_be_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("EXPAND_CACHE_DIR", str(blocker / "cache"))  # (under a regular file)
    (cmd,) = _verify(tmp_path, monkeypatch)
    assert "-include" not in cmd


def test_none_asks_for_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPAND_CACHE_DIR", str(tmp_path / "cache"))
    (cmd,) = _verify(tmp_path, monkeypatch, pch=None)
    assert "-include" not in cmd and not (tmp_path / "cache").exists()
