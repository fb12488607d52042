"""``tierdeck compare`` on two real fio runs of the lab NAS that differ only in bs.

Both runs go through ``tierdeck bench run`` (real preflight, runner and fio) into a
history of the test's own; the comparison's deltas are checked against the figures the
history stored, and ``bs`` must be the one job option listed as different.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_cli_bench import one_json_object, scratch, tierdeck  # noqa: F401

pytestmark = pytest.mark.integration

JOB = "[global]\nioengine=psync\ndirect=1\nsize=16M\n\n[seqwrite]\nrw=write\nbs={bs}\n"


def bench(target: Path, data: Path, bs: str) -> dict[str, Any]:
    job = data.parent / f"seqwrite-{bs}.fio"
    job.write_text(JOB.format(bs=bs))
    proc = tierdeck(data, "bench", "run", "--job", str(job), "--target", str(target),
                    "--runtime", "3", "--json", "--name", f"write bs={bs}")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = one_json_object(proc.stdout)
    assert doc["status"] == "ok"
    return doc


def test_compare_two_real_runs_with_different_bs(scratch: Path, tmp_path: Path) -> None:  # noqa: F811
    data = tmp_path / "data"
    small, large = bench(scratch, data, "4k"), bench(scratch, data, "128k")
    proc = tierdeck(data, "compare", str(small["id"]), str(large["id"]), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "tierdeck.compare/1"
    assert [r["id"] for r in doc["runs"]] == [small["id"], large["id"]]
    assert doc["baseline"] == small["id"]

    [job] = doc["jobs"]
    assert job["names"] == ["seqwrite", "seqwrite"] and job["matched_by"] == ["first", "name"]
    assert set(job["directions"]) == {"write"}
    stored = [
        json.loads(tierdeck(data, "history", "show", str(r["id"]), "--json").stdout)["jobs"][0]
        for r in (small, large)
    ]
    for metric in ("bw_bytes", "iops", "lat_mean_ns", "lat_p99_ns"):
        base, other = job["directions"]["write"][metric]
        values = [s["write"][metric] for s in stored]
        assert [base["value"], other["value"]] == pytest.approx(values)
        assert base["delta_pct"] is None
        assert other["delta_pct"] == pytest.approx(100 * (values[1] - values[0]) / values[0])
    # 32 times the block size on the same disks: more bandwidth, beyond any noise
    bw = job["directions"]["write"]["bw_bytes"][1]
    assert bw["delta_pct"] > 0

    differences = {d["key"]: d["values"] for d in doc["differences"]}
    assert differences["job[seqwrite].bs"] == ["4k", "128k"]
    assert not [k for k in differences if k.startswith("job[") and k != "job[seqwrite].bs"]
    assert doc["comparable"] is False
