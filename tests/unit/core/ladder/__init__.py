"""Unit tests of core/ladder."""
