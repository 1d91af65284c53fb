"""The op-by-op checker of the ISA tables (used by tests/test_isa.py): every method, every lane kind,
bit for bit.

``run_isa_kind(isa, kind)`` builds one C program that runs every operation on that kind with the
table's vector expression and with the scalar C operator on the same inputs (edge values and random
bit patterns), and reports each lane that differs (floats compared by bit pattern). It compiles with
the table's compiler (``-Wall -Werror``) wherever that is installed, and skips only the run where this
host cannot run the table's code (emit/host.py).
"""

from __future__ import annotations

import math
import random
import re
import struct
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from emit import why_not_here
from emit.isa import BINOPS, CMPOPS, KINDS, Isa, TableRead, is_float, is_signed, kind_bits, scalar_ctype

CFLAGS = ["-O2", "-Wall", "-Werror", "-ffp-contract=off"]
N = 1024  # test values per array (a multiple of every lane count)

OPS = ("splat", "build", "extract", "gather", "binop", "shift", "unop", "cmp", "select", "mask_const", "mask_and",
       "mask_or", "mask_xor", "mask_andnot", "mask_not", "mask_to_int", "mask_bits", "mask_any", "mask_all",
       "int_to_mask", "convert", "bitcast")


# --------------------------------------------------------------------------------------------------
# Values


def irange(k: str) -> tuple[int, int]:
    b = kind_bits(k)
    return (-(1 << (b - 1)), (1 << (b - 1)) - 1) if is_signed(k) else (0, (1 << b) - 1)


def f32_round(v: float) -> float | None:
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        return None


def to_bits(k: str, v: float) -> int:
    if k == "f32":
        return struct.unpack("<I", struct.pack("<f", v))[0]
    if k == "f64":
        return struct.unpack("<Q", struct.pack("<d", v))[0]
    return int(v) & ((1 << kind_bits(k)) - 1)


def from_bits(k: str, b: int) -> float | int:
    if k == "f32":
        return struct.unpack("<f", struct.pack("<I", b))[0]
    if k == "f64":
        return struct.unpack("<d", struct.pack("<Q", b))[0]
    lo, _ = irange(k)
    return b - (1 << kind_bits(k)) if lo and b >> (kind_bits(k) - 1) else b


def next_float(k: str, v: float, up: bool) -> float:
    """The neighbour of finite ``v`` in format ``k``."""
    if k == "f64":
        return math.nextafter(v, math.inf if up else -math.inf)
    if v == 0:
        return from_bits(k, 1) if up else -from_bits(k, 1)
    b = to_bits(k, v)
    return from_bits(k, b + 1 if (v > 0) == up else b - 1)


def int_edges(k: str) -> list[int]:
    """Edge bit patterns of an integer kind: 0, +-1, min, max, powers of two and neighbours, ties."""
    b = kind_bits(k)
    lo, hi = irange(k)
    vals = {0, 1, 2, 3, 5, 7, 100, -1, -2, -3, -100, lo, lo + 1, lo + 2, hi, hi - 1, hi - 2, hi // 2, lo // 2,
            0x5555555555555555, 0xAAAAAAAAAAAAAAAA, 0x0123456789ABCDEF}
    for p in range(b + 1):
        for d in (-3, -2, -1, 0, 1, 2, 3):
            vals.add((1 << p) + d)
            vals.add(-(1 << p) + d)
    for mant in (24, 53):  # round-to-nearest ties and near-ties for int -> float
        for s in range(1, b - mant + 1):
            base = ((1 << mant) - 1) << s
            vals |= {base + (1 << (s - 1)), base - (1 << (s - 1)), base + (1 << (s - 1)) + 1,
                     (1 << (mant + s - 1)) + (3 << (s - 1))}
    out = sorted({to_bits(k, v) for v in vals})
    return out


def float_edges(k: str) -> list[int]:
    """Edge bit patterns of a float kind: zeros, ones, subnormals, limits, infinities, NaNs, ..."""
    vals: list[float] = [0.0, 1.0, 0.5, 1.5, 2.5, 3.0, 0.1, 1 / 3, math.pi, 1e10, 1e-10, 65536.0, 2.0**24,
                         2.0**24 + 2, 2.0**31, 2.0**32, 2.0**53, 2.0**63, 2.0**64, 2.0**100, 2.0**-100, 1e30,
                         1e38, 3.4028235677973366e38, 3.4028234663852886e38, 1e-40, 1.401298464324817e-45,
                         7.006492321624085e-46, 1.1754942106924411e-38, 1.1754943508222875e-38, 1e300, 1e-310,
                         5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, math.inf]
    pats = set()
    for v in vals:
        if k == "f32" and f32_round(v) is None:
            continue
        pats.add(to_bits(k, v))
        pats.add(to_bits(k, -v))
    if k == "f32":
        pats |= {0x7FC00000, 0xFFC00000, 0x7FA00001, 0xFF812345, 0x7FC12345, 0x00000001, 0x007FFFFF, 0x7F7FFFFF}
    else:
        pats |= {0x7FF8000000000000, 0xFFF8000000000000, 0x7FF4000000000001, 0xFFF0DEADBEEF0001,
                 0x7FF8DEADBEEF0000, 0x0000000000000001, 0x000FFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF}
    return sorted(pats)


def edges(k: str) -> list[int]:
    return float_edges(k) if is_float(k) else int_edges(k)


def random_bits(k: str, rnd: random.Random) -> int:
    """Random bit patterns: half uniformly random, half 'ordinary' values."""
    b = kind_bits(k)
    if rnd.random() < 0.5:
        return rnd.getrandbits(b)
    if is_float(k):
        v = rnd.choice([rnd.uniform(-100, 100), rnd.uniform(-1, 1) * 2.0 ** rnd.randint(-60, 60),
                        float(rnd.randint(-(1 << 20), 1 << 20))])
        return to_bits(k, v)
    return to_bits(k, rnd.randint(-300, 300) if rnd.random() < 0.5 else rnd.getrandbits(rnd.randint(1, b)))


def pairs(k: str, rnd: random.Random) -> tuple[list[int], list[int]]:
    """N pairs: edge x edge (sampled when too many), edge x random, random x random."""
    e = edges(k)
    cross = [(x, y) for x in e for y in e]
    if len(cross) > N // 2:
        cross = rnd.sample(cross, N // 2)
    ps = list(cross)
    while len(ps) < 3 * N // 4:
        x, y = rnd.choice(e), random_bits(k, rnd)
        ps.append((x, y) if rnd.random() < 0.5 else (y, x))
    while len(ps) < N:
        ps.append((random_bits(k, rnd), random_bits(k, rnd)))
    return [p[0] for p in ps], [p[1] for p in ps]


def in_range_floats(fk: str, dk: str, rnd: random.Random) -> list[int]:
    """N bit patterns of float kind ``fk`` whose truncation is representable in integer kind ``dk``."""
    lo, hi = irange(dk)
    cand: list[float] = [0.0, -0.0, 0.5, -0.5, 0.99, -0.99, 1.0, -1.0, 1.5, -1.5, 1e-300, -1e-40, 5e-324]
    for p in range(kind_bits(dk) + 1):
        for v in (2.0**p, -(2.0**p)):
            cand += [v, v + 0.5, v - 0.5, v + 1, v - 1]
    cand += [lo, hi, lo - 0.5, hi + 0.5, lo - 0.99, hi + 0.99]
    for _ in range(N):
        cand.append(rnd.choice([rnd.uniform(lo - 1, hi + 1), rnd.randint(lo, hi) + rnd.random(),
                                rnd.uniform(-1, 1) * 2.0 ** rnd.randint(-30, kind_bits(dk))]))
    out: list[int] = []
    for v in cand:
        for w in (v, next_float("f64", v, True), next_float("f64", v, False)):
            if fk == "f32":
                w = f32_round(w)
                if w is None:
                    continue
                w = rnd.choice([w, w, next_float("f32", w, True), next_float("f32", w, False)])
            if math.isfinite(w) and lo <= math.trunc(w) <= hi:
                out.append(to_bits(fk, w))
    uniq = sorted(set(out), key=lambda b: (b in out[:200], rnd.random()))
    return (uniq * (N // len(uniq) + 1))[:N]


def shift_counts(k: str, rnd: random.Random) -> list[int]:
    b = kind_bits(k)
    return [i % b if i < 4 * b else rnd.randrange(b) for i in range(N)]


def safe_divisors(k: str, a: list[int], b: list[int]) -> list[int]:
    lo, _ = irange(k)
    out = []
    for x, y in zip(a, b, strict=True):
        if y == 0:
            y = 1
        if kind_bits(k) >= 32 and lo and from_bits(k, x) == lo and from_bits(k, y) == -1:
            y = 1
        out.append(y)
    return out


# --------------------------------------------------------------------------------------------------
# C program builder


@dataclass
class Check:
    name: str
    ins: list[tuple[str, str]]  # (kind, array) loaded as gangs a0, a1, ...; x0, x1 point at the lanes
    out: str  # a kind, or "mask"
    expr: str  # vector expression (gang of ``out`` or mask)
    ref: str  # scalar C for lane i (uses x0[i], ...): value of kind ``out`` or truth value for masks
    outer: str = ""  # optional enclosing loop header (e.g. over shift counts)
    lanes_expr: list[str] | None = None  # instead of ``expr``: one scalar expression per lane
    also_ok: str = ""  # C condition (on r[i], x0[i], ...) under which a differing lane is still right


@dataclass
class Prog:
    isa: Isa
    arrays: dict[str, tuple[str, list[int]]] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)

    @property
    def lanes(self) -> int:
        return self.isa.lanes

    def arr(self, name: str, k: str, bits: Sequence[int]) -> str:
        assert len(bits) == N
        self.arrays[name] = (k, list(bits))
        return name

    def add(self, c: Check) -> None:
        self.checks.append(c)

    def check_c(self, idx: int, c: Check) -> str:
        isa, lanes = self.isa, self.lanes
        lines = [f"static void check_{idx}(void)", "{"]
        ind = "    "
        if c.outer:
            lines.append(f"{ind}{c.outer} {{")
            ind += "    "
        lines.append(f"{ind}for (int j = 0; j < {N}; j += {lanes}) {{")
        ind += "    "
        for n, (k, arr) in enumerate(c.ins):
            lines.append(f"{ind}const {scalar_ctype(k)} *x{n} = &{arr}[j];")
            lines.append(f"{ind}{isa.vtype(k)} a{n} = {isa.loadu(k, f'x{n}')};")
            lines.append(f"{ind}(void)x{n}; (void)a{n};")
        if c.out == "mask":
            sel = isa.select("u32", "m", isa.splat("u32", "0xffffffffu"), isa.splat("u32", "0"))
            lines += [
                f"{ind}{isa.mask_type()} m = {c.expr};",
                f"{ind}int32_t t[{lanes}];",
                f"{ind}{isa.storeu('i32', 't', isa.mask_to_int('m'))};",
                f"{ind}uint32_t s[{lanes}];",
                f"{ind}{isa.storeu('u32', 's', sel)};",
                f"{ind}unsigned bits = {isa.mask_bits('m')};",
                f"{ind}int any = {isa.mask_any('m')}, all = {isa.mask_all('m')}, want_any = 0, want_all = 1;",
                f"{ind}if ((unsigned long long)bits >> {lanes}) fail({idx}, \"bits\", j, 0, &bits, &bits, 4);",
                f"{ind}for (int i = 0; i < {lanes}; i++) {{",
                f"{ind}    int32_t e = ({c.ref}) ? 1 : 0;",
                f"{ind}    uint32_t es = e ? 0xffffffffu : 0, eb = (unsigned)e;",
                f"{ind}    unsigned gb = bits >> i & 1;",
                f"{ind}    want_any |= e; want_all &= e;",
                f"{ind}    if (t[i] != e) fail({idx}, \"mask_to_int\", j, i, &t[i], &e, 4);",
                f"{ind}    if (s[i] != es) fail({idx}, \"select\", j, i, &s[i], &es, 4);",
                f"{ind}    if (gb != eb) fail({idx}, \"mask_bits\", j, i, &gb, &eb, 4);",
                f"{ind}}}",
                f"{ind}if (any != want_any) fail({idx}, \"mask_any\", j, 0, &any, &want_any, 4);",
                f"{ind}if (all != want_all) fail({idx}, \"mask_all\", j, 0, &all, &want_all, 4);",
                f"{ind}lanes_checked += {lanes};",
            ]
        else:
            t = scalar_ctype(c.out)
            if c.lanes_expr is not None:
                lines.append(f"{ind}{t} r[{lanes}] = {{{', '.join(c.lanes_expr)}}};")
            else:
                lines.append(f"{ind}{isa.vtype(c.out)} v = {c.expr};")
                lines.append(f"{ind}{t} r[{lanes}];")
                lines.append(f"{ind}{isa.storeu(c.out, 'r', 'v')};")
                if kind_bits(c.out) < 32:
                    # the narrow lanes' widened representation, as the next operation would see it
                    lines += [
                        f"{ind}int32_t w[{lanes}];",
                        f"{ind}{isa.storeu('i32', 'w', isa.convert(c.out, 'i32', 'v'))};",
                        f"{ind}for (int i = 0; i < {lanes}; i++) {{",
                        f"{ind}    int32_t e = ({t})({c.ref});",
                        f"{ind}    if (w[i] != e) fail({idx}, \"widened\", j, i, &w[i], &e, 4);",
                        f"{ind}}}",
                    ]
            lines += [
                f"{ind}for (int i = 0; i < {lanes}; i++) {{",
                f"{ind}    {t} e = ({t})({c.ref});",
                f"{ind}    if (memcmp(&r[i], &e, sizeof e){f' && !({c.also_ok})' if c.also_ok else ''})",
                f"{ind}        fail({idx}, \"value\", j, i, &r[i], &e, sizeof e);",
                f"{ind}}}",
                f"{ind}lanes_checked += {lanes};",
            ]
        while len(ind) > 4:
            ind = ind[:-4]
            lines.append(f"{ind}}}")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def source(self) -> str:
        isa = self.isa
        funcs = [self.check_c(i, c) for i, c in enumerate(self.checks)]
        data = []
        for name, (k, bits) in self.arrays.items():
            b = kind_bits(k)
            ut = "uint64_t" if b == 64 else f"uint{b}_t"
            vals = ", ".join(f"{v:#x}" + ("u" if b < 64 else "ull") for v in bits + bits[: self.lanes])
            data.append(f"static {scalar_ctype(k)} {name}[{N + self.lanes}];")
            data.append(f"static const {ut} {name}_raw[{N + self.lanes}] = {{{vals}}};")
        bitcasts = []
        for s in KINDS:
            for d in KINDS:
                if s != d and kind_bits(s) == kind_bits(d):
                    st, dt = scalar_ctype(s), scalar_ctype(d)
                    bitcasts.append(f"static inline {dt} bc_{s}_{d}({st} x) {{ {dt} y; memcpy(&y, &x, sizeof y); "
                                    "return y; }")
        nan_either = [
            f"static inline int nan_either_{k}({t} r, {t} a, {t} b)\n{{\n"
            f"    {u} q = {q}, x = bc_{k}_u{kind_bits(k)}(a), y = bc_{k}_u{kind_bits(k)}(b), "
            f"z = bc_{k}_u{kind_bits(k)}(r);\n"
            "    return a != a && b != b && (z == (x | q) || z == (y | q));\n}"
            for k, t, u, q in [("f32", "float", "uint32_t", "0x400000u"),
                               ("f64", "double", "uint64_t", "0x8000000000000ull")]
        ]
        head = ["#include <stdint.h>", "#include <stdio.h>", "#include <string.h>"]
        head += [f"#include {h}" for h in isa.headers]
        main = ["int main(void)", "{"]
        main += [f"    memcpy({name}, {name}_raw, sizeof {name});" for name in self.arrays]
        main += [f"    check_{i}();" for i in range(len(self.checks))]
        main += [f"    printf(\"CHECKS {len(self.checks)} LANES %ld FAILS %ld\\n\", lanes_checked, fails);",
                 "    return fails != 0;", "}"]
        support = [
            "static long fails, lanes_checked;",
            "static void fail(int check, const char *what, int row, int lane, const void *got, const void *want,",
            "                 int size)",
            "{",
            "    unsigned long long g = 0, w = 0;",
            "    memcpy(&g, got, size);",
            "    memcpy(&w, want, size);",
            "    if (fails++ < 60)",
            "        printf(\"FAIL %d %s %d %d %llx %llx\\n\", check, what, row, lane, g, w);",
            "}",
        ]
        return "\n".join([*head, isa.prelude(), *support, *bitcasts, *nan_either, *data, *funcs, *main]) + "\n"


# --------------------------------------------------------------------------------------------------
# The checks for one kind


def ref_binop(op: str, k: str, x: str, y: str) -> str:
    t = scalar_ctype(k)
    if is_float(k):
        if op in "&|^":
            u = f"u{kind_bits(k)}"
            return f"bc_{u}_{k}(bc_{k}_{u}({x}) {op} bc_{k}_{u}({y}))"
        return f"{x} {op} {y}"
    if op in "+-*":
        u = "uint64_t" if kind_bits(k) == 64 else "uint32_t"
        return f"({t})(({u}){x} {op} ({u}){y})"
    return f"({t})({x} {op} {y})"


def ref_shift(op: str, k: str, x: str, n: str) -> str:
    t = scalar_ctype(k)
    if op == "<<":
        u = "uint64_t" if kind_bits(k) == 64 else "uint32_t"
        return f"({t})(({u}){x} << {n})"
    return f"({t})({x} >> {n})"


#: index kinds and strides (in elements) of the gather checks
GATHER_INDEXES = {"i32": (1, 2, 3, 5), "u32": (1, 3), "i64": (1, 3), "u64": (1, 2, 3), "u8": (1, 3), "i16": (1, 4)}


def add_gathers(p: Prog, k: str, table: str, mask: str, rnd: random.Random) -> None:
    """``gather`` of kind ``k`` from ``table`` at every index kind and a few strides, unmasked and under a
    mask (inactive lanes then hold wild indexes that would fault: neither the native gathers nor the
    per-lane fallback may touch them), a 32-bit index also as one not known to fit 32 bits. Signed
    indexes run from negative to positive around the middle of the table."""
    isa = p.isa
    masks = [0 if m == 0 else 1 for m in p.arrays[mask][1]]
    for ik, strides in GATHER_INDEXES.items():
        for s in strides:
            lo, hi = irange(ik)
            mid = N // 2 if is_signed(ik) else 0
            lo, hi = max(lo, -mid // s), min(hi, (N - 1 - mid) // s)
            vals = [rnd.choice([lo, hi, 0, rnd.randint(lo, hi)]) for _ in range(N)]
            base = f"({table} + {mid})" if mid else table
            idx = p.arr(f"I_{ik}_{s}", ik, [to_bits(ik, v) for v in vals])
            wild = (1 << (kind_bits(ik) - 1)) - 7 if kind_bits(ik) >= 32 else hi
            idx_m = p.arr(f"IM_{ik}_{s}", ik, [to_bits(ik, v if on else wild) for v, on in zip(vals, masks)])
            for fits in (True, False) if kind_bits(ik) == 32 else (True,):
                tag = f"gather {ik} stride {s}{'' if fits else ' wide'}"
                read = TableRead(base, "a0", ik, s, fits, lambda lane, s=s, base=base: f"{base}[x0[{lane}] * {s}]")
                p.add(Check(tag, [(ik, idx)], k, isa.gather(k, read), f"{base}[x0[i] * {s}]"))
                read = TableRead(base, "a0", ik, s, fits,
                                 lambda lane, s=s, base=base: f"(x1[{lane}] ? {base}[x0[{lane}] * {s}] : 0)")
                p.add(Check(f"{tag} masked", [(ik, idx_m), ("i32", mask)], k,
                            isa.gather(k, read, isa.int_to_mask("i32", "a1")),
                            f"x1[i] ? {base}[x0[i] * {s}] : 0", also_ok="!x1[i]"))


def gather_calls(isa: Isa) -> list[tuple[str, str, list[str]]]:
    """(description, result, placeholder arguments) of ``gather`` on every element kind and index kind the
    table gathers natively, a few strides, with and without a mask: for the one-use-per-argument checks."""
    calls = []
    for k in KINDS:
        for ik, strides in GATHER_INDEXES.items():
            if not isa.gather_native(k, ik):
                continue
            for s in strides:
                for fits in (True, False):
                    for m in (None, "ARGM"):
                        read = TableRead("ARGP", "ARGI", ik, s, fits, lambda _lane: "0")
                        calls.append((f"gather {k} {ik} stride {s} fits {fits} mask {m}", isa.gather(k, read, m),
                                      ["ARGP", "ARGI"] + ([m] if m else [])))
    return calls


def build_prog(isa: Isa, k: str, seed: int, all_literals: bool = True) -> Prog:
    """The checks of every operation on kind ``k`` (shift literals: every count, else 0, 1, max)."""
    rnd = random.Random(seed)
    p = Prog(isa)
    lanes = isa.lanes
    t = scalar_ctype(k)
    a_bits, b_bits = pairs(k, rnd)
    A, B = p.arr("A", k, a_bits), p.arr("B", k, b_bits)
    M = p.arr("M", "i32", [rnd.choice([0, 0, 1, 0xFFFFFFFF, rnd.getrandbits(32)]) for _ in range(N)])
    M2 = p.arr("M2", "i32", [rnd.choice([0, 1, 0x80000000]) for _ in range(N)])
    add = p.add

    # memory
    mt = isa.mtype(k)
    load_store = (f"({{ {mt} buf, out; _Static_assert(sizeof buf == {lanes} * sizeof(*x0), \"mtype layout\"); "
                  f"memcpy(&buf, x0, sizeof buf); {isa.store(k, '&out', isa.load(k, '&buf'))}; "
                  f"{isa.loadu(k, f'(const {t} *)&out')}; }})")
    add(Check("load/store", [(k, A)], k, load_store, "x0[i]"))
    add(Check("loadu misaligned", [], k, isa.loadu(k, f"&{A}[j + 1]"), f"{A}[j + 1 + i]"))
    # construction
    add(Check("splat", [(k, A)], k, isa.splat(k, f"x0[{1 % lanes}]"), f"x0[{1 % lanes}]"))
    add(Check("splat literal", [], k, isa.splat(k, "3"), "3"))
    add(Check("splat zero", [], k, isa.splat(k, "0"), "0"))
    add(Check("build", [(k, A)], k, isa.build(k, [f"x0[{(i * 3 + 1) % lanes}]" for i in range(lanes)]),
              f"x0[(i * 3 + 1) % {lanes}]"))
    add(Check("extract", [(k, A)], k, "", "x0[i]", lanes_expr=[isa.extract(k, "a0", i) for i in range(lanes)]))
    add_gathers(p, k, A, M, rnd)

    # arithmetic
    for op in BINOPS:
        if is_float(k) and op == "%":
            continue
        if op in "/%" and not is_float(k):
            D = p.arr(f"D_{'div' if op == '/' else 'rem'}", k, safe_divisors(k, a_bits, b_bits))
            add(Check(f"binop {op}", [(k, A), (k, D)], k, isa.binop(op, k, "a0", "a1"),
                      ref_binop(op, k, "x0[i]", "x1[i]")))
        else:
            # + and * of two NaNs: C leaves the payload open and GCC commutes the operands freely
            ok = f"nan_either_{k}(r[i], x0[i], x1[i])" if is_float(k) and op in "+*" else ""
            add(Check(f"binop {op}", [(k, A), (k, B)], k, isa.binop(op, k, "a0", "a1"),
                      ref_binop(op, k, "x0[i]", "x1[i]"), also_ok=ok))
    if not is_float(k):
        bits = kind_bits(k)
        S = p.arr("S", k, shift_counts(k, rnd))
        for op in ("<<", ">>"):
            add(Check(f"shift {op} uniform variable", [(k, A)], k, isa.shift(op, k, "a0", "c", True),
                      ref_shift(op, k, "x0[i]", "c"), outer=f"for (int c = 0; c < {bits}; c++)"))
            for c in range(bits) if all_literals else sorted({0, 1, bits - 1}):
                add(Check(f"shift {op} {c}", [(k, A)], k, isa.shift(op, k, "a0", str(c), True),
                          ref_shift(op, k, "x0[i]", str(c))))
            add(Check(f"shift {op} per lane", [(k, A), (k, S)], k, isa.shift(op, k, "a0", "a1", False),
                      ref_shift(op, k, "x0[i]", "x1[i]")))
        add(Check("unop ~", [(k, A)], k, isa.unop("~", k, "a0"), f"({t})~x0[i]"))
        u = "uint64_t" if kind_bits(k) == 64 else "uint32_t"
        add(Check("unop -", [(k, A)], k, isa.unop("-", k, "a0"), f"({t})(0 - ({u})x0[i])"))
    else:
        add(Check("unop -", [(k, A)], k, isa.unop("-", k, "a0"), "-x0[i]"))

    # comparisons, select, masks
    for op in CMPOPS:
        add(Check(f"cmp {op}", [(k, A), (k, B)], "mask", isa.cmp(op, k, "a0", "a1"), f"x0[i] {op} x1[i]"))
    add(Check("int_to_mask", [(k, A)], "mask", isa.int_to_mask(k, "a0"), "x0[i] != 0"))
    add(Check("select", [("i32", M), (k, A), (k, B)], k, isa.select(k, isa.int_to_mask("i32", "a0"), "a1", "a2"),
              "x0[i] ? x1[i] : x2[i]"))
    add(Check("select by cmp", [(k, A), (k, B)], k, isa.select(k, isa.cmp("<", k, "a0", "a1"), "a1", "a0"),
              "x0[i] < x1[i] ? x1[i] : x0[i]"))
    if k == "i32":
        m0, m1 = isa.int_to_mask("i32", "a0"), isa.int_to_mask("i32", "a1")
        for name, e, ref in [
            ("mask_and", isa.mask_and(m0, m1), "x0[i] && x1[i]"),
            ("mask_or", isa.mask_or(m0, m1), "x0[i] || x1[i]"),
            ("mask_xor", isa.mask_xor(m0, m1), "!x0[i] != !x1[i]"),
            ("mask_andnot", isa.mask_andnot(m0, m1), "x0[i] && !x1[i]"),
            ("mask_not", isa.mask_not(m0), "!x0[i]"),
        ]:
            add(Check(name, [("i32", M), ("i32", M2)], "mask", e, ref))
        add(Check("mask_const 1", [], "mask", isa.mask_const(True), "1"))
        add(Check("mask_const 0", [], "mask", isa.mask_const(False), "0"))
        add(Check("mask_to_int", [("i32", M)], "i32", isa.mask_to_int(m0), "x0[i] != 0"))

    # conversions and bitcasts
    for d in KINDS:
        if d == k:
            continue
        src = A
        if is_float(k) and not is_float(d):
            src = p.arr(f"C_{d}", k, in_range_floats(k, d, rnd))
        add(Check(f"convert -> {d}", [(k, src)], d, isa.convert(k, d, "a0"), f"({scalar_ctype(d)})x0[i]"))
        if kind_bits(d) == kind_bits(k):
            add(Check(f"bitcast -> {d}", [(k, A)], d, isa.bitcast(k, d, "a0"), f"bc_{k}_{d}(x0[i])"))
    return p


def compile_and_run(isa: Isa, src: str, tmp: Path, opt: str = "-O2") -> tuple[int, str]:
    c, exe = tmp / "t.c", tmp / "t"
    c.write_text(src)
    cmd = [*isa.cc, *[f if f != "-O2" else opt for f in CFLAGS], *isa.cflags, str(c), "-o", str(exe)]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert r.returncode == 0, f"compile failed: {' '.join(cmd)}\n{r.stderr[:6000]}"
    why = why_not_here(isa)
    if why is not None:
        pytest.skip(f"compiled, not run: {why}")
    r = subprocess.run([*isa.run_prefix, str(exe)], capture_output=True, text=True, timeout=60, check=False)
    return r.returncode, r.stdout


def explain(p: Prog, out: str) -> str:
    msgs = []
    for line in out.splitlines():
        m = re.match(r"FAIL (\d+) (\S+) (\d+) (\d+) (\w+) (\w+)", line)
        if not m:
            continue
        c = p.checks[int(m[1])]
        row, lane = int(m[3]), int(m[4])
        ins = []
        for k, arr in c.ins:
            v = p.arrays[arr][1][row + lane] if arr in p.arrays else None
            ins.append(f"{arr}={v:#x}" if v is not None else arr)
        msgs.append(f"{c.name} [{m[2]}] row {row} lane {lane}: got {m[5]} want {m[6]}; in {' '.join(ins)}")
    return "\n".join(msgs[:40])


def run_isa_kind(isa: Isa, k: str, tmp: Path, opt: str = "-O2", all_literals: bool = True) -> str:
    """Build, run and check one program exercising every operation of ``isa`` on kind ``k``."""
    p = build_prog(isa, k, seed=KINDS.index(k) + 1, all_literals=all_literals)
    rc, out = compile_and_run(isa, p.source(), tmp, opt)
    summary = out.strip().splitlines()[-1] if out.strip() else ""
    assert rc == 0 and "FAILS 0" in summary, f"{isa.name} {k}: {summary}\n{explain(p, out)}"
    return summary
