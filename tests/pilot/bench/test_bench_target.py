"""``b`` on a disk row: the disk's own filesystem, raw mode for an unused disk, or no
target and a reason naming what holds the disk and what to benchmark instead.

The inventory is the lab NAS of app/machine/lab.py plus an unused loop, an md member and a
ZFS leaf (tests/snapshots/apps/inventories.lab_inventory). The app runs with a LiveHost
(``b`` refuses recordings) but that fixed inventory: nothing is benchmarked here, the
tests stop at the setup screen.
"""

from __future__ import annotations

import dataclasses

import pytest
from textual.widgets import Input, Static
from tierdeck.app.bench.targets import disk_target, suggest_path, suggest_target
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.app.tui.bench_messages import PlanRefused
from tierdeck.backends.host import LiveHost
from tierdeck.core.bench_models import BenchRefused, RefusalKind
from tierdeck.core.models import Mount
from tierdeck.screens.bench.setup import BenchSetupScreen
from tierdeck.screens.modals.confirm import PromptScreen
from tierdeck.widgets.dashboard.disk_table import DiskTable

from tests.pilot.waiting import screen_text, wait_for_inventory
from tests.snapshots.apps.inventories import LAB, lab_inventory
from tests.waiting import wait_until

SIZE = (80, 24)


def test_a_disk_with_its_own_filesystem_gets_that_not_the_pool_above() -> None:
    inv = lab_inventory()
    hdd0 = inv.disk("loop2")
    assert hdd0 is not None
    # Before: the first target holding the disk, the mergerfs pool above it.
    assert disk_target(inv, hdd0).path == f"{LAB}/mnt/hdd0"
    assert disk_target(inv, hdd0).note is None
    assert suggest_path(inv, hdd0) == f"{LAB}/mnt/hdd0"


def test_a_partition_mount_and_a_read_only_mount_count_as_the_disks_own() -> None:
    inv = lab_inventory()
    sdg = inv.disk("sdg")
    assert sdg is not None
    # sdg1 mounted directly (no md): found by the partition's major:minor
    plain = dataclasses.replace(
        sdg, partitions=(dataclasses.replace(sdg.partitions[0], holders=()),)
    )
    mount = Mount(50, 1, "8:97", "/", "/mnt/sdg1", "ext4", "/dev/sdg1", ("ro",), ())
    inv2 = dataclasses.replace(
        inv, disks=(plain,), mounts=(mount,), md=(), dev_names={"8:97": "sdg1"}
    )
    choice = disk_target(inv2, plain)
    assert choice.path == "/mnt/sdg1"
    assert choice.note is not None and "read-only" in choice.note


@pytest.mark.parametrize(
    ("disk", "holder", "instead"),
    [
        ("loop0", "a member of btrfs filesystem cache", f"{LAB}/mnt/cache"),
        ("loop1", "a member of btrfs filesystem cache", f"{LAB}/mnt/cache"),
        ("sdg", "a member of md array md127", "/mnt/backup"),
        ("sdc", "a member of ZFS pool tank", "/tank"),
    ],
)
def test_a_member_disk_has_no_target_and_says_what_to_benchmark(
    disk: str, holder: str, instead: str
) -> None:
    inv = lab_inventory()
    found = inv.disk(disk)
    assert found is not None
    choice = suggest_target(inv, found)
    assert choice.path is None and not choice.raw
    assert choice.note == f"{disk} is {holder}: benchmark {instead}"


def test_an_unused_disk_is_offered_raw_with_the_warning() -> None:
    inv = lab_inventory()
    loop4 = inv.disk("loop4")
    assert loop4 is not None
    choice = disk_target(inv, loop4)
    assert choice.path == "/dev/loop4" and choice.raw
    assert choice.note is not None
    assert "typed to confirm" in choice.note and "DESTROYS the data" in choice.note


def test_an_unused_disk_with_a_signature_is_not_offered_raw() -> None:
    inv = lab_inventory()
    loop4 = inv.disk("loop4")
    assert loop4 is not None
    for fs, words in (("ext4", "not mounted"), ("swap", "swap area"), ("zfs_member", "zfs_member")):
        choice = disk_target(inv, dataclasses.replace(loop4, fs_type=fs))
        assert choice.path is None and choice.note is not None and words in choice.note


async def bench_on_disk(pilot, app: TierdeckApp, name: str) -> BenchSetupScreen:  # type: ignore[no-untyped-def]
    table = app.screen.query_one(DiskTable)
    table.move_cursor(row=table.get_row_index(name))
    await pilot.pause()
    assert table.selected_disk is not None and table.selected_disk.name == name
    await pilot.press("b")
    await wait_until(pilot, lambda: isinstance(app.screen, BenchSetupScreen), "the setup screen")
    setup = app.screen
    assert isinstance(setup, BenchSetupScreen)
    return setup


def lab_app() -> TierdeckApp:
    return TierdeckApp(LiveHost(), collect=lambda host: lab_inventory(), hotplug=False)


async def test_b_on_disk_rows_of_the_lab() -> None:
    app = lab_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)

        setup = await bench_on_disk(pilot, app, "loop2")
        assert setup.path == f"{LAB}/mnt/hdd0"
        assert not setup.query_one("#target-note").display
        await pilot.press("escape")

        setup = await bench_on_disk(pilot, app, "loop1")
        assert setup.path == ""
        note = setup.query_one("#target-note", Static)
        assert note.display
        text = screen_text(app)
        assert "loop1 is a member of btrfs filesystem cache" in " ".join(text.split())
        await pilot.press("escape")

        setup = await bench_on_disk(pilot, app, "loop4")
        assert setup.path == "/dev/loop4"
        assert setup.query_one("#target-note").display
        text = " ".join(screen_text(app).split())
        assert "raw mode benchmarks the device itself" in text
        assert "typed to confirm" in text and "DESTROYS the data" in text
        # Another path: the note spoke of the disk, it goes.
        setup.query_one("#path", Input).value = f"{LAB}/mnt/hdd1"
        await pilot.pause()
        assert not setup.query_one("#target-note").display


async def test_raw_confirmation_prompt_follows_the_refusal_kind_not_its_words() -> None:
    app = lab_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_inventory(pilot, app)
        setup = await bench_on_disk(pilot, app, "loop4")
        # Words alone (an INVALID refusal that happens to say them): no prompt.
        setup.post_message(
            PlanRefused(BenchRefused("the name typed to confirm was wrong"), direct_was=None)
        )
        await wait_until(pilot, lambda: setup.message.startswith("Refused"), "the refusal shown")
        assert app.screen is setup
        # The kind, whatever the words: the prompt for the device name.
        refusal = BenchRefused("raw mode needed", kind=RefusalKind.RAW_CONFIRMATION)
        setup.post_message(PlanRefused(refusal, direct_was=None))
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the name prompt")
        assert "Type the device name" in screen_text(app)
