"""ZFS through the zpool and zfs commands: JSON and text forms."""
