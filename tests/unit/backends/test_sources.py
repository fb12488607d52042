"""Contract of the inventory sources (backends/sources.py), in psutil's habit: every
registered source, on every kind of host, returns its declared type and never raises;
the registry is consistent; and collect_inventory of the demo NAS is exactly what it was
before the registry existed (tests/fixtures/inventory/demo_inventory.json, captured with
the hard-coded collect_inventory of commit 46185ba).

After an intended change to the demo host or to the JSON shape, rewrite the golden file
with ``.venv/bin/python tests/unit/backends/test_sources.py --update`` and review its diff.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sys
import threading
import types
import typing
from collections.abc import Callable
from typing import Any

import pytest
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.backends.host import RecordedHost
from tierdeck.backends.sources import (
    DISKS,
    MD,
    MERGERFS,
    MOUNTS,
    SOURCES,
    Parts,
    ReaderSource,
    Source,
    check_registry,
    inventory_fields,
    read_guarded,
)
from tierdeck.core.errors import PermissionDenied, ToolFailed
from tierdeck.core.models import Inventory, SourceNote, ZfsInfo
from tierdeck.core.serialize import inventory_to_dict

from ...paths import FIXTURES as ALL_FIXTURES

GOLDEN = ALL_FIXTURES / "inventory" / "demo_inventory.json"


# --- a structural type check: value against a type expression, dataclasses recursively


def conforms(value: Any, tp: Any, where: str = "part") -> list[str]:
    """Where ``value`` is not of type ``tp`` (empty list: it is)."""
    if tp is Any or tp is object:
        return []
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (types.UnionType, typing.Union):
        if any(not conforms(value, arg, where) for arg in args):
            return []
        return [f"{where}: {value!r} is none of {tp}"]
    if tp is None or tp is type(None):
        return [] if value is None else [f"{where}: {value!r} is not None"]
    if origin is typing.Literal:
        return [] if value in args else [f"{where}: {value!r} not in {args}"]
    if origin is tuple:
        if not isinstance(value, tuple):
            return [f"{where}: {type(value).__name__} is not a tuple"]
        if len(args) == 2 and args[1] is Ellipsis:
            return [e for i, v in enumerate(value) for e in conforms(v, args[0], f"{where}[{i}]")]
        if len(args) != len(value):
            return [f"{where}: {len(value)} items, {tp} has {len(args)}"]
        return [
            e
            for i, (v, a) in enumerate(zip(value, args, strict=True))
            for e in conforms(v, a, f"{where}[{i}]")
        ]
    if origin in (dict, list):
        if not isinstance(value, origin):
            return [f"{where}: {type(value).__name__} is not a {origin.__name__}"]
        if origin is list:
            return [e for i, v in enumerate(value) for e in conforms(v, args[0], f"{where}[{i}]")]
        return [
            e
            for k, v in value.items()
            for e in conforms(k, args[0], f"{where} key") + conforms(v, args[1], f"{where}[{k!r}]")
        ]
    if tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"{where}: {value!r} is not a float"]
    if tp is int and isinstance(value, bool):
        return [f"{where}: {value!r} is a bool, not an int"]
    if not isinstance(value, tp):
        return [f"{where}: {type(value).__name__} is not {getattr(tp, '__name__', tp)}"]
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return [
            e
            for f in dataclasses.fields(tp)
            for e in conforms(getattr(value, f.name), hints[f.name], f"{where}.{f.name}")
        ]
    return []


def test_conforms_sees_a_wrong_type() -> None:
    assert conforms((SourceNote("a", "b"),), tuple[SourceNote, ...]) == []
    assert conforms([], tuple[int, ...])
    assert conforms((1, "x"), tuple[int, ...])
    assert conforms(SourceNote("a", 1), SourceNote)  # type: ignore[arg-type]
    assert conforms({"a": ("b",)}, dict[str, tuple[str, ...]]) == []
    assert conforms(ZfsInfo(available=False), ZfsInfo) == []


# --- hosts: the demo NAS, an empty recording, one that refuses every call


class DenyingHost:
    """Every read is refused, as for a user without rights anywhere."""

    hostname, kernel, is_root = "denied", "6.0", False

    def gathering(self) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()  # reads nothing itself: each read is refused

    def __getattr__(self, name: str) -> Callable[..., Any]:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise PermissionDenied(f"{name}{args}")

        return refuse


@pytest.fixture(scope="module")
def empty_host(tmp_path_factory: pytest.TempPathFactory) -> RecordedHost:
    folder = tmp_path_factory.mktemp("empty_host")
    (folder / "host.json").write_text("{}", encoding="utf-8")
    return RecordedHost(folder)


@pytest.fixture(scope="module", params=["demo", "empty", "denying"])
def host(request: pytest.FixtureRequest, empty_host: RecordedHost) -> Any:
    return {"demo": load_demo_host, "empty": lambda: empty_host, "denying": DenyingHost}[
        request.param
    ]()


def read_all(host: Any, *, guarded: bool) -> dict[str, tuple[Any, Any]]:
    """Every source in registry order, each given only the parts it declared."""
    results: dict[str, tuple[Any, Any]] = {}
    for source in SOURCES:
        parts = Parts({name: results[name][0] for name in source.needs})
        read = read_guarded(source, host, parts) if guarded else source.read(host, parts)
        results[source.name] = read
    return results


# --- the contract


def test_registry_order_names_and_fields() -> None:
    check_registry(SOURCES)
    names = [s.name for s in SOURCES]
    assert len(set(names)) == len(names)
    for i, source in enumerate(SOURCES):
        assert set(source.needs) <= set(names[:i]), source.name
    filled = [f for s in SOURCES for f in s.fills]
    inventory = {f.name for f in dataclasses.fields(Inventory)}
    assert sorted(filled) == sorted(inventory - {"hostname", "kernel", "is_root", "notes"})
    # What runs commands goes to a thread; the sysfs/procfs readers do not claim to.
    by_name = {s.name: s for s in SOURCES}
    assert by_name["zfs"].runs_commands and by_name["disks"].runs_commands
    assert not any(by_name[n].runs_commands for n in ("mounts", "mergerfs", "btrfs", "md"))
    assert {"mergerfs", "btrfs"} <= {s.name for s in SOURCES if "mounts" in s.needs}


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: s.name)
def test_every_source_returns_its_declared_type_and_never_raises(
    source: Source[Any], host: Any
) -> None:
    guarded = isinstance(host, DenyingHost)  # refusals may raise: read_guarded catches
    part, notes = read_all(host, guarded=guarded)[source.name]
    assert conforms(part, source.part_type) == []
    assert conforms(notes, tuple[SourceNote, ...]) == []
    assert conforms(source.empty(), source.part_type) == []
    fields = inventory_fields(source, part)
    assert tuple(fields) == source.fills
    hints = typing.get_type_hints(Inventory)
    for name, value in fields.items():
        assert conforms(value, hints[name], name) == []


def test_demo_host_reads_without_a_note() -> None:
    results = read_all(load_demo_host(), guarded=False)
    assert {name: notes for name, (_, notes) in results.items() if notes} == {}
    assert [len(results[n][0]) for n in ("disks", "mounts", "mergerfs", "btrfs", "md")] == [
        12, 21, 2, 0, 0,
    ]  # fmt: skip


def test_a_source_sees_only_what_it_declared() -> None:
    with pytest.raises(KeyError, match="declare it in `needs`"):
        MERGERFS.read(load_demo_host(), Parts())


def test_collect_inventory_of_the_demo_host_is_unchanged() -> None:
    inv = collect_inventory(load_demo_host())
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert json.loads(json.dumps(inventory_to_dict(inv))) == golden["json"]
    assert inv.dev_names == golden["dev_names"]
    assert inv.slaves == {k: tuple(v) for k, v in golden["slaves"].items()}
    assert list(inv.dev_names) == list(golden["dev_names"])  # same order too


def test_collect_inventory_of_an_empty_and_a_denying_host(empty_host: RecordedHost) -> None:
    inv = collect_inventory(empty_host)
    assert (inv.disks, inv.mounts, inv.mergerfs, inv.btrfs, inv.md) == ((), (), (), (), ())
    assert (inv.dev_names, inv.slaves) == ({}, {})
    assert [n.source for n in inv.notes] == ["disks", "mounts"]
    assert inv.zfs.available is False and inv.zfs.message
    denied = collect_inventory(DenyingHost())  # type: ignore[arg-type]
    assert denied.hostname == "denied" and denied.disks == ()
    assert {n.source for n in denied.notes} >= {"disks", "mounts"}


# --- collect_inventory's rules: failure -> note + empty section, threads, bugs


def replaced(name: str, **changes: Any) -> tuple[Source[Any], ...]:
    return tuple(
        dataclasses.replace(s, **changes) if s.name == name else s  # type: ignore[type-var]
        for s in SOURCES
    )


def refuse(host: Any, parts: Parts) -> Any:
    raise PermissionDenied("/proc/mdstat")


def test_a_failing_source_is_a_note_and_an_empty_section() -> None:
    inv = collect_inventory(load_demo_host(), replaced("md", reader=refuse))
    assert inv.md == ()
    assert inv.notes == (SourceNote("md", "permission denied: /proc/mdstat (try as root)"),)
    assert len(inv.disks) == 12 and inv.zfs.pools  # the rest is all there


def test_a_failing_zfs_says_so_in_its_section(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(host: Any) -> ZfsInfo:
        raise ToolFailed(["zpool", "status"], 1, "no pools\n")

    monkeypatch.setattr("tierdeck.backends.sources.read_zfs", broken)
    inv = collect_inventory(load_demo_host())
    assert inv.zfs == ZfsInfo(available=False, message="zpool status exited 1: no pools")
    assert inv.notes == ()  # as before the registry: the section carries the message
    assert len(inv.disks) == 12


def test_command_runners_run_in_threads_and_the_rest_in_the_caller() -> None:
    seen: dict[str, bool] = {}
    caller = threading.current_thread()

    def spy(source: ReaderSource[Any]) -> Callable[[Any, Parts], Any]:
        def read(host: Any, parts: Parts) -> Any:
            seen[source.name] = threading.current_thread() is not caller
            return source.reader(host, parts)

        return read

    sources = tuple(dataclasses.replace(s, reader=spy(s)) for s in SOURCES)  # type: ignore[type-var]
    inv = collect_inventory(load_demo_host(), sources)
    assert seen == {s.name: s.runs_commands for s in SOURCES}
    assert inv == collect_inventory(load_demo_host())


def test_a_bug_propagates_and_no_worker_waits_forever() -> None:
    """A bug (not a host error) in a source read in the caller's thread, while a thread
    source waits for it: the bug comes out, nothing hangs."""

    def bug(host: Any, parts: Parts) -> Any:
        raise RuntimeError("bug in mounts")

    sources = tuple(
        dataclasses.replace(s, reader=bug)
        if s is MOUNTS
        else dataclasses.replace(s, runs_commands=True)
        if s is MERGERFS
        else s
        for s in SOURCES
    )  # type: ignore[type-var]
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            collect_inventory(load_demo_host(), sources)
        except BaseException as exc:  # noqa: BLE001 - the outcome is the test
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "collect_inventory hung"
    assert [type(e) for e in outcome] == [RuntimeError]


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        ((DISKS, DISKS), "two sources are named 'disks'"),
        ((MERGERFS, MOUNTS), "'mergerfs' needs 'mounts', which is not read before it"),
        (
            SOURCES + (dataclasses.replace(MD, name="lvm"),),
            "'md' is filled by both 'md' and 'lvm'",
        ),
        (
            SOURCES + (dataclasses.replace(MD, name="lvm", fills=()),),
            "'lvm' fills 'lvm', which is not a field of core.models.Inventory",
        ),
        (tuple(s for s in SOURCES if s is not MD), "no source fills Inventory field\\(s\\) md"),
    ],
)
def test_check_registry_refuses_a_bad_registry(sources: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_registry(sources)
    with pytest.raises(ValueError, match=message):
        collect_inventory(load_demo_host(), sources)


def _write_golden() -> None:
    inv = collect_inventory(load_demo_host())
    data = {
        "json": inventory_to_dict(inv),
        "dev_names": inv.dev_names,
        "slaves": {k: list(v) for k, v in inv.slaves.items()},
    }
    GOLDEN.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    _write_golden()
