"""Frontend fixes found by the clang cross-check and the ISA engineers, each checked on real behaviour:
GCC itself (``_Static_assert``/``_Generic`` compiled by the target's compiler) for types and values,
expand + the built-in verifier (sse4.1; NEON and AltiVec under qemu where installed) for generated code.

1. enumerations have GCC's type (unsigned int without negative constants, long beyond 32 bits, the
   smallest type when packed); their constants are int when they fit;
2. character constants: '\\377' is a plain char's value, multi-character, L'a', u'a', U'a' with their
   types, the rest a clean diagnostic;
3. plain char is the target's (``cc``: unsigned on AArch64 and ppc64le), the target's compiler
   preprocesses;
4. a pointer as a truth value and compared with a null pointer constant;
5. ``(void) g(x);`` keeps the call;
6. odd C gets ``file:line:col: error:`` or is read correctly, never a traceback;
7. pycparser's syntax errors carry the real line and column.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostrun import assert_verified

from emit import get_isa
from expand.check import crosscheck as X
from expand.check.verify import Param, verify
from expand.driver import expand_module, select_functions
from expand.ir import types as T
from expand.ir.diagnostics import ExpandError
from expand.ir.nodes import Binary, Call, Const, ExprStmt, Unary, Var
from expand.passes.fold import fold_int
from frontends.clang_frontend import available, read_file_any, read_file_clang
from frontends.pycparser_frontend import read_file

ROOT = Path(__file__).parent.parent
HAVE_CLANG = available()
READERS = [pytest.param(read_file, id="pycparser"),
           pytest.param(read_file_clang, id="clang", marks=pytest.mark.skipif(not HAVE_CLANG, reason="no libclang"))]

# The targets: (ISA, its compiler, the tools verify needs to run its code).
TARGETS = {"sse4.1": ("gcc", []), "neon": ("aarch64-linux-gnu-gcc", ["qemu-aarch64"]),
           "altivec": ("powerpc64le-linux-gnu-gcc", ["qemu-ppc64le"])}


def _missing(tools: list[str]) -> list[str]:
    return [t for t in tools if shutil.which(t) is None]


def needs_cc(isa: str):
    """Skip unless the target's compiler is installed (types and preprocessing only)."""
    missing = _missing([TARGETS[isa][0]])
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)}")


def needs_run(isa: str):
    """Skip unless the target's compiler and emulator are installed (verify runs the code)."""
    missing = _missing([TARGETS[isa][0], *TARGETS[isa][1]])
    return pytest.mark.skipif(bool(missing), reason=f"needs {', '.join(missing)}")


ISAS_RUN = [pytest.param(isa, marks=needs_run(isa)) for isa in TARGETS]
CCS = [pytest.param(TARGETS[isa][0], id=isa, marks=needs_cc(isa)) for isa in TARGETS]


def expand_verify(tmp_path: Path, name: str, text: str, isa_name: str = "sse4.1", reader=read_file,
                  n_random: int = 3000):
    """Expand ``f`` of ``text`` for ``isa_name`` (read for that target) and verify it against the
    scalar ``f`` compiled by the target's compiler; returns (result, report)."""
    src = tmp_path / f"{name}.c"
    src.write_text(text + "\n")
    isa = get_isa(isa_name)
    mod = reader(str(src), src.read_text(), cc=isa.preprocessor)
    res = expand_module(mod, isa, functions=["f"])
    (e,) = res.functions
    rep = verify(scalar_sources=[src], scalar_name=e.scalar_name, vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=isa,
                 constants=e.constants, n_random=n_random)
    return res, rep


def assert_verifies(tmp_path: Path, name: str, text: str, isa_name: str = "sse4.1", reader=read_file):
    res, rep = expand_verify(tmp_path, name, text, isa_name, reader)
    assert_verified(rep, res.text)
    return res


def gcc_agrees(cc: str, tmp_path: Path, checks: list[str], prelude: str = "") -> None:
    """Every ``_Static_assert`` in ``checks`` holds for the target compiler ``cc``."""
    src = tmp_path / "gcc_agrees.c"
    src.write_text(prelude + "\n" + "\n".join(f"_Static_assert({c}, \"{i}\");" for i, c in enumerate(checks)) + "\n")
    p = subprocess.run([cc, "-std=c11", "-fsyntax-only", "-Wno-multichar", "-Wno-overflow", str(src)],
                       capture_output=True, text=True)
    failed = [checks[int(n)] for n in re.findall(r"static assertion failed: \"(\d+)\"", p.stderr)]
    assert p.returncode == 0, "GCC disagrees with us on:\n" + "\n".join(failed or [p.stderr])


def c_type(t: T.CType) -> str:
    """A C type name that _Generic tells apart (plain char is its own type)."""
    if isinstance(t, T.Int) and t.bits == 8 and t.spelling == "char":
        return "char"
    return T.strip_spelling(t).spelling


def cond_of(mod, fn: str):
    """The condition of ``int fn(void) { if (EXPR) ... }`` (EXPR with its type, unconverted)."""
    return mod.functions[fn].body[0].cond


def probe_module(reader, tmp_path: Path, prelude: str, exprs: list[str], cc: str = "gcc"):
    text = prelude + "\n" + "\n".join(f"int t_{i}(void) {{ if ({e}) return 1; return 0; }}"
                                      for i, e in enumerate(exprs)) + "\n"
    return reader(str(tmp_path / "probe.c"), text, cc=cc)


# ----------------------------------------------------------------------------- 1. enumerations

ENUMS = """
enum pos { P0, P1, P2 };
enum neg { N0 = -1, N1 };
enum u32 { U0 = 0xffffffff };
enum big { B0, B1 = 0x100000000 };
enum bign { C0 = -1, C1 = 0x80000000 };
enum pk { K0, K1 = 200 } __attribute__((packed));
enum pkn { Q0 = -1, Q1 = 200 } __attribute__((packed));
typedef enum { T0, T1 = 7 } tenum;
"""
ENUM_EXPRS = ["(enum pos) 1", "(enum neg) 1", "(enum u32) 1", "(enum big) 1", "(enum bign) 1", "(enum pk) 1",
              "(enum pkn) 1", "(tenum) 1", "P1", "N0", "U0", "B0", "B1", "C0", "C1", "K1", "Q0", "T1"]


@pytest.mark.parametrize("reader", READERS)
def test_enum_types_are_gccs(reader, tmp_path: Path) -> None:
    """Our type of every enumeration and constant, checked by GCC itself."""
    mod = probe_module(reader, tmp_path, ENUMS, ENUM_EXPRS)
    checks = []
    for i, e in enumerate(ENUM_EXPRS):
        c = cond_of(mod, f"t_{i}")
        checks.append(f"_Generic(({e}), {c_type(c.type)}: 1, default: 0)")
        if isinstance(c, Const):
            checks.append(f"({e}) == ({c_type(c.type)}) {c.value}{'u' if c.value > 0 else ''}")
    assert cond_of(mod, "t_0").type == T.UINT and cond_of(mod, "t_1").type == T.INT  # the reported bug
    gcc_agrees("gcc", tmp_path, checks, ENUMS)


def test_enum_constant_is_int_unless_it_does_not_fit(tmp_path: Path) -> None:
    mod = probe_module(read_file, tmp_path, ENUMS, ["P1", "B1", "C1", "K1"])
    assert [cond_of(mod, f"t_{i}").type for i in range(4)] == [T.INT, T.ULONG, T.LONG, T.INT]


ENUM_KERNELS = {
    "enum_unsigned": "enum pos { P0, P1, P2 };\n"
                     "int f(int x) { enum pos e = x & 3; return (e - 1 > 0) + 2 * (e < P1); }",
    "enum_param": "enum pos { P0, P1, P2 };\nint f(enum pos e) { return (e - 1 > 0) + (e >> 1); }",
    "enum_negative": "enum neg { N0 = -1, N1 };\nint f(int x) { enum neg e = x >> 1; return (e - 1 > 0) + (e >> 1); }",
    "enum_big": "enum big { B0, B1 = 0x100000000 };\n"
                "long f(long x) { enum big e = x; "
                "return x / 2 + B1 + (e > 0) + (long) sizeof(B1) + (long) sizeof(B0); }",
    "enum_packed": "enum pk { K0, K1 = 200 } __attribute__((packed));\n"
                   "int f(int x) { enum pk e = x; return e * 3 + (int) sizeof e + (e - 1 > 0); }",
    "typedef_enum": "typedef enum { A = 3, B } E;\nint f(int x) { E e = x; return x * B + (e > 1); }",
    "local_enum": "int f(int x) { enum { L0 = 3, L1 }; return x * L1 + (x > L0); }",
}


@pytest.mark.parametrize("name", sorted(ENUM_KERNELS))
def test_enum_kernel_verifies(tmp_path: Path, name: str) -> None:
    assert_verifies(tmp_path, name, ENUM_KERNELS[name])


@pytest.mark.parametrize("reader", READERS)
def test_enum_used_before_its_definition_is_a_diagnostic(reader, tmp_path: Path) -> None:
    path = str(tmp_path / "e.c")
    with pytest.raises(ExpandError) as exc:
        select_functions(reader(path, "enum later;\nint f(enum later *p, int x) { return x; }\n"), None)
    assert re.match(rf"{re.escape(path)}:2:7: error: incomplete enumeration type 'enum later'", exc.value.render())


# ----------------------------------------------------------------------------- 2. character constants

CHARS = ["'a'", "'\\n'", "'\\0'", "'\\377'", "'\\x80'", "'\\x7f'", "'\\200'", "'\\e'", "'\\''", "'ab'",
         "'\\377\\377'", "'abcd'", "'\\x80\\x01'", "L'a'", "L'\\xffffffff'", "L'\\377'", "L'\\u00e9'", "u'a'",
         "u'\\xffff'", "u'\\u20ac'", "U'a'", "U'\\xffffffff'", "U'\\U0001F600'"]


@pytest.mark.parametrize("cc", CCS)
@pytest.mark.parametrize("reader", READERS)
def test_char_constants_are_gccs(reader, cc: str, tmp_path: Path) -> None:
    """Type and value of each constant on each target, as that target's GCC has them."""
    mod = probe_module(reader, tmp_path, "", CHARS, cc=cc)
    checks = []
    for i, e in enumerate(CHARS):
        c = cond_of(mod, f"t_{i}")
        assert isinstance(c, Const), e
        checks.append(f"_Generic(({e}), {c_type(c.type)}: 1, default: 0)")
        checks.append(f"({e}) == ({c_type(c.type)}) ({c.value - 1} + 1)")  # (no literal of c.type needed)
    gcc_agrees(cc, tmp_path, checks)


def test_char_constant_values_on_x86_64(tmp_path: Path) -> None:
    mod = probe_module(read_file, tmp_path, "", ["'\\377'", "'\\x80'", "L'a'", "u'a'", "U'a'", "'ab'"])
    got = [(cond_of(mod, f"t_{i}").type, cond_of(mod, f"t_{i}").value) for i in range(6)]
    assert got == [(T.INT, -1), (T.INT, -128), (T.INT, 97), (T.USHORT, 97), (T.UINT, 97), (T.INT, 0x6162)]


CHAR_KERNEL = ("#pragma GCC diagnostic ignored \"-Wmultichar\"\n"
               "int f(int x) { return x + '\\377' * 3 + '\\x80' + 'ab' + '\\377\\377' + (L'\\xffffffff' > 0) "
               "+ (u'\\xffff' > 0) + (U'\\xffffffff' > 0u) + L'a' * 3 + (x > '\\377'); }")


@pytest.mark.parametrize("isa", ISAS_RUN)
def test_char_constant_kernel_verifies(tmp_path: Path, isa: str) -> None:
    assert_verifies(tmp_path, "chars", CHAR_KERNEL, isa)


BAD_CHARS = {"u8'a'": "C23", "'\u00e9'": "", "'\\u00e9'": "", "L'ab'": "", "'\\x100'": "out of range",
             "'abcde'": "", "u'\U0001F600'": ""}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("const", sorted(BAD_CHARS))
def test_unsupported_char_constants_are_diagnostics(reader, tmp_path: Path, const: str) -> None:
    path = str(tmp_path / "c.c")
    with pytest.raises(ExpandError) as exc:
        select_functions(reader(path, f"int f(int x) {{ return x + {const}; }}\n"), None)
    assert re.match(rf"{re.escape(path)}:1:2[78]: error: ", exc.value.render()), exc.value.render()
    if reader is read_file:
        assert BAD_CHARS[const] in exc.value.message


# ----------------------------------------------------------------------------- 3. the target's char and compiler


@pytest.mark.parametrize("cc", CCS)
@pytest.mark.parametrize("reader", READERS)
def test_plain_char_is_the_targets(reader, cc: str, tmp_path: Path) -> None:
    mod = reader(str(tmp_path / "c.c"), "int f(char c) { return c + '\\377'; }\n", cc=cc)
    c = mod.functions["f"].params[0].type
    signed = "__CHAR_UNSIGNED__" not in subprocess.run([cc, "-dM", "-E", "-x", "c", "/dev/null"],
                                                      capture_output=True, text=True).stdout
    assert c.bits == 8 and c.signed is signed and c.spelling == "char"
    assert cc != "gcc" or signed  # (x86-64: signed; AArch64, ppc64le: unsigned)
    const = mod.functions["f"].body[0].value.right
    assert const.value == (-1 if signed else 255)


@pytest.mark.parametrize("reader", READERS)
def test_char_signed_overrides_the_target(reader, tmp_path: Path) -> None:
    text = "#include <limits.h>\nint f(char c) { return c + CHAR_MIN; }\n"
    mod = reader(str(tmp_path / "c.c"), text, char_signed=False)
    assert mod.functions["f"].params[0].type.signed is False
    assert fold_int(mod.functions["f"].body[0].value.right) == 0  # (the preprocessor agrees: CHAR_MIN is 0)
    assert fold_int(reader(str(tmp_path / "c.c"), text).functions["f"].body[0].value.right) == -128
    if shutil.which("aarch64-linux-gnu-gcc"):
        mod = reader(str(tmp_path / "c.c"), text, cc="aarch64-linux-gnu-gcc", char_signed=True)
        assert mod.functions["f"].params[0].type.signed is True


@needs_cc("neon")
@pytest.mark.parametrize("frontend", ["auto", "pycparser", pytest.param("clang", marks=pytest.mark.skipif(
    not HAVE_CLANG, reason="no libclang"))])
def test_read_file_any_preprocesses_with_the_isas_compiler(frontend: str, tmp_path: Path) -> None:
    text = "#ifndef __aarch64__\n#error not preprocessed for AArch64\n#endif\nint f(char c) { return c; }\n"
    path = str(tmp_path / "a.c")
    with pytest.raises(ExpandError, match="not preprocessed for AArch64"):
        read_file_any(path, text, frontend=frontend)  # (the default stays gcc)
    isa = get_isa("neon")
    for cc in (isa.cc, isa.cc[0]):  # the ISA's command list, or its first word
        mod = read_file_any(path, text, frontend=frontend, cc=cc)
        assert mod.functions["f"].params[0].type.signed is False


@pytest.mark.parametrize("reader", READERS)
def test_a_missing_compiler_is_a_diagnostic(reader, tmp_path: Path) -> None:
    with pytest.raises(ExpandError) as exc:
        reader(str(tmp_path / "a.c"), "int f(int x) { return x; }\n", cc="no-such-gcc")
    assert exc.value.render().startswith("expand: error: cannot run the C compiler 'no-such-gcc'")


CHAR_KERNELS = {
    "char_local": "int f(int x) { char c = x; return (c >> 1) + (c < 0); }",
    "char_param": "int f(char c, int x) { return c < 0 ? x : c + x; }",
    "char_cast": "int f(int x) { return (char) x * 3 + ((char) x > 100); }",
}


@pytest.mark.parametrize("isa", ISAS_RUN)
@pytest.mark.parametrize("name", sorted(CHAR_KERNELS))
def test_plain_char_kernel_verifies_on_each_target(tmp_path: Path, name: str, isa: str) -> None:
    assert_verifies(tmp_path, name, CHAR_KERNELS[name], isa)


# ----------------------------------------------------------------------------- 4. pointers as truth values

POINTER_TESTS = {
    "!p": "int f(int x, const int *p) { return !p; }",
    "p && x": "int f(int x, const int *p) { return p && x; }",
    "p == 0": "int f(int x, const int *p) { return p == 0; }",
    "0 != p": "int f(int x, const int *p) { return 0 != p; }",
    "p == NULL": "#include <stddef.h>\nint f(int x, const int *p) { return p == NULL; }",
    "p ? x : 0": "int f(int x, const int *p) { return p ? x : 0; }",
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("case", sorted(POINTER_TESTS))
def test_pointer_truth_value_is_a_null_comparison(reader, tmp_path: Path, case: str) -> None:
    path = str(tmp_path / "p.c")
    mod = reader(path, POINTER_TESTS[case] + "\n")
    e = mod.functions["f"].body[0].value
    cmp = next(n for n in e.walk() if isinstance(n, Binary) and n.op in ("==", "!="))
    ptr = next(n for n in (cmp.left, cmp.right) if isinstance(n, Var))
    null = next(n for n in (cmp.left, cmp.right) if isinstance(n, Const))
    assert cmp.type == T.INT and isinstance(ptr.type, T.Pointer) and null.type == ptr.type and null.value == 0
    if case == "!p":
        assert isinstance(e, Unary) and e.op == "!" and e.operand is cmp
    if HAVE_CLANG:  # the other frontend: the same IR, node for node
        other = read_file_clang(path, POINTER_TESTS[case] + "\n") if reader is read_file else read_file(
            path, POINTER_TESTS[case] + "\n")
        assert X.first_differences(X.dump_module(mod), X.dump_module(other)) == []


POINTER_KERNELS = {
    "pointer_and": "int f(int x, const int *p) { if (p && x > 0) return x + *p; return !p ? 7 : -x; }",
    "pointer_uniform": "#pragma omp declare simd uniform(p)\n"
                       "int f(int x, const int *p) { int t = !p; if (p != 0 && x > 3) return x + p[0] + t; "
                       "return x - (0 == p); }",
    "pointer_loop": "int f(int x, const int *p) { int n = 0; while (p && n < 3) { n++; if (x > n) break; } "
                    "return n; }",
}


@pytest.mark.parametrize("name", sorted(POINTER_KERNELS))
def test_pointer_truth_value_kernel_verifies(tmp_path: Path, name: str) -> None:
    assert_verifies(tmp_path, name, POINTER_KERNELS[name])


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("expr,word", [("p == q", "pointer comparison"), ("p < q", "pointer comparison"),
                                       ("*(p + 1)", "pointer arithmetic"), ("p == (int *) 8", "integer to a pointer")])
def test_other_pointer_operations_are_still_refused(reader, tmp_path: Path, expr: str, word: str) -> None:
    path = str(tmp_path / "p.c")
    with pytest.raises(ExpandError) as exc:
        select_functions(reader(path, f"int f(int x, int *p, int *q) {{ return {expr}; }}\n"), None)
    assert re.match(rf"{re.escape(path)}:1:\d+: error: .*{word}", exc.value.render()), exc.value.render()


# ----------------------------------------------------------------------------- 5. (void) g(x);

VOID_CALLS = {
    "void_call": "static int set(float *y, float v) { *y = v; return 1; }\n"
                 "void f(float x, float *y) { (void) set(y, x * 2); }",
    "void_call_expr": "static int set(float *y, float v) { *y = v; return 1; }\n"
                      "void f(float x, float *y) { (void) (set(y, x * 2) + 1); }",
    "void_call_then_read": "static int set(int *y, int v) { *y = v; return v; }\n"
                           "int f(int x, int *y) { (void) set(y, x * 3); return *y + 1; }",
}


@pytest.mark.parametrize("reader", READERS)
def test_void_cast_keeps_the_call(reader, tmp_path: Path) -> None:
    mod = reader(str(tmp_path / "v.c"), "int g(int);\nint f(int x) { (void) g(x); (void) x; return x; }\n")
    body = mod.functions["f"].body
    assert isinstance(body[0], ExprStmt) and isinstance(body[0].expr, Call) and body[0].expr.func == "g"
    assert len(body) == 2  # ((void) x; has no effect: dropped)


@pytest.mark.parametrize("name", sorted(VOID_CALLS))
def test_void_cast_call_side_effects_verify(tmp_path: Path, name: str) -> None:
    res = assert_verifies(tmp_path, name, VOID_CALLS[name])
    assert "_Exp_f(" in res.text


# ----------------------------------------------------------------------------- 6. odd C: a diagnostic or a result

ODD = {
    "empty": "",
    "only_comment": "/* nothing */\n",
    "only_decls": "int g;\nextern float h(float);\nstruct s { int a; };\ntypedef int myint;\n",
    "only_semicolons": ";;;\n",
    "static_assert_top": "_Static_assert(sizeof(int) == 4, \"int\");\nint f(int x) { return x + 1; }",
    "static_assert_local": "int f(int x) { _Static_assert(1, \"ok\"); return x + 1; }",
    "static_assert_fails": "_Static_assert(0, \"no\");\nint f(int x) { return x; }",
    "attribute_function": "__attribute__((always_inline)) static inline int g(int x) { return x * 2; }\n"
                          "__attribute__((noinline)) int f(int x) { return g(x) + 1; }",
    "attribute_variable": "int f(int x) { int y __attribute__((unused)) = x; return y + 1; }",
    "attribute_aligned": "static const float tab[4] __attribute__((aligned(16))) = {1, 2, 3, 4};\n"
                         "float f(float x, unsigned k) { return k < 4 ? x * tab[k] : x; }",
    "register_local": "int f(int x) { register int y = x * 2; return y + 1; }",
    "register_param": "int f(register int x) { return x + 1; }",
    "compound_literal": "int f(int x) { return (int){x} + 1; }",
    "compound_literal_struct": "struct p { int a, b; };\nint f(int x) { return ((struct p){x, 2}).b; }",
    "string_literal": "int f(int x) { const char *s = \"abc\"; return x + s[0]; }",
    "string_index": "int f(int x) { return x + \"abc\"[1]; }",
    "label_as_value": "int f(int x) { void *p = &&l; goto *p; l: return x; }",
    "statement_expression": "int f(int x) { int y = ({ int t = x * 2; t + 1; }); return y; }",
    "statement_expression_stmt": "int f(int x) { ({ x = x + 1; }); return x; }",
    "generic": "int f(int x) { return _Generic(x, int: 1, default: 2) + x; }",
    "bit_field": "struct b { unsigned a : 3; unsigned c : 5; };\nint f(struct b *p, int x) { return p->a + x; }",
    "bit_field_unused": "struct b { unsigned a : 3; };\nint f(int x) { return x + 1; }",
    "flexible_array": "struct fa { int n; float v[]; };\nfloat f(float x, struct fa *p) { return x + p->v[0]; }",
    "flexible_array_sizeof": "struct fa { int n; float v[]; };\nint f(int x) { return x + (int) sizeof(struct fa); }",
    "nested_function": "int f(int x) { int g(int y) { return y + 1; } return g(x); }",
    "int128": "__int128 f(__int128 x) { return x + 1; }",
    "int128_local": "long f(long x) { __int128 t = x; return (long)(t >> 1); }",
    "complex": "double f(double x) { _Complex double z = x; return __real__ z; }",
    "complex_param": "_Complex float f(_Complex float z) { return z * 2; }",
    "empty_initializer": "int f(int x) {\n  int y = {};\n  return y + x;\n}",
    "empty_initializer_global": "static const int g = {};\nint f(int x) { return x + g; }",
    "nested_braces": "int f(int x) { int y = {{x}}; return y + 1; }",
    "designated": "struct p { int a, b; };\nstatic const struct p g = {.b = 1};\nint f(int x) { return x + g.b; }",
    "knr": "int f(x)\n  int x;\n{\n  return x + 1;\n}",
    "knr_helper": "int g(x) int x; { return x; }\nint f(int y) { return y + 1; }",
    "implicit_int": "f(int x) { return x + 1; }",
    "void_cast_increment": "int f(int x) { (void) x++; return x; }",
    "wide_char": "int f(int x) { return x + L'a'; }",
    "u8_char": "int f(int x) { return x + u8'a'; }",
    "multichar": "int f(int x) { return x + 'ab'; }",
    "multichar_too_long": "int f(int x) { return x + 'abcde'; }",
    "non_ascii_char": "int f(int x) { return x + '\u00e9'; }",
    "hex_escape_too_big": "int f(int x) { return x + '\\x100'; }",
    "empty_char": "int f(int x) { return x + ''; }",
    "pointer_not": "int f(int x, int *p) { if (!p) return 0; return x + *p; }",
    "pointer_local_null": "int f(int x, int *p) { int *q = 0; if (x) q = p; return q ? *q : x; }",
    "pointer_global_null": "static int *const gp = 0;\nint f(int x) { if (!gp) return x + 1; return x; }",
    "int_to_pointer": "int f(int x, int *p) { p = (int *)8; return x; }",
    "pointer_to_int": "long f(long x, int *p) { return x + (long)p; }",
    "function_as_condition": "int g(int);\nint f(int x) { if (g) return 1; return x; }",
    "struct_as_condition": "struct s { int a; };\nint f(int x, struct s *p) { if (*p) return 1; return x; }",
    "enum_incomplete": "enum later;\nint f(enum later *p, int x) { return x; }",
    "enum_bad_value": "enum e { A = 1.5 };\nint f(int x) { return x + A; }",
    "enum_packed": "enum pk { K0, K1 = 200 } __attribute__((packed));\nint f(enum pk v) { return v - 1 > 0; }",
    "typeof": "int f(int x) { __typeof__(x) y = x; return y + 1; }",
    "auto_type": "int f(int x) { __auto_type y = x; return y; }",
    "alignas": "int f(int x) { _Alignas(16) int y = x; return y; }",
    "alignof": "int f(int x) { return x + (int) _Alignof(double); }",
    "thread_local": "static _Thread_local int t;\nint f(int x) { return x + t; }",
    "atomic": "int f(_Atomic int x) { return x + 1; }",
    "asm_statement": "int f(int x) { __asm__ volatile (\"\" ::: \"memory\"); return x; }",
    "asm_top_level": "__asm__(\".globl foo\");\nint f(int x) { return x; }",
    "case_outside_switch": "int f(int x) { case 1: return x; }",
    "goto_undefined": "int f(int x) { goto nowhere; return x; }",
    "unnamed_parameter": "int f(int, int x) { return x; }",
    "struct_return": "struct s { int a; };\nstruct s f(int x) { struct s r; r.a = x; return r; }",
    "array_parameter": "float f(float x, float a[4]) { return a[0] + x; }",
    "vla_parameter": "float f(int n, float a[n]) { return a[0]; }",
    "double_pointer": "int f(int x, int **p) { return **p + x; }",
    "call_undeclared": "int f(int x) { return g(x); }",
    "sizeof_void": "int f(int x) { return x + (int) sizeof(void); }",
    "sizeof_function": "int g(int);\nint f(int x) { return x + (int) sizeof(g); }",
    "sizeof_incomplete": "struct inc;\nint f(int x, struct inc *p) { return x + sizeof(*p); }",
    "offsetof": "#include <stddef.h>\nstruct s { int a; float b; };\n"
                "int f(int x) { return x + offsetof(struct s, b); }",
    "builtin_types_compatible": "int f(int x) { return __builtin_types_compatible_p(int, long) + x; }",
    "builtin_va_arg": "#include <stdarg.h>\nint f(int x, ...) { va_list a; va_start(a, x); int y = va_arg(a, int); "
                      "va_end(a); return y; }",
    "huge_literal": "long f(long x) { return x + 99999999999999999999; }",
    "bad_suffix": "int f(int x) { return x + 1uu; }",
    "binary_literal": "int f(int x) { return x + 0b101; }",
    "imaginary_literal": "double f(double x) { return x + 2.0i; }",
    "unbalanced_brace": "int f(int x) { return x; }}",
    "missing_semicolon": "int f(int x) { int y = x\n return y; }",
    "truncated": "int f(int x) { if (x) { return 1;",
    "deep_nesting": "int f(int x) { return " + "(" * 300 + "x" + ")" * 300 + "; }",
    "long_sum": "int f(int x) { return " + " + ".join(["x"] * 2000) + "; }",
    "utf8_identifier": "int f(int \u00e9) { return \u00e9 + 1; }",
    "byte_order_mark": "\ufeffint f(int x) { return x + 1; }",
    "crlf": "int f(int x)\r\n{\r\n  return x + 1;\r\n}\r\n",
    "pragma_in_body": "int f(int x) {\n#pragma GCC unroll 4\n  for (int i = 0; i < 4; i++) x++;\n  return x;\n}",
    "bad_simd_pragma": "#pragma omp declare simd uniform(\nint f(int x) { return x; }",
    "line_directive": "#line 100 \"other.c\"\nint f(int x) { return x +; }",
    "macro_error": "#define BAD(x) (x +)\nint f(int x) { return BAD(x); }",
    "anonymous_member": "struct s { struct { int a; }; int b; };\nint f(struct s *p) { return p->a + p->b; }",
    "typedef_function": "typedef int fn(int);\nfn g;\nint f(int x) { return g(x); }",
    "local_function_declaration": "int f(int x) { int g(int); return g(x); }",
    "chained_assignment": "int f(int x) { int a, b; a = b = x; return a; }",
    "conditional_void": "void g(void); void h(void);\nvoid f(int x) { x ? g() : h(); }",
    "address_of_param": "int f(int x) { int *p = &x; return *p; }",
    "return_pointer": "int *f(int *p) { return p; }",
    "void_dereference": "int f(void *p, int x) { return *p; }",
    "main": "int main(int argc, char **argv) { return argc; }",
    "printf": "#include <stdio.h>\nint f(int x) { printf(\"%d\", x); return x; }",
}


def run_cli(path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "expand.cli", str(path), "--isa", "sse4.1", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_c_through_the_cli(tmp_path: Path, name: str) -> None:
    src = tmp_path / f"{name}.c"
    src.write_bytes(ODD[name].encode("utf-8"))
    p = run_cli(src)
    assert p.returncode in (0, 1) and "Traceback" not in p.stderr, p.stderr
    if p.returncode == 1:
        first = p.stderr.splitlines()[0]
        assert re.match(rf"^({re.escape(str(src))}|other\.c):\d+:\d+: error: ", first), p.stderr
    else:
        assert "_Exp_" in p.stdout


@pytest.mark.parametrize("reader", READERS)
def test_odd_c_through_each_frontend(reader, tmp_path: Path) -> None:
    """Each frontend on its own (the CLI's ``auto`` falls back to clang): a Module or an ExpandError
    with a position, never another exception."""
    bad = []
    for name, text in ODD.items():
        path = str(tmp_path / f"{name}.c")
        try:
            reader(path, text)
        except ExpandError as exc:
            if exc.coord is None:
                bad.append(f"{name}: no position: {exc.render()}")
        except Exception as exc:  # noqa: BLE001 - the point of the test
            bad.append(f"{name}: {type(exc).__name__}: {exc}")
    assert not bad, "\n".join(bad)


SUPPORTED_ODD = {  # read correctly: the vector code computes what GCC's scalar code does
    "register_local": ODD["register_local"], "register_param": ODD["register_param"],
    "attribute_function": ODD["attribute_function"], "attribute_variable": ODD["attribute_variable"],
    "attribute_aligned": ODD["attribute_aligned"], "static_assert_top": ODD["static_assert_top"],
    "static_assert_local": ODD["static_assert_local"],
    "statement_expression_stmt": ODD["statement_expression_stmt"], "wide_char": ODD["wide_char"],
    "multichar": "#pragma GCC diagnostic ignored \"-Wmultichar\"\n" + ODD["multichar"],
    "alignof": ODD["alignof"], "alignas": ODD["alignas"], "sizeof_function": ODD["sizeof_function"],
    "flexible_array_sizeof": ODD["flexible_array_sizeof"], "byte_order_mark": ODD["byte_order_mark"],
    "crlf": ODD["crlf"], "pragma_in_body": ODD["pragma_in_body"],
    "knr": ODD["knr"], "knr_helper": ODD["knr_helper"],  # (as their prototype forms: no promoted parameter)
    "knr_fdlibm": "double drem(x, y)\n\tdouble x, y;\n{\n\treturn x - y * __builtin_rint(x / y);\n}\n"
                  "long g(k, n) long n; int k; { return n * 3 + k; }\nlong f(long n) { return g(2, n) + 1; }",
    "typedef_function": "typedef int fn(int);\nstatic fn g;\nstatic int g(int v) { return v * 3; }\n"
                        "int f(int x) { return g(x) + 1; }",
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("name", sorted(SUPPORTED_ODD))
def test_supported_odd_c_verifies(reader, tmp_path: Path, name: str) -> None:
    assert_verifies(tmp_path, name, SUPPORTED_ODD[name], reader=reader)


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("ptype", ["float", "short", "unsigned char"])
def test_knr_parameter_the_promotions_change_is_refused(reader, tmp_path: Path, ptype: str) -> None:
    """A K&R parameter whose type the default argument promotions change (the caller passes a float as a
    double) is not its prototype form: refused, naming the parameter, when the function is expanded; a
    function that does not need it is not stopped."""
    text = f"int g(x, y)\n  int x;\n  {ptype} y;\n{{\n  return x + (int)y;\n}}\nint f(int v) {{ return v + 1; }}\n"
    mod = reader(str(tmp_path / "k.c"), text)
    assert "g" in mod.failed and "f" in mod.functions
    assert re.match(rf".*k\.c:1:5: error: old-style \(K&R\) definition of 'g': parameter 'y' of type '{ptype}' is "
                    rf"passed as (a double|an int)$", mod.failed["g"].render().splitlines()[0])


@pytest.mark.parametrize("reader", READERS)
def test_braces_around_a_scalar_initializer(reader, tmp_path: Path) -> None:
    """``int y = {{x}};`` is ``int y = x;`` (GCC warns, so not verified: the scalar build uses -Werror)."""
    mod = reader(str(tmp_path / "b.c"), ODD["nested_braces"] + "\n")
    init = mod.functions["f"].body[0]
    assert isinstance(init.value, Var) and init.value.sym.name == "x" and init.target.sym.name == "y"


@pytest.mark.parametrize("reader", READERS)
def test_static_assertion_failure_is_a_diagnostic(reader, tmp_path: Path) -> None:
    path = str(tmp_path / "s.c")
    with pytest.raises(ExpandError) as exc:
        reader(path, ODD["static_assert_fails"] + "\n")
    assert re.match(rf"{re.escape(path)}:1:16: error: static assertion failed: (\"?)no\1$",
                    exc.value.render().splitlines()[0]), exc.value.render()


def test_read_file_any_survives_a_crash_in_the_other_frontend(tmp_path: Path, monkeypatch) -> None:
    """With an explicit frontend, the other one only adds a note: its bugs must not hide the error."""
    import frontends.pycparser_frontend as P

    def broken(*args, **kwargs):
        raise IndexError("a bug")
    monkeypatch.setattr(P, "read_file", broken)
    assert HAVE_CLANG, "libclang is a dependency of expand"
    with pytest.raises(ExpandError, match="expected expression"):
        read_file_any(str(tmp_path / "s.c"), "int f(int x) { return x +; }\n", frontend="clang")


# ----------------------------------------------------------------------------- 7. syntax error positions

SYNTAX_ERRORS = [  # (text, line, column) of the token the parser stopped at; clang agrees where noted
    ("int f(int x) {\n  return x +;\n}\n", 2, 13, True),
    ("int f(int x) {\n\treturn x +;\n}\n", 2, 12, True),
    ("int f(int x) {\n  return x x;\n}\n", 2, 12, False),
    ("#define BAD(x) (x +)\nint f(int x) { return BAD(x); }\n", 2, 27, True),
    ("int f(int x) { if (x) { return 1;\n", 1, 34, True),
    ("int f(int x) { return x; }}\n", 1, 27, True),
    ("int f(int x) {\n  int y = x\n  return y;\n}\n", 3, 3, False),
    ("int f(int x) { return x + 1uu; }\n", 1, 29, False),
    ("int f(int x) { return x + ''; }\n", 1, 27, True),
]


@pytest.mark.parametrize("text,line,col,same_in_clang", SYNTAX_ERRORS)
def test_syntax_errors_have_line_and_column(tmp_path: Path, text: str, line: int, col: int,
                                            same_in_clang: bool) -> None:
    src = tmp_path / "s.c"
    src.write_text(text)
    with pytest.raises(ExpandError) as exc:
        read_file(str(src), text)
    assert (exc.value.coord.file, exc.value.coord.line, exc.value.coord.col) == (str(src), line, col), \
        exc.value.render()
    assert "syntax error" in exc.value.message
    if same_in_clang and HAVE_CLANG:
        with pytest.raises(ExpandError) as cexc:
            read_file_clang(str(src), text)
        assert (cexc.value.coord.line, cexc.value.coord.col) == (line, col), cexc.value.render()


def test_syntax_error_in_another_file_keeps_its_name(tmp_path: Path) -> None:
    src = tmp_path / "s.c"
    src.write_text("#line 100 \"other.c\"\nint f(int x) { return x +; }\n")
    p = run_cli(src, "--frontend", "pycparser")
    assert p.returncode == 1 and p.stderr.startswith("other.c:100:26: error: syntax error"), p.stderr
