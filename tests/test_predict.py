"""Static branch prediction (expand/analysis/predict.py) and what BOSCC's ``auto`` does with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from expand.analysis.cfg import build_cfg
from expand.analysis.predict import guess, rare
from frontends.pycparser_frontend import read_file
from predication.single_exit import single_exit
from tests.test_boscc import expand as expand_corpus
from tests.test_uniform_branches import check


def arms(tmp_path: Path, body: str) -> dict[str, tuple[bool, bool]]:
    """{source text of each if condition: (then arm rare, else arm rare)} of ``f``."""
    text = f"int g(int);\nint f(int i, unsigned u, float x) {{\n{body}\n}}\n"
    src = tmp_path / "f.c"
    src.write_text(text)
    fn = read_file(str(src), text).functions["f"]
    single_exit(fn)
    lines = text.split("\n")
    out = {}
    for b in build_cfg(fn.body).blocks:
        if b.term[0] == "branch":
            _, _, t, e, s = b.term
            rest = lines[s.coord.line - 1][s.coord.col - 1:]
            depth, end = 0, 0
            for end, ch in enumerate(rest):
                depth += {"(": 1, ")": -1}.get(ch, 0)
                if ch == ")" and depth == 0:
                    break
            out[rest[rest.index("(") + 1:end]] = (rare(t), rare(e))
    return out


@pytest.mark.parametrize("cond, truth", [
    ("i < 0", False), ("i <= 0", False), ("0 > i", False), ("i >= 0", True), ("i > 0", True),
    ("i == 7", False), ("i != 7", True), ("x == 1.0f", False), ("!(i == 7)", True),
    ("i < 0 && i > -9", False), ("i < 0 || i == 3", False), ("i != 0 || i < 0", True),
    ("u < 0u", None),  # unsigned: no sign to guess from
    ("i < 23", None), ("x < 0.0f", None), ("i & 4", True), ("i < 0 && g(i) > 2", False), ("i < 0 || g(i) > 2", None),
    ("g(i)", True), ("!g(i)", False),  # if (x) is x != 0
])
def test_opcode_heuristic(tmp_path: Path, cond: str, truth: bool | None) -> None:
    text = f"int g(int);\nint f(int i, unsigned u, float x) {{ if ({cond}) i = g(i); return i; }}\n"
    src = tmp_path / "f.c"
    src.write_text(text)
    fn = read_file(str(src), text).functions["f"]
    assert guess(fn.body[0].cond) is truth


def test_return_heuristic_and_hints(tmp_path: Path) -> None:
    got = arms(tmp_path, """
    if (i < 23) { i = g(i); } else { if (i == 200) return i + 1; return 5; }
    if (i > 9) { i = i * 2; } else { if (g(i)) i = 3; else return 2; }
    if (__builtin_expect(i < 0, 1)) i = g(i);
    if (i < 0) return 4; else return 6;
    """)
    assert got == {
        "i < 23": (False, True),       # the else arm returns on every path, the then arm goes on
        "i == 200": (True, False),     # opcode
        "i > 9": (False, False),       # only one path of the else arm returns
        "g(i)": (False, True),         # if (x) is x != 0
        "__builtin_expect(i < 0, 1)": (False, True),  # the source's hint beats the heuristics
        "i < 0": (True, False),        # opcode (both arms return)
    }


RARE_ARMS = """float f(float x, int n) {
    float r = x * 0.5f;
    if (n < 0) {
        r = r * x + 1.0f;
        r = r * r - x;
        r = r * 3.0f + x;
    }
    if (n > 0) {
        r = r * x + 2.0f;
        r = r * r - x;
        r = r * 5.0f + x;
    }
    if (x < 100.0f)
        r = r + 1.0f;
    else {
        r = r * x - 3.0f;
        r = r * r + x;
        r = r * 7.0f - x;
        return r;
    }
    return r - 2.0f;
}
"""


def test_chain_heuristic(tmp_path: Path) -> None:
    """``if (a) A else if (__builtin_expect (b, 1)) B``: A is the special case (glibc's sinf); not where
    the later condition is marked unlikely (its else arm is then the likely one), nor without a hint."""
    got = arms(tmp_path, """
    if (u < 23u) { i = g(i) * 3; } else if (__builtin_expect(u < 99u, 1)) { i = g(i); } else { i = 4; }
    if (u < 7u) { i = g(i) * 3; } else if (__builtin_expect(u == 99u, 0)) { i = g(i); } else { i = 4; }
    if (u < 5u) { i = g(i) * 3; } else if (u < 42u) { i = g(i); } else { i = 4; }
    return i;
    """)
    assert got["u < 23u"] == (True, False)
    assert got["u < 7u"] == (False, False)
    assert got["u < 5u"] == (False, False)


CHAIN = """
#include <stdint.h>
float f(float x, uint32_t u)
{
    float r;
    if (u < 0x3f000000u) {
        r = x * x + 1.0f;
        r = r * x - 0.5f;
        r = r * r + x;
        r = r * 3.0f - x;
    } else if (__builtin_expect(u < 0x42f00000u, 1)) {
        r = x - 2.0f;
    } else {
        r = x * 0.25f;
    }
    return r;
}
"""


@pytest.mark.parametrize("isa", ["sse4.1", "avx2", "neon"])
def test_auto_guards_the_arm_before_a_likely_one(tmp_path: Path, isa: str) -> None:
    body = check(tmp_path, CHAIN, isa)
    guarded = {m.group(1) for m in re.finditer(r"if \(\(?!?\w+\((m_\w+)", body)}
    assert guarded == {"m_u_lt_0x3f000000"}, body
    assert check(tmp_path, CHAIN, isa, "off")  # (check verifies each: bit for bit in every mode)


@pytest.mark.parametrize("isa", ["sse4.1", "avx2", "neon"])
def test_auto_guards_the_predicted_rare_arms(tmp_path: Path, isa: str) -> None:
    body = check(tmp_path, RARE_ARMS, isa)
    guarded = {m.group(1) for m in re.finditer(r"if \(\(?!?\w+\((m_\w+)", body)}
    assert guarded == {"m_n_lt_0", "m_not_x_lt_1000f"}, body  # not n > 0: predicted to run
    assert check(tmp_path, RARE_ARMS, isa, "all")  # and every mode stays bit-exact
    assert check(tmp_path, RARE_ARMS, isa, "off")


@pytest.mark.parametrize("isa", ["sse4.1", "avx2"])
def test_auto_guards_floorf_where_it_is_rare(isa: str) -> None:
    text = expand_corpus("floorf", "auto", isa)
    tests = re.findall(r"if \(\(?!?_mm\w*_test[zc]_\w+\((m_\w+)", text)
    # |x| < 1 and the big/inf/NaN arm (it returns early); the main path runs without a branch
    assert set(tests) <= {"m_j0_lt_0", "m_not_j0_lt_23"} and "m_j0_lt_0" in tests, text
