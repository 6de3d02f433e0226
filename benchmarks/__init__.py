"""Benchmark scripts, run as modules from the repository root (see README.md here)."""
