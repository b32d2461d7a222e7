"""Benchmarks and harnesses; a package so `python -m benchmarks.chaos` runs (the scripts still run
by path)."""
