"""docs/architecture.md against the tree: what it names exists, and every module is in it."""

from __future__ import annotations

import re

from ..paths import REPO

ROOT = REPO
DOC = ROOT / "docs" / "architecture.md"
FOLDERS = ("app", "core", "backends", "screens", "widgets", "tests", "bench", "scripts", "docs")
MODULE_FOLDERS = ("app", "core", "backends", "screens", "widgets")
# "where to add a storage backend" walks through one that does not exist yet
EXAMPLES = {"backends/lvm.py", "tests/unit/test_lvm.py", "tests/fixtures/lvm/"}
PATH = re.compile(r"(?<![\w/.])((?:" + "|".join(FOLDERS) + r")/[\w./*-]*\w/?)")


def named_paths(text: str) -> set[str]:
    """Paths in the text, placeholders (NAME, <name>) left out."""
    return {
        m.group(1)
        for m in PATH.finditer(text)
        if not re.search(r"NAME|/widgets$", m.group(1)) and text[m.end() : m.end() + 1] != "<"
    }


def missing(paths: set[str]) -> list[str]:
    def exists(p: str) -> bool:
        path = ROOT / p
        return path.exists() or path.with_suffix(".py").exists() or any(ROOT.glob(p))

    return sorted(p for p in paths - EXAMPLES if not exists(p))


def test_every_path_the_architecture_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert len(named_paths(text)) > 100
    assert missing(named_paths(text)) == []


def test_the_check_sees_a_wrong_path() -> None:
    found = named_paths(
        "see `app/no_such_module.py` and core/nothing_here, app/sweep/examples/NAME.toml, `app/x_<y>.py`"
    )
    assert missing(found) == ["app/no_such_module.py", "core/nothing_here"]


def folder_map(text: str) -> dict[str, str]:
    """The "Layers and folders" block as {folder: its text}: "app/cli" -> what its rows
    say; a layer's "(top level)" rows are the layer itself ("core")."""
    block = text.split("## Layers and folders", 1)[1].split("```", 2)[1]
    found: dict[str, str] = {}
    layer = folder = ""
    for line in filter(str.strip, block.splitlines()):
        head = line[:17].strip()
        if line[:1] not in ("", " ") and head.endswith("/"):
            layer = folder = head.rstrip("/")
        elif line.startswith("  ") and head.endswith("/"):
            folder = f"{layer}/{head.rstrip('/')}"
        elif head == "(top level)":
            folder = layer
        found[folder] = found.get(folder, "") + " " + line[17:]
    return found


def test_every_module_is_placed_in_the_architecture() -> None:
    """Each module is named in the row of its own folder in the map, so a new module or
    a moved one fails here until the map says where it is."""
    placed = folder_map(DOC.read_text(encoding="utf-8"))
    unnamed = [
        str(path.relative_to(ROOT))
        for layer in MODULE_FOLDERS
        for path in sorted((ROOT / layer).rglob("*.py"))
        if path.name != "__init__.py"
        and "demo_host" not in path.parts
        and not re.search(
            rf"(?<![\w/]){re.escape(path.stem)}\b",
            # a folder inside a feature folder (app/cli/bench) is described in its row
            placed.get(str(path.parent.relative_to(ROOT)))
            or placed.get(str(path.parent.parent.relative_to(ROOT)), ""),
        )
    ]
    assert unnamed == []


def test_the_map_check_sees_an_unplaced_module() -> None:
    rows = ["core/            domain", "  (top level)    models", "  sweep/         model"]
    placed = folder_map("## Layers and folders\n\n```\n" + "\n".join(rows) + "\n```\n")
    assert placed == {"core": " domain models", "core/sweep": " model"}


def test_the_host_table_has_every_call_of_the_host_contract() -> None:
    from tierdeck.backends.host import Host

    seam = DOC.read_text(encoding="utf-8").split("## The host seam", 1)[1].split("\n## ", 1)[0]
    calls = [name for name in vars(Host) if not name.startswith("_")]
    assert "mount_users" in calls
    assert [c for c in calls if not re.search(rf"`{c}[`(]", seam)] == []


def test_every_history_schema_version_is_described() -> None:
    from tierdeck.app.history.schema import MIGRATIONS

    text = DOC.read_text(encoding="utf-8").split("## Persistence", 1)[1].split("\n## ", 1)[0]
    assert [v for v in range(2, len(MIGRATIONS) + 1) if not re.search(rf"\bv{v}\b", text)] == []


def test_where_to_add_a_cli_command_names_every_group_that_defers_commands() -> None:
    import click
    from tierdeck.app.cli import main
    from tierdeck.app.cli.common import CommandGroup, DeferredCommand

    text = DOC.read_text(encoding="utf-8").split("- a CLI command:", 1)[1].split("\n- ", 1)[0]
    ctx = click.Context(main)
    groups = [main, *(main.get_command(ctx, name) for name in main.list_commands(ctx))]
    deferring = [
        g
        for g in groups
        if isinstance(g, CommandGroup)
        and any(isinstance(c, DeferredCommand) for c in g.commands.values())
    ]
    assert {g.name for g in deferring} >= {"main", "bench", "history"}
    assert "DeferredCommand(" in text and "`CommandGroup`" in text
    assert [g.name for g in deferring if g.name != "main" and f"`{g.name}`" not in text] == []


def test_code_blocks_fit_a_terminal() -> None:
    # a fenced block is shown as written: merged edits had left lines of 140 columns
    blocks = re.findall(r"```\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert [line for b in blocks for line in b.splitlines() if len(line) > 100] == []


def test_the_ladder_paragraph_names_how_noise_is_read() -> None:
    from tierdeck.core.ladder import model as ladder

    text = DOC.read_text(encoding="utf-8")
    for name in ("bandwidth_spread", "noise_band", "diagnose"):
        assert hasattr(ladder, name)
    assert "`bandwidth_spread`" in text and "`noise_band`" in text


def test_where_to_add_a_screen_names_the_help_and_footer_attributes() -> None:
    from tierdeck.screens.dashboard.dashboard import DashboardScreen

    text = DOC.read_text(encoding="utf-8").split("- a screen:", 1)[1].split("\n- ", 1)[0]
    for attribute in ("HELP_TITLE", "HELP_NOTES", "HELP_LEGEND", "FOOTER_IF_ROOM"):
        assert hasattr(DashboardScreen, attribute)
        assert f"`{attribute}`" in text
