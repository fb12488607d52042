"""What a ``--clients`` run shows while it runs: each host's disks under its folder,
the total over distinct disks, where each folder is; and the recording that shows why
the live figures cannot come from fio's client."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tierdeck.app.clients.live import (
    ALL_CLIENTS,
    Activity,
    activity,
    folder_place,
    tick,
    tick_line,
)
from tierdeck.app.clients.run import merged_p99
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.backends.diskstats import DiskCounters
from tierdeck.backends.fio.json_documents import split_documents
from tierdeck.backends.fio.stream import parse_report
from tierdeck.core.models import Inventory, Mount

FIO = Path(__file__).parents[2] / "fixtures" / "fio"


def _disk(name: str, *, reads: int = 0, sectors_read: int = 0, read_ms: int = 0,
          writes: int = 0, sectors_written: int = 0, write_ms: int = 0) -> DiskCounters:  # fmt: skip
    return DiskCounters(8, 0, name, reads, 0, sectors_read, read_ms, writes, 0,
                        sectors_written, write_ms, 0, 0, 0)  # fmt: skip


def test_an_interval_of_disk_activity() -> None:
    before = _disk("sda", reads=100, sectors_read=1000, read_ms=50, writes=10, write_ms=5)
    after = _disk("sda", reads=300, sectors_read=5096, read_ms=250, writes=10, write_ms=5)
    seen = activity([(before, after)], 2.0)
    assert seen == Activity(bw_bytes_per_s=4096 * 512 / 2, iops=100.0, lat_mean_ns=1e6)


def test_no_io_has_no_latency_and_a_wrapped_counter_counts_nothing() -> None:
    idle = activity([(_disk("sda"), _disk("sda"))], 1.0)
    assert idle == Activity(0.0, 0.0, None)
    wrapped = activity([(_disk("sda", writes=50, sectors_written=900), _disk("sda", writes=3))], 1)
    assert wrapped == Activity(0.0, 0.0, None)
    assert activity([(_disk("sda"), _disk("sda"))], 0.0) is None


def test_one_machine_under_two_names_counts_its_disk_once() -> None:
    before = {"a": {"vda": _disk("vda")}, "b": {"vda": _disk("vda")}}
    moved = _disk("vda", writes=10, sectors_written=2048, write_ms=20)
    after = {"a": {"vda": moved}, "b": {"vda": moved}}
    same = tick(3.0, 1.0, {"a": ("id1", ("vda",)), "b": ("id1", ("vda",))}, before, after)
    assert same.hosts["a"] == same.hosts["b"] == same.total
    assert same.total is not None and same.total.bw_bytes_per_s == 2048 * 512
    two = tick(3.0, 1.0, {"a": ("id1", ("vda",)), "b": ("id2", ("vda",))}, before, after)
    assert two.total is not None and two.total.bw_bytes_per_s == 2 * 2048 * 512


def test_a_host_on_a_share_has_no_live_series() -> None:
    shared = tick(1.0, 1.0, {"nas": ("id", ())}, {}, {})
    assert shared.hosts == {"nas": None} and shared.total is None
    assert tick_line(ALL_CLIENTS, None) == "all clients  disks -"


counters = st.builds(
    DiskCounters,
    *[st.integers(min_value=0, max_value=2**64)] * 2,
    st.sampled_from(["sda", "vda"]),
    *[st.integers(min_value=0, max_value=2**64)] * 11,
)


@given(
    pairs=st.lists(st.tuples(counters, counters), max_size=4),
    seconds=st.floats(allow_nan=True, allow_infinity=True),
)
def test_any_counters_give_finite_non_negative_figures_or_none(
    pairs: list[tuple[DiskCounters, DiskCounters]], seconds: float
) -> None:
    seen = activity(pairs, seconds)
    if seen is None:
        assert not (math.isfinite(seconds) and seconds > 0)
        return
    for value in (seen.bw_bytes_per_s, seen.iops, seen.lat_mean_ns or 0.0):
        assert value >= 0 and not math.isnan(value)


@pytest.fixture(scope="module")
def demo() -> Inventory:
    return collect_inventory(load_demo_host())


def test_a_local_folder_names_its_disks(demo: Inventory) -> None:
    place = folder_place(demo, "/mnt/disk2/bench")
    assert place is not None and not place.shared
    assert (place.fs_type, place.mountpoint, place.disks) == ("ext4", "/mnt/disk2", ("sdc",))
    assert place.describe() == "a local path (ext4 on /mnt/disk2; disks: sdc)"


def test_a_folder_on_the_hosts_mount_of_a_share(demo: Inventory) -> None:
    nfs = Mount(90, 1, "0:60", "/", "/mnt/nas", "nfs4", "nas:/export", ("rw",), ())
    inventory = dataclasses.replace(demo, mounts=(*demo.mounts, nfs))
    place = folder_place(inventory, "/mnt/nas/laptop")
    assert place is not None and place.shared and place.disks == ()
    assert place.describe() == "its own mount of the share nas:/export (nfs4 on /mnt/nas)"


def test_fio_s_client_prints_its_servers_status_only_at_the_end() -> None:
    """Two real servers with --status-interval=1 (network namespaces): the dumps are
    in the one document printed after the run, without timestamps to time them by."""
    text = (FIO / "fio333_client_status_interval.txt").read_text()
    documents, _ = split_documents(text)
    assert len(documents) == 1
    entries = json.loads(documents[0])["client_stats"]
    per_server = [
        [e["job_runtime"] for e in entries if e["hostname"] == h and e["jobname"] == "w"]
        for h in ("10.200.1.2", "10.200.2.2")
    ]
    assert all(len(runtimes) == 4 and runtimes == sorted(runtimes) for runtimes in per_server)
    assert not any("timestamp_ms" in e for e in entries)


def test_the_total_p99_is_the_percentile_of_every_hosts_ios() -> None:
    doc = json.loads((FIO / "fio333_jsonplus_randread.json").read_text())
    one = parse_report(doc)
    assert one.read.bins and one.read.lat_p99_ns is not None
    # the same host twice: the merged histogram has the same percentile
    assert merged_p99([one, one]) == {"read": one.read.lat_p99_ns}
    plain = dataclasses.replace(one, read=dataclasses.replace(one.read, bins=()))
    assert merged_p99([one, plain]) == {}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
entries = st.fixed_dictionaries(
    {"jobname": st.sampled_from(["w", "All clients"]) | st.text(max_size=4)},
    optional={"port": st.integers() | json_values, "hostname": json_values, "write": json_values,
              "read": json_values, "groupid": json_values, "job_runtime": json_values},
)  # fmt: skip


@given(
    doc=st.fixed_dictionaries(
        {"fio version": st.just("fio-3.33") | json_values},
        optional={"client_stats": st.lists(entries | json_values, max_size=4) | json_values},
    )
)
def test_any_client_report_parses_or_says_why(doc: dict[str, object]) -> None:
    from tierdeck.backends.fio.client_stats import split_client_stats
    from tierdeck.core.errors import ParseError

    try:
        split_client_stats(doc)
    except ParseError:
        pass


@given(
    text=st.text(max_size=300)
    | st.builds(lambda a, b: a + "{" + b, st.text(max_size=50), st.text(max_size=200))
)
def test_any_client_output_parses_or_says_why(text: str) -> None:
    from tierdeck.backends.fio.client_stats import read_client_report
    from tierdeck.core.errors import ParseError

    try:
        read_client_report(text)
    except ParseError:
        pass
