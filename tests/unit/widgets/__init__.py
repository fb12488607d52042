"""Unit tests of widgets."""
