"""Unit tests of backends/zfs."""
