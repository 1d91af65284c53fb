"""C types of the IR (LP64: x86_64, aarch64, ppc64le) and C's conversion rules.

Types compare by meaning, not spelling: ``uint32_t`` and ``unsigned int`` are equal, but each
keeps its spelling for printing.
"""

from __future__ import annotations

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
