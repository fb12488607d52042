"""Sweeps: one base job and axes of values, run cell by cell, stored and rendered."""
