"""What a benchmark shows while it runs: runner events as a live progress bar on a
terminal's stderr, or as plain notices (``bench run``; ``bench sweep`` and ``bench
ladder`` add their own lines around it)."""

from __future__ import annotations

import errno
import shlex
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import click

from ....core.bench_models import RunWarning
from ....core.units import fmt_clock, fmt_mib

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.progress import Progress, TaskID


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


def _live_progress(console: Console, below: Callable[[], RenderableType | None]) -> Progress:
    """A bar with phase, ETA and live MiB/s; ``below()`` adds a line under it (disks)."""
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

    class _RunProgress(Progress):
        def get_renderables(self) -> Iterator[RenderableType]:
            yield self.make_tasks_table(self.tasks)
            extra = below()
            if extra is not None:
                yield extra

    return _RunProgress(
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("ETA {task.fields[eta]}"),
        TextColumn("{task.fields[rate]}"),
        console=console,
        transient=True,  # the summary table replaces it
    )


def rate_text(read_bytes_per_s: float, write_bytes_per_s: float) -> str:
    return f"read {fmt_mib(read_bytes_per_s)} MiB/s  write {fmt_mib(write_bytes_per_s)} MiB/s"


class RunReporter:
    """Turns runner events into what the user sees. ``live``: a rich progress bar on
    stderr; otherwise notices as plain stderr lines (nothing at all goes to stdout,
    which belongs to --json)."""

    def __init__(self, *, live: bool) -> None:
        self.live = live
        self.progress: Progress | None = None
        self._task: TaskID | None = None
        self._rate = ""
        self._disks: RenderableType | None = None
        self._said: set[str] = set()
        self.stderr_gone = False

    def __enter__(self) -> RunReporter:
        if self.live:
            # rich only for the live bar: off a terminal (--json, the journal) its ~0.1 s
            # of imports would be paid for nothing
            from rich.console import Console

            console = Console(stderr=True, highlight=False)
            self.progress = _live_progress(console, lambda: self._disks)
            self._task = self.progress.add_task("starting", total=1.0, eta="--:--", rate="")
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def say(self, text: str) -> None:
        if self.stderr_gone:
            return
        try:
            if self.progress is not None:
                self.progress.console.print(text, markup=False, highlight=False)
            else:
                click.echo(f"tierdeck: {text}", err=True)
        except OSError as exc:
            # `2>&1 | head`: the reader left, but the run must still finish, clean up
            # and be saved; a notice nobody reads is no reason to abandon it.
            if exc.errno != errno.EPIPE:
                raise
            self.stderr_gone = True

    def describe(self, text: str) -> None:
        """Replace the live bar's description (a sweep puts its cell before the phase)."""
        if self.progress is not None and self._task is not None:
            self.progress.update(self._task, description=text)

    def say_before_start(self, warnings: Sequence[RunWarning]) -> None:
        """The request's warnings, before anything runs; the runner repeats them as
        notices once it starts, which would say them twice."""
        for warning in warnings:
            self.say(warning.text)
        self._said.update(w.text for w in warnings)

    def __call__(self, event: Any) -> None:
        from ...bench import events as ev

        if isinstance(event, ev.Notice):
            if event.text in self._said:
                self._said.discard(event.text)
            else:
                self.say(event.text)
        elif isinstance(event, ev.RunStarted):
            if self.live:
                self.say(f"running: {shlex.join(event.command)}")
        elif isinstance(event, ev.StoreFailed):
            self.say(f"the run could not be saved: {event.error}")
        elif self.progress is None or self._task is None:
            return
        elif isinstance(event, ev.Progress):
            self.progress.update(
                self._task,
                completed=min(max(event.fraction, 0.0), 1.0),
                description=event.phase,
                eta=fmt_clock(event.eta_s),
                rate=self._rate,
            )
        elif isinstance(event, ev.SampleReady):
            s = event.sample
            self._rate = rate_text(s.read.bw_bytes_per_s, s.write.bw_bytes_per_s)
            self.progress.update(self._task, rate=self._rate)
        elif isinstance(event, ev.DevicesReady):
            from rich.text import Text

            parts = [
                f"{d.device} {fmt_mib(d.read_bytes_per_s)}/{fmt_mib(d.write_bytes_per_s)} "
                f"{d.util_pct:.0f}%"
                for d in event.samples
            ]
            self._disks = Text("disks (read/write MiB/s, busy): " + "   ".join(parts), style="dim")
