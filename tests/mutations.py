"""Random in-place edits of a parser's input, for "parses or raises ParseError" tests."""

from __future__ import annotations

from hypothesis import strategies as st

Edit = tuple[int, str]


def edits(max_pos: int, max_insert: int, max_edits: int) -> st.SearchStrategy[list[Edit]]:
    """Lists of up to ``max_edits`` (position, insert) pairs for :func:`apply_edits`."""
    return st.lists(
        st.tuples(st.integers(0, max_pos), st.text(max_size=max_insert)), max_size=max_edits
    )


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Overwrite ``text`` with each insert in turn, at its position modulo the length."""
    for pos, insert in edits:
        at = pos % (len(text) + 1)
        text = text[:at] + insert + text[at + len(insert) :]
    return text
