"""The mover's engine on the machine: scan, copy, journal, recovery, system calls."""
