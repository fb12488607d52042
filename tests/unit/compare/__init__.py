"""Unit tests of compare."""
