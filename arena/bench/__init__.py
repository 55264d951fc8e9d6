"""Benchmarks that print figures (``arena bench ...``)."""
