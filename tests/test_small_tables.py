"""Reads at a varying index from small tables (issue 19: glibc's expf, logf, sinf and cosf tables): a
table of two elements (``__sincosf_table[n]``) is a select of the two broadcast elements on every ISA;
on AVX-512 a bigger one's elements sit in registers and permutes pick each lane's
(``Isa.small_table``: ``_mm512_permutexvar``/``permutex2var``, a blend on the index's high bit past two
registers), on AVX2 up to two registers' worth (``_mm256_permutevar8x32_epi32`` and a blend); other ISAs
keep their loads per lane. Each table shape is verified bit for bit on all 7 ISAs, and on AVX-512
the output is checked for the permutes (and for none where the table is too big).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from expand_case import check_source, expand_source
from hostrun import assert_verified

from emit import ISAS, get_isa
from emit.generic import Generic
from expand.check.verify import Param, verify
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file

ALL = list(ISAS)

TABLES = {
    # 32 doubles indexed by a 64-bit unsigned value (glibc's expf: T[ki % N]): four registers
    "exp_like": ("#include <stdint.h>\n"
                 "static const uint64_t T[32] = {\n"
                 + ", ".join(f"0x{0x3ff0000000000000 + 0x1000000001 * i:016x}ull" for i in range(32)) + "};\n"
                 "double exp_like(double x)\n"
                 "{\n"
                 "    uint64_t ki = (uint64_t)(int64_t)(x * 3.0);\n"
                 "    union { uint64_t i; double f; } u = { T[ki % 32] + (ki << 47) };\n"
                 "    return u.f * x;\n"
                 "}\n"),
    # pairs of doubles in a struct indexed by an int (glibc's logf: T[i].invc, T[i].logc): stride 2
    "log_like": ("static const struct { double invc, logc; } T[16] = {\n"
                 + ", ".join(f"{{{1.0 + i / 16:.6f}, {-i / 7:.6f}}}" for i in range(16)) + "};\n"
                 "float log_like(float x)\n"
                 "{\n"
                 "    int i = (int)(x * 16.0f) & 15;\n"
                 "    return (float)(x * T[i].invc + T[i].logc);\n"
                 "}\n"),
    # two big structs (glibc's __sincosf_table[n]): 15 elements from a field, under a mask
    "two_structs": ("typedef struct { double sign[4]; double a, b, c0, c1, c2, c3, c4, s1, s2, s3; } S;\n"
                    "static const S T[2] = {{{1, -1, -1, 1}, 0.5, 1.5, 1, 2, 3, 4, 5, 6, 7, 8},\n"
                    "                       {{-1, 1, 1, -1}, 2.5, 3.5, 9, 10, 11, 12, 13, 14, 15, 16}};\n"
                    "double two_structs(double x, int q)\n"
                    "{\n"
                    "    if (x > 100.0)\n"
                    "        return x;\n"
                    "    int n = q & 1;\n"
                    "    return x * T[n].c3 + T[n].s1 - T[n].sign[q & 3];\n"
                    "}\n"),
    # two floats (four or more lanes to a register on every ISA: always the select)
    "two_floats": ("static const float T[2] = {1.5f, -2.25f};\n"
                   "float two_floats(float x, int q)\n"
                   "{\n"
                   "    return x * T[q & 1] + T[(q >> 1) & 1];\n"
                   "}\n"),
    # floats: 40 elements (three registers of 16), indexed by an unsigned char
    "float_table": ("static const float T[40] = {\n"
                    + ", ".join(f"{i * 0.37 - 3:.3f}f" for i in range(40)) + "};\n"
                    "float float_table(float x, unsigned char c)\n"
                    "{\n"
                    "    return x * T[c % 40u];\n"
                    "}\n"),
    # ints: 8 elements, indexed under a mask by an int read from the argument
    "int_table": ("static const int T[8] = {3, -1, 4, 1, -5, 9, 2, -6};\n"
                  "int int_table(int v)\n"
                  "{\n"
                  "    if (v < 0)\n"
                  "        return T[(-v) & 7] * 2;\n"
                  "    return v;\n"
                  "}\n"),
    # four doubles (glibc's sinf: __sincosf_table[0].sign[n & 3]): one register on AVX2
    "sign_like": ("static const double S[4] = {1.0, -1.0, -1.0, 1.0};\n"
                  "double sign_like(double x, int n)\n"
                  "{\n"
                  "    return x * S[n & 3];\n"
                  "}\n"),
    # 12 floats (two registers on AVX2, the second partly: a masked load) indexed by an unsigned value
    "twelve_floats": ("static const float T[12] = {\n"
                      + ", ".join(f"{i * 1.25 - 7:.2f}f" for i in range(12)) + "};\n"
                      "float twelve_floats(float x, unsigned c)\n"
                      "{\n"
                      "    return x - T[c % 12u];\n"
                      "}\n"),
    # 6 doubles under a mask (two registers on AVX2, the second half empty)
    "six_doubles": ("static const double T[6] = {0.5, -1.5, 2.25, -3.0, 4.75, 1e300};\n"
                    "double six_doubles(double x, int q)\n"
                    "{\n"
                    "    if (x > 0.0)\n"
                    "        return x * T[(unsigned)q % 6u];\n"
                    "    return -x;\n"
                    "}\n"),
    # a local pointer into a table, read before a varying condition moves it (glibc's sinf: p->sign[n & 3]
    # before `if (n & 2) p = &__sincosf_table[1];`): that read is T[0]'s, one table of four doubles
    "pointer_not_yet_moved": ("typedef struct { double sign[4]; double c; } S;\n"
                              "static const S T[2] = {{{1, -1, -1, 1}, 0.5}, {{-1, 1, 1, -1}, 2.5}};\n"
                              "double pointer_not_yet_moved(double x, int n)\n"
                              "{\n"
                              "    const S *p = &T[0];\n"
                              "    double s = p->sign[n & 3];\n"
                              "    if (n & 2)\n"
                              "        p = &T[1];\n"
                              "    return x * s + p->c;\n"
                              "}\n"),
    # the same pointer moved inside a loop: read there, it is not T[0]'s
    "pointer_moved_in_loop": ("typedef struct { double sign[4]; double c; } S;\n"
                              "static const S T[2] = {{{1, -1, -1, 1}, 0.5}, {{-1, 1, 1, -1}, 2.5}};\n"
                              "double pointer_moved_in_loop(double x, int n)\n"
                              "{\n"
                              "    const S *p = &T[0];\n"
                              "    double acc = 0.0;\n"
                              "    for (int i = 0; i < (n & 7); i++) {\n"
                              "        acc += p->sign[i & 3] * x;\n"
                              "        if (acc > 1.0)\n"
                              "            p = &T[1];\n"
                              "    }\n"
                              "    return acc + p->c;\n"
                              "}\n"),
    # too big for registers (200 doubles): loads per lane everywhere
    "big_table": ("static const double T[200] = {\n"
                  + ", ".join(f"{i * 0.5:.1f}" for i in range(200)) + "};\n"
                  "double big_table(double x, int i)\n"
                  "{\n"
                  "    return x + T[i < 0 ? 0 : i % 200];\n"
                  "}\n"),
}


@pytest.mark.parametrize("isa", ALL)
@pytest.mark.parametrize("name", sorted(TABLES))
def test_small_table_reads_verify(tmp_path: Path, isa: str, name: str) -> None:
    check_source(tmp_path, name, TABLES[name], isa, functions=[name])


@pytest.mark.parametrize("name, n", [("exp_like", 32), ("log_like", 31), ("float_table", 40), ("int_table", 8)])
def test_avx512_reads_them_by_permutes(tmp_path: Path, name: str, n: int) -> None:
    _, _, res = expand_source(tmp_path, name, TABLES[name], "avx512", functions=[name])
    assert "_exp_small_table_" in res.text and f"_{n}(" in res.text, res.text
    assert "permutex" in res.text
    assert "_mm512_i32gather" not in res.text and "_mm512_i64gather" not in res.text
    assert any(r.kind == "small-table" for r in res.remarks)


@pytest.mark.parametrize("name, n", [("sign_like", 4), ("six_doubles", 6), ("int_table", 8), ("twelve_floats", 12)])
def test_avx2_reads_them_by_permutes(tmp_path: Path, name: str, n: int) -> None:
    """Up to two registers of table on AVX2: ``vpermd`` per register, a blend on the index's next bit."""
    _, _, res = expand_source(tmp_path, name, TABLES[name], "avx2", functions=[name])
    assert "_exp_small_table_" in res.text and f"_{n}(" in res.text, res.text
    assert "_mm256_permutevar8x32_epi32" in res.text
    assert ("_mm256_maskload_epi32" in res.text) == (name in ("six_doubles", "twelve_floats")), res.text
    assert "_mm256_extract_epi" not in res.text, res.text


def test_a_pointer_read_before_it_moves_reads_its_first_element(tmp_path: Path) -> None:
    """expand/passes/pointer_locals.py: where every assignment reaching a read of ``p`` gives ``&T[0]``, the
    read is ``T[0]``'s (on AVX-512 the four signs are then one small table); inside a loop that moves
    it, it is not."""
    _, _, res = expand_source(tmp_path, "moved", TABLES["pointer_not_yet_moved"], "avx512",
                              functions=["pointer_not_yet_moved"])
    assert "_exp_small_table_f64_4" in res.text and "T[0].sign" in res.text, res.text
    _, _, res = expand_source(tmp_path, "loop", TABLES["pointer_moved_in_loop"], "avx512",
                              functions=["pointer_moved_in_loop"])
    assert "T[1].sign" in res.text, res.text  # (both rows: a select on p's index)


@pytest.mark.parametrize("isa", ALL)
def test_two_element_table_is_a_select_of_broadcasts(tmp_path: Path, isa: str) -> None:
    """``T[n].c3`` with ``T`` of length 2: both elements, read as scalars, and a select on ``n == 1``,
    where a register holds four or more lanes of the element (``Isa.pair_select_pays``: not doubles on
    SSE, NEON, AltiVec, which keep their two loads per register); floats: always."""
    _, _, res = expand_source(tmp_path, "two_structs", TABLES["two_structs"], isa, functions=["two_structs"])
    select = "T[1].c3" in res.text and "T[0].c3" in res.text and "T[1].s1" in res.text
    assert select == get_isa(isa).pair_select_pays("f64"), res.text
    assert select == (isa not in ("sse2", "sse4.1", "neon", "altivec")), res.text
    assert "_exp_small_table_" not in res.text
    _, _, res = expand_source(tmp_path, "two_floats", TABLES["two_floats"], isa, functions=["two_floats"])
    assert "T[1]" in res.text and "T[0]" in res.text, res.text


def test_big_table_is_read_per_lane(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "big_table", TABLES["big_table"], "avx512", functions=["big_table"])
    assert "_exp_small_table_" not in res.text and "permutex" not in res.text


@pytest.mark.parametrize("isa", ["sse4.1", "avx2", "neon"])
def test_other_isas_keep_their_reads(tmp_path: Path, isa: str) -> None:
    _, _, res = expand_source(tmp_path, "log_like", TABLES["log_like"], isa, functions=["log_like"])
    assert "_exp_small_table_" not in res.text


def test_lane_by_lane_small_table_of_a_table_without_permutes(tmp_path: Path) -> None:
    """``Isa.small_table``'s own reading (an ISA that allows small tables without permutes of its own):
    lane by lane, an index outside the table reading element 0; verified against the scalar code."""
    class SmallTables(Generic):
        def small_table_max(self, k: str) -> int:
            return 64

    isa = SmallTables()
    for name in ("exp_like", "log_like", "float_table", "int_table"):
        src = tmp_path / f"{name}.c"
        src.write_text(TABLES[name])
        res = expand_module(read_file(str(src), src.read_text()), isa, functions=[name])
        assert "_exp_small_table_" in res.text and "_lanes(" in res.text, res.text
        (e,) = res.functions
        rep = verify(scalar_sources=[src], scalar_name=name, vector_c=res.text, vector_name=e.vector_name,
                     params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=isa,
                     constants=e.constants, n_random=3000)
        assert_verified(rep, res.text)
