"""The compose screen and the mover view."""
