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


def json_values(
    *, floats: bool = False, max_size: int = 4, max_leaves: int = 12
) -> st.SearchStrategy[object]:
    """Any JSON value (objects and lists nested), for parsers of stored documents."""
    leaves = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
    if floats:
        leaves = leaves | st.floats(allow_nan=False)
    return st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=max_size)
            | st.dictionaries(st.text(max_size=8), inner, max_size=max_size)
        ),
        max_leaves=max_leaves,
    )
