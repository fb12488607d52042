"""fio's outputs and job files: the live stream, imports of saved results, job files."""
