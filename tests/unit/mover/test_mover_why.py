"""app/mover/why: why selected files fit on no slow branch, said once for the run."""

from __future__ import annotations

import subprocess

from tierdeck.app.mover.why import unplaced_reason
from tierdeck.core.layout.model import CreatePolicy
from tierdeck.core.mergerfs_policy import CreateErrno
from tierdeck.core.mover import (
    CachedFile,
    Destination,
    MoveReason,
    Selected,
    SlowSpace,
    Unplaced,
    place,
)

from tests.unit.cli_support import run
from tests.unit.mover.test_mover_run import Tiers, put, tiers

__all__ = ["tiers"]  # the fixture, imported for pytest

GIB = 1024**3


def _file(rel: str, size: int) -> CachedFile:
    return CachedFile("/cache", rel, size, 0.0, 0.0)


def test_each_cause_is_named_once() -> None:
    dest = Destination(("/d1", "/d2"), CreatePolicy.MFS, 4 * GIB)
    space = (SlowSpace("/d1", 10 * GIB, 0, readonly_fs=True), SlowSpace("/d2", 3 * GIB, 0))
    files = [_file(f"f{i}", GIB) for i in range(301)]
    plan = place([Selected(f, MoveReason.AGE) for f in files], dest, {s.path: s for s in space})
    # mergerfs says EROFS (it outranks ENOSPC): both causes are named.
    assert plan.moves == () and {u.error for u in plan.unplaced} == {CreateErrno.EROFS}
    assert unplaced_reason(plan.unplaced, dest, space) == (
        "slow branch /d1 is mounted read-only; no slow branch has room above minfreespace"
        " 4.0G (free: /d2 3.0G; largest file 1.0G)"
    )
    only_full = [Unplaced(files[0], MoveReason.AGE, CreateErrno.ENOSPC)]
    assert unplaced_reason(only_full, dest, space[1:]) == (
        "no slow branch has room above minfreespace 4.0G (free: /d2 3.0G; largest file 1.0G)"
    )
    readonly = [Unplaced(files[0], MoveReason.AGE, CreateErrno.EROFS)]
    assert unplaced_reason(readonly, dest, space[:1]) == "slow branch /d1 is mounted read-only"
    assert unplaced_reason((), dest, space) == ""


def test_dry_run_says_why_nothing_can_move(tiers: Tiers) -> None:
    # One slow branch read-only (a warning of layout check), the other too small for the
    # file: the run goes on and says both causes in one line.
    put(tiers, "tv/old.mkv", 6 * 1024 * 1024)
    subprocess.run(["mount", "-o", "remount,ro", str(tiers.slow[0])], check=True)
    result = run("mover", "run", "--layout", str(tiers.layout_path), "--dry-run")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    why = [line for line in lines if line.startswith("nothing can move: ")]
    assert len(why) == 1, lines
    assert why[0].startswith(
        f"nothing can move: slow branch {tiers.slow[0]} is mounted read-only; "
        "no slow branch has room above minfreespace"
    ), why
    assert f"free: {tiers.slow[1]} " in why[0] and "largest file 6.0M" in why[0], why


def test_dry_run_with_every_slow_branch_read_only_is_refused_as_check_refuses(
    tiers: Tiers,
) -> None:
    put(tiers, "tv/old.mkv", 4096)
    for d in tiers.slow:
        subprocess.run(["mount", "-o", "remount,ro", str(d)], check=True)
    result = run("mover", "run", "--layout", str(tiers.layout_path), "--dry-run")
    assert result.exit_code == 2, result.output
    assert "slow-writable" in result.output, result.output
