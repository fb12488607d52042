"""The pure parts of a ``--clients`` run: hosts and folders from the options, fio's
client-mode report split by server, the total, the version check, the JSON's keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tierdeck.app.clients.plan import ClientSpot, check_versions, client_spots, ssh_target
from tierdeck.app.clients.render import clients_json
from tierdeck.app.clients.run import ClientsResult, HostResult, aggregate_summary, server_file_name
from tierdeck.app.fleet.config import FleetHost
from tierdeck.backends.fio.client_stats import read_client_report, split_client_stats
from tierdeck.core.bench_models import BenchRefused, DirectionSummary, RunStatus
from tierdeck.core.errors import ParseError

# fio 3.33's JSON of one job on two servers (fio --client=A job --client=B job), trimmed
RECORDED = Path(__file__).parents[2] / "fixtures" / "fio" / "fio333_client_stats.json"


def test_one_path_for_every_host_or_one_per_host() -> None:
    assert client_spots("a, b", ["/srv/x/"]) == [
        ClientSpot("a", "/srv/x"),
        ClientSpot("b", "/srv/x"),
    ]
    assert client_spots("a,b", ["b:/y", "a:/x"]) == [ClientSpot("a", "/x"), ClientSpot("b", "/y")]
    assert client_spots("user@nas:2222", ["user@nas:2222:/x"]) == [
        ClientSpot("user@nas:2222", "/x")
    ]


@pytest.mark.parametrize(
    ("clients", "targets", "said"),
    [
        ("a,,b", ["/x"], "empty host"),
        ("a,a", ["/x"], "named twice"),
        ("a,b", ["a:/x"], "no path for b"),
        ("a", ["c:/x"], "not one of --clients"),
        ("a", ["a:x"], "HOST:PATH"),
        ("a", ["a:/x", "a:/y"], "given twice"),
    ],
)
def test_wrong_targets_say_what_is_wrong(clients: str, targets: list[str], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        client_spots(clients, targets)


def test_the_report_is_split_by_server_port() -> None:
    reports = read_client_report("<vm> Starting 1 process\n" + RECORDED.read_text())
    assert sorted(reports.by_port) == [18765, 18766]
    data = json.loads(RECORDED.read_text())
    for port, report in reports.by_port.items():
        entry = next(
            c for c in data["client_stats"] if c.get("port") == port and c["jobname"] == "w"
        )
        assert report.write.bw_bytes == entry["write"]["bw_bytes"]
        assert reports.documents[port]["jobs"] == [entry]
    assert reports.all_clients is not None
    assert reports.all_clients.write.bw_bytes > 0


def test_a_local_report_is_not_a_client_report() -> None:
    with pytest.raises(ParseError, match="client_stats"):
        split_client_stats({"fio version": "fio-3.33", "jobs": []})
    with pytest.raises(ParseError):
        read_client_report("fio: no such file\n")


def _host(
    name: str, bw: int, iops: float, mean: float, status: RunStatus = RunStatus.OK
) -> HostResult:
    summary = {"write": DirectionSummary(bw, iops, mean, 900)} if status is RunStatus.OK else {}
    return HostResult(name, "/x", status, summary, None, None, 0.0, 1.0)


def test_the_total_is_the_sum_of_the_hosts() -> None:
    hosts = [_host("a", 100, 10.0, 50.0), _host("b", 300, 30.0, 10.0)]
    fio_total = {"write": DirectionSummary(390, 39.0, 20.0, None)}
    total = aggregate_summary(hosts, fio_total)["write"]
    assert (total.bw_bytes, total.iops, total.lat_mean_ns, total.lat_p99_ns) == (
        400,
        40.0,
        20.0,
        None,
    )
    # a failed host counts for nothing; the mean is then the ok hosts' own
    lost = aggregate_summary([hosts[0], _host("b", 0, 0, 0, RunStatus.FAILED)], fio_total)["write"]
    assert (lost.bw_bytes, lost.lat_mean_ns, lost.lat_p99_ns) == (100, 50.0, 900)


def test_a_server_file_keeps_its_client_address_in_front() -> None:
    assert server_file_name("127.0.0.1..tierdeck-bench.w.0.0") == ".tierdeck-bench.w.0.0"
    assert server_file_name(".tierdeck-bench.w.0.0") == ".tierdeck-bench.w.0.0"
    assert server_file_name("127.0.0.1.photos.jpg") is None


def test_different_fio_versions_are_refused_naming_both() -> None:
    check_versions({"here": "fio-3.33", "a": "fio-3.33"})
    with pytest.raises(BenchRefused, match="here has fio-3.33, a has fio-3.28"):
        check_versions({"here": "fio-3.33", "a": "fio-3.28"})


def test_the_json_has_the_documented_keys() -> None:
    hosts = (_host("a", 100, 10.0, 5.0), _host("b", 0, 0, 0, RunStatus.FAILED))
    result = ClientsResult(hosts, aggregate_summary(hosts, None), RunStatus.OK, 0.5)
    out = clients_json(result, None)
    assert list(out) == ["schema", "id", "hosts", "aggregate"]
    assert out["schema"] == "tierdeck.clients/1"
    assert [list(h) for h in out["hosts"]] == [["host", "run_id", "summary", "status", "error"]] * 2
    assert list(out["aggregate"]) == ["summary"]
    assert out["hosts"][1]["status"] == "failed"
    assert list(out["hosts"][0]["summary"]) == ["read", "write", "trim"]


def test_a_fleet_name_connects_to_its_ssh_target() -> None:
    fleet = (FleetHost("plex", "admin@plex.lan:2222"),)
    assert ssh_target("plex", fleet) == "admin@plex.lan:2222"
    assert ssh_target("nas", fleet) == "nas"  # an ssh alias as it is
