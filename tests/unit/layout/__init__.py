"""Unit tests of layout."""
