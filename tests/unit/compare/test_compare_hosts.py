"""Runs of two machines compared: the host is a difference the panel, the CLI's table
and the JSON name, unless the "two" are one machine reached two ways (or renamed), or
a run does not say where it ran."""

from __future__ import annotations

import json
from dataclasses import replace

from tierdeck.app.compare.render import COMPARABLE, to_json
from tierdeck.core.bench_models import RunHost, RunResult
from tierdeck.core.compare.comparison import compare_runs
from tierdeck.core.compare.differences import DifferenceKind
from tierdeck.widgets.compare.panel import baseline_line, panel_renderable

from tests.unit.compare.test_compare_marks import text_of
from tests.unit.core.compare.test_compare import one_write_job, write_series

SERIES = write_series([400, 401, 399])


def on(run_id: int, host: RunHost) -> RunResult:
    return replace(one_write_job(run_id, 400, SERIES), host=host)


def test_runs_of_two_hosts_name_the_host_as_what_differs() -> None:
    comparison = compare_runs([on(1, RunHost("nas1", "ssh:aa")), on(2, RunHost("nas2", "ssh:bb"))])
    host = next(d for d in comparison.differences if d.key == "host")
    assert host.values == ("nas1", "nas2") and host.kind is DifferenceKind.HOST
    assert not comparison.comparable  # the machine stands for what no fingerprint holds
    panel = text_of(panel_renderable(comparison, 78))
    assert "What differs\nhost\n  #1 nas1  #2 nas2\n" in panel
    assert COMPARABLE not in panel
    assert "2: 1 differ" in baseline_line(comparison).plain
    doc = json.loads(json.dumps(to_json(comparison)))
    assert {"key": "host", "values": ["nas1", "nas2"], "kind": "host",
            "unknown": [False, False]} in doc["differences"]  # fmt: skip
    assert [r["host"] for r in doc["runs"]] == [
        {"name": "nas1", "id": "ssh:aa"},
        {"name": "nas2", "id": "ssh:bb"},
    ]


def test_one_machine_reached_locally_and_over_ssh_or_renamed_is_one_host() -> None:
    runs = [
        on(1, RunHost("nas1", "local:aa")),
        on(2, RunHost("nas1", "ssh:aa")),
        on(3, RunHost("tower", "ssh:aa")),  # renamed: the machine id stays
        on(4, RunHost("NAS1", "")),  # stored before ids were kept: by name
    ]
    comparison = compare_runs(runs[:3])
    assert not [d for d in comparison.differences if d.key == "host"]
    assert comparison.comparable
    assert compare_runs([runs[0], runs[3]]).comparable


def test_an_unknown_host_is_never_a_difference_by_itself() -> None:
    comparison = compare_runs([on(1, RunHost("nas1", "ssh:aa")), on(2, RunHost())])
    assert comparison.comparable
    three = compare_runs(
        [on(1, RunHost("nas1", "ssh:aa")), on(2, RunHost()), on(3, RunHost("nas2", "ssh:bb"))]
    )
    host = next(d for d in three.differences if d.key == "host")
    assert host.shown() == ("nas1", "-", "nas2")


def test_two_machines_sharing_a_name_are_told_apart_by_their_ids() -> None:
    comparison = compare_runs([on(1, RunHost("nas", "ssh:aa")), on(2, RunHost("nas", "ssh:bb"))])
    host = next(d for d in comparison.differences if d.key == "host")
    assert host.values == ("nas (ssh:aa)", "nas (ssh:bb)")
