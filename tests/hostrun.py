"""What a test does where this host cannot run an ISA's code (emit/host.py decides): it still expands
and compiles (``-Wall -Werror``, the ISA's flags), and skips only the run, saying why. And how many
random inputs the matrix's checks take in the tests."""

from __future__ import annotations

import pytest

from emit import why_not_here
from emit.host import EXIT_NOT_RUN

#: Random inputs (natively, under qemu) per function in the tests that run mathlib.matrix's check over
#: many functions (test_matrix, test_boscc, test_kernel_suite), on top of the edge set of 4,096 or
#: more: a fifth of what ``python -m mathlib.matrix`` takes (100,000 and 20,000), for the README's
#: test run's time on a slower CPU (2026-11-28, an AMD EPYC Zen 3: 63 minutes before, 54 after).
TEST_RANDOM = (20_000, 4_000)


def skip_run_unless_host(isa: str) -> None:
    """Call after compiling and linking, before running ``isa``'s code: skips when the host cannot."""
    why = why_not_here(isa)
    if why is not None:
        pytest.skip(f"compiled and linked, not run: {why}")


def assert_verified(rep, context: str = "") -> None:
    """``rep`` (a VerifyReport) compared 0 mismatches; where the host could not run it, skip (the
    code compiled and linked: verify checks that before it looks at the host)."""
    if rep.not_run is not None:
        pytest.skip(rep.summary)
    assert rep.ok and rep.mismatches == 0, rep.summary + "\n" + rep.details + ("\n" + context if context else "")


def skip_if_cli_not_run(rc: int, stderr: str) -> None:
    """After ``expand --verify`` (in process): skip when it exited EXIT_NOT_RUN (compiled, not run)."""
    if rc == EXIT_NOT_RUN:
        pytest.skip(stderr.strip().splitlines()[-1] if stderr.strip() else "not run on this host")
