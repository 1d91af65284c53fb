"""expand: scalar C functions -> readable vector C, bit-exact lane by lane (EXPAND, Shin 2007).

The pipeline, one folder per stage (the ground first; each imports only what is below it,
tests/test_architecture.py checks it):

* ``expand.ir``: the typed IR, C types, diagnostics (the ground);
* ``frontends``: C source -> IR (pycparser/pycparserext or libclang);
* ``expand.passes``: IR rewrites (libm calls, loops, lowering, inlining, errno, local pointers and arrays);
* ``expand.analysis``: control flow, dominators, uniform loops and branches, shapes, branch prediction;
* ``predication``: single exit, if-conversion with masks, BOSCC guards;
* ``emit``: one table per ISA and the C printer;
* ``expand.driver`` strings the stages, ``expand.cli`` is the command line; ``expand.check`` verifies what
  they print (``--verify``, ``expand-fuzz``, the frontend cross-check), apart from the pipeline.
"""

__version__ = "0.1.0"
