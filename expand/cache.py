"""Where expand keeps what it builds once and reuses across runs (mathlib's vector libm, the verify
harness's precompiled headers): ``$EXPAND_CACHE_DIR``, else ``$XDG_CACHE_HOME/expand`` or
``~/.cache/expand``. A directory of an older code version goes once it has not been used for
``KEEP_DAYS`` days and is not among the ``KEEP_NEWEST`` most recently used (``prune``)."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path


def cache_root() -> Path:
    """The cache directory (not created here)."""
    env = os.environ.get("EXPAND_CACHE_DIR")
    if env:
        return Path(env).expanduser().resolve()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "expand"


#: What ``prune`` keeps of a kind of directory: the most recently used this many, and every one used in
#: the last ``KEEP_DAYS`` days (another checkout or worktree may be using it now).
KEEP_NEWEST, KEEP_DAYS = 3, 2.0

_USED: set[Path] = set()


def use(path: Path) -> None:
    """Once per process: ``path`` (a cache directory named ``<kind>-<hex key>``) was used now (``prune``
    goes by the time of last use), and the directories of its kind that ``prune`` lets go, go."""
    if path in _USED:
        return
    _USED.add(path)
    try:
        os.utime(path)
    except OSError:  # (not made yet: when it is, its time is then)
        pass
    m = re.fullmatch(r"(.+)-[0-9a-f]+", path.name)
    if m:
        prune(m.group(1), path)


def prune(prefix: str, current: Path) -> list[Path]:
    """Remove the cache directories ``<prefix>-<hex key>`` beside ``current`` that belong to other code
    versions, but the ``KEEP_NEWEST`` most recently used and those used in the last ``KEEP_DAYS`` days
    (a directory that cannot go stays). Returns what went."""
    if current.parent != cache_root() or not current.parent.is_dir():
        return []
    pat = re.compile(rf"{re.escape(prefix)}-[0-9a-f]+")
    others = []
    for d in current.parent.iterdir():
        if d != current and pat.fullmatch(d.name) and d.is_dir():
            try:
                others.append((d.stat().st_mtime, d))
            except OSError:
                continue
    others.sort(reverse=True)
    cutoff = time.time() - KEEP_DAYS * 86400
    gone = []
    for mtime, d in others[KEEP_NEWEST:]:
        if mtime < cutoff:
            shutil.rmtree(d, ignore_errors=True)
            gone.append(d)
    return gone
