"""C types of the IR (LP64: x86_64, aarch64, ppc64le) and C's conversion rules.

Types compare by meaning, not spelling: ``uint32_t`` and ``unsigned int`` are equal, but each
keeps its spelling for printing.

What differs between the LP64 targets (plain ``char`` is signed on x86-64, unsigned on AArch64 and
ppc64le; ``wchar_t`` is ``unsigned int`` on AArch64) is a :class:`Target`, read from the target
compiler's predefined macros by :func:`target_of`.  The rules GCC follows for enumerations
(:func:`enum_type`) and character constants (:func:`char_constant`) are here too, shared by both
frontends.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import struct
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field


class CType:
    """Base of all C types."""

    spelling: str

    def is_scalar(self) -> bool:
        return isinstance(self, (Int, Float, Pointer))

    def is_arith(self) -> bool:
        return isinstance(self, (Int, Float))

    def is_int(self) -> bool:
        return isinstance(self, Int)

    def is_float(self) -> bool:
        return isinstance(self, Float)

    def size(self) -> int:
        raise TypeError(f"size of {self}")

    def __str__(self) -> str:
        return self.spelling


@dataclass(frozen=True, eq=True)
class Void(CType):
    spelling: str = field(default="void", compare=False)


@dataclass(frozen=True, eq=True)
class Int(CType):
    bits: int
    signed: bool
    is_bool: bool = False
    spelling: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.spelling:
            object.__setattr__(self, "spelling", canonical_int_spelling(self.bits, self.signed, self.is_bool))

    def size(self) -> int:
        return self.bits // 8

    def with_sign(self, signed: bool) -> Int:
        return Int(self.bits, signed)

    @property
    def min(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def wrap(self, v: int) -> int:
        """The value ``v`` converted to this type (modular, as GCC does)."""
        if self.is_bool:
            return int(v != 0)
        v &= (1 << self.bits) - 1
        if self.signed and v >> (self.bits - 1):
            v -= 1 << self.bits
        return v


@dataclass(frozen=True, eq=True)
class Float(CType):
    bits: int
    spelling: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.spelling:
            object.__setattr__(self, "spelling", "float" if self.bits == 32 else "double")

    def size(self) -> int:
        return self.bits // 8


@dataclass(frozen=True, eq=True)
class Pointer(CType):
    target: CType
    const: bool = field(default=False, compare=False)
    spelling: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.spelling:
            object.__setattr__(self, "spelling", f"{self.target} *")

    def size(self) -> int:
        return 8


@dataclass(frozen=True, eq=True)
class Array(CType):
    elem: CType
    length: int | None
    spelling: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.spelling:
            n = "" if self.length is None else str(self.length)
            object.__setattr__(self, "spelling", f"{self.elem}[{n}]")

    def size(self) -> int:
        return self.elem.size() * (self.length or 0)


@dataclass(eq=False)
class Record(CType):
    """A struct or union. Compared by identity (each declaration is its own type)."""

    tag: str | None
    is_union: bool
    fields: list[tuple[str, CType]] = field(default_factory=list)
    spelling: str = ""
    complete: bool = True
    #: where it is defined (an ``expand.ir.nodes.Coord``; None: not known): the output copies the definitions
    #: of records the input's own file makes, and includes the headers for the others
    coord: object = None
    #: why ``size()`` and the members' offsets may not be the compiler's (``__attribute__((packed))``,
    #: ``_Alignas``, ...); "" when they are C's natural layout
    layout_problem: str = ""

    def __post_init__(self) -> None:
        if not self.spelling and self.tag:
            self.spelling = f"{'union' if self.is_union else 'struct'} {self.tag}"

    def __hash__(self) -> int:
        return id(self)

    def field_type(self, name: str) -> CType | None:
        for n, t in self.fields:
            if n == name:
                return t
        return None

    def size(self) -> int:
        sizes = [t.size() for _, t in self.fields]
        aligns = [alignment(t) for _, t in self.fields] or [1]
        a = max(aligns)
        if self.is_union:
            s = max(sizes, default=0)
        else:
            s = 0
            for (_, t), sz in zip(self.fields, sizes):
                al = alignment(t)
                s = (s + al - 1) // al * al + sz
        return (s + a - 1) // a * a


@dataclass(frozen=True, eq=True)
class Func(CType):
    ret: CType
    params: tuple[CType, ...]
    variadic: bool = False
    spelling: str = field(default="function", compare=False)


def alignment(t: CType) -> int:
    if isinstance(t, Array):
        return alignment(t.elem)
    if isinstance(t, Record):
        return max((alignment(f) for _, f in t.fields), default=1)
    return t.size()


def canonical_int_spelling(bits: int, signed: bool, is_bool: bool = False) -> str:
    if is_bool:
        return "_Bool"
    base = {8: "char", 16: "short", 32: "int", 64: "long"}[bits]
    if bits == 8:
        return "signed char" if signed else "unsigned char"
    return base if signed else f"unsigned {base}"


VOID = Void()
BOOL = Int(8, False, True)
CHAR = Int(8, True, spelling="char")
SCHAR = Int(8, True)
UCHAR = Int(8, False)
SHORT = Int(16, True)
USHORT = Int(16, False)
INT = Int(32, True)
UINT = Int(32, False)
LONG = Int(64, True)
ULONG = Int(64, False)
LLONG = Int(64, True, spelling="long long")
ULLONG = Int(64, False, spelling="unsigned long long")
FLOAT = Float(32)
DOUBLE = Float(64)

# The spellings C gives the basic types, keyed by sorted specifier words.
BASIC_TYPES: dict[tuple[str, ...], CType] = {}


def _basic(words: str, t: CType) -> None:
    key = tuple(sorted(words.split()))
    if isinstance(t, Int):
        t = Int(t.bits, t.signed, t.is_bool, spelling=words)
    elif isinstance(t, Float):
        t = Float(t.bits, spelling=words)
    BASIC_TYPES[key] = t


for _w, _t in [
    ("void", VOID), ("_Bool", BOOL), ("char", CHAR), ("signed char", SCHAR), ("unsigned char", UCHAR),
    ("short", SHORT), ("short int", SHORT), ("signed short", SHORT), ("signed short int", SHORT),
    ("unsigned short", USHORT), ("unsigned short int", USHORT),
    ("int", INT), ("signed", INT), ("signed int", INT), ("unsigned", UINT), ("unsigned int", UINT),
    ("long", LONG), ("long int", LONG), ("signed long", LONG), ("signed long int", LONG),
    ("unsigned long", ULONG), ("unsigned long int", ULONG),
    ("long long", LLONG), ("long long int", LLONG), ("signed long long", LLONG),
    ("signed long long int", LLONG), ("unsigned long long", ULLONG), ("unsigned long long int", ULLONG),
    ("float", FLOAT), ("double", DOUBLE),
]:
    _basic(_w, _t)


def strip_spelling(t: CType) -> CType:
    """The same type with its canonical spelling (drops typedef names)."""
    if isinstance(t, Int):
        return Int(t.bits, t.signed, t.is_bool)
    if isinstance(t, Float):
        return Float(t.bits)
    return t


def promote(t: CType) -> CType:
    """Integer promotions (C11 6.3.1.1)."""
    if isinstance(t, Int) and t.bits < 32:
        return INT
    return t


def usual_arith(a: CType, b: CType) -> CType:
    """Usual arithmetic conversions (C11 6.3.1.8)."""
    if isinstance(a, Float) or isinstance(b, Float):
        bits = max(x.bits for x in (a, b) if isinstance(x, Float))
        return a if isinstance(a, Float) and a.bits == bits else b
    a, b = promote(a), promote(b)
    assert isinstance(a, Int) and isinstance(b, Int)
    if a == b:
        return a
    if a.signed == b.signed:
        return a if a.bits >= b.bits else b
    u, s = (a, b) if not a.signed else (b, a)
    if u.bits >= s.bits:
        return u
    if s.bits > u.bits:
        return s
    return s.with_sign(False)


def decay(t: CType) -> CType:
    """Array-to-pointer and function-to-pointer conversion."""
    if isinstance(t, Array):
        return Pointer(t.elem)
    if isinstance(t, Func):
        return Pointer(t)
    return t


def lane_type(t: CType) -> CType:
    """The element type that one vector lane holds for a value of type ``t``."""
    return strip_spelling(t)


# --------------------------------------------------------------------------- target


@dataclass(frozen=True)
class Target:
    """The target's answers to C's implementation-defined type questions (LP64 Linux)."""

    char_signed: bool = True  # x86-64; AArch64 and ppc64le: False (GCC's __CHAR_UNSIGNED__)
    wchar: Int = INT  # __WCHAR_TYPE__: int on x86-64 and ppc64le, unsigned int on AArch64
    char16: Int = USHORT  # __CHAR16_TYPE__ (uint_least16_t)
    char32: Int = UINT  # __CHAR32_TYPE__ (uint_least32_t)
    triple: str = ""  # ``cc -dumpmachine`` (libclang's --target), "" for the host
    #: GCC's ``__BYTE_ORDER__``: every target expand emits for (x86-64, AArch64, ppc64le) is little-endian;
    #: local unions and structs are taken as their bytes in that order (expand/passes/records.py refuses big-endian)
    big_endian: bool = False
    #: The code is compiled by Clang, whose builtins give other values than GCC's where C leaves them open
    #: (``signbit`` of a float: 1, GCC's INT_MIN): the preprocessor command defines ``CLANG_MARK``
    #: (emit/rvv.py: the frontends read GCC's ``-E`` text, but Clang compiles the code)
    clang_builtins: bool = False

    @property
    def char(self) -> Int:
        """Plain ``char``: a distinct type with the target's signedness, spelled ``char``."""
        return Int(8, self.char_signed, spelling="char")

    def with_char_signed(self, signed: bool | None) -> Target:
        if signed is None or signed == self.char_signed:
            return self
        return dataclasses.replace(self, char_signed=signed)


HOST = Target()
#: The macro a table's preprocessor command defines when its code is compiled by Clang (Target.clang_builtins)
CLANG_MARK = "__EXPAND_COMPILED_BY_CLANG__"


class TargetError(Exception):
    """The target compiler cannot be run or is not an LP64 target."""


def _cc_argv(cc: str | Sequence[str]) -> list[str]:
    return [cc] if isinstance(cc, str) else list(cc)


@functools.cache
def _probe(argv: tuple[str, ...]) -> Target:
    try:
        p = subprocess.run([*argv, "-dM", "-E", "-x", "c", "/dev/null"], capture_output=True, text=True)
        m = subprocess.run([*argv, "-dumpmachine"], capture_output=True, text=True)
    except OSError as exc:
        raise TargetError(f"cannot run the C compiler '{' '.join(argv)}': {exc.strerror or exc}") from None
    if p.returncode != 0:
        first = (p.stderr.strip().splitlines() or ["no output"])[0]
        raise TargetError(f"the C compiler '{' '.join(argv)}' failed: {first}")
    macros = dict(re.findall(r"^#define (\w+) ?(.*)$", p.stdout, re.M))
    if macros.get("__SIZEOF_LONG__") != "8" or macros.get("__SIZEOF_POINTER__") != "8":
        raise TargetError(f"'{' '.join(argv)}' does not target LP64 (expand's C types are LP64's)")

    def int_macro(name: str, default: Int) -> Int:
        words = macros.get(name, "").split()
        t = BASIC_TYPES.get(tuple(sorted(words)))
        return strip_spelling(t) if isinstance(t, Int) else default

    return Target(char_signed="__CHAR_UNSIGNED__" not in macros, wchar=int_macro("__WCHAR_TYPE__", INT),
                  char16=int_macro("__CHAR16_TYPE__", USHORT), char32=int_macro("__CHAR32_TYPE__", UINT),
                  triple=m.stdout.strip() if m.returncode == 0 else "",
                  big_endian=macros.get("__BYTE_ORDER__") == "__ORDER_BIG_ENDIAN__",
                  clang_builtins=CLANG_MARK in macros or "__clang__" in macros)


def target_cc(cc: str | Sequence[str] = "gcc", char_signed: bool | None = None) -> list[str]:
    """The compiler command for ``cc`` with plain char's signedness forced when ``char_signed`` is
    given (so that the preprocessor's ``__CHAR_UNSIGNED__``, ``CHAR_MIN``, ... agree)."""
    flags = [] if char_signed is None else ["-fsigned-char" if char_signed else "-funsigned-char"]
    return [*_cc_argv(cc), *flags]


def target_of(cc: str | Sequence[str] = "gcc", char_signed: bool | None = None) -> Target:
    """The Target the C compiler ``cc`` (a name, or a command as a list) compiles for, from
    ``cc -dM -E -x c /dev/null`` (``__CHAR_UNSIGNED__``, ``__WCHAR_TYPE__``, ...); ``char_signed``
    overrides plain char's signedness. Raises TargetError if ``cc`` cannot be run."""
    return _probe(tuple(_cc_argv(cc))).with_char_signed(char_signed)


# --------------------------------------------------------------------------- enumerations


def enum_type(values: Sequence[int], packed: bool = False) -> Int | None:
    """The type GCC gives an enumeration with these constants (c-decl.cc, finish_enum): ``unsigned
    int`` when none is negative, else ``int``; ``long``/``unsigned long`` when they do not fit 32
    bits; with ``__attribute__((packed))`` the smallest type that holds them.  None: too large."""
    lo, hi = min(values, default=0), max(values, default=0)
    unsigned = lo >= 0

    def precision(v: int) -> int:  # bits to hold v (GCC's min_precision)
        if unsigned:
            return max(v.bit_length(), 1)
        return (v if v >= 0 else ~v).bit_length() + 1

    prec = max(precision(lo), precision(hi))
    if packed:
        for bits in (8, 16, 32, 64):
            if prec <= bits:
                return Int(bits, not unsigned)
        return None
    if prec <= 32:
        return UINT if unsigned else INT
    if prec <= 64:
        return ULONG if unsigned else LONG
    return None


def enum_constant_type(value: int, enum: Int) -> Int:
    """An enumeration constant is an ``int`` (C11 6.7.2.2); GCC gives one that does not fit the
    enumeration's type instead."""
    return INT if INT.min <= value <= INT.max else enum


def enum_constant_type_while_defining(value: int) -> Int:
    """A constant's type inside its own enumerator list (before the enumeration is complete)."""
    for t in (INT, LONG, ULONG):
        if t.min <= value <= t.max:
            return t
    return ULONG


# --------------------------------------------------------------------------- character constants

_SIMPLE_ESCAPES = {"'": 0x27, '"': 0x22, "?": 0x3F, "\\": 0x5C, "a": 7, "b": 8, "f": 12, "n": 10, "r": 13,
                   "t": 9, "v": 11, "e": 27, "E": 27}


class CharConstantError(ValueError):
    """A character constant expand does not read (the message says why)."""


def char_constant(text: str, target: Target = HOST) -> tuple[Int, int]:
    """Type and value of the C character constant ``text`` as GCC reads it on ``target``.

    ``'a'``: ``int``, the value of a plain ``char`` (``'\\377'`` is -1 where char is signed, 255 where
    it is unsigned); ``'ab'``: ``int``, GCC's multi-character value (each char 8 bits, big end
    first); ``L'a'``: ``wchar_t``; ``u'a'``: ``char16_t``; ``U'a'``: ``char32_t``.  Raises
    CharConstantError for what GCC and clang read differently or C11 does not have: non-ASCII
    characters in narrow constants, escapes out of range, multi-character wide constants,
    ``u8'a'`` (C23), empty or over-long constants."""
    m = re.fullmatch(r"(L|u8|u|U)?'(.*)'", text, re.S)
    if not m:
        raise CharConstantError(f"cannot read character constant {text}")
    prefix, body = m.group(1) or "", m.group(2)
    if prefix == "u8":
        raise CharConstantError("UTF-8 character constants (u8'a') are C23; expand reads C11")
    t = {"": INT, "L": target.wchar, "u": target.char16, "U": target.char32}[prefix]
    width = 8 if prefix == "" else t.bits
    units: list[int] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            if ord(ch) > 0x7F:
                if prefix == "":
                    raise CharConstantError(f"character constant {text} holds a non-ASCII character (several "
                                            "bytes in UTF-8)")
                if ord(ch) >= 1 << width:
                    raise CharConstantError(f"character too large for enclosing character literal type in {text}")
            units.append(ord(ch))
            i += 1
            continue
        i += 1
        if i >= len(body):
            raise CharConstantError(f"cannot read character constant {text}")
        e = body[i]
        if e in "01234567":
            j = i
            while j < len(body) and j < i + 3 and body[j] in "01234567":
                j += 1
            v = int(body[i:j], 8)
            i = j
        elif e == "x":
            j = i + 1
            while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i + 1:
                raise CharConstantError(f"\\x used with no following hex digits in {text}")
            v = int(body[i + 1:j], 16)
            i = j
        elif e in "uU":
            n = 4 if e == "u" else 8
            digits = body[i + 1:i + 1 + n]
            if len(digits) != n or not re.fullmatch(r"[0-9a-fA-F]+", digits):
                raise CharConstantError(f"incomplete universal character name in {text}")
            v = int(digits, 16)
            i += 1 + n
            if prefix == "" and v > 0x7F:
                raise CharConstantError(f"character constant {text} holds a non-ASCII character (several bytes "
                                        "in UTF-8)")
            if v >= 1 << width:
                raise CharConstantError(f"character too large for enclosing character literal type in {text}")
        elif e in _SIMPLE_ESCAPES:
            v = _SIMPLE_ESCAPES[e]
            i += 1
        else:
            raise CharConstantError(f"unknown escape sequence '\\{e}' in {text}")
        if v >= 1 << width:
            kind = "octal" if e in "01234567" else "hex"
            raise CharConstantError(f"{kind} escape sequence out of range in {text}")
        units.append(v)
    if not units:
        raise CharConstantError("empty character constant")
    if prefix:
        if len(units) > 1:
            raise CharConstantError(f"multi-character wide constant {text} is not supported (GCC and clang "
                                    "read it differently)")
        return t, t.wrap(units[0])
    if len(units) > 4:
        raise CharConstantError(f"character constant {text} is too long for its type")
    if len(units) == 1:  # the value of a plain char, promoted to int
        return INT, target.char.wrap(units[0])
    v = 0
    for u in units:  # GCC: big end first, 8 bits each, then int
        v = (v << 8) | u
    return INT, INT.wrap(v)


def punnable(t: CType) -> bool:
    """A union used only to reinterpret bits: every member a scalar of the same size."""
    if not isinstance(t, Record) or not t.is_union or not t.fields:
        return False
    sizes = {ft.size() for _, ft in t.fields if ft.is_arith()}
    return len(sizes) == 1 and all(ft.is_arith() for _, ft in t.fields)


def float32(v: float) -> float:
    """``v`` rounded to the nearest float (as a Python float; infinite beyond float's range)."""
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)
