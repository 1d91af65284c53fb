"""Analyses: facts about a function that passes and predication read, changing nothing. The
control-flow graph with dominators (``cfg``), which loops and branches are uniform (``divergence``),
what each value is per lane (``shape``), static branch prediction (``predict``), which parameters feed
trip counts (``trip_inputs``), and which stores to shared memory keep the scalar lane order
(``shared_stores``)."""
