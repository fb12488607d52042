"""A Footer that redraws its keys once per burst of binding changes.

Textual's Footer recomposes every key on every ``bindings_updated_signal``, and a screen
being opened sends several (mount, each focus change, tabs shown or hidden): six
recompositions, 165 ms of the compose screen's first paint on the 240-disk host. The
keys only need the bindings as they are once the burst is over. And each key is born
compact and then told it is not (a style update each way, 1 ms a key): here it is born
as the footer is.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class CalmFooter(Footer):
    _recompose_pending = False

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self._recompose_pending:
            return  # the redraw already asked for reads the bindings as they are then
        super().bindings_changed(screen)
        # Footer asks for a redraw on these conditions only.
        self._recompose_pending = bool(
            screen.app.app_focus and self.is_attached and screen is self.screen
        )

    async def recompose(self) -> None:
        self._recompose_pending = False
        await super().recompose()

    def compose(self) -> ComposeResult:
        for widget in super().compose():
            if isinstance(widget, FooterKey):
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget
