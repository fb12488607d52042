"""A fleet row's last bench: that machine's newest ok run in this machine's history,
found by its machine id (one machine reached here or over SSH is one host)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tierdeck.app.fleet.status import last_bench
from tierdeck.app.history.store import HistoryStore
from tierdeck.core.bench_models import RunHost, RunStatus

from ..history.test_run_hosts import on


def test_the_newest_ok_run_of_that_machine_is_its_last_bench(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path))
    store = HistoryStore()
    store.save(on(RunHost("nas1", "local:4f1c0a"), 1_000_000.0, name="older"))
    newest = store.save(
        on(RunHost("nas1", "ssh:4f1c0a"), 1_000_000.0 + 3600, name="newest", preset=None)
    )
    store.save(on(RunHost("nas1", "ssh:4f1c0a"), 1_000_000.0 + 7200, status=RunStatus.FAILED))
    store.save(on(RunHost("nas2", "ssh:9b2e77"), 1_000_000.0 + 9000, name="other machine"))
    shown = last_bench("ssh:4f1c0a", now=1_000_000.0 + 3600 + 2 * 86400)
    assert shown == f"#{newest} newest, 2 d ago"
    assert last_bench("ssh:0000") is None


def test_no_history_is_no_last_bench(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIERDECK_DATA_DIR", str(tmp_path / "none"))
    assert last_bench("ssh:4f1c0a") is None
    assert not (tmp_path / "none").exists()
