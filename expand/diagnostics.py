"""Diagnostics: ``file:line:col: error: ...`` for everything expand refuses."""

from __future__ import annotations

from .ir import Coord


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
