"""Sweeps and ladders: runs in sequence, and the ways into them."""
