"""The compare view's table and comparability panel."""
