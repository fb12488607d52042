"""Unit tests of sweep."""
