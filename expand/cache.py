"""Where expand keeps what it builds once and reuses across runs (mathlib's vector libm, the verify
harness's precompiled headers): ``$EXPAND_CACHE_DIR``, else ``$XDG_CACHE_HOME/expand`` or
``~/.cache/expand``."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """The cache directory (not created here)."""
    env = os.environ.get("EXPAND_CACHE_DIR")
    if env:
        return Path(env).expanduser().resolve()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "expand"
