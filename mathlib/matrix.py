"""The function x ISA matrix: expand every corpus function for every ISA and verify it.

    python -m mathlib.matrix [--isa NAME ...] [--readme docs/isas.md]

Rows: the corpus (mathlib.corpus), the loop kernels (mathlib/loops) and the kernel suite
(mathlib.suite, with the parameter ranges its kernels need; a suite kernel expand cannot expand yet
shows its diagnostic, and counts as a failure only when the diagnostic is not the one the suite
expects). Prints a Markdown table (one row per function, one column per ISA, each cell the number of inputs
compared with 0 mismatches, or what failed); with ``--readme`` it also replaces the table between
the ``<!-- matrix -->`` markers of that file. Native ISAs get 100,000 random inputs per function,
emulated ones (run under qemu) 20,000, each on top of the edge set (``--random N,M`` sets the two;
the README's test run takes fewer: tests/hostrun.py ``TEST_RANDOM``). An ISA this host cannot run
(emit/host.py: AVX-512 on a CPU without it) is expanded, compiled and linked, and its cells say
"compiled, not run here".
"""

from __future__ import annotations

import argparse
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from emit import ISAS, get_isa
from emit.isa import Isa
from expand.check.verify import Param, verify
from expand.driver import expand_module
from expand.ir.diagnostics import ExpandError
from frontends.pycparser_frontend import read_file

from .corpus import CorpusFunction, corpus
from .suite import KERNELS, suite_functions

LOOPS = Path(__file__).parent / "loops"


def loop_kernels() -> list[CorpusFunction]:
    """Our loop kernels (mathlib/loops), one function each, named like the file."""
    return [CorpusFunction(p.stem, p, p.stem, [], [], ["m"]) for p in sorted(LOOPS.glob("*.c"))]


#: random inputs per function on a native ISA and on one run under qemu (on top of the edge set)
RANDOM = (100_000, 20_000)


def random_inputs(isa: Isa, n_random: tuple[int, int] = RANDOM) -> int:
    """The random inputs of ``n_random`` (natively, under qemu) that ``isa`` takes."""
    return n_random[1] if isa.run_prefix else n_random[0]


#: suite kernel -> the diagnostic expand gives for it today (mathlib.suite)
EXPECTED_DIAGNOSTICS = {k.name: k.diagnostic for k in KERNELS if k.diagnostic}


def check(f: CorpusFunction, isa_name: str, boscc: str = "auto",
          n_random: tuple[int, int] = RANDOM) -> tuple[bool, str]:
    """Expand ``f`` for ``isa_name`` and verify it; (ok, table cell)."""
    ok, cell, _ = check_detailed(f, isa_name, boscc, n_random)
    return ok, cell


def check_detailed(f: CorpusFunction, isa_name: str, boscc: str = "auto",
                   n_random: tuple[int, int] = RANDOM) -> tuple[bool, str, str]:
    """``check``, plus what a failure printed (the verification's summary and details; "" when ok).
    ``n_random``: the random inputs on a native ISA and on an emulated one."""
    isa = get_isa(isa_name)
    try:
        mod = read_file(str(f.source), f.source.read_text(), [str(d) for d in f.include_dirs],
                        cc=isa.preprocessor)
        res = expand_module(mod, isa, functions=[f.func], boscc=boscc)
    except ExpandError as exc:
        expected = EXPECTED_DIAGNOSTICS.get(f.name)
        if expected is not None and expected in exc.message:
            return True, f"diagnostic (expected): {exc.message}", ""
        return False, f"error: {exc.message}", exc.message
    (e,) = res.functions
    rep = verify(scalar_sources=[f.source], scalar_name=e.scalar_name, vector_c=res.text,
                 vector_name=e.vector_name, params=[Param(p.name, p.type, p.shape or "varying") for p in e.params],
                 ret=e.ret,
                 isa=isa, include_dirs=f.include_dirs, link_files=f.link, libs=tuple(f.libs) or ("m",),
                 constants=e.constants, n_random=random_inputs(isa, n_random), bounds=f.bounds)
    if rep.ok:
        return True, f"{rep.inputs:,} ok", ""
    if rep.not_run is not None:  # compiled and linked; this host cannot run it (emit/host.py)
        return True, "compiled, not run here", ""
    why = f"{rep.summary}\n{rep.details[:3000]}"
    if rep.mismatches:
        return False, f"{rep.mismatches:,} of {rep.inputs:,} differ", why
    return False, f"failed ({rep.verdict})", why


def table(isas: list[str], jobs: int = 2, boscc: str = "auto", failures: list[str] | None = None,
          funcs: list[CorpusFunction] | None = None, n_random: tuple[int, int] = RANDOM) -> tuple[str, bool]:
    """The matrix of ``funcs`` (default: the corpus, the loop kernels and the suite) x ``isas`` as Markdown,
    and whether every cell is ok; ``failures`` (when given) gets one text per failed cell: the function,
    the ISA and what the verification printed."""
    if funcs is None:
        funcs = corpus() + loop_kernels() + suite_functions()
    cells: dict[tuple[int, str], tuple[bool, str, str]] = {}
    with ThreadPoolExecutor(jobs) as pool:  # (by position: the loop kernels and the suite both have a mandelbrot)
        futs = {(n, i): pool.submit(check_detailed, f, i, boscc, n_random) for n, f in enumerate(funcs) for i in isas}
        for key, fut in futs.items():
            cells[key] = fut.result()
            if failures is not None and not cells[key][0]:
                f = funcs[key[0]]
                failures.append(f"{f.name} ({f.source}) [{key[1]}]: {cells[key][1]}\n{cells[key][2]}")
    head = "| function | " + " | ".join(f"{i} ({get_isa(i).lanes})" for i in isas) + " |"
    sep = "|---|" + "---|" * len(isas)
    rows = [head, sep]
    for n, f in enumerate(funcs):
        rows.append(f"| {f.name} | " + " | ".join(cells[(n, i)][1] for i in isas) + " |")
    ok = all(v[0] for v in cells.values())
    return "\n".join(rows), ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--isa", action="append", help="ISAs to check (default: all)")
    ap.add_argument("--readme", type=Path, help="update the table between <!-- matrix --> markers")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--boscc", choices=("off", "all", "auto"), default="auto")
    ap.add_argument("--random", default=f"{RANDOM[0]},{RANDOM[1]}", metavar="N,M",
                    help="random inputs per function, natively and under qemu (default: %(default)s)")
    args = ap.parse_args(argv)
    isas = args.isa or list(ISAS)
    try:
        native, emulated = (int(v) for v in args.random.split(","))
    except ValueError:
        ap.error(f"--random: two counts, natively and under qemu (N,M), not {args.random!r}")
    text, ok = table(isas, args.jobs, args.boscc, n_random=(native, emulated))
    print(text)
    if args.readme:
        readme = args.readme.read_text()
        new = re.sub(r"<!-- matrix -->.*?<!-- /matrix -->",
                     lambda _: f"<!-- matrix -->\n{text}\n<!-- /matrix -->", readme, flags=re.S)
        args.readme.write_text(new)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
