"""widgets/text_fit: fstab lines broken only between fields, and a header cut with a mark."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text
from tierdeck.widgets.text_fit import CONTINUED, AtMostLines, SeparatedLines, break_at_separators

# The fstab line tierdeck writes for seed 000's slow pool with /cache in front (the
# compose screen's snapshot): 138 columns, cut at "ca|che.files" before.
SEED_LINE = (
    "/cache=RW:/mnt/disk1=RW:/mnt/disk2=RW /mnt/slow-storage fuse.mergerfs allow_other,"
    "category.create=eplus,minfreespace=300G,moveonenospc=mfs,cache.files=off,"
    "dropcacheonclose=true,fsname=mergerfs 0 0"
)


def rendered(renderable: object, width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), record=True, legacy_windows=False)
    console.print(renderable)
    return [row.rstrip() for row in console.export_text(styles=False).splitlines()]


def test_an_fstab_line_breaks_between_its_options() -> None:
    rows = rendered(SeparatedLines([SEED_LINE]), 72)
    assert rows == [
        "/cache=RW:/mnt/disk1=RW:/mnt/disk2=RW /mnt/slow-storage fuse.mergerfs",
        "  allow_other,category.create=eplus,minfreespace=300G,moveonenospc=mfs,",
        "  cache.files=off,dropcacheonclose=true,fsname=mergerfs 0 0",
    ]


@given(st.text(alphabet=st.sampled_from("ab/=:, "), max_size=200), st.integers(1, 100))
def test_rows_fit_and_hold_the_line(line: str, width: int) -> None:
    rows = break_at_separators(line, width)
    assert rows[0] + "".join(r.removeprefix(CONTINUED) for r in rows[1:]) == line
    assert all(len(r) <= max(width, len(CONTINUED) + 1) for r in rows)


def test_a_long_message_ends_in_a_mark_where_it_was_cut() -> None:
    text = Text("not a layout yet: tiered_pool.mountpoint: " + "'srv/" + "x" * 150 + "'")
    rows = rendered(AtMostLines(text, 2), 80)
    assert len(rows) == 2 and rows[1].endswith("…") and len(rows[1]) <= 80
    assert rendered(AtMostLines(Text("checks: 0 errors"), 2), 80) == ["checks: 0 errors"]
