"""The seven ISA tables (emit/: SSE2, SSE4.1, AVX2, AVX-512, NEON, AltiVec, generic) against scalar C.

One module for all of them, parametrized over the ISA; what differs between ISAs is data (``FACTS``:
lane counts, register types, the prelude, the forbidden intrinsics, the per-lane fallbacks, the text
of the common operations, which op-by-op programs and corpus runs each one gets):

- op by op: one C program per (table, lane kind) runs every operation with the table's vector
  expression and with the scalar C operator on edge values and random bit patterns, and compares
  every lane bit for bit (tests/isa_check.py); also the portable base class ``Isa`` alone and the
  native registers with every operation from the base class ("regs-only");
- the table's text: attributes and registry, one use per argument, no intrinsic the ISA may not
  use, the lane-by-lane fallbacks exactly where the ISA has no instruction, the common operations
  as their intrinsics, malformed requests rejected;
- end to end: corpus functions (and for NEON the kernels of tests/test_kernels.py) expanded for the
  ISA and verified bit-exact by ``verify``.

NEON and AltiVec code is built with the cross compilers and run under qemu-user; where this host
cannot run an ISA's code the tests still compile it and skip only the run (emit/host.py says why).
The op-by-op runs beyond one smoke program per ISA, and the corpus beyond one function per ISA, are
``slow`` (``pytest -m "not slow"`` leaves them out; tests/setup-and-run.sh runs them).
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hostrun import assert_verified
from isa_check import (
    CFLAGS,
    OPS,
    Check,
    N,
    Prog,
    compile_and_run,
    edges,
    explain,
    gather_calls,
    random_bits,
    run_isa_kind,
)

from emit import ISAS, get_isa
from emit.altivec import KEYWORDS, Altivec
from emit.avx2 import Avx2
from emit.avx512 import Avx512
from emit.generic import Generic, _p
from emit.isa import BINOPS, CMPOPS, KINDS, Isa, is_float, kind_bits, scalar_ctype
from emit.neon import Neon
from emit.sse2 import Sse2
from emit.sse41 import Sse41
from expand.check.verify import Param, verify
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file

try:
    from mathlib.corpus import corpus

    CORPUS = {f.name: f for f in corpus()}
    CORPUS_ERROR = ""
except Exception as e:  # reported by test_corpus_available
    CORPUS, CORPUS_ERROR = {}, f"{type(e).__name__}: {e}"

try:
    from test_kernels import KERNELS
except ImportError:  # pragma: no cover - the SSE kernel tests are optional here
    KERNELS = {}

INTS = tuple(k for k in KINDS if not is_float(k))
#: the conversions between 64-bit integers and floats
CVT64 = {(s, d) for s in ("i64", "u64") for d in ("f32", "f64")} | \
    {(s, d) for s in ("f32", "f64") for d in ("i64", "u64")}


class Contains(str):
    """An expected text that only has to occur in the result (``NativeCall``)."""


#: (method, arguments, the text it must print; None: called for the helpers it adds to the prelude)
NativeCall = tuple[str, tuple[object, ...], "str | None"]


@dataclass(frozen=True)
class OpRun:
    """One op-by-op program per kind: the table at ``lanes`` compiled at ``opt``; ``literals`` says
    which literal shift counts it tries: "all" of them, "few" (0, 1, bits-1) or "all" only where a
    kind fits one register ("one-register"); ``smoke``: the kinds the daily loop (not slow) runs."""

    lanes: int
    kinds: tuple[str, ...] = KINDS
    opt: str = "-O2"
    literals: str = "all"
    variant: str = ""  # "" the table, "regs-only" its registers with the base class's operations
    smoke: tuple[str, ...] = ()


@dataclass(frozen=True)
class CorpusRun:
    """Corpus functions (None: all of them) expanded at ``lanes`` and verified with ``n_random``."""

    lanes: int
    names: tuple[str, ...] | None
    n_random: int
    smoke: tuple[str, ...] = ()


@dataclass(frozen=True)
class Facts:
    """What the tests expect of one ISA's table."""

    table: type[Isa]
    natural: int
    cflags: list[str]
    headers: list[str]
    cc: list[str]
    run_prefix: list[str]
    lanes: tuple[int, ...]  # the gang sizes tried (the first is the natural one)
    bad_lanes: tuple[int, ...]
    vtypes: dict[int, dict[str, str]]  # lanes -> kind -> vtype
    masks: dict[int, str]  # lanes -> mask_type
    mtypes: dict[int, dict[str, str]] = field(default_factory=dict)
    same_vtype: dict[int, tuple[tuple[str, ...], ...]] = field(default_factory=dict)  # groups of one type
    nregs: dict[int, dict[str, int]] = field(default_factory=dict)
    prelude: dict[int, tuple[str, ...]] = field(default_factory=dict)  # typedefs of a fresh table
    install: str = ""  # the Debian packages that build (and run) its code
    #: whether ``extract`` names its vector argument once (the printer only passes it names)
    extract_once: bool = True
    #: intrinsic name prefixes (``_mm_*``/``_MM_*`` names) its text may never use
    forbidden: tuple[str, ...] = ()
    #: the GCC headers that define every ``_mm_*`` name it may use
    known_headers: tuple[str, ...] = ()
    #: the ``*_lanes`` helpers (lane by lane through memory) after every operation; nothing else falls back
    fallbacks: frozenset[str] = frozenset()
    #: lanes -> the text of the common operations, called in this order on a fresh table
    native: dict[int, tuple[NativeCall, ...]] = field(default_factory=dict)
    #: lanes -> what the prelude holds after the ``native`` calls
    native_prelude: dict[int, tuple[str, ...]] = field(default_factory=dict)
    #: what the prelude holds once every operation except the fallbacks has printed
    prelude_has: tuple[str, ...] = ()
    #: what neither the operations' text nor the prelude ever contains
    text_lacks: tuple[str, ...] = ()
    #: every expanded corpus function contains / lacks these ({bytes}: the bytes of a 32-bit gang)
    output_has: tuple[str, ...] = ()
    output_lacks: tuple[str, ...] = ()
    ops: tuple[OpRun, ...] = ()
    corpus: tuple[CorpusRun, ...] = ()


def _fallbacks(div: tuple[str, ...], cvt: set[tuple[str, str]]) -> frozenset[str]:
    return frozenset({f"_exp_{op}_{k}_lanes" for op in ("div", "rem") for k in div}
                     | {f"_exp_cvt_{s}_{d}_lanes" for s, d in cvt})


#: intrinsics (prefixes) of SSE3 / SSSE3 / SSE4.1 / SSE4.2 the SSE4.1 table uses or a port would reach for
SSE3_AND_LATER = (
    "_mm_blendv", "_mm_blend_", "_mm_mullo_epi32", "_mm_extract_epi8", "_mm_extract_epi32", "_mm_extract_epi64",
    "_mm_extract_ps", "_mm_insert_epi8", "_mm_insert_epi32", "_mm_insert_epi64", "_mm_insert_ps", "_mm_cvtepi8",
    "_mm_cvtepu8", "_mm_cvtepi16", "_mm_cvtepu16", "_mm_cvtepi32_epi64", "_mm_cvtepu32_epi64", "_mm_shuffle_epi8",
    "_mm_testz", "_mm_testc", "_mm_testnzc", "_mm_cmpeq_epi64", "_mm_cmpgt_epi64", "_mm_round_", "_mm_floor",
    "_mm_ceil", "_MM_FROUND", "_mm_packus_epi32", "_mm_max_epi32", "_mm_max_epu32", "_mm_min_epi32", "_mm_min_epu32",
    "_mm_max_epi8", "_mm_min_epi8", "_mm_max_epu16", "_mm_min_epu16", "_mm_abs_epi", "_mm_sign_epi", "_mm_hadd",
    "_mm_hsub", "_mm_alignr", "_mm_lddqu", "_mm_movehdup", "_mm_moveldup", "_mm_dp_p", "_mm_mul_epi32",
    "_mm_stream_load")
#: four corpus functions for wider gangs. Not powf: with 8 (or more) lanes 58 of its inputs with two NaN
#: operands (``return x + y``) verify with the other operand's payload. GCC canonicalizes the operand order
#: of commutative operations (by SSA version) on both sides, whichever order the C text gives, so the
#: winning NaN is the compiler's choice (tests/isa_check.py accepts either payload there;
#: expand/check/verify.py does not).
WIDE_CORPUS = ("chroma", "floorf", "logf", "scalbnf")
#: a few kinds for the -O0 and wider-gang programs
SIX = ("i8", "u16", "u32", "i64", "f32", "f64")
BAD_REQUESTS: tuple[tuple[str, tuple[object, ...]], ...] = (
    ("binop", ("%", "f32", "a", "b")), ("unop", ("~", "f64", "a")), ("shift", ("<<", "f32", "a", "1", True)),
    ("bitcast", ("i32", "i64", "a")), ("cmp", ("<>", "i32", "a", "b")), ("build", ("f32", ["a"])))

FACTS: dict[str, Facts] = {
    "sse2": Facts(
        table=Sse2, natural=4, cflags=["-msse2", "-mno-sse3"], headers=["<emmintrin.h>"], cc=["gcc"], run_prefix=[],
        lanes=(4, 8, 16), bad_lanes=(0, 2, 6, 36),
        vtypes={4: {"f32": "__m128", "u8": "__m128i", "f64": "_Exp_f64x4"},
                8: {"f32": "_Exp_f32x8", "u8": "_Exp_i32x8", "f64": "_Exp_f64x8"}},
        masks={4: "__m128i", 8: "_Exp_i32x8"},
        nregs={8: {"i32": 2, "u64": 4}, 16: {"f32": 4, "f64": 8}},
        forbidden=SSE3_AND_LATER, known_headers=("mmintrin.h", "xmmintrin.h", "emmintrin.h"),
        fallbacks=_fallbacks(INTS, CVT64),
        native={4: (("binop", ("+", "f32", "a", "b"), "_mm_add_ps(a, b)"),
                    ("binop", ("*", "i32", "a", "b"), "_exp_mullo_epi32(a, b)"),
                    ("binop", ("*", "i16", "a", "b"), "_mm_srai_epi32(_mm_slli_epi32(_mm_mullo_epi16(a, b), 16), 16)"),
                    ("select", ("f32", "m", "a", "b"), "_exp_blend_ps(m, a, b)"),
                    ("extract", ("i32", "v", 0), "((int32_t)_mm_cvtsi128_si32(v))"),
                    ("mask_any", ("m",), "(_mm_movemask_ps(_mm_castsi128_ps(m)) != 0)"),
                    ("shift", ("<<", "u32", "a", "3", True), "_mm_slli_epi32(a, 3)")),
                8: (("binop", ("*", "i32", "a", "b"), "_exp_mul_i32(a, b)"),
                    ("mask_any", ("m",), "_exp_mask_any(m)"))},
        native_prelude={8: ("_exp_mullo_epi32(a0.v[1], a1.v[1])",
                            "_mm_movemask_ps(_mm_castsi128_ps(_mm_or_si128(a.v[0], a.v[1]))) != 0")},
        output_has=("_mm_",),
        ops=(OpRun(4, smoke=("i32",)), OpRun(4, ("i8", "u16", "i64", "f64"), "-O0", "few"), OpRun(8, literals="few"),
             OpRun(16, ("i8", "u16", "i32", "u64", "f32", "f64"), literals="few")),
        corpus=(CorpusRun(4, None, 100_000, smoke=("floorf",)), CorpusRun(8, WIDE_CORPUS, 20_000))),
    "sse4.1": Facts(
        table=Sse41, natural=4, cflags=["-msse4.1"], headers=["<smmintrin.h>"], cc=["gcc"], run_prefix=[],
        lanes=(4, 8, 16), bad_lanes=(0, 2, 6, 36),
        vtypes={4: {"f32": "__m128", "i32": "__m128i", "u8": "__m128i", "f64": "_Exp_f64x4"},
                8: {"f32": "_Exp_f32x8", "u16": "_Exp_i32x8", "i32": "_Exp_i32x8", "f64": "_Exp_f64x8",
                    "u64": "_Exp_i64x8"}},
        same_vtype={4: (("u64", "i64"),)},
        masks={4: "__m128i", 8: "_Exp_i32x8"},
        mtypes={4: {"f32": "__m128", "u8": "_Exp_u8x4", "f64": "_Exp_f64x4"},
                8: {"u8": "_Exp_u8x8", "f32": "_Exp_f32x8"}},
        nregs={8: {"f32": 2, "u8": 2, "f64": 4}, 16: {"i32": 4, "i64": 8}},
        prelude={4: ("typedef struct { __m128d v[2]; } _Exp_f64x4;", "typedef struct { uint8_t v[4]; } _Exp_u8x4;"),
                 8: ("typedef struct { __m128 v[2]; } _Exp_f32x8;", "typedef struct { __m128d v[4]; } _Exp_f64x8;",
                     "typedef struct { __m128i v[2]; } _Exp_i32x8;")},
        forbidden=("_mm256_", "_mm512_"),
        extract_once=False,  # f32/f64 lanes but the first: _mm_shuffle_ps(v, v, i), _mm_unpackhi_pd(v, v)
        fallbacks=_fallbacks(INTS, CVT64),
        native={4: (("binop", ("+", "f32", "a", "b"), "_mm_add_ps(a, b)"),
                    ("binop", ("*", "i32", "a", "b"), "_mm_mullo_epi32(a, b)"),
                    ("shift", ("<<", "u32", "a", "3", True), "_mm_slli_epi32(a, 3)"),
                    ("shift", (">>", "i32", "a", "n", True), "_mm_sra_epi32(a, _mm_cvtsi32_si128(n))"),
                    ("convert", ("i32", "f32", "a"), "_mm_cvtepi32_ps(a)"),
                    ("convert", ("f32", "i32", "a"), "_mm_cvttps_epi32(a)"),
                    ("bitcast", ("f32", "u32", "a"), "_mm_castps_si128(a)"),
                    ("select", ("f32", "m", "a", "b"), "_mm_blendv_ps(b, a, _mm_castsi128_ps(m))"),
                    ("mask_bits", ("m",), "((unsigned)_mm_movemask_ps(_mm_castsi128_ps(m)))")),
                # several registers per gang: still intrinsics register by register, never lane by lane
                8: (("binop", ("+", "f32", "a", "b"), "_exp_add_f32(a, b)"),
                    ("mask_bits", ("m",), "_exp_mask_bits(m)")),
                16: (("binop", ("+", "f32", "a", "b"), "_exp_add_f32(a, b)"),
                     ("mask_bits", ("m",), "_exp_mask_bits(m)"))},
        native_prelude={8: ("_mm_add_ps(a0.v[1], a1.v[1])", "<< 4)"), 16: ("_mm_add_ps(a0.v[1], a1.v[1])", "<< 12)")},
        output_has=("_mm_",), output_lacks=("_mm256_",),
        ops=(OpRun(4, smoke=("i64",)), OpRun(4, SIX, "-O0"), OpRun(8, literals="few"),
             OpRun(16, ("u8", "i16", "u32", "i64", "f32", "f64"), literals="few"),
             OpRun(4, ("i8", "u16", "i32", "u32", "i64", "u64", "f32", "f64"), literals="few", variant="regs-only",
                   smoke=("f32",))),
        # (its natural gang: tests/test_corpus_expand.py)
        corpus=(CorpusRun(8, WIDE_CORPUS, 20_000, smoke=("logf",)),)),
    "avx2": Facts(
        table=Avx2, natural=8, cflags=["-mavx2", "-mfma"], headers=["<immintrin.h>"], cc=["gcc"], run_prefix=[],
        lanes=(8, 16), bad_lanes=(4, 12, 40),
        vtypes={8: {"f32": "__m256", "i32": "__m256i", "u8": "__m256i", "f64": "_Exp_f64x8", "u64": "_Exp_i64x8",
                    "i64": "_Exp_i64x8"},
                16: {"f32": "_Exp_f32x16", "i64": "_Exp_i64x16"}},
        masks={8: "__m256i", 16: "_Exp_i32x16"},
        mtypes={8: {"f32": "__m256", "u8": "_Exp_u8x8", "f64": "_Exp_f64x8"}},
        nregs={16: {"f64": 4}},
        prelude={8: ("typedef struct { __m256d v[2]; } _Exp_f64x8;",)},
        forbidden=("_mm512_",),
        # (no AVX2 instruction does these: rare)
        fallbacks=_fallbacks(("i64", "u64"), {(s, "f32") for s in ("i64", "u64")}
                             | {(s, d) for s in ("f32", "f64") for d in ("i64", "u64")}),
        native={8: (("binop", ("+", "f32", "a", "b"), "_mm256_add_ps(a, b)"),
                    ("binop", ("*", "i32", "a", "b"), "_mm256_mullo_epi32(a, b)"),
                    ("shift", ("<<", "u32", "a", "3", True), "_mm256_slli_epi32(a, 3)"),
                    ("shift", (">>", "i32", "a", "n", True), "_mm256_sra_epi32(a, _mm_cvtsi32_si128(n))"),
                    ("shift", (">>", "u32", "a", "n", False), "_mm256_srlv_epi32(a, n)"),
                    ("shift", (">>", "i32", "a", "n", False), "_mm256_srav_epi32(a, n)"),
                    ("cmp", ("!=", "f32", "a", "b"), "_mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_NEQ_UQ))"),
                    ("cmp", ("<", "f32", "a", "b"), "_mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_LT_OQ))"),
                    ("convert", ("i32", "f32", "a"), "_mm256_cvtepi32_ps(a)"),
                    ("convert", ("f32", "i32", "a"), "_mm256_cvttps_epi32(a)"),
                    ("bitcast", ("f32", "u32", "a"), "_mm256_castps_si256(a)"),
                    ("select", ("f32", "m", "a", "b"), "_mm256_blendv_ps(b, a, _mm256_castsi256_ps(m))"),
                    ("mask_bits", ("m",), "((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(m)))"),
                    ("mask_any", ("m",), Contains("_mm256_testz_si256")))},
        prelude_has=("_mm256_cmpgt_epi64", "_mm256_sllv_epi64", "_mm256_srlv_epi64", "_mm256_mul_epu32",
                     "_mm256_blendv_pd", "_mm256_blendv_epi8", "_mm256_cvtepi32_epi64", "_mm256_cvtps_pd",
                     "_mm256_cvtpd_ps", "_mm256_cmp_pd"),
        output_has=("_mm256_",), output_lacks=("_mm_add_ps",),
        ops=(OpRun(8, smoke=("u16",)), OpRun(8, SIX, "-O0"), OpRun(16, ("u8", "i16", "u32", "i64", "f32", "f64"))),
        corpus=(CorpusRun(8, None, 100_000, smoke=("chroma",)), CorpusRun(16, WIDE_CORPUS, 100_000))),
    "avx512": Facts(
        table=Avx512, natural=16, cflags=["-mavx512f", "-mavx512bw", "-mavx512dq", "-mavx512vl"],
        headers=["<immintrin.h>"], cc=["gcc"], run_prefix=[], lanes=(16, 32), bad_lanes=(4, 8, 64),
        vtypes={16: {"f32": "__m512", "i32": "__m512i", "u8": "__m512i", "f64": "_Exp_f64x16", "u64": "_Exp_i64x16",
                     "i64": "_Exp_i64x16"},
                32: {"f32": "_Exp_f32x32", "i16": "_Exp_i32x32", "f64": "_Exp_f64x32"}},
        masks={16: "__mmask16", 32: "__mmask32"},
        mtypes={16: {"f32": "__m512", "u8": "_Exp_u8x16", "f64": "_Exp_f64x16"}},
        nregs={32: {"u64": 4}},
        prelude={16: ("typedef struct { __m512d v[2]; } _Exp_f64x16;",),
                 32: ("typedef struct { __m512d v[4]; } _Exp_f64x32;",)},
        # mask registers throughout, intrinsics everywhere, the per-lane fallback only for 64-bit / and %
        fallbacks=_fallbacks(("i64", "u64"), set()),
        native={16: (("binop", ("+", "f32", "a", "b"), "_mm512_add_ps(a, b)"),
                     ("binop", ("*", "i32", "a", "b"), "_mm512_mullo_epi32(a, b)"),
                     ("shift", ("<<", "u32", "a", "3", True), "_mm512_slli_epi32(a, 3)"),
                     ("shift", (">>", "i32", "a", "n", False), "_mm512_srav_epi32(a, n)"),
                     ("cmp", ("!=", "f32", "a", "b"), "_mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ)"),
                     ("cmp", ("<", "f32", "a", "b"), "_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)"),
                     ("cmp", (">", "u32", "a", "b"), "_mm512_cmpgt_epu32_mask(a, b)"),
                     ("select", ("f32", "m", "a", "b"), "_mm512_mask_blend_ps(m, b, a)"),
                     ("select", ("i32", "m", "a", "b"), "_mm512_mask_blend_epi32(m, b, a)"),
                     ("int_to_mask", ("i32", "a"), "_mm512_cmpneq_epi32_mask(a, _mm512_setzero_si512())"),
                     ("mask_to_int", ("m",), "_mm512_maskz_set1_epi32(m, 1)"),
                     ("mask_bits", ("m",), "((unsigned)m)"),
                     ("mask_any", ("m",), "(m != 0)"),
                     ("mask_all", ("m",), "(m == 0xffffu)"),
                     ("mask_andnot", ("a", "f(b) | c"), "((__mmask16)(a & ~(f(b) | c)))"),
                     ("mask_not", ("f(a, b)",), "((__mmask16)~f(a, b))"),
                     ("convert", ("u32", "f32", "a"), "_mm512_cvtepu32_ps(a)"),
                     ("bitcast", ("f32", "u32", "a"), "_mm512_castps_si512(a)"),
                     ("select", ("f64", "m", "a", "b"), None))},
        native_prelude={16: ("_mm512_mask_blend_pd((__mmask8)a0, a2.v[0], a1.v[0])",
                             "_mm512_mask_blend_pd((__mmask8)(a0 >> 8), a2.v[1], a1.v[1])")},
        text_lacks=("__m128i m", "_mm512_movm"),  # no vector-of-booleans masks
        output_has=("_mm512_",),
        ops=(OpRun(16, literals="one-register", smoke=("f64",)), OpRun(16, SIX, "-O0"),
             OpRun(32, ("u8", "i16", "u32", "u64", "f32", "f64"), literals="few"),
             OpRun(16, ("i8", "u16", "i32", "u64", "f32", "f64"), literals="few", variant="regs-only")),
        # powf is left out at 32 lanes: its ``x + y`` of two NaNs returns either operand's payload (C leaves
        # it open; isa_check accepts both) and GCC commutes the vaddps of the second register there, while
        # verify compares NaN payloads bit for bit.
        corpus=(CorpusRun(16, None, 100_000, smoke=("scalbnf",)),
                CorpusRun(32, tuple(n for n in sorted(CORPUS) if n != "powf"), 100_000))),
    "neon": Facts(
        table=Neon, natural=4, cflags=[], headers=["<arm_neon.h>"], cc=["aarch64-linux-gnu-gcc"],
        run_prefix=["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"], lanes=(4, 8), bad_lanes=(0, 2, 6, 64),
        install="gcc-aarch64-linux-gnu qemu-user",
        vtypes={4: dict(zip(KINDS, ["int32x4_t", "uint32x4_t", "int32x4_t", "uint32x4_t", "int32x4_t", "uint32x4_t",
                                    "_Exp_s64x4", "_Exp_u64x4", "float32x4_t", "_Exp_f64x4"], strict=True)),
                8: {"u32": "_Exp_u32x8", "i8": "_Exp_s32x8", "f64": "_Exp_f64x8"}},
        masks={4: "uint32x4_t", 8: "_Exp_u32x8"},
        mtypes={4: {"u8": "_Exp_u8x4", "f64": "_Exp_f64x4", "i32": "int32x4_t"}},
        prelude={4: ("typedef struct { float64x2_t v[2]; } _Exp_f64x4;",
                     "typedef struct { int64x2_t v[2]; } _Exp_s64x4;"),
                 8: ("typedef struct { uint32x4_t v[2]; } _Exp_u32x8;",
                     "typedef struct { float64x2_t v[4]; } _Exp_f64x8;")},
        forbidden=("_mm", "_MM"),
        native={4: (("binop", ("+", "f32", "a", "b"), "vaddq_f32(a, b)"),
                    ("binop", ("/", "f32", "a", "b"), "vdivq_f32(a, b)"),
                    ("binop", ("*", "i32", "a", "b"), "vmulq_s32(a, b)"),
                    ("binop", ("&", "u32", "a", "b"), "vandq_u32(a, b)"),
                    ("binop", ("|", "f32", "a", "b"),
                     "vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(a), vreinterpretq_u32_f32(b)))"),
                    ("shift", ("<<", "u32", "a", "3", True), "vshlq_n_u32(a, 3)"),
                    ("shift", (">>", "i32", "a", "31", True), "vshrq_n_s32(a, 31)"),
                    ("shift", (">>", "u32", "a", "0", True), "a"),
                    ("shift", (">>", "i32", "a", "n", True), "vshlq_s32(a, vdupq_n_s32(-(int32_t)(n)))"),
                    ("shift", (">>", "u32", "a", "n", False), "vshlq_u32(a, vnegq_s32(vreinterpretq_s32_u32(n)))"),
                    ("shift", ("<<", "i32", "a", "n", False), "vshlq_s32(a, n)"),
                    ("unop", ("~", "i32", "a"), "vmvnq_s32(a)"),
                    ("unop", ("-", "f32", "a"), "vnegq_f32(a)"),
                    ("cmp", ("<", "u32", "a", "b"), "vcltq_u32(a, b)"),
                    ("cmp", ("!=", "f32", "a", "b"), "vmvnq_u32(vceqq_f32(a, b))"),
                    ("select", ("f32", "m", "a", "b"), "vbslq_f32(m, a, b)"),
                    ("convert", ("i32", "f32", "a"), "vcvtq_f32_s32(a)"),
                    ("convert", ("u32", "f32", "a"), "vcvtq_f32_u32(a)"),
                    ("convert", ("f32", "i32", "a"), "vcvtq_s32_f32(a)"),
                    ("convert", ("f32", "u32", "a"), "vcvtq_u32_f32(a)"),
                    ("convert", ("i8", "i32", "a"), "a"),
                    ("convert", ("u32", "i32", "a"), "vreinterpretq_s32_u32(a)"),
                    ("bitcast", ("f32", "u32", "a"), "vreinterpretq_u32_f32(a)"),
                    ("splat", ("f32", "x"), "vdupq_n_f32(x)"),
                    ("splat", ("u8", "3"), "vdupq_n_u32(3)"),
                    ("extract", ("f32", "v", 2), "vgetq_lane_f32(v, 2)"),
                    ("mask_and", ("a", "b"), "vandq_u32(a, b)"),
                    ("mask_andnot", ("a", "b"), "vbicq_u32(a, b)"),
                    ("mask_not", ("a",), "vmvnq_u32(a)"),
                    ("mask_any", ("m",), "(vmaxvq_u32(m) != 0)"),
                    ("mask_all", ("m",), "(vminvq_u32(m) != 0)"),
                    ("mask_bits", ("m",), "((unsigned)vaddvq_u32(vandq_u32(m, (uint32x4_t){1u, 2u, 4u, 8u})))"),
                    ("mask_to_int", ("m",), "vreinterpretq_s32_u32(vshrq_n_u32(m, 31))"),
                    # 64-bit kinds: native compares and conversions inside the register-pair helpers
                    ("cmp", (">", "i64", "a", "b"), None), ("convert", ("u64", "f64", "a"), None),
                    ("convert", ("f64", "i64", "a"), None), ("convert", ("f32", "f64", "a"), None),
                    ("convert", ("i32", "u64", "a"), None))},
        native_prelude={4: ("vcgtq_s64", "vuzp1q_u32", "vcvtq_f64_u64", "vcvtq_s64_f64", "vcvt_high_f64_f32",
                            "vmovl_high_s32")},
        output_lacks=("_mm_", "_lanes("),  # (no memory-based per-lane helpers)
        ops=(OpRun(4, smoke=("u8",)), OpRun(8, SIX, literals="few"),
             OpRun(4, ("u8", "i32", "u64", "f64"), "-O0", "few")),
        corpus=(CorpusRun(4, None, 20_000, smoke=("chroma",)), CorpusRun(8, ("chroma", "floorf", "powf"), 20_000))),
    "altivec": Facts(
        table=Altivec, natural=4, cflags=["-maltivec", "-mvsx", "-mcpu=power8"], headers=["<altivec.h>"],
        cc=["powerpc64le-linux-gnu-gcc"], run_prefix=["qemu-ppc64le", "-L", "/usr/powerpc64le-linux-gnu"],
        lanes=(4, 8, 16), bad_lanes=(1, 2, 6, 32), install="gcc-powerpc64le-linux-gnu qemu-user",
        vtypes={4: {"f32": "__vector float", "f64": "_Exp_f64x4", "i32": "__vector signed int",
                    "u32": "__vector signed int", "u8": "__vector signed int", "i64": "_Exp_i64x4",
                    "u64": "_Exp_i64x4"},
                8: {"f32": "_Exp_f32x8"}},
        masks={4: "__vector __bool int", 8: "_Exp_m32x8"},
        mtypes={4: {"u8": "_Exp_u8x4", "f32": "__vector float"}},
        prelude={4: ("typedef struct { __vector double v[2]; } _Exp_f64x4;",),
                 8: ("typedef struct { __vector __bool int v[2]; } _Exp_m32x8;",)},
        forbidden=("_mm", "_MM"),
        # the common operations print as intrinsics; only 64-bit integer / and % go lane by lane
        fallbacks=_fallbacks(("i64", "u64"), set()),
        native={4: (("binop", ("+", "f32", "a", "b"), "vec_add(a, b)"),
                    ("binop", ("*", "i32", "a", "b"), "vec_mul(a, b)"),
                    ("binop", ("&", "f32", "a", "b"), "vec_and(a, b)"),
                    ("shift", ("<<", "u32", "a", "3", True), "vec_sl(a, vec_splats(3u))"),
                    ("shift", (">>", "i32", "a", "n", True), "vec_sra(a, vec_splats((unsigned int)(n)))"),
                    ("shift", (">>", "u32", "a", "n", False), "vec_sr(a, (__vector unsigned int)(n))"),
                    ("cmp", ("!=", "f32", "a", "b"), "vec_cmpne(a, b)"),
                    ("cmp", ("<", "u32", "a", "b"),
                     "vec_cmplt((__vector unsigned int)(a), (__vector unsigned int)(b))"),
                    ("convert", ("i32", "f32", "a"), "vec_float(a)"),
                    ("convert", ("f32", "i32", "a"), "_exp_signed_f32(a)"),  # (NaN lanes set apart: qemu 7.2)
                    ("convert", ("f32", "u32", "a"), "_exp_unsigned_f32(a)"),  # (vec_ctu, NaN lanes zeroed: qemu 7.2)
                    ("bitcast", ("f32", "u32", "a"), "(__vector signed int)(a)"),
                    ("select", ("f32", "m", "a", "b"), "vec_sel(b, a, m)"),
                    ("loadu", ("f32", "p"), "vec_xl(0, p)"),
                    ("splat", ("i32", "7"), "vec_splats(7)"),
                    ("splat", ("f32", "0.5f"), "vec_splats(0.5f)"),
                    ("mask_any", ("m",), "vec_any_ne(m, (__vector __bool int)vec_splats(0))"))},
        output_has=("vec_",),
        ops=(OpRun(4, smoke=("f64",)), OpRun(8, ("u8", "i16", "u32", "i64", "f32", "f64"), literals="few"),
             OpRun(16, ("i8", "u64"), literals="few"),
             # u64 is left out at -O0: GCC converts u64 -> f32 with xscvuxdsp there, which qemu 7.2 rounds twice
             # (through double), so the scalar reference itself is off by one ulp on ties; -O2 uses fcfidus.
             OpRun(4, SIX, "-O0", "few")),
        # Not powf at 8 lanes: with two NaN operands `x + y` returns one of them and GCC is free to commute the
        # operands (it does, in the 8-lane helper), so the NaN payload may differ from the scalar build's.
        corpus=(CorpusRun(4, None, 20_000, smoke=("floorf",)), CorpusRun(8, WIDE_CORPUS, 20_000))),
    "generic": Facts(
        table=Generic, natural=4, cflags=["-Wno-psabi"], headers=[], cc=["gcc"], run_prefix=[],
        lanes=(4, 8, 16), bad_lanes=(3,),
        vtypes={4: {"f32": "_Exp_v4f32", "u8": "_Exp_v4i32", "u32": "_Exp_v4i32", "u64": "_Exp_v4i64",
                    "f64": "_Exp_v4f64"}},
        masks={4: "_Exp_v4i32"},
        mtypes={4: {"u8": "_Exp_u8x4", "f32": "_Exp_v4f32"}},
        prelude={4: ("typedef float _Exp_v4f32 __attribute__((vector_size(16)));",
                     "typedef double _Exp_v4f64 __attribute__((vector_size(32)));")},
        forbidden=("_mm", "_MM"),
        # C operators on vectors: no intrinsic, no clang-only builtin, no ``?:`` on vectors, no fallback
        native={4: (("binop", ("+", "f32", "a", "b"), "(a + b)"),
                    ("binop", ("+", "i32", "a", "b"), "(_Exp_v4i32)((_Exp_v4u32)a + (_Exp_v4u32)b)"),
                    ("cmp", ("<", "u32", "a", "b"), "((_Exp_v4u32)a < (_Exp_v4u32)b)"),
                    ("cmp", ("!=", "f64", "a", "b"), "__builtin_convertvector(a != b, _Exp_v4i32)"),
                    ("shift", (">>", "i32", "a", "n", True), "(a >> n)"),
                    ("convert", ("i32", "f32", "a"), "__builtin_convertvector(a, _Exp_v4f32)"),
                    ("bitcast", ("f32", "u32", "a"), "(_Exp_v4i32)a"),
                    ("loadu", ("f32", "p"), "((_Exp_v4f32)*(const _Exp_v4f32_u *)p)"),
                    ("unop", ("-", "f32", "-x"), "(-(-x))"),
                    ("mask_not", ("~m",), "(~(~m))"))},
        text_lacks=("_mm", "__builtin_shufflevector", "?"),
        output_has=("__attribute__((vector_size({bytes})))",), output_lacks=("_mm_",),
        # literal shift counts print like variable ones here: 0, 1 and bits-1 are enough
        ops=(OpRun(4, literals="few", smoke=("i16",)), OpRun(8, literals="few"),
             OpRun(16, ("u8", "i64"), literals="few"),
             OpRun(2, ("f32",), literals="few"), OpRun(4, ("i8", "u64", "f64"), "-O0", "few")),
        # (8 lanes: 32-byte vectors in the functions' signatures, the -Wpsabi case)
        corpus=(CorpusRun(4, None, 100_000, smoke=("mot",)), CorpusRun(8, ("chroma", "floorf", "powf"), 100_000))),
}

#: the portable base class alone (structs of scalars): every operation from its pure fallbacks
BASE_OPS = (OpRun(4, literals="few", smoke=("u32",)), OpRun(8, ("u8", "i64", "f32", "f64"), literals="few"))


# --------------------------------------------------------------------------------------------------
# Tables and skips


_REGS_ONLY: dict[type[Isa], type[Isa]] = {}


def regs_only(table: type[Isa]) -> type[Isa]:
    """``table``'s types, loads, stores (and mask-register hooks); every operation from the base class."""
    if table not in _REGS_ONLY:
        cls = type(f"{table.__name__}RegsOnly", (table,), {"name": f"{table.name}-regs-only"})
        for op in OPS:
            setattr(cls, op, getattr(Isa, op))
        cls.gather_native = Isa.gather_native  # (its gathers are the base class's per-lane reads)
        _REGS_ONLY[table] = cls
    return _REGS_ONLY[table]


def make_table(isa: str, lanes: int, variant: str = "") -> Isa:
    """A fresh table: ISA ``isa`` ("base": the portable ``Isa``) at ``lanes``, or its "regs-only" variant."""
    if isa == "base":
        return Isa(lanes)
    cls = FACTS[isa].table
    return (regs_only(cls) if variant == "regs-only" else cls)(lanes)


def need_compiler(isa: str) -> None:
    """Skip when the compiler of ``isa``'s code is not installed (the run itself is skipped later,
    after compiling, where this host cannot run the code: emit/host.py)."""
    cc = FACTS[isa].cc[0] if isa in FACTS else "gcc"
    if shutil.which(cc) is None:
        how = f" (Debian: apt-get install {FACTS[isa].install})" if isa in FACTS and FACTS[isa].install else ""
        pytest.skip(f"needs {cc} to build {isa} code{how}")


def isa_lanes(variants: bool = False) -> list:
    """(isa, lanes) of every table at every gang size tried; with ``variants`` also the base class and the
    regs-only tables."""
    out = [pytest.param(n, lanes, "", id=f"{n}-x{lanes}") for n, f in FACTS.items() for lanes in f.lanes]
    if variants:
        out += [pytest.param("base", lanes, "", id=f"base-x{lanes}") for lanes in (4, 8)]
        out += [pytest.param(n, FACTS[n].natural, "regs-only", id=f"{n}-regs-only-x{FACTS[n].natural}")
                for n in ("sse4.1", "avx512")]
    return out


def all_calls(isa: Isa) -> list[tuple[str, Callable[[], str], list[str]]]:
    """(description, the call, its placeholder arguments) for every method, kind, operator, every lane of
    ``extract`` and literal shift counts 0, 5 and bits-1."""
    calls: list[tuple[str, Callable[[], str], list[str]]] = []

    def add(desc: str, fn: Callable[..., str], *args: object) -> None:
        ph = [a for a in args if isinstance(a, str) and a.startswith("ARG")]
        ph += [x for a in args if isinstance(a, list) for x in a]
        calls.append((desc, lambda: fn(*args), ph))

    for k in KINDS:
        add(f"loadu {k}", isa.loadu, k, "ARGP")
        add(f"storeu {k}", isa.storeu, k, "ARGP", "ARGV")
        add(f"load {k}", isa.load, k, "ARGP")
        add(f"store {k}", isa.store, k, "ARGP", "ARGV")
        add(f"splat {k}", isa.splat, k, "ARGS")
        add(f"build {k}", isa.build, k, [f"ARGS{i}" for i in range(isa.lanes)])
        for lane in range(isa.lanes):
            add(f"extract {k} {lane}", isa.extract, k, "ARGV", lane)
        for op in BINOPS:
            if not (is_float(k) and op == "%"):
                add(f"binop {op} {k}", isa.binop, op, k, "ARGA", "ARGB")
        for op in CMPOPS:
            add(f"cmp {op} {k}", isa.cmp, op, k, "ARGA", "ARGB")
        add(f"select {k}", isa.select, k, "ARGM", "ARGA", "ARGB")
        add(f"unop - {k}", isa.unop, "-", k, "ARGA")
        add(f"int_to_mask {k}", isa.int_to_mask, k, "ARGA")
        if not is_float(k):
            add(f"unop ~ {k}", isa.unop, "~", k, "ARGA")
            for op in ("<<", ">>"):
                add(f"shift {op} {k} uniform", isa.shift, op, k, "ARGA", "ARGN", True)
                for c in ("0", "5", str(kind_bits(k) - 1)):
                    add(f"shift {op} {k} literal {c}", isa.shift, op, k, "ARGA", c, True)
                add(f"shift {op} {k} per lane", isa.shift, op, k, "ARGA", "ARGN", False)
        for d in KINDS:
            add(f"convert {k} {d}", isa.convert, k, d, "ARGA")
            if kind_bits(d) == kind_bits(k):
                add(f"bitcast {k} {d}", isa.bitcast, k, d, "ARGA")
    for name in ("mask_and", "mask_or", "mask_xor", "mask_andnot"):
        add(name, getattr(isa, name), "ARGA", "ARGB")
    for name in ("mask_not", "mask_to_int", "mask_bits", "mask_any", "mask_all"):
        add(name, getattr(isa, name), "ARGA")
    add("mask_const 1", isa.mask_const, True)
    add("mask_const 0", isa.mask_const, False)
    for desc, text, ph in gather_calls(isa):  # (the kinds and index kinds the table gathers natively)
        calls.append((desc, lambda text=text: text, ph))
    return calls


def all_texts(isa: Isa) -> list[tuple[str, str, list[str]]]:
    """``all_calls`` made: (description, text, placeholders)."""
    return [(desc, call(), ph) for desc, call, ph in all_calls(isa)]


def fallback_of(desc: str) -> str | None:
    """The lane-by-lane helper an operation may fall back to: 64-bit-style division, remainder, conversion."""
    w = desc.split()
    if w[0] == "binop" and w[1] in "/%":
        return f"_exp_{'div' if w[1] == '/' else 'rem'}_{w[2]}_lanes"
    if w[0] == "convert":
        return f"_exp_cvt_{w[1]}_{w[2]}_lanes"
    return None


def intrinsics(text: str) -> set[str]:
    return set(re.findall(r"\b(_[mM][mM]_\w+)\b", text))


def header_names(headers: tuple[str, ...]) -> set[str] | None:
    """Every ``_mm_*``/``_MM_*`` name GCC's ``headers`` define (None if they are not found)."""
    r = subprocess.run(["gcc", "-print-file-name=include"], capture_output=True, text=True, check=False)
    inc = Path(r.stdout.strip())
    names: set[str] = set()
    for h in headers:
        if not (inc / h).is_file():
            return None
        names |= intrinsics((inc / h).read_text())
    return names


def assert_allowed_intrinsics(isa: str, text: str) -> None:
    """``text`` uses no intrinsic ``isa`` forbids, and only names its headers define."""
    f = FACTS[isa]
    used = intrinsics(text)
    bad = sorted(n for n in used if f.forbidden and n.startswith(f.forbidden))
    assert not bad, bad
    if f.known_headers:
        assert used, "no intrinsics at all?"
        known = header_names(f.known_headers)
        if known is not None:
            assert not used - known, sorted(used - known)


# --------------------------------------------------------------------------------------------------
# Every operation against scalar C


def op_cases() -> list:
    """Every run's kinds; the daily loop takes the smoke kinds, the README's run the table at its natural
    width, the deep run (tests/conftest.py) also the other widths and the variants (multi-register gangs
    are still in the README's run: the corpus at those widths, test_corpus_function_verifies_bit_exact)."""
    out = []
    for isa, natural, runs in [*((n, f.natural, f.ops) for n, f in FACTS.items()), ("base", 4, BASE_OPS)]:
        for run in runs:
            name = f"{isa}-{run.variant}" if run.variant else isa
            for k in run.kinds:
                marks = () if k in run.smoke else (pytest.mark.slow,)
                if k not in run.smoke and (run.lanes != natural or run.variant):
                    marks = (pytest.mark.slow, pytest.mark.deep)
                out.append(pytest.param(isa, run, k, marks=marks, id=f"{name}-x{run.lanes}{run.opt}-{k}"))
    return out


@pytest.mark.parametrize("isa,run,k", op_cases())
def test_every_op(isa: str, run: OpRun, k: str, tmp_path: Path) -> None:
    need_compiler(isa)
    table = make_table(isa, run.lanes, run.variant)
    literals = run.literals == "all" or (run.literals == "one-register" and table.nregs(k) == 1)
    summary = run_isa_kind(table, k, tmp_path, run.opt, all_literals=literals)
    print(f"{table.name} x{run.lanes} {k} {run.opt}: {summary}")


def test_neon_float_to_int_out_of_range_matches_aarch64(tmp_path: Path) -> None:
    """C leaves float -> int undefined out of range; the vector lanes still give what GCC's scalar
    AArch64 code gives (fcvtzs/fcvtzu to a 32- or 64-bit register, saturating, NaN -> 0), so
    expanded code does not diverge even there (tests/test_kernels.py's mixed_conv relies on it)."""
    need_compiler("neon")
    isa = Neon()
    rnd = random.Random(7)
    p = Prog(isa)
    for fk in ("f32", "f64"):
        e = edges(fk)
        a = p.arr(f"X_{fk}", fk, (e + [random_bits(fk, rnd) for _ in range(N)])[:N])
        for d in KINDS:
            if not is_float(d):
                p.add(Check(f"convert {fk} -> {d} (any input)", [(fk, a)], d, isa.convert(fk, d, "a0"),
                            f"({scalar_ctype(d)})x0[i]"))
    rc, out = compile_and_run(isa, p.source(), tmp_path)
    summary = out.strip().splitlines()[-1] if out.strip() else ""
    assert rc == 0 and "FAILS 0" in summary, f"{summary}\n{explain(p, out)}"


# --------------------------------------------------------------------------------------------------
# The tables' text


@pytest.mark.parametrize("isa", list(FACTS))
def test_attributes(isa: str) -> None:
    f = FACTS[isa]
    for lanes in f.lanes:
        t = f.table(lanes)
        assert (t.name, t.lanes, t.cflags, t.headers, t.cc, t.run_prefix) == \
            (isa, lanes, f.cflags, f.headers, f.cc, f.run_prefix)
    assert f.table().lanes == f.natural == f.lanes[0]
    for bad in f.bad_lanes:
        with pytest.raises(ValueError):
            f.table(bad)
    for lanes in f.lanes:  # one table per gang size: the prelude holds the typedefs of the types asked for
        t = f.table(lanes)
        want = f.vtypes.get(lanes, {})
        assert {k: t.vtype(k) for k in want} == want, lanes
        for group in f.same_vtype.get(lanes, ()):
            assert len({t.vtype(k) for k in group}) == 1, (lanes, group)
        want = f.mtypes.get(lanes, {})
        assert {k: t.mtype(k) for k in want} == want, lanes
        if lanes in f.masks:
            assert t.mask_type() == f.masks[lanes], lanes
        want = f.nregs.get(lanes, {})
        assert {k: t.nregs(k) for k in want} == want, lanes
        for line in f.prelude.get(lanes, ()):
            assert line in t.prelude(), (lanes, line)


@pytest.mark.parametrize("isa", list(FACTS))
def test_registry(isa: str) -> None:
    f = FACTS[isa]
    assert isa in ISAS and ISAS[isa][:3] == (f.table.__module__, f.table.__name__, f.natural)
    t = get_isa(isa)
    assert type(t) is f.table and t.lanes == f.natural
    for lanes in f.lanes:
        assert get_isa(isa, lanes).lanes == lanes
    for bad in f.bad_lanes:
        with pytest.raises(ValueError):
            get_isa(isa, bad)


def test_unknown_isa_rejected() -> None:
    with pytest.raises(ValueError):
        get_isa("mmx")
    with pytest.raises(ValueError):
        get_isa("sse4.1", 6)


@pytest.mark.parametrize("isa,lanes,variant", isa_lanes(variants=True))
def test_each_argument_used_once(isa: str, lanes: int, variant: str) -> None:
    bad = []
    for desc, text, ph in all_texts(make_table(isa, lanes, variant)):
        if desc.startswith("extract") and not variant and isa in FACTS and not FACTS[isa].extract_once:
            continue
        for a in ph:
            n = len(re.findall(rf"\b{a}\b", text))
            if n != 1:
                bad.append(f"{desc}: {a} used {n} times in {text}")
    assert not bad, "\n".join(bad[:30])


@pytest.mark.parametrize("isa,lanes,variant", isa_lanes())
def test_no_forbidden_intrinsic(isa: str, lanes: int, variant: str) -> None:
    """No instruction the ISA does not have (SSE2: nothing newer than SSE2, checked against GCC's
    headers too), nothing it must not print (``text_lacks``)."""
    t = make_table(isa, lanes, variant)
    text = "\n".join(t for _, t, _ in all_texts(t)) + "\n" + t.prelude()
    assert_allowed_intrinsics(isa, text)
    for s in FACTS[isa].text_lacks:
        assert s not in text, s


@pytest.mark.parametrize("isa,lanes,variant", isa_lanes())
def test_lane_by_lane_only_where_no_instruction(isa: str, lanes: int, variant: str) -> None:
    """Every operation but the ISA's ``fallbacks`` prints without a lane-by-lane helper (``*_lanes``,
    through memory); those fall back exactly as expected."""
    f = FACTS[isa]
    t = make_table(isa, lanes, variant)
    calls = all_calls(t)
    for desc, call, _ in calls:
        if fallback_of(desc) not in f.fallbacks:
            call()
    assert not [n for n in t._needs if n.endswith("_lanes")], sorted(t._needs)
    for s in f.prelude_has:
        assert s in t.prelude(), s
    for desc, call, _ in calls:
        if fallback_of(desc) in f.fallbacks:
            call()
    assert {n for n in t._needs if n.endswith("_lanes")} == f.fallbacks


@pytest.mark.parametrize("isa,lanes", [(n, lanes) for n, f in FACTS.items() for lanes in f.native])
def test_native_where_expected(isa: str, lanes: int) -> None:
    """The common operations print as the ISA's own instructions (or C operators), as written here."""
    t = make_table(isa, lanes)
    bad = []
    for method, args, want in FACTS[isa].native[lanes]:
        got = getattr(t, method)(*args)
        if want is not None and (want not in got if isinstance(want, Contains) else got != want):
            bad.append(f"{method}{args}:\n  got  {got}\n  want {want}")
    assert not bad, "\n".join(bad)
    for s in FACTS[isa].native_prelude.get(lanes, ()):
        assert s in t.prelude(), s


def sse41_common_ops(isa: Isa) -> None:
    """The common operations of SSE4.1 (no division, a choice of conversions), as an expansion prints them."""
    for k in KINDS:
        for op in "+-*&|^":
            isa.binop(op, k, "a", "b")
        for op in CMPOPS:
            isa.cmp(op, k, "a", "b")
        isa.select(k, "m", "a", "b")
        isa.unop("-", k, "a")
        if not is_float(k):
            for op in ("<<", ">>"):
                isa.shift(op, k, "a", "n", False)
                isa.shift(op, k, "a", "n", True)
                isa.shift(op, k, "a", "2", True)
    for s, d in [("f32", "f64"), ("f64", "f32"), ("i32", "f64"), ("u32", "f32"), ("u32", "f64"), ("f32", "u32"),
                 ("f64", "i32"), ("i8", "i64"), ("u64", "u16"), ("i64", "i32"), ("u8", "i8"), ("f64", "u64")]:
        isa.convert(s, d, "a")
    for name in ("mask_and", "mask_or", "mask_xor", "mask_andnot"):
        getattr(isa, name)("a", "b")
    for name in ("mask_not", "mask_to_int", "mask_bits", "mask_any", "mask_all"):
        getattr(isa, name)("a")


@pytest.mark.parametrize("lanes", [4, 8, 16])
def test_sse41_common_ops_need_one_helper(lanes: int) -> None:
    """Of SSE4.1's common operations only f64 -> u64 goes lane by lane, and that helper is plain C
    between an unaligned store and load."""
    isa = Sse41(lanes).emission()
    sse41_common_ops(isa)
    lanes_helpers = [n for n in isa._needs if n.endswith("_lanes")]
    assert lanes_helpers == ["_exp_cvt_f64_u64_lanes"], lanes_helpers
    assert "_mm_" not in "".join(t for n, t in isa._needs.items() if n.endswith("_lanes")).replace(
        "_mm_storeu", "").replace("_mm_loadu", "")


@pytest.mark.parametrize("lanes", [4, 8])
def test_neon_per_lane_code_stays_in_registers(lanes: int) -> None:
    """No operation goes through the base class's lane-by-lane array helpers; the only per-lane code
    (64-bit integer division, 64-bit integer -> f32) stays in registers."""
    isa = Neon(lanes)
    calls = all_texts(isa)
    assert len(calls) > 400
    assert not [n for n in isa._needs if n.endswith("_lanes")], list(isa._needs)
    per_lane = sorted(n for n, t in isa._needs.items() if "vgetq_lane" in t)
    assert per_lane == ["_exp_cvt_i64_f32", "_exp_cvt_u64_f32", "_exp_div_s64x2", "_exp_div_u64x2",
                        "_exp_rem_s64x2", "_exp_rem_u64x2"], per_lane


@pytest.mark.parametrize("isa", list(FACTS))
def test_bad_requests_rejected(isa: str) -> None:
    t = get_isa(isa)
    requests = [*BAD_REQUESTS, ("extract", ("i32", "v", t.lanes)), ("extract", ("f32", "v", t.lanes))]
    for method, args in requests:
        with pytest.raises(ValueError):
            getattr(t, method)(*args)


def test_need_prelude_emission() -> None:
    isa = Isa()
    isa.need("a", "int a;")
    isa.need("b", "int b;\n")
    isa.need("a", "int a;\n")
    assert isa.prelude() == "int a;\nint b;\n"
    with pytest.raises(ValueError):
        isa.need("a", "long a;")
    fresh = isa.emission()
    assert fresh.prelude() == ""
    assert isa.prelude() == "int a;\nint b;\n"  # (an emission never changes the table a caller holds)


def test_generic_operand_parentheses() -> None:
    """Operands are parenthesized only where C's precedence needs it."""
    for e in ["x", "x0[i]", "f(a, b)", "(a + b)", "(int32_t)x", "(_Exp_v4i32)(a + b)", "(_Exp_v4i32){0}",
              "-x", "*(const float *)p", "0x1p-23f", "1e-5"]:
        assert _p(e) == e, e
    for e in ["a + b", "(a) + (b)", "(a)-1", "(T)x", "--x", "a ? b : c", "x[1] * 2", "'('"]:
        assert _p(e) == f"({e})", e


def test_altivec_prints_no_bare_keywords() -> None:
    """<altivec.h> makes vector, pixel and bool macros: the prelude always starts by giving them back
    (also in a new emission), and everything the table prints spells __vector / __bool."""
    for t in (Altivec(), Altivec(8)):
        assert t.emission().prelude().splitlines()[1:4] == ["#undef vector", "#undef pixel", "#undef bool"]
        text = "".join(c[1] for c in all_texts(t)) + t.prelude().replace(KEYWORDS, "")
        assert not re.search(r"\b(vector|bool|pixel)\b", text)


KEYWORDS_C = """\
#include <stdbool.h>

float kern(float x, int n)
{
    float vector = x * 2.0f;
    int pixel = n & 7;
    bool neg = x < 0.0f;
    if (neg)
        vector = -vector;
    return vector + (float)pixel;
}
"""


def test_altivec_keywords_stay_usable(tmp_path: Path) -> None:
    """<altivec.h> makes vector, pixel and bool macros; the prelude undoes that (bool -> _Bool again)."""
    need_compiler("altivec")
    src = tmp_path / "kw.c"
    src.write_text(KEYWORDS_C)
    isa = Altivec()
    res = expand_module(read_file(str(src), KEYWORDS_C, []), isa, functions=["kern"])
    assert re.search(r"__vector float vector;", res.text)
    (e,) = res.functions
    rep = verify(scalar_sources=[src], scalar_name=e.scalar_name, vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type) for p in e.params], ret=e.ret, isa=isa, constants=e.constants,
                 n_random=2000)
    assert_verified(rep)
    # bool from <stdbool.h> (included before <altivec.h>) is _Bool again after the prelude
    c = tmp_path / "b.c"
    c.write_text("#include <stdbool.h>\n#include <altivec.h>\n" + isa.prelude()
                 + "bool f(int vector, int pixel) { bool b = vector > pixel; return b && true; }\n"
                 + "_Static_assert(sizeof(bool) == 1, \"bool is _Bool\");\n")
    r = subprocess.run([*isa.cc, *CFLAGS, *isa.cflags, "-c", str(c), "-o", str(tmp_path / "b.o")],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


# --------------------------------------------------------------------------------------------------
# End to end: corpus functions expanded for each ISA verify bit-exact


def test_corpus_available() -> None:
    assert CORPUS, f"the scalar corpus is unavailable: {CORPUS_ERROR}"
    assert len(CORPUS) == 14


def corpus_cases() -> list:
    out = []
    for isa, f in FACTS.items():
        for run in f.corpus:
            for name in sorted(CORPUS) if run.names is None else run.names:
                marks = () if name in run.smoke else (pytest.mark.slow,)
                out.append(pytest.param(isa, run.lanes, name, run.n_random, marks=marks,
                                        id=f"{isa}-x{run.lanes}-{name}"))
    return out


@pytest.mark.parametrize("isa,lanes,name,n_random", corpus_cases())
def test_corpus_function_verifies_bit_exact(isa: str, lanes: int, name: str, n_random: int) -> None:
    need_compiler(isa)
    f, facts = CORPUS[name], FACTS[isa]
    table = make_table(isa, lanes)
    mod = read_file(str(f.source), f.source.read_text(), [str(d) for d in f.include_dirs])
    res = expand_module(mod, table, functions=[f.func])
    (e,) = res.functions
    text = res.text
    assert f"for {isa} ({lanes} lanes)" in text
    for s in facts.output_has:
        assert s.format(bytes=4 * lanes) in text, s
    for s in facts.output_lacks:
        assert s not in text, s
    assert_allowed_intrinsics(isa, text)
    rep = verify(scalar_sources=[f.source], scalar_name=e.scalar_name, vector_c=text,
                 vector_name=e.vector_name, params=[Param(p.name, p.type) for p in e.params], ret=e.ret,
                 isa=table, include_dirs=f.include_dirs, link_files=f.link, libs=tuple(f.libs) or ("m",),
                 constants=e.constants, n_random=n_random)
    print(rep.summary)
    assert_verified(rep)
    assert rep.mismatches == 0
    assert rep.random_inputs >= n_random
    assert rep.edge_inputs > 0
    assert f"[{isa}, {lanes} lanes]" in rep.summary


@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n == "doubles" else (pytest.mark.slow,))
                                  for n in sorted(KERNELS)])
def test_kernel_verifies_on_neon(tmp_path: Path, name: str) -> None:
    need_compiler("neon")
    src = tmp_path / f"{name}.c"
    src.write_text(KERNELS[name] + "\n")
    isa = Neon()
    res = expand_module(read_file(str(src), src.read_text()), isa, functions=["f"])
    (e,) = res.functions
    rep = verify(scalar_sources=[src], scalar_name=e.scalar_name, vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type) for p in e.params], ret=e.ret, isa=isa,
                 constants=e.constants, n_random=5_000)
    assert_verified(rep, res.text)
