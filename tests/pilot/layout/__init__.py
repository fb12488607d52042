"""Pilot tests of layout."""
