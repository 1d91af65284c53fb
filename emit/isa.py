"""The ISA table contract: everything `expand` knows about a vector instruction set.

The C printer (emit/printer.py) turns each vector operation of the IR into a C expression by
calling one method of an ``Isa`` object. Passes never look at intrinsics: adding an ISA means
adding one module with a subclass of ``Isa``.

Conventions every method follows:

* A *lane kind* ``k`` is one of ``i8 u8 i16 u16 i32 u32 i64 u64 f32 f64`` (see ``lane_kind``).
  Values of integer kinds narrower than 32 bits are held widened (sign- or zero-extended) in
  32-bit lanes, so ``vtype('u8') == vtype('i32')`` on SSE.
* A *gang* is ``self.lanes`` lanes. One gang of kind ``k`` may need several registers (4 doubles on
  SSE = 2 x ``__m128d``); the table hides that behind ``vtype(k)`` (e.g. a struct typedef).
* Arguments are C expression strings of the right vector type (or scalar C expressions where the
  method says so). The result is a C expression string. **Each argument string appears at most
  once in the result**: an implementation that needs an operand twice defines a helper function.
* Helper functions and typedefs go through ``self.need(name, c_text)``; ``prelude()`` returns the
  needed ones in the order they were first needed (a helper that uses another needs it first).
* A *mask* is a gang of booleans of type ``mask_type()``; masks are the same whatever kind of
  values they select. Comparisons return masks.
* Every operation is bit-exact with C's scalar semantics on the same target (GCC, LP64,
  round-to-nearest, -ffp-contract=off), lane by lane, for every input where the scalar C operation
  is defined. Float comparisons follow C: ``!=`` is true on NaN, the others false.
"""

from __future__ import annotations

from expand.types import CType, Float, Int


def lane_kind(t: CType) -> str:
    """The lane kind of scalar C type ``t`` (``_Bool`` is held as u8)."""
    if isinstance(t, Float):
        return f"f{t.bits}"
    if isinstance(t, Int):
        return ("i" if t.signed and not t.is_bool else "u") + str(t.bits)
    raise TypeError(f"no vector lanes for type {t}")


KINDS = ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f32", "f64")


def kind_bits(k: str) -> int:
    return int(k[1:])


def scalar_ctype(k: str) -> str:
    """The C spelling of one lane of kind ``k`` (stdint names)."""
    return {"f32": "float", "f64": "double"}.get(k) or (
        ("int" if k[0] == "i" else "uint") + k[1:] + "_t"
    )
