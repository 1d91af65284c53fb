"""mathlib: the libm-style corpus and what is built on expand: the corpus of EXPAND's Table 1 (``corpus``,
glibc flt-32 through a header shim, and our examples), the function x ISA matrix (``matrix``), libm
source trees as their build compiles them (``source_tree``) and the real-corpus runner (``realworld``),
the vector libm built by expand (``libm``) and the benchmark (``bench``)."""
