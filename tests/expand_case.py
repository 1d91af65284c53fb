"""One check for a C source: expand it for an ISA, compile the output strictly, verify every function.

Used by the tests that hold "exit 0 means correct, compilable C" on inputs nobody wrote to pass."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hostrun import assert_verified

from emit import get_isa
from expand.check.verify import Param, verify
from expand.driver import expand_module
from frontends.clang_frontend import read_file_any

#: What every output must compile with, beyond the ISA's flags.
STRICT = ["-O2", "-Wall", "-Wextra", "-Werror", "-Werror=implicit-function-declaration", "-ffp-contract=off"]


def expand_source(tmp_path: Path, name: str, text: str, isa_name: str, functions: list[str] | None = None,
                  uniform: list[str] = (), frontend: str = "auto"):
    """(source path, isa, Result) of expanding ``text`` (written to ``tmp_path/name.c``)."""
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    isa = get_isa(isa_name)
    mod = read_file_any(str(src), text, frontend=frontend, cc=isa.preprocessor)
    res = expand_module(mod, isa, functions=functions, shapes={u: "uniform" for u in uniform})
    return src, isa, res


def check_source(tmp_path: Path, name: str, text: str, isa_name: str, *, functions: list[str] | None = None,
                 uniform: list[str] = (), companion: str = "", bounds: dict[str, tuple[int, int]] | None = None,
                 n_random: int = 3000, frontend: str = "auto", nan_bits: bool = True) -> None:
    """Expand, compile the output with STRICT and the ISA's flags, and verify every function (skips
    the run where the host cannot run the ISA). ``nan_bits`` False: any two NaN results alike (as
    ``expand --verify`` compares them by default)."""
    src, isa, res = expand_source(tmp_path, name, text, isa_name, functions, uniform, frontend)
    out = tmp_path / f"{name}_out.c"
    out.write_text(res.text)
    cmd = [*isa.cc, *STRICT, *isa.cflags, "-c", str(out), "-o", str(tmp_path / f"{name}_out.o")]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, f"{' '.join(cmd)}\n{p.stderr}\n{res.text}"
    link = []
    if companion:
        (tmp_path / f"{name}_companion.c").write_text(companion)
        link = [tmp_path / f"{name}_companion.c"]
    mod = read_file_any(str(src), text, frontend=frontend, cc=isa.preprocessor)
    for e in res.functions:
        rep = verify(scalar_sources=[src], scalar_name=e.scalar_name, vector_c=res.text, vector_name=e.vector_name,
                     params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=isa,
                     link_files=link, constants=e.constants, n_random=n_random,
                     scalar_static=mod.functions[e.scalar_name].static, bounds=bounds or {},
                     global_vars=[(g.name, g.type) for g in e.globals], nan_bits=nan_bits)
        assert_verified(rep, res.text)
