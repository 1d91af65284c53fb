"""Digest of everything expand prints, for refactors that must not change a byte of output.

    python tests/output_digest.py --out before.json [--jobs 2] [--isa avx2 ...] [--quick]
    python tests/output_digest.py --out after.json
    python tests/output_digest.py --compare before.json after.json

Expands, for every ISA and BOSCC mode (off, auto, all): the corpus (mathlib/corpus.py), the loop
kernels, mathlib's kernels and expandm sources, the fuzz regressions, the diagnostic corpus inputs,
every file of glibc 2.36's ``sysdeps/ieee754/flt-32`` and ``dbl-64`` with glibc's own flags
(mathlib/realworld.py, default vector math), and the vector-libm units (``abi=True``). Each case's
record is the SHA-256 of the output text or of the diagnostic (``file:line:col: error: ...``). It
uses only the stable entry points (frontends' readers, ``expand.driver.expand_module``,
``emit.get_isa``), so the same script runs before and after a change of the package layout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MODES = ("off", "auto", "all")


def cases(quick: bool) -> list[dict]:
    """Every (source, how to read it, which functions, options) to expand, without the ISA and mode."""
    from mathlib.corpus import corpus, shim_dir

    out: list[dict] = []
    for f in corpus():
        out.append({"name": f"corpus/{f.name}", "path": str(f.source), "incs": [str(d) for d in f.include_dirs],
                    "functions": [f.func], "reader": "pycparser"})
        out.append({"name": f"corpus-abi/{f.name}", "path": str(f.source),
                    "incs": [str(d) for d in f.include_dirs], "functions": [f.func], "reader": "pycparser",
                    "abi": True, "modes": ["auto"]})
    for sub in ("mathlib/loops", "mathlib/kernels", "mathlib/expandm", "tests/fuzz_regressions"):
        for p in sorted((ROOT / sub).glob("*.c")):
            out.append({"name": f"{sub}/{p.name}", "path": str(p), "incs": [str(shim_dir())], "functions": None,
                        "reader": "pycparser"})
    for p in sorted((ROOT / "tests/diagnostics").glob("*.c")):
        out.append({"name": f"diagnostics/{p.name}", "path": str(p), "incs": [], "functions": None,
                    "reader": "pycparser", "modes": ["auto"]})
    if not quick:
        from mathlib.corpus import cache_dir
        top = cache_dir() / "glibc-2.36"
        for sub in ("flt-32", "dbl-64"):
            for p in sorted((top / "sysdeps/ieee754" / sub).glob("*.c")):
                out.append({"name": f"glibc/{sub}/{p.name}", "path": str(p), "incs": [], "functions": None,
                            "reader": "glibc", "modes": ["auto"] if sub == "dbl-64" else list(MODES)})
    return out


def _normalize(text: str) -> str:
    """``text`` with the paths of this checkout and of the glibc tree (which may be a symlink to
    another checkout's) as ``<ROOT>`` and ``<GLIBC>``: the same in every checkout."""
    glibc = ROOT / "mathlib" / "glibc"
    if glibc.exists():
        text = text.replace(str(glibc.resolve()), "<GLIBC>").replace(str(glibc), "<GLIBC>")
    return text.replace(str(ROOT), "<ROOT>")


def run_case(job: tuple[dict, str, str]) -> tuple[str, str]:
    """(key, digest) of one case for one ISA and mode."""
    case, isa_name, mode = job
    key = f"{case['name']} {isa_name} {mode}"
    from emit import get_isa
    try:
        from expand.ir.diagnostics import ExpandError
    except ImportError:  # (the layout before the stage folders)
        from expand.diagnostics import ExpandError

    isa = get_isa(isa_name)
    try:
        from expand.driver import expand_module
        if case["reader"] == "glibc":
            from expand.vecmath import VectorMath, parse_modes
            from mathlib import realworld
            path = Path(case["path"])
            flags = realworld.glibc_flags(realworld.glibc_root(path), isa)
            mod = realworld.read_source(path, isa, flags)
            res = expand_module(mod, isa, boscc=mode, vector_math=VectorMath(parse_modes("expand"), None))
        else:
            from frontends.pycparser_frontend import read_file
            text = Path(case["path"]).read_text()
            mod = read_file(case["path"], text, case["incs"], cc=isa.preprocessor)
            res = expand_module(mod, isa, functions=case["functions"], boscc=mode, abi=case.get("abi", False))
        kind, body = "output", _normalize(res.text)
    except ExpandError as exc:
        kind, body = "error", _normalize(str(exc))
    except Exception as exc:  # (a traceback is an outcome too: it must stay the same)
        kind, body = "exception", f"{type(exc).__name__}: {exc}"
    return key, f"{kind} {hashlib.sha256(body.encode()).hexdigest()[:16]}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--isa", action="append")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="leave out glibc's flt-32 and dbl-64 trees")
    ap.add_argument("--match", help="only the cases whose name contains this text")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args(argv)
    if args.compare:
        a, b = (json.loads(p.read_text()) for p in args.compare)
        diff = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
        for k in diff[:50]:
            print(f"differs: {k}: {a.get(k)} -> {b.get(k)}")
        whole = [hashlib.sha256(json.dumps(x, sort_keys=True).encode()).hexdigest()[:16] for x in (a, b)]
        print(f"{len(a)} / {len(b)} cases; {len(diff)} differ; digests {whole[0]} {whole[1]}")
        return 1 if diff else 0
    from emit import ISAS
    isas = args.isa or list(ISAS)
    jobs = [(c, i, m) for c in cases(args.quick) for i in isas for m in c.get("modes", MODES)
            if args.match is None or args.match in c["name"]]
    start = time.monotonic()
    with multiprocessing.Pool(args.jobs, maxtasksperchild=50) as pool:
        result = dict(pool.imap_unordered(run_case, jobs, chunksize=4))
    text = json.dumps(dict(sorted(result.items())), indent=0, sort_keys=True)
    if args.out:
        args.out.write_text(text)
    whole = hashlib.sha256(json.dumps(dict(sorted(result.items())), sort_keys=True).encode()).hexdigest()[:16]
    kinds = {k: sum(v.startswith(k) for v in result.values()) for k in ("output", "error", "exception")}
    print(f"{len(result)} cases in {time.monotonic() - start:.0f} s ({kinds}); digest {whole}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
