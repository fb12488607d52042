"""Cutting fio's stdout into its JSON documents, whatever the chunking.

With ``--status-interval`` fio prints one complete JSON document per interval, and its
own text lines ("fio: pid=..., err=22/...") between them. Apart from parsing
(``stream``): this is about bytes arriving, not what the documents say.
"""

from __future__ import annotations

import codecs
import re

_STRUCTURE = re.compile(r"[{}\"]")
_IN_STRING = re.compile(r"[\"\\]")


class JsonDocumentSplitter:
    """Cuts a text stream into complete top-level JSON documents.

    A document starts with ``{`` as the first non-blank character of a line, which is
    how fio prints them; anything else outside a document is a message line (fio's
    ``fio: ...`` warnings and errors share stdout with the JSON). Brace depth is counted
    outside strings only, with backslash escapes honoured, so a ``}`` inside a job name
    or a file path never ends a document early.
    """

    def __init__(self) -> None:
        self._messages: list[str] = []
        self._line: list[str] = []  # message text of the current line
        self._doc: list[str] = []  # pieces of the document being read
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    @property
    def messages(self) -> list[str]:
        """Non-JSON lines seen so far, without their line ends."""
        return list(self._messages)

    @property
    def in_document(self) -> bool:
        return self._depth > 0

    def feed_bytes(self, data: bytes) -> list[str]:
        """Like :meth:`feed`, for raw pipe reads that may split a UTF-8 character."""
        return self.feed(self._decoder.decode(data))

    def feed(self, chunk: str) -> list[str]:
        """Consume ``chunk``; return the documents it completed, in order."""
        done: list[str] = []
        pos = 0
        end = len(chunk)
        while pos < end:
            if self._depth == 0:
                pos = self._scan_outside(chunk, pos, done)
            elif self._in_string:
                pos = self._scan_string(chunk, pos)
            else:
                pos = self._scan_document(chunk, pos, done)
        return done

    def close(self) -> str:
        """End of stream: flush a last message line; return an unfinished document
        ("" if none), which fio leaves behind when it is killed mid-print."""
        self._flush_line()
        leftover = "".join(self._doc)
        self._doc.clear()
        self._depth = 0
        self._in_string = self._escape = False
        return leftover

    # -- states ---------------------------------------------------------------------

    def _scan_outside(self, chunk: str, pos: int, done: list[str]) -> int:
        newline = chunk.find("\n", pos)
        stop = len(chunk) if newline < 0 else newline
        if not "".join(self._line).strip():
            # Still at the start of a line: does a document begin here?
            start = pos
            while start < stop and chunk[start] in " \t\r":
                start += 1
            if start < stop and chunk[start] == "{":
                self._line.clear()
                self._doc.append("{")
                self._depth = 1
                return start + 1
        self._line.append(chunk[pos:stop])
        if newline < 0:
            return len(chunk)
        self._flush_line()
        return newline + 1

    def _scan_string(self, chunk: str, pos: int) -> int:
        if self._escape:  # the escaped character sits at the start of this chunk
            self._escape = False
            self._doc.append(chunk[pos])
            return pos + 1
        match = _IN_STRING.search(chunk, pos)
        if match is None:
            self._doc.append(chunk[pos:])
            return len(chunk)
        at = match.start()
        self._doc.append(chunk[pos : at + 1])
        if chunk[at] == "\\":
            if at + 1 < len(chunk):
                self._doc.append(chunk[at + 1])
                return at + 2
            self._escape = True
            return at + 1
        self._in_string = False
        return at + 1

    def _scan_document(self, chunk: str, pos: int, done: list[str]) -> int:
        match = _STRUCTURE.search(chunk, pos)
        if match is None:
            self._doc.append(chunk[pos:])
            return len(chunk)
        at = match.start()
        char = chunk[at]
        self._doc.append(chunk[pos : at + 1])
        if char == '"':
            self._in_string = True
        elif char == "{":
            self._depth += 1
        elif char == "}":
            self._depth -= 1
            if self._depth == 0:
                done.append("".join(self._doc))
                self._doc.clear()
        return at + 1

    def _flush_line(self) -> None:
        line = "".join(self._line).rstrip("\r")
        self._line.clear()
        if line.strip():
            self._messages.append(line)


def split_documents(text: str) -> tuple[list[str], list[str]]:
    """Whole captured output -> (documents, message lines)."""
    splitter = JsonDocumentSplitter()
    docs = splitter.feed(text)
    leftover = splitter.close()
    messages = splitter.messages
    if leftover.strip():
        messages.append(leftover.strip())
    return docs, messages
