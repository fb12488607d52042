"""``tierdeck bench ...``: run, sweep and ladder."""
