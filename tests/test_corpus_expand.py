"""The spine's acceptance: every corpus function expands for SSE4.1 and verifies bit-exact."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hostrun import assert_verified

from emit import get_isa
from expand.check.verify import Param, verify
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file
from mathlib.corpus import CorpusFunction, corpus

FUNCS = {f.name: f for f in corpus()}
ROOT = Path(__file__).parent.parent


def expand_corpus(f: CorpusFunction, isa_name: str = "sse4.1"):
    isa = get_isa(isa_name)
    mod = read_file(str(f.source), f.source.read_text(), [str(d) for d in f.include_dirs])
    return isa, expand_module(mod, isa, functions=[f.func])


# (the daily loop: logf; tests/test_isa.py verifies the corpus on every ISA)
@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n == "logf" else pytest.mark.slow)
                                  for n in sorted(FUNCS)])
def test_corpus_function_verifies_bit_exact(name: str) -> None:
    f = FUNCS[name]
    isa, res = expand_corpus(f)
    (e,) = res.functions
    rep = verify(scalar_sources=[f.source], scalar_name=e.scalar_name, vector_c=res.text,
                 vector_name=e.vector_name, params=[Param(p.name, p.type) for p in e.params], ret=e.ret,
                 isa=isa, include_dirs=f.include_dirs, link_files=f.link, libs=tuple(f.libs) or ("m",),
                 constants=e.constants, n_random=100_000)
    assert_verified(rep)
    assert rep.mismatches == 0
    assert rep.random_inputs >= 100_000
    assert rep.edge_inputs > 0


def test_floorf_output_is_readable() -> None:
    _, res = expand_corpus(FUNCS["floorf"])
    text = res.text
    body = text[text.index("_Exp___floorf("):]
    for name in ("i0", "j0", "x"):
        assert re.search(rf"\b{name}\b", body), name
    assert "/* j0 = ((i0 >> 23) & 0xff) - 0x7f; */" in body
    assert not re.search(r"\bt\d+\b", body)
    assert "_mm_" in body
    # Every declared local is used after its declaration.
    for decl in re.findall(r"^\s+\w+ (\w+);$", body, re.M):
        assert len(re.findall(rf"\b{decl}\b", body)) >= 3, decl


def test_mot_output_is_readable() -> None:
    _, res = expand_corpus(FUNCS["mot"])
    body = res.text[res.text.index("_Exp_mot("):]
    for name in ("hx", "ix", "bp_k"):
        assert re.search(rf"\b{name}\b", body), name
    assert re.search(r"/\* .*ix *= *hx *& *3.*\*/", body)
    assert "powf(" in body  # not expandable: called per active lane
    assert "_mm_sqrt_ps(" in body and "sqrtf(" not in body.replace("/* *y = sqrtf(ix); */", "")  # an instruction


def test_cli_verify_floorf(tmp_path: Path) -> None:
    f = FUNCS["floorf"]
    inc = [a for d in f.include_dirs for a in ("-I", str(d))]
    out = tmp_path / "floorf_sse.c"
    p = subprocess.run([sys.executable, "-m", "expand.cli", str(f.source), *inc, "--isa", "sse4.1", "-o", str(out)],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert "_Exp___floorf" in out.read_text()
    p = subprocess.run([sys.executable, "-m", "expand.cli", str(f.source), *inc, "--isa", "sse4.1", "--verify"],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert re.search(r"0 mismatches", p.stdout), p.stdout
