"""Unit tests of ladder."""
