"""The one chart widget and the run charts drawn with it."""
