"""Run expand and its verifier on every ``.c`` file of a real libm source directory.

    python -m mathlib.realworld DIR --isa ISA [--jobs N] [-I DIR ...] [-D NAME[=V] ...] [--random N]
                                [--out OUTDIR] [--files a.c,b.c] [--timeout S]

Every file of DIR gets the same flags (no per-file tuning) and one row of a table, written as
``OUTDIR/realworld-<dirname>-<isa>.md`` and ``.json`` (default OUTDIR ``mathlib/results``):

* ``verified``: every function with external linkage the file defines expanded, the output compiled
  with the ISA's compiler and ``-Wall -Wextra -Werror``, and ``--verify`` found 0 mismatches;
* ``diagnostic: <message>``: expand stopped with a ``file:line:col: error:`` diagnostic (the message's
  first line without its position, so that equal causes group together);
* ``FAIL: <what>``: expand gave no diagnostic but its output did not compile, mismatched, crashed,
  or expand raised another exception (``traceback: ...``): always a bug of expand;
* ``not run: <why>``: the output compiled and linked, but this host cannot run the ISA;
* ``scalar code: <summary>``: the scalar function itself crashes, or has undefined behaviour for the
  mismatching inputs (``VerifyReport.verdict`` ``scalar-crash``/``scalar-ub``);
* ``scalar build: <what>``: the scalar file (or a companion it needs) does not compile or link with
  the flags: not expand's doing;
* ``timeout``: the file took longer than ``--timeout`` seconds (default 300), or a function's
  verification did not end in the time left (``timeout: f: the run did not end within ...``, naming
  the inputs it was running). Integer parameters a loop's trip count depends on are drawn from
  ``expand.check.verify.TRIP_BOUNDS``, as ``expand --verify`` draws them without ``--range``;
* ``no function``: the compiled file defines no function with external linkage (a data table such
  as ``e_logf_data.c``, or every function ``static`` or ``#if``'d out under the flags).

The summary line ``verified V of N (P%)`` counts in N every row but ``no function``. Exit status 1
if any row is FAIL, else 0.

**Isolation.** Each file runs in its own Python process (``--jobs`` at a time), in its own process
group, killed with everything it started when the timeout expires; a worker that dies is a FAIL row.
Expansion uses the Python API as ``expand --verify`` does (``read_file_any``, ``expand_module`` with
the default ``--vector-math expand``, ``verify`` per function with ``scalar_static``), so every
verdict is classified from ``VerifyReport.verdict`` and the build step that failed, not from text.

Companions and glibc's flags: mathlib/source_tree.py.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .source_tree import (
    Flags,
    companions,
    first_error,
    glibc_flags,
    glibc_root,
    read_source,
    scan,
    shorten,
    system_symbols,
)

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = Path(__file__).resolve().parent / "results"
DEFAULT_TIMEOUT = 300.0
#: Random inputs per function: natively, and under qemu (neon, altivec)
RANDOM_NATIVE, RANDOM_EMULATED = 20_000, 5_000
#: Order of severity when a file's functions end differently (the first wins)
_SEVERITY = ["FAIL", "timeout", "scalar build", "scalar code", "not run", "verified"]


# ----------------------------------------------------------------------------- flags


@dataclass
class Row:
    """One file's outcome."""

    file: str
    status: str
    detail: str = ""
    functions: list[str] = field(default_factory=list)
    companions: list[str] = field(default_factory=list)
    inputs: int = 0
    seconds: float = 0.0

    @property
    def kind(self) -> str:
        """The status without its message: verified, diagnostic, FAIL, ..."""
        return self.status.split(":", 1)[0]


def _worst(statuses: list[str]) -> str:
    def rank(s: str) -> int:
        kind = s.split(":", 1)[0]
        return _SEVERITY.index(kind) if kind in _SEVERITY else 0
    return min(statuses, key=rank)


def _header_line_fix(message: str, path: Path, coord) -> str:
    """The pycparser frontend quotes the ``#include`` line of a header it cannot read from the text it
    was given, which the prelude shifted: quote the file's own line instead."""
    m = re.match(r"the header included here \((.*?)\) has C that expand cannot read", message)
    if not m or coord is None or str(coord.file) != str(path):
        return message
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return message
    line = lines[coord.line - 1].strip() if 0 < coord.line <= len(lines) else ""
    return message[:m.start(1)] + (line or "an #include") + message[m.end(1):]


def _diagnostic(exc, path: Path, prefixes: list[str]) -> tuple[str, str]:
    """(status, detail) of an ExpandError."""
    message = _header_line_fix(exc.message.splitlines()[0] if exc.message else "error", path, exc.coord)
    where = shorten(str(exc.coord) if exc.coord else "expand", *prefixes)
    return f"diagnostic: {shorten(message, *prefixes)}", shorten(f"{where}: error: {exc.message}", *prefixes) + (
        f"\nnote: {exc.hint}" if exc.hint else "")


def _compile_output(text: str, isa, flags: Flags, incs: list[str], work: Path) -> str:
    """"" if the output compiles with ``-Wall -Wextra -Werror``, else the FAIL message. A ``-Wextra``
    warning inside a header the output includes (not in the output itself) is not expand's: ignored."""
    from expand.check.verify import COMPILE_FLAGS

    out = work / "output.c"
    out.write_text(text)
    # (the headers it includes as system headers: -Werror holds the generated code, not glibc's headers)
    cpp = [f"-isystem{x[2:]}" if x.startswith("-I") else x for x in [*[f"-I{d}" for d in incs], *flags.cpp()]]
    base = [*isa.cc, *COMPILE_FLAGS, *isa.cflags, *flags.cflags, *cpp, "-c", str(out), "-o", str(work / "output.o")]
    p = subprocess.run([*base[:1], "-Wextra", *base[1:]], capture_output=True, text=True, errors="replace",
                       timeout=600)
    if p.returncode == 0:
        return ""
    q = subprocess.run(base, capture_output=True, text=True, errors="replace", timeout=600)
    if q.returncode != 0:
        return f"the output does not compile: {first_error(q.stderr)}"
    mine = [ln for ln in p.stderr.splitlines() if ln.startswith(f"{out}:") and "error:" in ln]
    return f"-Wextra: {mine[0]}" if mine else ""


def _classify(rep, fname: str, prefixes: list[str]) -> str:
    """The row status of one function's ``VerifyReport``."""
    if rep.verdict == "ok" or (rep.ok and not rep.verdict):
        return "verified"
    if rep.verdict == "not-run" or rep.not_run is not None:
        return f"not run: {rep.not_run}"
    summary = rep.summary.split("]: ", 1)[-1]
    if rep.verdict == "timeout":
        return f"timeout: {fname}: {shorten(summary, *prefixes)}"
    if rep.verdict in ("scalar-crash", "scalar-ub"):
        return f"scalar code: {fname}: {shorten(summary, *prefixes)}"
    if rep.verdict == "build":
        details = rep.details
        if "compiling the harness" in summary:
            return f"FAIL: {fname}: the output does not compile in the verifier's harness: " + shorten(
                first_error(details.split("\n", 2)[-1]), *prefixes)
        if summary.startswith("compiling "):
            return f"scalar build: {fname}: {shorten(summary, *prefixes)}: " + shorten(
                first_error(details.split("\n", 2)[-1]), *prefixes)
        undefined = re.findall(r"(\S+?\.o): in function [^\n]*\n[^\n]*undefined reference to [`'](\S+?)'", details)
        undefined += re.findall(r"(\S+?\.o):[^\n]*undefined reference to [`'](\S+?)'", details)
        if any(Path(o).name == "harness.o" for o, _ in undefined):
            sym = next(s for o, s in undefined if Path(o).name == "harness.o")
            return f"FAIL: {fname}: linking: the output refers to '{sym}', which nothing defines"
        if undefined:
            return f"scalar build: {fname}: linking: undefined reference to '{undefined[0][1]}'"
        return f"scalar build: {fname}: {shorten(summary, *prefixes)}: " + shorten(
            first_error(details.split("\n", 2)[-1]), *prefixes)
    if rep.verdict == "crash":
        return f"FAIL: {fname}: {shorten(summary, *prefixes)}"
    first = next((ln for ln in rep.details.splitlines() if ln.strip()), "")
    return f"FAIL: {fname}: {summary}" + (f" (first: {first.strip()[:300]})" if first else "")


def check_file(spec: dict) -> dict:
    """Expand and verify one file (the worker's job); the Row as a dict. Never raises."""
    t0 = time.monotonic()
    path = Path(spec["path"])
    row = Row(path.name, "FAIL: internal", companions=[Path(c).name for c in spec["companions"]])
    prefixes = spec.get("prefixes", [])
    try:
        _check(spec, path, row, prefixes)
    except Exception as exc:  # (a bug of expand, the verifier or this runner: never a lost row)
        first = str(exc).splitlines()[0] if str(exc) else ""
        row.status = f"FAIL: traceback: {type(exc).__name__}: {shorten(first, *prefixes)}"
        row.detail = traceback.format_exc()[-6000:]
    row.seconds = round(time.monotonic() - t0, 2)
    return asdict(row)


def _check(spec: dict, path: Path, row: Row, prefixes: list[str]) -> None:
    from emit import get_isa
    from expand.check.verify import VERIFY_TIMEOUT, trip_bounds, verify, verify_params
    from expand.driver import expand_module, is_static
    from expand.ir.diagnostics import ExpandError, nesting_error, not_c_text
    from expand.vecmath import VectorMath, parse_modes

    from .libm import ensure

    start = time.monotonic()
    isa = get_isa(spec["isa"])
    flags = Flags(**spec["flags"])
    incs = [str(path.parent), *flags.include_dirs]
    data = path.read_bytes()
    bad = not_c_text(str(path), data)
    if bad:
        row.status, row.detail = f"diagnostic: {bad.splitlines()[0].split(': error: ', 1)[-1]}", bad
        return
    vector_math = VectorMath(parse_modes("expand"), None)
    try:
        mod = read_source(path, isa, flags, data.decode("utf-8"))
        row.functions = [n for n, f in mod.functions.items() if not f.static]
        row.functions += [n for n in mod.failed if not is_static(mod, n)]  # (expand_module gives their diagnostic)
        result = expand_module(mod, isa, vector_math=vector_math,
                               command=f"expand {path.name} --isa {isa.name} (mathlib.realworld)")
    except ExpandError as exc:
        row.status, row.detail = _diagnostic(exc, path, prefixes)
        return
    except RecursionError as exc:  # (as the command line: a diagnostic at the statement)
        row.status, row.detail = _diagnostic(nesting_error(exc, str(path)), path, prefixes)
        return
    row.functions = [f.scalar_name for f in result.functions]
    with tempfile.TemporaryDirectory(prefix="expand-realworld-") as tmp:
        bad = _compile_output(result.text, isa, flags, incs, Path(tmp))
    if bad:
        row.status, row.detail = f"FAIL: {shorten(bad, tmp, *prefixes)}", result.text[:20000]
        return
    needs = vector_math.link(isa, ensure)
    link = [Path(c) for c in spec["companion_objects"]] + list(needs.link_files)
    statuses: list[str] = []
    details: list[str] = []
    for f in result.functions:
        bounds, notes = trip_bounds(f.params, f.trip_params)  # (as expand --verify without --range)
        left = spec.get("timeout", DEFAULT_TIMEOUT) - (time.monotonic() - start) - 15  # (before the worker's kill)
        rep = verify(scalar_sources=[path], scalar_name=f.scalar_name, vector_c=result.text,
                     vector_name=f.vector_name, params=verify_params(f.params), ret=f.ret, isa=isa,
                     include_dirs=[Path(d) for d in incs], defines=flags.defines, undefs=flags.undefs,
                     link_files=link, libs=[*needs.libs, "m"], constants=f.constants, n_random=spec["random"],
                     scalar_static=f.static, cflags=flags.cflags, bounds=bounds,
                     timeout=max(1.0, min(VERIFY_TIMEOUT, left)),
                     nan_bits=False,  # (as expand --verify: a NaN result matches any NaN; --strict-nan there)
                     **({"ulp_bound": needs.ulp_bound} if needs.ulp_bound is not None else {}))
        status = _classify(rep, f.scalar_name, prefixes)
        statuses.append(status)
        row.inputs += rep.inputs
        details.append("\n".join([shorten(rep.summary, *prefixes), *notes, shorten(rep.details, *prefixes)]).strip())
    row.status = _worst(statuses) if statuses else "no function"
    row.detail = "\n".join(details)[-20000:]


def _worker_main(spec_path: str, result_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text())
    Path(result_path).write_text(json.dumps(check_file(spec)))
    return 0


# ----------------------------------------------------------------------------- the run


@dataclass
class Report:
    """A whole directory's run."""

    dir: str
    isa: str
    flags: Flags
    rows: list[Row]
    cpu: str = ""
    date: str = ""
    seconds: float = 0.0
    random: int = 0
    updated: list[str] = field(default_factory=list)  # "date: files" of each --update since the run

    def counted(self) -> list[Row]:
        return [r for r in self.rows if r.status != "no function"]

    def summary(self) -> str:
        n = len(self.counted())
        v = sum(r.status == "verified" for r in self.rows)
        return f"verified {v} of {n} ({100.0 * v / n if n else 0.0:.0f}%)"

    def counts(self) -> dict[str, int]:
        return dict(Counter(r.kind for r in self.rows).most_common())

    def diagnostics(self) -> list[tuple[str, int, list[str]]]:
        """(message, count, files) per diagnostic message, most frequent first."""
        groups: dict[str, list[str]] = {}
        for r in self.rows:
            if r.kind == "diagnostic":
                groups.setdefault(r.status.split(": ", 1)[1], []).append(r.file)
        return sorted(((m, len(fs), fs) for m, fs in groups.items()), key=lambda t: (-t[1], t[0]))

    def failed(self) -> bool:
        return any(r.kind == "FAIL" for r in self.rows)

    def to_json(self) -> dict:
        return {"dir": self.dir, "isa": self.isa, "cpu": self.cpu, "date": self.date, "seconds": self.seconds,
                "random": self.random, "updated": self.updated, "summary": self.summary(), "counts": self.counts(),
                "flags": asdict(self.flags), "flags_line": self.flags.describe(),
                "diagnostics": [{"message": m, "count": c, "files": fs} for m, c, fs in self.diagnostics()],
                "rows": [asdict(r) | {"kind": r.kind} for r in self.rows]}

    def to_markdown(self) -> str:
        def cell(s: str) -> str:
            return s.replace("|", "\\|").replace("\n", " ")
        counts = ", ".join(f"{k} {v}" for k, v in self.counts().items())
        out = [f"# {self.summary()}: expand on `{Path(self.dir).name}` ({self.isa})", "",
               f"**{self.summary()}**; {counts}", "",
               f"- directory: `{self.dir}`", f"- date: {self.date}; CPU: {self.cpu}; took {self.seconds:.0f} s",
               f"- ISA: {self.isa}; random inputs per function: {self.random} (plus the edge set)",
               *[f"- checked again (--update) {u}" for u in self.updated],
               f"- flags ({self.flags.origin}): `{self.flags.describe()}`", ""]
        diags = self.diagnostics()
        if diags:
            out += ["## Diagnostics by message", "", "| count | message | files |", "|---|---|---|"]
            out += [f"| {c} | {cell(m)} | {cell(', '.join(fs))} |" for m, c, fs in diags]
            out.append("")
        fails = [r for r in self.rows if r.kind == "FAIL"]
        if fails:
            out += ["## FAIL rows", ""]
            for r in fails:
                out += [f"### {r.file}", "", cell(r.status), "", "```", r.detail[:3000].rstrip(), "```", ""]
        out += ["## Files", "", "| file | status | functions | companions | inputs | seconds |",
                "|---|---|---|---|---|---|"]
        for r in self.rows:
            out.append(f"| {r.file} | {cell(r.status)} | {cell(', '.join(r.functions))} | "
                       f"{cell(', '.join(r.companions))} | {r.inputs:,} | {r.seconds:.1f} |")
        return "\n".join(out) + "\n"

    def text_summary(self) -> str:
        lines = [self.summary(), "counts: " + ", ".join(f"{k} {v}" for k, v in self.counts().items())]
        for m, c, _ in self.diagnostics():
            lines.append(f"  {c:3} {m}")
        lines += [f"{r.file}: {r.status}" for r in self.rows if r.kind == "FAIL"]
        return "\n".join(lines)


def _run_worker(spec: dict, timeout: float, work: Path) -> Row:
    """One file in its own process group (killed whole on timeout)."""
    name = Path(spec["path"]).name
    spec_path, result_path = work / f"{name}.spec.json", work / f"{name}.result.json"
    spec_path.write_text(json.dumps(spec))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "mathlib.realworld", "--worker", str(spec_path), str(result_path)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # (the worker's own group: it and the compilers it ran)
        except ProcessLookupError:
            pass
        proc.communicate()
        return Row(name, "timeout", f"more than {timeout:g} s", companions=[Path(c).name for c in spec["companions"]],
                   seconds=round(time.monotonic() - t0, 2))
    if proc.returncode != 0 or not result_path.is_file():
        why = f"exit status {proc.returncode}" if proc.returncode >= 0 else f"signal {-proc.returncode}"
        return Row(name, f"FAIL: the worker died ({why})", (out + err)[-6000:],
                   companions=[Path(c).name for c in spec["companions"]], seconds=round(time.monotonic() - t0, 2))
    d = json.loads(result_path.read_text())
    return Row(**d)


def run(directory: Path, isa_name: str, *, jobs: int = 2, flags: Flags | None = None, n_random: int | None = None,
        files: list[str] | None = None, timeout: float = DEFAULT_TIMEOUT, log=None) -> Report:
    """Expand and verify every ``.c`` file of ``directory`` (or ``files`` of it) for ``isa_name``."""
    from emit import cpu_model, get_isa

    directory = Path(directory).resolve()
    isa = get_isa(isa_name)
    t0 = time.monotonic()
    tree = glibc_root(directory)
    if flags is None:
        flags = glibc_flags(tree, isa) if tree is not None else Flags(origin="none given")
    if n_random is None:
        n_random = RANDOM_EMULATED if isa.run_prefix else RANDOM_NATIVE
    sources = sorted(directory.glob("*.c"))
    if files:
        names = {f.strip() for f in files if f.strip()}
        unknown = names - {s.name for s in sources}
        if unknown:
            raise ValueError(f"not in {directory}: {', '.join(sorted(unknown))}")
        chosen = [s for s in sources if s.name in names]
    else:
        chosen = sources
    prefixes = [str(directory), *([str(tree)] if tree else [])]
    say = log or (lambda s: None)
    rows: dict[str, Row] = {}
    with tempfile.TemporaryDirectory(prefix="expand-realworld-") as tmp:
        work = Path(tmp)
        (work / "obj").mkdir()
        say(f"compiling the {len(sources)} files of {directory} ...")
        scalars = scan(directory, isa, flags, work / "obj", jobs)
        links, _ = companions(scalars, system_symbols(isa))
        todo = []
        for src in chosen:
            s = scalars[src.name]
            if s.error:
                rows[src.name] = Row(src.name, f"scalar build: {shorten(s.error, *prefixes)}")
            elif not s.functions:
                rows[src.name] = Row(src.name, "no function", "the object defines no external function")
            else:
                todo.append({"path": str(src), "isa": isa.name, "flags": asdict(flags), "random": n_random,
                             "companions": [str(directory / c) for c in links[src.name]],
                             "companion_objects": [scalars[c].obj for c in links[src.name]],
                             "prefixes": prefixes, "timeout": timeout})
        done = [len(rows)]

        def one(spec: dict) -> Row:
            row = _run_worker(spec, timeout, work)
            done[0] += 1
            say(f"[{done[0]}/{len(chosen)}] {row.file}: {row.status} ({row.seconds:.1f} s)")
            return row

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for row in pool.map(one, todo):
                rows[row.file] = row
    report = Report(str(directory), isa.name, flags, [rows[s.name] for s in chosen], cpu=cpu_model(),
                    date=datetime.datetime.now().isoformat(timespec="seconds"), random=n_random)
    report.seconds = round(time.monotonic() - t0, 1)
    return report


def write_report(report: Report, out_dir: Path) -> tuple[Path, Path]:
    """Write ``realworld-<dirname>-<isa>.md`` and ``.json`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"realworld-{Path(report.dir).name}-{report.isa}"
    md, js = out_dir / f"{stem}.md", out_dir / f"{stem}.json"
    md.write_text(report.to_markdown())
    js.write_text(json.dumps(report.to_json(), indent=1) + "\n")
    return md, js


def merged(report: Report, out_dir: Path) -> Report:
    """The table already in ``out_dir`` for ``report``'s directory and ISA, with ``report``'s rows in
    place of (or added to) its rows; its date and time stay, its ``updated`` list grows."""
    path = Path(out_dir) / f"realworld-{Path(report.dir).name}-{report.isa}.json"
    old = json.loads(path.read_text())
    if old["dir"] != report.dir or old["isa"] != report.isa:
        raise ValueError(f"{path} is a table of {old['dir']} ({old['isa']})")
    fields = {f.name for f in Row.__dataclass_fields__.values()}
    rows = {r["file"]: Row(**{k: v for k, v in r.items() if k in fields}) for r in old["rows"]}
    rows.update({r.file: r for r in report.rows})
    return Report(report.dir, report.isa, report.flags, [rows[k] for k in sorted(rows)], old["cpu"], old["date"],
                  old["seconds"], old["random"], [*old.get("updated", []), f"{report.date}: "
                                                  + ", ".join(r.file for r in report.rows)])


def main(argv: list[str] | None = None) -> int:
    """``python -m mathlib.realworld``."""
    from emit import ISAS

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"] and len(argv) == 3:
        return _worker_main(argv[1], argv[2])
    ap = argparse.ArgumentParser(prog="python -m mathlib.realworld", description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", type=Path, help="a directory of C files (a libm's sources)")
    ap.add_argument("--isa", required=True, choices=list(ISAS))
    ap.add_argument("--jobs", type=int, default=2, help="files checked at a time (default 2)")
    ap.add_argument("-I", dest="include", action="append", default=[], metavar="DIR", help="include directory")
    ap.add_argument("-D", dest="define", action="append", default=[], metavar="NAME[=V]", help="define a macro")
    ap.add_argument("--random", type=int, metavar="N",
                    help=f"random inputs per function (default {RANDOM_NATIVE}, {RANDOM_EMULATED} under qemu)")
    ap.add_argument("--out", type=Path, default=RESULTS_DIR, help="where the tables go (default mathlib/results)")
    ap.add_argument("--files", help="only these files of DIR (comma-separated names)")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per file (default 300)")
    ap.add_argument("--update", action="store_true",
                    help="with --files: check only those files again and put their rows into the table already "
                         "in --out (the other rows, the date and the time stay as they were)")
    args = ap.parse_args(argv)
    if args.update and not args.files:
        ap.error("--update needs --files")
    if not args.dir.is_dir():
        ap.error(f"{args.dir} is not a directory")
    flags = Flags(include_dirs=[str(Path(d).resolve()) for d in args.include], defines=list(args.define),
                  origin="-I/-D of the command line") if args.include or args.define else None
    try:
        report = run(args.dir, args.isa, jobs=args.jobs, flags=flags, n_random=args.random,
                     files=args.files.split(",") if args.files else None, timeout=args.timeout,
                     log=lambda s: print(s, file=sys.stderr, flush=True))
    except (ValueError, RuntimeError) as exc:
        print(f"realworld: error: {exc}", file=sys.stderr)
        return 2
    if args.update:
        try:
            report = merged(report, args.out)
        except (OSError, ValueError, KeyError) as exc:
            print(f"realworld: error: --update: {exc}", file=sys.stderr)
            return 2
    md, js = write_report(report, args.out)
    print(report.text_summary())
    print(f"wrote {md} and {js} ({report.seconds:.0f} s)")
    return 1 if report.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
