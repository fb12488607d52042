"""Comparisons of stored runs as the CLI and the exports print them, and the marks that pick them."""
