"""/proc/self/mountstats read from real mounts' blocks (tests/fixtures/mountstats/,
SOURCES.md says whose), and any text survived."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from tierdeck.backends.mountstats import NfsCounters, parse_mountstats

from tests.paths import FIXTURES

HERE = FIXTURES / "mountstats"
KUBELET = ("/var/lib/kubelet/pods/1c2215a7-0d92-4df5-83ce-a807bcc2f8c8/volumes/"
           "kubernetes.io~nfs/home-automation--node-red-data--pv0001")  # fmt: skip


def test_an_nfs41_mount_gives_its_server_bytes_and_its_read_and_write_rpcs() -> None:
    found = parse_mountstats((HERE / "procfs-nfs41-kubelet.mountstats").read_text())
    assert found == {
        KUBELET: NfsCounters(
            device="fs.example.com:/volume4/apps/home-automation/node-red-data",
            server_read_bytes=1788561151,
            server_write_bytes=39087991255,
            reads=34096,
            writes=322308,
            read_ms=467945,
            write_ms=411864389,
        )
    }


def test_an_nfs3_mount_over_rdma_with_sixteen_transports() -> None:
    found = parse_mountstats((HERE / "procfs-nfs3-rdma.mountstats").read_text())
    read_only = found["<mountpoint>"]
    assert read_only.server_read_bytes == 2013200952170479
    assert read_only.server_write_bytes == 0
    assert (read_only.reads, read_only.read_ms) == (2654501510, 37927280438)
    assert (read_only.writes, read_only.write_ms) == (0, 0)


def test_other_mounts_and_a_block_cut_short_are_left_out() -> None:
    kubelet = (HERE / "procfs-nfs41-kubelet.mountstats").read_text()
    text = (
        "device /dev/vda1 mounted on / with fstype ext4\n"
        "device nas:/tank mounted on /mnt/my\\040nas with fstype nfs4 statvers=1.1\n"
        "\topts:\trw,vers=4.2\n"  # no bytes: line yet (the mount is going away)
        "device sysfs mounted on /sys with fstype sysfs\n" + kubelet
    )
    found = parse_mountstats(text)
    assert list(found) == [KUBELET]
    assert parse_mountstats(kubelet.replace("fstype nfs4", "fstype fuse.sshfs")) == {}


def test_an_escaped_mountpoint_is_read_as_the_path() -> None:
    block = "device nas:/tank mounted on /mnt/my\\040nas with fstype nfs statvers=1.1\n"
    found = parse_mountstats(block + "\tbytes:\t1 2 3 4 5 6 7 8\n")
    assert found["/mnt/my nas"].server_write_bytes == 6


@given(st.text())
def test_any_text_gives_counters_or_nothing(text: str) -> None:
    for mountpoint, counters in parse_mountstats(text).items():
        assert isinstance(mountpoint, str)
        assert min(counters.server_read_bytes, counters.server_write_bytes) >= 0


@given(st.lists(st.sampled_from(
    (HERE / "procfs-nfs41-kubelet.mountstats").read_text().splitlines()
    + ["device x mounted on /y with fstype nfs4", "\tbytes: 1 2", "\tREAD: a b c", "device"]
)))  # fmt: skip
def test_real_lines_in_any_order_give_counters_or_nothing(lines: list[str]) -> None:
    for counters in parse_mountstats("\n".join(lines)).values():
        assert counters.reads >= 0 and counters.write_ms >= 0
