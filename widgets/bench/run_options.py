"""One form row: the overrides a benchmark run takes (size, runtime, direct, drop caches).

Empty fields keep what the preset or job says. ``direct`` is an override only once the
user touched it (until then every job keeps its own direct=). The check boxes show
``[x]`` / ``[ ]`` and say their state in words: colour alone is easy to miss over SSH.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label

from ...core.jobspec import JobSpec, JobSpecError, fio_size_bytes, with_overrides
from ..state_checkbox import StateCheckbox

if TYPE_CHECKING:  # the service (its runner, the preflight) loads when a run is asked
    from ...app.bench.service import BenchAsk


class RunOptions(Horizontal):
    class Changed(Message):
        """A field changed: the job text and its error need redrawing."""

    def __init__(self, *, can_drop: bool, id: str | None = None) -> None:
        super().__init__(id=id, classes="form-row")
        self.can_drop = can_drop  # dropping caches needs root
        self.direct_touched = False

    def compose(self) -> ComposeResult:
        yield Label("Size", classes="form-label")
        yield Input(placeholder="preset's", compact=True, id="size")
        yield Label(" Runtime", classes="form-label-inline")
        yield Input(placeholder="preset's", compact=True, id="runtime", type="integer")
        yield Label("s ", classes="form-label-inline")
        yield StateCheckbox("direct=1", compact=True, id="direct")
        yield StateCheckbox("drop caches: no", compact=True, id="drop")

    def on_mount(self) -> None:
        if not self.can_drop:
            drop = self.query_one("#drop", StateCheckbox)
            drop.disabled = True
            drop.tooltip = "dropping caches needs root"

    # -- values -----------------------------------------------------------------------

    def size_override(self) -> str | None:
        text = self.query_one("#size", Input).value.strip()
        if not text:
            return None
        if not (fio_size_bytes(text) or 0) > 0:
            raise JobSpecError(f"size {text!r} is not a size like 64M or 4G")
        return text

    def runtime_override(self) -> int | None:
        text = self.query_one("#runtime", Input).value.strip()
        if not text:
            return None
        if not text.isdigit() or int(text) < 1:
            raise JobSpecError(f"runtime {text!r} must be whole seconds, at least 1")
        return int(text)

    def direct_override(self) -> bool | None:
        return self.query_one("#direct", StateCheckbox).value if self.direct_touched else None

    @property
    def drop_caches(self) -> bool:
        drop = self.query_one("#drop", StateCheckbox)
        return drop.value and not drop.disabled

    def ask(
        self,
        target: str,
        jobs: tuple[JobSpec, ...],
        preset: str | None,
        *,
        direct: bool | None = None,
        raw_confirm: str | None = None,
        name: str | None = None,
    ) -> BenchAsk:
        """The run asked for on ``target`` with these overrides (``direct``: an answer
        to an O_DIRECT refusal, over the box). Raises JobSpecError on a bad field."""
        from ...app.bench.service import BenchAsk

        return BenchAsk(
            target=target,
            jobs=jobs,
            preset=preset,
            size=self.size_override(),
            runtime=self.runtime_override(),
            direct=direct if direct is not None else self.direct_override(),
            drop_caches=self.drop_caches,
            raw_confirm=raw_confirm,
            name=name,
        )

    def apply(self, jobs: tuple[JobSpec, ...]) -> tuple[tuple[JobSpec, ...], str | None]:
        """The jobs with the overrides, or the jobs unchanged and what is wrong."""
        try:
            return with_overrides(
                jobs, self.size_override(), self.runtime_override(), self.direct_override()
            ), None
        except JobSpecError as exc:
            return jobs, str(exc)

    def reset(self, *, direct: bool, drop: bool, drop_locked: bool) -> None:
        """A new preset or job: its own direct= and drop-caches, nothing touched yet."""
        box = self.query_one("#direct", StateCheckbox)
        drop_box = self.query_one("#drop", StateCheckbox)
        self.direct_touched = False
        with self.prevent(StateCheckbox.Changed):
            box.value = direct
            drop_box.value = drop and self.can_drop
            drop_box.disabled = drop_locked or not self.can_drop
        self._label()

    def reset_for(self, jobs: tuple[JobSpec, ...], *, drops_caches: bool = False) -> None:
        """A preset's or a custom job's start: direct as its jobs say; a preset that
        drops caches always does (as root): it is part of its method."""
        self.reset(direct=any(j.direct for j in jobs), drop=drops_caches, drop_locked=drops_caches)

    # -- events -----------------------------------------------------------------------

    @on(Input.Changed, "#size, #runtime")
    def _field_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed())

    @on(StateCheckbox.Changed, "#direct")
    def _direct_changed(self, event: StateCheckbox.Changed) -> None:
        event.stop()
        self.direct_touched = True
        self._label()
        self.post_message(self.Changed())

    @on(StateCheckbox.Changed, "#drop")
    def _drop_changed(self, event: StateCheckbox.Changed) -> None:
        event.stop()
        self._label()

    def _label(self) -> None:
        box = self.query_one("#direct", StateCheckbox)
        box.label = "direct=1" if box.value else "direct=0"
        drop = self.query_one("#drop", StateCheckbox)
        drop.label = "drop caches: yes" if drop.value else "drop caches: no"
