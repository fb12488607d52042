"""The mover view of a remote host (integration: the loopback sshd as the "NAS", its
sessions running this checkout's tierdeck, and the lab NAS's branches): the layout file
read on the host, the forecast of the host's own dry run, a move confirmed by keyboard
that the host's tierdeck makes (its progress and report streamed into the view), a
cancel that stops it cleanly, the host's own history as the last run, and a host
without tierdeck saying how to install it."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input
from tierdeck.app.layout.files import save_layout
from tierdeck.app.machine.lab import HddThrottle
from tierdeck.app.tui.navigation import Navigator
from tierdeck.backends.host.ssh import SshHost
from tierdeck.core.mover import MoveReason, StopReason
from tierdeck.screens.layout.mover import MoverScreen, Phase
from tierdeck.screens.modals.confirm import ConfirmScreen, PromptScreen

from tests.integration.test_mover_lab import DAY, MIB, Lab, assert_once_and_whole, put
from tests.integration.test_mover_lab import lab as lab  # noqa: F401 - the fixture
from tests.waiting import wait_until, wait_until_sync

from ..waiting import shown_text

pytestmark = pytest.mark.integration

SIZE = (80, 24)
KIB = 1024
BLKIO = Path("/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device")


class HostMoverApp(Navigator, App[None]):
    """The dashboard's way to the mover (``m``: the prompt, then the view), on ``host``."""

    CSS_PATH = "../../../app/tui/tierdeck.tcss"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, host: Any) -> None:
        super().__init__()
        self.host = host

    def on_mount(self) -> None:
        self.open_mover_file()


async def open_layout(pilot: Pilot[None], layout_path: Path) -> MoverScreen:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the layout prompt")
    app.screen.query_one(Input).value = str(layout_path)
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, MoverScreen), "the mover view")
    assert isinstance(app.screen, MoverScreen)
    return app.screen


async def settled(pilot: Pilot[None], screen: MoverScreen, *phases: Phase) -> None:
    try:
        await wait_until(pilot, lambda: screen.phase in phases,
                         "/".join(p.name for p in phases), timeout=120)  # fmt: skip
    except AssertionError as exc:  # where the view is instead
        shown = screen.query_one("#mover-forecast").render()
        raise AssertionError(
            f"{exc} (at {screen.phase.name}: {shown}, {screen.progress})"
        ) from None


async def confirm_move(pilot: Pilot[None], screen: MoverScreen) -> None:
    await pilot.press("m")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfirmScreen), "the question")
    await pilot.press("y")


@pytest.fixture
def nas_lab(lab: Lab) -> Lab:  # noqa: F811 - the fixture
    """The lab with a layout file of its own name: the host's mover locks by that name
    in the host's lock folder, which every test worker's sshd shares."""
    return dataclasses.replace(lab, layout_path=lab.layout_path.with_name(
        f"lab-{uuid.uuid4().hex[:8]}.toml"))  # fmt: skip


@pytest.fixture
def nas(ssh_lab: Any) -> Iterator[SshHost]:
    host = SshHost(ssh_lab.alias)
    try:
        yield host
    finally:
        host.close()


def movers_on_host(layout_path: Path) -> list[str]:
    """The host's mover processes of this layout (the sshd runs on this machine)."""
    found = subprocess.run(["pgrep", "-af", f"mover run --layout {layout_path}"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    return [line for line in found.stdout.splitlines() if "pgrep" not in line]


async def test_the_hosts_own_tierdeck_forecasts_and_moves_by_keyboard(
    nas: SshHost,
    nas_lab: Lab,
) -> None:
    lab = nas_lab
    now = time.time()
    sums = {f"tv/e{i}.mkv": put(lab, f"tv/e{i}.mkv", MIB, now - 40 * DAY) for i in range(3)}
    put(lab, "new.mkv", KIB, now)
    save_layout(lab.layout_path, lab.layout)

    app = HostMoverApp(nas)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_layout(pilot, lab.layout_path)
        assert screen.on_host == nas.hostname and nas.hostname in screen.sub_title
        await settled(pilot, screen, Phase.READY)
        assert screen.forecast is not None
        planned = {(m.file.rel, m.reason) for m in screen.forecast.planned}
        assert planned == {(rel, MoveReason.AGE) for rel in sums}
        assert "Would move 3 files, 3.0M" in shown_text(screen.query_one("#mover-forecast"))
        assert_once_and_whole(lab, sums)  # a forecast moves nothing
        assert all((lab.cache / rel).exists() for rel in sums)

        await confirm_move(pilot, screen)
        await settled(pilot, screen, Phase.DONE)
        report = screen.report
        assert report is not None and report.ok and report.files_moved == 3, report
        assert screen.progress is not None and screen.progress.files_done == 3
        assert "Moved 3 files, 3.0M of 3 files planned" in shown_text(
            screen.query_one("#mover-report")
        )
        assert_once_and_whole(lab, sums)
        assert not any((lab.cache / rel).exists() for rel in sums)
        assert (lab.cache / "new.mkv").exists()

    # Opened again: the last run comes from the host's own history.
    again = HostMoverApp(nas)
    async with again.run_test(size=SIZE) as pilot:
        screen = await open_layout(pilot, lab.layout_path)
        await settled(pilot, screen, Phase.NOTHING)
        await wait_until(pilot, lambda: screen.last_run is not None, "the host's last run",
                         timeout=60)  # fmt: skip
        assert screen.last_run is not None and screen.last_run.files_moved == 3
    assert not movers_on_host(lab.layout_path)


@pytest.fixture
def slow_hdds(nas_lab: Lab) -> Iterator[None]:
    """The slow branches' disks at 2 MiB/s of writes for one test, so a move lasts long
    enough to be cancelled in the middle; the lab's HDD speed again after."""
    if not BLKIO.exists():
        pytest.skip("no v1 blkio cgroup to slow the lab's disks")
    devices = []
    for branch in nas_lab.slow:
        st = os.stat(branch)
        devices.append(f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}")
    try:
        for device in devices:
            BLKIO.write_text(f"{device} {2 * MIB}\n")
        yield
    finally:
        for device in devices:
            BLKIO.write_text(f"{device} {HddThrottle().write_bps}\n")


def forty_old_files(lab: Lab) -> dict[str, str]:
    """40 files due to move, and the layout saved: the engine's first group is 25,
    synced at 2 MiB/s (``slow_hdds``) for about 3 s, long enough to stop a move in."""
    now = time.time()
    sums = {f"f{i:02}": put(lab, f"f{i:02}", 256 * KIB, now - 40 * DAY) for i in range(40)}
    save_layout(lab.layout_path, lab.layout)
    return sums


async def move_under_way(pilot: Pilot[None], lab: Lab) -> MoverScreen:
    """The lab's layout opened, its move confirmed, and the host's progress shown."""
    screen = await open_layout(pilot, lab.layout_path)
    await settled(pilot, screen, Phase.READY)
    await confirm_move(pilot, screen)
    await wait_until(pilot, lambda: screen.progress is not None, "the host's progress",
                     timeout=60)  # fmt: skip
    return screen


async def test_cancel_stops_the_hosts_mover_cleanly(
    nas: SshHost,
    nas_lab: Lab,
    slow_hdds: None,
) -> None:
    lab = nas_lab
    sums = forty_old_files(lab)
    app = HostMoverApp(nas)
    async with app.run_test(size=SIZE) as pilot:
        screen = await move_under_way(pilot, lab)
        assert movers_on_host(lab.layout_path)
        await pilot.press("c")
        assert screen.phase is Phase.STOPPING
        await settled(pilot, screen, Phase.DONE)
        report = screen.report
        assert report is not None and report.stopped is StopReason.CANCELLED, report
        assert report.files_moved < len(sums)
        assert "Stopped: cancelled" in shown_text(screen.query_one("#mover-report"))
    # every file whole, in one place; no temp file, no mover left on the host
    assert_once_and_whole(lab, sums)
    assert sum((lab.cache / rel).exists() for rel in sums) == len(sums) - report.files_moved
    assert not movers_on_host(lab.layout_path)


class ComposeWayApp(Navigator, App[None]):
    """The compose screen's way (``v``): the layout saved on the host first. (Not a
    HostMoverApp: Textual would run that one's on_mount too.)"""

    CSS_PATH = HostMoverApp.CSS_PATH
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, host: Any, layout: Any) -> None:
        super().__init__()
        self.host = host
        self.tier_layout = layout

    def on_mount(self) -> None:
        from tierdeck.screens.layout.mover_support import save_and_open

        save_and_open(self.screen, self.tier_layout,
                      lambda path, layout: self.open_mover(layout, path), self.host)  # fmt: skip


async def test_compose_v_writes_the_layout_on_the_host_then_runs_its_mover(
    nas: SshHost,
    nas_lab: Lab,
    tmp_path: Path,
) -> None:
    lab = nas_lab
    from tierdeck.app.layout.files import load_layout

    put(lab, "old.mkv", MIB, time.time() - 40 * DAY)
    target = tmp_path / "on-the-host.toml"
    app = ComposeWayApp(nas, lab.layout)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_layout(pilot, target)
        assert load_layout(target) == lab.layout  # written there (the "NAS" is this machine)
        await settled(pilot, screen, Phase.READY)
        assert screen.forecast is not None and len(screen.forecast.planned) == 1


async def test_a_lost_link_stops_the_hosts_mover_cleanly(
    nas: SshHost,
    ssh_lab: Any,
    nas_lab: Lab,
    slow_hdds: None,
) -> None:
    lab = nas_lab
    sums = forty_old_files(lab)
    app = HostMoverApp(nas)
    async with app.run_test(size=SIZE) as pilot:
        screen = await move_under_way(pilot, lab)
        ssh_lab.kill_sessions()
        await settled(pilot, screen, Phase.FAILED)
        shown = shown_text(screen.query_one("#mover-forecast"))
        assert "lost" in shown and "told to stop" in shown, shown
    # The host's watcher TERMed its mover, which stopped the clean way on its own.
    wait_until_sync(lambda: not movers_on_host(lab.layout_path), "the host's mover to stop",
                    timeout=30)  # fmt: skip
    assert_once_and_whole(lab, sums)
    result = nas.run(["tierdeck", "mover", "history", "--layout", str(lab.layout_path),
                      "--json", "--limit", "1"])  # fmt: skip
    (last,) = json.loads(result.stdout)["runs"]
    assert last["dry_run"] is False and last["stopped"] == "cancelled", last


async def test_a_host_without_tierdeck_says_how_to_install_it(
    ssh_lab: Any,
    nas_lab: Lab,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lab = nas_lab
    from tests.support.sshd import SshLab

    save_layout(lab.layout_path, lab.layout)
    bare = SshLab.start(tmp_path / "bare", alias="bare",
                        session_env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})  # fmt: skip
    host = None
    try:
        monkeypatch.setenv("HOME", str(bare.home))
        host = SshHost("bare")
        app = HostMoverApp(host)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_layout(pilot, lab.layout_path)
            await settled(pilot, screen, Phase.FAILED)
            shown = shown_text(screen.query_one("#mover-forecast"))
            assert "tierdeck is not installed there" in shown, shown
            assert "scripts/setup.sh" in shown
            assert not screen.check_action("move", ())
    finally:
        if host is not None:
            host.close()
        bare.stop()
