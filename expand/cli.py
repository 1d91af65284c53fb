"""The ``expand`` command line: compiler conventions, diagnostics instead of tracebacks."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from . import __version__
from .diagnostics import ExpandError

EXIT_OK, EXIT_DIAG, EXIT_USAGE = 0, 1, 2


def _split(values: list[str] | None) -> list[str]:
    out: list[str] = []
    for v in values or []:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def build_parser() -> argparse.ArgumentParser:
    from emit import ISAS, default_isa
    p = argparse.ArgumentParser(
        prog="expand",
        description="Expand scalar C functions into vector C (one lane per call) with SIMD intrinsics.",
        epilog="Exit status: 0 success, 1 diagnostics (or --verify mismatches), 2 usage errors.",
    )
    p.add_argument("input", nargs="?", help="C source file, or - for standard input")
    p.add_argument("-o", "--output", help="output file (default: standard output)")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR", help="add include directory")
    p.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]", help="define macro")
    p.add_argument("-U", dest="undef", action="append", default=[], metavar="NAME", help="undefine macro")
    p.add_argument("--isa", default=default_isa(), choices=list(ISAS),
                   help=f"target instruction set (default: {default_isa()}, the best this host runs)")
    p.add_argument("--lanes", type=int, metavar="N",
                   help="lanes per call (a multiple of the ISA's natural width: 4 on 128-bit ISAs, 8 on AVX2, "
                        "16 on AVX-512)")
    p.add_argument("--list-isas", action="store_true", help="list the ISAs with their lane counts and needs")
    p.add_argument("--functions", action="append", metavar="NAME,...",
                   help="functions to expand (default: every function with external linkage in the file)")
    p.add_argument("--expandable", action="append", metavar="NAME,...",
                   help="callees that have vector versions (called as PREFIX+NAME with vector arguments)")
    p.add_argument("--uniform", action="append", metavar="PARAM,...",
                   help="parameters with one value for every lane (scalar in the vector signature)")
    p.add_argument("--linear", action="append", metavar="PARAM,...",
                   help="integer parameters that are consecutive across lanes (lane l gets value + l)")
    p.add_argument("--boscc", choices=("off", "all", "auto"), default="auto",
                   help="skip regions whose mask is all false: off, all (every region), auto (cost model; "
                        "default)")
    p.add_argument("--frontend", choices=("auto", "pycparser", "clang"), default="auto",
                   help="C reader: pycparser + pycparserext, or libclang; auto = pycparser, falling back to "
                        "clang for what only clang reads (both build the same IR)")
    p.add_argument("--dot", metavar="FILE",
                   help="write each function's control-flow graph with its block masks, before and after "
                        "linearization, as Graphviz")
    p.add_argument("--prefix", default="_Exp_", help="name prefix of expanded functions (default: _Exp_)")
    p.add_argument("--verify", action="store_true",
                   help="compile the output and the scalar original, run both on edge and random inputs, "
                        "compare every lane bit for bit")
    p.add_argument("--link", action="append", default=[], metavar="FILE",
                   help="extra C source the scalar function needs at link time (for --verify; repeatable)")
    p.add_argument("--random", type=int, default=100_000, metavar="N",
                   help="random inputs per function for --verify (default: 100000)")
    p.add_argument("--version", action="version", version=f"expand {__version__}")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if exc.code in (0, None) else EXIT_USAGE
    if args.list_isas:
        from emit import ISAS
        for name, (_, _, lanes, needs) in ISAS.items():
            print(f"{name:8} {lanes:2} lanes  {needs}")
        return EXIT_OK
    if args.input is None:
        parser.print_usage(sys.stderr)
        print("expand: error: an input file (or -) is required", file=sys.stderr)
        return EXIT_USAGE
    try:
        return run(args)
    except ExpandError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_DIAG
    except RecursionError:
        print(f"{args.input}: error: expression nesting is too deep", file=sys.stderr)
        return EXIT_DIAG


def run(args: argparse.Namespace) -> int:
    from emit import get_isa
    from frontends.clang_frontend import read_file_any

    from .driver import expand_module

    if args.input == "-":
        path = "<stdin>"
        data = sys.stdin.buffer.read()
    else:
        path = args.input
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            print(f"expand: error: cannot read '{path}': {exc.strerror}", file=sys.stderr)
            return EXIT_DIAG
    if args.output and args.input != "-" and Path(args.output).resolve() == Path(args.input).resolve():
        print("expand: error: the output file is the input file; refusing to overwrite it", file=sys.stderr)
        return EXIT_USAGE
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        print(f"{path}:{line}:1: error: input is not UTF-8 text", file=sys.stderr)
        return EXIT_DIAG
    try:
        isa = get_isa(args.isa, args.lanes)
    except ValueError as exc:
        print(f"expand: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    mod = read_file_any(path, text, args.include, args.define, args.undef, frontend=args.frontend, cc=isa.cc)
    dots: list[str] | None = [] if args.dot else None
    result = expand_module(mod, isa, functions=_split(args.functions) or None,
                           expandable=set(_split(args.expandable)), prefix=args.prefix,
                           shapes={**{n: "uniform" for n in _split(args.uniform)},
                                   **{n: "linear" for n in _split(args.linear)}},
                           dot=dots, boscc=args.boscc,
                           command="expand " + " ".join(sys.argv[1:]) if sys.argv[1:] else "")
    if args.dot:
        Path(args.dot).write_text("".join(dots))
    if args.output:
        out = Path(args.output)
        fd, tmp = tempfile.mkstemp(dir=out.parent if str(out.parent) else ".", prefix=".expand-")
        with os.fdopen(fd, "w") as f:
            f.write(result.text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, out)
    elif not args.verify:
        sys.stdout.write(result.text)
    if not args.verify:
        return EXIT_OK
    if path == "<stdin>":
        print("expand: error: --verify needs the input as a file", file=sys.stderr)
        return EXIT_USAGE
    return verify_result(result, path, args, isa)


def verify_params(params) -> list:
    """The verifier's view of the parameters (with their ABI shapes where it knows them)."""
    from .verify import Param

    out = []
    for p in params:
        try:
            out.append(Param(p.name, p.type, p.shape or "varying"))
        except TypeError:  # a verifier without shapes
            out.append(Param(p.name, p.type))
    return out


def verify_result(result, path: str, args, isa) -> int:
    from .verify import verify

    status = EXIT_OK
    for f in result.functions:
        rep = verify(scalar_sources=[Path(path).resolve()], scalar_name=f.scalar_name, vector_c=result.text,
                     vector_name=f.vector_name, params=verify_params(f.params), ret=f.ret,
                     isa=isa, include_dirs=[Path(d).resolve() for d in args.include], defines=args.define,
                     undefs=args.undef, link_files=[Path(x).resolve() for x in args.link], constants=f.constants,
                     n_random=args.random)
        print(rep.summary)
        if not rep.ok:
            print(rep.details, file=sys.stderr)
            status = EXIT_DIAG
    return status


if __name__ == "__main__":
    sys.exit(main())
