"""Diagnostics: ``file:line:col: error: ...`` for everything expand refuses."""

from __future__ import annotations

from .ir import Coord, Function, Stmt


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
