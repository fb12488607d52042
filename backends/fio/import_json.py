"""fio's JSON and json+ output, as saved in a file, to a FioReport.

The stream parser (``backends.fio_stream``) does the reading: documents are cut by its
splitter, so ``fio: ...`` lines before the JSON (``fio: terminating on signal 2``) and
several documents of a ``--status-interval`` run are handled as they are live; the last
complete fio document is the result, as fio's final report is the last it prints.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...core.errors import ParseError
from ...core.fio_models import FioReport
from ...core.imports import ImportFormat, ImportNotice, ImportRefusalKind, ImportRefused
from .json_documents import split_documents
from .stream import parse_report


@dataclass(frozen=True)
class JsonImport:
    report: FioReport
    document: dict[str, Any]  # the chosen document, as fio printed it
    format: ImportFormat
    notices: tuple[ImportNotice, ...]
    messages: tuple[str, ...]  # fio's own lines around the JSON


def looks_like_json(text: str) -> bool:
    """A line that starts a JSON object: fio prints "{" alone on its first line."""
    return any(line.lstrip().startswith("{") for line in text.splitlines())


def read_json(text: str) -> JsonImport:
    docs, messages = split_documents(text)
    leftover = bool(messages) and messages[-1].lstrip().startswith("{")
    lines = tuple(m for m in (messages[:-1] if leftover else messages) if m.strip())
    if not docs:
        if leftover:
            raise ImportRefused(
                "fio JSON that ends before its first document is complete (cut short?)",
                kind=ImportRefusalKind.TRUNCATED,
            )
        raise ImportRefused("no JSON object found", kind=ImportRefusalKind.NOT_FIO)
    chosen: dict[str, Any] | None = None
    report: FioReport | None = None
    failure: ParseError | None = None
    for doc in reversed(docs):
        data = _load(doc)
        if not isinstance(data, dict) or not isinstance(data.get("fio version"), str):
            continue
        try:
            report = parse_report(data)
        except ParseError as exc:
            failure = failure or exc
            continue
        chosen = data
        break
    if chosen is None or report is None:
        if failure is not None:
            raise ImportRefused(
                f"fio JSON with a value tierdeck cannot read: {failure.detail}",
                kind=ImportRefusalKind.BAD_REPORT,
            )
        raise ImportRefused(
            'JSON without "fio version": not fio\'s output', kind=ImportRefusalKind.NOT_FIO
        )
    notices: list[ImportNotice] = []
    if any(line.lstrip().startswith("fio") for line in lines):
        notices.append(ImportNotice.FIO_MESSAGES)
    if leftover:
        notices.append(ImportNotice.TRUNCATED_TAIL)
    if len(docs) > 1:
        notices.append(ImportNotice.LAST_OF_SEVERAL)
    plus = any(job.read.bins or job.write.bins or job.trim.bins for job in report.jobs)
    return JsonImport(
        report=report,
        document=chosen,
        format=ImportFormat.FIO_JSON_PLUS if plus else ImportFormat.FIO_JSON,
        notices=tuple(notices),
        messages=lines,
    )


def _load(doc: str) -> Any:
    try:
        return json.loads(doc)
    except (ValueError, RecursionError):
        return None


# Options fio takes bare (``--time_based``) and then leaves out of "job options" and
# "global options" (fio 3.33, checked here); ``--time_based=1`` is listed.
JSON_UNLISTED = frozenset({"time_based", "group_reporting", "stonewall"})


def job_options(document: Mapping[str, Any]) -> list[tuple[str, dict[str, str | None]]]:
    """(job name, its options with the global ones under them), once per job name, in
    fio's order: numjobs clones repeat an entry each."""
    raw_global = document.get("global options")
    base = _options(raw_global)
    out: list[tuple[str, dict[str, str | None]]] = []
    seen: set[str] = set()
    jobs = [job for job in document.get("jobs") or () if isinstance(job, Mapping)]
    entries = Counter(name for job in jobs if isinstance(name := job.get("jobname"), str))
    for job in jobs:
        name = job.get("jobname")
        if not isinstance(name, str) or name in seen:
            continue
        seen.add(name)
        options = {**base, **_options(job.get("job options"))}
        options.pop("name", None)
        if options and "group_reporting" not in options:
            options.update(_group_reporting(options.get("numjobs"), entries[name]))
        if options:  # fio 2.x printed none: nothing to say about the job
            out.append((name, options))
    return out


def _group_reporting(numjobs: str | None, entries: int) -> dict[str, str | None]:
    """A bare --group_reporting, which fio's JSON does not list, from what it does show:
    numjobs clones reported as one entry, or each as its own."""
    clones = int(numjobs) if numjobs is not None and numjobs.isdigit() else 0
    if clones < 2 or entries not in (1, clones):
        return {}
    return {"group_reporting": "1" if entries == 1 else "0"}


def _options(raw: Any) -> dict[str, str | None]:
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): None if v is None else str(v) for k, v in raw.items()}
