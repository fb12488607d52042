"""lsscsi's default output, from seed 000 and a public bug report."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tierdeck.backends.lsscsi import LsscsiRow, parse_lsscsi
from tierdeck.core.errors import ParseError

from ...paths import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "disks"


def test_seed_000_rows_exactly() -> None:
    rows = parse_lsscsi((FIXTURES / "lsscsi-seed000.txt").read_text())
    assert list(rows) == [
        "/dev/sdc", "/dev/sdd", "/dev/sde", "/dev/sda", "/dev/sdb", "/dev/sr0", "/dev/nvme0n1",
    ]  # fmt: skip
    assert rows["/dev/sdc"] == LsscsiRow(
        "0:0:0:0", "disk", "ATA", "WDC WD180EDGZ-11", "0A85", "/dev/sdc"
    )
    assert rows["/dev/sde"] == LsscsiRow(
        "0:0:2:0", "disk", "ATA", "WDC WD80EFZX-68U", "0A83", "/dev/sde"
    )
    assert rows["/dev/sdb"] == LsscsiRow(
        "1:0:0:1", "disk", "QEMU", "QEMU HARDDISK", "2.5+", "/dev/sdb"
    )
    assert rows["/dev/sr0"] == LsscsiRow(
        "3:0:0:0", "cd/dvd", "QEMU", "QEMU DVD-ROM", "2.5+", "/dev/sr0"
    )
    # NVMe: one free-width model with lsscsi's "__<n>" suffix, no vendor or revision.
    assert rows["/dev/nvme0n1"] == LsscsiRow(
        "N:0:1:1", "disk", None, "Samsung SSD 950 PRO 256GB", None, "/dev/nvme0n1"
    )


def test_trailing_space_and_model_with_space() -> None:
    rows = parse_lsscsi((FIXTURES / "lsscsi-util-linux-307.txt").read_text())
    assert rows == {
        "/dev/sda": LsscsiRow("0:0:0:0", "disk", "ATA", "ST1000LM024 HN-M", "0003", "/dev/sda")
    }


def test_device_without_node_is_left_out() -> None:
    # The enclosure row of util-linux#307's `lsscsi -g`, without its sg column.
    text = "[4:0:0:1]    enclosu WD       SES Device       1072  -\n"
    assert parse_lsscsi(text) == {}


def test_empty_output_is_no_devices() -> None:
    assert parse_lsscsi("") == {}  # this dev VM: virtio disks only
    assert parse_lsscsi("\n\n") == {}


@pytest.mark.parametrize(
    "line",
    [
        "Attached devices: none",  # lsscsi --classic
        "[0:0:0:0]    disk    ATA      WDC WD180EDGZ-11 0A85  sdc",
        "[0:0:0]    disk    ATA      WDC WD180EDGZ-11 0A85  /dev/sdc",
        "  dir: /sys/bus/scsi/devices/0:0:0:0  [/sys/devices/pci0000:00]",
        "[0:0:0:0]",
    ],
)
def test_garbage_raises_parse_error(line: str) -> None:
    with pytest.raises(ParseError):
        parse_lsscsi(line + "\n")


@given(st.text())
def test_any_text_parses_or_raises_parse_error(text: str) -> None:
    try:
        rows = parse_lsscsi(text)
    except ParseError:
        return
    assert all(key == row.device and key.startswith("/dev/") for key, row in rows.items())


_word = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.+", min_size=1, max_size=4)


@given(
    hctl=st.tuples(*[st.integers(0, 31)] * 4).map(lambda t: ":".join(map(str, t))),
    vendor=st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=8),
    model=st.lists(_word, min_size=1, max_size=3).map(" ".join).filter(lambda m: len(m) <= 16),
    rev=_word,
    node=st.from_regex(r"/dev/sd[a-z]{1,2}", fullmatch=True),
)
def test_lsscsi_printf_layout_round_trips(
    hctl: str, vendor: str, model: str, rev: str, node: str
) -> None:
    # lsscsi.c: "[%s]" in 13 columns, "%-8s" type, then "%-8s %-16s %-4s  " and the node.
    line = f"{'[' + hctl + ']':<13}{'disk':<8}{vendor:<8} {model:<16} {rev:<4}  {node}\n"
    assert parse_lsscsi(line) == {node: LsscsiRow(hctl, "disk", vendor, model, rev, node)}
