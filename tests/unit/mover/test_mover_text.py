"""The mover's text: a capped table on a terminal, a summary elsewhere."""

from __future__ import annotations

from tierdeck.app.mover.render_text import TABLE_ROWS, UNPLACED_ROWS, forecast_lines
from tierdeck.app.mover.run import MoverReport
from tierdeck.core.mover import CachedFile, MoveReason, PlannedMove, Unplaced


def _move(i: int, dest: str, reason: MoveReason = MoveReason.AGE) -> PlannedMove:
    return PlannedMove(CachedFile("/c", f"d/f{i:04d}", 1024, 0.0, 0.0), dest, reason)


def _report(moves: list[PlannedMove], unplaced: tuple[Unplaced, ...] = ()) -> MoverReport:
    return MoverReport("m", 0.0, 1.0, True, tuple(moves), (), (), None, "", 12.0, (),
                       "best write bandwidth measured", unplaced)  # fmt: skip


def test_terminal_table_is_capped() -> None:
    moves = [_move(i, "/s1") for i in range(TABLE_ROWS + 7)]
    lines = forecast_lines(_report(moves), tty=True)
    assert lines[0].startswith("FILE")
    assert sum(1 for line in lines if "d/f" in line) == TABLE_ROWS
    assert "... and 7 more (--json lists every file)" in lines
    assert lines[-1] == "forecast: 27 files, 27K, 0:00:12 (best write bandwidth measured)"


def test_short_table_has_no_more_line() -> None:
    lines = forecast_lines(_report([_move(1, "/s1")]), tty=True)
    assert len(lines) == 3 and not any(line.startswith("...") for line in lines)


def test_summary_per_reason_and_branch() -> None:
    moves = [_move(i, "/s1") for i in range(3)]
    moves += [_move(i, "/s2", MoveReason.FILL) for i in range(3, 5)]
    lines = forecast_lines(_report(moves), tty=False)
    assert lines == [
        "forecast: 5 files, 5.0K, 0:00:12 (best write bandwidth measured)",
        "  age: 3 files, 3.0K",
        "  fill: 2 files, 2.0K",
        "  to /s1: 3 files, 3.0K",
        "  to /s2: 2 files, 2.0K",
    ]


def test_unplaced_listed_and_capped_in_both() -> None:
    unplaced = tuple(Unplaced(_move(i, "/s1").file, MoveReason.AGE, None)
                     for i in range(UNPLACED_ROWS + 2))  # fmt: skip
    for tty in (True, False):
        lines = forecast_lines(_report([], unplaced), tty=tty)
        assert sum(1 for line in lines if line.startswith("no slow branch for")) == UNPLACED_ROWS
        assert "... and 2 more with no slow branch" in lines
        assert lines[-1].startswith("forecast: 0 files")
