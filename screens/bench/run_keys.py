"""The keys of a live run screen, shared by the one-target run and the several-hosts
run: ``c`` or escape cancels after a confirmation, escape goes back once the run is
over, ``h`` opens the history once it is stored, ``q`` quits (asking first while the
run goes). A screen mixes this in and says how to stop, what to ask (``CANCEL_ASK``,
``QUIT_ASK``, ``CANCEL_DOES``), and when its history entry is ready.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.screen import Screen

    _Base = Screen[object]
else:
    _Base = object


class RunKeys(_Base):
    """Mixed into a run screen, before Screen. The cancel question is the screen's
    ``CANCEL_ASK`` (or ``QUIT_ASK`` when quitting), then what a cancel does."""

    CANCEL_ASK = "Cancel the run?"
    QUIT_ASK = "Stop the run and quit tierdeck?"
    CANCEL_DOES = ""

    if TYPE_CHECKING:
        running: bool
        _cancel_asked: bool
        _quit_after: bool

        def _history_ready(self) -> bool: ...
        def _stop(self, then_quit: bool) -> None: ...

    def _cancel_question(self, then_quit: bool) -> str:
        return (self.QUIT_ASK if then_quit else self.CANCEL_ASK) + "\n\n" + self.CANCEL_DOES

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False hides the key from the footer and lets the next binding of the same
        # key (escape: cancel while running, back after) take it.
        if action == "cancel_run":
            return self.running
        if action == "back":
            return not self.running
        if action == "history":
            return self._history_ready()
        return True

    def action_cancel_run(self) -> None:
        if self.running and not self._cancel_asked:
            self._ask_cancel(then_quit=False)

    def action_back(self) -> None:
        if not self.running:
            self.dismiss(self._result_on_back())

    def _quit_if_asked(self) -> None:
        """Quit now if the run was stopped to quit (q while it ran), once it ended."""
        if self._quit_after:
            self.app.exit()

    def _result_on_back(self) -> object:
        """What the screen gives back to the one under it."""
        return None

    def action_quit(self) -> None:
        if self.running:
            self._ask_cancel(then_quit=True)
        else:
            self.app.exit()

    def _ask_cancel(self, *, then_quit: bool) -> None:
        from ..modals.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            self._cancel_asked = False
            if yes and self.running:
                self._stop(then_quit)

        self._cancel_asked = True
        self.app.push_screen(
            ConfirmScreen(
                self._cancel_question(then_quit),
                title="Cancel run",
                yes="Stop fio",
                no="Keep running",
            ),
            answered,
        )
