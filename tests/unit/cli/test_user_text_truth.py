"""The user's text against what the code does, where a merge left it untrue or astray."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner
from tierdeck.app.cli import main
from tierdeck.app.compare.render import UNKNOWN_MARK

from ...paths import REPO as ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _help(*argv: str) -> str:
    result = CliRunner().invoke(main, [*argv, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def _section(title: str) -> str:
    return README.split(f"\n### {title}\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]


def test_compare_help_says_how_an_unknown_noise_delta_is_shown() -> None:
    text = _help("compare")
    assert "shown plain" not in text
    assert f'shown with "{UNKNOWN_MARK}"' in text
    assert "an imported run's file does not state" in text


def test_readme_lists_every_document() -> None:
    listed = set(
        re.findall(r"^- `(docs/[\w-]+\.md)`", README.split("\n## Documentation\n")[1], re.M)
    )
    assert listed == {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}


def test_the_ladder_menu_is_told_under_the_ladder_not_the_sweeps() -> None:
    assert "Branch rungs" not in _section("Sweeps")
    assert "Branch rungs" in _section("Ladder")


def _returned_keys(module: Path, function: str) -> set[str]:
    """The keys of the dict literal ``function`` returns."""
    import ast

    tree = ast.parse(module.read_text(encoding="utf-8"))
    func = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    ret = next(n for n in ast.walk(func) if isinstance(n, ast.Return))
    assert isinstance(ret.value, ast.Dict)
    return {k.value for k in ret.value.keys if isinstance(k, ast.Constant)}


def test_the_mover_json_examples_hold_every_key_the_code_prints() -> None:
    doc = (ROOT / "docs" / "mover-json.md").read_text(encoding="utf-8")
    examples = {
        d["schema"]: d
        for d in (json.loads(block) for block in re.findall(r"```json\n(.*?)```", doc, re.S))
    }
    source = ROOT / "app" / "mover" / "render_json.py"
    assert set(examples["tierdeck.mover-run/1"]) == _returned_keys(source, "report_to_dict")
    assert set(examples["tierdeck.mover-run/1"]["planned"][0]) == _returned_keys(source, "_planned")
    history = examples["tierdeck.mover-history/1"]
    assert set(history["runs"][0]) == _returned_keys(source, "record_to_dict")
    progress = examples["tierdeck.mover-progress/1"]
    assert set(progress) == _returned_keys(source, "progress_to_dict")
    assert set(examples["tierdeck.mover-refused/1"]) == _returned_keys(source, "refused_to_dict")


def test_the_help_legends_name_what_their_screens_show() -> None:
    from tierdeck.screens.history.history import HistoryScreen
    from tierdeck.screens.sequence.ladder import LadderScreen
    from tierdeck.widgets.bench.run_view import IMPORTED_MARK

    assert f"{IMPORTED_MARK} imported" in HistoryScreen.HELP_LEGEND  # the list marks them
    assert "slow branch" in LadderScreen.HELP_LEGEND  # the rung of a tiered pool
    assert "spread" in LadderScreen.HELP_LEGEND  # why a penalty is dim


def test_testing_doc_names_every_fixture_folder_and_every_check_of_test_sh() -> None:
    doc = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    folders = sorted(p.name for p in (ROOT / "tests" / "fixtures").iterdir() if p.is_dir())
    named = set(re.findall(r"`tests/fixtures/(\w+)/`", doc))
    for group in re.findall(r"`tests/fixtures/\{([\w,]+)\}/`", doc):
        named |= set(group.split(","))
    assert [
        f for f in folders if f not in named and f != "inventory"
    ] == []  # golden, not tool output
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    tools = re.findall(r"\.venv/bin/([\w-]+)", script)
    assert {"ruff", "mypy", "lint-imports", "pytest"} <= set(tools)
    assert [t for t in tools if t not in doc.split("\n## ", 1)[0]] == []


def test_the_ladder_json_example_shows_every_rung_key_the_code_writes() -> None:
    import ast

    doc = (ROOT / "docs" / "ladder-json.md").read_text(encoding="utf-8")
    example = json.loads(re.findall(r"```json\n(.*?)```", doc, re.S)[0])
    shown = {key for rung in example["rungs"] for key in rung}
    tree = ast.parse((ROOT / "app" / "ladder" / "render.py").read_text(encoding="utf-8"))
    func = next(
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "rung_to_json"
    )
    outer = next(n for n in ast.walk(func) if isinstance(n, ast.Dict))  # ast.walk: outermost first
    written = {k.value for k in outer.keys if isinstance(k, ast.Constant)}
    written |= {
        n.slice.value
        for n in ast.walk(func)
        if isinstance(n, ast.Subscript)
        and isinstance(n.slice, ast.Constant)
        and isinstance(n.slice.value, str)
    }
    assert "spread_pct" in written
    assert written - shown == set()
    assert [k for k in shown if f"`rungs[].{k}`" not in doc] == []


def test_bench_json_names_every_import_notice_and_format() -> None:
    from tierdeck.core.imports import ImportFormat, ImportNotice

    doc = (ROOT / "docs" / "bench-json.md").read_text(encoding="utf-8")
    values = [*ImportNotice, *ImportFormat]
    assert [str(v) for v in values if f'"{v}"' not in doc] == []


def test_the_readme_opening_names_what_starting_the_dashboard_changes() -> None:
    opening = README.split("\n## ", 1)[0]
    assert "clean_stale(" in (ROOT / "app" / "tui" / "app.py").read_text(encoding="utf-8")
    assert "/run/tierdeck/throwaway" in opening  # the dashboard's start unmounts them


def test_the_readme_names_every_key_of_the_compose_screen() -> None:
    from tierdeck.screens.layout.compose_keys import BINDINGS

    part = _section("Planning a cache/slow tier layout").split("In the TUI, `l`", 1)[1]
    keys = [b.key for b in BINDINGS if not isinstance(b, tuple) and b.key not in ("escape", "q")]
    assert [k for k in keys if f"`{k}`" not in part] == []


def test_the_readme_says_what_happens_to_files_no_slow_branch_takes() -> None:
    mover = _section("The mover")
    assert "no slow branch can take" in " ".join(mover.split())
    assert "read-only" in mover and "minfreespace" in mover


def test_the_readme_says_which_dashboard_keys_wait_for_room_in_the_footer() -> None:
    from tierdeck.screens.dashboard.dashboard import DashboardScreen

    keys = " ".join(README.split("Dashboard keys:", 1)[1].split("\n\n", 1)[0].split())
    actions = DashboardScreen.FOOTER_IF_ROOM
    waiting = [b.key for b in DashboardScreen.BINDINGS if getattr(b, "action", "") in actions]
    assert waiting and "footer" in keys
    assert [k for k in waiting if f"`{k}`" not in keys.split("footer", 1)[1][:80]] == []


def test_the_readme_says_apply_keeps_fstabs_mode_owner_and_label() -> None:
    source = (ROOT / "backends" / "localfiles.py").read_text(encoding="utf-8")
    assert "SELinux label" in source  # write_atomically keeps them
    assert "mode, owner and SELinux label" in " ".join(README.split())


def test_layout_json_says_what_slow_minfreespace_needs() -> None:
    doc = " ".join((ROOT / "docs" / "layout-json.md").read_text(encoding="utf-8").split())
    assert "`--slow-minfreespace` without `--slow-pool`" in doc  # "without one" named nothing


def test_the_mover_help_explains_the_unplaced_line() -> None:
    from tierdeck.screens.layout.mover import MoverScreen

    views = (ROOT / "widgets" / "layout" / "mover_views.py").read_text(encoding="utf-8")
    assert "fit on no slow branch" in views  # the line the view draws
    assert "fit on no slow branch" in MoverScreen.HELP_LEGEND


def test_the_readme_says_an_id_given_twice_is_refused() -> None:
    from tierdeck.core.compare.comparison import RefusalKind

    assert RefusalKind.DUPLICATE  # compare and export refuse "run #N is given twice"
    assert "an id given twice" in " ".join(_section("Exporting and sharing").split())
    assert "an id given twice" in " ".join(_section("Comparing runs").split())
    assert "an id given twice" in _help("compare")


def test_readme_lines_fit_a_terminal() -> None:
    # merged hunks had left lines of up to 156 columns for a reader of the raw file
    prose = re.sub(r"```.*?```", "", README, flags=re.S)
    assert [line for line in prose.splitlines() if len(line) > 92] == []
