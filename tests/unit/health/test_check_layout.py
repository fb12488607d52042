"""`tierdeck check --layout`: the cache fill against the mover's watermarks, and the
mover's last run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from tierdeck.app.health.check import layout_items, overall, summary_line
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.app.mover.history import MoverHistory, default_mover_path
from tierdeck.backends.host import RecordedHost
from tierdeck.core.disk_health import HealthState
from tierdeck.core.models import Inventory, Mount

from tests.support.mover_tree import small_disk_layout
from tests.support.recording import HostRecording
from tests.unit.mover.test_mover_history import record

NOW = 1_790_000_000.0


def _inventory(tmp_path: Path, cache: Path, used_pct: int) -> Inventory:
    """An empty machine's inventory with the cache branch's mount, ``used_pct`` full."""
    folder = tmp_path / f"host-{used_pct}"
    empty = collect_inventory(RecordedHost(HostRecording(folder).write()))
    mount = Mount(1, 0, "0:50", "/", str(cache), "ext4", "/dev/sdz1", ("rw",), ("rw",),
                  size_bytes=100, used_bytes=used_pct, avail_bytes=100 - used_pct)  # fmt: skip
    return replace(empty, mounts=(mount,))


def test_cache_fill_and_the_movers_last_run(tmp_path: Path, data_dir: Path) -> None:
    cache = tmp_path / "cache"
    layout = small_disk_layout(cache, (tmp_path / "d1",), tmp_path / "pool", tmp_path / "slow")
    path = tmp_path / "media.toml"
    items = layout_items(layout, path, _inventory(tmp_path, cache, 50), default_mover_path(), NOW)
    assert [(i.subject, i.state) for i in items] == [
        (f"cache {cache}", HealthState.OK),
        ("mover", HealthState.WARNING),  # never ran
    ]
    history = MoverHistory()
    history.add(record(str(path.resolve()), NOW - 7200, refused="the layout check failed"))
    items = layout_items(
        layout, path, _inventory(tmp_path, cache, layout.mover.fill_high_pct + 5), history.path, NOW
    )
    assert [i.state for i in items] == [HealthState.WARNING, HealthState.WARNING]
    assert items[1].reasons == ("last run 2 h ago failed: the layout check failed",)
    history.add(record(str(path.resolve()), NOW - 3600))
    items = layout_items(layout, path, _inventory(tmp_path, cache, 98), history.path, NOW)
    assert [i.state for i in items] == [HealthState.CRITICAL, HealthState.OK]
    line = summary_line(items, overall(items))
    assert line.startswith(f"TIERDECK CRITICAL - cache {cache}: 98 % full")


def test_without_a_layout_file_the_applied_layouts_are_checked(
    tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierdeck.app.health.check import applied_items
    from tierdeck.app.layout import applied
    from tierdeck.app.machine.demo import load_demo_host
    from tierdeck.core.layout.model import MoverPolicy

    host = load_demo_host()
    inv = collect_inventory(host)
    pool = inv.mergerfs[0]
    cache = pool.branches[0].path
    tiers = applied.AppliedTiers((cache,), pool.branches[1:], None,
                                 MoverPolicy((cache,), "/slow", fill_high_pct=1, fill_low_pct=0))  # fmt: skip
    monkeypatch.setattr("tierdeck.app.health.check.read_applied_tiers",
                        lambda h, p: tiers if p == pool else None)  # fmt: skip
    monkeypatch.setattr("tierdeck.app.health.check.mover_layout_path",
                        lambda h, p: "/etc/tierdeck/media.toml")  # fmt: skip
    items = applied_items(host, inv, default_mover_path(), NOW)
    assert [i.subject for i in items] == [f"cache {cache}", "mover"]
    assert items[0].state is HealthState.OK  # the demo's cache is nearly empty
    assert items[1].reasons == ("the mover has never run",)
    assert not default_mover_path().exists()  # a check creates no history
    assert applied_items(host, inv, None, NOW) == items[:1]  # another machine's: no mover item
