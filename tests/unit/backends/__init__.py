"""Unit tests of backends."""
