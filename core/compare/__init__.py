"""Comparisons as data: runs side by side, what differs, the noise rule."""
