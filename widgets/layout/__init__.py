"""What the compose screen and the mover view draw."""
