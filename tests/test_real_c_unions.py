"""Local unions and structs held as their bits (expand/passes/records.py), compound literals and designated
initializers (frontends/initializers.py), as glibc's dbl-64 and math_config.h use them: each case on
every ISA compiles with -Wall -Wextra -Werror and verifies bit for bit against the scalar source;
through libclang too; and what stays unsupported is a located diagnostic."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from daily import on_every_isa
from expand_case import check_source, expand_source

from expand.cli import main as expand_main
from expand.driver import select_functions
from frontends.clang_frontend import read_file_any

#: glibc 2.36's sysdeps/generic/math_private.h, little-endian half, as glibc writes it
GLIBC = r"""
#include <stdint.h>

typedef union
{
  double value;
  struct
  {
    uint32_t lsw;
    uint32_t msw;
  } parts;
  uint64_t word;
} ieee_double_shape_type;

#define EXTRACT_WORDS(ix0,ix1,d)				\
do {								\
  ieee_double_shape_type ew_u;					\
  ew_u.value = (d);						\
  (ix0) = ew_u.parts.msw;					\
  (ix1) = ew_u.parts.lsw;					\
} while (0)

# define GET_HIGH_WORD(i,d)					\
do {								\
  ieee_double_shape_type gh_u;					\
  gh_u.value = (d);						\
  (i) = gh_u.parts.msw;						\
} while (0)

# define GET_LOW_WORD(i,d)					\
do {								\
  ieee_double_shape_type gl_u;					\
  gl_u.value = (d);						\
  (i) = gl_u.parts.lsw;						\
} while (0)

# define EXTRACT_WORDS64(i,d)					\
do {								\
  ieee_double_shape_type gh_u;					\
  gh_u.value = (d);						\
  (i) = gh_u.word;						\
} while (0)

# define INSERT_WORDS(d,ix0,ix1)				\
do {								\
  ieee_double_shape_type iw_u;					\
  iw_u.parts.msw = (ix0);					\
  iw_u.parts.lsw = (ix1);					\
  (d) = iw_u.value;						\
} while (0)

# define INSERT_WORDS64(d,i)					\
do {								\
  ieee_double_shape_type iw_u;					\
  iw_u.word = (i);						\
  (d) = iw_u.value;						\
} while (0)

#define SET_HIGH_WORD(d,v)					\
do {								\
  ieee_double_shape_type sh_u;					\
  sh_u.value = (d);						\
  sh_u.parts.msw = (v);						\
  (d) = sh_u.value;						\
} while (0)

# define SET_LOW_WORD(d,v)					\
do {								\
  ieee_double_shape_type sl_u;					\
  sl_u.value = (d);						\
  sl_u.parts.lsw = (v);						\
  (d) = sl_u.value;						\
} while (0)
"""


class Case:
    """A source, with what check_source needs beyond it."""

    def __init__(self, text: str, uniform: tuple[str, ...] = (), bounds: dict[str, tuple[int, int]] | None = None,
                 glibc: bool = True, pycparser: bool = True) -> None:
        self.text = (GLIBC if glibc else "#include <stdint.h>\n") + text
        self.uniform, self.bounds = list(uniform), bounds or {}
        self.pycparser = pycparser  # False: pycparser 3.11 cannot parse it (the auto frontend takes libclang)


CASES: dict[str, Case] = {
    # newlib's s_infinity.c: INSERT_WORDS of two constants, then the value (a MemoryError: the constant
    # folding of the words' masks evaluated a shift by a mask's value whatever the operation)
    "insert_constant_words": Case("""
double f(double y)
{
  double x;
  INSERT_WORDS (x, 0x7ff00000, 0);
  if (y > 1.0)
    INSERT_WORDS (x, 0x3ff00000, 0x1);
  return x + y;
}
"""),
    # glibc's floor (dbl-64 s_floor.c's generic C path), under masks throughout
    "floor_words": Case("""
double f(double x)
{
  int32_t i0, i1, j0;
  uint32_t i, j;
  EXTRACT_WORDS (i0, i1, x);
  j0 = ((i0 >> 20) & 0x7ff) - 0x3ff;
  if (j0 < 20) {
      if (j0 < 0) {
          if (i0 >= 0) { i0 = i1 = 0; }
          else if (((i0 & 0x7fffffff) | i1) != 0) { i0 = 0xbff00000; i1 = 0; }
      } else {
          i = (0x000fffff) >> j0;
          if (((i0 & i) | i1) == 0) return x;
          if (i0 < 0) i0 += (0x00100000) >> j0;
          i0 &= (~i); i1 = 0;
      }
  } else if (j0 > 51) {
      if (j0 == 0x400) return x + x;
      else return x;
  } else {
      i = ((uint32_t) (0xffffffff)) >> (j0 - 20);
      if ((i1 & i) == 0) return x;
      if (i0 < 0) {
          if (j0 == 20) i0 += 1;
          else {
              j = i1 + (1 << (52 - j0));
              if (j < (uint32_t) i1) i0 += 1;
              i1 = j;
          }
      }
      i1 &= (~i);
  }
  INSERT_WORDS (x, i0, i1);
  return x;
}
"""),
    # GET/SET_HIGH_WORD and GET/SET_LOW_WORD under a varying condition, and the word of a double
    "high_low_words": Case("""
double f(double x, double y)
{
  int32_t hx, hy;
  uint32_t lx;
  GET_HIGH_WORD (hx, x);
  GET_LOW_WORD (lx, x);
  GET_HIGH_WORD (hy, y);
  if (hx < hy) {
      SET_HIGH_WORD (x, (hx & 0x800fffff) | 0x3fe00000);
      if (lx & 1)
          SET_LOW_WORD (x, lx ^ 0x55555555);
  } else {
      SET_LOW_WORD (y, lx);
      x = y * 0.5;
  }
  return x;
}
"""),
    # EXTRACT_WORDS64 / INSERT_WORDS64 in a loop whose trip count differs per lane
    "words64_loop": Case("""
double f(double x, int n)
{
  uint64_t w;
  int k;
  for (k = 0; k < (n & 7); k++) {
      EXTRACT_WORDS64 (w, x);
      if ((w >> 63) == 0)
          w = w + 0x10000000000000ULL;
      else
          w ^= 0x8000000000000001ULL;
      INSERT_WORDS64 (x, w);
  }
  return x;
}
""", bounds={"n": (0, 40)}),
    # the whole value, then one half, then the whole (the earlier write's other half survives)
    "partial_then_whole": Case("""
double f(double x, int32_t v)
{
  ieee_double_shape_type u;
  u.value = x;
  if (v > 0)
    u.parts.lsw = (uint32_t) v;
  else if (v < -5)
    u.parts.msw = (uint32_t) v ^ 0x40000000u;
  return u.value + (double) u.parts.msw;
}
"""),
    # math_config.h's helpers (a local union with an initializer) and the compound-literal idiom
    "asuint_family": Case("""
static inline uint32_t asuint (float f)
{
  union { float f; uint32_t i; } u = {f};
  return u.i;
}
static inline double asdouble (uint64_t i)
{
  union { uint64_t i; double f; } u = {i};
  return u.f;
}
#define asfloat_cl(i) ((union{uint32_t _i; float _f;}){i})._f
#define asuint64_cl(x) ((union{double f; uint64_t i;}){x}).i

double f(float x, double y)
{
  uint32_t ix = asuint (x);
  uint64_t iy = asuint64_cl (y);
  float back = asfloat_cl (ix & 0x7fffffffu);
  if ((iy >> 52 & 0x7ff) > 0x3ff)
    iy -= 1;
  return asdouble (iy) + (double) back;
}
""", glibc=False),
    # designated initializers: a nested member, an array member's element, a union member other than
    # the first, a local array with [i] and a GNU range, brace elision, and a designated compound literal
    "designated": Case("""
struct pt { int32_t a; struct { float x, y; } b; int16_t c[3]; };
union bits { uint32_t i; float f; uint8_t b[4]; };

float f(float x, int32_t k)
{
  struct pt p = { .b.y = x, .c[2] = (int16_t) k, .a = 3 };
  struct pt q = { 1, 2.0f, 3.0f, 4, 5 };
  union bits u = { .f = x * 2.0f };
  int32_t arr[6] = { [2] = k, [4 ... 5] = 7, [0] = 1 };
  float d = ((union bits){ .i = (uint32_t) k | 0x3f800000u }).f;
  return p.b.y + (float) p.c[2] + (float) p.a + q.b.x * (float) q.c[1] + (float) u.b[3] + (float) arr[2]
         + (float) arr[5] + (float) arr[0] + d + (float) arr[1];
}
""", glibc=False),
    # structs nested in unions, an array member under a varying index (read and write), bytes and
    # halves, a whole-struct copy, and a struct member copied into another union
    "nested_and_indexed": Case("""
struct inner { uint16_t h[2]; uint8_t c; int8_t s; };
union outer { double d; struct { uint32_t lo, hi; } w; uint32_t a[2]; struct inner in; };
struct pair { union outer u; int32_t tag; };

double f(double x, int32_t i)
{
  union outer o, p;
  struct pair pr;
  o.d = x;
  o.a[i & 1] ^= 0x00100000u;
  p = o;
  p.in.c = (uint8_t) (p.in.s + 1);
  pr.u = p;
  pr.tag = i;
  if (i > 3)
    pr.u.w.hi = o.a[(i >> 1) & 1];
  return pr.u.d + (double) (pr.u.in.h[1] + pr.tag) + (double) o.in.s;
}
"""),
    # bytes, halves and floats of a double under varying indexes, read and written
    "byte_and_half_indexes": Case("""
union bits { double d; uint8_t b[8]; int16_t h[4]; float f[2]; };
double f(double x, int i, int j)
{
  union bits u;
  u.d = x;
  u.b[i & 7] = (uint8_t) (u.b[(i >> 3) & 7] + 1);
  u.h[j & 3] ^= (int16_t) u.b[j & 7];
  u.f[(j >> 2) & 1] = u.f[0] * 0.5f;
  return u.d + (double) u.h[(i >> 4) & 3] + (double) u.b[(j >> 4) & 7];
}
""", glibc=False),
    # a union declared inside a loop body, written in part, and a struct with a _Bool member
    "loop_body_union": Case("""
struct flags { _Bool neg; uint8_t e; int16_t m; };
float f(float x, int n)
{
  float s = 0.0f;
  for (int k = 0; k < (n & 3) + 1; k++) {
      union { float f; struct flags g; uint32_t i; } u;
      u.f = x + (float) k;
      u.g.neg = k & 1;
      s += (float) (u.i & 0xffff01u) + (float) u.g.e;  /* (no NaN meets another: IEEE leaves its payload open) */
  }
  return s;
}
""", glibc=False, bounds={"n": (0, 20)}),
    # static const tables of unions (dbl-64's mynumber), read with a varying index and by name, and
    # file-scope designated initializers
    "global_union_tables": Case("""
typedef union { int32_t i[2]; double x; } mynumber;
static const mynumber tbl[4] = { {{0, 0x3ff00000}}, {{0, 0x40000000}}, {{0x55555555, 0x3fd55555}}, {{0, 0xbff00000}} };
static const mynumber two = { .x = 2.0 };
union dbl { uint64_t i; double d; };
static const union dbl three = { .d = 3.0 };
static const int32_t sparse[] = { [1] = 3, [4] = 5 };

double f(double x, int32_t k)
{
  return x * tbl[k & 3].x + two.x + three.d + (double) tbl[(k >> 2) & 3].i[1] + (double) sparse[k & 3];
}
""", glibc=False),
    # three inputs of the diagnostic corpus (tests/diagnostics/) that were refused before: a local
    # struct, a compound literal of a struct (only libclang parses a member of an unparenthesized
    # one), a file-scope table with a designated initializer
    "corpus_struct_local": Case("struct s {\n    int a;\n};\n\nint f(int x)\n{\n    struct s v;\n    v.a = x;\n"
                                "    return v.a;\n}\n", glibc=False),
    "corpus_compound_literal": Case("struct s {\n    int a;\n};\n\nint f(int x)\n{\n    return (struct s){x}.a;\n}\n",
                                    glibc=False, pycparser=False),
    "corpus_designated_initializer": Case("static const int t[2] = {[1] = 3};\n\nint f(int x)\n{\n"
                                          "    return t[x & 1] + x;\n}\n", glibc=False),
}


@pytest.mark.parametrize("name,isa_name", on_every_isa(CASES))
def test_union_compiles_strictly_and_verifies(tmp_path: Path, name: str, isa_name: str) -> None:
    c = CASES[name]
    check_source(tmp_path, name, c.text, isa_name, uniform=c.uniform, bounds=c.bounds)


@pytest.mark.parametrize("name", list(CASES))
def test_union_through_libclang(tmp_path: Path, name: str) -> None:
    c = CASES[name]
    check_source(tmp_path, name, c.text, "avx2", uniform=c.uniform, bounds=c.bounds, frontend="clang")


def test_both_frontends_read_the_same(tmp_path: Path) -> None:
    """The two frontends give the same IR for every case (expand/check/crosscheck.py's dump)."""
    from expand.check.crosscheck import dump_function
    for name, c in CASES.items():
        if not c.pycparser:
            continue
        src = tmp_path / f"{name}.c"
        src.write_text(c.text)
        a = read_file_any(str(src), c.text, frontend="pycparser")
        b = read_file_any(str(src), c.text, frontend="clang")
        for fn in ("f",):
            assert dump_function(a.functions[fn]) == dump_function(b.functions[fn]), name


# ------------------------------------------------------------------ what the output looks like


def _body(text: str, name: str) -> str:
    return text[text.index(f"{name}("):]


def test_extract_words_is_shifts_of_one_word(tmp_path: Path) -> None:
    """EXTRACT_WORDS is the double's bits and a shift, INSERT_WORDS a shift and an or: no memory."""
    _, _, res = expand_source(tmp_path, "w", CASES["floor_words"].text, "avx2")
    body = _body(res.text, "_Exp_f")
    assert "_exp_bitcast_f64_u64(x)" in body and "_exp_shru_u64_by32(ew_u)" in body, body
    assert "_exp_shlu_u64_by32(" in body and "iw_u = _exp_zero" not in body, body
    assert "[" not in body.split("{", 1)[1].replace("_Exp_", ""), body  # no array, no memory


def test_asuint_compound_literal_is_a_bitcast(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "a", CASES["asuint_family"].text, "sse4.1")
    body = _body(res.text, "_Exp_f")
    assert "_mm_castps_si128(x)" in body, body


# ------------------------------------------------------------------ what stays a diagnostic

REFUSED = {
    "address_of_member": ("#include <stdint.h>\nextern void g(uint32_t *);\n"
                          "union u { double d; uint32_t w[2]; };\n"
                          "double f(double x)\n{\n    union u v;\n    v.d = x;\n    g(&v.w[1]);\n    return v.d;\n}\n",
                          r"8:5: error: the address of a local struct or union"),
    "pointer_member": ("struct s { int a; int *p; };\nint f(int x)\n{\n    struct s v;\n    v.a = x;\n"
                       "    return v.a;\n}\n",
                       r"4:14: error: local struct 'v' cannot be vectorized: its member 'p' has type 'int \*'"),
    # (unions: a struct is split into its members, whatever its layout: test_structs.py)
    "packed": ("union __attribute__((packed)) s { char c[3]; int a; };\nint f(int x)\n{\n    union s v;\n"
               "    v.a = x;\n    return v.a;\n}\n",
               r"4:13: error: local union 'v' cannot be vectorized: .*(attribute|layout|alignment)"),
    "trailing_packed": ("typedef union { char c[2]; double a; } __attribute__((packed)) P;\n"
                        "double f(double x)\n{\n    P v;\n    v.a = x;\n    return v.a;\n}\n",
                        r"4:7: error: local union 'v' cannot be vectorized: .*(attribute|layout|alignment)"),
    # (a struct copied from memory is one copy per member: tests/test_structs.py; a union's bytes are not)
    "copy_from_memory": ("union s { int a; short b[2]; };\nextern const union s g;\nint f(int x)\n{\n"
                         "    union s v = g;\n    return v.a + x;\n}\n",
                         r"5:\d+: error: copying a struct or union from memory"),
    "union_as_argument": ("union u { float f; int i; short s[2]; };\nextern int h(union u);\nint f(float x)\n{\n"
                          "    union u v;\n    v.f = x;\n    return h(v);\n}\n",
                          r"7:\d+: error: a local struct or union is used here as a value"),
    "array_compound_literal": ("int f(int x)\n{\n    return ((int[2]){x, x + 1})[x & 1];\n}\n",
                               r"3:\d+: error: compound literals of array type are not supported"),
    "excess_initializer": ("struct s { int a; int b; };\nint f(int x)\n{\n    struct s v = {x, x, x};\n"
                           "    return v.a;\n}\n",
                           r"4:\d+: error: excess elements in the initializer"),
    "no_such_member": ("struct s { int a; int b; };\nint f(int x)\n{\n    struct s v = {.c = x};\n"
                       "    return v.a;\n}\n",
                       r"4:\d+: error: no member named 'c'"),
}


@pytest.mark.parametrize("frontend", ["pycparser", "clang"])
@pytest.mark.parametrize("name", list(REFUSED))
def test_refused_with_a_located_diagnostic(tmp_path: Path, name: str, frontend: str, capsys) -> None:
    text, want = REFUSED[name]
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    out = tmp_path / "out.c"
    rc = expand_main([str(src), "--isa", "sse4.1", "--frontend", frontend, "-o", str(out)])
    err = capsys.readouterr().err
    if frontend == "clang" and name in ("excess_initializer", "no_such_member"):
        want = r"\d+:\d+: error: "  # (libclang reports these C errors itself, in its words)
    elif frontend == "clang":
        want = re.sub(r"^(\d+):\d+", r"\1:\\d+", want)  # (clang's column of a declaration is its declarator's)
    assert rc == 1 and re.search(rf"^{re.escape(str(src))}:{want}", err, re.M), err
    assert "Traceback" not in err and not out.exists()
    assert src.read_text() == text


@pytest.mark.parametrize("frontend", ["pycparser", "clang"])
def test_big_endian_target_is_refused(tmp_path: Path, frontend: str) -> None:
    """Words are little-endian: a compiler whose __BYTE_ORDER__ says big-endian gets a diagnostic."""
    from expand.ir.diagnostics import ExpandError
    text = GLIBC + "double f(double x)\n{\n  int32_t h;\n  GET_HIGH_WORD (h, x);\n  return h;\n}\n"
    src = tmp_path / "be.c"
    src.write_text(text)
    cc = ["gcc", "-U__BYTE_ORDER__", "-D__BYTE_ORDER__=__ORDER_BIG_ENDIAN__"]
    with pytest.raises(ExpandError) as exc:
        select_functions(read_file_any(str(src), text, frontend=frontend, cc=cc), None)  # (expanding f stops)
    assert "big-endian" in exc.value.message and exc.value.coord is not None
