"""A Footer that redraws its keys once per burst of binding changes, and shows the keys
a screen hides at 80 columns once there is room for all of them.

Textual's Footer recomposes every key on every ``bindings_updated_signal``, and a screen
being opened sends several (mount, each focus change, tabs shown or hidden): six
recompositions, 165 ms of the compose screen's first paint on the 240-disk host. The
keys only need the bindings as they are once the burst is over. And each key is born
compact and then told it is not (a style update each way, 1 ms a key): here it is born
as the footer is.

A screen names the actions of its ``show=False`` bindings that are worth showing when
there is room (``FOOTER_IF_ROOM``): at 80 columns the footer is full, at 160 it had a
half-empty line while ``l`` or ``m`` stayed a secret of the help page. They show all
together or not at all, so the keys do not shuffle as a terminal is resized. tierdeck
uses neither key groups nor the command palette, so this footer draws neither.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


def _key_width(key_display: str, description: str, compact: bool) -> int:
    # FooterKey's padding: " k description " (compact: "k description" and a margin).
    return len(key_display) + len(description) + (2 if compact else 3)


class CalmFooter(Footer):
    _recompose_pending = False
    _roomy_shown = False  # the screen's FOOTER_IF_ROOM keys are in the footer now

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

    def on_resize(self, event: events.Resize) -> None:
        if self._bindings_ready and self._keys()[1] != self._roomy_shown:
            self.call_after_refresh(self.recompose)

    def _keys(self) -> tuple[list[tuple[Binding, bool, str]], bool]:
        """The keys to show, one per action in the screen's order, and whether the
        roomy ones are among them."""
        roomy: tuple[str, ...] = getattr(self.screen, "FOOTER_IF_ROOM", ())
        shown: list[tuple[Binding, bool, str]] = []
        extra: list[tuple[Binding, bool, str]] = []
        actions: set[str] = set()
        for _, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.action in actions or not (binding.show or binding.action in roomy):
                continue
            actions.add(binding.action)
            shown.append((binding, enabled, tooltip))
            if not binding.show:
                extra.append((binding, enabled, tooltip))
        width = sum(
            _key_width(self.app.get_key_display(b), b.description, self.compact)
            for b, _, _ in shown
        )
        if extra and width > self.screen.size.width:
            return [s for s in shown if s[0].show], False
        return shown, bool(extra)

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        keys, self._roomy_shown = self._keys()
        self.styles.grid_size_columns = len(keys)
        for binding, enabled, tooltip in keys:
            key = FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            ).data_bind(compact=Footer.compact)
            key.set_reactive(FooterKey.compact, self.compact)
            key.set_class(self.compact, "-compact", update=False)
            yield key
