"""core/layout/apply_plan: the marked fstab block (every other line kept byte for byte, also on
random fstab texts) and the plan for a fresh root, an fstab that already has the block,
a mountpoint in use, and a layout that breaks a rule."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tierdeck.core.layout.apply_plan import (
    ActionKind,
    ApplyRefused,
    CurrentState,
    RefusalKind,
    plan_apply,
    replace_block,
)
from tierdeck.core.layout.model import Branch, default_layout
from tierdeck.core.layout.outputs import layout_outputs
from tierdeck.core.layout.rules import RuleId, RuleResult, RuleSeverity

LAYOUT = default_layout(("/cache",), (Branch("/mnt/disk1"), Branch("/mnt/disk2")),
                        "/mnt/tiered", "/mnt/slow")  # fmt: skip
OUTPUTS = layout_outputs(LAYOUT)
BEGIN, END = "# BEGIN tierdeck layout mnt-tiered\n", "# END tierdeck layout mnt-tiered\n"
# Seed 000's fstab, as its owner wrote it (tabs, a comment, no final newline).
FSTAB = ("UUID=1b2c / ext4 errors=remount-ro 0 1\n# the cache\n/dev/md0\t/cache\tbtrfs "
         "defaults 0 0\n/mnt/disk* /mnt/storage fuse.mergerfs allow_other 0 0")  # fmt: skip


def kinds(plan_actions: tuple) -> list[ActionKind]:  # type: ignore[type-arg]
    return [a.kind for a in plan_actions]


def test_block_appended_then_replaced_in_place() -> None:
    once = replace_block(FSTAB, "mnt-tiered", ("a 1", "b 2"))
    assert once == FSTAB + "\n" + BEGIN + "a 1\nb 2\n" + END
    text = once + "/dev/sdz1 /backup ext4 defaults 0 2\n"
    twice = replace_block(text, "mnt-tiered", ("c 3",))
    assert twice == FSTAB + "\n" + BEGIN + "c 3\n" + END + "/dev/sdz1 /backup ext4 defaults 0 2\n"
    # another layout's block is another block
    other = replace_block(twice, "mnt-media", ("d 4",))
    assert other.startswith(twice) and replace_block(other, "mnt-tiered", ("c 3",)) == other


def test_broken_block_refused() -> None:
    with pytest.raises(ApplyRefused) as info:
        replace_block(FSTAB + "\n" + BEGIN, "mnt-tiered", ("x",))
    assert info.value.kind is RefusalKind.BROKEN_BLOCK


_LINE = st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)),
                max_size=40)  # fmt: skip


@given(st.lists(_LINE, max_size=12), st.lists(_LINE, max_size=12), st.booleans())
def test_other_lines_kept_byte_for_byte(before: list[str], after: list[str], final: bool) -> None:
    before = [b for b in before if "tierdeck layout" not in b]
    after = [a for a in after if "tierdeck layout" not in a]
    head = "".join(f"{b}\n" for b in before)
    tail = "\n".join(after) + ("\n" if final and after else "")
    fresh = replace_block(head + tail, "mnt-tiered", ("new 1",))
    # appended after everything that was there
    assert fresh.startswith(head + tail)
    # and replaced in the middle: what surrounds the block is untouched
    middle = head + BEGIN + "old 1\nold 2\n" + END + tail
    assert replace_block(middle, "mnt-tiered", ("new 1",)) == head + BEGIN + "new 1\n" + END + tail


def test_plan_for_a_fresh_root() -> None:
    plan = plan_apply(LAYOUT, OUTPUTS, (), CurrentState(None), root="/tmp/r", stamp="T1")
    assert kinds(plan.actions) == [
        ActionKind.CREATE_MOUNTPOINT, ActionKind.CREATE_MOUNTPOINT, ActionKind.WRITE_FSTAB,
        *[ActionKind.WRITE_UNIT] * 4, ActionKind.DAEMON_RELOAD, ActionKind.MOUNT,
        ActionKind.MOUNT, ActionKind.ENABLE_TIMER,
    ]  # fmt: skip
    assert plan.actions[0].path == "/tmp/r/mnt/tiered"
    assert plan.backup is None and plan.fstab_path == "/tmp/r/etc/fstab"
    assert plan.fstab_text == BEGIN + "".join(f"{line}\n" for line in OUTPUTS.fstab) + END
    assert "/tmp/r/etc/systemd/system/mnt-tiered.mount" in plan.units
    commands = [a for a in plan.actions if a.argv]
    assert commands and all(a.skipped and "--root" in a.skipped for a in commands)
    assert plan.state_path == "/tmp/r/etc/fstab.tierdeck-state.json"


def test_plan_when_the_block_exists_backs_up_and_replaces() -> None:
    old = replace_block(FSTAB, "mnt-tiered", ("stale line",))
    state = CurrentState(old, frozenset({"/mnt/tiered", "/mnt/slow",
                                         "/etc/systemd/system/mnt-tiered.mount"}))  # fmt: skip
    plan = plan_apply(LAYOUT, OUTPUTS, (), state, root=None, stamp="20261123T120000")
    assert ActionKind.CREATE_MOUNTPOINT not in kinds(plan.actions)
    assert plan.backup == "/etc/fstab.tierdeck-backup-20261123T120000"
    assert kinds(plan.actions)[:2] == [ActionKind.BACKUP_FSTAB, ActionKind.WRITE_FSTAB]
    assert "replace the block" in plan.actions[1].description
    assert plan.fstab_text.startswith(FSTAB + "\n" + BEGIN) and "stale" not in plan.fstab_text
    assert plan.actions[2].description.startswith("replace /etc/systemd/system/mnt-tiered")
    commands = [a.argv for a in plan.actions if a.argv]
    assert commands == [("systemctl", "daemon-reload"), ("mount", "/mnt/tiered"),
                        ("mount", "/mnt/slow"),
                        ("systemctl", "enable", "--now", OUTPUTS.mover_timer)]  # fmt: skip
    assert not any(a.skipped or a.warning for a in plan.actions)


def test_a_mounted_mountpoint_is_unmounted_only_with_a_warning() -> None:
    state = CurrentState(FSTAB, frozenset({"/mnt/tiered"}),
                         {"/mnt/tiered": "fuse.mergerfs storage"})  # fmt: skip
    plan = plan_apply(LAYOUT, OUTPUTS, (), state, root=None, stamp="T")
    unmounts = [a for a in plan.actions if a.kind is ActionKind.UNMOUNT]
    assert [a.argv for a in unmounts] == [("umount", "/mnt/tiered")]
    assert unmounts[0].warning and "in use" in unmounts[0].warning
    index = plan.actions.index(unmounts[0])
    assert plan.actions[index + 1].argv == ("mount", "/mnt/tiered")


def test_rule_error_and_bad_fstab_refused() -> None:
    error = RuleResult(RuleId.MOVER_SOURCE, RuleSeverity.ERROR, "m", "r")
    with pytest.raises(ApplyRefused) as info:
        plan_apply(LAYOUT, OUTPUTS, (error,), CurrentState(None), root=None, stamp="T")
    assert info.value.kind is RefusalKind.RULE_ERROR and "mover-source" in str(info.value)
    with pytest.raises(ApplyRefused) as info:
        plan_apply(LAYOUT, OUTPUTS, (), CurrentState("a\ufffdb\n"), root=None, stamp="T")
    assert info.value.kind is RefusalKind.NOT_TEXT
