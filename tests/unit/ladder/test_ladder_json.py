"""The tierdeck.ladder/1 object and the plain table of ``bench ladder`` (app/ladder/render):
keys are added, never renamed; a tiered ladder says each branch rung's role, what the
job was (O_DIRECT or buffered, and why) and the pool's answer to O_DIRECT."""

from __future__ import annotations

from dataclasses import replace

from tierdeck.app.ladder.render import ladder_lines, ladder_to_json
from tierdeck.core.bench_models import DirectionSummary
from tierdeck.core.ladder.model import BranchRole, LadderResult, Rung, RungKind, with_penalties

MIB = 1024 * 1024
JOB = "sequential 1 MiB writes, buffered on every rung because the pool refuses O_DIRECT"


def _rung(kind: RungKind, path: str, mib_s: float, role: BranchRole | None = None) -> Rung:
    summary = {"write": DirectionSummary(int(mib_s * MIB), mib_s, 1e6, 2_000_000)}
    return Rung(kind, path, run_id=1, summary=summary, role=role)


def _result() -> LadderResult:
    rungs = [
        _rung(RungKind.BRANCH, "/mnt/cache", 400, BranchRole.CREATE),
        _rung(RungKind.BRANCH, "/mnt/hdd0", 100, BranchRole.SLOW),
        replace(_rung(RungKind.POOL, "/mnt/pool", 120), spread_pct=3.5),
    ]
    return LadderResult(3, "/mnt/pool", with_penalties(rungs), JOB, "EINVAL: Invalid argument")


def test_json_adds_the_job_and_the_roles() -> None:
    doc = ladder_to_json(_result())
    assert list(doc)[:4] == ["schema", "id", "pool", "diagnosis"]  # as before
    assert doc["job"] == JOB and doc["direct_refused"] == "EINVAL: Invalid argument"
    cache, slow, pool = doc["rungs"]
    assert (cache["rung"], cache["label"], cache["role"]) == ("branch", "branch", "create")
    assert (slow["rung"], slow["label"], slow["role"]) == ("branch", "slow", "slow")
    assert "role" not in pool and pool["penalty_pct"] == 70.0
    assert pool["spread_pct"] == 3.5  # its bandwidth's own second-by-second spread
    assert doc["diagnosis"].startswith("mergerfs itself costs 70 % over /mnt/cache")


def test_the_table_says_the_job() -> None:
    lines = ladder_lines(_result())
    assert f"job: {JOB}" in lines
    assert lines[2].startswith("slow    /mnt/hdd0")


def test_the_table_marks_a_penalty_inside_the_spread_as_noise() -> None:
    result = _result()
    noisy = LadderResult(
        3,
        "/mnt/pool",
        with_penalties(
            [
                replace(result.rungs[0], spread_pct=60.0),
                result.rungs[1],
                replace(result.rungs[2], spread_pct=60.0),
            ]
        ),
    )
    pool_row = next(line for line in ladder_lines(noisy) if line.startswith("pool"))
    assert "+70 % (noise)" in pool_row
    steady = next(line for line in ladder_lines(_result()) if line.startswith("pool"))
    assert "+70 %" in steady and "(noise)" not in steady


def test_the_network_rung_in_json_and_in_the_table() -> None:
    base = _result()
    rungs = with_penalties([*base.rungs, _rung(RungKind.NETWORK, "laptop:/mnt/nas", 30)])
    result = replace(base, rungs=rungs)
    network = ladder_to_json(result)["rungs"][-1]
    assert (network["rung"], network["path"], network["compared_to"]) == (
        "network",
        "laptop:/mnt/nas",
        "pool",
    )
    assert network["penalty_pct"] == 75.0  # 30 MiB/s over the network, 120 on the NAS
    lines = ladder_lines(result)
    row = next(line for line in lines if line.startswith("network"))
    assert "laptop:/mnt/nas" in row and "+75 %" in row and row.endswith("pool")
    assert lines[-1].endswith("; through the network: 75 % slower than the pool on the NAS")
