"""Pilot tests of dashboard."""
