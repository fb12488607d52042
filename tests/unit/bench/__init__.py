"""Unit tests of bench."""
