"""Is a file text at all? Decided from its first bytes, before reading the rest.

fio's output (JSON or text, pasted into notes) is text: UTF-8, or UTF-16 with its BOM
when saved by Windows PowerShell's ``>`` or Notepad. A disk image, an archive or random
bytes named by mistake shows itself in its first block: NUL bytes, or control
characters no text holds. Invalid UTF-8 alone is not binary: notes saved as Latin-1 or
Windows-1252 are text (their accents are replaced when read). Refusing it there keeps the time and memory
of the refusal independent of the file's size.
"""

from __future__ import annotations

import codecs

HEAD_BYTES = 64 * 1024

_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
# Text allows tab, line ends, form feed and ESC (colour codes of a captured terminal).
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\x1b")
_CONTROLS = bytes(c for c in range(32) if c not in _TEXT_CONTROLS) + b"\x7f"


def looks_binary(head: bytes) -> bool:
    """True when ``head`` (a file's first bytes, any length) cannot start a text."""
    head = head[:HEAD_BYTES]
    if head.startswith(_BOMS):
        return False
    if b"\0" in head:
        return True
    allowed = len(head) // 100 + 4  # a few stray bytes: a pasted report with noise
    controls = len(head) - len(head.translate(None, _CONTROLS))
    return controls > allowed


def decode_text(data: bytes) -> str:
    """The file's text: UTF-16 when it starts with a UTF-16 BOM, else UTF-8 (invalid
    bytes replaced), without a BOM."""
    if data.startswith(_BOMS):
        return data.decode("utf-16", errors="replace").lstrip("\ufeff")
    return data.decode("utf-8", errors="replace").lstrip("\ufeff")
