"""The ladder table's penalty cell (widgets/sequence/ladder_table.penalty_text): a penalty the
two rungs' own second-by-second spread covers is drawn dim, as the diagnosis calls it
noise; one outside it keeps its colour."""

from __future__ import annotations

from dataclasses import replace

from tierdeck.core.bench_models import DirectionSummary
from tierdeck.core.ladder.model import BranchRole, Rung, RungKind, with_penalties
from tierdeck.widgets.sequence.ladder_table import penalty_text

MIB = 1024 * 1024


def _rung(kind: RungKind, mib_s: float, spread: float | None) -> Rung:
    summary = {"write": DirectionSummary(int(mib_s * MIB), mib_s, 1e6, 2_000_000)}
    role = BranchRole.CREATE if kind is RungKind.BRANCH else None
    return Rung(kind, f"/{kind.value}", 1, summary, role=role, spread_pct=spread)


def test_a_penalty_inside_the_spread_is_dim() -> None:
    # the lab's default ladder: the pool 21 % below the cache, both wandering ~15-20 %
    rungs = with_penalties([_rung(RungKind.BRANCH, 400, 15.0), _rung(RungKind.POOL, 316, 19.0)])
    cell = penalty_text(rungs[1], rungs)
    assert cell.plain == "21 % vs branch" and str(cell.style) == "dim"
    steady = [replace(r, spread_pct=2.0) for r in rungs]
    assert str(penalty_text(steady[1], steady).style) == "bold red"
