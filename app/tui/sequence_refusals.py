"""Why a sweep or a ladder cannot start, as the TUI shows it: a headline chosen by the
refusal's kind (``SweepRefusalKind``, ``LadderRefusalKind``, or the error's type), and
the refusal's own one line under it. Nothing here reads the message text to decide.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...core.errors import one_line
from ...core.jobspec import JobSpecError
from ...core.ladder.options import OptionSweepError
from ...core.sweep.model import SweepError
from ..history.store import HistoryError
from ..ladder.plan import LadderRefusalKind, LadderRefused
from ..sweep.cells import SweepRefusalKind, SweepRefused


@dataclass(frozen=True)
class Refusal:
    headline: str  # what kind of refusal, in words of its own
    reason: str  # the refusal's one line: which cell, option, path


SWEEP_HEADLINES: Mapping[SweepRefusalKind, str] = {
    SweepRefusalKind.FILE: "The sweep file is refused",
    SweepRefusalKind.TARGET: "The sweep has no usable target",
    SweepRefusalKind.CELL: "A cell's jobs are not valid fio jobs",
    SweepRefusalKind.FIO: "fio refuses an option or a value of a cell",
    SweepRefusalKind.PLAN: "A cell cannot run here",
    SweepRefusalKind.RESUME: "This sweep cannot be resumed",
    SweepRefusalKind.STORE: "The history cannot be opened",
}

LADDER_HEADLINES: Mapping[LadderRefusalKind, str] = {
    LadderRefusalKind.NOT_LIVE: "The ladder runs on a live machine only",
    LadderRefusalKind.NOT_MERGERFS: "Not a mergerfs pool",
    LadderRefusalKind.POOL_UNREADABLE: "The pool's settings cannot be read",
    LadderRefusalKind.BAD_JOB: "The ladder's job is refused",
    LadderRefusalKind.CLIENT: "The network rung's client is refused",
}

# Errors that come without a kind of their own: their type is the kind.
TYPE_HEADLINES: tuple[tuple[type[BaseException], str], ...] = (
    (SweepError, SWEEP_HEADLINES[SweepRefusalKind.FILE]),
    (JobSpecError, "The job is refused"),
    (OptionSweepError, "The option sweep is refused"),
    (HistoryError, SWEEP_HEADLINES[SweepRefusalKind.STORE]),
)
OTHER_HEADLINE = "Checking failed"


def refusal_of(exc: BaseException) -> Refusal:
    """The refusal as shown: headline by kind, then the refusal's own reason."""
    if isinstance(exc, SweepRefused):
        return Refusal(SWEEP_HEADLINES[exc.kind], exc.reason)
    if isinstance(exc, LadderRefused):
        return Refusal(LADDER_HEADLINES[exc.kind], exc.reason)
    for kind, headline in TYPE_HEADLINES:
        if isinstance(exc, kind):
            return Refusal(headline, one_line(exc))
    return Refusal(OTHER_HEADLINE, one_line(exc))
