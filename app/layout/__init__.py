"""Cache/slow tier layouts: planned, drafted on the compose screen, written, applied and undone."""
