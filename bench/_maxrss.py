"""Run a command; print its wall time (s) and max RSS (KiB) on the last line of stderr.
Timing here, around the child alone, keeps this wrapper's own start-up out of it."""

import resource
import subprocess
import sys
import time

start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
elapsed = time.perf_counter() - start
sys.stderr.write(proc.stderr.decode(errors="replace"))
sys.stderr.write(f"\n{elapsed} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\n")
sys.exit(proc.returncode)
