"""A benchmark run's widgets: live numbers, per-disk activity, options, the result."""
