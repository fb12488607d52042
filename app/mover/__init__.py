"""The mover: its forecast, its run, its progress, its history and its output."""
