"""Sweeps as data: the definition and its result matrix."""
