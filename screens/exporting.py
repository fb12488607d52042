"""The export key of the compare view and the run view: the runs as Markdown.

app.export writes the file (its default name, ``tierdeck-run(s)-<ids>.md``, in the
folder tierdeck was started from; an existing file is never replaced) in a thread,
and the screen says where in a notification. One run: its summary, job file and
environment; two to eight: their comparison against the baseline on screen, and each
run's environment, the same file ``tierdeck history export`` writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual import work
from textual.screen import Screen

from ..app.bench_messages import RunsExported
from ..app.export import ExportFormat, ExportRefused, write_export
from ..core.bench_models import RunResult
from ..core.errors import one_line


class Exporting:
    """Mixed into a screen; it calls :meth:`_export_runs` from its export action."""

    exported: str | None = None
    """The last file the export key wrote (tests wait on it)."""

    def _export_runs(self, runs: Sequence[RunResult], baseline: int = 0) -> None:
        self._export_worker(tuple(runs), baseline)

    @work(thread=True, group="export", exit_on_error=False)
    def _export_worker(self, runs: tuple[RunResult, ...], baseline: int) -> None:
        screen: Screen[Any] = self  # type: ignore[assignment]
        try:
            written = write_export(runs, ExportFormat.MARKDOWN, baseline=baseline)
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
        screen.notify(f"Markdown: {message.text}", timeout=10)
