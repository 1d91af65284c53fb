"""The ground every stage stands on: the typed IR (``nodes``), C types and conversions (``types``), the
scalar C printer of IR expressions (``cprint``) and diagnostics (``diagnostics``). Imports nothing else
of the project."""
