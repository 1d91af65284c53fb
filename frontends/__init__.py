"""Frontends: C source (preprocessed with the target compiler's flags) -> the typed IR of ``expand.ir``.
Two readers produce the same IR node for node: ``pycparser_frontend`` (pycparser + pycparserext's GNU
parser) and ``clang_frontend`` (libclang); what C means is shared (``csemantics``, ``statements``,
``initializers``, ``builtins``, ``fenv``), and ``expand.check.crosscheck`` proves the two agree."""
