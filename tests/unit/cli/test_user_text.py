"""What a user reads and installs: the package's extras, --help, README and docs."""

from __future__ import annotations

import re
import tomllib

from ...paths import REPO

ROOT = REPO
SOURCE_DIRS = ("app", "core", "backends", "screens", "widgets", "bench")


def _imported_modules() -> set[str]:
    found: set[str] = set()
    for folder in SOURCE_DIRS:
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            found |= set(re.findall(r"^\s*(?:import|from)\s+([A-Za-z_][\w]*)", text, re.M))
    return found


def test_every_extra_installs_only_what_the_code_imports() -> None:
    # "pyzfs" in the zfs extra installed a 2016 Python-2 binding nothing imports
    doc = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = doc["project"]["optional-dependencies"]
    assert "zfs" in extras  # old install lines keep working
    imported = _imported_modules()
    for name, requirements in extras.items():
        if name == "test":
            continue
        for requirement in requirements:
            module = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].replace("-", "_")
            assert module in imported, f"extra {name!r} installs {requirement!r}, never imported"


# former preset names (seed000-seqwrite) may be named: they are still accepted
WORK_ITEM = re.compile(r"\bissues? \d+|later issue|seeds/|\bseed 0\d\d", re.IGNORECASE)


def _help_texts() -> dict[str, str]:
    """--help of every command and subcommand, by its command line."""
    import click
    from tierdeck.app.cli import main

    out: dict[str, str] = {}

    def walk(command: click.Command, path: list[str]) -> None:
        ctx = click.Context(command, info_name=" ".join(path))
        out[" ".join(path)] = command.get_help(ctx)
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None:
                    walk(sub, [*path, name])

    walk(main, ["tierdeck"])
    return out


def test_no_help_names_a_work_item_or_a_seed_file() -> None:
    texts = _help_texts()
    assert {"tierdeck layout", "tierdeck mover", "tierdeck bench presets"} <= set(texts)
    named = {cmd: WORK_ITEM.findall(text) for cmd, text in texts.items()}
    assert {cmd: found for cmd, found in named.items() if found} == {}
    assert "from a real home NAS's notes" in " ".join(texts["tierdeck"].split())


def test_readme_and_docs_name_no_work_item_or_seed_file() -> None:
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        found = WORK_ITEM.findall(path.read_text(encoding="utf-8"))
        assert found == [], f"{path.name}: {found}"


def test_presets_are_named_after_what_they_measure_and_keep_their_old_names() -> None:
    from tierdeck.core.presets import PRESETS, find_preset

    for p in PRESETS:
        assert not p.name.startswith("seed") and "seed" not in p.source, p.name
    old_to_new = {
        "seed000-seqwrite": "nas-seqwrite-1m-qd8x8",
        "seed002-suite": "suite-seq1m-rand4k-qd64",
        "seed001-uncached-randread": "uncached-randread-16k-sync",
        "seed004-dd": "dd-1m-and-512b-sync",
    }
    for old, new in old_to_new.items():
        found = find_preset(old)
        assert found is not None and found.name == new and found is find_preset(new)


def test_bench_presets_describes_each_origin_in_words() -> None:
    from ..cli_support import run

    text = run("bench", "presets").stdout
    assert "seeds/" not in text
    assert "a home NAS owner's published notes measuring mergerfs over a ZFS pool" in text
    assert "formerly: seed002-suite (still accepted)" in text
