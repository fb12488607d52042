"""widgets/calm_footer: focus moving three times in one go redraws the keys fewer times
than Textual's Footer does, and they end as the bindings of where focus ended; keys are
born with the footer's compactness rather than toggled into it."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Button, Footer
from tierdeck.widgets.calm_footer import CalmFooter

from tests.waiting import wait_until


class Keyed(Button):
    def __init__(self, key: str) -> None:
        super().__init__(key, id=f"b{key}")
        self._bindings.bind(key, "app.bell", f"press {key}")


class FooterApp(App[None]):
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [Binding("q", "quit", "Quit")]

    def __init__(self, footer: type[Footer]) -> None:
        super().__init__()
        self.footer_type = footer

    def compose(self) -> ComposeResult:
        yield from (Keyed(k) for k in "abc")
        yield self.footer_type()


async def redraws_of_a_burst(footer_type: type[Footer]) -> tuple[int, list[str], bool]:
    """How often the footer redraws when focus moves a, b, c at once; its keys after."""
    app = FooterApp(footer_type)
    async with app.run_test(size=(60, 10)) as pilot:
        footer = app.query_one(Footer)
        await wait_until(pilot, lambda: footer.query("FooterKey"), "the first keys")
        await pilot.pause()
        recompose = footer.recompose
        count = []

        async def counted() -> None:
            count.append(1)
            await recompose()

        footer.recompose = counted  # type: ignore[method-assign]
        for key in "abc":
            app.screen.set_focus(app.query_one(f"#b{key}"))
        await wait_until(pilot, lambda: count, "the redraw")
        for _ in range(3):
            await pilot.pause()
        keys = list(footer.query("FooterKey"))
        labels = [k.description for k in keys]  # type: ignore[attr-defined]
        return len(count), labels, any(k.has_class("-compact") for k in keys)


async def test_a_burst_of_focus_changes_redraws_the_keys_less_often() -> None:
    plain, plain_labels, _ = await redraws_of_a_burst(Footer)
    calm, labels, compact = await redraws_of_a_burst(CalmFooter)
    assert labels == plain_labels == ["press c", "Quit"]
    assert calm < plain, (calm, plain)
    assert not compact
