"""SVG snapshots of disk health on the dashboard: the Health column, a disk's detail
pane and the Problems tab, at 80x24 and 160x50. Fixed data: a recording whose disks
answer smartctl with the real documents of tests/fixtures/smart/ (one of each kind:
healthy, failing behind a USB bridge, worn NVMe, SAS, asleep, an unknown USB bridge),
read through the same collection the live dashboard runs; and the demo NAS's Problems
tab at 160x50 (its other tabs are in test_dashboard_snapshots.py).
"""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.widgets.dashboard.disk_table import DiskTable

from tests.pilot.waiting import wait_for_health, wait_for_inventory
from tests.support.smart_recording import smart_recording
from tests.waiting import wait_until

SMALL = (80, 24)
LARGE = (160, 50)

MIXED = {
    "sda": "ata-wd140edfz-healthy.json",
    "sdb": "ata-usbjmicron-hds721050-failing.json",
    "sdc": "nvme-intel-p4510-worn75.json",
    "sdd": "standby-sda-transcribed.json",
    "sde": "sas-st1200mm0088.json",
    "sdf": "usb-unknown-bridge-transcribed.json",
}


def mixed_app(folder: Path, *, is_root: bool = True) -> TierdeckApp:
    host = RecordedHost(smart_recording(folder, MIXED, is_root=is_root))
    return TierdeckApp(host, hotplug=False)


async def healthy(pilot: Pilot[None]) -> None:
    """The inventory and then its health on screen."""
    assert isinstance(pilot.app, TierdeckApp)
    await wait_for_inventory(pilot, pilot.app)
    await wait_for_health(pilot, pilot.app)
    table = pilot.app.screen.query_one(DiskTable)
    await wait_until(pilot, lambda: table.health_read and table.row_count > 0, "the Health column")


async def failing_disk(pilot: Pilot[None]) -> None:
    """The failing disk (sdb) highlighted: its detail pane below the table."""
    await healthy(pilot)
    await pilot.press("down")
    table = pilot.app.screen.query_one(DiskTable)
    await wait_until(pilot, lambda: table.selected_disk is not None
                     and table.selected_disk.name == "sdb", "sdb highlighted")  # fmt: skip


def test_health_column_80x24(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(mixed_app(tmp_path / "nas"), terminal_size=SMALL, run_before=healthy)


def test_health_column_160x50(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(mixed_app(tmp_path / "nas"), terminal_size=LARGE, run_before=healthy)


def test_health_detail_80x24(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = mixed_app(tmp_path / "nas")
    assert snap_compare(app, terminal_size=SMALL, run_before=failing_disk)


def test_health_detail_160x50(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = mixed_app(tmp_path / "nas")
    assert snap_compare(app, terminal_size=LARGE, run_before=failing_disk)


def test_health_detail_not_root_80x24(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = mixed_app(tmp_path / "nas", is_root=False)
    assert snap_compare(app, terminal_size=SMALL, run_before=healthy)


def test_health_problems_80x24(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = mixed_app(tmp_path / "nas")
    assert snap_compare(app, press=["4"], terminal_size=SMALL, run_before=healthy)


def test_health_problems_160x50(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = mixed_app(tmp_path / "nas")
    assert snap_compare(app, press=["4"], terminal_size=LARGE, run_before=healthy)


def test_demo_problems_160x50(snap_compare) -> None:  # type: ignore[no-untyped-def]
    app = TierdeckApp(load_demo_host(), demo=True, hotplug=False)
    assert snap_compare(app, press=["4"], terminal_size=LARGE, run_before=healthy)
