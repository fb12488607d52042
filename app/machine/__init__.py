"""The machine itself: its inventory and its text report, the demo NAS, the lab NAS, hotplug."""
