"""The compose screen's slow pool minfreespace field (demo NAS: /mnt/disk1 has 7.2T
free, /mnt/disk2 16T): typed, it sets the slow pool's and the pool-free-space rule
follows; a size that is not one shows under the field."""

from __future__ import annotations

from textual.widgets import Static
from tierdeck.backends.host import RecordedHost
from tierdeck.core.layout.rules import RuleId, RuleSeverity

from ..waiting import shown_text
from .test_compose import SIZE, demo_app, highlight, open_compose, type_into


def slow_pool_free(screen) -> list[RuleSeverity]:  # type: ignore[no-untyped-def]
    assert screen.evaluation is not None
    return [r.severity for r in screen.evaluation.results
            if r.rule is RuleId.POOL_FREE_SPACE and "/mnt/slow" in r.message]  # fmt: skip


async def test_slow_minfreespace_is_typed_and_checked(demo_host: RecordedHost) -> None:
    app = demo_app(demo_host)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_compose(pilot, app)
        await highlight(pilot, screen, "/cache")
        await pilot.press("c")
        for path in ("/mnt/disk1", "/mnt/disk2"):
            await highlight(pilot, screen, path)
            await pilot.press("s")
        await pilot.press("2")
        assert slow_pool_free(screen) == [RuleSeverity.OK]  # mergerfs's 4G
        await type_into(pilot, screen, "slow_minfreespace", "20T")
        assert slow_pool_free(screen) == [RuleSeverity.ERROR]
        layout = screen.evaluation.layout  # type: ignore[union-attr]
        assert layout is not None and layout.slow_pool is not None
        assert layout.slow_pool.options.minfreespace_bytes == 20 * 2**40
        await type_into(pilot, screen, "slow_minfreespace", "lots")
        assert "not a size" in shown_text(screen.query_one("#error-slow_minfreespace", Static))
        await type_into(pilot, screen, "slow_minfreespace", "10M")
        assert slow_pool_free(screen) == [RuleSeverity.OK]
        assert not screen.query_one("#error-slow_minfreespace", Static).display
