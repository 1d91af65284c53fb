"""Frontends: C source (preprocessed with the target compiler's flags) -> the typed IR of ``expand.ir``.
Two readers produce the same IR node for node: ``pycparser_frontend`` (pycparser + pycparserext's GNU
parser) and ``clang_frontend`` (libclang). Each only maps its own syntax tree onto ``builder.Builder``,
which decides what C means once for both (conversions, lvalues, truth values, constants, declarations,
calls, assignments, loops, ``switch``), with ``csemantics`` (preprocessing, literals, null pointer
constants, the output's prologue), ``statements`` (``switch`` lowering, local arrays, records and
statics), ``initializers`` (brace lists), ``builtins`` and ``fenv``; ``expand.check.crosscheck`` proves
the two agree."""
