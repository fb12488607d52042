"""Pilot tests of history."""
