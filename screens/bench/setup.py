"""Benchmark setup: where (a target), what (a preset or a custom .fio job), how long.

Everything shown is what will run: the job text is ``Preset.to_jobfile`` with the size,
runtime and direct overrides applied and the target's file names filled in, so it can
be saved (ctrl+o) and run by hand with ``fio FILE``. "Custom job" makes the text
editable; it is parsed with ``parse_jobfile`` as you type, errors with their line.

Opened from a disk row, the screen carries the dashboard's note (app/bench/targets):
raw mode ahead for an unused disk, or why there is no target and what to benchmark.

Start (ctrl+r) asks ``plan_run`` in a thread (screens/bench/setup_planning). A refusal is
shown with its reason; an O_DIRECT refusal is answered with an explicit offer of
direct=0, a raw-mode one with a prompt for the device name typed to confirm. An error
in the job or in the size/runtime fields is shown once, in its box under the job.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, Select, Static, TextArea

from ...app.bench.target_lookup import picker_targets
from ...backends.fio.jobfile import check_jobfile
from ...backends.host import Host
from ...core.bench_models import BenchTarget
from ...core.jobspec import JobSpec, JobSpecError
from ...core.models import Inventory
from ...core.presets import PRESETS, Preset, find_preset
from ...widgets.bench.job_editor import JobEditor
from ...widgets.bench.run_options import RunOptions
from ...widgets.form_row import form_row
from ...widgets.shown_text import show_or_hide
from .setup_clients import ClientsFromSetup
from .setup_planning import PlanFlow
from .setup_support import (
    CUSTOM,
    CUSTOM_TEMPLATE,
    NO_TARGET,
    JobfileSaving,
    preset_choices,
    preset_text,
    target_note,
    target_option,
)

__all__ = ["CUSTOM", "BenchSetupScreen"]


class BenchSetupScreen(PlanFlow, JobfileSaving, ClientsFromSetup, Screen[None]):
    CSS_PATH = "../common.tcss"

    BINDINGS = [
        Binding("ctrl+r", "start", "Start", tooltip="check the target, then start fio"),
        Binding("ctrl+o", "save_jobfile", "Save .fio", tooltip="save the job shown as a .fio file"),
        Binding(
            "ctrl+l", "from_hosts", "From hosts", tooltip="the job on fleet hosts, or compare them"
        ),
        Binding("escape", "back", "Back", tooltip="back to the dashboard"),
    ]
    HELP_TITLE = "tierdeck keys: benchmark setup"
    HELP_NOTES = (
        ("tab / shift+tab", "next / previous field (tab leaves the job editor too)"),
        ("enter", "open a list; in a text field: start"),
        ("space", "tick or untick direct / drop caches"),
        ("up / down", "move in an open list; scroll the job text"),
        ("escape", "close this help"),
    )

    planning: var[bool] = var(False)
    """A plan_run is in flight (tests wait on it)."""
    message: var[str] = var("")
    """The last refusal or error shown under the form."""
    job_error: var[str | None] = var(None)
    """What is wrong with the job or the size/runtime fields, shown once, in its box."""

    def __init__(
        self,
        host: Host,
        inventory: Inventory | None,
        *,
        initial_path: str | None = None,
        note: str | None = None,
    ) -> None:
        """``note``: why the dashboard proposed this target, or why none (shown until
        the path changes)."""
        super().__init__(id="bench-setup")
        self.host = host
        self.inventory = inventory
        self.initial_path = initial_path
        self.note = note
        self.targets: tuple[BenchTarget, ...] = ()

    # -- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        self.targets = picker_targets(self.inventory)
        yield Header()
        yield form_row("Target", Select([target_option(t) for t in self.targets], compact=True,
                                        prompt="choose a target, or type a path below",
                                        id="target"))  # fmt: skip
        yield form_row("Path", Input(placeholder="/mnt/disk1 (an absolute path; test files go here)",
                                     compact=True, id="path"))  # fmt: skip
        yield Static(id="target-note")
        yield form_row("Preset", Select(preset_choices(), value=PRESETS[0].name,
                                        allow_blank=False, compact=True, id="preset"))  # fmt: skip
        yield RunOptions(can_drop=self.host.is_root, id="options")
        yield Static(id="preset-source")
        yield JobEditor(CUSTOM_TEMPLATE, id="jobfile")
        yield Static(id="job-error")
        yield Static(id="setup-message")
        with Horizontal(id="setup-buttons"):  # each button runs its key's action
            yield Button("Start (ctrl+r)", id="start", variant="primary", compact=True,
                         action="screen.start")  # fmt: skip
            yield Button(
                "Save .fio (ctrl+o)", id="save", compact=True, action="screen.save_jobfile"
            )
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "benchmark setup"
        if self.inventory is None:
            self._show_message(
                "The inventory is not loaded: targets cannot be checked.", error=True
            )
        if self.initial_path:
            self.query_one("#path", Input).value = self.initial_path
            self._sync_target_select(self.initial_path)
        self._show_note(self.note)
        self._preset_changed()
        (self.query_one("#path", Input) if not self.targets else self.query_one("#target")).focus()

    def _show_note(self, note: str | None) -> None:
        raw = bool(self.initial_path and self.initial_path.startswith("/dev/"))
        show_or_hide(self.query_one("#target-note", Static), target_note(note, raw=raw))

    # -- form state -------------------------------------------------------------------------

    @property
    def preset_name(self) -> str:
        value = self.query_one("#preset", Select).value
        return value if isinstance(value, str) else PRESETS[0].name

    @property
    def preset(self) -> Preset | None:
        return find_preset(self.preset_name)

    @property
    def path(self) -> str:
        return self.query_one("#path", Input).value.strip()

    @property
    def options(self) -> RunOptions:
        return self.query_one(RunOptions)

    def base_jobs(self) -> tuple[tuple[JobSpec, ...], str | None]:
        """The chosen jobs before overrides, or an error to show."""
        preset = self.preset
        if preset is not None:
            return preset.jobs, None
        jobs, error = check_jobfile(self.query_one(JobEditor).text)
        return tuple(jobs), error

    # -- reacting to the form ------------------------------------------------------------------

    @on(Select.Changed, "#preset")
    def _preset_select(self) -> None:
        self._preset_changed()

    def _preset_changed(self) -> None:
        editor = self.query_one(JobEditor)
        preset = self.preset
        source = self.query_one("#preset-source", Static)
        if preset is None:  # custom: start from the text last shown
            if not editor.show_custom():
                return
            source.update(Text("Custom job: edit the text; tab leaves the editor.", style="dim"))
            self.options.reset_for(tuple(check_jobfile(editor.custom_text)[0]))
            self._job_text_changed()
            return
        editor.show_preset(preset.name)
        source.update(Text.assemble(("source: ", "bold"), (preset.source, "dim")))
        self.options.reset_for(preset.jobs, drops_caches=preset.drop_caches)
        self._refresh_preset_text()

    def _refresh_preset_text(self) -> None:
        preset = self.preset
        if preset is None:
            return
        jobs, error = self.options.apply(preset.jobs)
        target_dir = (
            self.path if self.path.startswith("/") and not self.path.startswith("/dev/") else None
        )
        try:
            text = preset_text(preset, jobs, target_dir)
        except JobSpecError:
            text = preset_text(preset, jobs, None)
        self.query_one(JobEditor).show_text(text)
        self._show_job_error(error)

    @on(TextArea.Changed, "#jobfile")
    def _job_text_changed(self) -> None:
        text = self.query_one(JobEditor).typed()
        if text is None:
            return
        jobs, error = check_jobfile(text)
        if error is None:
            _, error = self.options.apply(tuple(jobs))
        self._show_job_error(error)

    def _show_job_error(self, error: str | None) -> None:
        self.job_error = error
        show_or_hide(
            self.query_one("#job-error", Static),
            Text("✘ " + error, style="bold red") if error else None,
        )

    @on(RunOptions.Changed)
    def _override_changed(self) -> None:
        if self.preset is not None:
            self._refresh_preset_text()
        else:
            self._job_text_changed()

    @on(Select.Changed, "#target")
    def _target_chosen(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            path_input = self.query_one("#path", Input)
            if path_input.value != event.value:
                with self.prevent(Input.Changed):
                    path_input.value = event.value
                self._path_changed(event.value)

    @on(Input.Changed, "#path")
    def _path_typed(self, event: Input.Changed) -> None:
        self._sync_target_select(event.value.strip())
        self._path_changed(event.value.strip())

    def _path_changed(self, path: str) -> None:
        if self.note and path != (self.initial_path or ""):
            self.note = None  # it spoke of the target the dashboard proposed
            self._show_note(None)
        if self.preset is not None:
            self._refresh_preset_text()

    def _sync_target_select(self, path: str) -> None:
        select = self.query_one("#target", Select)
        known = any(t.path == path for t in self.targets)
        wanted = path if known else NO_TARGET
        if select.value != wanted:
            with self.prevent(Select.Changed):
                select.value = wanted

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_start()

    def _show_message(self, text: str, *, error: bool = False) -> None:
        self.message = text
        shown = Text(text, style="bold red" if error else "yellow") if text else None
        show_or_hide(self.query_one("#setup-message", Static), shown)

    # -- start ------------------------------------------------------------------------------

    def action_start(self, direct: bool | None = None, raw_confirm: str | None = None) -> None:
        if self.planning:
            return
        if self.inventory is None:
            self._show_message(
                "Wait for the inventory to load (or press r on the dashboard).", error=True
            )
            return
        path = self.path
        if not path:
            self._show_message("Choose a target, or type the path of a directory.", error=True)
            self.query_one("#path", Input).focus()
            return
        jobs, error = self.base_jobs()
        if error is None:
            _, error = self.options.apply(jobs)
        if error is not None:
            # The job-error box says it already: once, there, with a bell to point at it.
            self._show_job_error(error)
            self._show_message("")
            self.app.bell()
            return
        self._show_message("Checking the target…")
        self.planning = True
        preset = self.preset.name if self.preset is not None else None
        self._plan(self.options.ask(path, jobs, preset, direct=direct, raw_confirm=raw_confirm))

    def action_back(self) -> None:
        self.dismiss(None)
