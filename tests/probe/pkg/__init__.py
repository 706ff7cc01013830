"""A package whose training module is run with `python -m pkg.train` (probe tests)."""
