"""Setting up a benchmark and watching it run."""
