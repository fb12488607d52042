"""``tierdeck lab status``: a readable list by default, the JSON with --json."""

from __future__ import annotations

import json
from pathlib import Path

from ..cli_support import run

# lab.json as `tierdeck lab up --dir /tmp/compose-lab --no-throttle` wrote it on the
# test VM (throttled added as a throttled run writes it).
LAB_JSON = {
    "directory": "/tmp/compose-lab",
    "loops": {"cache0": "/dev/loop4", "cache1": "/dev/loop5", "hdd0": "/dev/loop6",
              "hdd1": "/dev/loop7"},
    "mounts": ["/tmp/compose-lab/mnt/cache", "/tmp/compose-lab/mnt/hdd0",
               "/tmp/compose-lab/mnt/hdd1", "/tmp/compose-lab/pool/slow",
               "/tmp/compose-lab/pool/cached"],
    "throttled": ["7:6", "7:7"],
    "complete": True,
}  # fmt: skip


def lab_dir(tmp_path: Path, **changes: object) -> Path:
    (tmp_path / "lab.json").write_text(json.dumps(LAB_JSON | changes))
    return tmp_path


def test_status_is_a_list_a_person_reads(tmp_path: Path) -> None:
    out = run("lab", "status", "--dir", str(lab_dir(tmp_path))).output
    assert not out.lstrip().startswith("{")
    lines = out.splitlines()
    assert lines[0] == f"lab NAS in {tmp_path}: complete"
    assert "  loop   cache0  /dev/loop4" in lines
    assert "  mount  /tmp/compose-lab/pool/cached" in lines
    assert "  HDD throttle on 7:6, 7:7 (major:minor)" in lines


def test_a_half_built_lab_says_how_to_clean_it(tmp_path: Path) -> None:
    directory = lab_dir(tmp_path, complete=False, mounts=[], throttled=[])
    first = run("lab", "status", "--dir", str(directory)).output.splitlines()[0]
    assert "half built" in first and "lab down" in first


def test_json_keeps_the_keys_it_always_had(tmp_path: Path) -> None:
    out = run("lab", "status", "--dir", str(lab_dir(tmp_path)), "--json").output
    assert json.loads(out) == {"directory": str(tmp_path), "complete": True,
                               "loops": LAB_JSON["loops"], "mounts": LAB_JSON["mounts"]}  # fmt: skip


def test_no_lab(tmp_path: Path) -> None:
    assert run("lab", "status", "--dir", str(tmp_path)).output == "no lab NAS\n"
    assert json.loads(run("lab", "status", "--dir", str(tmp_path), "--json").output) is None
