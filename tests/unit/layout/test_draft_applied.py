"""app/layout/applied: a pool's cache and slow tiers read back from the block `layout
apply` writes in fstab (written here by the same code, core/layout/outputs and
core/layout/apply_plan.replace_block), and garbage that never raises."""

from __future__ import annotations

import dataclasses
from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.app.layout.applied import (
    AppliedTiers,
    applied_tiers,
    read_applied_tiers,
    service_layout_path,
)
from tierdeck.app.layout.draft import draft_from_pool
from tierdeck.backends.host import Host
from tierdeck.core.layout.apply_plan import FSTAB, UNIT_DIR, block_name, replace_block
from tierdeck.core.layout.model import Branch, BranchMode, Layout, default_layout
from tierdeck.core.layout.outputs import layout_outputs
from tierdeck.core.layout.toml_format import layout_to_toml
from tierdeck.core.models import BranchMode as LiveMode
from tierdeck.core.models import MergerfsBranch, MergerfsPool

SLOW = (Branch("/mnt/disk 1"), Branch("/mnt/disk2", BranchMode.NC))  # a space: \040
# Seed 000's own fstab lines stay as they were, around the block.
SEED_FSTAB = (
    "/mnt/disk* /mnt/slow-storage fuse.mergerfs defaults,nonempty,allow_other,use_ino,"
    "category.create=eplus,cache.files=off,moveonenospc=true,dropcacheonclose=true,"
    "minfreespace=300G,fsname=mergerfs 0 0\n"
)


def fstab_of(layout: Layout) -> str:
    return replace_block(SEED_FSTAB, block_name(layout), layout_outputs(layout).fstab)


def pool(mountpoint: str, *paths: str) -> MergerfsPool:
    branches = tuple(MergerfsBranch(p, LiveMode.RW, None) for p in paths)
    return MergerfsPool(mountpoint, "tiered", "2.33.5", branches, {}, "ff", None)


def test_the_tiers_of_a_pool_tierdeck_applied() -> None:
    layout = default_layout(("/cache", "/cache2"), SLOW, "/mnt/tiered", "/mnt/slow")
    live = pool("/mnt/tiered", "/cache", "/cache2", "/mnt/disk 1", "/mnt/disk2")
    assert applied_tiers(fstab_of(layout), live) == AppliedTiers(
        ("/cache", "/cache2"), SLOW, "/mnt/slow"
    )


def test_one_slow_branch_and_no_slow_pool() -> None:
    layout = default_layout(("/cache",), (Branch("/mnt/disk1"),), "/mnt/tiered", None)
    assert layout.slow_pool is None
    live = pool("/mnt/tiered", "/cache", "/mnt/disk1")
    assert applied_tiers(fstab_of(layout), live) == AppliedTiers(
        ("/cache",), (Branch("/mnt/disk1"),), None
    )


def test_a_block_the_pool_no_longer_matches_is_not_trusted() -> None:
    layout = default_layout(("/cache",), SLOW, "/mnt/tiered", "/mnt/slow")
    changed = pool("/mnt/tiered", "/cache", "/mnt/disk 1")  # a branch removed by hand
    assert applied_tiers(fstab_of(layout), changed) is None
    other = pool("/mnt/slow-storage", "/mnt/disk1", "/mnt/disk2")  # the seed's, by hand
    assert applied_tiers(fstab_of(layout), other) is None
    assert applied_tiers(SEED_FSTAB, other) is None


FSTAB_BITS = st.sampled_from(
    ["# BEGIN tierdeck layout x\n", "# END tierdeck layout x\n", "/mnt/tiered", " ",
     "fuse.mergerfs", "/cache=RW:/d=NC", "/d=XX", "=", ":", "\\040", "\\777", "\n", "0 0",
     "/mnt/slow", "/cache", "/d"]
)  # fmt: skip


@settings(max_examples=300)
@given(st.lists(FSTAB_BITS, max_size=30).map("".join))
def test_fstab_shaped_garbage_gives_tiers_or_none(text: str) -> None:
    found = applied_tiers(text, pool("/mnt/tiered", "/cache", "/d"))
    assert found is None or (found.cache and found.slow)


@settings(max_examples=200)
@given(st.text(max_size=300))
def test_any_text_gives_tiers_or_none(text: str) -> None:
    applied_tiers(text, pool("/mnt/tiered", "/cache", "/d"))  # None or tiers, never raises


def test_the_mover_service_names_its_layout_file() -> None:
    layout = default_layout(("/cache",), SLOW, "/mnt/tiered", "/mnt/slow")
    for path in ("/etc/tierdeck/layout.toml", "/root/my layouts/100% $HOME.toml"):
        unit = layout_outputs(layout, layout_path=path)
        assert service_layout_path(unit.units[unit.mover_service]) == path
    assert service_layout_path("[Service]\nExecStart=/bin/true\n") is None
    assert service_layout_path('ExecStart=tierdeck mover run --layout "/x') is None


def applied_files(layout: Layout) -> dict[str, str]:
    """What apply leaves that read_applied_tiers reads: fstab's block, the mover's
    service and the layout file (/srv/nas/tiers.toml) it runs."""
    outputs = layout_outputs(layout, layout_path="/srv/nas/tiers.toml")
    return {FSTAB: fstab_of(layout), "/srv/nas/tiers.toml": layout_to_toml(layout),
            f"{UNIT_DIR}/{outputs.mover_service}": outputs.units[outputs.mover_service]}  # fmt: skip


def test_the_mover_comes_from_the_layout_file_its_service_runs() -> None:
    layout = default_layout(("/cache",), SLOW, "/mnt/tiered", "/mnt/slow")
    layout = dataclasses.replace(layout, mover=dataclasses.replace(
        layout.mover, fill_high_pct=90, fill_low_pct=70, schedule="daily"))  # fmt: skip
    files = applied_files(layout)
    live = pool("/mnt/tiered", "/cache", "/mnt/disk 1", "/mnt/disk2")
    found = read_applied_tiers(cast(Host, FileHost(files)), live)
    assert found is not None and found.mover == layout.mover
    draft = draft_from_pool(live, found)
    assert (draft.fill_high, draft.fill_low, draft.schedule) == ("90", "70", "daily")
    del files["/srv/nas/tiers.toml"]  # the file is gone: the tiers still, mover defaults
    found = read_applied_tiers(cast(Host, FileHost(files)), live)
    assert found is not None and found.cache == ("/cache",) and found.mover is None
    assert read_applied_tiers(cast(Host, FileHost({})), live) is None


@settings(max_examples=300)
@given(st.lists(st.sampled_from(["ExecStart=", "--layout", " ", '"', "'", "\\", "%%", "$$",
                                 "/x", "\n", "mover"]), max_size=20).map("".join))  # fmt: skip
def test_service_shaped_garbage_gives_a_path_or_none(text: str) -> None:
    found = service_layout_path(text)
    assert found is None or isinstance(found, str)


class FileHost:
    """Just read_text, from a dict: all read_applied_tiers asks of a Host."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def read_text(self, path: str) -> str:
        if path not in self.files:
            raise FileNotFoundError(path)
        return self.files[path]
