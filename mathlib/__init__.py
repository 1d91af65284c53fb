"""Scalar C corpus for EXPAND: glibc flt-32 functions (via a header shim) and our own examples."""
