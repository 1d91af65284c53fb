"""libm calls with an exact vector form (expand/passes/mathcalls.py, ``Isa.math``), on every ISA.

One kernel per ISA and float type calls every function: the unary ones on ``x`` (all edge values:
zeros, infinities, NaNs with payloads, subnormals, halves, 2^23 / 2^52 and their neighbours),
fmin/fmax/copysign of ``x`` and each of a table of special values (signed zeros, quiet and
signalling NaNs, ...), fma, and all of them again inside an if/else (so masks and blends apply).
GCC takes fmin/fmax as commutative: it merges ``fminf(x, y)`` with ``fminf(y, x)`` and passes the
operands of each call in its own canonical order (by SSA version), though the two orders differ in the
sign of a zero result and in which NaN comes out. So the kernel's calls are written in the order GCC
keeps (a constant operand first is the exception: expand moves it second as GCC does, which
``fminf(-0.0f, fmaxf(0.0f, x))`` checks), and ``test_fmin_fmax_match_libm`` compares the tables with
the libm functions called through a pointer (in the order written) on every pair of special values.
Each kernel is expanded and verified bit for bit against the scalar calls compiled for that ISA
(x86 natively, NEON and AltiVec with the cross compilers under qemu-user); the output must use the
ISA's instruction, not a per-lane call, wherever the table has one.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hostrun import assert_verified, skip_run_unless_host

from emit import get_isa
from expand.check.verify import Param, verify
from expand.driver import expand_module
from expand.ir.nodes import MATH_OPS
from frontends.pycparser_frontend import read_file

CROSS = {"neon": ("aarch64-linux-gnu-gcc", "qemu-aarch64"), "altivec": ("powerpc64le-linux-gnu-gcc", "qemu-ppc64le")}
ISAS = ["sse2", "sse4.1", "avx2", "avx512", "neon", "altivec", "generic"]

#: Special values (bit patterns) fmin/fmax/copysign meet: signed zeros, infinities, quiet NaNs
#: (both signs, with a payload) and signalling NaNs, the smallest subnormal, ...
SPECIAL = {
    "float": ["0x00000000", "0x80000000", "0x3f800000", "0xbf800000", "0x7f800000", "0xff800000", "0x7fc00000",
              "0xffc00000", "0x7fc12345", "0x7fa00001", "0xff812345", "0x00000001", "0xff7fffff", "0x40200000",
              "0xbf000000", "0x4affffff"],
    "double": ["0x0000000000000000", "0x8000000000000000", "0x3ff0000000000000", "0xbff0000000000000",
               "0x7ff0000000000000", "0xfff0000000000000", "0x7ff8000000000000", "0xfff8000000000000",
               "0x7ff8000000012345", "0x7ff4000000000001", "0xfff0000000012345", "0x0000000000000001",
               "0xffefffffffffffff", "0x4004000000000000", "0xbfe0000000000000", "0x432fffffffffffff"],
}
#: Operands without NaNs (fma's multiplier and addend, the masked part): zeros, infinities, subnormals,
#: halves, huge and tiny values.
PLAIN = {
    "float": ["0x00000000", "0x80000000", "0x3f800000", "0xbf800000", "0x7f800000", "0xff800000", "0x00000001",
              "0x80400000", "0x30800000", "0x7f000000", "0x3f000000", "0xc0200000", "0x40400000", "0x7149f2ca",
              "0x8e2e3ce8", "0x4affffff"],
    "double": ["0x0000000000000000", "0x8000000000000000", "0x3ff0000000000000", "0xbff0000000000000",
               "0x7ff0000000000000", "0xfff0000000000000", "0x0000000000000001", "0x8008000000000000",
               "0x3e10000000000000", "0x7fe0000000000000", "0x3fe0000000000000", "0xc004000000000000",
               "0x4008000000000000", "0x46293e5939a08cea", "0xb9d5c4c5b9c5d3c1", "0x432fffffffffffff"],
}
#: Inputs next to which rounding changes (the verifier adds each value's neighbours), and the table
#: indexes 0..15.
CONSTANTS = [0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, 4194303.5, 4194304.5, 8388607.5, 8388608.0, 8388609.0,
             16777216.0, 16777218.0, 2251799813685247.5, 2251799813685248.5, 4503599627370495.5,
             4503599627370496.0, 4503599627370497.0, 9007199254740992.0, 9007199254740994.0, *range(16)]

UNARY = ("sqrt", "floor", "ceil", "trunc", "rint", "nearbyint", "fabs")


def kernel(t: str) -> str:
    """The kernel ``k`` for float type ``t`` (``float`` or ``double``)."""
    f = "f" if t == "float" else ""
    u = "uint32_t" if t == "float" else "uint64_t"
    c2 = "2.0f" if t == "float" else "2.0"
    outs = ", ".join(f"{t} *u_{op}" for op in UNARY)
    unary = "\n".join(f"    *u_{op} = {op}{f}(x);" for op in UNARY)
    return f"""#include <math.h>
#include <stdint.h>

static const {u} special[16] = {{{", ".join(SPECIAL[t])}}};
static const {u} plain[16] = {{{", ".join(PLAIN[t])}}};

{t} k({t} x, unsigned char i, {outs}, {t} *b_min, {t} *b_max, {t} *b_copysign, {t} *b_copysign_yx,
      {t} *b_clamp, {t} *f_fma, {t} *m_a, {t} *m_b)
{{
{unary}
    union {{ {u} u; {t} f; }} cy, cz, cw;
    cy.u = special[i & 15];
    cz.u = plain[i & 15];
    cw.u = plain[(i * 7 + 3) & 15];
    {t} y = cy.f, z = cz.f, w = cw.f;
    *b_min = fmin{f}(x, y);
    *b_max = fmax{f}(x, y);
    *b_copysign = copysign{f}(x, y);
    *b_copysign_yx = copysign{f}(y, x);
    *b_clamp = fmin{f}(-0.0{f}, fmax{f}(0.0{f}, x));  /* GCC puts the constants second */
    *f_fma = fma{f}(x, w, z);
    {t} r;
    if (x < w) {{
        r = fma{f}(sqrt{f}(fabs{f}(x)), w, z);
        *m_a = floor{f}(x);
        *m_b = fmin{f}(x, w);
    }} else if (x > {c2}) {{
        r = copysign{f}(trunc{f}(x), w);
        *m_a = ceil{f}(x);
        *m_b = fmax{f}(x, z);
    }} else {{
        r = nearbyint{f}(x);
        *m_a = rint{f}(x);
        *m_b = fmax{f}(fmin{f}(x, z), w);
    }}
    return r;
}}
"""


#: ISA -> operation -> texts the output must contain (the instruction, or the helper built from compares
#: and selects); ``{s}`` is ps/pd, ``{k}`` f32/f64. Operations not listed run per lane (the libm call).
X86_ROUND = {"floor": "_MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC", "ceil": "_MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC",
             "trunc": "_MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC", "rint": "_MM_FROUND_CUR_DIRECTION)",
             "nearbyint": "_MM_FROUND_CUR_DIRECTION | _MM_FROUND_NO_EXC"}
NATIVE: dict[str, dict[str, tuple[str, ...]]] = {
    "sse2": {"sqrt": ("_mm_sqrt_{s}(",), **{op: (f"_exp_{op}_{{k}}(", "_mm_add_{s}(") for op in X86_ROUND},
             "fmin": ("_exp_fmin_{k}(", "_mm_cmplt_{s}("), "fmax": ("_exp_fmax_{k}(", "_mm_cmpgt_{s}(")},
    "sse4.1": {"sqrt": ("_mm_sqrt_{s}(",), **{op: ("_mm_round_{s}(", m) for op, m in X86_ROUND.items()},
               "fmin": ("_exp_fmin_{k}(",), "fmax": ("_exp_fmax_{k}(",)},
    "avx2": {"sqrt": ("_mm256_sqrt_{s}(",), **{op: ("_mm256_round_{s}(", m) for op, m in X86_ROUND.items()},
             "fmin": ("_exp_fmin_{k}(",), "fmax": ("_exp_fmax_{k}(",), "fma": ("_mm256_fmadd_{s}(",)},
    "avx512": {"sqrt": ("_mm512_sqrt_{s}(",), **{op: ("_mm512_roundscale_{s}(", m) for op, m in X86_ROUND.items()},
               "fmin": ("_exp_fmin_{k}(",), "fmax": ("_exp_fmax_{k}(",), "fma": ("_mm512_fmadd_{s}(",)},
    "neon": {op: (f"{i}_{{k}}(",) for op, i in (("sqrt", "vsqrtq"), ("floor", "vrndmq"), ("ceil", "vrndpq"),
                                                ("trunc", "vrndq"), ("rint", "vrndxq"), ("nearbyint", "vrndiq"),
                                                ("fmin", "vminnmq"), ("fmax", "vmaxnmq"), ("fma", "vfmaq"))},
    "altivec": {"sqrt": ("vec_sqrt(",), "floor": ("vec_floor(",), "ceil": ("vec_ceil(",), "trunc": ("vec_trunc(",),
                "rint": ("vec_rint(",), "nearbyint": ("vec_rint(",), "fmin": ("_exp_fmin_{k}(", "vec_cmple("),
                "fmax": ("_exp_fmax_{k}(", "vec_cmpge("), "fma": ("vec_madd(",)},
    "generic": {},
}
#: (ISA, operation, kind) that run per lane although the ISA has the instruction (see emit/altivec.py)
PER_LANE = {("altivec", "fma", "f32")}


def missing_tools(isa: str) -> list[str]:
    return [t for t in CROSS.get(isa, ("gcc",)) if shutil.which(t) is None]


def expand_kernel(tmp_path: Path, isa_name: str, t: str):
    src = tmp_path / f"k_{t}.c"
    src.write_text(kernel(t))
    isa = get_isa(isa_name)
    res = expand_module(read_file(str(src), src.read_text(), cc=isa.preprocessor), isa, functions=["k"])
    return src, isa, res


@pytest.mark.parametrize("t", ["float", "double"])
@pytest.mark.parametrize("isa_name", ISAS)
def test_math_calls_verify(tmp_path: Path, isa_name: str, t: str) -> None:
    assert not missing_tools(isa_name), f"needs {missing_tools(isa_name)} (see tests/setup-and-run.sh)"
    src, isa, res = expand_kernel(tmp_path, isa_name, t)
    (e,) = res.functions
    k, s = ("f32", "ps") if t == "float" else ("f64", "pd")
    text = res.text
    for op in MATH_OPS:
        want = None if (isa_name, op, k) in PER_LANE else NATIVE[isa_name].get(op)
        libm = f"__builtin_{op}{'f' if t == 'float' else ''}("
        if want is None:
            assert libm in text, f"{op}: expected the per-lane call {libm}"
        else:
            for w in want:
                assert w.format(k=k, s=s) in text, f"{op}: expected {w.format(k=k, s=s)}"
            assert libm not in text, f"{op}: per-lane call {libm} where {isa_name} has an instruction"
    assert "vec_nearbyint" not in text  # xvrspi: halfway cases away from zero
    body = [ln for ln in text[text.index(f"{e.vector_name}("):].splitlines() if not ln.strip().startswith("/*")]
    assert not re.search(r"\b(fabs|copysign)f?\(", "\n".join(body))  # bit operations
    rep = verify(scalar_sources=[src], scalar_name=e.scalar_name, vector_c=text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type) for p in e.params], ret=e.ret, isa=isa,
                 constants=[*e.constants, *CONSTANTS], n_random=5_000 if isa_name in CROSS else 20_000)
    print(rep.summary)
    assert_verified(rep)
    assert rep.mismatches == 0 and rep.edge_inputs > 0


@pytest.mark.parametrize("isa_name", ISAS)
def test_each_argument_used_once(isa_name: str) -> None:
    """``math`` results name each argument once (the table contract: arguments are expressions)."""
    isa = get_isa(isa_name)
    for k in ("f32", "f64"):
        for op, n in MATH_OPS.items():
            args = [f"ARG{j}" for j in range(n)]
            text = isa.math(op, k, args)
            for a in args:
                assert len(re.findall(rf"\b{a}\b", text)) == 1, f"{isa_name} {op} {k}: {text}"


#: fmin/fmax operands for the op-by-op check: every ordered pair of these (floats; doubles alike)
PAIR_VALUES = {
    "f32": [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000,
            0x7FC12345, 0xFFD00001, 0x7FA00001, 0xFF812345, 0x7F800001, 0x00000001, 0x80000001, 0x7F7FFFFF,
            0xFF7FFFFF, 0x40200000, 0xC0200000, 0x00800000],
    "f64": [0x0, 0x8000000000000000, 0x3FF0000000000000, 0xBFF0000000000000, 0x7FF0000000000000,
            0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000012345, 0xFFFA000000000001,
            0x7FF4000000000001, 0xFFF0000000012345, 0x7FF0000000000001, 0x1, 0x8000000000000001,
            0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x4004000000000000, 0xC004000000000000, 0x0010000000000000],
}


def minmax_program(isa_name: str) -> str:
    """C program: the table's fmin/fmax on every pair of ``PAIR_VALUES`` (and random pairs) against the
    libm functions called through a pointer (so in the order written); prints each differing lane."""
    isa = get_isa(isa_name)
    rnd = random.Random(10)
    lanes, parts = isa.lanes, []
    for k in ("f32", "f64"):
        t, u, sfx = ("float", "uint32_t", "f") if k == "f32" else ("double", "uint64_t", "")
        vals = PAIR_VALUES[k]
        bits = 32 if k == "f32" else 64
        pairs = [(a, b) for a in vals for b in vals]
        while len(pairs) < 1000 or len(pairs) % lanes:  # then random pairs, half of them against a special value
            a, b = rnd.getrandbits(bits), rnd.choice([rnd.getrandbits(bits), rnd.choice(vals)])
            pairs.append((a, b) if rnd.random() < 0.5 else (b, a))
        xs = ", ".join(f"{a:#x}u" + ("ll" if k == "f64" else "") for a, _ in pairs)
        ys = ", ".join(f"{b:#x}u" + ("ll" if k == "f64" else "") for _, b in pairs)
        parts.append(f"static const {u} X_{k}[{len(pairs)}] = {{{xs}}};\n"
                     f"static const {u} Y_{k}[{len(pairs)}] = {{{ys}}};\n")
        for op in ("fmin", "fmax"):
            vec = isa.storeu(k, "r", isa.math(op, k, [isa.loadu(k, "x"), isa.loadu(k, "y")]))
            parts.append(
                f"static {t} (*volatile ref_{op}_{k})({t}, {t}) = {op}{sfx};\n"
                f"static int check_{op}_{k}(void)\n{{\n    int bad = 0;\n"
                f"    for (int j = 0; j < {len(pairs)}; j += {lanes}) {{\n"
                f"        {t} x[{lanes}], y[{lanes}], r[{lanes}];\n"
                f"        memcpy(x, &X_{k}[j], sizeof x);\n        memcpy(y, &Y_{k}[j], sizeof y);\n"
                f"        {vec};\n"
                f"        for (int i = 0; i < {lanes}; i++) {{\n"
                f"            {t} e = ref_{op}_{k}(x[i], y[i]);\n"
                f"            {u} rb, eb, xb, yb;\n"
                f"            memcpy(&rb, &r[i], sizeof rb); memcpy(&eb, &e, sizeof eb);\n"
                f"            memcpy(&xb, &x[i], sizeof xb); memcpy(&yb, &y[i], sizeof yb);\n"
                f"            if (rb != eb && bad++ < 20)\n"
                f"                printf(\"{op}{sfx}(%llx, %llx): libm %llx, vector %llx\\n\", (unsigned long long)xb,"
                f" (unsigned long long)yb, (unsigned long long)eb, (unsigned long long)rb);\n"
                f"        }}\n    }}\n    return bad;\n}}\n")
    head = "#include <math.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n"
    head += "".join(f"#include {h}\n" for h in isa.headers) + isa.prelude()
    main = ("int main(void)\n{\n"
            "    int bad = check_fmin_f32() + check_fmax_f32() + check_fmin_f64() + check_fmax_f64();\n"
            "    printf(\"%d mismatches\\n\", bad);\n    return bad != 0;\n}\n")
    return head + "".join(parts) + main


@pytest.mark.parametrize("isa_name", ISAS)
def test_fmin_fmax_match_libm(tmp_path: Path, isa_name: str) -> None:
    """The table's fmin/fmax against the target's libm (glibc: x86-64 assembly, AArch64 fminnm, the
    generic C on POWER) on every pair of signed zeros, quiet and signalling NaNs with payloads, ...:
    bit for bit, which zero and which NaN included."""
    assert not missing_tools(isa_name), f"needs {missing_tools(isa_name)} (see tests/setup-and-run.sh)"
    isa = get_isa(isa_name)
    c, exe = tmp_path / "minmax.c", tmp_path / "minmax"
    c.write_text(minmax_program(isa_name))
    cmd = [*isa.cc, "-O2", "-Wall", "-Werror", "-ffp-contract=off", *isa.cflags, str(c), "-o", str(exe), "-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert r.returncode == 0, f"{' '.join(cmd)}\n{r.stderr[:4000]}"
    skip_run_unless_host(isa_name)
    r = subprocess.run([*isa.run_prefix, str(exe)], capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0 and r.stdout.strip().endswith("0 mismatches"), r.stdout + r.stderr


def test_builtins_and_uniform_arguments(tmp_path: Path) -> None:
    """``__builtin_`` spellings become operations too; a uniform argument stays a scalar call, in the
    ``__builtin_`` spelling when the file has no prototype (pycparser accepts such calls); a function
    named ``--expandable`` stays a call."""
    src = tmp_path / "b.c"
    src.write_text("#include <math.h>\n#pragma omp declare simd uniform(c)\n"
                   "float f(float x, float c)\n"
                   "{ return __builtin_fmaxf(__builtin_sqrtf(x), 0.5f) * sqrtf(c) + floorf(c); }\n")
    isa = get_isa("sse4.1")
    res = expand_module(read_file(str(src), src.read_text()), isa, functions=["f"])
    body = res.text[res.text.index("_Exp_f("):]
    assert "_exp_fmax_f32(_mm_sqrt_ps(x), _mm_set1_ps(0.5f))" in body
    assert "_mm_set1_ps(sqrtf(c))" in body and "_mm_set1_ps(floorf(c))" in body
    (e,) = res.functions
    rep = verify(scalar_sources=[src], scalar_name="f", vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=isa,
                 n_random=2_000)
    assert_verified(rep)
    text = "#pragma omp declare simd uniform(c)\nfloat g(float x, float c) { return floorf(x) + floorf(c); }\n"
    body = expand_module(read_file(str(tmp_path / "g.c"), text), isa).text
    assert "_mm_round_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)" in body and "__builtin_floorf(c)" in body
    body = expand_module(read_file(str(tmp_path / "g.c"), text), isa, expandable={"floorf"}).text
    assert "_Exp_floorf(x)" in body and "_mm_round_ps" not in body  # --expandable floorf: the user's


def test_both_frontends_agree(tmp_path: Path) -> None:
    from frontends.clang_frontend import read_file_clang

    src = tmp_path / "k.c"
    src.write_text(kernel("double"))
    outs = [expand_module(r(str(src), src.read_text()), get_isa("neon"), functions=["k"]).text
            for r in (read_file, read_file_clang)]
    assert outs[0] == outs[1]


POW_SPECIAL = """#include <math.h>

float f(float x, float y)
{
    float a = powf(x, -1.0f) + powf(x, 2.0f) + powf(x, (float)2);
    double b = pow((double)x, 1.0) - pow((double)y, 0.0) * pow(1.0, (double)y);
    return a + (float)b;
}
"""


@pytest.mark.parametrize("isa_name", [*ISAS, "rvv"])
def test_pow_of_special_exponents_is_what_compilers_make_of_it(tmp_path: Path, isa_name: str) -> None:
    """GCC and Clang compile pow(x, y) for y = -1, 0, 1, 2 and pow(1, y) to 1 / x, 1, x, x * x, 1 (even
    at -O0, errno or not: powf(0, -1) sets no ERANGE); expand does the same (expand/passes/fold.py),
    so results and errno are the scalar code's, on every table, the Clang-compiled rvv one included."""
    from expand_case import check_source, expand_source
    _, _, res = expand_source(tmp_path, "pow_special", POW_SPECIAL, isa_name)
    body = re.sub(r"/\*.*?\*/", "", res.text.split("_Exp_f(")[-1])
    assert not re.search(r"\bpowf?\(", body) and "errno" not in body, res.text
    check_source(tmp_path, "pow_special", POW_SPECIAL, isa_name)
