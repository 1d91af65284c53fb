"""C emission: the ISA tables (``Isa`` subclasses) and the C printer."""

from __future__ import annotations

from .isa import Isa
from .sse41 import Sse41

#: ISA name -> table class
ISAS: dict[str, type[Isa]] = {"sse4.1": Sse41}


def get_isa(name: str, lanes: int | None = None) -> Isa:
    """A fresh table for ISA ``name`` (``lanes`` defaults to the ISA's natural gang size)."""
    try:
        cls = ISAS[name]
    except KeyError:
        raise ValueError(f"unknown ISA {name!r} (known: {', '.join(sorted(ISAS))})") from None
    return cls(lanes)


def default_isa() -> str:
    """The best ISA this host runs among those expand has tables for."""
    import platform

    if platform.machine() in ("x86_64", "AMD64") and "sse4.1" in ISAS:
        return "sse4.1"
    return min(ISAS)
