"""RISC-V RVV: the generic table (GCC/Clang vector extensions) compiled by Clang for riscv64 with the V
extension, a fixed minimum vector length, and verified under ``qemu-riscv64 -cpu rv64,v=true,vlen=N``.

Why the generic table and not the RVV intrinsics: Debian 12's GCC 12 cross compiler has no RVV
intrinsics, and Clang 16's (``__riscv_vfadd_vv_f32m1``) work on sizeless types (``vfloat32m1_t``) that
cannot be struct members, array elements or globals, so a gang would need a different shape from every
other table's. Clang lowers fixed-size vector-extension code to RVV itself when told the vector length
(``-mllvm -riscv-v-vector-bits-min=N``): comparisons into ``v0``, selects as masked merges
(``vmerge``), conversions (``vfcvt``), masked arithmetic (``vfmul.vv ..., v0.t``). The output stays the
generic table's readable C (operators on vector types, no intrinsic names), compiled for RVV.

``rvv``: VLEN >= 128 (a gang of 4 lanes is one register of 32-bit lanes; 64-bit lanes take two);
``rvv256``: VLEN >= 256 (8 lanes). Code built for a minimum VLEN runs on any longer one (Clang's flag
is a minimum), and ``--verify`` runs it under qemu with exactly that VLEN.

The frontends read the source as riscv64-linux-gnu-gcc preprocesses it (``preprocessor``), as on
every table; the scalar reference is compiled by the same Clang as the output: unlike GCC, Clang
takes ``sin`` and the other libm functions to set errno (with -fmath-errno, the Linux default):
``errno_hidden`` is False for every function under Clang (emit/isa.py), so a dead call of ``sin`` stays, as
Clang keeps it in the scalar code.

Debian 12's qemu-user (7.2) aborts on ``vfcvt.rtz.x.f.v`` (every float-to-int conversion Clang
vectorizes; qemu issue 1441, fixed in 8.1): ``RUN_MIN_VERSION`` makes emit/host.py say so, and
tests/setup-and-run.sh installs Debian 13's static qemu-riscv64 (10.0) in /usr/local/bin.
"""

from __future__ import annotations

from expand.ir.types import CLANG_MARK

from .generic import Generic

#: Clang for riscv64 Linux with the V extension (the cross GCC's sysroot and libraries, found by Clang
#: under /usr/lib/gcc-cross; ``--sysroot`` would make lld look for the libc.so script's absolute paths
#: inside the sysroot).
CLANG_RV64 = ("clang-16", "--target=riscv64-linux-gnu", "-march=rv64gcv", "-fuse-ld=lld-16",
              "-Wno-unused-command-line-argument")  # (-fuse-ld in a compile-only step)


class Rvv(Generic):
    """The generic table for RVV with a minimum VLEN of 128 bits (4 lanes)."""

    name = "rvv"
    default_lanes = 4
    vlen = 128
    CC = CLANG_RV64
    #: -Wno-psabi as generic's (Clang accepts it); -Wno-unused-function: Clang, unlike GCC, warns about a
    #: ``static inline`` helper of the main file nothing calls; -Wno-unsupported-floating-point-opt: Clang
    #: takes -frounding-math (glibc's libm flags, mathlib/source_tree.py) as round-to-nearest on riscv64,
    #: and says so; -fwrapv: signed overflow is undefined, and Clang's scalar code (the reference --verify
    #: compiles with these flags) makes use of it where GCC 12's does not in practice (``x = x * 3`` in a
    #: loop, tests/test_real_c_statements.py), while the vector code wraps; the vector length Clang may assume
    CFLAGS = ("-Wno-psabi", "-Wno-unused-function", "-Wno-unsupported-floating-point-opt", "-fwrapv", "-mllvm",
              f"-riscv-v-vector-bits-min={vlen}")
    RUN_PREFIX = ("qemu-riscv64", "-cpu", f"rv64,v=true,vlen={vlen}", "-L", "/usr/riscv64-linux-gnu")
    RUN_MIN_VERSION = ((8, 1), "qemu before 8.1 aborts on the vector float-to-int conversions Clang makes "
                       "(vfcvt.rtz.x.f.v: 'decode_save_opc: Assertion', qemu issue 1441)")
    arch = "riscv64"
    SATURATE = True  # (out-of-range conversions as the scalar code's fcvt: emit/generic.py _float_to_int)
    caveat = ("new and not yet trusted: less fuzzed than the other tables (expand-fuzz: 500 programs of seed "
              "20261129 verify; seed 20261127's mismatches, conversions and shifts out of range that Clang made "
              "poison, are fixed): check each output with --verify")

    @property
    def preprocessor(self) -> list[str]:
        """The target's GCC preprocesses for the frontends, as on every other table (both frontends read
        ``gcc -E``'s text, frontends/clang_frontend.py): Clang's own, which reports GCC 4.2, takes glibc's
        branch for compilers before GCC 7 and declares ``typedef long double _Float128``, which the
        frontends' ``-D_Float128=long double`` cannot read. ``CLANG_MARK`` tells the frontends that Clang
        compiles the code (its builtins' values: expand/ir/types.py Target.clang_builtins)."""
        return ["riscv64-linux-gnu-gcc", "-march=rv64gcv", "-O2", f"-D{CLANG_MARK}"]


class Rvv256(Rvv):
    """The generic table for RVV with a minimum VLEN of 256 bits (8 lanes)."""

    name = "rvv256"
    default_lanes = 8
    vlen = 256
    CFLAGS = ("-Wno-psabi", "-Wno-unused-function", "-Wno-unsupported-floating-point-opt", "-fwrapv", "-mllvm",
              f"-riscv-v-vector-bits-min={vlen}")
    RUN_PREFIX = ("qemu-riscv64", "-cpu", f"rv64,v=true,vlen={vlen}", "-L", "/usr/riscv64-linux-gnu")
