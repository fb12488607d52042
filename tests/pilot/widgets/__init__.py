"""Pilot tests of widgets."""
