"""Analyses: facts about a function that passes and predication read, changing nothing. The
control-flow graph with dominators (``cfg``), what each value is per lane, in two steps: uniform loops
and branches before if-conversion, the shape of every variable after it (``shapes``), static branch
prediction (``predict``), which parameters feed trip counts (``trip_inputs``), which stores to
shared memory keep the scalar lane order (``shared_stores``), and what the tests around a value say of
its range, for the printer's guards of uniform conversions, shifts and indexes (``ranges``)."""
