"""Table reads at varying indexes (issue 19, cause 3): ``Isa.gather``.

AVX2 and AVX-512 read them with gather instructions (masked forms under a mask: inactive lanes touch
no memory), the other ISAs lane by lane. Each kernel runs on all 7 ISAs: the output compiles with
-Wall -Wextra -Werror and verifies bit for bit against the scalar source. The text checks say that
on AVX2 and AVX-512 the read is the gather intrinsic in the statement under its source line, and that
the other ISAs have none. The table-level checks of every element kind, index kind, stride and mask
are in tests/isa_check.py (tests/test_isa_*.py); glibc's logf, powf, sinf and expf are at the end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from expand_case import check_source, expand_source
from hostrun import assert_verified

from emit import ISAS, get_isa
from expand import driver
from expand.check.verify import Param, verify
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file
from mathlib.corpus import CorpusFunction, glibc_flt32_dir, shim_dir

ALL = list(ISAS)
#: every ISA; the daily loop (-m "not slow") keeps AVX2, where the gathers are (the rest: the whole suite)
ALL_DAILY_AVX2 = [pytest.param(i, marks=() if i == "avx2" else pytest.mark.slow) for i in ALL]
NATIVE = {"avx2": "_mm256", "avx512": "_mm512"}
ROOT = Path(__file__).resolve().parent.parent
#: a gather instruction or expand's helper around them
GATHER = re.compile(r"i(32|64)gather|_exp_gather")


@pytest.fixture(autouse=True)
def gathers_on(monkeypatch):
    """These tests are about the gather instructions: on (``--gathers on``; off by default)."""
    monkeypatch.setattr(driver, "GATHERS", True)


def body_of(text: str, fn: str) -> str:
    """The definition of vector function ``fn`` in an output."""
    start = re.search(rf"^\S.*\b{re.escape(fn)}\(", text, re.M)
    assert start, f"no {fn} in\n{text}"
    end = text.find("\n}\n", start.start())
    return text[start.start():end + 3]


def line_under(body: str, source: str) -> str:
    """The statement printed right under the comment holding ``source``."""
    lines = body.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == f"/* {source} */":
            return lines[i + 1].strip()
    raise AssertionError(f"no comment /* {source} */ in\n{body}")


# --------------------------------------------------------------------------------------------------
# Every element type, masked and unmasked

ELEMENTS = """#include <stdint.h>
static const float tf[8] = {1.5f, -0.0f, 0x1p-149f, 3.4e38f, -2.25f, 0x1.fffffep-1f, 7.0f, -1e-30f};
static const int32_t ti[8] = {-7, 2147483647, -2147483647 - 1, 0, 1, -1, 123456, -654321};
static const uint32_t tu[8] = {0xffffffffu, 0x80000000u, 0, 1, 0x7fffffffu, 42, 0xdeadbeefu, 7};
static const double td[8] = {0x1p-1074, -0.0, 1.0 / 3.0, -1e300, 0x1.fffffffffffffp+1023, 2.5, -7.0, 1e-310};
static const int64_t tl[8] = {INT64_MIN, INT64_MAX, -1, 0, 1, 0x123456789abcdefLL, -0x123456789LL, 77};
static const uint64_t tq[8] = {~0ull, 1ull << 63, 0, 1, 0xfedcba9876543210ull, 5, 6, 7};

float get_f32(int i) { float r = tf[i & 7]; return r; }
int32_t get_i32(unsigned i) { int32_t r = ti[i % 8u]; return r; }
uint32_t get_u32(uint64_t i) { uint32_t r = tu[i & 7]; return r; }
double get_f64(unsigned char i) { double r = td[i & 7]; return r; }
int64_t get_i64(short i) { int64_t r = tl[i & 7]; return r; }
uint64_t get_u64(long i) { uint64_t r = tq[i & 7]; return r; }

/* masked: the index is in bounds only in the lanes that read */
float mask_f32(int i) { float r = -1.0f; if (i >= 0 && i < 8) r = tf[i]; return r; }
int32_t mask_i32(int i) { int32_t r = 5; if (i >= 0 && i < 8) r = ti[i]; return r; }
uint32_t mask_u32(unsigned i) { uint32_t r = 9; if (i < 8) r = tu[i]; return r; }
double mask_f64(int i) { double r = 0.5; if (i >= 0 && i < 8) r = td[i]; return r; }
int64_t mask_i64(int64_t i) { int64_t r = 3; if (i >= 0 && i < 8) r = tl[i]; return r; }
uint64_t mask_u64(uint64_t i) { uint64_t r = 4; if (i < 8) r = tq[i]; return r; }
"""


@pytest.mark.parametrize("isa", ALL_DAILY_AVX2)
def test_every_element_type_masked_and_unmasked(tmp_path: Path, isa: str) -> None:
    check_source(tmp_path, "elements", ELEMENTS, isa, n_random=5000)


@pytest.mark.parametrize("isa", ALL_DAILY_AVX2)
def test_the_gather_is_one_line_under_its_source(tmp_path: Path, isa: str) -> None:
    _, _, res = expand_source(tmp_path, "elements", ELEMENTS, isa)
    p = NATIVE.get(isa)
    f32 = line_under(body_of(res.text, "_Exp_get_f32"), "float get_f32(int i) { float r = tf[i & 7]; return r; }")
    masked = body_of(res.text, "_Exp_mask_f32")
    i32 = body_of(res.text, "_Exp_get_i32")
    f64 = body_of(res.text, "_Exp_get_f64")
    if isa.startswith("sve"):  # SVE's gathers (tests/test_sve.py)
        assert "svld1_gather_s32index_f32(" in f32 and "svld1_gather_s32index_f32(m_" in masked, res.text
        return
    if p is None:  # lane by lane: no gather instruction anywhere
        assert not GATHER.search(res.text)
        assert " tf_idx = " in f32 and "tf[" in body_of(res.text, "_Exp_get_f32")  # the index, then the lanes
        return
    if isa == "avx2":
        assert re.fullmatch(r"r = _mm256_i32gather_ps\(tf, .*, 4\);", f32), f32
        assert "_mm256_i32gather_epi32((const int *)(ti), " in i32
        assert "_mm256_mask_i32gather_ps(_mm256_setzero_ps(), tf, " in masked
    else:
        assert re.fullmatch(r"r = _mm512_i32gather_ps\(.*, tf, 4\);", f32), f32
        assert "_mm512_i32gather_epi32(" in i32
        assert "_mm512_mask_i32gather_ps(_mm512_setzero_ps(), " in masked
    # two registers of doubles: one named helper, its two gathers in the prelude
    assert "r = _exp_gather_f64_i32_x8(td, " in f64
    assert f"{p}_i32gather_pd(" in res.text
    # 64-bit indexes gather at 64-bit indexes; a 64-bit table too
    assert f"{p}_i64gather_epi32(" in res.text and f"{p}_i64gather_epi64(" in res.text
    assert f"{p}_mask_i64gather_epi64(" in res.text
    assert "_mm_extract_epi32" not in f32 and "_extract_" not in i32


# --------------------------------------------------------------------------------------------------
# Tables of structs, 2-D tables, nested subscripts, function-local static tables, pointer tables

SHAPES = """#include <stdint.h>
struct entry { double invc, logc; };
static const struct entry T[4] = {{1.0, 0.0}, {0x1.6p-1, -0x1.2p-2}, {0x1.2p+0, 0x1.8p-3}, {2.0, -0.5}};
struct cell { float w; int n; float f[3]; };
static const struct cell G[4] = {{0.5f, 1, {1, 2, 3}}, {1.5f, -2, {-1, -2, -3}}, {2.5f, 3, {0.25f, 0.5f, 0.75f}},
                                 {-3.5f, 4, {1e10f, -1e-10f, 0x1p-140f}}};
static const float grid[4][5] = {{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, {-1, -2, -3, -4, -5},
                                 {0.5f, 0.25f, 0, -0.0f, 1e30f}};

double field(uint32_t ix, double z)
{
    uint32_t i = ix % 4u;
    double invc = T[i].invc;
    double logc = T[i].logc;
    return z * invc - logc;
}

float nested(int i, int j)
{
    float r = 0.0f;
    if (j >= 0 && j < 3)
        r = G[i & 3].f[j] + G[i & 3].w;
    return r;
}

float rows(int i, unsigned j)
{
    float r = grid[i & 3][j % 5u];
    return r;
}

float local_table(int i)
{
    static const float lt[4] = {0.5f, -1.5f, 2.25f, 0x1p-149f};
    return lt[i & 3];
}

#pragma omp declare simd uniform(tab)
float through_pointer(const float *tab, unsigned i)
{
    float r = 0.0f;
    if (i < 64u)
        r = tab[i];
    return r;
}
"""


@pytest.mark.parametrize("isa", ALL_DAILY_AVX2)
def test_struct_fields_rows_and_local_tables(tmp_path: Path, isa: str) -> None:
    check_source(tmp_path, "shapes", SHAPES, isa, n_random=5000)


@pytest.mark.parametrize("isa", ["avx2", "avx512"])
def test_addresses_of_fields_and_rows(tmp_path: Path, isa: str) -> None:
    """base + index * stride: a field's address at index 0, the struct's size over the field's in the
    scale and a shift; two subscripts summed into one index; an unsigned index into a table of unknown
    size widened to 64 bits (then every value is exact)."""
    _, _, res = expand_source(tmp_path, "shapes", SHAPES, isa)
    p = NATIVE[isa]
    field = body_of(res.text, "_Exp_field")
    assert line_under(field, "double invc = T[i].invc;") == \
        f"invc = _exp_gather_f64_i32_x8(&T[0].invc, {p}_slli_epi32(i, 1));"
    assert f"logc = _exp_gather_f64_i32_x8(&T[0].logc, {p}_slli_epi32(i, 1));" in field
    nested = body_of(res.text, "_Exp_nested")  # G[i].f[j]: (i & 3) * 5 + j floats from &G[0].f[0], under a mask
    assert f"{p}_mask_i32gather_ps(" in nested and "&G[0].f[0]" in nested and "&G[0].w" in nested
    assert f"{p}_mullo_epi32(" in nested
    rows = body_of(res.text, "_Exp_rows")  # grid[i][j]: one gather from &grid[0][0]
    assert f"{p}_i32gather_ps(" in rows and "&grid[0][0]" in rows
    local = body_of(res.text, "_Exp_local_table")
    assert f"{p}_i32gather_ps(" in local
    pointer = body_of(res.text, "_Exp_through_pointer")
    assert "_exp_gather_f32_i64_x4_masked(tab, _exp_cvt_u32_u64(" in pointer
    assert f"{p}_mask_i64gather_ps(" in res.text


# --------------------------------------------------------------------------------------------------
# Inactive lanes: a native gather under a mask touches nothing there


def test_inactive_lanes_hold_wild_indexes(tmp_path: Path) -> None:
    """The lanes that fail the bounds test hold any int (random bits: up to 16 GiB either side of the
    table): the masked gather must not read them (a read there faults)."""
    text = ("static const double t[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};\n"
            "double f(int i) { double r = -1; if (i >= 0 && i < 16) r = t[i] * 2; return r; }\n")
    for isa in ("avx2", "avx512"):
        src, isa_t, res = expand_source(tmp_path, f"wild_{isa}", text, isa)
        assert "_mask_i32gather_pd(" in res.text
        (e,) = res.functions
        rep = verify(scalar_sources=[src], scalar_name="f", vector_c=res.text, vector_name=e.vector_name,
                     params=[Param(q.name, q.type) for q in e.params], ret=e.ret, isa=isa_t, n_random=20000)
        assert_verified(rep, res.text)


# --------------------------------------------------------------------------------------------------
# The Perlin noise kernel (mathlib/loops/perlin_noise.c): permutation and gradient tables


@pytest.mark.parametrize("isa", ALL_DAILY_AVX2)
def test_perlin_noise(tmp_path: Path, isa: str) -> None:
    src = ROOT / "mathlib/loops/perlin_noise.c"
    text = src.read_text()
    check_source(tmp_path, "perlin_noise", text, isa, n_random=5000)
    if isa in NATIVE:
        _, _, res = expand_source(tmp_path, "perlin_noise", text, isa)
        body = body_of(res.text, "_Exp_perlin_noise")
        p = NATIVE[isa]
        assert f"{p}_i32gather_epi32(" in body and "perm" in body
        assert f"{p}_i32gather_ps(" in body and "&grad[0][0]" in body and "&grad[0][2]" in body
        assert "_extract_epi32" not in body


# --------------------------------------------------------------------------------------------------
# glibc: logf, powf, sinf, expf expanded from glibc 2.36's sources, verified bit for bit

GLIBC = {  # file, function, companions
    "logf": ("e_logf.c", "__logf", ["e_logf_data.c", "math_errf.c"]),
    "powf": ("e_powf.c", "__powf", ["e_powf_log2_data.c", "e_exp2f_data.c", "math_errf.c"]),
    "sinf": ("s_sinf.c", "__sinf", ["s_sincosf_data.c", "math_errf.c"]),
    "expf": ("e_expf.c", "__expf", ["e_exp2f_data.c", "math_errf.c"]),
}
#: what the AVX2 output of each must read with gathers
GLIBC_GATHERS = {
    "logf": ["invc = _exp_gather_f64_i32_x8(&__logf_data.tab[0].invc, _mm256_slli_epi32(i, 1));"],
    "powf": ["invc = _exp_gather_f64_i32_x8(&__powf_log2_data.tab[0].invc, ", "_exp_gather_u64_i64_x8("],
    "sinf": ["_exp_gather_f64_i32_x8(&__sincosf_table[0].c0, ", "(const int *)(__inv_pio4)"],
    "expf": ["t = _exp_gather_u64_i64_x8(__exp2f_data.tab, "],
}


@pytest.mark.parametrize("isa", ["avx2", "avx512", "sse4.1"])
@pytest.mark.parametrize("name", sorted(GLIBC))
def test_glibc_table_functions(name: str, isa: str) -> None:
    flt32 = glibc_flt32_dir()  # (the test setup installs glibc-source: its absence is a failure)
    file, func, link = GLIBC[name]
    f = CorpusFunction(name, flt32 / file, func, [shim_dir(), flt32], [flt32 / c for c in link], [])
    isa_t = get_isa(isa)
    mod = read_file(str(f.source), f.source.read_text(), [str(d) for d in f.include_dirs], cc=isa_t.preprocessor)
    res = expand_module(mod, isa_t, functions=[func])
    (e,) = res.functions
    if isa == "avx2":
        for want in GLIBC_GATHERS[name]:
            assert want in res.text, want
    elif isa == "sse4.1":
        assert not GATHER.search(res.text)
    rep = verify(scalar_sources=[f.source], scalar_name=e.scalar_name, vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(q.name, q.type, q.shape or "varying") for q in e.params], ret=e.ret, isa=isa_t,
                 include_dirs=f.include_dirs, link_files=f.link, libs=("m",), constants=e.constants, n_random=50_000)
    assert_verified(rep)
