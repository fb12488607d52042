"""Unit tests of cli/bench."""
