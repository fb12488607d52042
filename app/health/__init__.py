"""Disk and pool health: collection (SMART and pool counters), its JSON and text, and
``tierdeck check``'s verdict for monitoring systems."""
