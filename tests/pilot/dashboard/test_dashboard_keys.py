"""The dashboard's keys as a newcomer finds them: the footer lists every key once the
terminal has room (160 columns), and a layout file that is not there is said plainly."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static
from textual.widgets._footer import FooterKey
from tierdeck.app.tui.app import TierdeckApp
from tierdeck.backends.host import RecordedHost
from tierdeck.screens.modals.confirm import PromptScreen

from tests.waiting import wait_until

from ..waiting import wait_for_inventory

ROOMY = ["l", "m", "w", "p"]  # the keys hidden at 80 columns


def footer_keys(app: TierdeckApp) -> list[str]:
    return [k.key for k in app.screen.query(FooterKey)]


async def test_the_footer_shows_every_key_when_there_is_room(demo_host: RecordedHost) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_inventory(pilot, app)
        await wait_until(pilot, lambda: "q" in footer_keys(app), "the footer")
        assert not set(ROOMY) & set(footer_keys(app))  # full at 80: the help lists them
        await pilot.resize_terminal(160, 50)
        await wait_until(pilot, lambda: "l" in footer_keys(app), "the keys at 160 columns")
        assert footer_keys(app) == ["b", "h", *ROOMY, "r", "question_mark", "q"]
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: "l" not in footer_keys(app), "back to 80 columns")


async def test_a_missing_layout_file_is_said_plainly(
    demo_host: RecordedHost, tmp_path: Path
) -> None:
    app = TierdeckApp(demo_host, demo=True, hotplug=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for_inventory(pilot, app)
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen), "the prompt")
        missing = tmp_path / "tierdeck-layout.toml"
        app.screen.query_one(Input).value = str(missing)
        await pilot.press("enter")
        error = app.screen.query_one("#prompt-error", Static)
        await wait_until(pilot, lambda: str(error.content), "the error")
        assert str(error.content) == f"{missing}: No such file or directory"
