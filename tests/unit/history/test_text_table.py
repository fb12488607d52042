"""The plain aligned tables of the CLI (app/history/text_table.py)."""

from __future__ import annotations

from tierdeck.app.history.text_table import Column, render


def test_render_fits_by_its_steps_and_keeps_headers_whole() -> None:
    columns = [
        Column("name", ["abcdefghijklmnop", "ab"], cut="end"),
        Column("MiB/s", ["1.0", "1,000.0"], right=True),
    ]
    assert render(columns, 18, [("name", 6)]) == [
        "name         MiB/s",
        "abcdefgh…      1.0",
        "ab         1,000.0",
    ]
    # a floor below the header's width stops at the header (the line stays too long)
    assert render(columns, 10, [("name", 1)])[1] == "abc…      1.0"
    assert render(columns, None, [("name", 1)])[1].startswith("abcdefghijklmnop")
    # a step that leaves a column out
    assert render(columns, 10, [("MiB/s", None)]) == ["name", "abcdefghijklmnop", "ab"]
