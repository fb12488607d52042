"""``tierdeck history ...``: the stored runs, their import and their export."""
