"""Pilot tests of modals."""
