"""The ISA registry: one line per table (``TABLES``) and ``get_isa``. Adding an ISA = adding a module with
its table and one line here."""

from __future__ import annotations

import importlib
from pathlib import Path

from .isa import Isa

#: name -> (module, class, natural lanes, what it needs)
TABLES: dict[str, tuple[str, str, int, str]] = {
    "sse2": ("emit.sse2", "Sse2", 4, "x86-64 (any); gcc -msse2"),
    "sse4.1": ("emit.sse41", "Sse41", 4, "x86 with SSE4.1; gcc -msse4.1"),
    "avx2": ("emit.avx2", "Avx2", 8, "x86 with AVX2 and FMA3; gcc -mavx2 -mfma"),
    "avx512": ("emit.avx512", "Avx512", 16,
               "x86 with AVX-512F/BW/DQ/VL; gcc -mavx512f -mavx512bw -mavx512dq -mavx512vl"),
    "neon": ("emit.neon", "Neon", 4, "AArch64 Advanced SIMD; verified with aarch64-linux-gnu-gcc + qemu-aarch64"),
    "altivec": ("emit.altivec", "Altivec", 4,
                "POWER8+ AltiVec/VSX (ppc64le); verified with powerpc64le-linux-gnu-gcc + qemu-ppc64le"),
    "sve128": ("emit.sve", "Sve128", 4, "Arm SVE, 128-bit vectors; verified with aarch64-linux-gnu-gcc + qemu-aarch64"),
    "sve": ("emit.sve", "Sve", 8, "Arm SVE, 256-bit vectors; verified with aarch64-linux-gnu-gcc + qemu-aarch64"),
    "sve512": ("emit.sve", "Sve512", 16, "Arm SVE, 512-bit vectors; verified with aarch64 gcc + qemu-aarch64"),
    "generic": ("emit.generic", "Generic", 4, "any GCC/Clang target (vector_size extensions)"),
    "rvv": ("emit.rvv", "Rvv", 4, "RISC-V V, VLEN >= 128 (generic C compiled by clang-16 for riscv64); verified "
            "with clang-16 + lld-16 + qemu-riscv64 vlen=128"),
    "rvv256": ("emit.rvv", "Rvv256", 8, "RISC-V V, VLEN >= 256 (generic C compiled by clang-16 for riscv64); "
               "verified with clang-16 + lld-16 + qemu-riscv64 vlen=256"),
}

#: ``--sve-bits`` with ``--isa sve``: the SVE table of that vector length
SVE_BITS: dict[int, str] = {128: "sve128", 256: "sve", 512: "sve512"}


def available() -> dict[str, tuple[str, str, int, str]]:
    """The tables whose modules exist in this checkout."""
    here = Path(__file__).parent
    return {n: t for n, t in TABLES.items() if (here / (t[0].split(".")[1] + ".py")).exists()}


ISAS = available()


def get_isa(name: str, lanes: int | None = None) -> Isa:
    """A fresh table for ISA ``name`` (``lanes`` defaults to the ISA's natural gang size)."""
    if name not in ISAS:
        raise ValueError(f"unknown ISA {name!r} (known: {', '.join(ISAS)})")
    mod, cls, natural, _ = ISAS[name]
    if lanes is not None and (lanes <= 0 or lanes % natural):
        raise ValueError(f"--lanes for {name} must be a multiple of {natural}")
    return getattr(importlib.import_module(mod), cls)(lanes)
