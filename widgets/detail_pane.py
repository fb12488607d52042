"""A focusable, scrollable pane that shows one renderable (the selected row's detail)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static


def plain_row(table: Table, *cells: RenderableType | None) -> None:
    """``table.add_row`` with every string shown as it is: Rich reads a str cell as
    markup, so a path such as ``/mnt/[backup]`` lost its brackets and ``:smile:`` became
    an emoji (and its emoji table, 6 ms of import, loaded on the dashboard's first paint)."""
    table.add_row(*(Text(c) if isinstance(c, str) else c for c in cells))


def detail_grid(label_style: str = "") -> Table:
    """Two columns, a label and its value, as the detail panes and problem lists show
    them: the label stays on one line, so a long value wraps under the value."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, style=label_style)
    grid.add_column()
    return grid


def _height_free(renderable: RenderableType) -> bool:
    """Whether ``renderable`` draws the same whatever height it is offered: Text and
    Table do (a table gives its cells no height), as does a Group of them; a Panel, a
    Padding or a Layout may fill the height they get."""
    if isinstance(renderable, Text | Table):
        return True
    if isinstance(renderable, Group):
        return all(_height_free(part) for part in renderable.renderables)
    return False


class _RenderedOnce:
    """The pane's content, kept as rendered for the last options but the height.

    Textual renders a pane's content to measure its height, at the pane's width and
    again at the width left once the scrollbar shows, and then to draw it at the last
    width with that height given: the disk's detail tables took 2-3 ms a rendering on
    the 240-disk host, three renderings before the first frame. The drawing reuses the
    last measure's segments (content of ``_height_free`` only)."""

    def __init__(self, content: Group) -> None:
        self.content = content
        self._options: ConsoleOptions | None = None
        self._segments: list[Segment] = []

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key = options.copy()
        key.height, key.max_height = None, 0  # what Text and Table never read
        if key != self._options:
            self._segments = list(console.render(self.content, options))
            self._options = key
        return self._segments

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.content)


class DetailPane(VerticalScroll):
    """Focusable so keyboard users can scroll long option lists with the arrows."""

    DEFAULT_CSS = """
    DetailPane {
        height: 1fr;
        border-top: solid $primary-darken-2;
        padding: 0 1;
        &:focus { border-top: solid $accent; }
        & > Static { width: 1fr; }
    }
    """

    def compose(self) -> ComposeResult:
        yield Static("", classes="detail-body")

    def show(self, *parts: RenderableType, tail: Sequence[RenderableType] = ()) -> None:
        """``parts`` at the top; ``tail`` under the middle widget (``add_middle``) when
        the pane has one, else right after ``parts``."""
        tails = self.query(".detail-tail").results(Static)
        below = next(tails, None)
        if below is None:
            parts = (*parts, *tail)
        else:
            below.update(_shown(Group(*tail)))
            below.display = bool(tail)
        self.query_one(".detail-body", Static).update(_shown(Group(*parts)))
        self.scroll_home(animate=False)

    def add_middle(self, widget: Widget) -> None:
        """A widget of its own between the shown parts and the tail (the disk pane's
        health chart, which a renderable cannot hold), mounted once."""
        below = Static("", classes="detail-tail")
        below.display = False  # until a tail is shown
        self.mount(widget, below, after=".detail-body")


def _shown(content: Group) -> RenderableType:
    return _RenderedOnce(content) if _height_free(content) else content
