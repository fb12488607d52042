"""backends/mover/journal: what a journal keeps (each source's atime, for recovery),
journals of the version before, and garbage refused with one clear error."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierdeck.backends.mover.file_copy import SourceIdentity
from tierdeck.backends.mover.journal import FORMAT, Journal, JournalEntry, JournalUnreadable

from tests.mutations import json_values

ENTRY = JournalEntry(
    "tv/a.mkv", "/c/tv/a.mkv", "/s/tv/a.mkv", "/s/tv/.t", SourceIdentity(1, 2, 3, 4), 5
)


def test_every_entry_keeps_its_atime(tmp_path: Path) -> None:
    journal = Journal.create(str(tmp_path), (ENTRY,))
    assert Journal.load(journal.path).entries == (ENTRY,)


def test_a_journal_of_the_version_before_reads_its_symlink_atime(tmp_path: Path) -> None:
    path = tmp_path / "old.journal"
    raw = {"rel": "l", "source": "/c/l", "target": "/s/l", "temp": "/s/.t",
           "identity": [1, 2, 3, 4], "link_atime_ns": 9}  # fmt: skip
    path.write_text(json.dumps({"format": FORMAT, "entries": [raw]}) + "\n")
    (entry,) = Journal.load(str(path)).entries
    assert entry.atime_ns == 9


_JSON = json_values()


@settings(max_examples=200, deadline=None)
@given(st.lists(_JSON, max_size=3), st.text(max_size=40))
def test_garbage_is_refused_in_one_line_or_read(entries: list[object], tail: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.journal"
        path.write_text(json.dumps({"format": FORMAT, "entries": entries}) + "\n" + tail)
        try:
            Journal.load(str(path))
        except JournalUnreadable as exc:
            assert "\n" not in str(exc) and str(path) in str(exc)


def test_a_file_that_is_no_journal_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.journal"
    path.write_text("not json")
    with pytest.raises(JournalUnreadable, match="is unreadable"):
        Journal.load(str(path))
