"""The dashboard's tables, tree and problem list."""
