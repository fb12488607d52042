"""What tierdeck reads back from a remote host: the gathering's document, getfattr's
and stat's answers, and the ssh targets users type. Garbage never crashes them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tierdeck.app.cli.remote import argv_without_host
from tierdeck.backends.host.ssh import gather
from tierdeck.backends.host.ssh.target import BadTarget, SshTarget


def record(kind: str, path: str, body: str) -> bytes:
    data = body.encode()
    return f"{kind}\t{len(data)}\t{path}\n".encode() + data + b"\n"


def test_a_gathering_answers_what_it_holds_and_knows_what_is_not_there() -> None:
    document = b"".join([
        record("D", "/sys/block", "sda\nloop0\n"),
        record("D", "/sys/block/sda", "dev\nsize\nsda1\n"),
        record("D", "/sys/block/sda/sda1", "partition\nsize\n"),
        record("R", "/sys/block/sda", "/sys/devices/pci0000:00/ata1/block/sda"),
        record("S", "/mnt/disk1", "4096 100 50 40"),
        record("A", "/mnt/pool/.mergerfs", "# file: /mnt/pool/.mergerfs\nuser.mergerfs.srcmounts=0x2f612f62\n"),
        record("X", "/proc/mdstat", ""),
        record("V", "udevd", "1"),
        record("G", "-", ""),
    ]) + b"/sys/block/sda/size\x001000\n/sys/block/sda/sda1/size\x00900\n/proc/self/mountinfo\x00a b\n/proc/self/mountinfo\x00c d\n"  # fmt: skip
    held = gather.parse(document)
    assert held.read_text("/sys/block/sda/size") == "1000\n"
    assert held.read_text("/proc/self/mountinfo") == "a b\nc d\n"
    # /sys/class/block/NAME is the same device as /sys/block/DISK[/PART]
    assert held.read_text("/sys/class/block/sda1/size") == "900\n"
    with pytest.raises(FileNotFoundError):
        held.read_text("/sys/block/sda/wwid")  # its folder was listed without it
    with pytest.raises(FileNotFoundError):
        held.read_text("/proc/mdstat")
    with pytest.raises(FileNotFoundError):
        held.read_text("/sys/block/sdz/size")
    assert held.read_text("/sys/block/sda/dev") is gather.MISS  # listed, not read: ask
    assert held.read_text("/etc/fstab") is gather.MISS
    assert held.usage["/mnt/disk1"].size_bytes == 409600
    assert held.xattrs["/mnt/pool/.mergerfs"] == {"user.mergerfs.srcmounts": "/a/b"}
    assert held.realpaths["/sys/block/sda"].endswith("/block/sda")
    assert held.facts == {"udevd": "1"}


@given(st.binary(max_size=2000))
def test_any_bytes_give_a_gathering_never_an_error(data: bytes) -> None:
    held = gather.parse(data)
    for path in list(held.files)[:5]:
        held.read_text(path)


def test_a_damaged_record_keeps_what_came_before_it() -> None:
    document = record("F", "/a", "1\n") + b"F\t999\t/b\nshort"
    held = gather.parse(document)
    assert held.files == {"/a": "1\n"}


@given(st.text(max_size=200))
def test_getfattr_and_stat_answers_never_crash(text: str) -> None:
    gather.parse_getfattr_hex(text)
    gather.parse_statfs(text)


def test_stat_answers_that_are_not_four_numbers_are_none() -> None:
    assert gather.parse_statfs("4096 1 2") is None
    assert gather.parse_statfs("4096 10 5 4").avail_bytes == 16384  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("nas2", SshTarget("nas2")),
        ("root@nas2", SshTarget("nas2", "root")),
        ("root@10.0.0.5:2222", SshTarget("10.0.0.5", "root", 2222)),
        ("admin@[fe80::1]:22", SshTarget("fe80::1", "admin", 22)),
    ],
)
def test_targets_as_ssh_takes_them(text: str, expected: SshTarget) -> None:
    assert SshTarget.parse(text) == expected
    assert SshTarget.parse(str(expected)) == expected


@pytest.mark.parametrize("text", ["", "-oProxyCommand=x", "a b", "x@", "host:99999", "a@b@c"])
def test_what_ssh_would_not_take_is_refused_with_why(text: str) -> None:
    with pytest.raises(BadTarget, match="ssh target|out of range"):
        SshTarget.parse(text)


@given(st.text(max_size=60))
def test_any_text_is_a_target_or_a_clear_refusal(text: str) -> None:
    try:
        target = SshTarget.parse(text)
    except BadTarget:
        return
    assert not target.host.startswith("-")


def test_the_host_option_is_left_out_of_the_command_sent_to_the_host() -> None:
    assert argv_without_host(["--host", "nas2", "mover", "run", "--layout", "/x.toml"]) == [
        "mover", "run", "--layout", "/x.toml",
    ]  # fmt: skip
    assert argv_without_host(["--host=nas2", "layout", "apply", "--", "--host"]) == [
        "layout", "apply", "--", "--host",
    ]  # fmt: skip


def test_one_getfattr_of_several_pools_is_parted_by_its_file_lines() -> None:
    text = (
        "# file: /mnt/a b/.mergerfs\nuser.mergerfs.category.create=0x6d6673\n\n"
        "# file: /mnt/c/.mergerfs\nuser.mergerfs.minfreespace=0x3447\nuser.mergerfs.empty\n"
    )
    assert gather.parse_getfattr_files(text) == {
        "/mnt/a b/.mergerfs": {"user.mergerfs.category.create": "mfs"},
        "/mnt/c/.mergerfs": {"user.mergerfs.minfreespace": "4G", "user.mergerfs.empty": ""},
    }


class _NoLink:
    """A link that must not be used: the gathering answers."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"asked the host: {name}")


def test_a_gathered_file_exists_and_is_no_folder_without_asking_the_host() -> None:
    from tierdeck.backends.host.ssh import SshHost

    host = SshHost("nas", link=_NoLink())  # type: ignore[arg-type]
    host._gathered = gather.parse(
        record("D", "/sys/block", "sda\n") + record("F", "/sys/block/sda/size", "1\n")
    )
    assert host.exists("/sys/block/sda/size") and not host.is_dir("/sys/block/sda/size")
    assert host.is_dir("/sys/block") and host.exists("/sys/block")
    assert not host.exists("/sys/block/sdz")
