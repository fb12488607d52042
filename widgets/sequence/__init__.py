"""The ladder table and the sweep matrix."""
