"""Layouts as data: the model, its rules, its TOML, its outputs and its apply plan."""
