"""``tierdeck bench presets``: the presets, their origins and fio parameters, as text,
JSON or a .fio file."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import click

from ....core.presets import PRESETS, Preset
from ..common import EXIT_FAILED, fail, once, output_width
from .jobs import preset_named

PRESETS_SCHEMA = "tierdeck.presets/1"


def _preset_json(p: Preset) -> dict[str, Any]:
    from ....core.spec_dict import spec_to_dict

    return {
        "name": p.name,
        "aliases": list(p.aliases),
        "title": p.title,
        "source": p.source,
        "description": p.description,
        "lay_out_first": p.lay_out_first,
        "drop_caches": p.drop_caches,
        "jobs": [spec_to_dict(job) for job in p.jobs],
        "jobfile": p.to_jobfile(),
    }


def preset_file_text(p: Preset) -> str:
    """A preset as a .fio file that fio and ``bench run --job`` both accept."""
    from .... import __version__

    notes = [
        f"; tierdeck {__version__} preset {p.name}",
        "; run with tierdeck: tierdeck bench run --job THIS.fio --target DIR",
        "; run bare: fio --directory=DIR THIS.fio (no live graph, no cleanup)",
    ]
    if p.lay_out_first:
        notes.append("; tierdeck lays the test files out before measuring; bare fio does not")
    if p.drop_caches:
        notes.append("; tierdeck drops the page cache before measuring (root); bare fio does not")
    return "\n".join(notes) + "\n" + p.to_jobfile()


@click.command("presets")
@click.option("--json", "as_json", is_flag=True, help="Print the presets as JSON.")
@once(
    "--save",
    nargs=2,
    type=(str, click.Path(dir_okay=False, path_type=Path)),
    metavar="NAME FILE.fio",
    help="Write preset NAME as a fio job file.",
)
@click.option("--force", is_flag=True, help="With --save: overwrite an existing file.")
def presets_cmd(as_json: bool, save: tuple[str, Path] | None, force: bool) -> None:
    """List the presets, where each comes from, and their exact fio parameters.

    A preset's former names (its "formerly" line) are still accepted wherever a preset
    is named: --preset, --save, sweep files, history list --preset."""
    if save is not None:
        name, path = save
        preset = preset_named(name)
        try:
            with open(path, "w" if force else "x", encoding="utf-8") as handle:
                handle.write(preset_file_text(preset))
        except FileExistsError:
            fail(f"{path} exists; add --force to overwrite it", EXIT_FAILED)
        except OSError as exc:
            fail(f"cannot write {path}: {exc.strerror}", EXIT_FAILED)
        click.echo(f"wrote preset {preset.name} to {path}", err=True)
        return
    if as_json:
        doc = {"schema": PRESETS_SCHEMA, "presets": [_preset_json(p) for p in PRESETS]}
        click.echo(json.dumps(doc, indent=2))
        return
    # 96 reads well in a pager; a terminal narrower than that would break every line
    terminal = output_width()
    width = min(96, terminal or 96)
    for i, p in enumerate(PRESETS):
        if i:
            click.echo()
        click.echo(f"{p.name}: {p.title}")
        if p.aliases:
            click.echo(f"  formerly: {', '.join(p.aliases)} (still accepted)")
        source = f"  source: {p.source}"
        if terminal is not None:  # in a pipe one line each, to grep; URLs never split
            source = "\n".join(textwrap.wrap(source, width, subsequent_indent="    ",
                                              break_long_words=False, break_on_hyphens=False))  # fmt: skip
        click.echo(source)
        click.echo(click.wrap_text(p.description, width=width, initial_indent="  ",
                                   subsequent_indent="  "))  # fmt: skip
        extras = [t for f, t in ((p.lay_out_first, "lays files out first"),
                                 (p.drop_caches, "drops caches (root)")) if f]  # fmt: skip
        if extras:
            click.echo(f"  tierdeck also: {', '.join(extras)}")
        for line in p.to_jobfile().splitlines():
            if line and not line.startswith(";"):
                click.echo(f"    {line}")
