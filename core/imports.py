"""fio results brought in from files: where an imported run came from, and why a file
was refused.

``backends.fio_import`` reads the files; ``app.fio_import`` stores them in the history.
Pure data: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .errors import TierdeckError


class RunOrigin(StrEnum):
    TIERDECK = "tierdeck"  # run by tierdeck, with its series and environment
    IMPORTED = "imported"  # read from a file of fio output (history import, the demo)


class ImportFormat(StrEnum):
    FIO_JSON = "fio-json"  # --output-format=json
    FIO_JSON_PLUS = "fio-json+"  # json+: latency histograms ("bins") as well
    FIO_TEXT = "fio-text"  # fio's default (normal) output, as pasted on forums


class ImportNotice(StrEnum):
    """What an imported run lacks or what was left out of its file, for views to say."""

    # Only fio's "Run status group" line: bandwidth and runtime, no IOPS or latency.
    GROUP_STATUS_ONLY = "group-status-only"
    # The file held fio's own lines ("fio: terminating on signal 2") beside the report.
    FIO_MESSAGES = "fio-messages"
    # An unfinished JSON document after the last complete one (fio killed mid-print).
    TRUNCATED_TAIL = "truncated-tail"
    # Several JSON documents (--status-interval): the last complete one was taken.
    LAST_OF_SEVERAL = "last-of-several"


@dataclass(frozen=True)
class ImportSource:
    """Where an imported run came from. ``content_hash`` (sha256 of the file's bytes)
    is what the history refuses to store twice."""

    file_name: str  # the file's name as given, without its folder
    content_hash: str  # hex sha256 of the bytes read
    format: ImportFormat
    notices: tuple[ImportNotice, ...] = ()


@dataclass(frozen=True)
class UnreadOption:
    """A job option of an imported file that tierdeck could not read: the job is kept
    without it (the option is then unknown), and the run says so."""

    job: str  # the job's name as fio reported it
    option: str  # as the file spells it ("size"); "name" for a job name renamed
    value: str | None  # None: a bare flag
    renamed_to: str | None = None  # the job's name here, when fio's cannot be one

    def __str__(self) -> str:
        if self.renamed_to is not None:
            return f"job {self.job!r} kept as {self.renamed_to!r} (not usable as a job name)"
        said = self.option if self.value is None else f"{self.option}={self.value}"
        return f"kept job {self.job!r}; fio option {said} not understood"


class ImportRefusalKind(StrEnum):
    EMPTY = "empty"  # nothing but blanks
    NOT_FIO = "not-fio"  # neither fio JSON nor fio's text report
    BINARY = "binary"  # not text at all (seen in its first block): not fio's output
    TRUNCATED = "truncated"  # fio JSON that ends before its first document does
    BAD_REPORT = "bad-report"  # fio's shape, but a value that cannot be read
    NO_RESULTS = "no-results"  # fio output without a single finished job or group line
    UNSUPPORTED = "unsupported"  # fio output tierdeck does not read
    SEVERAL_RUNS = "several-runs"  # several fio runs where one was asked for
    DUPLICATE = "duplicate"  # the same bytes are already in the history
    UNREADABLE = "unreadable"  # the file could not be read


class ImportRefused(TierdeckError):
    """A file was not imported; ``reason`` says why in one line, ``kind`` for callers."""

    def __init__(
        self, reason: str, *, kind: ImportRefusalKind, existing_run: int | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind
        self.existing_run = existing_run  # DUPLICATE: the run that holds these bytes
