"""Applies stack: apply v1, apply v2, then `layout undo` returns to v1 and a second
undo to the machine before v1 (before, the second undo said "nothing to undo" and v1's
way back was lost). `undo --dry-run` shows what each undo on record restores; a record
that is not tierdeck's refuses apply and undo and is left as it was."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.app.layout.state import STATE_FORMAT, BadState, parse_stack, stack_text

from tests.mutations import json_values

from ..cli.test_cli_layout_apply import FSTAB, layout_file, root, tree  # noqa: F401  (fixtures)
from ..cli_support import run


def _apply(layout: Path, top: Path, fsname: str) -> str:
    versions = layout.with_suffix(".v1")  # the saved layout as planned
    if not versions.exists():
        versions.write_text(layout.read_text())
    layout.write_text(versions.read_text().replace('fsname = "tiered"', f'fsname = "{fsname}"'))
    result = run("layout", "apply", str(layout), "--root", str(top), "--yes")
    assert result.exit_code == 0, result.output
    return (top / "etc/fstab").read_text()


def test_three_applies_undo_newest_first_to_the_start(
    layout_file: Path,  # noqa: F811
    root: Path,  # noqa: F811
) -> None:
    v1 = _apply(layout_file, root, "tiered")
    v2 = _apply(layout_file, root, "tiered2")
    v3 = _apply(layout_file, root, "tiered3")
    assert "fsname=tiered3" in v3
    dry = run("layout", "undo", "--root", str(root), "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "after it, 2 earlier apply(s) on record, undone newest first:" in dry.output
    assert "undo 2: the apply of" in dry.output and "undo 3: the apply of" in dry.output
    assert "4 unit files (0 put back as they were, 4 removed)" in dry.output  # v1's undo
    assert (root / "etc/fstab").read_text() == v3  # a dry run changes nothing
    for before in (v2, v1, FSTAB):
        result = run("layout", "undo", "--root", str(root), "--yes")
        assert result.exit_code == 0, result.output
        assert (root / "etc/fstab").read_text() == before
    assert not (root / "etc/fstab.tierdeck-state.json").exists()
    assert not list((root / "etc/systemd/system").iterdir())
    result = run("layout", "undo", "--root", str(root), "--yes")
    assert result.exit_code == 2 and "nothing to undo" in result.output


def test_a_record_that_is_not_tierdecks_refuses_and_is_kept(
    layout_file: Path,  # noqa: F811
    root: Path,  # noqa: F811
) -> None:
    state = root / "etc/fstab.tierdeck-state.json"
    state.write_text('{"format": "tierdeck.apply-state/1", "units": {}, "earlier": 3}')
    before = tree(root)
    for args in (("apply", str(layout_file)), ("undo",)):
        result = run("layout", *args, "--root", str(root), "--yes")
        assert result.exit_code == 2, result.output
        assert "not tierdeck's record of an apply (earlier: not a list)" in result.output
        assert tree(root) == before


_json = json_values()


@settings(max_examples=150, deadline=None)
@given(
    st.text(max_size=60)
    | _json.map(json.dumps)
    | st.dictionaries(
        st.sampled_from(["units", "earlier", "created", "mounted", "runtime", "backup"]), _json
    ).map(lambda d: json.dumps({"format": STATE_FORMAT, **d}))  # fmt: skip
)
def test_any_record_text_parses_or_is_refused_in_one_line(text: str) -> None:
    try:
        stack = parse_stack(text, "/etc/fstab.tierdeck-state.json")
    except BadState as exc:
        assert "\n" not in str(exc) and "not tierdeck's record" in str(exc)
        return
    for record in stack:
        assert all(v is None or isinstance(v, str) for v in record["units"].values())
        assert all(isinstance(p, str) for p in (*record["created"], *record["mounted"]))
        assert all(isinstance(v, dict) for v in record["runtime"].values())
    assert parse_stack(stack_text(stack), "x") == stack  # what is written reads back


def test_undo_never_drops_what_was_written_to_fstab_after_the_apply(
    layout_file: Path,  # noqa: F811
    root: Path,  # noqa: F811
) -> None:
    # apply v1, a disk added by hand, apply v2: undoing v2 keeps the hand line (its
    # backup has it); undoing v1 would put back fstab from before v1 and lose it.
    _apply(layout_file, root, "tiered")
    fstab = root / "etc/fstab"
    hand = "UUID=1234-abcd /mnt/usb ext4 defaults,nofail 0 2\n"
    fstab.write_text(fstab.read_text() + hand)
    _apply(layout_file, root, "tiered2")
    result = run("layout", "undo", "--root", str(root), "--yes")
    assert result.exit_code == 0, result.output
    after_v2_undone = fstab.read_text()
    assert hand in after_v2_undone
    before = tree(root)
    result = run("layout", "undo", "--root", str(root), "--yes")
    assert result.exit_code == 2, result.output
    assert "has changed since this apply wrote it" in result.output
    assert tree(root) == before and fstab.read_text() == after_v2_undone
