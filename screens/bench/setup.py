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
from textual.widgets import Button, Footer, Header, Input, Label, Select, Static, TextArea

from ...backends.fio.jobfile import check_jobfile
from ...backends.host import Host
from ...core.bench_models import BenchTarget
from ...core.jobspec import JobSpec, JobSpecError
from ...core.models import Inventory
from ...core.presets import PRESETS, Preset, find_preset
from ...widgets.bench.run_options import RunOptions
from .setup_clients import ClientsFromSetup
from .setup_planning import PlanFlow
from .setup_support import (
    CUSTOM,
    CUSTOM_TEMPLATE,
    NO_TARGET,
    JobfileSaving,
    preset_text,
    target_option,
)

__all__ = ["CUSTOM", "BenchSetupScreen"]


class BenchSetupScreen(PlanFlow, JobfileSaving, ClientsFromSetup, Screen[None]):
    CSS_PATH = "../common.tcss"

    BINDINGS = [
        Binding("ctrl+r", "start", "Start", tooltip="check the target, then start fio"),
        Binding("ctrl+o", "save_jobfile", "Save .fio", tooltip="save the job shown as a .fio file"),
        Binding(
            "ctrl+l", "from_hosts", "From hosts", tooltip="run the job from fleet hosts at once"
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
        self.custom_text = CUSTOM_TEMPLATE

    # -- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        self.targets = self._list_targets()
        yield Header()
        with Horizontal(classes="form-row"):
            yield Label("Target", classes="form-label")
            yield Select(
                [target_option(t) for t in self.targets],
                prompt="choose a target, or type a path below",
                compact=True,
                id="target",
            )
        with Horizontal(classes="form-row"):
            yield Label("Path", classes="form-label")
            yield Input(
                placeholder="/mnt/disk1 (an absolute path; test files go here)",
                compact=True,
                id="path",
            )
        yield Static(id="target-note")
        with Horizontal(classes="form-row"):
            yield Label("Preset", classes="form-label")
            options = [(p.title, p.name) for p in PRESETS]
            options.append(("Custom job (edit the text below)", CUSTOM))
            yield Select(
                options, value=PRESETS[0].name, allow_blank=False, compact=True, id="preset"
            )
        yield RunOptions(can_drop=self.host.is_root, id="options")
        yield Static(id="preset-source")
        yield TextArea(id="jobfile", soft_wrap=False, show_line_numbers=False, tab_behavior="focus")
        yield Static(id="job-error")
        yield Static(id="setup-message")
        with Horizontal(id="setup-buttons"):
            yield Button("Start (ctrl+r)", id="start", variant="primary", compact=True)
            yield Button("Save .fio (ctrl+o)", id="save", compact=True)
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

    def _list_targets(self) -> tuple[BenchTarget, ...]:
        if self.inventory is None:
            return ()
        from ...app.bench.target_lookup import list_targets

        try:
            return list_targets(self.inventory)
        except Exception:  # noqa: BLE001 - a picker bug must not block typing a path
            return ()

    def _show_note(self, note: str | None) -> None:
        box = self.query_one("#target-note", Static)
        raw = bool(self.initial_path and self.initial_path.startswith("/dev/"))
        box.update(
            Text(f"{'⚠' if raw else 'ℹ'} {note}", style="bold yellow" if raw else "yellow")
            if note
            else ""
        )
        box.display = bool(note)

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
        jobs, error = check_jobfile(self.query_one("#jobfile", TextArea).text)
        return tuple(jobs), error

    # -- reacting to the form ------------------------------------------------------------------

    @on(Select.Changed, "#preset")
    def _preset_select(self) -> None:
        self._preset_changed()

    def _preset_changed(self) -> None:
        area = self.query_one("#jobfile", TextArea)
        preset = self.preset
        source = self.query_one("#preset-source", Static)
        if preset is None:  # custom: start from the text last shown
            if not area.read_only:
                return
            if area.text.strip():
                self.custom_text = area.text
            area.read_only = False
            area.load_text(self.custom_text)
            area.border_title = "custom job (editable .fio text)"
            source.update(Text("Custom job: edit the text; tab leaves the editor.", style="dim"))
            jobs, _ = check_jobfile(self.custom_text)
            self.options.reset(direct=any(j.direct for j in jobs), drop=False, drop_locked=False)
            self._job_text_changed()
            return
        area.read_only = True
        area.border_title = f"fio parameters: {preset.name}"
        source.update(Text.assemble(("source: ", "bold"), (preset.source, "dim")))
        # A preset that drops caches always does (as root): it is part of its method.
        self.options.reset(
            direct=any(j.direct for j in preset.jobs),
            drop=preset.drop_caches,
            drop_locked=preset.drop_caches,
        )
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
        area = self.query_one("#jobfile", TextArea)
        if area.text != text:
            area.load_text(text)
        self._show_job_error(error)

    @on(TextArea.Changed, "#jobfile")
    def _job_text_changed(self) -> None:
        area = self.query_one("#jobfile", TextArea)
        if area.read_only:
            return
        self.custom_text = area.text
        jobs, error = check_jobfile(area.text)
        if error is None:
            _, error = self.options.apply(tuple(jobs))
        self._show_job_error(error)

    def _show_job_error(self, error: str | None) -> None:
        self.job_error = error
        box = self.query_one("#job-error", Static)
        box.update(Text("✘ " + error, style="bold red") if error else "")
        box.display = bool(error)

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

    @on(Button.Pressed, "#start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Button.Pressed, "#save")
    def _save_pressed(self) -> None:
        self.action_save_jobfile()

    def _show_message(self, text: str, *, error: bool = False) -> None:
        self.message = text
        box = self.query_one("#setup-message", Static)
        box.update(Text(text, style="bold red" if error else "yellow") if text else "")
        box.display = bool(text)

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
        options = self.options
        self._show_message("Checking the target…")
        self.planning = True
        self._plan(
            path,
            jobs,
            preset=self.preset.name if self.preset is not None else None,
            size=options.size_override(),
            runtime=options.runtime_override(),
            direct=direct if direct is not None else options.direct_override(),
            drop_caches=options.drop_caches,
            raw_confirm=raw_confirm,
        )

    def action_back(self) -> None:
        self.dismiss(None)
