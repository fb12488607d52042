"""The fleet: every configured host in one table (``fleet.py``)."""
