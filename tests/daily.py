"""What the daily loop (``python3 -m pytest -m "not slow" -n 2``) keeps of the tests that run cases on
every ISA.

Code generation is tested on all seven ISAs, and a test of N cases on every ISA expands, compiles
and verifies N x 7 times: together these are most of the suite's time. The whole suite
(tests/setup-and-run.sh, CI) runs every pair. The daily loop runs each case once, on one ISA, and
that ISA changes from case to case (and from test to test), so that it still runs every case and
every ISA; the other pairs are marked ``slow``.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence

import pytest

from emit import ISAS


def daily_isa(key: str, isas: Sequence[str]) -> str:
    """The one of ``isas`` the daily loop runs for ``key`` (a test or case name): fixed per key."""
    return isas[zlib.crc32(key.encode()) % len(isas)]


def on_every_isa(cases: Iterable[str], isas: Sequence[str] | None = None) -> list:
    """``pytest.param(case, isa, id="case-isa")`` for every case on every ISA; the daily loop keeps one
    ISA per case, going round ``isas`` from one case to the next."""
    isas = list(ISAS if isas is None else isas)
    out = []
    for i, case in enumerate(cases):
        keep = isas[i % len(isas)]
        out += [pytest.param(case, isa, id=f"{case}-{isa}", marks=() if isa == keep else pytest.mark.slow)
                for isa in isas]
    return out


def isas_once_daily(key: str, isas: Sequence[str] | None = None) -> list:
    """``pytest.param(isa)`` for every ISA of a test of one case (``key``: the test's name); the daily
    loop keeps one of them (``daily_isa``)."""
    isas = list(ISAS if isas is None else isas)
    keep = daily_isa(key, isas)
    return [pytest.param(isa, id=isa, marks=() if isa == keep else pytest.mark.slow) for isa in isas]
