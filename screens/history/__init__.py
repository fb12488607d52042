"""The history list, one stored run, run sets, imports, comparisons and exports."""
