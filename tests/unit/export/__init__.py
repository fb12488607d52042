"""Unit tests of export."""
