"""Benchmarks: where a run goes (targets, preflight), running fio, and storing the result."""
