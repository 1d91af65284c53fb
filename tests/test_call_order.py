"""A call that writes a variable the same expression reads elsewhere (expand/analysis/call_order.py): C
leaves the order of the two open, expand makes the call first, a C compiler may not; a warning, exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from expand.cli import main as expand_main

PRELUDE = r"""struct st { float x, y; };
static float h(struct st *p, float a) { p->x = a * 2.0f; return a + 1.0f; }
static float g(float *p, float a) { *p = a; return a; }
static float peek(const float *p, float a) { return *p + a; }
float ext(float *out, float a);
float ext_pure(float *in, float a) __attribute__((pure));
"""


def _warnings(tmp_path: Path, capsys, body: str, frontend: str = "auto") -> tuple[int, list[str]]:
    src = tmp_path / "co.c"
    src.write_text(PRELUDE + "float f(float a, float b) {\n    struct st s = {a, b};\n    float u = b;\n"
                   "    float q[4] = {a, b, a, b};\n" + body + "\n}\n")
    rc = expand_main([str(src), "-o", str(tmp_path / "co_out.c"), "--isa", "avx2", "--frontend", frontend])
    err = capsys.readouterr().err
    return rc, [ln.split(": warning: ", 1)[1] for ln in err.splitlines() if ": warning: " in ln]


@pytest.mark.parametrize("frontend", ["pycparser", "clang"])
def test_call_writing_what_the_expression_reads_warns(tmp_path: Path, capsys, frontend: str) -> None:
    """The warning points at the call, names the variable and what to write instead; exit 0."""
    rc, warned = _warnings(tmp_path, capsys, "    float t = h(&s, a) + s.x;\n    return t;", frontend)
    assert rc == 0
    assert warned == [
        "the call of 'h' writes 's' (its address is an argument), which the same expression also reads: C leaves "
        "the order of the two open; expand makes the call first, a C compiler may not, and the scalar build can "
        "then compute another value than the vector code"]
    err_src = (tmp_path / "co.c").read_text().splitlines()
    line = next(i for i, ln in enumerate(err_src, 1) if "h(&s, a) + s.x" in ln)
    rc = expand_main([str(tmp_path / "co.c"), "-o", str(tmp_path / "co_out.c"), "--isa", "avx2"])
    err = capsys.readouterr().err
    assert f"co.c:{line}:15: warning: the call of 'h'" in err
    assert f"co.c:{line}:15: note: make the call a statement of its own ('t = h(...);', then the expression with " \
           "'t')" in err


WARN = {
    "member read": ("return h(&s, a) + s.x;", ["'h' writes 's'"]),
    "read on the left": ("return s.y * h(&s, a);", ["'h' writes 's'"]),
    "another call's argument": ("return h(&s, a) + peek(&u, s.x);", ["'h' writes 's'"]),
    "array element": ("return ext(&q[1], a) + q[2];", ["'ext' writes 'q'"]),
    "array given whole": ("return ext(q, a) + q[0];", ["'ext' writes 'q'"]),
    "read through a pointer to const": ("return h(&s, a) + peek(&s.y, b);", ["'h' writes 's'"]),
    "compound assignment": ("u += g(&u, a);\n    return u;", ["'g' writes 'u'"]),
    "target's index": ("q[(int)s.x & 3] = h(&s, a);\n    return q[0];", ["'h' writes 's'"]),
    "two writing calls": ("return g(&u, a) + g(&u, b);", ["'g' writes 'u'"]),
    "external call": ("return ext(&u, a) + u;", ["'ext' writes 'u'"]),
    "in a condition": ("if (g(&u, a) > u) return a;\n    return b;", ["'g' writes 'u'"]),
}

QUIET = {
    "statement of its own": "float t = h(&s, a);\n    return t + s.x;",
    "whole right-hand side": "u = g(&u, a);\n    s.y = h(&s, b);\n    return u + s.y;",
    "own arguments": "return g(&u, u + 1.0f);",
    "&& orders": "return (g(&u, a) > 0.0f) && u > 1.0f;",
    "|| orders": "return (g(&u, a) > 0.0f) || u > 1.0f;",
    "?: orders": "return g(&u, a) > 0.0f ? u : b;",
    "pointer to const": "return peek(&u, a) + u;",
    "pure declaration": "return ext_pure(&u, a) + u;",
    "another variable": "return g(&u, a) + s.x;",
    "array at a constant index, own statement": "float t = ext(&q[1], a);\n    return t + q[2];",
}


@pytest.mark.parametrize("body,want", list(WARN.values()), ids=list(WARN))
def test_unordered_reads_and_writes_warn(tmp_path: Path, capsys, body: str, want: list[str]) -> None:
    rc, warned = _warnings(tmp_path, capsys, "    " + body)
    assert rc == 0
    assert len(warned) == len(want) and all(w in got for w, got in zip(want, warned)), warned


@pytest.mark.parametrize("body", list(QUIET.values()), ids=list(QUIET))
def test_ordered_or_unrelated_accesses_do_not_warn(tmp_path: Path, capsys, body: str) -> None:
    rc, warned = _warnings(tmp_path, capsys, "    " + body)
    assert rc == 0 and warned == [], warned


def test_fuzz_check_tells_unordered_programs() -> None:
    """expand-fuzz's programs make such calls in statements of their own; a program that does not is a
    generator bug, outcome ``unspecified`` (the scalar result is the C compiler's choice)."""
    from expand.check.fuzz import check_source
    text = PRELUDE + "float f(float a, float b) {\n    struct st s = {a, b};\n    return h(&s, a) + s.x;\n}\n"
    out = check_source(text, "sse2", n_random=100)
    assert out.kind == "unspecified" and out.failed, out.summary
    assert "the call of 'h' writes 's'" in out.summary
