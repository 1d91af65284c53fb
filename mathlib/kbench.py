"""The kernel benchmark (issue 19): the suite of mathlib/suite.py, every kernel x every x86 ISA the
host runs, five columns side by side in one program.

    python -m mathlib.bench --kernels [mandelbrot,noise,...] [--quick] [--isa avx2 ...] [--out DIR]
                            [--rounds R] [--runs P] [--min-ms MS] [--jobs J] [--keep-build DIR]
                            [--doc docs/performance.md]

Columns (each a driver that runs the whole domain once: the loops of ``Kernel.outer`` and the gang
loop ``Kernel.inner``, calling the kernel once per element or once per gang):

* ``scalar``: the kernel's source as it is, ``-O2 -fno-tree-vectorize -ffp-contract=off``, the driver
  in the same translation unit, the kernel inlined into it (``flatten``, as ispc's serial examples
  compile; so are the gang functions of expand and the anchors into theirs);
* ``expand``: expand's output (the command line's defaults: BOSCC ``auto``, mathlib's vector libm
  for libm calls, bit-exact), ``-O2 -ffp-contract=off``, driver in the same unit, one call per gang.
  A kernel expand cannot expand has no column: the table says ``expand: diagnostic <message>``;
* ``anchor``: the hand-written intrinsics of mathlib/kernels/anchor (what ispc makes of the kernel:
  scalar counters, gathers, blends only for live-outs), same flags, one call per gang;
* ``anchor_ll`` (AVX2 and AVX-512, kernels whose anchor reads tables with per-lane indices): the
  same anchor with lane loads in place of the gathers (``-DANCHOR_LANE_LOADS``): what a gather buys
  on this CPU;
* ``fastmath``: GCC's auto-vectorization of the scalar source and driver, ``-O3 -ffast-math`` (glibc's
  math.h then declares expf, logf, powf ``simd``: GCC calls libmvec's ``_ZGV`` functions);
* ``clones``: GCC's ``#pragma omp declare simd`` clones of the kernel (the pragma of its source,
  ``-O3 -fopenmp-simd -ffp-contract=off``), called from a ``#pragma omp simd`` driver loop in another
  translation unit (objdump shows which ``_ZGV`` clone it calls).

Every column is checked against the scalar run before it is timed, on the whole output of one run
from the same initial arrays: ``expand`` and ``anchor`` must match bit for bit (any NaN matching
any NaN), ``fastmath`` and ``clones`` within the kernel's ``Tolerance``; a column that fails is
reported, not timed. The libm functions of the scalar column (and the per-lane calls GCC's columns
keep) are glibc's sources (mathlib's ``libexpandm_scalar.a``): the code expand's output is bit-exact
with, not the system libm's FMA builds. Each column calls what it names: at the start of every run
the program prints (``dladdr``) where each driver and each libm entry point it calls lives: ours and
mathlib's vector libm in the program itself (a copy of ``libexpandm.a`` whose ``_ZGV`` names are
made local), libmvec's ``_ZGV`` functions, which objdump finds in the ``fastmath`` object, in
libmvec.so; the benchmark stops otherwise.

Timing: each column is calibrated to run >= ``min_ms`` per round, then ``rounds`` rounds run every
column once, interleaved (the order rotating), spread over ``runs`` processes pinned to one CPU.
Speedups and ratios are medians of per-round ratios (``paired_speed``): over the scalar column,
and the anchor's time over a column's (``/ anchor``: 1.0 is as fast as the anchor). Outputs
(kernels.md, kernels.json, kernels.png) go to ``--out`` (default mathlib/results; with ``--quick``
a temporary directory); ``--doc FILE`` also puts the speed table between FILE's ``<!-- kernels -->``
markers. A benchmark, not a test: it asserts nothing about speed.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from emit import get_isa
from expand.driver import expand_module
from expand.ir.diagnostics import ExpandError
from expand.vecmath import VectorMath
from frontends.pycparser_frontend import read_file

from .benchkit import (
    ALIGN_FLAGS,
    SCALAR_FLAGS,
    VECTOR_FLAGS,
    WHERE_C,
    BuildError,
    WrongEntryPoint,
    cpu_model,
    entries_code,
    entry_lines,
    fmt_ns,
    gcc_version,
    lives_in,
    paired_speed,
    pyplot,
    run,
)
from .suite import ANCHOR_DIR, KERNELS_DIR, Kernel

RESULTS_DIR = Path(__file__).resolve().parent / "results"
SERIES = ["scalar", "expand", "anchor", "anchor_ll", "fastmath", "clones"]
LABELS = {"scalar": "scalar", "expand": "expand", "anchor": "anchor (hand-written)",
          "anchor_ll": "anchor, lane loads", "fastmath": "GCC -O3 -ffast-math", "clones": "GCC declare-simd clones"}
#: the columns of the tables after scalar
SHOWN = ("expand", "anchor", "anchor_ll", "fastmath", "clones")
#: columns that must match the scalar run bit for bit (the others: the kernel's Tolerance)
EXACT = ("expand", "anchor", "anchor_ll")
FASTMATH_FLAGS = ["-O3", "-ffast-math"]
CLONE_FLAGS = ["-O3", "-fopenmp-simd", "-ffp-contract=off"]
CALLER_FLAGS = ["-O3", "-fopenmp-simd"]
MAIN_FLAGS = ["-O2", "-fPIE"]
#: mathlib's vector libm functions the kernels call (and expand's output or the anchors may call: aobench's
#: cosf/sinf pair is one sincosf, expand/passes/sincos_pairs.py)
LIBM = ["expf", "logf", "powf", "sqrtf", "sinf", "cosf", "sincosf"]
#: libm names whose scalar calls must reach glibc's sources (libexpandm_scalar.a) in the program itself
#: (GCC's scalar aobench calls sincosf for its cosf/sinf pair)
SCALAR_LIBM = ("expf", "logf", "powf", "sinf", "cosf", "sincosf")


@dataclass
class KProgram:
    """What was built for one (kernel, ISA)."""

    kernel: Kernel
    isa: str
    exe: Path | None = None
    variants: list[str] = field(default_factory=list)
    #: entry name ("expand", "fastmath/_ZGVdN8v_expf", ...) -> (symbol, where it must live: "exe" or a library)
    entries: dict[str, tuple[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    diagnostic: str | None = None
    error: str | None = None
    clone_calls: list[str] = field(default_factory=list)
    libmvec_calls: list[str] = field(default_factory=list)
    where: dict[str, str] = field(default_factory=dict)


def _names(k: Kernel) -> dict[str, str]:
    """The driver's global names in C: size macros KB_<NAME>, arrays and scalars kb_<name> (apart from
    anything the kernel's source declares: math.h's y0, a kernel's own macros)."""
    out = {n: f"KB_{n}" for n in k.sizes}
    out.update((a.name, f"kb_{a.name}") for a in k.arrays)
    out.update((n, f"kb_{n}") for _, n, _ in k.scalars)
    return out


def c_expr(k: Kernel, text: str, local: bool = False) -> str:
    """``text`` (a C expression of the suite's names) with the driver's global names (``local``: the
    scalars as the driver's local copies ``l_<name>``)."""
    names = _names(k)
    if local:
        names.update((n, f"l_{n}") for _, n, _ in k.scalars)
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: names.get(m.group(0), m.group(0)), text)


def driver(k: Kernel, name: str, callee: str, step: int, simd: bool = False) -> str:
    """C: ``void name(void)`` running the whole domain, calling ``callee(args)`` at every ``step``-th
    element of the gang loop (``simd``: with ``#pragma omp simd`` on it). The scalars are read into
    locals first: the calls may write memory, so a global would be loaded again at every call (and
    GCC does not vectorize a loop with loads of a global the callee might change). ``flatten``: the
    callee and what it calls in the same translation unit are inlined into the loop, as ispc compiles
    an export function with its foreach body (the clones, in another unit, stay calls)."""
    lines = [f"\n__attribute__((noinline, flatten)) void {name}(void)\n{{\n"]
    lines += [f"    const {t} l_{n} = kb_{n};\n" for t, n, _ in k.scalars]
    ind = "    "
    for v, lo, hi in k.outer:
        lines.append(f"{ind}for (int {v} = {c_expr(k, lo)}; {v} < {c_expr(k, hi)}; {v}++)\n")
        ind += "    "
    v, lo, hi = k.inner
    if simd:
        lines.append(f"{ind}#pragma omp simd\n")
    inc = f"{v}++" if step == 1 else f"{v} += {step}"
    lines.append(f"{ind}for (int {v} = {c_expr(k, lo)}; {v} < {c_expr(k, hi)}; {inc})\n")
    lines.append(f"{ind}    {callee}({c_expr(k, k.args, local=True)});\n}}\n")
    return "".join(lines)


def data_header(k: Kernel, quick: bool) -> str:
    """kb_data.h: the sizes, and the driver's arrays and scalars as the drivers see them (extern)."""
    out = [f"/* mathlib.kbench: {k.name}, {'quick' if quick else 'full'} sizes */\n"]
    out += [f"#define KB_{n} {v[1 if quick else 0]}\n" for n, v in k.sizes.items()]
    out.append(f"#define KB_ELEMENTS {k.elements(quick)}L\n")
    out += [f"extern {a.ctype} kb_{a.name}[];\n" for a in k.arrays]
    out += [f"extern {t} kb_{n};\n" for t, n, _ in k.scalars]
    return "".join(out)


def simd_clauses(k: Kernel) -> str:
    """The clauses of the kernel's ``#pragma omp declare simd`` line."""
    m = re.search(rf"#pragma omp declare simd([^\n]*)\n\s*void\s+{re.escape(k.func)}\s*\(", k.source.read_text())
    assert m, k.name
    return m.group(1).strip()


def prototype(k: Kernel, name: str) -> str:
    return f"void {name}({', '.join(f'{t} {n}' for t, n, _ in k.signature())})"


def expand_kernel(k: Kernel, isa_name: str) -> tuple[str, str]:
    """(C text, vector function name) of the kernel as ``expand`` makes it by default (BOSCC auto,
    mathlib's vector libm); ExpandError when it cannot."""
    isa = get_isa(isa_name)
    mod = read_file(str(k.source), k.source.read_text(), [str(KERNELS_DIR)], cc=isa.preprocessor)
    res = expand_module(mod, isa, functions=[k.func], vector_math=VectorMath(["expand"]))
    (e,) = res.functions
    return res.text, e.vector_name


def _undefined(obj: Path, wd: Path) -> list[str]:
    return run(["nm", "-u", "-P", str(obj)], wd).split()[::2]


def build(k: Kernel, isa_name: str, wd: Path, *, quick: bool, libdir: Path, jobs: int = 2) -> KProgram:
    """Write and compile the program of ``k`` on ``isa_name`` in ``wd`` (``libdir``: mathlib's vector
    libm, ``mathlib.libm.ensure``); a failed build is the program's ``error``."""
    prog = KProgram(k, isa_name)
    try:
        _build(prog, wd, quick=quick, libdir=libdir, jobs=jobs)
    except BuildError as exc:
        prog.error = str(exc)
        prog.exe = None
    return prog


def _build(prog: KProgram, wd: Path, *, quick: bool, libdir: Path, jobs: int) -> None:
    k, isa = prog.kernel, get_isa(prog.isa)
    wd.mkdir(parents=True, exist_ok=True)
    cflags = [*isa.cflags, *ALIGN_FLAGS]
    (wd / "kb_data.h").write_text(data_header(k, quick))
    src, func, lanes = k.source.resolve(), k.func, isa.lanes
    units: dict[str, tuple[str, list[str]]] = {}  # object stem -> (C text, flags)
    units["scalar"] = (f'/* scalar */\n#include "{src}"\n#include "kb_data.h"\n' + driver(k, "kb_scalar", func, 1),
                       SCALAR_FLAGS)
    try:
        text, vname = expand_kernel(k, prog.isa)
        units["expand"] = (text + '\n#include "kb_data.h"\n' + driver(k, "kb_expand", vname, lanes), VECTOR_FLAGS)
        prog.entries["expand"] = (vname, "exe")
    except ExpandError as exc:
        prog.diagnostic = exc.message
    except Exception as exc:  # a bug of expand's (never a traceback for a user): the row says so, the rest runs
        prog.diagnostic = f"internal error ({type(exc).__name__}: {exc})"
    units["anchor"] = (f'/* anchor */\n#include "{k.anchor.resolve()}"\n#include "kb_data.h"\n'
                       + driver(k, "kb_anchor", f"anchor_{k.name}", lanes), VECTOR_FLAGS)
    if isa.name != "sse4.1" and re.search(r"\bv[if]_gather\(", k.anchor.read_text()):
        units["anchor_ll"] = (f"/* anchor, lane loads */\n#define ANCHOR_LANE_LOADS\n"
                              f'#define anchor_{k.name} anchor_ll_{k.name}\n#include "{k.anchor.resolve()}"\n'
                              f'#include "kb_data.h"\n' + driver(k, "kb_anchor_ll", f"anchor_ll_{k.name}", lanes),
                              VECTOR_FLAGS)
    units["fastmath"] = (f'/* GCC -O3 -ffast-math */\n#define {func} kb_fastmath_{func}\n#include "{src}"\n'
                         f'#include "kb_data.h"\n' + driver(k, "kb_fastmath", f"kb_fastmath_{func}", 1), FASTMATH_FLAGS)
    clone = f"kb_clones_{func}"
    units["clones_def"] = (f'/* GCC declare-simd clones */\n#define {func} {clone}\n#include "{src}"\n', CLONE_FLAGS)
    units["clones"] = (f"/* the caller of the clones */\n#pragma omp declare simd {simd_clauses(k)}\n"
                       f'extern {prototype(k, clone)};\n#include "kb_data.h"\n'
                       + driver(k, "kb_clones", clone, 1, simd=True), CALLER_FLAGS)
    for stem, (text, flags) in units.items():
        (wd / f"{stem}.c").write_text(text)

    def compile_unit(stem: str) -> None:
        run(["gcc", *units[stem][1], *cflags, f"-I{KERNELS_DIR}", f"-I{ANCHOR_DIR}", "-c", f"{stem}.c",
             "-o", f"{stem}.o"], wd)

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        for fut in [pool.submit(compile_unit, s) for s in units]:
            fut.result()
    variants = [v for v in SERIES if v in units]
    for v in variants:
        prog.entries[v] = (f"kb_{v}", "exe")
    # which libm code each column reaches
    for stem in ("scalar", "expand", "anchor", "anchor_ll"):
        if stem not in units:
            continue
        for sym in _undefined(wd / f"{stem}.o", wd):
            if sym in SCALAR_LIBM or sym.startswith("_Exp_"):
                prog.entries[f"{stem}/{sym}"] = (sym, "exe")
    dis = run(["objdump", "-dr", "fastmath.o"], wd)
    prog.libmvec_calls = sorted(set(re.findall(r"\b(_ZGV\w+)\b", dis)))
    for sym in prog.libmvec_calls:
        prog.entries[f"fastmath/{sym}"] = (sym, "libmvec")
    if not re.search(r"\bv?(add|sub|mul|div|sqrt|fmadd\w*)ps\b", dis):
        prog.notes.append(f"{LABELS['fastmath']}: no packed arithmetic in the object (GCC did not vectorize the loop)")
    dis = run(["objdump", "-dr", "clones.o"], wd)
    prog.clone_calls = sorted(set(re.findall(rf"\b(_ZGV\w+?_{re.escape(clone)})\b", dis)))
    for sym in prog.clone_calls:
        prog.entries[f"clones/{sym}"] = (sym, "exe")
    if not prog.clone_calls:
        prog.notes.append(f"{LABELS['clones']}: the loop calls no _ZGV clone of {func} (GCC kept a scalar loop)")
    (wd / "main.c").write_text(main_c(prog, quick, variants))
    run(["gcc", *MAIN_FLAGS, *cflags, "-c", "main.c", "-o", "main.o"], wd)
    # mathlib's vector libm without the libmvec names it also defines (GCC's -ffast-math loops must reach libmvec)
    arch = libdir / "lib" / "x86_64"
    run(["objcopy", "--wildcard", "--localize-symbol=_ZGV*", str(arch / "libexpandm.a"), "libexpandm_own.a"], wd)
    objs = ["main.o", *(f"{s}.o" for s in units)]
    run(["gcc", *isa.cflags, "-pie", *objs, "libexpandm_own.a", str(arch / "libexpandm_scalar.a"), "-lmvec", "-lm",
         "-o", "bench"], wd)
    prog.exe = wd / "bench"
    prog.variants = variants


def main_c(prog: KProgram, quick: bool, variants: list[str]) -> str:
    """The program: the arrays and scalars, the checks against the scalar run, the timed rounds."""
    k = prog.kernel
    tol = k.tolerance
    w = [f"/* mathlib.kbench: {k.name} [{prog.isa}], {'quick' if quick else 'full'} sizes */\n",
         "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
         "#include <string.h>\n#include <time.h>\n#include \"kb_data.h\"\n\n"]
    for a in k.arrays:
        size = c_expr(k, a.size)
        w.append(f"{a.ctype} kb_{a.name}[{size}] __attribute__((aligned(64)));\n")
        if a.output:
            w.append(f"static {a.ctype} kb_{a.name}_init[{size}], kb_{a.name}_ref[{size}];\n")
    w += [f"{t} kb_{n} = {c_expr(k, init)};\n" for t, n, init in k.scalars]
    w.append("\n")
    w += [f"void kb_{v}(void);\n" for v in variants]
    declared = {f"kb_{v}" for v in variants}
    for sym, _ in prog.entries.values():
        if sym not in declared:
            w.append(f"extern void {sym}(void);\n")
            declared.add(sym)
    w.append("\nstatic const struct { const char *name; void (*fn)(void); int exact; } V[] = {\n")
    w += [f'    {{"{v}", kb_{v}, {int(v in EXACT or v == "scalar")}}},\n' for v in variants]
    w.append("};\n#define NV (int)(sizeof V / sizeof V[0])\n")
    w.append(f"#define TOL_REL {tol.rel!r}\n#define TOL_ABS {tol.abs!r}\n#define TOL_FRAC {tol.frac!r}\n")
    w.append(WHERE_C)
    init = "".join(f"    for (long k = 0; k < (long)(sizeof kb_{a.name} / sizeof kb_{a.name}[0]); k++)"
                   f" kb_{a.name}[k] = {c_expr(k, a.init)};\n" for a in k.arrays)
    outs = [a for a in k.arrays if a.output]
    save = "".join(f"    memcpy(kb_{a.name}_init, kb_{a.name}, sizeof kb_{a.name});\n" for a in outs)
    reset = "".join(f"    memcpy(kb_{a.name}, kb_{a.name}_init, sizeof kb_{a.name});\n" for a in outs)
    ref = "".join(f"    memcpy(kb_{a.name}_ref, kb_{a.name}, sizeof kb_{a.name});\n" for a in outs)
    cmp = "".join(f"    kb_cmp(kb_{a.name}_ref, kb_{a.name}, sizeof kb_{a.name} / sizeof kb_{a.name}[0], "
                  f"{int(a.ctype == 'float')}, c);\n" for a in outs)
    return "".join(w) + (_MAIN_C.replace("@INIT@", init).replace("@SAVE@", save).replace("@RESET@", reset)
                         .replace("@REF@", ref).replace("@CMP@", cmp).replace("@ENTRIES@", entries_code(prog.entries)))


_MAIN_C = r"""
/* a value in [0, 1) that depends only on (k, salt): the same inputs in every program */
static float kb_unit(long k, int salt)
{
    uint64_t z = (uint64_t)k * 0x9E3779B97F4A7C15ull + (uint64_t)salt * 0xD1B54A32D192ED03ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (float)((z ^ (z >> 31)) >> 40) * 0x1p-24f;
}

static void kb_init(void)
{
@INIT@@SAVE@}

static void kb_reset(void)
{
@RESET@}

static void kb_save_ref(void)
{
@REF@}

/* how a column's outputs compare with the scalar run's */
struct kb_check { long n, bits, off; double max_abs; };

static double kb_value(const void *p, long k, int isf)
{
    if (isf) { float f; memcpy(&f, (const char *)p + 4 * k, 4); return f; }
    int32_t i; memcpy(&i, (const char *)p + 4 * k, 4); return i;
}

static void kb_cmp(const void *want, const void *got, long n, int isf, struct kb_check *c)
{
    for (long k = 0; k < n; k++) {
        uint32_t x, y;
        memcpy(&x, (const char *)want + 4 * k, 4);
        memcpy(&y, (const char *)got + 4 * k, 4);
        c->n++;
        int xnan = isf && (x & 0x7fffffffu) > 0x7f800000u, ynan = isf && (y & 0x7fffffffu) > 0x7f800000u;
        if (x == y || (xnan && ynan))
            continue;
        c->bits++;
        double a = kb_value(want, k, isf), b = kb_value(got, k, isf), d = a > b ? a - b : b - a;
        double lim = TOL_ABS + TOL_REL * (a < 0 ? -a : a);
        if (xnan || ynan || !(d <= lim))
            c->off++;
        if (!xnan && !ynan && d > c->max_abs)
            c->max_abs = d;
    }
}

static void kb_compare(struct kb_check *c)
{
    memset(c, 0, sizeof *c);
@CMP@}

static double kb_now(void)
{
    /* this thread's CPU time: time slices other processes take on a busy machine do not count */
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double kb_time(void (*fn)(void), long reps)
{
    double t0 = kb_now();
    for (long r = 0; r < reps; r++) {
        fn();
        __asm__ volatile("" ::: "memory");
    }
    return kb_now() - t0;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    double target = (argc > 2 ? atof(argv[2]) : 3.0) * 1e6; /* ns per column and round */
    static double samples[16][256];
    long reps[16];
    int timed[16];
    if (rounds > 256) rounds = 256;
@ENTRIES@    kb_init();
    /* the checks: every column from the same initial arrays, against the scalar run */
    V[0].fn();
    kb_save_ref();
    for (int v = 0; v < NV; v++) {
        struct kb_check c;
        kb_reset();
        V[v].fn();
        kb_compare(&c);
        timed[v] = V[v].exact ? c.bits == 0 : c.off <= TOL_FRAC * (double)c.n;
        printf("check %s %ld %ld %ld %.9g %d\n", V[v].name, c.bits, c.off, c.n, c.max_abs, timed[v]);
    }
    kb_reset();
    for (int v = 0; v < NV; v++) {
        if (!timed[v]) continue;
        kb_time(V[v].fn, 1);
        double t = kb_time(V[v].fn, 1);
        reps[v] = t > 0 ? (long)(target / t) + 1 : 1;
    }
    for (int r = 0; r < rounds; r++)
        for (int j = 0; j < NV; j++) {
            int v = (j + r) % NV;
            if (timed[v])
                samples[v][r] = kb_time(V[v].fn, reps[v]) / ((double)reps[v] * KB_ELEMENTS);
        }
    for (int v = 0; v < NV; v++) {
        if (!timed[v]) continue;
        printf("time %s %ld", V[v].name, reps[v]);
        for (int r = 0; r < rounds; r++) printf(" %.6f", samples[v][r]);
        printf("\n");
    }
    return 0;
}
"""


def run_program(prog: KProgram, rounds: int, min_ms: float, procs: int) -> dict:
    """Run the program ``procs`` times, ``rounds`` rounds spread over the runs, each pinned to one
    CPU; every run first proves where each column's entry points live. {"check": {...}, "time": {...}}."""
    assert prog.exe is not None
    cpu = max(os.sched_getaffinity(0))
    procs = max(1, min(procs, rounds))
    per = [rounds // procs + (1 if i < rounds % procs else 0) for i in range(procs)]
    checks: dict[str, dict] = {}
    times: dict[str, dict] = {}
    for r in per:
        p = subprocess.run([str(prog.exe), str(r), str(min_ms)], capture_output=True, text=True, timeout=3600,
                           preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        if p.returncode != 0:
            raise RuntimeError(f"{prog.exe} exited {p.returncode}: {p.stderr[-2000:]}")
        prog.where = check_entries(prog, p.stdout)
        for line in p.stdout.splitlines():
            parts = line.split()
            if parts and parts[0] == "check":
                bits, off, n = int(parts[2]), int(parts[3]), int(parts[4])
                c = checks.setdefault(parts[1], {"bits": 0, "off": 0, "n": n, "max_abs": 0.0, "ok": True})
                c["bits"], c["off"] = max(c["bits"], bits), max(c["off"], off)
                c["max_abs"], c["ok"] = max(c["max_abs"], float(parts[5])), c["ok"] and parts[6] == "1"
            elif parts and parts[0] == "time":
                d = times.setdefault(parts[1], {"samples": [], "reps": [], "run_medians": []})
                xs = [float(x) for x in parts[3:]]
                d["samples"] += xs
                d["reps"].append(int(parts[2]))
                d["run_medians"].append(statistics.median(xs))
    for v, d in times.items():
        d["ns_per_element"] = statistics.median(d["samples"])
        d["unstable"] = len(d["run_medians"]) > 1 and max(d["run_medians"]) > 1.5 * min(d["run_medians"])
    for v, d in times.items():
        d["speedup"] = paired_speed(d, times["scalar"]) if "scalar" in times else None
        d["vs_anchor"] = paired_speed(d, times["anchor"]) if "anchor" in times else None
    return {"check": checks, "time": times}


def check_entries(prog: KProgram, out: str) -> dict[str, str]:
    """Every column calls what it names: the ``entry`` lines against ``prog.entries``; {entry: object}."""
    seen = entry_lines(out)
    where = {}
    for name, (sym, lib) in prog.entries.items():
        if name not in seen:
            raise WrongEntryPoint(f"{prog.kernel.name} [{prog.isa}]: the program did not say where {sym} lives")
        obj = seen[name][1]
        if not lives_in(obj, lib, prog.exe):
            what = "the program itself" if lib == "exe" else f"{lib}.so"
            col = LABELS[name.split("/")[0]]
            raise WrongEntryPoint(f"the {col} column of {prog.kernel.name} [{prog.isa}] calls {sym} in {obj},"
                                  f" not in {what}")
        where[name] = obj
    return where


# ------------------------------------------------------------------------------------------------
# Reports


def cell_speedup(r: dict, v: str) -> str:
    """A table cell: the column's speedup over scalar, or why there is none."""
    if v == "expand" and r.get("diagnostic"):
        d = r["diagnostic"]
        return f"expand: **{d}**" if d.startswith("internal error") else f"expand: diagnostic {d}"
    c = r.get("check", {}).get(v)
    if c is not None and not c["ok"]:
        return f"**wrong**: {c['bits']:,} of {c['n']:,} differ" if v in EXACT else \
            f"**off**: {c['off']:,} of {c['n']:,} outside the tolerance"
    d = r.get("time", {}).get(v)
    return f"{d['speedup']:.2f}x" if d and d.get("speedup") else ""


def cell_ratio(r: dict, v: str) -> str:
    d = r.get("time", {}).get(v)
    return f"{d['vs_anchor']:.2f}" if d and d.get("vs_anchor") and r.get("check", {}).get(v, {}).get("ok") else "-"


def cell_check(r: dict, v: str) -> str:
    c = r.get("check", {}).get(v)
    if c is None:
        return "-"
    if v in EXACT:
        return "bit-exact" if c["bits"] == 0 else f"**{c['bits']:,} of {c['n']:,} differ**"
    if c["bits"] == 0:
        return "bit-exact"
    text = f"{c['bits']:,} differ, max |d| {c['max_abs']:.3g}"
    return text + (f", {c['off']:,} outside" if c["off"] else "") + ("" if c["ok"] else " **fails**")


def speed_table(data: dict) -> str:
    """The main table: per kernel and ISA, the scalar time, each column's speedup and its ratio to the anchor."""
    meta = data["meta"]
    out = [f"`python -m mathlib.bench --kernels{' --quick' if meta['quick'] else ''}` ({meta['date']}): "
           f"{meta['cpu']}; {meta['gcc']}; {meta['rounds']} rounds over {meta['runs']}"
           f" run{'s' * (meta['runs'] != 1)} of each program,"
           f" {'quick' if meta['quick'] else 'full'} sizes. Speedup: over the scalar column (median of per-round"
           " ratios); `/ anchor`: the anchor's time over the column's (1.00: as fast as the hand-written"
           " intrinsics). Every column was checked against the scalar run before it was timed.\n\n",
           "| kernel | ISA | scalar ns/element | expand | anchor | anchor, lane loads | GCC -O3 -ffast-math"
           " | GCC clones | expand / anchor | -ffast-math / anchor | clones / anchor |\n"
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"]
    for kname in meta["kernels"]:
        for isa in meta["isas"]:
            r = data["results"].get(isa, {}).get(kname)
            if r is None:
                continue
            if r.get("error"):
                out.append(f"| {kname} | {isa} | build failed: {r['error'].splitlines()[0][:120]} |"
                           " | | | | | | | |\n")
                continue
            s = r["time"].get("scalar", {}).get("ns_per_element")
            cells = [cell_speedup(r, v) for v in SHOWN]
            ratios = [cell_ratio(r, v) for v in ("expand", "fastmath", "clones")]
            out.append(f"| {kname} | {isa} | {fmt_ns(s) if s else ''} | " + " | ".join(cells + ratios) + " |\n")
    return "".join(out)


def markdown(data: dict) -> str:
    meta = data["meta"]
    out = ["# Kernel suite: speed over scalar and against the hand-written anchor\n\n", speed_table(data)]
    out.append("\n![speedup over scalar](kernels.png)\n")
    out.append("\n## Checks against the scalar run (before timing)\n\n"
               "expand and the anchor must match bit for bit (any NaN matching any NaN); GCC's columns must be"
               " within the kernel's tolerance (they may round differently: -ffast-math reassociates and"
               " contracts, libmvec is within 4 ULP).\n\n"
               "| kernel | ISA | elements | expand | anchor | anchor, lane loads | GCC -O3 -ffast-math | GCC clones"
               " | tolerance |\n|---|---|---:|---|---|---|---|---|---|\n")
    for kname in meta["kernels"]:
        for isa in meta["isas"]:
            r = data["results"].get(isa, {}).get(kname)
            if not r or r.get("error"):
                continue
            n = r["check"].get("scalar", {}).get("n", 0)
            out.append(f"| {kname} | {isa} | {n:,} | " + " | ".join(cell_check(r, v) for v in
                                                                    SHOWN)
                       + f" | {meta['tolerances'][kname]} |\n")
    out.append("\n## The kernels\n\n| kernel | what | one element | sizes (full; quick) | expand |\n"
               "|---|---|---|---|---|\n")
    for kname in meta["kernels"]:
        info = meta["about"][kname]
        out.append(f"| {kname} | {info['what']} | {info['unit']} | {info['sizes']} | {info['expand']} |\n")
    where: dict[str, set[str]] = {}
    calls: dict[str, set[str]] = {}
    for isa in meta["isas"]:
        for kname in meta["kernels"]:
            r = data["results"].get(isa, {}).get(kname, {})
            for name, obj in r.get("where", {}).items():
                col = name.split("/")[0]
                base = os.path.basename(obj)
                where.setdefault(col, set()).add("the benchmark program" if base == "bench" else base)
            for sym in r.get("libmvec_calls", []) + r.get("clone_calls", []):
                calls.setdefault(kname, set()).add(sym)
    if where:
        out.append("\n## What each column called (dladdr at run time; the benchmark stops if a column calls"
                   " another object than it names)\n\n")
        out += [f"- {LABELS[col]}: {', '.join(sorted(objs))}\n" for col, objs in sorted(where.items())]
        out += [f"- {kname}: GCC's columns call {', '.join(sorted(syms))}\n" for kname, syms in sorted(calls.items())]
    notes = [f"- {isa} {kname}: {n}\n" for isa in meta["isas"] for kname in meta["kernels"]
             for n in data["results"].get(isa, {}).get(kname, {}).get("notes", [])]
    if notes:
        out.append("\n## Notes\n\n")
        out += notes
    return "".join(out)


COLORS = {"expand": "#1f77b4", "anchor": "#d62728", "anchor_ll": "#ff9896", "fastmath": "#2ca02c", "clones": "#98df8a"}


def plot(data: dict, path: Path) -> bool:
    """Grouped bars of the speedups over scalar, one panel per ISA; False without matplotlib."""
    mpl = pyplot(path)
    if mpl is None:
        return False
    matplotlib, plt = mpl
    meta = data["meta"]
    isas, names = meta["isas"], meta["kernels"]
    series = list(SHOWN)
    fig, axes = plt.subplots(len(isas), 1, figsize=(max(8, 1.4 * len(names) + 2), 3.4 * len(isas) + 1.2),
                             squeeze=False)
    width = 0.84 / len(series)
    for ax, isa in zip(axes[:, 0], isas):
        top = 2.0
        for j, s in enumerate(series):
            xs, ys = [], []
            for i, kname in enumerate(names):
                r = data["results"].get(isa, {}).get(kname, {})
                d = r.get("time", {}).get(s)
                x = i - 0.42 + width * (j + 0.5)
                if d and d.get("speedup"):
                    xs.append(x)
                    ys.append(d["speedup"])
                    top = max(top, d["speedup"])
                elif s == "expand" and r.get("diagnostic"):
                    ax.text(x, 1.05, "diagnostic", rotation=90, ha="center", va="bottom", fontsize=7)
            ax.bar(xs, ys, width, label=LABELS[s], color=COLORS[s], edgecolor="black", linewidth=0.3)
        ax.set_yscale("log", base=2)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylim(0.5, top * 1.6)
        ax.set_yticks([2.0 ** k for k in range(-1, math.ceil(math.log2(top * 1.6)) + 1)])
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names)
        ax.set_ylabel(f"speedup over scalar\n{isa} ({get_isa(isa).lanes} lanes)")
        ax.grid(axis="y", linewidth=0.3)
    fig.suptitle(f"Kernel suite ({'quick' if meta['quick'] else 'full'} sizes): speedup over scalar\n"
                 f"{meta['cpu']}; {meta['gcc']}", fontsize=10)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(series), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.04, 1, 0.95))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


# ------------------------------------------------------------------------------------------------
# Driver


def bench_kernels(kernels: list[Kernel], isas: list[str], out: Path, *, quick: bool, rounds: int, min_ms: float,
                  procs: int, jobs: int, keep_build: Path | None, doc: Path | None = None, log=print) -> dict:
    """Build and run every (kernel, ISA) program, write kernels.md/json/png into ``out``; the data."""
    from .libm import ensure

    t0 = time.monotonic()
    libdir = ensure(isas, LIBM)
    root = keep_build or Path(tempfile.mkdtemp(prefix="expand-kbench-"))
    root.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict] = {i: {} for i in isas}
    try:
        progs = [build(k, i, root / f"{k.name}-{i}", quick=quick, libdir=libdir, jobs=jobs) for i in isas
                 for k in kernels]
        log(f"built {sum(p.exe is not None for p in progs)}/{len(progs)} programs in {time.monotonic() - t0:.0f} s")
        for p in progs:  # one at a time: nothing else of ours runs while a program measures
            r: dict = {"diagnostic": p.diagnostic, "notes": p.notes, "variants": p.variants,
                       "clone_calls": p.clone_calls, "libmvec_calls": p.libmvec_calls}
            if p.exe is None:
                r["error"] = p.error or "build failed"
                log(f"{p.isa:7} {p.kernel.name:14} ERROR {r['error'].splitlines()[0]}")
            else:
                try:
                    r.update(run_program(p, rounds, min_ms, procs))
                except (RuntimeError, subprocess.TimeoutExpired) as exc:
                    r["error"] = str(exc)
                r["where"] = p.where
                log(f"{p.isa:7} {p.kernel.name:14} " + "  ".join(
                    f"{v} {cell_speedup(r, v) or '-'}" if v != "expand" or not p.diagnostic else f"{v}: diagnostic"
                    for v in SHOWN))
            results[p.isa][p.kernel.name] = r
    finally:
        if keep_build is None:
            shutil.rmtree(root, ignore_errors=True)
    data = {
        "meta": {
            "cpu": cpu_model(), "gcc": gcc_version(), "isas": isas, "kernels": [k.name for k in kernels],
            "quick": quick, "rounds": rounds, "runs": procs, "min_ms": min_ms, "series": SERIES, "labels": LABELS,
            "date": time.strftime("%Y-%m-%d %H:%M:%S"), "runtime_s": time.monotonic() - t0,
            "tolerances": {k.name: k.tolerance.text() for k in kernels},
            "about": {k.name: {"what": k.what, "unit": k.unit, "source": str(k.source.relative_to(KERNELS_DIR.parent)),
                               "sizes": "; ".join(", ".join(f"{n} {v[j]}" for n, v in k.sizes.items())
                                                  for j in (0, 1)),
                               "expand": f"diagnostic: {k.diagnostic}" if k.diagnostic else "expands"}
                      for k in kernels},
        },
        "results": results,
    }
    write(data, out, doc)
    return data


def write(data: dict, out: Path, doc: Path | None = None) -> None:
    """kernels.json, kernels.png and kernels.md into ``out``; with ``doc``, the speed table also
    between the ``<!-- kernels -->`` markers of that file (docs/performance.md)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "kernels.json").write_text(json.dumps(data, indent=1) + "\n")
    plot(data, out / "kernels.png")
    (out / "kernels.md").write_text(markdown(data))
    if doc is not None:
        text = doc.read_text()
        if "<!-- kernels -->" not in text:
            raise SystemExit(f"{doc} has no <!-- kernels --> ... <!-- /kernels --> markers")
        table = speed_table(data)
        doc.write_text(re.sub(r"<!-- kernels -->.*?<!-- /kernels -->",
                              lambda _: f"<!-- kernels -->\n{table}<!-- /kernels -->", text, flags=re.S))


def main(args, isas: list[str]) -> int:
    """``python -m mathlib.bench --kernels``: ``args`` as mathlib.bench parsed them, ``isas`` those this
    host runs of the ones asked for."""
    from .suite import kernels

    names = [n for n in args.kernels.split(",") if n] if args.kernels != "all" else None
    ks = kernels(names)
    quick = args.quick
    rounds = args.rounds or (3 if quick else 12)
    procs = args.runs or (1 if quick else 6)
    min_ms = args.min_ms if args.min_ms is not None else (0.05 if quick else 3.0)
    out = args.out or (Path(tempfile.mkdtemp(prefix="expand-kbench-out-")) if quick else RESULTS_DIR)
    try:
        bench_kernels(ks, isas, out, quick=quick, rounds=rounds, min_ms=min_ms, procs=procs, jobs=args.jobs,
                      keep_build=args.keep_build, doc=args.doc)
    except WrongEntryPoint as exc:
        print(f"bench: error: {exc}: stopped (a column must call what it names)", file=sys.stderr)
        return 1
    print((out / "kernels.md").read_text())
    print(f"wrote {out / 'kernels.md'}, {out / 'kernels.json'}, {out / 'kernels.png'}")
    return 0
