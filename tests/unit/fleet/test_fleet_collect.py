"""The fleet's rows: every host asked at once, a slow or broken one never holding the
others, and each answer made into pools, problems and cache fill."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest
from tierdeck.app.fleet.collect import Fleet
from tierdeck.app.fleet.config import FleetHost
from tierdeck.app.fleet.render import fleet_dict, fleet_text, row_cells
from tierdeck.app.fleet.status import CacheState, HostStatus, cache_states, host_status
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.backends.host import Host, RecordedHost
from tierdeck.core.errors import HostUnreachable
from tierdeck.core.models import Inventory

GOOD, BROKEN, SILENT = (
    FleetHost("nas", "nas"),
    FleetHost("old", "root@old"),
    FleetHost("mute", "mute"),
)


@pytest.fixture(scope="module")
def demo() -> tuple[RecordedHost, Inventory]:
    host = load_demo_host()
    return host, collect_inventory(host)


class _Fakes:
    """connect/collect stand-ins: the demo NAS, a refusal, and a host that hangs
    until the test lets it go (then the fleet must close what it made)."""

    def __init__(self, demo: tuple[RecordedHost, Inventory]) -> None:
        self.host, self.inventory = demo
        self.release = threading.Event()
        self.closed: list[str] = []

    def connect(self, entry: FleetHost, timeout: float) -> Host:
        if entry is BROKEN:
            raise HostUnreachable(entry.ssh, "the server refused every key")
        fakes = self

        class Closing(RecordedHost):
            def close(self) -> None:
                fakes.closed.append(entry.name)

        host = Closing(self.host.root.parent)
        host.name = entry.name  # type: ignore[attr-defined]
        return host

    def collect(self, host: Host) -> Inventory:
        if getattr(host, "name", "") == SILENT.name:
            self.release.wait(30)
        return self.inventory


def test_every_host_has_its_row_and_a_silent_one_does_not_hold_the_others(
    demo: tuple[RecordedHost, Inventory],
) -> None:
    fakes = _Fakes(demo)
    fleet = Fleet((GOOD, BROKEN, SILENT), timeout=0.5, connect=fakes.connect, collect=fakes.collect)
    seen: list[str] = []
    statuses = fleet.collect(lambda s: seen.append(s.name))
    assert [s.name for s in statuses] == ["nas", "old", "mute"]  # the file's order
    good, broken, silent = statuses
    assert good.reachable and good.error is None and good.pools
    assert not broken.reachable and broken.error == "root@old: the server refused every key"
    assert not silent.reachable and silent.error == "no answer within 0.5 s"
    assert seen[-1] == "mute" and sorted(seen) == ["mute", "nas", "old"]
    assert (
        fleet.host("nas") is not None and fleet.host("old") is None and fleet.host("mute") is None
    )
    fakes.release.set()  # the silent host answers late: its link is closed, never kept
    for thread in threading.enumerate():
        if thread.name == "fleet mute":
            thread.join(10)
    assert fakes.closed == ["mute"] and fleet.host("mute") is None
    fleet.close()
    assert fakes.closed == ["mute", "nas"]


def test_a_collection_that_raises_is_that_hosts_error(demo: tuple[RecordedHost, Inventory]) -> None:
    fakes = _Fakes(demo)

    def failing(host: Host) -> Inventory:
        raise OSError(5, "Input/output error", "/proc/self/mountinfo")

    [status] = Fleet((GOOD,), connect=fakes.connect, collect=failing).collect()
    assert status.error == "/proc/self/mountinfo: Input/output error"
    assert fakes.closed == ["nas"]  # a host that failed is not kept


def test_the_demo_nas_row(demo: tuple[RecordedHost, Inventory]) -> None:
    host, inv = demo
    status = host_status(GOOD, host, inv, 0.25)
    kinds = {p.kind for p in status.pools}
    assert {"zfs", "mergerfs"} <= kinds
    for pool in status.pools:
        assert pool.health in ("ok", "info", "warning", "critical")
    # no layout applied on the demo (no fstab block): each mergerfs pool's own fill
    assert [c.pool for c in status.cache] == [p.mountpoint for p in inv.mergerfs]
    assert all(c.high_pct is None for c in status.cache)
    document = fleet_dict([status], 10.0)
    assert document["schema"] == "tierdeck.fleet/1"
    row = document["hosts"][0]
    assert {"name", "target", "reachable", "error", "problems", "pools"} <= set(row)
    assert row["problems"] == [{"severity": str(p.severity), "subject": p.subject,
                                "message": p.message} for p in status.problems]  # fmt: skip


def test_a_pool_is_as_healthy_as_the_worst_problem_naming_it(
    demo: tuple[RecordedHost, Inventory],
) -> None:
    from tierdeck.app.fleet.status import pool_states
    from tierdeck.core.models import Problem, Severity

    _, inv = demo
    pool = inv.mergerfs[0].mountpoint
    problems = (
        Problem(Severity.WARNING, f"mergerfs {pool} branch /x", "below minfreespace"),
        Problem(Severity.CRITICAL, f"mergerfs {pool}x", "another pool whose name starts so"),
    )
    states = {p.name: p for p in pool_states(inv, problems)}
    assert states[pool].health == "warning"


def test_a_layout_tierdeck_applied_gives_the_cache_against_the_watermarks(
    demo: tuple[RecordedHost, Inventory],
) -> None:
    from tierdeck.app.layout import applied
    from tierdeck.core.layout.model import MoverPolicy

    host, inv = demo
    pool = inv.mergerfs[0]
    cache = pool.branches[0].path
    tiers = applied.AppliedTiers(
        (cache,),
        pool.branches[1:],
        None,
        MoverPolicy((cache,), "/slow", fill_high_pct=2, fill_low_pct=1),
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("tierdeck.app.fleet.status.read_applied_tiers",
                      lambda h, p: tiers if p == pool else None)  # fmt: skip
        states = cache_states(host, inv)
    first = states[0]
    assert first.high_pct == 2 and first.low_pct == 1
    from tierdeck.app.layout.fill import cache_fills

    assert first.used_pct == cache_fills(inv, (cache,))[0].used_pct  # the branch, not the pool
    assert not first.above_high  # the demo's cache is nearly empty
    assert CacheState("/p", 2.5, 2, 1).above_high and not CacheState("/p", 2.5).above_high


def test_cells_and_text_table() -> None:
    up = HostStatus("nas", "nas", True, hostname="nas",
                    cache=(CacheState("/mnt/storage", 55.0, 80, 60), CacheState("/p", 90.0)))  # fmt: skip
    down = HostStatus("attic", "root@10.0.0.9", False, error="root@10.0.0.9: Connection refused")
    assert row_cells(up) == ("nas", "up", "none", "none", "55% <=80", "")
    assert row_cells(down)[2] == "Connection refused"
    assert row_cells(replace(up, cache=(CacheState("/p", 90.0),)))[4] == "90% pool"
    lines = fleet_text([up, down]).split("\n")
    assert lines[0].split() == ["host", "state", "problems", "pools", "cache", "last", "bench"]
    assert lines[2].split() == ["attic", "down", "Connection", "refused"]
    assert all(len(line) <= 30 for line in fleet_text([up, down], 30).split("\n"))


def test_a_row_reads_what_it_shows_and_shows_what_the_dashboard_would(
    demo: tuple[RecordedHost, Inventory],
) -> None:
    from tierdeck.app.fleet.collect import row_inventory, row_sources
    from tierdeck.app.fleet.status import pool_states, safe_problems

    host, whole = demo
    assert not any(s.runs_commands for s in row_sources())  # one shell on the host
    row = row_inventory(host)
    assert row.disks == () and row.dev_names == {}  # no row shows them
    assert safe_problems(row) == safe_problems(whole)
    assert pool_states(row, safe_problems(row)) == pool_states(whole, safe_problems(whole))
    assert cache_states(host, row) == cache_states(host, whole)


def test_a_host_that_wants_a_secret_says_so_and_a_sign_in_is_kept(
    demo: tuple[RecordedHost, Inventory],
) -> None:
    from tierdeck.core.errors import SecretNeeded

    fakes = _Fakes(demo)
    signed: list[str] = []

    def connect(entry: FleetHost, timeout: float) -> Host:
        if entry is BROKEN:
            raise SecretNeeded(entry.ssh, "a password")
        return fakes.connect(entry, timeout)

    def sign_in(entry: FleetHost, timeout: float, prompt: object) -> Host:
        signed.append(entry.name)
        return fakes.connect(GOOD, timeout)

    fleet = Fleet((GOOD, BROKEN), connect=connect, sign_in=sign_in, collect=fakes.collect)
    _, old = fleet.collect()
    assert not old.reachable and old.needs_secret == "a password"
    assert old.error == "needs a password: sign in with tierdeck --host old (it asks for it)"
    # the screen's row says enter signs in; the command's says what to run
    assert row_cells(old, screen=True)[1:3] == ("login", "needs a password (enter to sign in)")
    assert "tierdeck --host old" in fleet_text([old])
    assert fleet_dict([old], 10)["hosts"][0]["needs_secret"] == "a password"

    status = fleet.sign_in("old", lambda question: "secret")
    assert status.reachable and fleet.host("old") is not None and signed == ["old"]
    kept = fleet.host("old")
    _, again = fleet.collect()  # the next round reads it on its kept link: not asked again
    assert again.reachable and fleet.host("old") is kept and signed == ["old"]
    fleet.close()
    assert fakes.closed.count("nas") == 3  # the two rounds' "nas", and the signed-in one
