"""The setup screen's start flow: ``plan_run`` in a thread, then the run screen, or the
refusal with its reason; two refusals are answered with a question instead of a dead
end: O_DIRECT unsupported (run buffered, marked) and raw mode (type the device name).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work

from ...app.tui.bench_messages import PlanReady, PlanRefused
from ...app.tui.context import context
from ...core.bench_models import BenchRefused, RefusalKind, RunRequest
from ..modals.confirm import ConfirmScreen, PromptScreen

if TYPE_CHECKING:
    from textual.app import App

    from ...app.bench.service import BenchAsk
    from ...backends.host import Host
    from ...core.models import Inventory


class PlanFlow:
    """Mixed into the setup screen, which provides the form and ``action_start``."""

    if TYPE_CHECKING:
        host: Host
        inventory: Inventory | None
        planning: bool

        app: App[object]

        def post_message(self, message: object) -> bool: ...

        def action_start(
            self, direct: bool | None = None, raw_confirm: str | None = None
        ) -> None: ...

        def _show_message(self, text: str, *, error: bool = False) -> None: ...

    @work(thread=True, exclusive=True, group="plan", exit_on_error=False)
    def _plan(self, ask: BenchAsk) -> None:
        assert self.inventory is not None
        try:
            request = context(self).bench.plan(self.inventory, ask)
        except BenchRefused as exc:
            self.post_message(PlanRefused(exc, ask.direct))
            return
        except Exception as exc:  # noqa: BLE001 - a preflight bug is shown, not fatal
            from ...core.errors import one_line

            self.post_message(
                PlanRefused(BenchRefused(f"preflight failed: {one_line(exc)}"), ask.direct)
            )
            return
        self.post_message(PlanReady(request))

    def on_plan_refused(self, message: PlanRefused) -> None:
        self.planning = False
        refusal = message.refusal
        self._show_message(f"Refused: {refusal.reason}", error=True)
        if refusal.offer_buffered and message.direct_was is not False:
            question = Text.assemble(
                (refusal.reason, ""),
                "\n\n",
                ("Run with direct=0 (buffered I/O)? ", "bold"),
                ("The page cache will inflate the results; ", "bold yellow"),
                "the run is marked with that warning in the history.",
            )

            def answered(yes: bool | None) -> None:
                if yes:
                    self.action_start(direct=False)

            self.app.push_screen(
                ConfirmScreen(
                    question,
                    title="O_DIRECT not supported",
                    yes="Run with direct=0",
                    no="Cancel",
                ),
                answered,
            )
        elif refusal.kind is RefusalKind.RAW_CONFIRMATION:
            self._ask_raw_confirm(refusal.reason)

    def _ask_raw_confirm(self, reason: str) -> None:
        def typed(name: str | None) -> None:
            if name:
                self.action_start(raw_confirm=name)

        self.app.push_screen(
            PromptScreen(
                Text.assemble((reason, "yellow"), "\n\nType the device name to run in raw mode:"),
                title="Raw mode: destroys the data on the device",
                placeholder="sdX",
            ),
            typed,
        )

    def on_plan_ready(self, message: PlanReady) -> None:
        self.planning = False
        self._show_message("")
        self.open_run(message.request)

    def open_run(self, request: RunRequest) -> None:
        models = {}
        if self.inventory is not None:
            for name in request.target.disks:
                disk = self.inventory.disk(name)
                if disk is not None and disk.model:
                    models[name] = disk.model
        assert self.inventory is not None
        context(self).open_live_run(self.inventory, request, models=models)
