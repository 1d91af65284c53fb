"""The pycparser frontend parses the headers a file starts with once per process
(frontends/pycparser_frontend.py ``_parse``): what it reads, and where it reports errors, are what a
parse of the whole text gives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pycparser import c_generator

from emit import get_isa
from expand.driver import expand_module
from expand.ir.diagnostics import ExpandError
from frontends import pycparser_frontend as P

HEADER = """typedef float real_t;
typedef struct { real_t lo, hi; } span_t;
static inline real_t clampf(real_t x, span_t s) { return x < s.lo ? s.lo : x > s.hi ? s.hi : x; }
"""

MAIN = """#include <math.h>
#include "span.h"

real_t f(real_t x)
{
    span_t s = { -1.0f, 1.0f };
    return clampf(sqrtf(fabsf(x)), s);
}
"""


def expand_text(path: Path) -> str:
    mod = P.read_file(str(path), path.read_text())
    return expand_module(mod, get_isa("sse4.1"), functions=["f"]).text


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "span.h").write_text(HEADER)
    (tmp_path / "f.c").write_text(MAIN)
    return tmp_path / "f.c"


def test_same_output_with_and_without_the_parsed_headers(files: Path, monkeypatch) -> None:
    P._HEADERS.clear()
    first = expand_text(files)  # (parses the headers and keeps them)
    assert len(P._HEADERS) == 1
    (decls, types), = P._HEADERS.values()
    assert {"real_t", "span_t"} <= types
    before = [c_generator.CGenerator().visit(d) for d in decls]
    again = expand_text(files)  # (reads the kept declarations)
    assert again == first
    assert [c_generator.CGenerator().visit(d) for d in decls] == before  # (the reader changed none)
    monkeypatch.setattr(P, "headers_end", lambda pre, main: 0)  # the whole text in one parse
    assert expand_text(files) == first


def test_split_where_the_file_starts(files: Path) -> None:
    from frontends.csemantics import preprocessed
    _, _, pre = preprocessed(str(files), files.read_text())
    cut = P.headers_end(pre, str(files))
    assert cut > 0 and pre[cut:].startswith(f'# 3 "{files}"')
    assert "clampf" in pre[:cut] and "real_t f(" in pre[cut:]
    assert P.headers_end('# 1 "a.c"\nint x;\n#include "h.h"\n', "a.c") == 0  # (its own text first)


def rendered_error(path: Path) -> str:
    with pytest.raises(ExpandError) as exc:
        expand_text(path)
    return exc.value.render()


@pytest.mark.parametrize("where", ["main", "header"])
def test_syntax_errors_say_where_with_the_headers_kept(files: Path, where: str, monkeypatch) -> None:
    P._HEADERS.clear()
    expand_text(files)
    if where == "main":
        files.write_text(MAIN.replace("return clampf", "return ) clampf"))
        want = r"f\.c:7:\d+: error: syntax error"
    else:
        (files.parent / "span.h").write_text(HEADER + "real_t broken(;\n")
        want = r"f\.c:2:1: error: the header included here .*span\.h:4:15"
    kept = rendered_error(files)
    assert re.search(want, kept), kept
    monkeypatch.setattr(P, "headers_end", lambda pre, main: 0)
    assert rendered_error(files) == kept
