"""Instructions executed by one stretch of a program, counted exactly by single-stepping it under
``ptrace`` (the benchmark's "instructions per element"; issue 19's cause 5).

    python -m mathlib.icount [--profile] [--top N] -- EXE ARG...

Why this method: hardware counters are what ``perf stat -e instructions`` reads, and this machine (a
VM) has none (``perf stat`` prints ``<not supported>``); valgrind 3.19 and qemu-user 7.2 (TCG) do not
run AVX-512. ``PTRACE_SINGLESTEP`` runs the program natively, one instruction per step, on every ISA
the CPU has, and is deterministic: the count does not depend on the machine's load (only the wall
time does, some 10-20 us per step here).

The program marks the stretch with two ``int3`` instructions (the benchmark programs do so in their
``count`` mode); the tracer runs it at full speed up to the first, then steps to the second and
prints ``instructions N``: the instructions between the two, the second ``int3`` excluded. With
``-p`` it also prints the program's memory map (``map <line of /proc/PID/maps>``) and how often each
instruction address ran (``rip ADDRESS COUNT``); ``profile`` turns that into counts per mnemonic and
per function with objdump (``readelf`` gives each object's load segments) and, for objects compiled
with ``-g``, per source line (addr2line; an inlined intrinsic or helper counts for the line that
called it): with expand's output, whose groups of lines each follow a comment with the scalar
statement, that says which scalar statement the instructions go to.

Cross-check: on AVX2 (which valgrind runs) ``valgrind --tool=callgrind --toggle-collect=bench_expandm``
counts 30,498 instructions for one call of expf's mathlib-libm loop over 2,048 elements, this tracer
30,500 (the two more: `mov $0x800,%edi` and the `call` between the marks).
"""

from __future__ import annotations

import argparse
import bisect
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

TRACER_C = r"""/* mathlib/icount.py: count the instructions a program executes between two int3 (ptrace single steps) */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define TBITS 20
static unsigned long keys[1ul << TBITS], counts[1ul << TBITS];

static void add(unsigned long rip)
{
    unsigned long h = (rip * 0x9E3779B97F4A7C15ul) >> (64 - TBITS);
    while (keys[h] && keys[h] != rip)
        h = (h + 1) & ((1ul << TBITS) - 1);
    keys[h] = rip;
    counts[h]++;
}

static int stopped(pid_t pid, int *st, siginfo_t *si)
{
    if (waitpid(pid, st, 0) < 0 || !WIFSTOPPED(*st))
        return 0;
    memset(si, 0, sizeof *si);
    ptrace(PTRACE_GETSIGINFO, pid, 0, si);
    return 1;
}

int main(int argc, char **argv)
{
    int prof = 0, a = 1, st;
    siginfo_t si;
    if (argc > 1 && !strcmp(argv[1], "-p")) {
        prof = 1;
        a = 2;
    }
    if (a >= argc) {
        fprintf(stderr, "usage: icount [-p] EXE ARG...\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        execv(argv[a], argv + a);
        _exit(127);
    }
    if (!stopped(pid, &st, &si)) {
        fprintf(stderr, "icount: %s did not start\n", argv[a]);
        return 2;
    }
    int sig = 0;
    for (;;) { /* full speed up to the first int3 (a SIGTRAP the kernel sends: SI_KERNEL) */
        ptrace(PTRACE_CONT, pid, 0, sig);
        if (!stopped(pid, &st, &si)) {
            fprintf(stderr, "icount: %s ended before its first int3\n", argv[a]);
            return 2;
        }
        if (WSTOPSIG(st) == SIGTRAP && si.si_code == SI_KERNEL)
            break;
        sig = WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st);
    }
    long n = 0;
    for (;;) {
        struct user_regs_struct r;
        if (prof)
            ptrace(PTRACE_GETREGS, pid, 0, &r);
        if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) != 0 || !stopped(pid, &st, &si)) {
            fprintf(stderr, "icount: %s ended before its second int3\n", argv[a]);
            return 2;
        }
        if (WSTOPSIG(st) != SIGTRAP) {
            fprintf(stderr, "icount: signal %d between the int3s\n", WSTOPSIG(st));
            kill(pid, SIGKILL);
            return 2;
        }
        if (si.si_code == SI_KERNEL) /* the second int3 */
            break;
        if (prof)
            add(r.rip);
        n++;
    }
    printf("instructions %ld\n", n);
    if (prof) {
        char path[64], line[4096];
        snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
        FILE *f = fopen(path, "r");
        while (f && fgets(line, sizeof line, f))
            printf("map %s", line);
        if (f)
            fclose(f);
        for (unsigned long h = 0; h < (1ul << TBITS); h++)
            if (keys[h])
                printf("rip %lx %lu\n", keys[h], counts[h]);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return 0;
}
"""


class CountError(RuntimeError):
    """The tracer could not count (no marker reached, a signal in the stretch, ptrace refused)."""


def build_tracer(wd: Path) -> Path:
    """Compile the tracer into ``wd`` (once) and return its path."""
    wd.mkdir(parents=True, exist_ok=True)
    exe = wd / "icount"
    if not exe.exists():
        (wd / "icount.c").write_text(TRACER_C)
        p = subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "icount.c", "-o", "icount"], cwd=wd,
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise CountError(f"the tracer does not compile:\n{p.stderr[-2000:]}")
    return exe


@dataclass
class Count:
    """What one traced run gave: the instructions between the marks; with ``-p`` the memory map and
    the count of each instruction address."""

    instructions: int
    maps: list[str] = field(default_factory=list)
    rips: dict[int, int] = field(default_factory=dict)


def count(tracer: Path, argv: list[str], profile: bool = False, timeout: float = 1800) -> Count:
    """Run ``argv`` under the tracer: the instructions between its two ``int3`` marks."""
    p = subprocess.run([str(tracer), *(["-p"] if profile else []), *argv], capture_output=True, text=True,
                       timeout=timeout)
    m = re.search(r"^instructions (\d+)$", p.stdout, re.M)
    if p.returncode != 0 or not m:
        raise CountError(f"{' '.join(argv)}: {(p.stderr or p.stdout)[-1000:]}")
    c = Count(int(m.group(1)))
    for line in p.stdout.splitlines():
        if line.startswith("map "):
            c.maps.append(line[4:])
        elif line.startswith("rip "):
            _, a, k = line.split()
            c.rips[int(a, 16)] = int(k)
    return c


# ------------------------------------------------------------------ where they went (objdump)


@dataclass
class Insn:
    """One disassembled instruction: the function it lies in, its mnemonic and operands."""

    function: str
    mnemonic: str
    text: str


class Disassembly:
    """objdump's disassembly of one object file, by virtual address, and its load segments (to turn a
    file offset into an address)."""

    def __init__(self, path: str):
        self.path = path
        self.segments: list[tuple[int, int, int]] = []  # (file offset, virtual address, file size)
        out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
        for m in re.finditer(r"^\s*LOAD\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)", out, re.M):
            self.segments.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16)))
        self.insns: dict[int, Insn] = {}
        fn = "?"
        dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-w", path], capture_output=True, text=True).stdout
        for line in dis.splitlines():
            if m := re.match(r"^[0-9a-f]+ <(.+)>:$", line):
                fn = m.group(1)
            elif m := re.match(r"^\s+([0-9a-f]+):\s+(\S.*)$", line):
                text = m.group(2).split("#")[0].strip()
                self.insns[int(m.group(1), 16)] = Insn(fn, text.split()[0], text)
        self._addrs = sorted(self.insns)

    def vaddr(self, offset: int) -> int:
        for off, va, size in self.segments:
            if off <= offset < off + size:
                return offset - off + va
        return offset

    def at(self, vaddr: int) -> Insn | None:
        return self.insns.get(vaddr)


def resolve(c: Count) -> list[tuple[str, Insn | None, int]]:
    """Each counted address as (object file, instruction, count)."""
    return [(path, insn, k) for path, insn, k, _ in _resolved(c)]


def _resolved(c: Count) -> list[tuple[str, Insn | None, int, int]]:
    """Each counted address as (object file, instruction, count, its address in the file)."""
    maps = []
    for line in c.maps:
        parts = line.split()
        if len(parts) >= 6 and parts[5].startswith("/"):
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            maps.append((lo, hi, int(parts[2], 16), parts[5]))
    maps.sort()
    starts = [m[0] for m in maps]
    cache: dict[str, Disassembly] = {}
    out = []
    for rip, k in c.rips.items():
        i = bisect.bisect_right(starts, rip) - 1
        if i < 0 or not (maps[i][0] <= rip < maps[i][1]):
            out.append(("?", None, k, rip))
            continue
        lo, _, off, path = maps[i]
        d = cache.get(path) or cache.setdefault(path, Disassembly(path))
        va = d.vaddr(rip - lo + off)
        out.append((path, d.at(va), k, va))
    return out


def source_lines(path: str, vaddrs: list[int]) -> dict[int, str]:
    """``file:line`` of each address of ``path`` (addr2line; objects compiled with -g), else nothing: the
    outermost frame of an inlined call (the line that called the intrinsic or helper)."""
    if not vaddrs:
        return {}
    p = subprocess.run(["addr2line", "-i", "-a", "-e", path, *[hex(a) for a in vaddrs]], capture_output=True,
                       text=True)
    if p.returncode != 0:
        return {}
    out: dict[int, str] = {}
    addr = None
    for ln in p.stdout.splitlines():
        if ln.startswith("0x"):
            addr = int(ln, 16)
        elif addr is not None and not ln.startswith("??"):
            out[addr] = ln.split(" (")[0]  # (the last line of the group: the outermost frame)
    return out


def profile(c: Count) -> dict[str, Counter]:
    """Counts per mnemonic, per function (``object:function``) and per source line (``file:line``, for
    objects with debug information)."""
    by_mn: Counter = Counter()
    by_fn: Counter = Counter()
    at: dict[str, list[tuple[int, int]]] = {}
    for path, insn, k, vaddr in _resolved(c):
        name = Path(path).name
        if insn is None:
            by_mn["?"] += k
            by_fn[f"{name}:?"] += k
            continue
        by_mn[insn.mnemonic] += k
        by_fn[f"{name}:{insn.function}"] += k
        at.setdefault(path, []).append((vaddr, k))
    by_line: Counter = Counter()
    for path, hits in at.items():
        lines = source_lines(path, [a for a, _ in hits])
        for a, k in hits:
            if a in lines:
                by_line[lines[a]] += k
    return {"mnemonic": by_mn, "function": by_fn, "line": by_line}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profile", action="store_true", help="also counts per mnemonic and per function")
    ap.add_argument("--top", type=int, default=25, help="rows of each profile table (default 25)")
    ap.add_argument("--per", type=float, default=1.0, help="divide the counts by this (elements: per element)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/expand-icount"), help="where the tracer is built")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- EXE ARG... (marks its stretch with two int3)")
    args = ap.parse_args(argv)
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        ap.error("no program to run")
    try:
        c = count(build_tracer(args.work), cmd, profile=args.profile)
    except CountError as exc:
        print(f"icount: {exc}", file=sys.stderr)
        return 1
    print(f"instructions {c.instructions} ({c.instructions / args.per:.2f} per {args.per:g})")
    if args.profile:
        for what, counter in profile(c).items():
            print(f"\n{what:>12}  per {args.per:g}")
            for key, k in counter.most_common(args.top):
                print(f"{k / args.per:12.3f}  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
