"""Pilot tests of sequence."""
