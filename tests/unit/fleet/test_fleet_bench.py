"""``bench run --hosts``: which hosts and folders the options name, and how the runs go
(app/fleet/bench.py) with stand-ins for each machine's connection and benchmark: in
the order given, or all at once; a host that fails is reported and the others go on;
a cancel skips the hosts not started. The real machines: tests/integration/
test_fleet_bench.py."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from click.testing import CliRunner
from tierdeck.app.bench.service import BenchAsk
from tierdeck.app.cli.bench.hosts import host_names
from tierdeck.app.cli.bench.run import run_cmd
from tierdeck.app.cli.common import EXIT_REFUSED
from tierdeck.app.clients.plan import ClientSpot, client_spots
from tierdeck.app.fleet import bench as fleet_bench
from tierdeck.app.fleet.bench import HostDone, HostStarted, bench_hosts, named, partial
from tierdeck.app.fleet.config import FleetHost
from tierdeck.core.bench_models import (
    BenchRefused,
    BenchTarget,
    RunResult,
    RunStatus,
    TargetKind,
)
from tierdeck.core.errors import HostUnreachable

FLEET = (FleetHost("nas1", "admin@nas1"), FleetHost("nas2", "nas2"), FleetHost("backup", "bk"))


def test_all_is_every_fleet_host_in_its_order() -> None:
    assert host_names("all", FLEET) == ["nas1", "nas2", "backup"]
    assert host_names("nas2, backup", FLEET) == ["nas2", "backup"]
    with pytest.raises(ValueError, match="hosts.toml names no host"):
        host_names("all", ())


def test_targets_are_one_path_or_one_per_host() -> None:
    names = host_names("all", FLEET)
    assert client_spots(names, ["/srv/bench"], option="--hosts")[2] == ClientSpot(
        "backup", "/srv/bench"
    )
    with pytest.raises(ValueError, match="--target: no path for backup"):
        client_spots(names, ["nas1:/a", "nas2:/b"], option="--hosts")
    with pytest.raises(ValueError, match="elsewhere is not one of --hosts"):
        client_spots(names, ["elsewhere:/a"], option="--hosts")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--parallel"], "--parallel runs the hosts of --hosts at once: add --hosts"),
        (["--hosts", "all", "--clients", "a"], "choose one"),
        (["--hosts", "all", "--raw"], "--raw and --drop-caches are not for it"),
        (["--hosts", "all", "--drop-caches"], "--raw and --drop-caches are not for it"),
    ],
)
def test_host_options_are_checked_before_anything_runs(args: list[str], said: str) -> None:
    result = CliRunner().invoke(
        run_cmd, ["--preset", "nas-seqwrite-1m-qd8x8", "--target", "/srv/x", *args]
    )
    assert result.exit_code == EXIT_REFUSED
    assert said in result.output


def test_the_help_explains_hosts() -> None:
    result = CliRunner().invoke(run_cmd, ["--help"])
    text = " ".join(result.output.split())
    assert "--hosts all|HOST[,HOST...]" in text and "--parallel" in text
    assert "The runs are then compared (the table of tierdeck compare)" in text


# ------------------------------------------------------------------ the runs


def _result(target: str, status: RunStatus = RunStatus.OK) -> RunResult:
    return RunResult(
        id=None,
        name="run",
        status=status,
        target=BenchTarget(target, TargetKind.PATH, target, ()),
        jobs=(),
        started_at=0.0,
        finished_at=1.0,
    )


class FakeService:
    """BenchService on one stand-in machine: its plan and its run as the test says."""

    running: list[str] = []
    most_at_once = 0
    refuse: set[str] = set()
    together = 1  # a run waits (a while) for this many runs to be running at once

    def __init__(self, host: str, *, store: Any = None) -> None:
        self.host = host

    def plan(self, inventory: Any, ask: BenchAsk) -> BenchAsk:
        if self.host in self.refuse:
            raise BenchRefused(f"{ask.target} is not a directory")
        return ask

    async def run(self, inventory: Any, ask: BenchAsk, on_event: Any, cancel: Any) -> RunResult:
        FakeService.running.append(self.host)
        FakeService.most_at_once = max(FakeService.most_at_once, len(FakeService.running))
        # the others start meanwhile when the runs are parallel (each host connects in a
        # thread first, which a busy machine may hold up); one after the other they never do
        deadline = time.monotonic() + 10
        while FakeService.most_at_once < FakeService.together and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        FakeService.running.remove(self.host)
        return _result(ask.target)


@pytest.fixture
def machines(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Stand-ins: connecting returns the host's name (``down`` refuses it); the
    inventory is nothing; the service is FakeService."""
    FakeService.running, FakeService.most_at_once, FakeService.refuse = [], 0, set()
    FakeService.together = 1
    monkeypatch.setattr(fleet_bench, "BenchService", FakeService)
    monkeypatch.setattr(fleet_bench, "collect_inventory", lambda host: None)
    return []


def _connect(spot: ClientSpot) -> Any:
    if spot.name == "down":
        raise HostUnreachable("down", "Connect call failed ('10.0.0.9', 22)")
    return spot.name


def _go(names: list[str], *, parallel: bool, cancel: asyncio.Event | None = None) -> Any:
    spots = [ClientSpot(n, f"/srv/{n}") for n in names]
    seen: list[tuple[str, str]] = []

    def on_event(spot: ClientSpot, event: Any) -> None:
        seen.append((spot.name, type(event).__name__))

    async def go() -> Any:
        return await bench_hosts(
            spots,
            _connect,
            lambda s: BenchAsk(target=s.path, jobs=()),
            parallel=parallel,
            store=None,
            on_event=on_event,
            cancel=cancel or asyncio.Event(),
        )

    return asyncio.run(go()), seen


def test_one_host_at_a_time_by_default(machines: list[str]) -> None:
    outcomes, seen = _go(["nas1", "nas2"], parallel=False)
    assert [o.spot.name for o in outcomes] == ["nas1", "nas2"]
    assert all(o.ok for o in outcomes) and not partial(outcomes)
    assert FakeService.most_at_once == 1
    assert seen == [("nas1", "HostStarted"), ("nas1", "HostDone"),
                    ("nas2", "HostStarted"), ("nas2", "HostDone")]  # fmt: skip


def test_parallel_runs_every_host_at_once(machines: list[str]) -> None:
    FakeService.together = 3
    outcomes, _ = _go(["nas1", "nas2", "backup"], parallel=True)
    assert [o.spot.name for o in outcomes] == ["nas1", "nas2", "backup"]
    assert FakeService.most_at_once == 3


def test_a_host_down_or_refusing_fails_alone(machines: list[str]) -> None:
    FakeService.refuse = {"nas2"}
    outcomes, _ = _go(["down", "nas1", "nas2"], parallel=False)
    assert [o.ok for o in outcomes] == [False, True, False]
    assert outcomes[0].error == "down: Connect call failed ('10.0.0.9', 22)"
    assert outcomes[2].error == "nas2: refused: /srv/nas2 is not a directory"
    assert partial(outcomes)


def test_a_cancel_skips_the_hosts_not_started(machines: list[str]) -> None:
    cancel = asyncio.Event()
    cancel.set()
    outcomes, seen = _go(["nas1", "nas2"], parallel=False, cancel=cancel)
    assert [o.error for o in outcomes] == ["cancelled before it started"] * 2
    assert seen == []


def test_a_host_is_named_once() -> None:
    assert named("nas1", "nas1: no route") == "nas1: no route"
    assert named("nas1", "no route") == "nas1: no route"
    assert HostStarted(0, 2).total == 2 and HostDone.__name__ == "HostDone"
