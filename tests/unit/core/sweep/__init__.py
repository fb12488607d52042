"""Unit tests of core/sweep."""
