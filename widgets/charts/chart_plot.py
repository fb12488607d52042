"""textual-plot's PlotWidget as SeriesChart draws it: a picture, not a control.

Apart from the chart: it overrides the library's focus, zoom, scrolling and painting,
which is about the library, not about series.
"""

from __future__ import annotations

from textual import events
from textual_hires_canvas import Canvas
from textual_plot import PlotWidget
from textual_plot.axis_formatter import AxisFormatter

from .series_axes import LABEL_CHARS, SecondsTicks


class ChartPlot(PlotWidget, can_focus=False):
    """The library's plot, as a picture: no focus (the page scrolls with the arrow
    keys), no zoom, and the mouse wheel scrolls the page instead of zooming."""

    DEFAULT_CSS = """
    ChartPlot { height: 6; }
    """

    def __init__(self, x_ticks: AxisFormatter | None = None) -> None:
        super().__init__(allow_pan_and_zoom=False)
        self._x_formatter_wanted = x_ticks or SecondsTicks()

    def on_mount(self) -> None:
        self.margin_top = 0
        self.margin_bottom = 1  # the time labels; the unit is written above the plot
        self.margin_left = LABEL_CHARS + 1
        self.set_x_formatter(self._x_formatter_wanted)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.prevent_default()  # skips the library's zoom; the event still bubbles up

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.prevent_default()

    def paint(self) -> None:
        """Draw the canvases now. Left to the compositor, the library draws them while
        it paints this widget, after the canvases were painted: each redraw then took
        two screen updates, the first one painting the old picture again."""
        if self.size:  # before the first layout, the compositor's paint draws it
            self.render()

    def render(self) -> str:
        if not self._needs_rerender:  # noqa: SLF001 - painted already: nothing to draw
            return ""  # (and refreshing the canvases would cost another screen update)
        # Each pixel drawn refreshes its canvas; hold them until the whole plot is drawn.
        canvases = list(self.query(Canvas))
        for canvas in canvases:
            canvas._refreshes_pending += 1  # noqa: SLF001 - batch_refresh() without a with
        try:
            return str(super().render())
        finally:
            for canvas in canvases:
                canvas._refreshes_pending -= 1  # noqa: SLF001
                canvas.refresh()
