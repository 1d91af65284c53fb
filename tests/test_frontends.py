"""The clang frontend builds the pycparser frontend's IR (issue 7): same structural dump, byte-identical
``expand_module`` output, the same diagnostics; and our C type rules agree with clang's on a
generated set of expressions (``python -m expand.check.crosscheck --types`` prints the details)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("clang.cindex", reason="libclang is in the [test] extra")

from emit import get_isa  # noqa: E402
from expand.check import crosscheck as X  # noqa: E402
from expand.driver import expand_module  # noqa: E402
from expand.ir.diagnostics import ExpandError  # noqa: E402
from frontends.clang_frontend import available, read_file_any, read_file_clang, read_file_clang_report  # noqa: E402
from frontends.pycparser_frontend import read_file  # noqa: E402
from mathlib.corpus import corpus  # noqa: E402

FUNCS = {f.name: f for f in corpus()}


def read_corpus(reader, f):
    return reader(str(f.source), f.source.read_text(), [str(d) for d in f.include_dirs])


def test_libclang_is_usable() -> None:
    assert available()


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_corpus_same_ir_and_byte_identical_output(name: str) -> None:
    f = FUNCS[name]
    a = read_corpus(read_file, f)
    b, mismatches = read_corpus(read_file_clang_report, f)
    assert not mismatches, "\n".join(map(str, mismatches))  # clang never overrode our type rules here
    diffs = X.first_differences(X.dump_module(a), X.dump_module(b))
    assert not diffs, "\n".join(f"{fn}: {d}" for fn, d in diffs)
    isa = get_isa("sse4.1")
    ta = expand_module(a, isa, functions=[f.func]).text
    tb = expand_module(b, get_isa("sse4.1"), functions=[f.func]).text
    assert ta == tb


@pytest.mark.parametrize("case", X.kernel_cases(), ids=lambda c: c.name)
def test_kernels_identical(case: X.Case) -> None:
    assert X.compare_case(case) == []


def test_dump_sees_spelling_and_coordinates(tmp_path: Path) -> None:
    """The structural dump is not blind: a typedef spelling or a column changes it."""
    text = "#include <stdint.h>\nuint32_t f(uint32_t a) { uint32_t t = a + 1u; return t >> 3; }\n"
    a = read_file(str(tmp_path / "s.c"), text)
    b = read_file_clang(str(tmp_path / "s.c"), text)
    assert X.first_differences(X.dump_module(a), X.dump_module(b)) == []
    t = b.functions["f"].locals[0]
    t.type = type(t.type)(t.type.bits, t.type.signed, spelling="unsigned int")
    assert X.first_differences(X.dump_module(a), X.dump_module(b))
    b = read_file_clang(str(tmp_path / "s.c"), text.replace("{ uint32_t", "{\nuint32_t"))
    diffs = X.first_differences(X.dump_module(a), X.dump_module(b))
    assert [fn for fn, _ in diffs] == ["<module>", "f"] and "s.c:3:10" in diffs[1][1]


# ----------------------------------------------------------------------------- type rules


# Known, reported bugs of our type rules that the cross-check shows: name -> the expressions that show it.
# Each is a strict xfail below; once fixed, move it to FIXED_BUGS (a regression test keeps it fixed).
KNOWN_BUGS: dict[str, object] = {}
FIXED_BUGS = {
    "enum_is_unsigned": lambda e: re.search(r"\bep\b|enum pos", e),  # no negative constant: unsigned int
    "char_constant_sign": lambda e: e in ("'\\377'", "'\\x80'"),  # char is signed on x86-64: '\377' is -1
    "pointer_condition": lambda e: e == "!pf",  # C allows a pointer as a truth value
}


def _bug(expr: str) -> str | None:
    """The known, reported bug of our type rules an expression shows, if any."""
    return next((name for name, shows in KNOWN_BUGS.items() if shows(expr)), None)


@pytest.fixture(scope="module")
def type_results() -> list[X.TypeResult]:
    return X.type_crosscheck()


def test_type_crosscheck_covers_enough_expressions(type_results) -> None:
    exprs = [r.expr for r in type_results]
    assert len(exprs) >= 300
    for needle in ("<<", "==", "?", "(unsigned char)", "up.", "ps->", "u32", "mu2", "sizeof", "0x80000000"):
        assert any(needle in e for e in exprs), needle


def test_type_rules_agree_with_clang(type_results) -> None:
    bad = [f"{r.expr}: {'; '.join(r.problems)}" for r in type_results if r.problems and _bug(r.expr) is None]
    assert not bad, "\n".join(bad)


def test_no_known_type_rule_bugs_left() -> None:
    # Every type-rule difference found by the clang cross-check has been fixed (see FIXED_BUGS);
    # a new one goes to KNOWN_BUGS only together with a fix in progress.
    assert not KNOWN_BUGS


@pytest.mark.parametrize("bug", sorted(FIXED_BUGS))
def test_fixed_type_rule_bugs_stay_fixed(type_results, bug: str) -> None:
    shown = [r for r in type_results if FIXED_BUGS[bug](r.expr)]
    assert shown, f"the cross-check no longer has expressions for {bug}"
    wrong = [f"{r.expr}: {'; '.join(r.problems)}" for r in shown if r.problems]
    assert not wrong, "\n".join(wrong)


def test_both_frontends_on_every_type_expression() -> None:
    """The generated expressions through both frontends, node for node (beyond the top-level type)."""
    exprs = X.type_expressions()
    case = X.Case("types", "/tmp/expand-typecheck/types.c", X.type_check_source(exprs))
    diffs = X.compare_functions(case)
    bad = [f"{exprs[int(fn[2:])]}: {d}" for fn, d in diffs if _bug(exprs[int(fn[2:])]) is None]
    assert not bad, "\n".join(bad[:5])


def test_clang_types_override_our_rules_and_say_so(tmp_path: Path, monkeypatch) -> None:
    text = "enum e { A, B };\nint f(enum e x) { return x - 1 > 0; }\n"
    mod, mismatches = read_file_clang_report(str(tmp_path / "e.c"), text)
    assert not mismatches  # our enum rule is GCC's (and clang's): unsigned int
    assert mod.functions["f"].body[0].value.left.type.signed is False
    from expand.ir import types as T
    monkeypatch.setattr(T, "enum_type", lambda values, packed=False: T.INT)  # the old, wrong rule
    mod, mismatches = read_file_clang_report(str(tmp_path / "e.c"), text)
    assert mismatches and "our rules say 'int'" in str(mismatches[0]) and "unsigned int" in str(mismatches[0])
    cmp = mod.functions["f"].body[0].value
    assert cmp.left.type.signed is False  # clang's type, not ours


def test_increment_of_narrow_types(tmp_path: Path) -> None:
    """``c++`` on a char or short is the sum in int converted back (C11 6.5.2.4), from both frontends: clang's
    type of ``c++`` (the operand's) is not the sum's, and is no second opinion on it."""
    from expand.ir import types as T
    from expand.ir.nodes import Binary, Cast
    text = ("int f(int x) { char c = x; short s = x; unsigned char u = x; c++; --s; u += 1; "
            "int a = c++ + ++s; return a + c + s + u; }\n")
    path = str(tmp_path / "inc.c")
    a = read_file(path, text)
    b, mismatches = read_file_clang_report(path, text)
    assert not mismatches, "\n".join(map(str, mismatches))
    assert X.first_differences(X.dump_module(a), X.dump_module(b)) == []
    for inc in b.functions["f"].body[3:5]:  # c++; --s;
        assert isinstance(inc.value, Cast) and isinstance(inc.value.operand, Binary)
        assert inc.value.type.bits < 32 and T.strip_spelling(inc.value.operand.type) == T.INT
    isa = get_isa("sse4.1")
    assert expand_module(a, isa).text == expand_module(b, get_isa("sse4.1")).text


# ----------------------------------------------------------------------------- diagnostics


def diagnose(reader, path: str, text: str) -> ExpandError | None:
    try:
        expand_module(reader(path, text), get_isa("sse4.1"))
    except ExpandError as exc:
        return exc
    return None


def _diag_cases() -> dict[str, str]:
    from test_diagnostics import CASES
    return {name: text for name, (text, _) in CASES.items()}


@pytest.mark.parametrize("name", sorted(_diag_cases()))
def test_diagnostic_parity(tmp_path: Path, name: str) -> None:
    path = str(tmp_path / f"{name}.c")
    text = _diag_cases()[name] + "\n"
    a, b = diagnose(read_file, path, text), diagnose(read_file_clang, path, text)
    assert a is not None and b is not None
    for exc in (a, b):
        assert re.match(rf"^{re.escape(path)}:\d+:\d+: error: ", exc.render()), exc.render()
    assert a.coord.line == b.coord.line, (a.render(), b.render())
    assert a.coord.col == b.coord.col, (a.render(), b.render())  # (pycparser's syntax errors too)
    if "libclang" not in b.hint:
        assert a.message == b.message


def test_clang_syntax_errors_are_precise_and_name_the_other_frontend(tmp_path: Path) -> None:
    exc = diagnose(read_file_clang, str(tmp_path / "s.c"), "int f(int x) {\n  return x +;\n}\n")
    assert exc is not None and (exc.coord.line, exc.coord.col) == (2, 13)
    assert "--frontend pycparser" in exc.render()


# ----------------------------------------------------------------------------- choosing a frontend

ONLY_CLANG = "int f(int x) { __auto_type y = x + 1; return y; }\n"  # pycparser cannot parse __auto_type
ONLY_PYCPARSER = "float f(float x) { return fabsf(x); }\n"  # clang: no implicit declarations in C99+


def test_read_file_any_auto_is_pycparser(tmp_path: Path) -> None:
    text = X.kernel_sources()["doubles"] + "\n"
    path = str(tmp_path / "k.c")
    auto = X.dump_module(read_file_any(path, text))
    assert X.first_differences(auto, X.dump_module(read_file(path, text))) == []
    assert X.first_differences(X.dump_module(read_file_any(path, text, frontend="clang")), auto) == []
    with pytest.raises(ValueError):
        read_file_any(path, text, frontend="gcc")


def test_construct_only_one_frontend_reads(tmp_path: Path) -> None:
    path = str(tmp_path / "c.c")
    with pytest.raises(ExpandError) as exc:
        read_file_any(path, ONLY_CLANG, frontend="pycparser")
    assert "--frontend clang" in exc.value.render()
    assert "f" in read_file_any(path, ONLY_CLANG).functions  # auto falls back to clang
    with pytest.raises(ExpandError) as exc:
        read_file_any(path, ONLY_PYCPARSER, frontend="clang")
    assert re.match(rf"{re.escape(path)}:1:27: error: ", exc.value.render())
    assert "--frontend pycparser" in exc.value.render()
    assert "f" in read_file_any(path, ONLY_PYCPARSER).functions


def test_crosscheck_command_on_a_file(tmp_path: Path, capsys) -> None:
    src = tmp_path / "k.c"
    src.write_text(X.kernel_sources()["union_pun"] + "\n")
    assert X.main([str(src)]) == 0
    assert "1/1 files identical" in capsys.readouterr().out
