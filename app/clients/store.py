"""A ``--clients`` run in the history: a run set (kind CLIENTS, tag ``clients:ID``)
with one run per host (that host as the run's host, so ``compare`` sets hosts side by
side) and one run for fio's "All clients" total. A host that failed is stored as a
failed run carrying its reason, so the set shows it was partial and why."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...core.bench_models import (
    BenchTarget,
    DirectionSummary,
    EnvFingerprint,
    RunHost,
    RunResult,
    RunStatus,
    TargetKind,
)
from ...core.jobspec import JobSpec
from ..history.run_sets import RunSetKind, RunSetStore, set_tag
from .run import ClientsResult, HostResult

AGGREGATE_KEY = "all-clients"


@dataclass(frozen=True)
class StoredClients:
    set_id: int
    run_ids: dict[str, int]  # host name -> its run
    aggregate_id: int | None


def host_key(name: str) -> str:
    return f"host:{name}"


def store_clients(
    store: RunSetStore,
    result: ClientsResult,
    jobs: Sequence[JobSpec],
    *,
    preset: str | None,
    name: str,
    machines: dict[str, RunHost],
    fio_version: str,
) -> StoredClients:
    definition = {
        "hosts": [{"host": h.name, "path": h.path} for h in result.hosts],
        "preset": preset,
        "partial": result.partial,
    }
    set_id = store.create(RunSetKind.CLIENTS, name, definition)
    tags = (set_tag(RunSetKind.CLIENTS, set_id),)
    env = EnvFingerprint(fio_version=fio_version)
    run_ids: dict[str, int] = {}
    for position, host in enumerate(result.hosts):
        run = host_run(host, jobs, preset, name, machines.get(host.name, RunHost()), env, tags)
        run_ids[host.name] = store.save(run)
        store.add_cell(set_id, host_key(host.name), run_ids[host.name], position, host.error)
    aggregate_id = None
    if result.aggregate:
        first = result.hosts[0]
        aggregate = RunResult(
            id=None,
            name=f"{name}: all clients",
            status=RunStatus(result.status),
            target=BenchTarget(
                path=",".join(f"{h.name}:{h.path}" for h in result.hosts),
                kind=TargetKind.PATH,
                label="all clients (" + ", ".join(h.name for h in result.hosts) + ")",
                disks=(),
            ),
            jobs=tuple(jobs),
            started_at=first.started_at,
            finished_at=first.finished_at,
            preset=preset,
            summary=dict(result.aggregate),
            env=env,
            tags=tags,
        )
        aggregate_id = store.save(aggregate)
        store.add_cell(set_id, AGGREGATE_KEY, aggregate_id, len(result.hosts))
    return StoredClients(set_id, run_ids, aggregate_id)


def host_run(
    host: HostResult,
    jobs: Sequence[JobSpec],
    preset: str | None,
    name: str,
    machine: RunHost,
    env: EnvFingerprint,
    tags: tuple[str, ...],
) -> RunResult:
    summary: dict[str, DirectionSummary] = dict(host.summary)
    return RunResult(
        id=None,
        name=f"{name}: {host.name}",
        status=host.status,
        target=BenchTarget(
            path=host.path, kind=TargetKind.PATH, label=f"{host.name}:{host.path}", disks=()
        ),
        jobs=tuple(jobs),
        started_at=host.started_at,
        finished_at=host.finished_at,
        preset=preset,
        error=host.error,
        fio_json=host.fio_json,
        summary=summary,
        env=env,
        tags=tags,
        host=machine,
    )


@dataclass(frozen=True)
class StoredRow:
    """One host of a stored set, or its total: what the set view lists."""

    label: str  # the host's name, or "all clients"
    run_id: int | None
    ok: bool
    summary: dict[str, DirectionSummary]
    why: str | None  # why it failed (render.row_line says it all on one line)


@dataclass(frozen=True)
class ClientsSet:
    set_id: int
    name: str
    rows: tuple[StoredRow, ...]  # the hosts in --clients order, then the total

    @property
    def comparable(self) -> list[int]:
        """The ok runs to set side by side (compare takes successful runs, at most
        MAX_RUNS): the hosts first, the total last when there is room."""
        from ...core.compare.comparison import MAX_RUNS

        hosts = [r.run_id for r in self.rows[:-1] if r.ok and r.run_id is not None]
        total = [r.run_id for r in self.rows[-1:] if r.ok and r.run_id is not None]
        return hosts[:MAX_RUNS] if len(hosts) >= MAX_RUNS else hosts + total


def load_clients(store: RunSetStore, set_id: int) -> ClientsSet:
    """A stored ``clients:ID`` set read back: HistoryError when there is none."""
    from ..history.store import HistoryError

    found = store.get_set(set_id)
    if found is None or found.kind is not RunSetKind.CLIENTS:
        raise HistoryError(f"no clients run set #{set_id} in the history")
    cells, notes = store.cells(set_id), store.notes(set_id)
    rows = []
    for host in found.definition.get("hosts", []):
        name = str(host.get("host"))
        rows.append(_row(store, name, cells.get(host_key(name)), notes.get(host_key(name))))
    rows.append(_row(store, "all clients", cells.get(AGGREGATE_KEY), None))
    return ClientsSet(set_id, found.name, tuple(rows))


def _row(store: RunSetStore, label: str, run_id: int | None, note: str | None) -> StoredRow:
    run = None if run_id is None else store.get(run_id, fio=False, devices=False)
    if run is None:
        return StoredRow(label, None, False, {}, note or "no run stored")
    if run.status is not RunStatus.OK:
        return StoredRow(label, run_id, False, {}, f"{run.status}: {run.error or note or '-'}")
    return StoredRow(label, run_id, True, dict(run.summary), None)
