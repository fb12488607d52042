"""Unit tests of cli/history."""
