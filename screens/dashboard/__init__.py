"""The dashboard and its ways into the other features."""
