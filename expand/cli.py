"""The ``expand`` command line: compiler conventions, diagnostics instead of tracebacks."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import os
import re
import shlex
import sys
from pathlib import Path

from emit.host import EXIT_NOT_RUN
from expand import __version__
from expand.ir.diagnostics import ExpandError, nesting_error, not_c_text
from expand.outputs import OutputError, check_paths, write_file, write_stdout

EXIT_OK, EXIT_DIAG, EXIT_USAGE = 0, 1, 2


#: Set (to anything): no table caveat on stderr (tests/conftest.py sets it: the tests compare stderr)
QUIET_CAVEATS = "EXPAND_QUIET_CAVEATS"


def _split(values: list[str] | None) -> list[str]:
    out: list[str] = []
    for v in values or []:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def _range(text: str) -> tuple[str, tuple[int, int]]:
    import re as _re

    num = r"\s*([-+]?(?:0[xX][0-9a-fA-F]+|\d+))\s*"
    m = _re.fullmatch(rf"\s*([A-Za-z_]\w*)\s*={num}:{num}", text)
    if not m:
        raise argparse.ArgumentTypeError(f"'{text}' is not NAME=LO:HI (integers, e.g. i=0:255)")
    lo, hi = int(m.group(2), 0), int(m.group(3), 0)
    if lo > hi:
        raise argparse.ArgumentTypeError(f"'{text}': LO is greater than HI")
    return m.group(1), (lo, hi)


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = 0.0
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive number of seconds")
    return v


def build_parser() -> argparse.ArgumentParser:
    from emit import ISAS, default_isa
    p = argparse.ArgumentParser(
        prog="expand",
        description="Expand scalar C functions into vector C with SIMD intrinsics: one call of the vector "
                    "function computes one call of the scalar function per lane.",
        epilog="Exit status: 0 success, 1 diagnostics (or --verify/--verify-file mismatches), 2 usage errors, 3 "
               "--verify/--verify-file could not run the code on this host (it compiled; nothing was compared).",
    )
    p.add_argument("input", nargs="?", help="C source file, or - for standard input (with --verify-file: the scalar "
                                            "source; default: the one TUNED.c's header names)")
    p.add_argument("-o", "--output", help="output file (default, or -: standard output)")
    p.add_argument("-I", dest="include", action="append", default=[], metavar="DIR", help="add include directory")
    p.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=VALUE]", help="define macro")
    p.add_argument("-U", dest="undef", action="append", default=[], metavar="NAME", help="undefine macro")
    p.add_argument("--isa", default=default_isa(), choices=list(ISAS),
                   help=f"target instruction set (default: {default_isa()}, the best this host runs)")
    p.add_argument("--lanes", type=int, metavar="N",
                   help="lanes per call (a multiple of the ISA's natural width: 4 on 128-bit ISAs, 8 on AVX2, "
                        "16 on AVX-512)")
    p.add_argument("--sve-bits", type=int, choices=(128, 256, 512), metavar="128|256|512",
                   help="with --isa sve: the SVE vector length the code is fixed to (default 256; the same as "
                        "--isa sve128, sve, sve512)")
    p.add_argument("--list-isas", action="store_true", help="list the ISAs with their lane counts and needs")
    p.add_argument("--functions", action="append", metavar="NAME,...",
                   help="functions to expand (default: every function with external linkage in the file)")
    p.add_argument("--expandable", action="append", metavar="NAME,...",
                   help="callees that have vector versions (called as PREFIX+NAME with vector arguments)")
    p.add_argument("--stateless", action="append", metavar="NAME,...",
                   help="functions whose results depend only on their arguments (no hidden state between calls): "
                        "no warning for calling them once per lane in another order than the scalar calls")
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
    p.add_argument("--gathers", choices=("on", "off"), default=None,
                   help="table reads at indexes that differ per lane: the ISA's gather instructions (AVX2, "
                        "AVX-512; masked forms under a mask) or one load per lane (default: off, measured faster "
                        "on AMD Zen; see docs/performance.md); ISAs without gathers always load per lane")
    p.add_argument("--remarks", action="store_true",
                   help="print file:line:col: remark: lines on standard error for what costs speed in the output "
                        "(per-lane calls, loads and stores; loops under a mask and what they blend) and where a "
                        "BOSCC guard was put or not, and why")
    p.add_argument("--prefix", default="_Exp_", help="name prefix of expanded functions (default: _Exp_)")
    p.add_argument("--abi", action="store_true",
                   help="also define the functions under their vector function ABI names (_ZGVbN4v_NAME, ...), "
                        "so that loops compiled with -fopenmp-simd call them; the _Exp_ functions become static")
    p.add_argument("--header", metavar="FILE.h",
                   help="write a header for callers: #pragma omp declare simd declarations (with --abi), the "
                        "variants' and wrappers' prototypes")
    p.add_argument("--wrapper", choices=("array",),
                   help="array: also define NAME_array(result, arrays..., n) over arrays of any length n")
    p.add_argument("--vector-math", default="expand", metavar="LIB[,LIB]",
                   help="vector versions of libm calls: expand (mathlib's vector libm, bit-exact; default), "
                        "libmvec (glibc, x86-64), sleef, none (a call per lane); a list is an order of preference")
    p.add_argument("--vector-math-lib", metavar="DIR",
                   help="mathlib's vector libm built with python -m mathlib.libm --out DIR (default: built on "
                        "demand for --verify, in the cache)")
    p.add_argument("--verify", action="store_true",
                   help="compile the output and the scalar original, run both on edge and random inputs, "
                        "compare every lane bit for bit")
    p.add_argument("--verify-file", metavar="TUNED.c",
                   help="verify TUNED.c, an output of expand edited by hand, against the scalar source as --verify "
                        "does (same harness, inputs and messages), with TUNED.c's code as the vector code; nothing "
                        "is written. Defaults from TUNED.c's header comment: the ISA and lanes it names and the "
                        "options of the command it records (output options aside; its paths taken from this "
                        "directory); an option given here replaces all of that option's values from the header")
    p.add_argument("--link", action="append", default=[], metavar="FILE",
                   help="extra C source the scalar function needs at link time (for --verify; repeatable)")
    p.add_argument("--random", type=int, default=100_000, metavar="N",
                   help="random inputs per function for --verify (default: 100000)")
    p.add_argument("--strict-nan", action="store_true",
                   help="--verify compares NaN results bit for bit, payload and sign included (default: a NaN "
                        "result matches any NaN: which NaN comes out when two meet is left open by IEEE 754 and "
                        "reordered by compilers); every other result is compared bit for bit either way")
    p.add_argument("--range", action="append", default=[], metavar="NAME=LO:HI", type=_range,
                   help="--verify draws integer parameter NAME (edge and random values) from LO..HI only: a "
                        "parameter that indexes memory or counts loop trips (repeatable)")
    p.add_argument("--verify-timeout", type=_seconds, default=None, metavar="SECONDS",
                   help="--verify stops a function's run after SECONDS and fails, naming the inputs it was "
                        "running (default: 600)")
    p.add_argument("--version", action="version", version=f"expand {__version__}")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if exc.code in (0, None) else EXIT_USAGE
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if args.list_isas:
        from emit import ISAS
        for name, (_, _, lanes, needs) in ISAS.items():
            print(f"{name:8} {lanes:2} lanes  {needs}")
        return EXIT_OK
    if args.input is None and not args.verify_file:
        parser.print_usage(sys.stderr)
        print("expand: error: an input file (or -) is required", file=sys.stderr)
        return EXIT_USAGE
    try:
        from expand.driver import few_collections  # (imported when needed, as the rest of the pipeline)
        with few_collections():
            return verify_file(args) if args.verify_file else run(args)
    except OutputError as exc:
        print(f"expand: error: {exc}", file=sys.stderr)
        return EXIT_USAGE if exc.usage else EXIT_DIAG
    except ExpandError as exc:
        print(exc.render(), file=sys.stderr)
        return EXIT_DIAG
    except RecursionError as exc:  # (a pass deeper than Python's stack: at the statement it was in)
        print(nesting_error(exc, "<stdin>" if args.input == "-" else args.input).render(), file=sys.stderr)
        return EXIT_DIAG
    except MemoryError:
        print(f"expand: error: out of memory expanding {args.input or args.verify_file}", file=sys.stderr)
        return EXIT_DIAG


def read_input(name: str) -> tuple[str, bytes] | None:
    """(path for messages, bytes) of file ``name`` (``-``: standard input), or None after saying why not."""
    if name == "-":
        return "<stdin>", sys.stdin.buffer.read()
    try:
        return name, Path(name).read_bytes()
    except OSError as exc:
        print(f"expand: error: cannot read '{name}': {exc.strerror}", file=sys.stderr)
        return None


def run(args: argparse.Namespace) -> int:
    to_stdout = args.to_stdout = args.output == "-"  # (-o -: standard output, as for the input)
    if to_stdout:
        args.output = None
    got = read_input(args.input)
    if got is None:
        return EXIT_DIAG
    path, data = got
    check_paths(None if args.input == "-" else args.input, {"-o": args.output, "--dot": args.dot,
                                                            "--header": args.header})
    dots: list[str] | None = [] if args.dot else None
    expanded = expand_input(args, path, data, dots)
    if isinstance(expanded, int):
        return expanded
    result, isa, vector_math = expanded
    broken = compile_problem(result.text, isa, [str(Path(path).resolve().parent), *args.include], args.define)
    if broken:  # (exit 0 promises C that compiles: never write one that does not)
        print(f"expand: error: the C expand made of {path} does not compile, so it is not written (a bug of "
              f"expand's: please report it); {isa.cc[0]} -fsyntax-only says:\n{broken}", file=sys.stderr)
        return EXIT_DIAG
    if args.remarks:
        for r in result.remarks:
            print(r.render(), file=sys.stderr)
    if args.verify and path == "<stdin>":
        print("expand: error: --verify needs the input as a file", file=sys.stderr)
        return EXIT_USAGE
    status = verify_result(result, path, args, isa, vector_math) if args.verify else EXIT_OK
    if status == EXIT_USAGE:
        return status
    if status == EXIT_DIAG:  # nothing is left behind as if it were good
        written = [o for o in (args.output, args.header) if o]
        if written:
            print(f"expand: {', '.join(written)} not written: --verify failed", file=sys.stderr)
        return status
    if args.dot:
        write_file(args.dot, "".join(dots))
    if args.header:
        from expand.abi import header
        guard = "EXPAND_" + re.sub(r"\W", "_", Path(args.header).name).upper()
        write_file(args.header, header(result.functions, isa, abi=args.abi, wrapper=args.wrapper, guard=guard,
                                       origin=f"Generated by expand {__version__} from {path}"))
    if args.output:
        write_file(args.output, result.text)
    elif not args.verify or to_stdout:
        write_stdout(result.text)
    return status


def compile_problem(text: str, isa, include: list[str], define: list[str]) -> str:
    """The compiler's first errors on ``text`` (syntax and types only, the ISA's flags and headers,
    the input's directory and ``-I`` directories), "" when it compiles or the compiler is missing."""
    import shutil
    import subprocess
    if shutil.which(isa.cc[0]) is None:
        return ""
    cmd = [*isa.cc, *isa.cflags, "-fsyntax-only", *(f"-I{d}" for d in include), *(f"-D{d}" for d in define),
           "-x", "c", "-"]
    try:
        p = subprocess.run(cmd, input=text, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    if p.returncode == 0:
        return ""
    errors = [ln for ln in p.stderr.splitlines() if "error:" in ln]
    return "\n".join((errors or p.stderr.splitlines())[:5])


#: The first lines of expand's output (expand/driver.py): what it was generated from and for, and the
#: command line that made it
HEADER = re.compile(r"^/\* Generated by expand \S+ from (?P<src>.*) for (?P<isa>\S+) \((?P<lanes>\d+) lanes\)\."
                    r"(?: \*/)?\n(?:   (?P<cmd>expand(?: .*?)?)(?: \*/)?$)?", re.M)
#: Options of a recorded command that --verify-file does not take (it writes nothing)
NOT_TAKEN = ("output", "dot", "header", "verify", "verify_file", "list_isas", "remarks")


def given_options(argv: list[str]) -> dict:
    """The options ``argv`` gives (those it leaves out are absent, not defaults)."""
    p = build_parser()
    for a in p._actions:
        a.default = argparse.SUPPRESS
    with contextlib.redirect_stderr(io.StringIO()) as err:
        try:
            return vars(p.parse_args(argv))
        except SystemExit:
            raise ValueError(err.getvalue().strip().splitlines()[-1].removeprefix("expand: error: ")) from None


def recorded_options(tuned: str, text: str) -> tuple[dict, str]:
    """What --verify-file takes from the header comment of ``text`` (the hand-edited output ``tuned``):
    the input, ISA and lanes its first line names and the options of the command line under it, output
    options aside; and a note quoting that command (or ""). ValueError if that line does not parse."""
    m = HEADER.search(text)
    if m is None:
        return {}, ""
    out = {"input": "-" if m["src"] == "<stdin>" else m["src"], "isa": m["isa"], "lanes": int(m["lanes"])}
    if not m["cmd"]:
        return out, ""
    where = f"{tuned}:{text.count(chr(10), 0, m.start('cmd')) + 1}"
    try:
        cmd = given_options(shlex.split(m["cmd"])[1:])
    except ValueError as exc:
        raise ValueError(f"{where}: the command recorded there does not parse ({exc}); edit or delete that line, "
                         "or give the options here") from None
    out.update({k: v for k, v in cmd.items() if k not in NOT_TAKEN and k not in ("isa", "lanes")})
    return out, f"expand: note: {where}: the options of the command recorded there are the defaults: {m['cmd']}"


def verify_file(args: argparse.Namespace) -> int:
    """--verify-file TUNED.c: verify a hand-edited output of expand against its scalar source as --verify
    does. The scalar source is expanded again for what the verifier needs of each function (names,
    parameter shapes and types, the constants it compares against, globals, trip-count parameters); the
    harness then includes TUNED.c's text instead of that expansion's. Nothing is written."""
    given = given_options(args.argv)
    for opt, dest in (("-o", "output"), ("--dot", "dot"), ("--header", "header")):
        if dest in given:
            print(f"expand: error: argument {opt}: --verify-file writes nothing", file=sys.stderr)
            return EXIT_USAGE
    got = read_input(args.verify_file)
    if got is None:
        return EXIT_DIAG
    tuned, data = got
    not_text = not_c_text(tuned, data)
    if not_text:
        print(not_text, file=sys.stderr)
        return EXIT_DIAG
    text = data.decode("utf-8")
    try:
        recorded, note = recorded_options(tuned, text)
    except ValueError as exc:
        print(f"expand: error: --verify-file: {exc}", file=sys.stderr)
        return EXIT_USAGE
    opts = vars(build_parser().parse_args([])) | recorded | given
    if "isa" in given or "lanes" in given:  # (the ISA and its lanes go together)
        opts["lanes"] = given.get("lanes")
    elif opts["lanes"] == get_isa_lanes(opts["isa"]):
        opts["lanes"] = None
    ns = argparse.Namespace(**opts, argv=[])
    if ns.input is None:
        print(f"expand: error: --verify-file: {tuned} does not name its scalar source (no header of expand's): "
              f"give it, expand --verify-file {args.verify_file} SCALAR.c", file=sys.stderr)
        return EXIT_USAGE
    if ns.input == "-":
        made = "" if "input" in given else f" ({tuned} was made from standard input): expand --verify-file " \
            f"{args.verify_file} SCALAR.c"
        print(f"expand: error: --verify-file needs the scalar source as a file{made}", file=sys.stderr)
        return EXIT_USAGE
    if note:
        print(note, file=sys.stderr)
    got = read_input(ns.input)
    if got is None:
        if "input" not in given:
            print(f"expand: note: {tuned}'s header names '{ns.input}' as the scalar source; give the right path: "
                  f"expand --verify-file {args.verify_file} SCALAR.c", file=sys.stderr)
        return EXIT_DIAG
    path, source = got
    expanded = expand_input(ns, path, source)
    if isinstance(expanded, int):
        return expanded
    result, isa, vector_math = expanded
    if "isa" in recorded and (recorded["isa"], recorded["lanes"]) != (isa.name, isa.lanes):
        print(f"expand: note: {tuned} was generated for {recorded['isa']} ({recorded['lanes']} lanes); verifying it "
              f"as {isa.name} ({isa.lanes} lanes)", file=sys.stderr)
    quoted = tuned.replace("\\", "\\\\").replace('"', '\\"')
    result = dataclasses.replace(result, text=f'#line 1 "{quoted}"\n{text}')  # (the compiler's messages cite it)
    return verify_result(result, path, ns, isa, vector_math)


def get_isa_lanes(name: str) -> int | None:
    """The natural lanes of ISA ``name`` (None for an unknown one)."""
    from emit import ISAS

    return ISAS[name][2] if name in ISAS else None


def expand_input(args: argparse.Namespace, path: str, data: bytes, dots: list[str] | None = None):
    """Check the options and expand ``data`` (the input, read from ``path``) as they say: (Result, isa,
    VectorMath), or an exit status after the diagnostic."""
    from emit import get_isa
    from emit.registry import SVE_BITS
    from expand.driver import expand_module
    from frontends.clang_frontend import read_file_any

    not_text = not_c_text(path, data)
    if not_text:
        print(not_text, file=sys.stderr)
        return EXIT_DIAG
    text = data.decode("utf-8")
    if args.sve_bits is not None:
        if args.isa not in SVE_BITS.values():
            print(f"expand: error: --sve-bits goes with --isa sve, not --isa {args.isa}", file=sys.stderr)
            return EXIT_USAGE
        args.isa = SVE_BITS[args.sve_bits]
    try:
        isa = get_isa(args.isa, args.lanes)
    except ValueError as exc:
        print(f"expand: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if isa.caveat and not os.environ.get(QUIET_CAVEATS):
        print(f"expand: warning: --isa {isa.name}: {isa.caveat}", file=sys.stderr)
    if args.abi and not isa.abi_letter:
        print(f"expand: error: --abi: GCC 12 has no vector function ABI for {args.isa} (only x86 sse2/sse4.1/"
              "avx2/avx512 and AArch64 neon); use --wrapper array", file=sys.stderr)
        return EXIT_USAGE
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", args.prefix):
        print(f"expand: error: argument --prefix: '{args.prefix}' does not start a C identifier (letters, digits, "
              "'_'; not a digit first)", file=sys.stderr)
        return EXIT_USAGE
    both = sorted(set(_split(args.uniform)) & set(_split(args.linear)))
    if both:
        print(f"expand: error: arguments --uniform and --linear both name '{both[0]}'; a parameter has one shape",
              file=sys.stderr)
        return EXIT_USAGE
    if args.header and not (args.abi or args.wrapper):
        print("expand: error: --header declares what --abi or --wrapper array defines; give one of them",
              file=sys.stderr)
        return EXIT_USAGE
    from expand.vecmath import VectorMath, parse_modes
    try:
        vector_math = VectorMath(parse_modes(args.vector_math), args.vector_math_lib)
    except ValueError as exc:
        print(f"expand: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    mod = read_file_any(path, text, args.include, args.define, args.undef, frontend=args.frontend,
                        cc=isa.preprocessor)
    bad = names_not_in(mod, args)
    if bad:
        print(f"expand: error: {bad}", file=sys.stderr)
        return EXIT_USAGE
    result = expand_module(mod, isa, functions=_split(args.functions) or None,
                           expandable=set(_split(args.expandable)), prefix=args.prefix,
                           shapes={**{n: "uniform" for n in _split(args.uniform)},
                                   **{n: "linear" for n in _split(args.linear)}},
                           dot=dots, boscc=args.boscc, abi=args.abi, wrapper=args.wrapper, vector_math=vector_math,
                           gathers=None if args.gathers is None else args.gathers == "on",
                           stateless=set(_split(args.stateless)),
                           command="expand " + shlex.join(args.argv) if args.argv else "")
    for w in result.warnings:
        print(w.render(), file=sys.stderr)
    return result, isa, vector_math


def names_not_in(mod, args: argparse.Namespace) -> str:
    """What is wrong with --functions, --uniform or --linear for ``mod`` (a name it does not define), or ""."""
    mine = [n for n, f in mod.functions.items() if f.coord is not None and f.coord.file == mod.file]
    for n in _split(args.functions):
        if n not in mod.functions and n not in mod.failed:
            return (f"argument --functions: '{n}' is not defined in {mod.file} (it defines: "
                    f"{', '.join(mine + list(mod.failed)) or 'no function'})")
    roots = _split(args.functions) or [n for n, f in mod.functions.items() if not f.static]
    if any(n in mod.failed for n in roots):
        return ""  # (expand's diagnostic for that function says what is wrong)
    params = {p.name for n in roots for p in mod.functions[n].params}
    for option, names in (("--uniform", args.uniform), ("--linear", args.linear)):
        for n in _split(names):
            if roots and n not in params:
                return f"argument {option}: no function expanded from {mod.file} has a parameter '{n}'"
    return ""


def verify_result(result, path: str, args, isa, vector_math=None) -> int:
    from expand.check.verify import VERIFY_TIMEOUT, Unverifiable, shaped_inputs, verify, verify_params

    status = EXIT_OK
    link_files, libs, ulp_bound = [Path(x).resolve() for x in args.link], ["m"], None
    if vector_math is not None:  # the vector math library's archives or -lmvec/-lsleef, and its ULP bound
        try:
            from mathlib.libm import ensure  # (mathlib builds on expand: the top imports it)

            needs = vector_math.link(isa, ensure)
        except (RuntimeError, ValueError, OSError) as exc:
            print(f"expand: error: building mathlib's vector libm for --verify failed: {exc}", file=sys.stderr)
            return EXIT_DIAG
        link_files += needs.link_files
        libs = needs.libs + libs
        ulp_bound = needs.ulp_bound
    for f in result.functions:
        bounds, notes, moving = shaped_inputs(f, dict(args.range), args.random)
        try:
            rep = verify(scalar_sources=[Path(path).resolve()], scalar_name=f.scalar_name, vector_c=result.text,
                         vector_name=f.vector_name, params=verify_params(f.params), ret=f.ret,
                         isa=isa, include_dirs=[Path(d).resolve() for d in args.include], defines=args.define,
                         undefs=args.undef, link_files=link_files, libs=libs, constants=f.constants,
                         n_random=args.random, scalar_static=f.static, nan_bits=args.strict_nan,
                         bounds=bounds, global_vars=[(g.name, g.type) for g in f.globals],
                         timeout=args.verify_timeout or VERIFY_TIMEOUT, hidden_state=f.hidden_state,
                         moving=moving,
                         **({"ulp_bound": ulp_bound} if ulp_bound is not None else {}))
        except Unverifiable as exc:  # (a parameter whose values the harness cannot make)
            where = f"{f.coord}: " if f.coord is not None else ""
            print(f"{where}error: --verify cannot check '{f.scalar_name}': {exc}", file=sys.stderr)
            print(f"{where}note: the output is not verified; check it another way, or pass the members the function"
                  " reads as separate parameters", file=sys.stderr)
            status = EXIT_DIAG
            continue
        except ValueError as exc:  # (--range on a parameter verify cannot bound)
            if not str(exc).startswith("bounds:"):
                raise
            print(f"expand: error: argument --range: {f.scalar_name}: {str(exc).removeprefix('bounds: ')} "
                  "(it takes integer value parameters, within their type)", file=sys.stderr)
            return EXIT_USAGE
        if rep.not_run is not None:
            print(f"expand: {rep.summary}; {f.scalar_name} is NOT verified", file=sys.stderr)
            if status == EXIT_OK:
                status = EXIT_NOT_RUN
            continue
        if rep.verdict == "timeout":  # (a diagnostic, not a verdict on the code)
            print(f"expand: error: verify: {f.scalar_name}: {rep.summary.split(']: ', 1)[-1]}", file=sys.stderr)
            print("\n".join([rep.details, *(f"  {n}" for n in notes)]), file=sys.stderr)
            status = EXIT_DIAG
            continue
        # (on standard error when the C goes to standard output: -o -)
        print("\n".join([rep.summary, *(f"  {n}" for n in notes)]),
              file=sys.stderr if getattr(args, "to_stdout", False) else sys.stdout)
        if not rep.ok:
            print(rep.details, file=sys.stderr)
            status = EXIT_DIAG
    return status


if __name__ == "__main__":
    sys.exit(main())
