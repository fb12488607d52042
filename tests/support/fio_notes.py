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


# the second run's job as fio reports one that failed after some I/O: stat.c's
# "%s: (groupid=%d, jobs=%d): err=%2d (%s): pid=%d: %s" with its verror
FAILED_JOB_LINE = (
    "myjob: (groupid=0, jobs=1): err= 5 (file:io_u.c:1756, func=io_u error,"
    " offset=4096, length=4096, error=Input/output error): pid=21461"
)


def notes_with_a_failed_run(folder: Path) -> Path:
    """The notes of ``notes_leaving_options_out`` whose second run fio reported as failed
    (EIO): one import says both the options left out and the failed run."""
    notes = notes_leaving_options_out(folder)
    text = notes.read_text()
    ok_line = "myjob: (groupid=0, jobs=1): err= 0: pid=21461"
    assert text.count(ok_line) == 1
    notes.write_text(text.replace(ok_line, FAILED_JOB_LINE))
    return notes
