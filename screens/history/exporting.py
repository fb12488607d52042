"""The export key of the compare view and the run view: the runs as a file to share.

The key asks for the format (Markdown, CSV, JSON or HTML) and whether to redact
(screens/modals/export_choice.py); app.export writes the file (its default name,
``tierdeck-run(s)-<ids>[-redacted].<ext>``, in the folder tierdeck was started from; an
existing file is never replaced) in a thread, and the screen says where in a
notification. One run: its summary, job file and environment; two to eight: their
comparison against the baseline on screen, and each run's environment: the same file
``tierdeck history export`` writes. Redacting here also removes this machine's host
name and its disks' serials and WWNs, which the TUI's inventory knows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual import work
from textual.screen import Screen

from ...app.export.formats import machine_identifiers, write_export
from ...app.export.parts import ExportRefused
from ...app.tui.bench_messages import RunsExported
from ...app.tui.context import context
from ...core.bench_models import RunResult
from ...core.errors import one_line
from ...core.redact import NOTHING_KNOWN
from ..modals.export_choice import ExportChoice, ExportChoiceScreen


class Exporting:
    """Mixed into a screen; it calls :meth:`_export_runs` from its export action."""

    exported: str | None = None
    """The last file the export key wrote (tests wait on it)."""

    def _export_runs(self, runs: Sequence[RunResult], baseline: int = 0) -> None:
        screen: Screen[Any] = self  # type: ignore[assignment]
        chosen = tuple(runs)

        def answered(choice: ExportChoice | None) -> None:
            if choice is not None:
                self._export_worker(chosen, baseline, choice)

        what = f"run #{chosen[0].id}" if len(chosen) == 1 else f"{len(chosen)} runs"
        screen.app.push_screen(ExportChoiceScreen(what), answered)

    @work(thread=True, group="export", exit_on_error=False)
    def _export_worker(
        self, runs: tuple[RunResult, ...], baseline: int, choice: ExportChoice
    ) -> None:
        screen: Screen[Any] = self  # type: ignore[assignment]
        app = context(screen)
        known = machine_identifiers(app.host, app.inventory) if choice.redact else NOTHING_KNOWN
        try:
            written = write_export(
                runs, choice.fmt, baseline=baseline, redact=choice.redact, known=known
            )
        except (ExportRefused, OSError) as exc:
            screen.post_message(RunsExported(None, "", one_line(exc)))
            return
        screen.post_message(RunsExported(str(written.path), written.message()))

    def on_runs_exported(self, message: RunsExported) -> None:
        screen: Screen[Any] = self  # type: ignore[assignment]
        if message.error is not None:
            screen.notify(f"Export failed: {message.error}", severity="error", timeout=10)
            return
        self.exported = message.path
        screen.notify(f"Export: {message.text}", timeout=10)
