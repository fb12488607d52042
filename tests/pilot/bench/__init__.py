"""Pilot tests of bench."""
