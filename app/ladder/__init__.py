"""The layer-penalty ladder of a mergerfs pool: its plan, its run on throwaway mounts, its output."""
