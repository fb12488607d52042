"""Benchmark setup: where (a target), what (a preset or a custom .fio job), how long.

Everything shown is what will run: the job text is ``Preset.to_jobfile`` with the size,
runtime and direct overrides applied and the target's file names filled in, so it can
be saved (ctrl+o) and run by hand with ``fio FILE``. "Custom job" makes the text
editable; it is parsed with ``parse_jobfile`` as you type, errors with their line.

Start (ctrl+r) asks ``plan_run`` in a thread (it probes the target with a real write).
A refusal is shown with its reason. When the target cannot do O_DIRECT, the answer is
an explicit question: run with direct=0, knowing the page cache will inflate results.
A block device needs raw mode: its name typed to confirm.
"""

from __future__ import annotations

import os
import tempfile
import textwrap
from dataclasses import replace
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Footer, Header, Input, Label, Select, Static, TextArea
from tierdeck.app.bench_messages import JobfileSaved, PlanReady, PlanRefused
from tierdeck.backends.host import Host
from tierdeck.core.bench_models import BenchRefused, BenchTarget, RunRequest
from tierdeck.core.errors import ParseError
from tierdeck.core.jobspec import (
    PRESETS,
    JobSpec,
    JobSpecError,
    Preset,
    fio_size_bytes,
    with_overrides,
)
from tierdeck.core.models import Inventory
from tierdeck.screens.confirm import ConfirmScreen, PromptScreen

CUSTOM = "__custom__"
NO_TARGET = Select.NULL

_CUSTOM_TEMPLATE = """\
; A custom fio job. [global] applies to every job below it; stonewall waits for the
; jobs before it. tierdeck chooses the file names (filename= is ignored).
[global]
ioengine=libaio
direct=1
size=256M
runtime=30
time_based

[seq-write]
rw=write
bs=1M
iodepth=8
"""


def suggest_path(inv: Inventory, selected: object) -> str | None:
    """A benchmark target for what is selected on the dashboard: a mergerfs pool or
    branch, a mounted dataset or filesystem, or the first target on a disk."""
    from tierdeck.core.models import (
        BtrfsFilesystem,
        Disk,
        MdArray,
        MergerfsBranch,
        MergerfsPool,
        ZfsDataset,
        ZPool,
    )

    def mounted(point: str | None) -> str | None:
        return point if point and any(m.mountpoint == point for m in inv.mounts) else None

    if isinstance(selected, MergerfsPool):
        return selected.mountpoint
    if isinstance(selected, MergerfsBranch):
        return selected.path
    if isinstance(selected, ZfsDataset):
        return mounted(selected.mountpoint)
    pool = getattr(selected, "pool", None)  # a vdev row of the pool tree
    if isinstance(pool, ZPool):
        selected = pool
    if isinstance(selected, ZPool):
        root = next((d for d in inv.zfs.datasets if d.name == selected.name), None)
        return mounted(root.mountpoint) if root is not None else None
    if isinstance(selected, BtrfsFilesystem):
        return selected.mountpoints[0] if selected.mountpoints else None
    if isinstance(selected, MdArray):
        found = next((m for m in inv.mounts if m.source.rsplit("/", 1)[-1] == selected.name), None)
        return found.mountpoint if found is not None else None
    if isinstance(selected, Disk):
        from tierdeck.app.bench_preflight import list_targets

        try:
            targets = list_targets(inv)
        except Exception:  # noqa: BLE001 - no suggestion is fine
            return None
        return next((t.path for t in targets if selected.name in t.disks), None)
    return None


def preset_by_name(name: str) -> Preset | None:
    return next((p for p in PRESETS if p.name == name), None)


def target_option(target: BenchTarget) -> tuple[str, str]:
    disks = ", ".join(target.disks) if target.disks else "no local disk"
    return f"{target.label} — {disks}", target.path


def preset_text(preset: Preset, jobs: tuple[JobSpec, ...], target_dir: str | None) -> str:
    """The preset's job file, its description added as comments."""
    body = replace(preset, jobs=jobs).to_jobfile(target_dir)
    head, _, rest = body.partition("\n\n")
    # 70 columns: the text area at 80x24 shows the comments without scrolling sideways
    about = textwrap.wrap(preset.description, width=70, initial_indent="; ", subsequent_indent="; ")
    flags = []
    if preset.lay_out_first:
        flags.append("; tierdeck lays the files out first (fio --create_only=1)")
    if preset.drop_caches:
        flags.append("; tierdeck drops the page cache before measuring (root only)")
    return "\n".join([head, *about, *flags]) + "\n\n" + rest


def job_errors(text: str) -> tuple[list[JobSpec], str | None]:
    """Parse and validate a custom job; the error names its line when it can."""
    from tierdeck.backends.fio_jobfile import parse_jobfile

    try:
        jobs = parse_jobfile(text)
    except ParseError as exc:
        return [], exc.detail
    if not jobs:
        return [], "no job section: add one, like [my-job] with rw=... under it"
    for job in jobs:
        try:
            job.validate()
        except JobSpecError as exc:
            return jobs, f"{_section_line(text, job.name)}{exc}"
    return jobs, None


def _section_line(text: str, name: str) -> str:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() == f"[{name}]":
            return f"line {number}: "
    return ""


def write_atomically(path: Path, text: str) -> None:
    """Temp file in the same folder, fsync, rename: never a half-written job file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class BenchSetupScreen(Screen[None]):
    CSS_PATH = "bench.tcss"

    BINDINGS = [
        Binding("ctrl+r", "start", "Start"),
        Binding("ctrl+o", "save_jobfile", "Save .fio"),
        Binding("escape", "back", "Back"),
    ]

    planning: var[bool] = var(False)
    """A plan_run is in flight (tests wait on it)."""
    message: var[str] = var("")
    """The last refusal or error shown under the form."""

    def __init__(
        self,
        host: Host,
        inventory: Inventory | None,
        *,
        initial_path: str | None = None,
    ) -> None:
        super().__init__(id="bench-setup")
        self.host = host
        self.inventory = inventory
        self.initial_path = initial_path
        self.targets: tuple[BenchTarget, ...] = ()
        self.custom_text = _CUSTOM_TEMPLATE
        self._direct_touched = False

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
        with Horizontal(classes="form-row"):
            yield Label("Preset", classes="form-label")
            options = [(p.title, p.name) for p in PRESETS]
            options.append(("Custom job (edit the text below)", CUSTOM))
            yield Select(
                options, value=PRESETS[0].name, allow_blank=False, compact=True, id="preset"
            )
        with Horizontal(classes="form-row"):
            yield Label("Size", classes="form-label")
            yield Input(placeholder="preset's", compact=True, id="size")
            yield Label(" Runtime", classes="form-label-inline")
            yield Input(placeholder="preset's", compact=True, id="runtime", type="integer")
            yield Label("s ", classes="form-label-inline")
            yield Checkbox("direct=1", compact=True, id="direct")
            yield Checkbox("drop caches: no", compact=True, id="drop")
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
        if not self.host.is_root:
            drop = self.query_one("#drop", Checkbox)
            drop.disabled = True
            drop.tooltip = "dropping caches needs root"
        if self.inventory is None:
            self._show_message(
                "The inventory is not loaded: targets cannot be checked.", error=True
            )
        if self.initial_path:
            self.query_one("#path", Input).value = self.initial_path
            self._sync_target_select(self.initial_path)
        self._preset_changed()
        (self.query_one("#path", Input) if not self.targets else self.query_one("#target")).focus()

    def _list_targets(self) -> tuple[BenchTarget, ...]:
        if self.inventory is None:
            return ()
        from tierdeck.app.bench_preflight import list_targets

        try:
            return list_targets(self.inventory)
        except Exception:  # noqa: BLE001 - a picker bug must not block typing a path
            return ()

    # -- form state -------------------------------------------------------------------------

    @property
    def preset_name(self) -> str:
        value = self.query_one("#preset", Select).value
        return value if isinstance(value, str) else PRESETS[0].name

    @property
    def preset(self) -> Preset | None:
        return preset_by_name(self.preset_name)

    @property
    def path(self) -> str:
        return self.query_one("#path", Input).value.strip()

    def _size_override(self) -> str | None:
        text = self.query_one("#size", Input).value.strip()
        if not text:
            return None
        if not (fio_size_bytes(text) or 0) > 0:
            raise JobSpecError(f"size {text!r} is not a size like 64M or 4G")
        return text

    def _runtime_override(self) -> int | None:
        text = self.query_one("#runtime", Input).value.strip()
        if not text:
            return None
        if not text.isdigit() or int(text) < 1:
            raise JobSpecError(f"runtime {text!r} must be whole seconds, at least 1")
        return int(text)

    def _direct_override(self) -> bool | None:
        return self.query_one("#direct", Checkbox).value if self._direct_touched else None

    def base_jobs(self) -> tuple[tuple[JobSpec, ...], str | None]:
        """The chosen jobs before overrides, or an error to show."""
        preset = self.preset
        if preset is not None:
            return preset.jobs, None
        jobs, error = job_errors(self.query_one("#jobfile", TextArea).text)
        return tuple(jobs), error

    # -- reacting to the form ------------------------------------------------------------------

    @on(Select.Changed, "#preset")
    def _preset_select(self) -> None:
        self._preset_changed()

    def _preset_changed(self) -> None:
        area = self.query_one("#jobfile", TextArea)
        preset = self.preset
        direct = self.query_one("#direct", Checkbox)
        drop = self.query_one("#drop", Checkbox)
        source = self.query_one("#preset-source", Static)
        self._direct_touched = False
        if preset is None:  # custom: start from the text last shown
            if not area.read_only:
                return
            if area.text.strip():
                self.custom_text = area.text
            area.read_only = False
            area.load_text(self.custom_text)
            area.border_title = "custom job (editable .fio text)"
            source.update(Text("Custom job: edit the text; tab leaves the editor.", style="dim"))
            jobs, _ = job_errors(self.custom_text)
            with self.prevent(Checkbox.Changed):
                direct.value = any(j.direct for j in jobs)
                drop.value = False
                drop.disabled = not self.host.is_root
            self._label_direct()
            self._job_text_changed()
            return
        area.read_only = True
        area.border_title = f"fio parameters: {preset.name}"
        source.update(Text.assemble(("source: ", "bold"), (preset.source, "dim")))
        with self.prevent(Checkbox.Changed):
            direct.value = any(j.direct for j in preset.jobs)
            drop.value = preset.drop_caches and self.host.is_root
            # A preset that drops caches always does (as root); it is part of the method.
            drop.disabled = preset.drop_caches or not self.host.is_root
        self._label_direct()
        self._refresh_preset_text()

    def _refresh_preset_text(self) -> None:
        preset = self.preset
        if preset is None:
            return
        error = None
        jobs = preset.jobs
        try:
            jobs = with_overrides(
                preset.jobs,
                self._size_override(),
                self._runtime_override(),
                self._direct_override(),
            )
        except JobSpecError as exc:
            error = str(exc)
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
        jobs, error = job_errors(area.text)
        if error is None:
            try:
                with_overrides(
                    tuple(jobs),
                    self._size_override(),
                    self._runtime_override(),
                    self._direct_override(),
                )
            except JobSpecError as exc:
                error = str(exc)
        self._show_job_error(error)

    def _show_job_error(self, error: str | None) -> None:
        box = self.query_one("#job-error", Static)
        box.update(Text("✘ " + error, style="bold red") if error else "")
        box.display = bool(error)

    @on(Input.Changed, "#size, #runtime")
    def _override_changed(self) -> None:
        if self.preset is not None:
            self._refresh_preset_text()
        else:
            self._job_text_changed()

    @on(Checkbox.Changed, "#direct")
    def _direct_changed(self) -> None:
        self._direct_touched = True
        self._label_direct()
        self._override_changed()

    @on(Checkbox.Changed, "#drop")
    def _drop_changed(self) -> None:
        self._label_direct()

    def _label_direct(self) -> None:
        # The box's colour alone is easy to miss over SSH: say it in words.
        box = self.query_one("#direct", Checkbox)
        box.label = "direct=1" if box.value else "direct=0"
        drop = self.query_one("#drop", Checkbox)
        drop.label = "drop caches: yes" if drop.value else "drop caches: no"

    @on(Select.Changed, "#target")
    def _target_chosen(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            path_input = self.query_one("#path", Input)
            if path_input.value != event.value:
                with self.prevent(Input.Changed):
                    path_input.value = event.value
                self._refresh_preset_text()

    @on(Input.Changed, "#path")
    def _path_typed(self, event: Input.Changed) -> None:
        self._sync_target_select(event.value.strip())
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
        if error is not None:
            self._show_message(f"The job has an error: {error}", error=True)
            return
        try:
            size, runtime = self._size_override(), self._runtime_override()
        except JobSpecError as exc:
            self._show_message(str(exc), error=True)
            return
        wanted_direct = direct if direct is not None else self._direct_override()
        drop = self.query_one("#drop", Checkbox)
        self._show_message("Checking the target…")
        self.planning = True
        self._plan(
            path,
            jobs,
            preset=self.preset.name if self.preset is not None else None,
            size=size,
            runtime=runtime,
            direct=wanted_direct,
            drop_caches=drop.value and not drop.disabled,
            raw_confirm=raw_confirm,
        )

    @work(thread=True, exclusive=True, group="plan", exit_on_error=False)
    def _plan(
        self,
        path: str,
        jobs: tuple[JobSpec, ...],
        *,
        preset: str | None,
        size: str | None,
        runtime: int | None,
        direct: bool | None,
        drop_caches: bool,
        raw_confirm: str | None,
    ) -> None:
        from tierdeck.app.bench_preflight import plan_run

        assert self.inventory is not None
        try:
            request = plan_run(
                self.host,
                self.inventory,
                path,
                jobs,
                preset=preset,
                size=size,
                runtime=runtime,
                direct=direct,
                drop_caches=drop_caches,
                raw_confirm=raw_confirm,
            )
        except BenchRefused as exc:
            self.post_message(PlanRefused(exc, direct))
            return
        except Exception as exc:  # noqa: BLE001 - a preflight bug is shown, not fatal
            from tierdeck.core.errors import one_line

            self.post_message(
                PlanRefused(BenchRefused(f"preflight failed: {one_line(exc)}"), direct)
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
        elif self.path.startswith("/dev/") and "typed to confirm" in refusal.reason:
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
        from tierdeck.screens.run import RunScreen

        models = {}
        if self.inventory is not None:
            for name in request.target.disks:
                disk = self.inventory.disk(name)
                if disk is not None and disk.model:
                    models[name] = disk.model
        self.app.push_screen(RunScreen(self.host, request, models=models))

    # -- saving the job as a .fio file ---------------------------------------------------------

    def action_save_jobfile(self) -> None:
        text = self.query_one("#jobfile", TextArea).text
        if not text.strip():
            self._show_message("Nothing to save.", error=True)
            return
        name = self.preset.name if self.preset is not None else "custom-job"
        default = str(Path.cwd() / f"{name}.fio")

        def validate(value: str) -> str | None:
            value = value.strip()
            if not value:
                return "type a file name"
            path = Path(value).expanduser()
            if path.is_dir():
                return f"{path} is a directory"
            if not path.parent.is_dir():
                return f"{path.parent} does not exist"
            return None

        def chosen(value: str | None) -> None:
            if not value:
                return
            path = Path(value.strip()).expanduser().absolute()
            if path.exists():

                def overwrite(yes: bool | None) -> None:
                    if yes:
                        self._write_jobfile(path, text)

                self.app.push_screen(
                    ConfirmScreen(
                        f"{path} exists. Replace it with this job?",
                        title="Overwrite?",
                        yes="Overwrite",
                        no="Keep it",
                        danger=True,
                    ),
                    overwrite,
                )
            else:
                self._write_jobfile(path, text)

        self.app.push_screen(
            PromptScreen(
                "Save the job shown as a .fio file (it runs by hand with: fio FILE).",
                title="Save .fio",
                value=default,
                validate=validate,
            ),
            chosen,
        )

    @work(thread=True, group="save-jobfile", exit_on_error=False)
    def _write_jobfile(self, path: Path, text: str) -> None:
        try:
            write_atomically(path, text)
        except OSError as exc:
            self.post_message(JobfileSaved(str(path), exc.strerror or str(exc)))
            return
        self.post_message(JobfileSaved(str(path), None))

    def on_jobfile_saved(self, message: JobfileSaved) -> None:
        if message.error is None:
            self.notify(f"Saved {message.path}")
        else:
            self.notify(f"Could not save {message.path}: {message.error}", severity="error")

    def action_back(self) -> None:
        self.dismiss(None)
