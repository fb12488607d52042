"""The kept inventory: exact round trip, and garbage or another host's file is no snapshot."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.app.machine.snapshot import SCHEMA, SnapshotStore, age_text
from tierdeck.core.health import find_problems
from tierdeck.core.models import Inventory, Problem, Severity

IDENTITY = "recorded:/nas"


@pytest.fixture(scope="module")
def inventory() -> Inventory:
    return collect_inventory(load_demo_host())


def test_round_trip_is_exact(tmp_path: Path, inventory: Inventory) -> None:
    store = SnapshotStore(tmp_path)
    problems = (Problem(Severity.CRITICAL, "zpool cache", "pool is DEGRADED"),)
    store.save(IDENTITY, inventory, problems, taken_at=1_700_000_000.5)
    kept = store.load(IDENTITY)
    assert kept is not None
    assert kept.inventory == inventory  # enums, tuples, nested pools, dicts: all typed again
    assert kept.problems == problems and kept.taken_at == 1_700_000_000.5
    assert kept.age_seconds(now=1_700_000_012.5) == 12.0
    assert kept.age_seconds(now=0.0) == 0.0  # a clock set back: never negative


def test_each_host_has_its_own_file(tmp_path: Path, inventory: Inventory) -> None:
    store = SnapshotStore(tmp_path)
    store.save(IDENTITY, inventory, ())
    assert store.load("recorded:/other") is None
    # A file copied over another host's name is refused by the identity it holds.
    os.replace(store.path_for(IDENTITY), store.path_for("local:abc"))
    assert store.load("local:abc") is None


def test_the_cache_is_private(tmp_path: Path, inventory: Inventory) -> None:
    store = SnapshotStore(tmp_path / "fresh")
    store.save(IDENTITY, inventory, ())
    assert stat.S_IMODE(store.folder.stat().st_mode) == 0o700


def test_a_changed_model_or_schema_is_no_snapshot(tmp_path: Path, inventory: Inventory) -> None:
    store = SnapshotStore(tmp_path)
    store.save(IDENTITY, inventory, find_problems(inventory))
    path = store.path_for(IDENTITY)
    doc = json.loads(path.read_text())
    doc["inventory"]["disks"][0]["size_bytes"] = "big"  # a field whose type changed
    path.write_text(json.dumps(doc))
    assert store.load(IDENTITY) is None
    doc = json.loads(json.dumps(dataclasses.asdict(store.save(IDENTITY, inventory, ()))))
    doc["schema"] = "tierdeck.inventory-snapshot/99"
    path.write_text(json.dumps(doc, default=str))
    assert store.load(IDENTITY) is None
    assert SCHEMA.endswith("/1")


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=2048))
def test_garbage_is_no_snapshot(tmp_path: Path, garbage: bytes) -> None:
    store = SnapshotStore(tmp_path)
    store.folder.mkdir(parents=True, exist_ok=True)
    store.path_for(IDENTITY).write_bytes(garbage)
    assert store.load(IDENTITY) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.dictionaries(
        st.sampled_from(["schema", "identity", "taken_at", "inventory", "problems"]), json_values
    )
)
def test_well_formed_json_of_the_wrong_shape_is_no_snapshot(tmp_path: Path, doc: dict) -> None:  # type: ignore[type-arg]
    store = SnapshotStore(tmp_path)
    store.folder.mkdir(parents=True, exist_ok=True)
    store.path_for(IDENTITY).write_text(json.dumps(doc))
    assert store.load(IDENTITY) is None


def test_an_unwritable_cache_raises_oserror(tmp_path: Path, inventory: Inventory) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(OSError):
        SnapshotStore(blocker).save(IDENTITY, inventory, ())
    assert SnapshotStore(blocker).load(IDENTITY) is None


def test_the_cache_folder_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIERDECK_CACHE_DIR", str(tmp_path))
    assert SnapshotStore().folder == tmp_path / "inventory"
    monkeypatch.delenv("TIERDECK_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert SnapshotStore().folder == tmp_path / "xdg" / "tierdeck" / "inventory"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0 s"), (12.4, "12 s"), (89, "89 s"), (90, "2 min"), (3000, "50 min"),
     (5400, "2 h"), (7200, "2 h"), (129_600, "2 days")],
)  # fmt: skip
def test_age_text(seconds: float, text: str) -> None:
    assert age_text(seconds) == text
