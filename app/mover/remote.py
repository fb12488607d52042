"""The mover of another machine, run by that machine's own tierdeck over SSH.

Files move on the host itself, never one by one over the link: ``tierdeck mover run
--json-lines`` is started there (``SshHost.start_tierdeck``), its lines read back here as
they come (the progress, then the run or its refusal: docs/mover-json.md) and turned
into this machine's types, so the mover view draws a host's run as it draws a local
one. ``run_mover_on_host`` has ``run_mover``'s signature for that reason.

A cancel is a SIGTERM to the host's mover, which stops as it does under systemd: the
file at hand finishes or is undone, then the report comes. A link that drops TERMs it
too (the host's side of the channel watches for that), and it stops the same way.
"""

from __future__ import annotations

import asyncio
import json
import signal
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from ... import __version__
from ...backends.host.seam import CommandResult
from ...core.errors import HostUnreachable, TierdeckError
from ...core.layout.model import Layout
from .history import MoverHistoryError, MoverRecord
from .read_json import (
    MoverJsonError,
    history_from_dict,
    progress_from_dict,
    refused_from_dict,
    report_from_dict,
)
from .render_json import PROGRESS_SCHEMA, REFUSED_SCHEMA, RUN_SCHEMA
from .run import MoverOptions, MoverRefused, MoverReport, ProgressCallback

# each forecast is recorded too: the last move is among these
RECORDS_LOOKED_AT = 200
CANCEL_POLL_S = 0.1


class OwnTierdeckHost(Protocol):
    """What the remote mover needs of a host (``SshHost`` gives it)."""

    target: Any

    async def start_tierdeck(self, args: Sequence[str]) -> Any: ...

    def signal_group(self, pgid: int, sig: int) -> bool: ...

    def run(self, argv: Sequence[str], timeout: float = ...) -> CommandResult: ...

    @property
    def tierdeck_version(self) -> str: ...


class HostMoverFailed(TierdeckError):
    """The host's mover gave no report: it could not start, or the link was lost."""


def mover_args(layout_path: Path, options: MoverOptions) -> list[str]:
    """``mover run`` for the host's tierdeck, with this run's options."""
    args = ["mover", "run", "--layout", str(layout_path), "--json-lines"]
    if options.dry_run:
        args.append("--dry-run")
    if options.min_age_days is not None:
        args += ["--min-age-days", str(options.min_age_days)]
    if options.verify:
        args.append("--verify")
    return args


def run_mover_on_host(
    host: OwnTierdeckHost,
    layout: Layout,
    layout_path: Path,
    options: MoverOptions,
    *,
    on_progress: ProgressCallback,
    cancel: threading.Event,
) -> MoverReport:
    """Run the host's mover for its layout file ``layout_path`` (a path on the host;
    ``layout`` is what the view shows of it). Blocks: call from a worker thread.
    ``MoverRefused`` as the host's mover refused; ``HostMoverFailed`` without a report."""
    del layout  # the host reads its own file: the one that names its lock and journal
    return asyncio.run(_run(host, mover_args(layout_path, options), on_progress, cancel))


class _Lines:
    """The host's stdout split into JSON documents as it comes: progress handed on,
    the run or refusal kept. A report of many files is one long line: read in chunks,
    not with readline's 64 KiB limit."""

    def __init__(self, on_progress: ProgressCallback) -> None:
        self.on_progress = on_progress
        self.pending = b""
        self.report: MoverReport | None = None
        self.refused: MoverRefused | None = None

    def feed(self, chunk: bytes) -> None:
        *lines, self.pending = (self.pending + chunk).split(b"\n")
        for line in lines:
            self._line(line)

    def _line(self, line: bytes) -> None:
        try:
            document = json.loads(line)
        except ValueError:
            return  # not ours (a login banner a shell printed): the report decides
        schema = document.get("schema") if isinstance(document, dict) else None
        if schema == PROGRESS_SCHEMA:
            self.on_progress(progress_from_dict(document))
        elif schema == RUN_SCHEMA:
            self.report = report_from_dict(document)
        elif schema == REFUSED_SCHEMA:
            self.refused = refused_from_dict(document)


async def _run(
    host: OwnTierdeckHost, args: list[str], on_progress: ProgressCallback, cancel: threading.Event
) -> MoverReport:
    try:
        process = await host.start_tierdeck(args)
    except OSError as exc:
        raise HostMoverFailed(f"{host.target}: the mover could not start: {exc}") from None
    lines = _Lines(on_progress)
    stderr = asyncio.create_task(process.stderr.read())
    watcher = asyncio.create_task(_stop_when_cancelled(host, process.pid, cancel))
    lost: HostUnreachable | None = None
    try:
        while chunk := await process.stdout.read(65536):
            lines.feed(chunk)
        lines.feed(b"\n")
        code = await process.wait()
    except HostUnreachable as exc:
        lost, code = exc, -1
    except MoverJsonError as exc:
        raise HostMoverFailed(f"{host.target}: {_version_note(host, str(exc))}") from None
    finally:
        watcher.cancel()
    said = (await stderr).decode(errors="replace")
    if lines.report is not None:
        return lines.report
    if lines.refused is not None:
        raise lines.refused
    if lost is not None:
        raise HostMoverFailed(
            f"{lost}; the mover there was told to stop (TERM): it finishes or undoes the "
            "file at hand, and `mover history` there has its run"
        )
    raise HostMoverFailed(f"{host.target}: {_version_note(host, _last_words(said, code))}")


async def _stop_when_cancelled(host: OwnTierdeckHost, pgid: int, cancel: threading.Event) -> None:
    # Polled: a thread blocked in cancel.wait() would outlive the run it watches.
    while not cancel.is_set():
        await asyncio.sleep(CANCEL_POLL_S)
    await asyncio.to_thread(host.signal_group, pgid, signal.SIGTERM)


def _last_words(stderr: str, code: int) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return f"the mover there ended with status {code} and no report"
    return lines[-1].removeprefix("tierdeck: ")


def _version_note(host: OwnTierdeckHost, text: str) -> str:
    """The text, and the two versions when they differ (a host's older tierdeck may
    not know what this one asks)."""
    there = host.tierdeck_version
    if not there or __version__ in there.split():
        return text
    return f"{text} (tierdeck there: {there}; here: {__version__}: update the host's)"


def last_move_on_host(host: OwnTierdeckHost, layout_path: Path) -> MoverRecord | None:
    """The newest run of the host's layout file that was not a dry run, from the host's
    own mover history, or None. MoverHistoryError when it cannot be read."""
    argv = ["tierdeck", "mover", "history", "--layout", str(layout_path), "--json",
            "--limit", str(RECORDS_LOOKED_AT)]  # fmt: skip
    try:
        result = host.run(argv, timeout=60)
    except TierdeckError as exc:
        raise MoverHistoryError(str(exc)) from None
    if result.returncode != 0:
        said = _last_words(result.stderr, result.returncode)
        raise MoverHistoryError(f"{host.target}: {said}")
    try:
        records = history_from_dict(json.loads(result.stdout))
    except (ValueError, MoverJsonError) as exc:
        raise MoverHistoryError(f"{host.target}: {_version_note(host, str(exc))}") from None
    return next((r for r in records if not r.dry_run), None)
