"""Diagnostics: ``file:line:col: error: ...`` for everything expand refuses."""

from __future__ import annotations

from expand.ir.nodes import Coord, Function, Stmt


class ExpandError(Exception):
    """A construct expand cannot handle; printed as a compiler diagnostic, never as a traceback."""

    def __init__(self, coord: Coord | None, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.coord = coord
        self.message = message
        self.hint = hint

    def render(self) -> str:
        where = f"{self.coord}: " if self.coord else "expand: "
        text = f"{where}error: {self.message}"
        if self.hint:
            text += f"\n{where}note: {self.hint}"
        return text


def error(coord: Coord | None, message: str, hint: str = "") -> ExpandError:
    return ExpandError(coord, message, hint)


class Remark:
    """``--remarks``: a ``file:line:col: remark: ...`` line saying what costs speed in the vector code
    (a per-lane call, per-lane loads or stores, a loop under a mask, a blend in a loop) or where a
    BOSCC guard was put or not, and why. ``kind`` names the kind for tests and filters."""

    def __init__(self, coord: Coord | None, kind: str, message: str) -> None:
        self.coord = coord
        self.kind = kind
        self.message = message

    def render(self) -> str:
        where = f"{self.coord}: " if self.coord else "expand: "
        return f"{where}remark: {self.message} [{self.kind}]"

    def key(self) -> tuple:
        c = self.coord
        return (c.file, c.line, c.col, self.kind, self.message) if c else ("", 0, 0, self.kind, self.message)


class ExpandWarning:
    """A ``file:line:col: warning: ...`` line (and its ``note:``) on standard error: expand made the code its
    model says, but it may not do what the scalar code does (a call with hidden state: expand/passes/
    hidden_state.py). The exit status stays 0."""

    def __init__(self, coord: Coord | None, message: str, hint: str = "") -> None:
        self.coord = coord
        self.message = message
        self.hint = hint

    def render(self) -> str:
        where = f"{self.coord}: " if self.coord else "expand: "
        return f"{where}warning: {self.message}" + (f"\n{where}note: {self.hint}" if self.hint else "")

    def key(self) -> tuple:
        c = self.coord
        return (c.file, c.line, c.col, self.message) if c else ("", 0, 0, self.message)


def nesting_error(exc: RecursionError, path: str) -> ExpandError:
    """The diagnostic for code nested too deeply for a pass's recursion: placed at the innermost
    statement being processed (a local of the frames the recursion went through) of the innermost
    function, else at that function, else at the start of ``path``."""
    fn_at: Coord | None = None
    stmt_at: Coord | None = None
    tb = exc.__traceback__
    while tb is not None:
        values = list(tb.tb_frame.f_locals.values())
        fns = [v.coord for v in values if isinstance(v, Function) and isinstance(v.coord, Coord)]
        if fns:
            fn_at, stmt_at = fns[0], None
        stmts = [v.coord for v in values if isinstance(v, Stmt) and isinstance(v.coord, Coord)]
        if stmts:
            stmt_at = stmts[0]
        tb = tb.tb_next
    return error(stmt_at or fn_at or Coord(path, 1, 1), "the code is nested too deeply for expand",
                 "split deeply nested expressions or blocks into several statements")


def not_c_text(path: str, data: bytes) -> str:
    """The diagnostic for input that is not C source text (a NUL byte, or bytes that are not UTF-8), or ""."""
    try:
        data.decode("utf-8")
        end = len(data)
    except UnicodeDecodeError as exc:
        end = exc.start
    nul = data.find(b"\x00", 0, end)
    if nul >= 0:
        bad, what, hint = nul, "input is not a C source file (it contains NUL bytes)", "give expand C source text"
    elif end < len(data):
        bad, what = end, f"input is not UTF-8 text (byte 0x{data[end]:02x})"
        hint = "convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)"
    else:
        return ""
    line, col = data.count(b"\n", 0, bad) + 1, bad - data.rfind(b"\n", 0, bad)
    where = f"{path}:{line}:{col}"
    return f"{where}: error: {what}\n{where}: note: {hint}"
