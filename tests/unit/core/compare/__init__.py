"""Unit tests of core/compare."""
