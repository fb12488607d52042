"""The benchmark history: the SQLite store, run sets, fio imports and the demo's history."""
