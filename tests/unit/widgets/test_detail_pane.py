"""The detail pane renders its content once for a height measure and the frame drawn
after it, and only content that draws the same whatever height it is given."""

from __future__ import annotations

import io

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from tierdeck.widgets.detail_pane import _height_free, _RenderedOnce


class Counted:
    """A renderable that counts its renderings."""

    def __init__(self) -> None:
        self.renderings = 0

    def __rich_console__(self, console: Console, options: object) -> list[Text]:
        self.renderings += 1
        return [Text("counted")]


def _console() -> Console:
    return Console(file=io.StringIO(), width=60, color_system=None)


def _grid() -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column()
    grid.add_row(Text("Model", style="bold"), Text("a long model name " * 4))
    return grid


def test_a_measure_and_the_frame_after_it_render_once() -> None:
    console = _console()
    counted = Counted()
    once = _RenderedOnce(Group(counted))
    options = console.options.update_width(40)
    measured = list(console.render(once, options))
    drawn = list(console.render(once, options.update(height=len(measured))))
    assert counted.renderings == 1
    assert drawn == measured
    list(console.render(once, options.update_width(38)))  # the scrollbar took 2 columns
    assert counted.renderings == 2


def test_what_it_draws_is_what_the_content_draws() -> None:
    console = _console()
    content = Group(Text("/dev/sda", style="bold"), _grid())
    options = console.options.update_width(40)
    assert list(console.render(_RenderedOnce(content), options)) == list(
        console.render(content, options)
    )


def test_only_content_that_ignores_the_height_is_kept() -> None:
    assert _height_free(Group(Text("x"), _grid(), Group(Text("y"))))
    assert not _height_free(Group(Text("x"), Panel("fills the height it is given")))
