"""Unit tests of backends/fio."""
