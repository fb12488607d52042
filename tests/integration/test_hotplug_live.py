"""Hotplug for real: udevd running, the dashboard on this machine, a loop device
attached and detached while it watches. No refresh key is pressed."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import LiveHost

from tests.pilot.waiting import wait_for_inventory
from tests.waiting import wait_until

pytestmark = pytest.mark.integration


@pytest.fixture
def loop_image(tmp_path: Path) -> Iterator[Path]:
    image = tmp_path / "hotplug.img"
    with open(image, "wb") as fh:
        fh.truncate(16 * 1024 * 1024)
    yield image
    # Whatever the test did, detach any loop still on this image.
    found = subprocess.run(["losetup", "-j", str(image)], capture_output=True, text=True)
    for line in found.stdout.splitlines():
        subprocess.run(["losetup", "-d", line.split(":", 1)[0]], check=False)


def _backed_by(app: TierdeckApp, image: Path) -> list[str]:
    inv = app.inventory
    if inv is None:
        return []
    return [d.name for d in inv.disks if d.backing_file == str(image)]


async def test_dashboard_follows_a_loop_device_coming_and_going(
    udevd: None, loop_image: Path
) -> None:
    app = TierdeckApp(LiveHost())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_inventory(pilot, app)
        assert app._hotplug is not None, "udevd runs, so the watcher must be on"
        assert _backed_by(app, loop_image) == []
        loop = subprocess.run(
            ["losetup", "--find", "--show", str(loop_image)],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        await wait_until(pilot, lambda: _backed_by(app, loop_image) == [Path(loop).name],
                         f"{loop} to appear without pressing r")  # fmt: skip
        subprocess.run(["losetup", "-d", loop], check=True)
        await wait_until(pilot, lambda: _backed_by(app, loop_image) == [],
                         f"{loop} to disappear")  # fmt: skip
