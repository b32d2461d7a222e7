"""`ChartLine`: one line of the pulse and of the dispute ratio: a label, a sparkline of the
line's values, and its figures as text beside it, drawn by one widget.

Each line was a row of three widgets (a `Static`, a `Sparkline`, a `Static` in a `Horizontal`):
the Pulse screen mounted, styled and laid out about 70 widgets for its 15 lines, in one slice of
the event loop each (the push, the first draw: 60-120 ms at 100,000 charges on a loaded machine,
docs/performance.md). One widget a line is a quarter of that; its chart is Textual's own
sparkline drawing (`textual.renderables.sparkline.Sparkline`, colours from the same component
classes as Textual's `Sparkline` widget), so the chart looks as before. `show` puts new values
and figures in place: a refresh builds nothing and lays nothing out (the line's size is fixed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.segment import Segment
from rich.text import Text
from textual.app import RenderResult
from textual.renderables.sparkline import Sparkline as SparklineDrawing
from textual.widget import Widget

__all__ = ["ChartLine"]


class ChartLine(Widget):
    """`label` in `label_width` cells, a sparkline of `data` in `chart_width` cells (None: a
    third of what the label leaves, at most `chart_max`), a cell's gap, then `figures` in the
    rest (cut with an ellipsis). Screen readers and `NO_COLOR` read the figures: the chart only
    repeats them."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"sparkline--max-color", "sparkline--min-color"}
    DEFAULT_CSS = """
    ChartLine { height: 1; }
    ChartLine > .sparkline--max-color { color: $primary; }
    ChartLine > .sparkline--min-color { color: $primary 30%; }
    """

    def __init__(
        self,
        label: str,
        *,
        label_width: int,
        chart_width: int | None = None,
        chart_max: int = 31,
        data: Sequence[float] = (),
        figures: Text | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.label = label
        self.label_width = label_width
        self.chart_width = chart_width
        self.chart_max = chart_max
        self.data: list[float] = list(data)
        self.figures = figures if figures is not None else Text()

    def show(self, data: Sequence[float], figures: Text, *, label: str | None = None) -> None:
        """New values and figures (and label), repainted in place: nothing laid out again."""
        self.data = list(data)
        self.figures = figures
        if label is not None:
            self.label = label
        self.refresh()

    def _chart_width(self, width: int) -> int:
        if self.chart_width is not None:
            return self.chart_width
        return max(1, min(self.chart_max, (width - self.label_width - 1) // 3))

    def render(self) -> RenderResult:
        width = self.size.width
        line = Text(no_wrap=True, overflow="ellipsis", end="")
        if width <= 0:
            return line
        label = Text(self.label, no_wrap=True, overflow="ellipsis", end="")
        label.truncate(self.label_width, overflow="ellipsis", pad=True)
        line.append_text(label)
        chart = self._chart_width(width)
        _, base = self.background_colors
        low = base + self.get_component_styles("sparkline--min-color").color
        high = base + self.get_component_styles("sparkline--max-color").color
        drawing = SparklineDrawing(
            self.data, width=chart, min_color=low.rich_color, max_color=high.rich_color
        )
        console = self.app.console
        for segment in drawing.__rich_console__(console, console.options):
            if isinstance(segment, Segment):  # what Textual's sparkline yields
                line.append(segment.text, segment.style)
        line.append(" ")
        figures = self.figures.copy()
        figures.truncate(max(0, width - self.label_width - chart - 1), overflow="ellipsis")
        line.append_text(figures)
        return line
