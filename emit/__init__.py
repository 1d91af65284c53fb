"""C emission: the ISA tables (one ``Isa`` subclass per module, listed in ``registry``), the C printer
(``printer``) and which ISAs this host runs (``host``).

Adding an ISA = adding a module with its table and one line in ``registry.TABLES``.
"""

from __future__ import annotations

from .host import cpu_flags, cpu_model, default_isa, runs_here, why_not_here
from .isa import Isa
from .registry import ISAS, TABLES, available, get_isa

__all__ = ["ISAS", "TABLES", "Isa", "available", "cpu_flags", "cpu_model", "default_isa", "get_isa",
           "runs_here", "why_not_here"]
