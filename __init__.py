"""tierdeck: storage inventory and benchmarks for home NAS."""

__version__ = "0.1.0"
