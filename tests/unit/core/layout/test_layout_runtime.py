"""core/layout/runtime: what differs between a running pool and the layout, split by
whether mergerfs 2.33 takes it at runtime; and the plan built from it (set through the
control file, remount with a warning, or wait with --no-remount)."""

from __future__ import annotations

from dataclasses import replace

from tierdeck.core.layout.apply_plan import ActionKind, CurrentState, plan_apply
from tierdeck.core.layout.model import Branch, CreatePolicy, PoolOptions, PoolSpec, default_layout
from tierdeck.core.layout.outputs import layout_outputs
from tierdeck.core.layout.runtime import (
    COMPARED_KEYS,
    RUNTIME_READ_ONLY,
    RUNTIME_SETTABLE,
    runtime_diff,
)

BRANCHES = (Branch("/cache"), Branch("/mnt/disk1"))
POOL = PoolSpec("/mnt/tiered", PoolOptions(fsname="tiered"))
LIVE = {"branches": "/cache=RW:/mnt/disk1=RW", "category.create": "ff",
        "minfreespace": "4294967296", "moveonenospc": "mfs", "cache.files": "off",
        "dropcacheonclose": "true", "fsname": "tiered"}  # fmt: skip


def test_the_sets_are_disjoint_and_cover_what_apply_compares() -> None:
    assert not RUNTIME_SETTABLE & RUNTIME_READ_ONLY
    assert set(COMPARED_KEYS) <= RUNTIME_SETTABLE | RUNTIME_READ_ONLY
    assert "fsname" in RUNTIME_READ_ONLY and "branches" in RUNTIME_SETTABLE


def test_same_values_in_mergerfs_spelling_are_no_change() -> None:
    # 4G read back as bytes, moveonenospc=true read back as its policy
    assert runtime_diff(POOL, BRANCHES, LIVE).empty


def test_differences_split_by_runtime_or_mount() -> None:
    live = {**LIVE, "category.create": "mfs", "branches": "/cache=RW", "fsname": "pool",
            "moveonenospc": "false"}  # fmt: skip
    diff = runtime_diff(POOL, BRANCHES, live)
    assert [(c.key, c.value, c.before) for c in diff.settable] == [
        ("branches", "/cache=RW:/mnt/disk1=RW", "/cache=RW"), ("category.create", "ff", "mfs"),
        ("moveonenospc", "true", "false")]  # fmt: skip
    assert [(c.key, c.value) for c in diff.remount] == [("fsname", "tiered")]


def test_a_key_the_pool_does_not_report_or_garbage_counts_as_different() -> None:
    live = {k: v for k, v in LIVE.items() if k != "cache.files"}
    live["minfreespace"] = "lots"
    diff = runtime_diff(POOL, BRANCHES, live)
    assert [(c.key, c.before) for c in diff.settable] == [("minfreespace", "lots"),
                                                           ("cache.files", None)]  # fmt: skip
    policy = PoolSpec("/p", PoolOptions(moveonenospc=CreatePolicy.LFS, fsname="tiered"))
    assert [c.key for c in runtime_diff(policy, BRANCHES, LIVE).settable] == ["moveonenospc"]


LAYOUT = default_layout(("/cache",), (Branch("/mnt/disk1"),), "/mnt/tiered")
OUTPUTS = layout_outputs(LAYOUT)
MOUNTED = {"/mnt/tiered": "fuse.mergerfs tiered"}


def plan(live: dict[str, str], *, systemd: bool = True, no_remount: bool = False):  # type: ignore[no-untyped-def]
    state = CurrentState("a\n", frozenset({"/mnt/tiered"}), MOUNTED, {"/mnt/tiered": live}, systemd)
    return plan_apply(LAYOUT, OUTPUTS, (), state, root=None, stamp="T", no_remount=no_remount)


def test_plan_sets_runtime_options_without_unmounting() -> None:
    actions = plan({**LIVE, "category.create": "mfs"}).actions
    sets = [a for a in actions if a.kind is ActionKind.SET_OPTION]
    assert len(sets) == 1 and sets[0].path == "/mnt/tiered/.mergerfs"
    assert "fstab block has it too" in sets[0].description and "now mfs" in sets[0].description
    assert not [a for a in actions if a.kind is ActionKind.UNMOUNT]
    # the pool keeps running: the untyped allow_other is said to wait for its next mount
    (mount,) = [a for a in actions if a.kind is ActionKind.MOUNT]
    assert mount.skipped and "(allow_other) are never set at runtime" in mount.skipped
    # with no untyped option there is nothing to wait for, and no skipped mount to read
    bare_pool = PoolSpec("/mnt/tiered", PoolOptions(fsname="tiered", other=()))
    bare = replace(LAYOUT, tiered_pool=bare_pool)
    state = CurrentState("a\n", frozenset({"/mnt/tiered"}), MOUNTED,
                         {"/mnt/tiered": {**LIVE, "category.create": "mfs"}}, True)  # fmt: skip
    bare_plan = plan_apply(bare, layout_outputs(bare), (), state, root=None, stamp="T")
    assert not [a for a in bare_plan.actions if a.kind is ActionKind.MOUNT]


def test_plan_for_a_pool_already_as_the_layout_says_does_nothing_to_it() -> None:
    actions = plan(LIVE).actions
    mount = next(a for a in actions if a.kind is ActionKind.MOUNT)
    assert mount.skipped and "already runs" in mount.skipped
    assert not [a for a in actions if a.kind in (ActionKind.UNMOUNT, ActionKind.SET_OPTION)]


def test_plan_remounts_for_a_mount_time_option_unless_told_not_to() -> None:
    live = {**LIVE, "fsname": "old", "category.create": "mfs"}
    kinds = [a.kind for a in plan(live).actions]
    assert ActionKind.SET_OPTION not in kinds
    assert kinds.index(ActionKind.UNMOUNT) + 1 == kinds.index(ActionKind.MOUNT)
    actions = plan(live, no_remount=True).actions
    assert [a.kind for a in actions if a.kind is ActionKind.SET_OPTION] == [ActionKind.SET_OPTION]
    assert ActionKind.UNMOUNT not in [a.kind for a in actions]


def test_plan_without_systemd_skips_systemctl_and_still_writes_units() -> None:
    state = CurrentState("a\n", systemd=False)
    actions = plan_apply(LAYOUT, OUTPUTS, (), state, root=None, stamp="T").actions
    systemctl = [a for a in actions if a.argv[:1] == ("systemctl",)]
    assert len(systemctl) == 2 and all("/run/systemd/system is absent" in (a.skipped or "")
                                       for a in systemctl)  # fmt: skip
    assert [a.argv for a in actions if a.kind is ActionKind.MOUNT] == [("mount", "/mnt/tiered")]
    assert not next(a for a in actions if a.kind is ActionKind.MOUNT).skipped
    assert len([a for a in actions if a.kind is ActionKind.WRITE_UNIT]) == len(OUTPUTS.units)
