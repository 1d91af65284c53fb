"""glibc idioms of dbl-64 and flt-32 that expand reads since session 27, each on every ISA: compiled with
-Wall -Wextra -Werror and verified bit for bit against the scalar source (the run skipped where the
host lacks the ISA); and the refusals that keep exit 0 meaning correct code.

- the floating-point environment (frontends/fenv.py): saving, restoring and round-to-nearest
  requests dropped, anything else a diagnostic, any other ``cleanup`` attribute too (both frontends);
- a variable whose address a call fills, then changed under a condition (e_gamma_r's
  ``__frexp (x_adj, &x_adj_log2); if (...) x_adj_log2--;``: the decrement once reached every lane);
- double to int conversions on AltiVec with a NaN in the register (qemu's xvcvdpsxws);
- a pointer set to one of several tables (e_j0's ``p = pR8; ... p = pR5;``);
- ``#include`` inside a function body (s_tan.c's ``utan.h``), a global of an anonymous union type
  (s_sin.c's ``__sincostab``), ``_FloatN`` types, ``__builtin_unreachable``, type-generic macros
  that name ``_Float128``;
- what no expanded function reaches (a header's static inline helpers on structs returned by value,
  ``long double``, ``_Complex``; a refused function of the file itself): never read, both frontends;
- a statement expression as an operand (glibc's ``math_opt_barrier (x) + y``), and round-to-odd's
  FE_TOWARDZERO named first;
- evaluations only for FP exceptions (``math_force_eval``, ``math_check_force_underflow``, musl's
  ``FORCE_EVAL``) dropped, ``long double`` arithmetic a diagnostic, ``long double`` constants folded
  as each target rounds them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from daily import isas_once_daily
from expand_case import check_source, expand_source

from emit import ISAS
from expand.cli import main as expand_main
from expand.ir.diagnostics import ExpandError
from frontends.clang_frontend import available as clang_available

ALL = list(ISAS)

#: glibc's SET_RESTORE_ROUND and libc_feholdexcept_setround / libc_fesetenv, as fenv_private.h spells
#: them (the helpers' bodies are glibc's business: expand never reads them)
FENV = r"""
#include <fenv.h>
struct rm_ctx { fenv_t env; _Bool updated_status; };
static inline void libc_feholdsetround_sse_ctx (struct rm_ctx *ctx, int r)
{ fegetenv (&ctx->env); ctx->updated_status = fesetround (r) == 0; }
static inline void libc_feresetround_sse_ctx (struct rm_ctx *ctx)
{ if (ctx->updated_status) fesetenv (&ctx->env); }
static inline void libc_feholdexcept_setround_sse (fenv_t *e, int r) { feholdexcept (e); fesetround (r); }
static inline void libc_fesetenv_sse (fenv_t *e) { fesetenv (e); }
#define SET_RESTORE_ROUND(RM) \
  struct rm_ctx ctx __attribute__ ((cleanup (libc_feresetround_sse_ctx))); \
  libc_feholdsetround_sse_ctx (&ctx, (RM))

double f (double x)
{
  fenv_t env;
  libc_feholdexcept_setround_sse (&env, FE_TONEAREST);
  double y = x * 3.0 + 1.0;
  if (y > 2.0)
    {
      SET_RESTORE_ROUND (FE_TONEAREST);
      y = y * y - 0.5;
    }
  feraiseexcept (y > 100.0 ? FE_INEXACT : FE_INVALID);
  libc_fesetenv_sse (&env);
  return y;
}
"""


@pytest.mark.parametrize("isa", isas_once_daily("test_fenv_save_restore_and_round_to_nearest", ALL))
def test_fenv_save_restore_and_round_to_nearest(tmp_path: Path, isa: str) -> None:
    check_source(tmp_path, "fenv", FENV, isa)
    _, _, res = expand_source(tmp_path, "fenv", FENV, isa)
    assert "Assumes (f): the floating-point environment" in res.text
    assert "fenv_t env" not in res.text and "libc_fe" not in res.text.split("*/", 1)[1]


@pytest.mark.parametrize("body, message", [
    ("libc_feholdexcept_setround_sse (&env, FE_TOWARDZERO); double y = x + 1.0; libc_fesetenv_sse (&env);",
     "sets the rounding mode FE_TOWARDZERO, not FE_TONEAREST"),
    ("double y = x + 1.0; if (fetestexcept (FE_INEXACT)) y = 0;", "'fetestexcept' reads the floating-point"),
    ("fetestexcept (FE_INEXACT); double y = x;", "reads the floating-point environment"),
    ("fesetround (FE_TONEAREST); double y = x;", "changes the caller's floating-point environment"),
    ("double y = x; libc_fesetenv_sse (FE_DFL_ENV);", "this argument of 'libc_fesetenv_sse' is not supported"),
    ("fenv_t env; double y = x + (&env != 0);", "holds a floating-point environment"),
])
def test_fenv_refusals(tmp_path: Path, body: str, message: str) -> None:
    text = FENV.split("double f (double x)")[0] + f"double f (double x) {{ {body} return y; }}\n"
    if "fenv_t env;" not in body and "&env" in body:
        text = text.replace("double f (double x) {", "double f (double x) { fenv_t env;")
    with pytest.raises(ExpandError, match=".*") as info:
        expand_source(tmp_path, "refuse", text, "sse4.1", frontend="pycparser")
    assert message in str(info.value)


@pytest.mark.parametrize("frontend", ["pycparser", "clang", "auto"])
def test_other_cleanup_attributes_are_refused(tmp_path: Path, frontend: str) -> None:
    if frontend != "pycparser" and not clang_available():
        pytest.skip("libclang is not installed")
    text = "void g (int *p);\nint f (int x)\n{\n  int y __attribute__ ((cleanup (g))) = x;\n  return y + 1;\n}\n"
    with pytest.raises(ExpandError) as info:
        expand_source(tmp_path, "cleanup", text, "sse4.1", frontend=frontend)
    assert "'__attribute__ ((cleanup))' on 'y' is not supported" in str(info.value)
    assert info.value.coord.line == 4


def test_clang_frontend_refuses_fenv_calls(tmp_path: Path) -> None:
    if not clang_available():
        pytest.skip("libclang is not installed")
    text = "#include <fenv.h>\nint f (int x)\n{\n  if (fetestexcept (FE_INEXACT)) x++;\n  return x;\n}\n"
    with pytest.raises(ExpandError) as info:
        expand_source(tmp_path, "fenvclang", text, "sse4.1", frontend="clang")
    assert "the floating-point environment" in str(info.value)


#: e_gamma_r.c's gamma_positive, cut down: an out-parameter filled per lane by an external call, then
#: changed under a condition that differs per lane
FREXP = r"""
double __frexp (double, int *);
static double pos (double x, int *adj)
{
  if (x < 0.5) { *adj = 0; return x; }
  double xa = x + 4.0;
  int lg;
  double m = __frexp (xa, &lg);
  if (m < 0.7071067811865476) { lg--; m *= 2.0; }
  *adj = lg * (int) xa;
  return m;
}
double f (double x)
{
  int adj;
  double t = pos (x > 0 ? x : -x, &adj);
  return t * adj;
}
"""
FREXP_COMPANION = "#include <math.h>\ndouble __frexp (double x, int *e) { return frexp (x, e); }\n"


@pytest.mark.parametrize("isa", isas_once_daily("test_address_filled_variable_changed_under_a_condition", ALL))
def test_address_filled_variable_changed_under_a_condition(tmp_path: Path, isa: str) -> None:
    check_source(tmp_path, "frexp", FREXP, isa, companion=FREXP_COMPANION, bounds={})


@pytest.mark.parametrize("isa", isas_once_daily("test_double_to_int_next_to_nan", ALL))
def test_double_to_int_next_to_nan(tmp_path: Path, isa: str) -> None:
    text = "int f (double b) { return b == b && b > -1e9 && b < 1e9 ? (int) b : -1; }\n" \
           "unsigned g (double b) { return b == b && b > -1 && b < 4e9 ? (unsigned) b : 7u; }\n"
    check_source(tmp_path, "d2i", text, isa, n_random=20000)


TABLES = r"""
static const double A[6] = {1, 2, 3, 4, 5, 6};
static const double B[6] = {-1, 0.5, 0.25, 7, 8, 9};
static const double C[4] = {10, 20, 30, 40};
double f (double x, int k)
{
  const double *p, *q;
  if (x > 3) { p = A; q = &B[1]; }
  else if (x > 0) { p = B; q = &A[2]; }
  else { p = C; q = C; }
  double r = p[0] + x * p[1];
  return r + p[3] * x * x + q[k & 1] + *q;
}
"""


@pytest.mark.parametrize("isa", isas_once_daily("test_pointer_to_one_of_several_tables", ALL))
def test_pointer_to_one_of_several_tables(tmp_path: Path, isa: str) -> None:
    check_source(tmp_path, "tables", TABLES, isa)


def test_pointer_to_tables_stored_through_is_refused(tmp_path: Path) -> None:
    text = "static double A[2], B[2];\nvoid f (double x)\n{\n  double *p;\n  if (x > 0) p = A; else p = B;\n" \
           "  p[0] = x;\n}\n"
    with pytest.raises(ExpandError):
        expand_source(tmp_path, "store", text, "sse4.1")


@pytest.mark.parametrize("isa", ["sse2", "avx2", "neon", "altivec"])
def test_include_inside_a_function_and_anonymous_union_global(tmp_path: Path, isa: str) -> None:
    (tmp_path / "consts.h").write_text("static const union { double d; unsigned long long u; } "
                                       "g1 = {.u = 0x3ff8000000000000ull};\n")
    (tmp_path / "tab.c").write_text("const union { int i[4]; double x[2]; } tab = {.x = {0.25, 8.0}};\n")
    text = "extern const union { int i[4]; double x[2]; } tab;\n" \
           "double f (double x)\n{\n#include \"consts.h\"\n  return x > 1 ? x * g1.d : x + tab.x[1];\n}\n"
    check_source(tmp_path, "incl", text, isa, companion=(tmp_path / "tab.c").read_text())
    _, _, res = expand_source(tmp_path, "incl", text, isa)
    assert '#include "consts.h"' not in res.text


@pytest.mark.parametrize("isa", ["sse4.1", "neon", "altivec"])
def test_floatn_types_and_builtin_unreachable(tmp_path: Path, isa: str) -> None:
    text = "#include <math.h>\n_Float32 f (_Float32 x, int n)\n{\n  _Float64 t;\n  switch (n & 3)\n    {\n" \
           "    case 0: t = x + 1; break;\n    case 1: t = x - 3; break;\n    case 2: t = x * 2; break;\n" \
           "    case 3: t = fabs (x) + 1; break;\n    default: __builtin_unreachable ();\n    }\n" \
           "  return t * 0.5;\n}\n"
    check_source(tmp_path, "floatn", text, isa)


def test_generic_with_float_and_float32_is_refused(tmp_path: Path) -> None:
    text = "int f (float x) { return _Generic (x, float: 1, _Float32: 2, default: 3); }\n"
    with pytest.raises(ExpandError) as info:
        expand_source(tmp_path, "gen", text, "sse4.1", frontend="pycparser")
    assert "two different associations" in str(info.value)


@pytest.mark.parametrize("isa", ["sse4.1", "avx2", "neon"])
def test_type_generic_macro_naming_float128(tmp_path: Path, isa: str) -> None:
    """glibc's fabs_tg and math_check_force_underflow: _Generic arms and __builtin_types_compatible_p
    name long double and _Float128, which expand reads as a type it refuses; the double arm is chosen."""
    text = "#define TG(x) _Generic ((x), float: __builtin_fabsf (x), default: __builtin_fabs (x), " \
           "long double: __builtin_fabsl (x), _Float128: __builtin_fabsf128 (x))\n" \
           "double f (double x)\n{\n  double y = TG (x);\n" \
           "  if (__builtin_types_compatible_p (__typeof (y), long double)) return 0;\n" \
           "  if (__builtin_types_compatible_p (__typeof (y), double)) return y + 1;\n  return y;\n}\n"
    check_source(tmp_path, "tg", text, isa, frontend="pycparser")


def test_cli_reports_the_fenv_assumption_and_exit_zero(tmp_path: Path, capsys) -> None:
    src = tmp_path / "fenv.c"
    src.write_text(FENV)
    out = tmp_path / "fenv_out.c"
    assert expand_main([str(src), "--isa", "sse2", "-o", str(out)]) == 0
    head = " ".join(out.read_text().split("*/", 1)[0].split())
    assert "round-to-nearest" in head and "exception flags" in head


SHARED_OK = r"""
int log_[64];
#pragma omp declare simd uniform(c)
void f (float x, int i, int *c)
{
  *c = 5;
  log_[i & 63] = (int) x;
}
"""


@pytest.mark.parametrize("isa", isas_once_daily("test_shared_stores_that_keep_lane_order_expand", ALL))
def test_shared_stores_that_keep_lane_order_expand(tmp_path: Path, isa: str) -> None:
    """A lane-invariant store and one scatter (its lanes' stores go out in lane order) to memory every
    lane shares: expanded and compiled strictly (verify compares no global arrays; the refusals are in
    tests/diagnostics/shared_store_*.c)."""
    _, isa_obj, res = expand_source(tmp_path, "shared", SHARED_OK, isa)
    out = tmp_path / "shared_out.c"
    out.write_text(res.text)
    import subprocess

    from expand_case import STRICT
    p = subprocess.run([*isa_obj.cc, *STRICT, *isa_obj.cflags, "-c", str(out), "-o", str(tmp_path / "s.o")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr + res.text


SWAP = r"""
void f (double x, double *sinx, double *cosx)
{
  double a = x * 0.5;
  int n = (int) (x * 4.0);
  if (n & 1)
    {
      double *temp = cosx;
      cosx = sinx;
      sinx = temp;
    }
  *sinx = a + 1.0;
  double xx = a - 1.0;
  *cosx = (n & 2) ? -xx : xx;
}
"""


@pytest.mark.parametrize("isa", isas_once_daily("test_pointer_parameters_swapped_per_lane", ALL))
def test_pointer_parameters_swapped_per_lane(tmp_path: Path, isa: str) -> None:
    """glibc's dbl-64 sincos: the out-parameters themselves are swapped under a varying condition."""
    check_source(tmp_path, "swap", SWAP, isa)


def test_range_on_a_float_parameter_is_a_usage_error(tmp_path: Path, capsys) -> None:
    src = tmp_path / "swap.c"
    src.write_text(SWAP)
    assert expand_main([str(src), "--isa", "sse2", "--verify", "--range", "x=0:9", "-o", str(tmp_path / "o.c")]) == 2
    err = capsys.readouterr().err
    assert "argument --range: f: 'x' is not an integer value parameter" in err and "Traceback" not in err
    assert not (tmp_path / "o.c").exists()


ROWS = r"""
static const float Pj[5][7] = {
  {1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14}, {-1, -2, -3, -4, -5, -6, -7},
  {0.5f, 0.25f, 0.125f, 2, 4, 8, 16}, {3, 1, 4, 1, 5, 9, 2}};
float f (float x)
{
  int index = (int) (x * 0.5f);
  if (index < 0 || index >= 5) return x;
  const float *p = Pj[index];
  float x0 = p[0];
  float x1 = p[2];
  if (!(x0 <= x && x <= x1)) return *p;
  float y = x - p[1];
  return p[3] + y * (p[4] + y * (p[5] + y * p[6]));
}
"""


@pytest.mark.parametrize("isa", isas_once_daily("test_pointer_to_a_row_of_a_table", ALL))
def test_pointer_to_a_row_of_a_table(tmp_path: Path, isa: str) -> None:
    """glibc's flt-32 j0f_near_root: ``const float *p = Pj[index];`` with a per-lane row."""
    check_source(tmp_path, "rows", ROWS, isa)


TG_SIZEOF = r"""
#define TG(x) (sizeof (x) == sizeof (float) ? (__typeof (x)) __builtin_fabsf (x) \
   : sizeof (x) == sizeof (double) ? (__typeof (x)) __builtin_fabs (x) : (__typeof (x)) __builtin_fabsl (x))
float f (float x)
{
  if (TG (x) < 1.17549435e-38f)
    return x * x;
  return TG (x) + 1.0f;
}
double g (double x) { return TG (x) * 0.5; }
"""


@pytest.mark.parametrize("isa", isas_once_daily("test_constant_conditional_with_a_long_double_arm", ALL))
def test_constant_conditional_with_a_long_double_arm(tmp_path: Path, isa: str) -> None:
    """glibc's __MATH_TG where long double is not distinct from _Float128 (AArch64, POWER): a ?: whose
    condition is a constant; its long double arm is never read, its type is the cast's."""
    check_source(tmp_path, "tgsize", TG_SIZEOF, isa, frontend="pycparser")


def test_constant_conditional_whose_other_arm_has_no_known_type_is_refused(tmp_path: Path) -> None:
    text = "float f (float x) { return sizeof (x) == 4 ? x : __builtin_fabsl (x); }\n"
    with pytest.raises(ExpandError) as info:
        expand_source(tmp_path, "tgbad", text, "sse4.1", frontend="pycparser")
    assert "long double" in str(info.value) or "__builtin_fabsl" in str(info.value)


@pytest.mark.parametrize("isa", isas_once_daily("test_builtin_spellings_of_libm_functions", ALL))
@pytest.mark.parametrize("frontend", ["pycparser", "clang"])
def test_builtin_spellings_of_libm_functions(tmp_path: Path, isa: str, frontend: str) -> None:
    """glibc's s_roundf.c on AArch64 (USE_ROUNDF_BUILTIN): ``__builtin_roundf``; and a libm builtin that
    stays a call per lane, which needs no prototype."""
    if frontend == "clang" and not clang_available():
        pytest.skip("libclang is not installed")
    text = "float f (float x) { return __builtin_roundf (x) + __builtin_expf (x * 0.5f); }\n" \
           "double g (double x) { return __builtin_round (x) - __builtin_atan2 (x, 2.0); }\n"
    check_source(tmp_path, "broundf", text, isa, frontend=frontend)


# ----------------------------------------------------------------------------- what no expanded function reaches

#: A library's internal header as glibc's include/time.h and math_private.h are: static inline helpers on
#: things expand refuses (a struct returned by value, long double, _Complex, volatile), declarations of such
#: types, and one helper the function uses
UNUSED_H = r"""
#include <stdint.h>
struct ts64 { int64_t tv_sec; int64_t tv_nsec; };
typedef long double wide_t;
struct mixed { long double l; _Complex double z; };
extern wide_t wide_table[4];
extern struct mixed mixed_global;
extern _Complex float complex_global;
long double external_wide (long double, _Complex double);
static inline struct ts64 to_ts64 (int64_t s, int64_t us)
{
  struct ts64 ts;
  ts.tv_sec = s;
  ts.tv_nsec = us * 1000;
  return ts;
}
static inline long double widen (long double x, long double y) { return x * y + 1.0L; }
static inline _Complex double cmul (_Complex double a, _Complex double b) { return a * b; }
static inline int spin (volatile int *p) { while (*p) {} return *p; }
static inline float twice (float x) { return x + x; }
"""
#: The user's own file: an unused static helper and an external function expand refuses, and ``f``
UNUSED = r"""
#include "unused.h"
static long double wide_helper (long double x) { return x * x + wide_table[1]; }
static _Complex double conj_helper (_Complex double z) { return cmul (z, z) + complex_global; }
long double wide_external (long double x) { return wide_helper (x) + mixed_global.l; }
float f (float x)
{
  if (x > 1.0f)
    return twice (x) - 0.5f;
  return x * 3.0f;
}
"""


@pytest.mark.parametrize("isa", ALL)
@pytest.mark.parametrize("frontend", ["pycparser", "clang"])
def test_helpers_and_declarations_no_function_reaches_are_never_read(tmp_path: Path, isa: str, frontend: str) -> None:
    """glibc's include/time.h on POWER stopped every flt-32 file of mathlib's vector libm: expand lowered
    its static inline helpers whether or not a function used them; the frontends refused a function of
    the user's file that nothing expanded calls."""
    if frontend == "clang" and not clang_available():
        pytest.skip("libclang is not installed")
    (tmp_path / "unused.h").write_text(UNUSED_H)
    data = '#include "unused.h"\nwide_t wide_table[4];\nstruct mixed mixed_global;\n_Complex float complex_global;\n'
    check_source(tmp_path, "unused", UNUSED, isa, functions=["f"], frontend=frontend, companion=data)


@pytest.mark.parametrize("frontend", ["pycparser", "clang", "auto"])
@pytest.mark.parametrize("call, line, message", [
    ("(float) wide_helper (x)", "unused.c:3:", "type 'long double' is not supported"),
    ("(float) widen (x, 2.0)", "unused.h:17:", "type 'long double' is not supported"),
])
def test_a_reached_helper_still_stops_at_its_construct(tmp_path: Path, frontend: str, call: str, line: str,
                                                       message: str) -> None:
    if frontend != "pycparser" and not clang_available():
        pytest.skip("libclang is not installed")
    (tmp_path / "unused.h").write_text(UNUSED_H)
    text = UNUSED.replace("return x * 3.0f;", f"return {call};")
    with pytest.raises(ExpandError) as info:
        expand_source(tmp_path, "unused", text, "sse4.1", functions=["f"], frontend=frontend)
    assert message in info.value.message and f"{tmp_path}/{line}" in str(info.value.coord), info.value.render()


def test_a_function_only_the_other_frontend_reads(tmp_path: Path) -> None:
    """The clang frontend refuses g's _Generic: f expands all the same, and g's diagnostic names the frontend
    that reads it (which --frontend auto uses first)."""
    if not clang_available():
        pytest.skip("libclang is not installed")
    text = "int g (int x) { return _Generic (x, int: 1, default: 2) + x; }\nint f (int x) { return x + 1; }\n"
    _, _, res = expand_source(tmp_path, "gen", text, "sse4.1", functions=["f"], frontend="clang")
    assert [e.scalar_name for e in res.functions] == ["f"]
    with pytest.raises(ExpandError) as info:
        expand_source(tmp_path, "gen", text, "sse4.1", functions=["g"], frontend="clang")
    assert "_Generic" in info.value.message and "the pycparser frontend reads this function" in info.value.hint
    check_source(tmp_path, "gen", text, "sse4.1")


def test_the_command_line_expands_every_external_function_unless_told(tmp_path: Path, capsys) -> None:
    """Without --functions, wide_external is expanded too: its diagnostic; named, it is refused by name."""
    (tmp_path / "unused.h").write_text(UNUSED_H)
    src = tmp_path / "unused.c"
    src.write_text(UNUSED)
    assert expand_main([str(src), "--isa", "avx2"]) == 1
    err = capsys.readouterr().err
    assert f"{src}:5:1: error: type 'long double' is not supported" in err or \
        f"{src}:5:" in err and "long double" in err, err
    assert expand_main([str(src), "--isa", "avx2", "--functions", "wide_external"]) == 1
    assert "long double" in capsys.readouterr().err
    assert expand_main([str(src), "--isa", "avx2", "--functions", "f", "-o", str(tmp_path / "out.c")]) == 0
    assert "_Exp_f" in (tmp_path / "out.c").read_text()


# ----------------------------------------------------------------------------- glibc's round-to-odd narrowing

#: glibc's generic math_opt_barrier (a statement expression) as an operand of +, * and a comparison: pycparser
#: 3 read an assignment expression starting with '({' as that statement expression alone ("syntax error
#: before '+'" in dbl-64's s_fadd.c, whose ROUND_TO_ODD (math_opt_barrier (x) + (y), ...) is one)
BARRIER = r"""
#define math_opt_barrier(x) ({ __typeof (x) __x = (x); __asm ("" : "+m" (__x)); __x; })
double f (double x, double y)
{
  double s = math_opt_barrier (x) + (y);
  double p = 2.0 * ({ double t = y; t * t; }) - math_opt_barrier (y) / 3.0;
  if (math_opt_barrier (x) > y)
    s = s - p;
  s = ({ double q = s; q; }) * 0.5;
  return s;
}
"""


@pytest.mark.parametrize("isa", ALL)
@pytest.mark.parametrize("frontend", ["pycparser", "clang"])
def test_statement_expression_as_an_operand(tmp_path: Path, isa: str, frontend: str) -> None:
    if frontend == "clang" and not clang_available():
        pytest.skip("libclang is not installed")
    check_source(tmp_path, "barrier", BARRIER, isa, frontend=frontend)


#: dbl-64's s_fadd.c as math-narrow.h writes it: a union with bit-fields (glibc's union ieee754_double),
#: FE_TOWARDZERO, and the flags read back: it cannot be vectorized, and the diagnostic says why, whatever
#: comes first in the function
ROUND_TO_ODD = FENV.split("double f (double x)")[0] + r"""
union ieee754_double { double d; struct { unsigned int mantissa1:32; unsigned int mantissa0:20;
  unsigned int exponent:11; unsigned int negative:1; } ieee; };
static inline int libc_feupdateenv_test_sse (fenv_t *e, int ex) { int r = fetestexcept (ex); fesetenv (e); return r; }
#define math_opt_barrier(x) ({ __typeof (x) __x = (x); __asm ("" : "+m" (__x)); __x; })
#define ROUND_TO_ODD(EXPR, UNION, MANTISSA) \
  ({ fenv_t env; UNION u; \
     libc_feholdexcept_setround_sse (&env, FE_TOWARDZERO); \
     u.d = (EXPR); \
     u.ieee.MANTISSA |= libc_feupdateenv_test_sse (&env, FE_INEXACT) != 0; \
     u.d; })
float fadd (double x, double y)
{
  float ret;
  if (x == -y)
    ret = (float) (x + y);
  else
    ret = (float) ROUND_TO_ODD (math_opt_barrier (x) + (y), union ieee754_double, mantissa1);
  return ret;
}
"""


@pytest.mark.parametrize("isa", ALL)
def test_round_to_odd_names_the_rounding_mode(tmp_path: Path, isa: str) -> None:
    """(FE_TOWARDZERO is 0xc00 on x86-64, 0xc00000 on AArch64, 1 on POWER: named all the same)"""
    with pytest.raises(ExpandError) as info:
        expand_source(tmp_path, "fadd", ROUND_TO_ODD, isa, frontend="pycparser")
    assert "'libc_feholdexcept_setround_sse' sets the rounding mode FE_TOWARDZERO, not FE_TONEAREST: it cannot be " \
        "vectorized" in info.value.render()
    line = ROUND_TO_ODD.splitlines().index("    ret = (float) ROUND_TO_ODD (math_opt_barrier (x) + (y), union "
                                           "ieee754_double, mantissa1);") + 1
    assert info.value.coord.line == line and info.value.coord.file.endswith("fadd.c"), info.value.render()


# ----------------------------------------------------------------------------- evaluated only for exceptions

#: glibc's math_force_eval as each target's math-barriers.h spells it, math_check_force_underflow and musl's
#: FORCE_EVAL, on float, double and long double operands, and under a condition
FORCE_EVAL = r"""
#if defined __x86_64__
# define math_force_eval(x) do { if (sizeof (x) <= sizeof (double) \
    || __builtin_types_compatible_p (__typeof (x), _Float128)) __asm __volatile ("" : : "x" (x)); \
    else __asm __volatile ("" : : "f" (x)); } while (0)
#elif defined __aarch64__
# define math_force_eval(x) ({ __typeof (x) __x = (x); __asm __volatile__ ("" : : "w" (__x)); })
#else
# define math_force_eval(x) ({ __typeof (x) __x = (x); __asm __volatile__ ("" : : "m" (__x)); })
#endif
#define math_check_force_underflow(x) do { __typeof (x) force_underflow_tmp = (x); \
  if (__builtin_fabs (force_underflow_tmp) < 0x1p-126f) { \
    __typeof (force_underflow_tmp) force_underflow_tmp2 = force_underflow_tmp * force_underflow_tmp; \
    math_force_eval (force_underflow_tmp2); } } while (0)
#define FORCE_EVAL(x) do { \
  if (sizeof (x) == sizeof (float)) { volatile float __x; __x = (x); } \
  else if (sizeof (x) == sizeof (double)) { volatile double __x; __x = (x); } \
  else { volatile long double __x; __x = (x); } } while (0)
float f (float x, double y)
{
  FORCE_EVAL (x * 0x1p-120f);
  FORCE_EVAL (y + 1.0);
  FORCE_EVAL ((long double) x * y);
  math_force_eval (x * x);
  math_force_eval ((long double) y * 3.0L);
  math_check_force_underflow (x);
  math_check_force_underflow ((long double) y);
  if (x > 2.0f)
    FORCE_EVAL (x * x);
  float r = x * 2.0f + (float) y;
  math_force_eval (r);
  return r;
}
"""


@pytest.mark.parametrize("isa", ALL)
@pytest.mark.parametrize("frontend", ["pycparser", "clang"])
def test_evaluations_only_for_exceptions_are_dropped(tmp_path: Path, isa: str, frontend: str) -> None:
    if frontend == "clang" and not clang_available():
        pytest.skip("libclang is not installed")
    check_source(tmp_path, "forceeval", FORCE_EVAL, isa, frontend=frontend)
    _, _, res = expand_source(tmp_path, "forceeval", FORCE_EVAL, isa, frontend=frontend)
    head, code = res.text.split("*/", 1)
    body = FORCE_EVAL.splitlines().index("float f (float x, double y)")
    lines = [i + 1 for i, ln in enumerate(FORCE_EVAL.splitlines()) if i > body
             and ln.startswith(("  FORCE_EVAL (", "  math_force_eval (", "  math_check_force_underflow (", "  if ("))]
    assert lines and "evaluations made only for the floating-point exceptions they raise" in head
    assert ", ".join(f"forceeval.c:{n}" for n in lines) in " ".join(head.split()), head
    assert "volatile" not in code and "__x" not in code and "asm" not in code


def test_a_forced_evaluation_with_a_side_effect_is_kept(tmp_path: Path) -> None:
    """A call (or a store outside the statement) is not an evaluation for exceptions only: read as usual."""
    text = FORCE_EVAL.split("float f (float x, double y)")[0] + \
        "float g (float);\nfloat f (float x) { math_force_eval (g (x)); return x; }\n"
    for isa in ("avx2", "neon"):  # (x86's asm form and the statement expression of the others)
        _, _, res = expand_source(tmp_path, "forcecall", text, isa, frontend="pycparser")
        code = res.text.split("*/", 1)[1]
        assert code.count("g(x_lanes[lane])") == 1, res.text  # (once per lane, as the scalar code calls it)
        # (on AArch64 the asm that reads the statement expression's local is dropped, the call kept)
        assert ("evaluations made only" in res.text) == (isa == "neon")
        check_source(tmp_path, "forcecall", text, isa, frontend="pycparser",
                     companion="float g (float v) { return v * 0.5f; }\n")


#: long double arithmetic in the result (x87's 80 bits on x86-64, binary128 or IBM double-double in
#: software on AArch64 and POWER): a diagnostic at the construct on every target, in both frontends
LONG_DOUBLE = {
    "cast": ("return (float) ((long double) x * 3.0L);", 3),
    "local": ("long double w = x; return (float) (w * w);", 3),
    "builtin": ("return (float) __builtin_fabsl ((long double) x);", 3),
    "pointer": ("return x + (float) *(const long double *) &x;", 3),
}


@pytest.mark.parametrize("isa", ALL)
@pytest.mark.parametrize("frontend", ["pycparser", "clang"])
@pytest.mark.parametrize("case", list(LONG_DOUBLE))
def test_long_double_arithmetic_is_a_diagnostic(tmp_path: Path, isa: str, frontend: str, case: str) -> None:
    if frontend == "clang" and not clang_available():
        pytest.skip("libclang is not installed")
    body, line = LONG_DOUBLE[case]
    with pytest.raises(ExpandError) as info:
        expand_source(tmp_path, "ld", f"#include <float.h>\nfloat f (float x)\n{{ {body} }}\n", isa, frontend=frontend)
    assert "long double" in info.value.message and info.value.coord.line == line, info.value.render()


@pytest.mark.parametrize("isa", ALL)
def test_long_double_constants_converted_as_each_target_does(tmp_path: Path, isa: str) -> None:
    """(float) LDBL_EPSILON is 0 on POWER (IBM double-double: the smallest subnormal double), 2**-63 on
    x86-64, 2**-112 on AArch64; a constant that underflows is spelled 0 (no 'truncated to zero' warning),
    one in the subnormals is rounded once, to the type's own quantum."""
    text = "#include <float.h>\nfloat f (float x)\n{\n  return x * (float) LDBL_EPSILON + (float) 1e-50L\n" \
           "    + (float) 3e-40L * x + (float) LDBL_MIN;\n}\n" \
           "double g (double x) { return x * (double) 1e-310L + (double) 1e-400L + (double) LDBL_EPSILON; }\n"
    check_source(tmp_path, "ldconst", text, isa)
