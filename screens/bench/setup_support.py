"""The setup screen's helpers: preset and job text, and saving a job as a .fio file.

Kept apart from the screen so the screen is its form and its flow; everything here is
either a pure function or the save-as flow (a prompt, then an atomic write in a thread).
"""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.widgets import Select, TextArea

from ...app.tui.bench_messages import JobfileSaved
from ...backends.localfiles import write_atomically
from ...core.bench_models import BenchTarget
from ...core.jobspec import JobSpec
from ...core.presets import PRESETS, Preset
from ..modals.confirm import ConfirmScreen, PromptScreen

if TYPE_CHECKING:
    from textual.screen import Screen

CUSTOM = "__custom__"
NO_TARGET = Select.NULL

CUSTOM_TEMPLATE = """\
; A custom fio job. [global] applies to every job below it; stonewall waits for the
; jobs before it. The files go under the target (fio's directory=), one per clone as
; with plain fio; a filename= must stay inside the target.
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


def target_option(target: BenchTarget) -> tuple[str, str]:
    disks = ", ".join(target.disks) if target.disks else "no local disk"
    return f"{target.label} — {disks}", target.path


def preset_choices() -> list[tuple[str, str]]:
    """The preset menu: every preset by its title, then the custom job."""
    return [(p.title, p.name) for p in PRESETS] + [("Custom job (edit the text below)", CUSTOM)]


def target_note(note: str | None, *, raw: bool) -> Text | None:
    """Why the dashboard proposed this target (or none): a warning ahead of raw mode."""
    if not note:
        return None
    return Text(f"{'⚠' if raw else 'ℹ'} {note}", style="bold yellow" if raw else "yellow")


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


class JobfileSaving:
    """ctrl+o: the job shown, saved as a .fio file that runs by hand with ``fio FILE``."""

    if TYPE_CHECKING:  # provided by the screen

        @property
        def preset(self) -> Preset | None: ...

        def _show_message(self, text: str, *, error: bool = False) -> None: ...

    def action_save_jobfile(self) -> None:
        screen: Screen[None] = self  # type: ignore[assignment]
        text = screen.query_one("#jobfile", TextArea).text
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

                screen.app.push_screen(
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

        screen.app.push_screen(
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
        screen: Screen[None] = self  # type: ignore[assignment]
        try:
            write_atomically(path, text)
        except OSError as exc:
            screen.post_message(JobfileSaved(str(path), exc.strerror or str(exc)))
            return
        screen.post_message(JobfileSaved(str(path), None))

    def on_jobfile_saved(self, message: JobfileSaved) -> None:
        screen: Screen[None] = self  # type: ignore[assignment]
        if message.error is None:
            screen.notify(f"Saved {message.path}")
        else:
            screen.notify(f"Could not save {message.path}: {message.error}", severity="error")
