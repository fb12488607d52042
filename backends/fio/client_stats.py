"""fio's client mode report (``fio --client=A job --client=B job --output-format=json``)
split into one report per server and the "All clients" total.

In client mode fio prints no "jobs" list: every job of every server is an entry of
"client_stats" that carries the server's "hostname" and "port", and fio adds one entry
named "All clients" that it summed itself (checked with fio 3.33). Each server's entries
become an ordinary fio document, read by the same parser as a local run.

Nothing comes before that document: a server given ``--status-interval`` adds its
status dumps to the same list, printed with the rest once the run is over
(fio333_client_status_interval.txt, two servers in network namespaces), and then
"All clients" sums the first dump only. tierdeck gives its servers no status
interval: a job's entries are its final report.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...core.errors import ParseError
from ...core.fio_models import FioReport
from .json_documents import split_documents
from .stream import SOURCE, parse_report

ALL_CLIENTS = "All clients"


@dataclass(frozen=True)
class ClientReports:
    by_port: dict[int, FioReport]  # the server's port as the client reached it
    documents: dict[int, dict[str, Any]]  # each server's part as a fio document
    all_clients: FioReport | None  # fio's own sum; None when fio printed none
    fio_version: str


def read_client_report(text: str) -> ClientReports:
    """The last complete fio document in ``text`` (fio's ``<host>`` lines before it are
    skipped), split by server. Raises ParseError when there is none."""
    docs, _ = split_documents(text)
    for doc in reversed(docs):
        try:
            return split_client_stats(doc)
        except ParseError:
            continue
    raise ParseError(SOURCE, "no client_stats document in fio's output")


def split_client_stats(doc: str | Mapping[str, Any]) -> ClientReports:
    import json

    try:
        data: Any = json.loads(doc) if isinstance(doc, str) else doc
    except ValueError as exc:  # braces in fio's text lines that are no JSON
        raise ParseError(SOURCE, f"not JSON: {exc}") from None
    if not isinstance(data, Mapping) or not isinstance(data.get("fio version"), str):
        raise ParseError(SOURCE, 'no "fio version": not fio output')
    entries = data.get("client_stats")
    if not isinstance(entries, list):
        raise ParseError(SOURCE, 'no "client_stats" list: not a fio --client report')
    version = str(data["fio version"])
    grouped: dict[int, list[Any]] = {}
    total: list[Any] = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            raise ParseError(SOURCE, "a client_stats entry is not an object")
        if entry.get("jobname") == ALL_CLIENTS:
            total.append(entry)
            continue
        port = entry.get("port")
        if not isinstance(port, int):
            raise ParseError(SOURCE, "a client_stats entry has no port")
        grouped.setdefault(port, []).append(entry)

    def document(jobs: list[Any]) -> dict[str, Any]:
        return {"fio version": version, "timestamp": data.get("timestamp"), "jobs": jobs}

    documents = {port: document(jobs) for port, jobs in grouped.items()}
    return ClientReports(
        by_port={port: parse_report(doc) for port, doc in documents.items()},
        documents=documents,
        all_clients=parse_report(document(total)) if total else None,
        fio_version=version,
    )
