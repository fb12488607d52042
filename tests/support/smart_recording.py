"""A recorded host whose disks answer ``smartctl --json`` with real documents from
tests/fixtures/smart/: the scan lists each, and each answers the exact call tierdeck
makes (``-n standby -a -d TYPE``). For tests that go through ``--recorded``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from tierdeck.backends.smart.collect import device_argv
from tierdeck.backends.smart.scan import SmartTarget

from .recording import HostRecording

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "smart"


def smart_recording(folder: Path, disks: Mapping[str, str], *, is_root: bool = True) -> Path:
    """``disks``: kernel name -> fixture file. Each becomes a SATA disk of the recording
    (its model and serial from the document) answering smartctl with that document."""
    rec = HostRecording(folder, hostname="smartnas", is_root=is_root)
    devices = []
    for name, fixture in disks.items():
        text = (FIXTURES / fixture).read_text(encoding="utf-8")
        doc = json.loads(text)
        kind = (doc.get("device") or {}).get("type") or "sat"
        rec.add_disk(name, 4 * 10**12, True, model=doc.get("model_name"),
                     serial=doc.get("serial_number"))  # fmt: skip
        devices.append({"name": f"/dev/{name}", "info_name": f"/dev/{name}", "type": kind,
                        "protocol": "ATA"})  # fmt: skip
        status = int((doc.get("smartctl") or {}).get("exit_status") or 0)
        rec.add_command(
            device_argv(SmartTarget(name, f"/dev/{name}", kind)), text, returncode=status
        )
    scan = json.loads((FIXTURES / "vm-scan-open.json").read_text(encoding="utf-8"))
    scan["devices"] = devices
    rec.add_command(["smartctl", "--json", "--scan-open"], json.dumps(scan))
    return rec.write()
