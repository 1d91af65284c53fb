"""How expand's cost grows with the size of a function: ``python -m expand.check.scaling [--quick]``.

Generates families of scalar functions of growing size (sequential ``if``s, nested ``if``s,
sequential ``if``s on a uniform parameter, an ``else if`` chain, a ``switch``, early returns, long
straight-line code, calls of an inlined helper, many loops, and a mix of all), expands each one in a
fresh subprocess with the whole pipeline (the frontend's reader and ``expand_module``, as the
``expand`` command runs them) for one ISA, and prints a Markdown table of the wall time, processor
time and peak memory (the child's maximum resident set size) of each run, then, per family, the
exponent ``k`` of ``time ~ size^k`` fitted by least squares on log-log scales over the three largest
sizes (small inputs measure constant costs), on processor time, which other work on a shared machine
does not inflate. Linear cost gives ``k`` near 1.

Each run has a processor-time limit and an address-space limit (``--timeout``, ``--memory``): a
run that exceeds one is a row saying so, not a stuck machine. Inside the child, expansion runs as
the ``expand`` command runs it (``expand.driver.few_collections``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def seq_ifs(n: int) -> str:
    """``n`` sequential ``if`` statements, each updating the running value."""
    body = [f"    if (x > {i}.5f)\n        y = y * 0.5f + {i}.25f;" for i in range(n)]
    return "float f(float x)\n{\n    float y = x;\n" + "\n".join(body) + "\n    return y;\n}\n"


def nested_ifs(n: int) -> str:
    """``n`` ``if`` statements nested in groups of depth 8 (deeper nests exceed C compilers' and
    pycparser's recursion sooner than they measure cost)."""
    lines = ["float f(float x)", "{", "    float y = x;"]
    i = 0
    while i < n:
        depth = min(8, n - i)
        for d in range(depth):
            lines.append("    " * (d + 1) + f"if (y > {i + d}.5f) {{")
            lines.append("    " * (d + 2) + f"y = y * 0.75f - {i + d}.125f;")
        for d in reversed(range(depth)):
            lines.append("    " * (d + 1) + "}")
        i += depth
    lines += ["    return y;", "}"]
    return "\n".join(lines) + "\n"


def else_if_chain(n: int) -> str:
    """One ``if`` ... ``else if`` chain of ``n`` arms."""
    arms = [f"if (x < {i}.5f)\n        y = {i}.25f * x;" for i in range(n)]
    return ("float f(float x)\n{\n    float y;\n    " + "\n    else ".join(arms)
            + "\n    else\n        y = x;\n    return y;\n}\n")


def early_returns(n: int) -> str:
    """``n`` early ``return`` statements (single-exit normalization makes them jumps to the end)."""
    body = [f"    if (y > {i}.5f)\n        return y - {i}.0f;\n    y = y * 1.5f;" for i in range(n)]
    return "float f(float x)\n{\n    float y = x;\n" + "\n".join(body) + "\n    return y;\n}\n"


def switch_cases(n: int) -> str:
    """A ``switch`` on an int parameter with ``n`` cases that break and a default."""
    cases = [f"    case {i}:\n        y = x * {i}.5f;\n        break;" for i in range(n)]
    return ("float f(float x, int k)\n{\n    float y = x;\n    switch (k) {\n" + "\n".join(cases)
            + "\n    default:\n        y = -x;\n    }\n    return y;\n}\n")


def straight(n: int) -> str:
    """``n`` lines of straight-line code: each a new local computed from the two before it."""
    lines = ["float f(float x)", "{", "    float v0 = x;", "    float v1 = x * 2.0f;"]
    lines += [f"    float v{i} = v{i - 1} * 0.5f + v{i - 2} - {i}.0f;" for i in range(2, n)]
    lines += [f"    return v{max(n - 1, 1)};", "}"]
    return "\n".join(lines) + "\n"


def many_loops(n: int) -> str:
    """``n`` loops one after the other, each with a varying trip count (masked loops)."""
    body = [f"    for (int i = 0; i < k; i++)\n        y = y * 0.5f + {i}.0f;" for i in range(n)]
    return "float f(float x, int k)\n{\n    float y = x;\n" + "\n".join(body) + "\n    return y;\n}\n"


def uniform_ifs(n: int) -> str:
    """``n`` sequential ``if`` statements on a uniform parameter (``--uniform k``): plain branches."""
    body = [f"    if (k > {i})\n        y = y * 0.5f + {i}.25f;" for i in range(n)]
    return "float f(float x, int k)\n{\n    float y = x;\n" + "\n".join(body) + "\n    return y;\n}\n"


def helper_calls(n: int) -> str:
    """``n`` calls of a static inline helper (inlined: each leaves temporaries to fold away)."""
    body = [f"    y = y * 0.5f + cube(x - {i}.5f);" for i in range(n)]
    return ("static inline float cube(float v)\n{\n    float w = v * v;\n    return w * v;\n}\n\n"
            "float f(float x)\n{\n    float y = x;\n" + "\n".join(body) + "\n    return y;\n}\n")


def mixed(n: int) -> str:
    """About ``n`` lines of a long function mixing the rest, in blocks of 20 lines: straight code,
    ``if``/``else``, nested ``if``s and a loop in each, an early return in every tenth (each early
    return puts the rest of the function one level deeper in BOSCC guards: see ``early_returns``)."""
    lines = ["float f(float x, int k)", "{", "    float y = x;", "    float z = 1.0f;"]
    i = 0
    while len(lines) < n:
        lines += [f"    z = z * 0.5f + y * {i}.0f;",
                  f"    if (y > {i}.5f) {{",
                  f"        y = y - z * {i}.25f;",
                  "    } else {",
                  f"        y = y + {i}.75f;",
                  "    }",
                  f"    if (z < {i}.5f) {{",
                  f"        if (y < -{i}.5f)",
                  f"            z = z + {i}.0f;",
                  "    }",
                  f"    if (y == {i}.125f)",
                  "        return z;" if i % 10 == 9 else f"        z = z * {i}.25f;",
                  "    for (int j = 0; j < k; j++)",
                  f"        y = y * 0.75f + {i}.0f;",
                  f"    y = y + z * {i}.5f;",
                  f"    z = z - y * {i}.5f;",
                  "    if (x > y)",
                  "        y = x;",
                  "    else",
                  "        z = -z;"]
        i += 1
    lines += ["    return y + z;", "}"]
    return "\n".join(lines) + "\n"


@dataclass
class Family:
    name: str
    make: Callable[[int], str]
    unit: str  # what the size counts
    sizes: list[int]
    quick: list[int]
    uniform: tuple[str, ...] = ()  # parameters expanded as --uniform


# Sizes: up to 3,000 branches and 20,000 lines; families that nest (an else-if chain, a switch, which
# is one, early returns) stop where Python's recursion does, with the clean diagnostic the last row shows.
FAMILIES = [
    Family("sequential ifs", seq_ifs, "ifs", [375, 750, 1500, 3000], [20, 40]),
    Family("nested ifs", nested_ifs, "ifs", [375, 750, 1500, 3000], [20, 40]),
    Family("uniform ifs", uniform_ifs, "ifs", [375, 750, 1500, 3000], [20, 40], ("k",)),
    Family("else-if chain", else_if_chain, "arms", [30, 60, 120, 240, 480], [20, 40]),
    Family("switch", switch_cases, "cases", [40, 80, 160, 320, 640], [20, 40]),
    Family("early returns", early_returns, "returns", [75, 150, 300, 600, 1200], [20, 40]),
    Family("straight code", straight, "lines", [2500, 5000, 10000, 20000], [50, 100]),
    Family("helper calls", helper_calls, "calls", [375, 750, 1500, 3000], [10, 20]),
    Family("many loops", many_loops, "loops", [250, 500, 1000, 2000], [10, 20]),
    Family("mixed", mixed, "lines", [2500, 5000, 10000, 20000], [40, 80]),
]


@dataclass
class Run:
    family: str
    size: int
    lines: int
    status: str  # "ok", "diagnostic: ...", "timeout", "out of memory", "crash: ..."
    seconds: float | None = None  # read + expand, inside the child: wall time
    cpu: float | None = None  # and the child's processor time (what the fit uses: other load does not count)
    peak_mb: float | None = None  # the child's maximum resident set size
    out_lines: int = 0


def _child(path: str, isa_name: str, uniform: list[str]) -> None:
    """Expand ``path`` (run in the measured subprocess); prints one JSON line."""
    sys.path.insert(0, str(ROOT))
    from emit import get_isa
    from expand.driver import expand_module, few_collections
    from expand.ir.diagnostics import ExpandError, nesting_error
    from frontends.clang_frontend import read_file_any

    isa = get_isa(isa_name, None)
    text = Path(path).read_text()
    t0, c0 = time.perf_counter(), time.process_time()
    out: dict = {}
    try:
        with few_collections():  # (as the expand command runs)
            mod = read_file_any(path, text, frontend="auto", cc=isa.preprocessor)
            res = expand_module(mod, isa, shapes={p: "uniform" for p in uniform})
        out["status"] = "ok"
        out["out_lines"] = res.text.count("\n")
    except ExpandError as exc:
        out["status"] = "diagnostic: " + exc.render().splitlines()[0]
    except MemoryError:
        out["status"] = "out of memory"
    except RecursionError as exc:  # (as the expand command reports it)
        out["status"] = "diagnostic: " + nesting_error(exc, path).render().splitlines()[0]
    out["status"] = out["status"].replace(path, Path(path).name)  # (the input's name, not its temporary path)
    out["seconds"] = time.perf_counter() - t0
    out["cpu"] = time.process_time() - c0
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def measure(fam: Family, size: int, isa: str, timeout: float, memory_mb: int, keep: Path | None = None) -> Run:
    """Expand ``fam`` at ``size`` in a fresh Python process; ``keep``: a directory to copy inputs to."""
    src = fam.make(size)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{fam.name.replace(' ', '_')}_{size}.c"
        path.write_text(src)
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
            (keep / path.name).write_text(src)
        limit = memory_mb * 1024 * 1024
        cpu = math.ceil(timeout)

        def cap() -> None:  # (in the child, before exec)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))

        run = Run(fam.name, size, src.count("\n"), "")
        try:
            p = subprocess.run([sys.executable, "-m", "expand.check.scaling", "--child", str(path), "--isa", isa,
                                *(["--uniform", ",".join(fam.uniform)] if fam.uniform else [])],
                               capture_output=True, text=True, timeout=20 * timeout + 60, cwd=ROOT,
                               preexec_fn=cap, env={**os.environ, "PYTHONPATH": str(ROOT)})
        except subprocess.TimeoutExpired:  # (a stuck or starved child: the processor-time limit did not end it)
            run.status = f"timeout (> {20 * timeout + 60:g} s)"
            return run
        last = p.stdout.strip().splitlines()[-1:] if p.stdout.strip() else []
        if p.returncode in (-signal.SIGXCPU, -signal.SIGKILL) and not last:
            run.status = f"timeout (> {cpu} s CPU)"
            return run
        if p.returncode != 0 or not last:
            err = p.stderr.strip().splitlines()
            oom = p.returncode < 0 or any("MemoryError" in e for e in err)
            run.status = f"out of memory (> {memory_mb} MB address space)" if oom else \
                f"crash: {err[-1] if err else p.returncode}"
            return run
        data = json.loads(last[0])
        run.status = data["status"]
        run.seconds = data["seconds"]
        run.cpu = data["cpu"]
        run.peak_mb = data["peak_mb"]
        run.out_lines = data.get("out_lines", 0)
        if run.status == "out of memory":
            run.status = f"out of memory (> {memory_mb} MB address space)"
        return run


def fit_exponent(runs: list[Run], points: int = 3) -> float | None:
    """The slope of log(processor time) against log(size), least squares over the ``points`` largest
    sizes that expanded (None with fewer than two)."""
    ok = sorted((r for r in runs if r.status == "ok" and r.cpu), key=lambda r: r.size)[-points:]
    if len(ok) < 2:
        return None
    xs = [math.log(r.size) for r in ok]
    ys = [math.log(r.cpu) for r in ok]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else None


def table(runs: list[Run], families: list[Family]) -> str:
    """The Markdown table of ``runs``, then the fitted exponent of each family."""
    out = ["| family | size | input lines | time (s) | CPU (s) | peak MB | output lines | status |",
           "|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in runs:
        unit = next(f.unit for f in families if f.name == r.family)
        t = f"{r.seconds:.2f}" if r.seconds is not None else "-"
        c = f"{r.cpu:.2f}" if r.cpu is not None else "-"
        m = f"{r.peak_mb:.0f}" if r.peak_mb is not None else "-"
        out.append(f"| {r.family} | {r.size} {unit} | {r.lines} | {t} | {c} | {m} | {r.out_lines} | {r.status} |")
    out += ["", "| family | fitted exponent (CPU time ~ size^k, largest 3 sizes) |", "|---|---:|"]
    for f in families:
        k = fit_exponent([r for r in runs if r.family == f.name])
        out.append(f"| {f.name} | {'-' if k is None else f'{k:.2f}'} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m expand.check.scaling", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="two small sizes per family (seconds, for tests)")
    ap.add_argument("--isa", default="avx2", help="the ISA to expand for (default avx2)")
    ap.add_argument("--families", help="comma-separated family names (default: all)")
    ap.add_argument("--sizes", help="comma-separated sizes for every chosen family (default: each family's own)")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="processor seconds per run (default 300; wall time: 20 times as many)")
    ap.add_argument("--memory", type=int, default=8192, help="address-space limit per run in MB (default 8192)")
    ap.add_argument("--keep", type=Path, help="also write the generated inputs into this directory")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--uniform", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child, args.isa, [p for p in args.uniform.split(",") if p])
        return 0
    fams = FAMILIES
    if args.families:
        names = [n.strip() for n in args.families.split(",")]
        unknown = [n for n in names if n not in {f.name for f in FAMILIES}]
        if unknown:
            ap.error(f"unknown family '{unknown[0]}' (choose from {', '.join(f.name for f in FAMILIES)})")
        fams = [f for f in FAMILIES if f.name in names]
    runs: list[Run] = []
    for fam in fams:
        sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else fam.quick if args.quick else fam.sizes
        for size in sizes:
            r = measure(fam, size, args.isa, args.timeout, args.memory, args.keep)
            runs.append(r)
            print(f"{fam.name} {size}: {r.status} {r.seconds or 0:.2f} s ({r.cpu or 0:.2f} s CPU) "
                  f"{r.peak_mb or 0:.0f} MB",
                  file=sys.stderr, flush=True)
            if r.status != "ok":
                break  # (larger sizes of a family that failed would fail too)
    print(table(runs, fams))
    failed = [r for r in runs if r.status.startswith(("timeout", "out of memory", "crash"))]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
