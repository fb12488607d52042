"""Unit tests of mover."""
