"""The ladder as data: its rungs and the mergerfs options of its throwaway pools."""
