"""A recorded host whose disks answer ``smartctl --json`` with real documents from
tests/fixtures/smart/: the scan lists each, and each answers the exact call tierdeck
makes (``-n standby -a -d TYPE``). For tests that go through ``--recorded``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from tierdeck.backends.smart.collect import device_argv
from tierdeck.backends.smart.scan import SmartTarget

from .recording import HostRecording
from .recording_tools import MERGERFS_MOUNT_OPTIONS, MERGERFS_SUPER_OPTIONS, mergerfs_xattrs

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "smart"


def smart_recording(
    folder: Path, disks: Mapping[str, str], *, is_root: bool = True,
    pool: Sequence[str] = (),
) -> Path:  # fmt: skip
    """``disks``: kernel name -> fixture file. Each becomes a disk of the recording (its
    model and serial from the document; an SSD when the document says it does not
    rotate, or is NVMe's) answering smartctl with that document. ``pool``: disks
    (in branch order) each mounted whole at /mnt/NAME, under a mergerfs pool at
    /mnt/pool."""
    rec = HostRecording(folder, hostname="smartnas", is_root=is_root)
    devices = []
    for name, fixture in disks.items():
        text = (FIXTURES / fixture).read_text(encoding="utf-8")
        doc = json.loads(text)
        kind = (doc.get("device") or {}).get("type") or "sat"
        rotational = doc.get("rotation_rate", 1) != 0 and kind != "nvme"
        rec.add_disk(name, 4 * 10**12, rotational, model=doc.get("model_name"),
                     serial=doc.get("serial_number"), fs_type="ext4" if name in pool else None)  # fmt: skip
        devices.append({"name": f"/dev/{name}", "info_name": f"/dev/{name}", "type": kind,
                        "protocol": "ATA"})  # fmt: skip
        status = int((doc.get("smartctl") or {}).get("exit_status") or 0)
        rec.add_command(
            device_argv(SmartTarget(name, f"/dev/{name}", kind)), text, returncode=status
        )
    scan = json.loads((FIXTURES / "vm-scan-open.json").read_text(encoding="utf-8"))
    scan["devices"] = devices
    rec.add_command(["smartctl", "--json", "--scan-open"], json.dumps(scan))
    if pool:
        _mergerfs_pool(rec, pool)
    return rec.write()


def _mergerfs_pool(rec: HostRecording, names: Sequence[str]) -> None:
    size = 4 * 10**12
    rec.add_mount("/", "ext4", "/dev/root", "0:30", usage=(size, size // 2, size // 2))
    for name in names:
        rec.add_mount(f"/mnt/{name}", "ext4", f"/dev/{name}", rec.devt(name),
                      usage=(size, size // 2, size // 2))  # fmt: skip
    rec.add_mount("/mnt/pool", "fuse.mergerfs", "mergerfs", "0:45",
                  options=MERGERFS_MOUNT_OPTIONS, super_options=MERGERFS_SUPER_OPTIONS,
                  usage=(size * len(names), size, size))  # fmt: skip
    rec.add_xattrs("/mnt/pool/.mergerfs",
                   mergerfs_xattrs("/mnt/pool", [f"/mnt/{n}" for n in names], pid=2000))  # fmt: skip


def adapted_document(fixture: str, device: str, *, model: str | None = None,
                     serial: str | None = None, size_bytes: int | None = None) -> tuple[str, int]:  # fmt: skip
    """A real document of tests/fixtures/smart/ told of another disk: its device name,
    model, serial and capacity replaced (the figures and the format stay smartctl's).
    Returns the JSON text and smartctl's exit status."""
    doc = json.loads((FIXTURES / fixture).read_text(encoding="utf-8"))
    argv = (doc.get("smartctl") or {}).get("argv") or [None]
    old = (doc.get("device") or {}).get("name") or argv[-1]  # a device it could not open
    text = json.dumps(doc)
    if old:  # the messages name the device too ("/dev/vda: Unable to detect ...")
        text = text.replace(f'"{old}', f'"{device}').replace(f"{old}:", f"{device}:")
    doc = json.loads(text)
    if model is not None:
        doc["model_name"] = model
    if serial is not None:
        doc["serial_number"] = serial
    if size_bytes is not None and "user_capacity" in doc:
        block = doc["user_capacity"]["bytes"] // max(1, doc["user_capacity"]["blocks"])
        doc["user_capacity"] = {"blocks": size_bytes // block, "bytes": size_bytes}
    status = int((doc.get("smartctl") or {}).get("exit_status") or 0)
    return json.dumps(doc, indent=2) + "\n", status
