"""Parse the default output of ``lsscsi`` (one line per SCSI or NVMe device).

A line is ``[H:C:T:L]  type  vendor model rev  /dev/node``. lsscsi prints SCSI rows with
``printf("%-8s %-16s %-4s  ")`` for vendor, model and revision, so model names with
spaces ("QEMU HARDDISK", "WDC WD180EDGZ-11") can only be split by column width. NVMe
rows (HCTL ``N:...``) carry one free-width model string instead, with ``__`` and a number
appended ("Samsung SSD 950 PRO 256GB__1"), and no vendor or revision. Devices without a
node print ``-`` there and are left out of the result, which is keyed by node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.errors import ParseError

_SOURCE = "lsscsi output"
_LINE_RE = re.compile(r"^\[(?P<hctl>[^\]\s]+)\]\s*(?P<type>\S+)\s+(?P<rest>.*\S)\s*$")
_HCTL_RE = re.compile(r"^(?:\d+|N):\d+:\d+:\d+$")
_NVME_SUFFIX_RE = re.compile(r"^(?P<model>.*?)__\d+$")
# Column widths of lsscsi's SCSI rows, measured from the start of the vendor field.
_VENDOR_END = 8
_MODEL_START = _VENDOR_END + 1
_MODEL_END = _MODEL_START + 16
_REV_START = _MODEL_END + 1


@dataclass(frozen=True)
class LsscsiRow:
    hctl: str  # "0:0:1:0", or "N:0:1:1" for NVMe namespaces
    type: str  # "disk", "cd/dvd", "enclosu" ...
    vendor: str | None
    model: str | None
    revision: str | None
    device: str  # "/dev/sdc"


def parse_lsscsi(text: str) -> dict[str, LsscsiRow]:
    """Rows of ``lsscsi`` keyed by device node. Raises ParseError on any other shape."""
    rows: dict[str, LsscsiRow] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        row = _parse_line(line)
        if row is not None:
            rows[row.device] = row
    return rows


def _parse_line(line: str) -> LsscsiRow | None:
    match = _LINE_RE.match(line)
    if match is None:
        raise ParseError(_SOURCE, "expected '[H:C:T:L] type ... /dev/node'", line)
    hctl = match.group("hctl")
    if not _HCTL_RE.match(hctl):
        raise ParseError(_SOURCE, f"not a SCSI address: {hctl!r}", line)
    rest = match.group("rest")
    middle, _, device = rest.rpartition(" ")
    if device != "-" and not device.startswith("/dev/"):
        raise ParseError(_SOURCE, f"last column is not a device node: {device!r}", line)
    middle = middle.rstrip()
    if device == "-":
        return None
    if hctl.startswith("N:"):
        nvme = _NVME_SUFFIX_RE.match(middle)
        model = nvme.group("model") if nvme else middle
        return LsscsiRow(hctl, match.group("type"), None, model.strip() or None, None, device)
    vendor, model, revision = _split_scsi_identity(middle)
    return LsscsiRow(hctl, match.group("type"), vendor, model, revision, device)


def _split_scsi_identity(middle: str) -> tuple[str | None, str | None, str | None]:
    fixed = len(middle) > _VENDOR_END and middle[_VENDOR_END] == " "
    if fixed and len(middle) > _MODEL_END:
        fixed = middle[_MODEL_END] == " "
    if fixed:
        vendor = middle[:_VENDOR_END].strip()
        model = middle[_MODEL_START:_MODEL_END].strip()
        revision = middle[_REV_START:].strip()
        return vendor or None, model or None, revision or None
    # A vendor or model longer than its column shifts everything: split by words then.
    words = middle.split()
    if not words:
        return None, None, None
    if len(words) == 1:
        return words[0], None, None
    if len(words) == 2:
        return words[0], words[1], None
    return words[0], " ".join(words[1:-1]), words[-1]
