"""A notes file of two real fio reports pasted one after another (fio 3.33's shell
transcript, then fio 3.1's dyu/vps-comparison run), each command given one option
tierdeck does not read: what the CLI and the TUI tests of a several-run import with
options left out both import."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fio_import"

# each run's (job, option) left out, as the import names them
LEFT_OUT = (("seqwrite", "runtime=500ms"), ("myjob", "runtime=2h5"))


def notes_leaving_options_out(folder: Path) -> Path:
    first = (FIXTURES / "fio333_direct_transcript.txt").read_text()
    second = (FIXTURES / "fio31_dyu_write.txt").read_text()
    notes = folder / "notes.txt"
    notes.write_text(
        first.replace("--ioengine=psync", "--ioengine=psync --runtime=500ms", 1)
        + second.replace("--name=myjob", "--name=myjob --runtime=2h5", 1)
    )
    return notes
