"""The scalar corpus (glibc flt-32 functions + mot + chroma) builds, parses and matches libm."""

from __future__ import annotations

import math
import shutil
import struct
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mathlib.corpus import CFLAGS, CPPFLAGS, CorpusFunction, corpus

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

NAMES = [
    "isinff", "finitef", "fabsf", "isnanf", "copysignf", "truncf", "ceilf",
    "scalbnf", "floorf", "roundf", "logf", "powf", "mot", "chroma",
]  # fmt: skip
GLIBC_NAMES = NAMES[:12]


def f2b(x: float) -> int:
    """Bits of x rounded to binary32."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


def b2f(u: int) -> float:
    """binary32 with bits u, as a Python float."""
    return struct.unpack("<f", struct.pack("<I", u))[0]


def is_nan_bits(u: int) -> bool:
    """Whether the binary32 bits u encode a NaN."""
    return (u & 0x7F800000) == 0x7F800000 and (u & 0x007FFFFF) != 0


# Inputs as binary32 bit patterns: zeros, halves, integers near 2^23, subnormals, huge, inf, NaNs.
UNARY = [f2b(v) for v in (0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.7, -3.7, 0.1, 10.0, 123.456,
                          -123.456, 8388607.5, -8388607.5, 8388608.0, 16777216.0, 1e30, -1e30, 2.718281828,
                          0.75, 1.0000001, 0.99999994)]
UNARY += [0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0xFF800000,
          0x7FC00000, 0xFFC00000, 0x7FA00000, 0x7F812345]
POW_X = [f2b(v) for v in (2.0, -2.0, 0.5, 0.0, 1.0, -1.0, 10.0, 1.5, 3.3, 1e-3, 65536.0)]
POW_X += [0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FA00000, 0x00000100]
POW_Y = [f2b(v) for v in (10.0, 0.5, -1.0, 2.0, 3.0, -3.0, 0.0, 1.5, 100.0, -150.0, 0.333, 1e10)]
POW_Y += [0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000]
SCALB_N = [0, 1, -1, 10, -10, 127, -127, 149, -149, 300, -300, 100000, -100000]
CHROMA = [(0, 0, 255), (0, 0, 254), (1, 0, 255), (0, 9, 255), (255, 255, 255), (0, 0, 0)]
MOT_X = [0x3F800000, 0x3F800001, 0x3F800002, 0x3F800003, 0x00000000, 0x40490FDB]

# Spot checks: (function, argument bits..., expected result bits or int).
SPOT = [
    ("floorf", f2b(2.5), f2b(2.0)), ("floorf", f2b(-2.5), f2b(-3.0)), ("ceilf", f2b(2.5), f2b(3.0)),
    ("truncf", f2b(-2.5), f2b(-2.0)), ("roundf", f2b(2.5), f2b(3.0)), ("roundf", f2b(-0.5), f2b(-1.0)),
    ("fabsf", f2b(-3.0), f2b(3.0)), ("logf", f2b(1.0), f2b(0.0)), ("powf", f2b(2.0), f2b(10.0), f2b(1024.0)),
    ("copysignf", f2b(1.0), 0x80000000, f2b(-1.0)), ("scalbnf", f2b(1.0), 10, f2b(1024.0)),
    ("isinff", 0xFF800000, -1), ("isinff", f2b(1.0), 0), ("finitef", 0x7F800000, 0), ("finitef", f2b(5.0), 1),
    ("isnanf", 0x7FC00000, 1), ("isnanf", 0x7F800000, 0),
]  # fmt: skip

# Kinds: (C prototype of our function, libm reference, argument kinds, result kind).
KINDS: dict[str, tuple[str, str, str, str]] = {
    "isinff": ("int __isinff(float);", "isinff", "f", "i"),
    "finitef": ("int __finitef(float);", "finitef", "f", "i"),
    "isnanf": ("int __isnanf(float);", "isnanf", "f", "i"),
    "fabsf": ("float __fabsf(float);", "fabsf", "f", "f"),
    "truncf": ("float __truncf(float);", "truncf", "f", "f"),
    "ceilf": ("float __ceilf(float);", "ceilf", "f", "f"),
    "floorf": ("float __floorf(float);", "floorf", "f", "f"),
    "roundf": ("float __roundf(float);", "roundf", "f", "f"),
    "logf": ("float __logf(float);", "logf", "f", "f"),
    "copysignf": ("float __copysignf(float, float);", "copysignf", "ff", "f"),
    "powf": ("float __powf(float, float);", "powf", "ff", "f"),
    "scalbnf": ("float __scalbnf(float, int);", "scalbnf", "fi", "f"),
}


@pytest.fixture(scope="module")
def fns() -> dict[str, CorpusFunction]:
    """The corpus by short name (extracts the glibc sources on first use)."""
    return {fn.name: fn for fn in corpus()}


def _run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    """Run a command, capturing text output."""
    return subprocess.run(cmd, check=False, capture_output=True, text=True)


@pytest.fixture(scope="module")
def objects(fns: dict[str, CorpusFunction], tmp_path_factory: pytest.TempPathFactory) -> dict[Path, object]:
    """Compile every corpus source and link file once (in parallel): path -> .o path or error text."""
    out = tmp_path_factory.mktemp("corpus_obj")
    jobs: dict[Path, list[str]] = {}
    for fn in fns.values():
        for src in [fn.source, *fn.link]:
            obj = out / f"{src.stem}.o"
            jobs.setdefault(src, ["gcc", *CFLAGS, *fn.include_flags(), "-c", str(src), "-o", str(obj)])

    def build(src: Path) -> tuple[Path, object]:
        res = _run(jobs[src])
        return src, Path(jobs[src][-1]) if res.returncode == 0 else res.stderr or "gcc failed"

    with ThreadPoolExecutor(max_workers=8) as pool:
        return dict(pool.map(build, jobs))


def _c_float(u: int) -> str:
    """C expression for the binary32 with bits u."""
    return f"fl(0x{u:08x}u)"


def _harness_calls(name: str) -> list[str]:
    """C statements calling our function and the libm reference on the test inputs of `name`."""
    proto, ref, args, res = KINDS[name]
    ours = proto.split("(")[0].split()[-1]
    if args == "f":
        inputs = [(x,) for x in UNARY]
    elif args == "ff":
        inputs = [(x, y) for x in POW_X for y in POW_Y] if name == "powf" else [
            (x, y) for x in UNARY[::3] for y in (f2b(1.0), 0x80000000, 0x7FC00000, 0xFFC00000)]
    else:
        inputs = [(x, n) for x in UNARY for n in SCALB_N]
    inputs += [tuple(s[1:-1]) for s in SPOT if s[0] == name]
    lines = []
    for inp in inputs:
        cargs = ", ".join(_c_float(v) if k == "f" else str(v) for v, k in zip(inp, args))
        shown = " ".join(f"{v:08x}" if k == "f" else str(v) for v, k in zip(inp, args))
        if res == "f":
            lines.append(f'printf("{name} {shown} %08x %08x\\n", b({ours}({cargs})), b({ref}({cargs})));')
        else:
            lines.append(f'printf("{name} {shown} %d %d\\n", {ours}({cargs}), {ref}({cargs}));')
    return lines


@pytest.fixture(scope="module")
def harness(fns: dict[str, CorpusFunction], objects: dict[Path, object],
            tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[list[str]]]:
    """Link all 14 corpus objects with one test main; its output rows grouped by function."""
    objs = {o for o in objects.values() if isinstance(o, Path)}
    assert len(objs) == len(objects), "some corpus file did not compile (see test_compiles)"
    body = [line for name in GLIBC_NAMES for line in _harness_calls(name)]
    for u in MOT_X:
        body.append(f'{{ float y = -1; mot({_c_float(u)}, &y); printf("mot {u:08x} %08x\\n", b(y)); }}')
    for r, g, bl in CHROMA:
        body.append(f'{{ unsigned char o[3] = {{7, 7, 7}}; chroma({r}, {g}, {bl}, &o[0], &o[1], &o[2]); '
                    f'printf("chroma {r} {g} {bl} %d %d %d\\n", o[0], o[1], o[2]); }}')
    src = "\n".join([
        "#include <math.h>", "#include <stdio.h>", "#include <stdint.h>", "#include <string.h>",
        *(KINDS[n][0] for n in GLIBC_NAMES),
        "void mot(float, float *);",
        "void chroma(unsigned char, unsigned char, unsigned char,"
        + " unsigned char *, unsigned char *, unsigned char *);",
        "static uint32_t b(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }",
        "static float fl(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }",
        "int main(void) {", *body, "return 0; }", "",
    ])
    tmp = tmp_path_factory.mktemp("corpus_run")
    (tmp / "main.c").write_text(src)
    libs = sorted({f"-l{lib}" for fn in fns.values() for lib in fn.libs} | {"-lm"})
    # -fno-builtin: call the real libm (gcc folds e.g. isinff to a sign-less builtin).
    res = _run(["gcc", "-O1", "-fno-builtin", "-w", str(tmp / "main.c"), *map(str, sorted(objs)),
                "-o", str(tmp / "main"), *libs])
    assert res.returncode == 0, res.stderr
    run = _run([str(tmp / "main")])
    assert run.returncode == 0, run.stderr
    rows: dict[str, list[list[str]]] = {}
    for line in run.stdout.splitlines():
        fields = line.split()
        rows.setdefault(fields[0], []).append(fields[1:])
    return rows


@pytest.mark.parametrize("name", NAMES)
def test_source_exists(fns: dict[str, CorpusFunction], name: str) -> None:
    """Every corpus function's source, link files and include dirs exist."""
    fn = fns[name]
    assert fn.source.is_file()
    assert all(p.is_file() for p in fn.link)
    assert all(d.is_dir() for d in fn.include_dirs)
    assert fn.func in fn.source.read_text()  # s_finitef.c defines it through a FINITEF macro


@pytest.mark.parametrize("name", NAMES)
def test_compiles(fns: dict[str, CorpusFunction], objects: dict[Path, object], name: str) -> None:
    """The source and its link files compile with -O2 -Wall -Werror -ffp-contract=off."""
    for src in [fns[name].source, *fns[name].link]:
        assert isinstance(objects[src], Path), f"{src.name}:\n{objects[src]}"


@pytest.mark.parametrize("name", NAMES)
def test_parses(fns: dict[str, CorpusFunction], name: str) -> None:
    """gcc -E output of the source (and link files) parses with GnuCParser and defines func."""
    from pycparser import c_ast
    from pycparserext.ext_c_parser import GnuCParser

    fn = fns[name]
    for src in [fn.source, *fn.link]:
        res = _run(["gcc", *CPPFLAGS, *fn.include_flags(), str(src)])
        assert res.returncode == 0, res.stderr
        ast = GnuCParser().parse(res.stdout, str(src))
        if src == fn.source:
            defs = [n.decl.name for n in ast.ext if isinstance(n, c_ast.FuncDef) and n.coord.file == str(src)]
            assert fn.func in defs


def _same(kind: str, got: str, ref: str) -> bool:
    """Results agree: equal bits, or both NaN (payloads may differ between implementations)."""
    if got == ref:
        return True
    return kind == "f" and is_nan_bits(int(got, 16)) and is_nan_bits(int(ref, 16))


@pytest.mark.parametrize("name", GLIBC_NAMES)
def test_matches_libm(harness: dict[str, list[list[str]]], name: str) -> None:
    """Our build of the glibc function gives the system libm's results bit for bit."""
    kind = KINDS[name][3]
    rows = harness[name]
    assert rows
    bad = [r for r in rows if not _same(kind, r[-2], r[-1])]
    assert not bad, f"{name}: inputs / ours / libm: {bad[:5]}"
    got = {tuple(r[:-2]): r[-2] for r in rows}
    for spot in (s for s in SPOT if s[0] == name):
        args, want = spot[1:-1], spot[-1]
        key = tuple(f"{v:08x}" if k == "f" else str(v) for v, k in zip(args, KINDS[name][2]))
        assert got[key] == (f"{want:08x}" if kind == "f" else str(want)), spot


def test_mot_runs(harness: dict[str, list[list[str]]]) -> None:
    """mot: y = powf(bp[0], 2) = 1 when the low 2 bits of x are 0, else sqrtf(bits & 3)."""
    for u, y in harness["mot"]:
        low = int(u, 16) & 3
        assert int(y, 16) == f2b(1.0 if low == 0 else math.sqrt(low)), (u, y)


def test_chroma_runs(harness: dict[str, list[list[str]]]) -> None:
    """chroma copies the foreground unless it is pure blue (0, 0, 255)."""
    for r, g, bl, *out in harness["chroma"]:
        fg = [int(r), int(g), int(bl)]
        assert [int(v) for v in out] == ([7, 7, 7] if fg == [0, 0, 255] else fg)
