"""Every kind of ladder refusal has its headline in the TUI: a kind without one would
leave the ladder view checking forever (the plan's thread dies on the lookup)."""

from __future__ import annotations

import pytest
from tierdeck.app.ladder.plan import LadderRefusalKind, LadderRefused
from tierdeck.app.tui.sequence_refusals import LADDER_HEADLINES, refusal_of


@pytest.mark.parametrize("kind", list(LadderRefusalKind))
def test_each_kind_is_shown_with_its_headline(kind: LadderRefusalKind) -> None:
    shown = refusal_of(LadderRefused(kind, "why"))
    assert shown.headline == LADDER_HEADLINES[kind]
    assert shown.reason == "why"
