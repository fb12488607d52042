"""Unit tests of history."""
