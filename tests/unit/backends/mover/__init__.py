"""Unit tests of backends/mover."""
