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
    NET,
    NFS,
    Activity,
    Moved,
    ShareWatch,
    Watched,
    activity,
    folder_place,
    read_counters,
    share_place,
    tick,
    tick_line,
)
from tierdeck.app.clients.run import merged_p99
from tierdeck.app.machine.demo import load_demo_host
from tierdeck.app.machine.inventory import collect_inventory
from tierdeck.backends.diskstats import DiskCounters
from tierdeck.backends.fio.json_documents import split_documents
from tierdeck.backends.fio.stream import parse_report
from tierdeck.backends.mountstats import MOUNTSTATS, parse_mountstats
from tierdeck.core.models import Inventory, Mount

FIXTURES = Path(__file__).parents[2] / "fixtures"
FIO = FIXTURES / "fio"


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


def test_a_host_with_nothing_to_watch_has_no_live_series() -> None:
    shared = tick(1.0, 1.0, {"nas": ("id", ())}, {}, {})
    assert shared.hosts == {"nas": None} and shared.total is None
    assert tick_line(ALL_CLIENTS, None) == "all clients  disks -"


def _kubelet_nfs() -> Moved:
    """The recorded NFSv4.1 mount's counters (tests/fixtures/mountstats/)."""
    text = (FIXTURES / "mountstats" / "procfs-nfs41-kubelet.mountstats").read_text()
    (nfs,) = parse_mountstats(text).values()
    return Moved(nfs.server_read_bytes, nfs.server_write_bytes, nfs.reads, nfs.writes,
                 nfs.read_ms, nfs.write_ms)  # fmt: skip


def test_a_host_on_nfs_has_its_mounts_bytes_rpcs_and_their_time() -> None:
    old = _kubelet_nfs()
    new = dataclasses.replace(old, write_bytes=old.write_bytes + 8 * 1048576,
                              writes=(old.writes or 0) + 8, write_ms=old.write_ms + 40)  # fmt: skip
    seen = tick(2.0, 1.0, {"laptop": ("id1", ("nfs:/mnt/nas",))},
                {"laptop": {"nfs:/mnt/nas": old}}, {"laptop": {"nfs:/mnt/nas": new}},
                {"laptop": "nfs"})  # fmt: skip
    laptop = seen.hosts["laptop"]
    assert laptop == Activity(8 * 1048576, 8.0, 5e6) == seen.total
    assert tick_line("laptop", laptop, seen.kinds["laptop"]) == (
        "laptop  nfs      8.0 MiB/s        8 IOPS  5.00 ms per I/O"
    )


def test_a_host_on_another_share_has_its_interfaces_bandwidth_only() -> None:
    old, new = Moved(1000, 5000), Moved(1000 + 3 * 1048576, 5000 + 1048576)
    disk_old = DiskCounters(8, 0, "vda", 10, 0, 100, 5, 20, 0, 200, 10, 0, 10, 15)
    disk_new = dataclasses.replace(disk_old, writes=30, sectors_written=200 + 2048, write_ms=30)
    seen = tick(1.0, 1.0, {"pi": ("id2", ("net:eth0",)), "nas": ("id3", ("vda",))},
                {"pi": {"net:eth0": old}, "nas": {"vda": disk_old}},
                {"pi": {"net:eth0": new}, "nas": {"vda": disk_new}},
                {"pi": "net eth0", "nas": "disks"})  # fmt: skip
    pi = seen.hosts["pi"]
    assert pi == Activity(4 * 1048576, None, None)
    assert tick_line("pi", pi, "net eth0") == (
        "pi  net eth0      4.0 MiB/s        - IOPS  - per I/O"
    )
    # the total: both sources' bytes, the disk's I/Os (an interface counts none)
    assert seen.total == Activity(5 * 1048576, 10.0, 2e6)


class _Reads:
    """A host that answers read_text from a dict (what the live view reads)."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def read_text(self, path: str) -> str:
        if path not in self.files:
            raise OSError(2, "No such file", path)
        return self.files[path]


def test_the_share_counters_are_read_through_the_host() -> None:
    mountstats = (FIXTURES / "mountstats" / "procfs-nfs41-kubelet.mountstats").read_text()
    mountpoint = next(iter(parse_mountstats(mountstats)))
    host = _Reads({MOUNTSTATS: mountstats,
                   "/sys/class/net/eth0/statistics/rx_bytes": "123\n",
                   "/sys/class/net/eth0/statistics/tx_bytes": "456\n"})  # fmt: skip
    nfs = Watched(host, "id", (), ShareWatch(NFS, mountpoint))  # type: ignore[arg-type]
    assert nfs.kind == "nfs" and nfs.sources == (f"nfs:{mountpoint}",)
    assert read_counters(nfs) == {f"nfs:{mountpoint}": _kubelet_nfs()}
    net = Watched(host, "id", (), ShareWatch(NET, "eth0"))  # type: ignore[arg-type]
    assert net.kind == "net eth0"
    assert read_counters(net) == {"net:eth0": Moved(123, 456)}
    gone = Watched(host, "id", (), ShareWatch(NET, "eth1"))  # type: ignore[arg-type]
    assert read_counters(gone) == {}
    elsewhere = Watched(host, "id", (), ShareWatch(NFS, "/mnt/other"))  # type: ignore[arg-type]
    assert read_counters(elsewhere) == {}


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
    assert place.watch == ShareWatch(NFS, "/mnt/nas")  # its own counters, no lookup


def test_a_folder_on_sshfs_is_watched_on_the_interface_to_its_server(demo: Inventory) -> None:
    sshfs = Mount(91, 1, "0:61", "/", "/mnt/pool", "fuse.sshfs", "root@127.0.0.1:/srv/pool",
                  ("rw",), ("user_id=0",))  # fmt: skip
    inventory = dataclasses.replace(demo, mounts=(*demo.mounts, sshfs))
    place = folder_place(inventory, "/mnt/pool/bench")
    assert place is not None and place.server == "127.0.0.1" and place.watch is None
    from tierdeck.backends.host import LiveHost

    if not LiveHost().has_tool("ip"):
        pytest.skip("needs iproute2's ip")
    assert share_place(LiveHost(), place).watch == ShareWatch(NET, "lo")


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
