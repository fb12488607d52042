"""The files a layout becomes, each with a name and its text: what the compose screen's
``o`` key offers to write (the layout's TOML, the fstab lines, every unit), so a user who
applies by hand, or on another machine, gets exactly what `layout apply` would write."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...backends.localfiles import write_atomically
from ...core.layout.model import Layout
from ...core.layout.outputs import DEFAULT_LAYOUT_PATH, layout_outputs
from ...core.layout.toml_format import layout_to_toml
from .self_command import tierdeck_command


@dataclass(frozen=True)
class OutputFile:
    key: str  # stable id: "toml", "fstab", or the unit's file name
    label: str  # what the user picks from
    file_name: str  # the name offered when asking where to write it
    text: str


def output_files(layout: Layout, layout_path: str = DEFAULT_LAYOUT_PATH) -> tuple[OutputFile, ...]:
    """The layout's TOML, its fstab lines and its units, in the order apply writes them.
    OutputError (core/layout/outputs) when a path cannot go into fstab or a unit."""
    outputs = layout_outputs(layout, command=tierdeck_command(), layout_path=layout_path)
    files = [
        OutputFile("toml", "the layout (TOML)", "tierdeck-layout.toml", layout_to_toml(layout)),
        OutputFile(
            "fstab",
            "the fstab lines (both pools)",
            "tierdeck-fstab",
            "".join(f"{line}\n" for line in outputs.fstab),
        ),
    ]
    for name, text in outputs.units.items():
        files.append(OutputFile(name, f"unit {name}", name, text))
    return tuple(files)


def write_output(path: Path, output: OutputFile) -> None:
    """A file the user named: the old text or the new, never half (temp, fsync, rename)."""
    write_atomically(path, output.text)
