"""Unit tests of core/layout."""
