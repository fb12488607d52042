"""Unit tests of machine."""
