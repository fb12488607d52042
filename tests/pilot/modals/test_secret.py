"""A password asked from another thread (an SSH link's) is typed in a masked modal."""

from __future__ import annotations

import asyncio

from textual.app import App
from textual.widgets import Input
from tierdeck.app.tui.navigation import Navigator
from tierdeck.screens.modals.secret import SecretScreen

from ..waiting import wait_until


class Host(Navigator, App[None]):
    pass


async def test_a_password_asked_from_a_link_thread_is_typed_in_a_masked_modal() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        asking = asyncio.get_running_loop().run_in_executor(
            None, app.ask_secret, "Password for root@nas2: "
        )
        await wait_until(pilot, lambda: isinstance(app.screen, SecretScreen), "the prompt")
        field = app.screen.query_one(Input)
        assert field.password  # never shown as typed
        await pilot.press(*"s3cret", "enter")
        assert await asking == "s3cret"
        assert not isinstance(app.screen, SecretScreen)


async def test_escape_declines_and_the_login_skips_that_way() -> None:
    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        asking = asyncio.get_running_loop().run_in_executor(None, app.ask_secret, "Passphrase: ")
        await wait_until(pilot, lambda: isinstance(app.screen, SecretScreen), "the prompt")
        await pilot.press("escape")
        assert await asking is None
