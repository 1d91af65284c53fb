"""Checking what expand prints, apart from the pipeline: the differential verifier behind ``--verify``
(``verify``: a C harness runs the scalar and the vector function on the same inputs and compares them
bit for bit) and the random program generator ``expand-fuzz`` (``fuzz``)."""
