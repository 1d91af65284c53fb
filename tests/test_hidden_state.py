"""Calls of functions with hidden state (expand/passes/hidden_state.py): a warning when the vector code
makes them in another order than the scalar calls would, exit 0 and the same code; none for calls that
keep no state (libm, const or pure declarations, ``--stateless``, per-instance explicit state, glibc's
libm internals); ``--verify``'s mismatch summary names them. Code generation on every ISA."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from daily import isas_once_daily
from expand_case import STRICT, expand_source
from hostrun import skip_if_cli_not_run

from emit import ISAS, get_isa
from expand.cli import main as expand_main
from expand.driver import expand_module
from frontends.clang_frontend import read_file_any

ALL = list(ISAS)

#: aobench's ambient occlusion draws its rays with drand48 in a loop (ispc's examples/cpu/aobench)
AO = r"""#include <stdlib.h>

float ao(float x, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += x * (float)drand48();
    return s;
}
"""

#: two calls of rand: each instance's pair is (r0, r1), (r2, r3), ... in the scalar calls, but the
#: vector code makes every instance's first call before any second one
TWO = r"""#include <stdlib.h>

float two(float x)
{
    float a = (float)(rand() & 1023);
    float b = (float)(rand() & 1023);
    return x * a + b;
}
"""

#: one call outside loops: the per-lane calls run in lane order, the scalar order (no warning)
ONE = r"""#include <stdlib.h>

float one(float x)
{
    return x + (float)(rand() & 1023);
}
"""


def _run(tmp_path: Path, capsys, name: str, text: str, *options: str) -> tuple[int, str, str, Path]:
    """``expand name.c -o name_out.c OPTIONS`` in process: (exit status, stdout, stderr, output path)."""
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    out = tmp_path / f"{name}_out.c"
    rc = expand_main([str(src), "-o", str(out), *options])
    got = capsys.readouterr()
    return rc, got.out, got.err, out


def _warnings(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ": warning: " in ln]


def _compile(isa_name: str, out: Path) -> None:
    isa = get_isa(isa_name)
    cmd = [*isa.cc, *STRICT, *isa.cflags, "-c", str(out), "-o", str(out.with_suffix(".o"))]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, f"{' '.join(cmd)}\n{p.stderr}"


@pytest.mark.parametrize("isa", isas_once_daily("test_drand48_in_a_loop_warns", ALL))
def test_drand48_in_a_loop_warns(tmp_path: Path, capsys, isa: str) -> None:
    """The warning names the call, its state and why the order changes (the loop), with the gang's size;
    the exit status is 0 and the output is the code expand makes without the warning, and compiles."""
    rc, _, err, out = _run(tmp_path, capsys, "ao", AO, "--isa", isa)
    lanes = get_isa(isa).lanes
    assert rc == 0, err
    assert _warnings(err) == [
        f"{tmp_path}/ao.c:7:25: warning: call to 'drand48' has hidden state (the C library's random number "
        f"generator): the {lanes} instances of the vector code make their calls in another order than {lanes} "
        "calls of 'ao' would ('drand48' is called in a loop, and each iteration of the vector code makes the call "
        "for every instance), so they get other values"], err
    assert re.search(r"ao\.c:7:25: note: give each instance a generator state of its own .*erand48.*aobench", err)
    _compile(isa, out)
    assert "drand48()" in out.read_text()  # (still called per lane: the output is what the model says)


HELPER = r"""#include <stdlib.h>

static double jitter(void)
{
    return drand48() - 0.5;
}

float ao2(float x, float y)
{
    float s = x * (float)jitter();
    if (y > 0.0f)
        s += y * (float)jitter();
    return s;
}

float ao3(float x)
{
    return x * (float)jitter() + (float)jitter();
}
"""


@pytest.mark.parametrize("isa", isas_once_daily("test_one_warning_per_call_site", ALL))
def test_one_warning_per_call_site(tmp_path: Path, capsys, isa: str) -> None:
    """A helper inlined twice into each of two functions: one warning for its one call of drand48."""
    rc, _, err, out = _run(tmp_path, capsys, "helper", HELPER, "--isa", isa)
    assert rc == 0, err
    warned = _warnings(err)
    assert len(warned) == 1 and warned[0].startswith(f"{tmp_path}/helper.c:5:12: warning: call to 'drand48'"), err
    assert "calls 'drand48' at 2 places" in warned[0]
    _compile(isa, out)


@pytest.mark.parametrize("isa", isas_once_daily("test_verify_names_the_calls", ALL))
def test_verify_names_the_calls(tmp_path: Path, capsys, isa: str) -> None:
    """--verify's mismatch summary says the mismatches may come from the order of the rand calls; with
    one call site (no warning), that the harness's scalar calls moved the state on."""
    rc, out, err, _ = _run(tmp_path, capsys, "two", TWO, "--isa", isa, "--verify", "--random", "200")
    skip_if_cli_not_run(rc, err)
    assert rc == 1, out + err
    assert len(_warnings(err)) == 2
    summary = next(ln for ln in out.splitlines() if ln.startswith("verify: two vs _Exp_two"))
    assert re.search(r"\d+ mismatches; two calls 'rand' \(\S+two\.c:5:23\), 'rand' \(\S+two\.c:6:23\), which has "
                     r"hidden state: the vector code makes those calls in another order than the scalar calls \('two'"
                     r" calls 'rand' at 2 places, .*\), so these mismatches may come from that order", summary), summary
    rc, out, err, _ = _run(tmp_path, capsys, "one", ONE, "--isa", isa, "--verify", "--random", "200")
    assert rc == 1 and not _warnings(err), out + err
    summary = next(ln for ln in out.splitlines() if ln.startswith("verify: one vs _Exp_one"))
    assert summary.endswith("mismatches; one calls 'rand' (" + f"{tmp_path}/one.c:5:24), which has hidden state: the "
                            "harness's scalar calls ran first and moved that state on, so the vector call's values "
                            "differ from theirs whatever the vector code does"), summary


#: calls that keep no hidden state, twice and in a loop each: declared const or pure (before or after the
#: declarator, on a later declaration too), libm per lane, rand_r and erand48 on each instance's own state
PURE = r"""#include <math.h>
#include <stdlib.h>

float g(float) __attribute__((const));
__attribute__((__pure__)) float h(const float *);
float k(float);
float k(float) __attribute__((const));

float pure_calls(float x, int n, float *y)
{
    unsigned seed = (unsigned)n;
    unsigned short xs[3] = {1, 2, (unsigned short)n};
    float s = g(x) + g(x + 1.0f) + h(y) + k(x);
    for (int i = 0; i < n; i++)
        s += expf(s * 0.001f) + h(y) + (float)(rand_r(&seed) & 15) + (float)erand48(xs);
    return s + (float)(rand_r(&seed) & 15) + (float)abs(n);
}
"""

PURE_DEFS = r"""float g(float x) { return x * 0.5f; }
float h(const float *p) { return *p + 1.0f; }
float k(float x) { return x - 2.0f; }
"""


@pytest.mark.parametrize("isa", isas_once_daily("test_calls_without_hidden_state_do_not_warn", ALL))
def test_calls_without_hidden_state_do_not_warn(tmp_path: Path, capsys, isa: str) -> None:
    """No warning, and the output verifies (libm per lane with --vector-math none)."""
    (tmp_path / "defs.c").write_text(PURE_DEFS)
    rc, out, err, _ = _run(tmp_path, capsys, "pure", PURE, "--isa", isa, "--vector-math", "none", "--verify",
                           "--random", "300", "--range", "n=0:9", "--link", str(tmp_path / "defs.c"))
    skip_if_cli_not_run(rc, err)
    assert not _warnings(err), err
    assert rc == 0 and " 0 mismatches" in out, out + err


UNKNOWN = r"""float g(float);

float twice(float x)
{
    return g(x) + g(x * 2.0f);
}
"""


@pytest.mark.parametrize("frontend", ["pycparser", "clang"])
def test_unknown_function_warns_until_declared_or_named(tmp_path: Path, capsys, frontend: str) -> None:
    """A function expand cannot see into: 'may have hidden state', with how to say it has none; a const
    declaration (read by both frontends) or --stateless silences it."""
    rc, _, err, _ = _run(tmp_path, capsys, "unknown", UNKNOWN, "--isa", "sse2", "--frontend", frontend)
    assert rc == 0, err
    warned = _warnings(err)
    assert len(warned) == 2 and all("call to 'g' may have hidden state (expand cannot see its definition); if it "
                                    "has, the 4 instances" in w for w in warned), err
    assert "declare it __attribute__ ((const))" in err and "--stateless g" in err
    rc, _, err, _ = _run(tmp_path, capsys, "unknown", UNKNOWN, "--isa", "sse2", "--frontend", frontend,
                         "--stateless", "g")
    assert rc == 0 and not _warnings(err), err
    const = UNKNOWN.replace("float g(float);", "float g(float);\nfloat g(float) __attribute__ ((__const__));")
    rc, _, err, _ = _run(tmp_path, capsys, "unknown", const, "--isa", "sse2", "--frontend", frontend)
    assert rc == 0 and not _warnings(err), err


DEFINED = r"""int total;

int counter(int k)
{
    total = total + k;
    return total;
}

float scale(float x)
{
    return x * 3.0f;
}

float count(float x)
{
    return (float)counter(1) + (float)counter(2) + scale(x) + scale(x + 1.0f);
}
"""


def test_function_of_the_file_that_keeps_state(tmp_path: Path, capsys) -> None:
    """A function the file defines with external linkage (called per lane): one that assigns a global
    keeps state, one that computes from its arguments keeps none."""
    rc, _, err, _ = _run(tmp_path, capsys, "defined", DEFINED, "--isa", "avx2", "--functions", "count")
    assert rc == 0, err
    warned = _warnings(err)
    assert len(warned) == 2 and all("call to 'counter' has hidden state ('counter' keeps state in 'total', which it"
                                    " assigns)" in w for w in warned), err
    assert "scale" not in err


SHARED = r"""#include <stdlib.h>

static float draw(unsigned *state)
{
    return (float)(rand_r(state) & 255);
}

float shared_seed(float x, unsigned *seed)
{
    return x + draw(seed) + draw(seed);
}

float own_seed(float x, unsigned *seed)
{
    return x + (float)(rand_r(seed) & 255) + (float)(rand_r(seed) & 255);
}
"""


@pytest.mark.parametrize("isa", isas_once_daily("test_explicit_state_shared_by_every_instance", ALL))
def test_explicit_state_shared_by_every_instance(tmp_path: Path, capsys, isa: str) -> None:
    """rand_r's state through a uniform pointer (here through an inlined helper's parameter) is every
    instance's: a warning; through a varying pointer (one element per instance) it is each one's own."""
    rc, _, err, out = _run(tmp_path, capsys, "shared", SHARED, "--isa", isa, "--functions", "shared_seed",
                           "--uniform", "seed")
    assert rc == 0, err
    warned = _warnings(err)
    assert len(warned) == 1 and "call to 'rand_r' has hidden state (its state, argument 1, is the uniform pointer " \
        "'seed', which every instance shares)" in warned[0], err
    _compile(isa, out)
    rc, _, err, out = _run(tmp_path, capsys, "shared", SHARED, "--isa", isa, "--functions", "own_seed")
    assert rc == 0 and not _warnings(err), err
    _compile(isa, out)


#: glibc files whose functions call other functions of the library per lane: errno helpers (__math_*),
#: IEEE cores (__ieee754_*), __sincos, __gamma_product, fromfp.h's static helpers; none keeps hidden state
GLIBC = [("flt-32", "e_powf.c"), ("flt-32", "e_lgammaf_r.c"), ("flt-32", "e_gammaf_r.c"), ("dbl-64", "e_jn.c"),
         ("dbl-64", "s_fromfp.c"), ("dbl-64", "s_sin.c")]


@pytest.mark.parametrize("sub, name", GLIBC)
def test_glibc_internal_calls_do_not_warn(sub: str, name: str) -> None:
    from mathlib import corpus, source_tree
    from mathlib.source_tree import glibc_flags, read_source

    tree = source_tree.ensure_glibc_tree(source_tree.glibc_root(corpus.glibc_flt32_dir()))
    path = tree / "sysdeps/ieee754" / sub / name
    isa = get_isa("avx2")
    mod = read_source(path, isa, glibc_flags(tree, isa))
    res = expand_module(mod, isa)
    assert res.functions and not res.warnings, [w.render() for w in res.warnings]
    assert not any(f.hidden_state for f in res.functions)


def test_fuzz_log_functions_are_stateless(tmp_path: Path) -> None:
    """The fuzzer's log functions return a value of their arguments: its reproduction command says so."""
    from expand.check.fuzz import LOG_FN, Setting

    cmd = Setting(4, "auto", False, None, "expand", "pycparser", {}).command("sse2", "p.c")
    assert f"--stateless {','.join(LOG_FN.values())}" in cmd
    text = "float log_f32(int, float);\nfloat f(float x) { return log_f32(1, x) + log_f32(2, x * x); }\n"
    _, _, res = expand_source(tmp_path, "p", text, "sse2")
    assert len(res.warnings) == 2  # (expand cannot see into them)
    src = tmp_path / "p.c"
    isa = get_isa("sse2")
    res = expand_module(read_file_any(str(src), text, cc=isa.preprocessor), isa, stateless=set(LOG_FN.values()))
    assert not res.warnings
