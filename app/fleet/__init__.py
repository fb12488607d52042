"""Several machines at once: the hosts of ``hosts.toml`` and each one's state."""
