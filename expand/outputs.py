"""Where the command line writes: checks of the output paths, and writes that never replace what is not
a regular file (``-o /dev/null`` writes into the device, as ``gcc -o /dev/null`` does)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class OutputError(Exception):
    """An output path that cannot be used, or a write that failed: ``expand: error: <message>``.
    ``usage``: a usage error (the input, or two outputs naming one file), not a path that fails."""

    def __init__(self, message: str, usage: bool = False) -> None:
        super().__init__(message)
        self.usage = usage


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_paths(input_path: str | None, outputs: dict[str, str | None]) -> None:
    """Each output (option -> path) names a file that can be written, none is the input, no two are
    the same file. Raises OutputError saying which option is wrong."""
    given = {opt: p for opt, p in outputs.items() if p is not None}
    for opt, p in given.items():
        if p == "":
            raise OutputError(f"{opt}: an empty file name (give a path, or leave the option out)")
        if p.endswith(os.sep) or os.path.isdir(p):
            raise OutputError(f"{opt} '{p}' is a directory; give a file name")
        parent = os.path.dirname(p) or "."
        if not os.path.isdir(parent):
            raise OutputError(f"{opt} '{p}': the directory '{parent}' does not exist")
        if input_path is not None and os.path.exists(p) and _same(p, input_path):
            raise OutputError(f"{opt} '{p}' is the input file; refusing to overwrite it", usage=True)
    items = list(given.items())
    for i, (oa, pa) in enumerate(items):
        for ob, pb in items[i + 1:]:
            if _same(pa, pb):
                raise OutputError(f"{oa} and {ob} name the same file '{pa}'", usage=True)


def write_file(path: str, text: str) -> None:
    """Write ``text`` to ``path``: a regular file (or a new one) is replaced atomically (a temporary
    file renamed over it, keeping the umask's permissions); a device, FIFO or socket is written
    through, never replaced; a symbolic link is followed."""
    target = os.path.realpath(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"cannot write '{path}': {exc.strerror}") from None
    try:
        if st is not None and not stat.S_ISREG(st.st_mode):
            with open(target, "w") as f:
                f.write(text)
            return
        d = os.path.dirname(target) or "."
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".expand-")
        try:
            with os.fdopen(fd, "w") as f:
                f.write(text)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, (st.st_mode & 0o7777) if st is not None else 0o666 & ~umask)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise OutputError(f"cannot write '{path}': {exc.strerror or exc}") from None


def write_stdout(text: str) -> None:
    """Write to standard output and flush, so that a full disk or closed pipe is an error here."""
    import sys

    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as exc:
        raise OutputError(f"cannot write to standard output: {exc.strerror or exc}") from None
