"""Passes: rewrites of the IR between the frontend and predication, in the order expand/driver.py runs
them: libm calls to operations (``mathcalls``), canonical loops (``canonical_loops``), lowering of
expressions and records (``lower``, ``records``), errno and globals (``global_writes``), inlining of
static helpers (``inline``), constant folding (``fold``), local pointers and arrays
(``pointer_locals``, ``local_arrays``), constant subscripts (``const_subscripts``), and after
if-conversion dead code (``dce``) and temporaries (``copyprop``)."""
