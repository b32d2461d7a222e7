"""`ChartLine`: one line of the pulse and of the dispute ratio: a label, a sparkline of the
line's values, and its figures as text beside it, drawn by one widget.

Each line was a row of three widgets (a `Static`, a `Sparkline`, a `Static` in a `Horizontal`):
the Pulse screen mounted, styled and laid out about 70 widgets for its 15 lines, in one slice of
the event loop each (the push, the first draw: 60-120 ms at 100,000 charges on a loaded machine,
docs/performance.md). One widget a line is a quarter of that; its chart is Textual's own
sparkline drawing (`textual.renderables.sparkline.Sparkline`, colours from the same component
classes as Textual's `Sparkline` widget), so the chart looks as before. `show` puts new values
and figures in place: a refresh builds nothing and lays nothing out (the line's size is fixed),
and values and figures equal to those shown do not draw the line again.

The line is drawn as Textual would draw it as a `rich.text.Text` (`ChartLine.text`), in fewer
steps (`ChartVisual`): each bar's colour blended once per distinct height (`ChartBars`, a
`Sparkline` of Textual's), and the line's segments styled directly instead of the whole line
converted to a `Content`, wrapped and formatted; a line Textual would fold or that shows a text
selection is drawn the ordinary way. Textual's way cost 2-4 ms a line (15 lines in the step
that draws the pulse and its dispute ratio, 40-90 ms of the loop at 100,000 charges).
`tests/ui/test_chart_line.py` holds both ways to the same strips.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.color import ColorType
from rich.console import Console, ConsoleOptions
from rich.console import RenderResult as RichRenderResult
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual.app import RenderResult
from textual.content import Content, Span
from textual.css.styles import RulesMap
from textual.renderables._blend_colors import blend_colors
from textual.renderables.sparkline import Sparkline
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widget import Widget

__all__ = ["ChartBars", "ChartLine", "ChartVisual"]

#: Characters below this one (control codes, tabs, new lines) Textual's `Content` would strip or
#: lay out: a line holding one is drawn the ordinary way.
_PLAIN_LIMIT = " "


class ChartBars(Sparkline[float]):
    """Textual's sparkline drawing, one line high, its bars worked out with integers and each
    distinct height's colour blended once (Textual blends and builds a style for every bar, and
    cuts the data into buckets with `Fraction`s). The same segments as `Sparkline`'s."""

    def bars(self, max_width: int) -> list[Segment]:
        """The bars of a one-line chart (`width` cells wide, else `max_width`), as
        `Sparkline.__rich_console__` yields them."""
        width = self.width or max_width
        data = self.data
        count = len(data)
        if count < 2 or width <= 0:
            options = _CONSOLE.options.update_width(max_width)
            textual = super().__rich_console__(_CONSOLE, options)
            return [segment for segment in textual if isinstance(segment, Segment)]
        minimum, maximum = min(data), max(data)
        extent = maximum - minimum or 1
        summary = self.summary_function
        # Sparkline._buckets: int(Fraction(count, width) * n) is count * n // width.
        buckets = []
        for number in range(width):
            part = data[count * number // width : count * (number + 1) // width]
            if part:
                buckets.append(summary(part))
        low, high = self.min_color.color, self.max_color.color
        assert low is not None and high is not None
        top = len(self.BARS) - 1
        styles: dict[float, tuple[str, RichStyle]] = {}
        out: list[Segment] = []
        position, step = 0.0, len(buckets) / width
        for _ in range(width):
            ratio = (buckets[int(position)] - minimum) / extent
            drawn = styles.get(ratio)
            if drawn is None:
                bar = self.BARS[int(ratio * top) % len(self.BARS)]
                drawn = styles[ratio] = (bar, RichStyle.from_color(blend_colors(low, high, ratio)))
            out.append(Segment(*drawn))
            position += step
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RichRenderResult:
        if (self.height or 1) != 1:
            yield from super().__rich_console__(console, options)
            return
        yield from self.bars(options.max_width)


#: What a chart narrower than two values is drawn on (Textual's drawing asks for a console).
_CONSOLE = Console(width=80, color_system="truecolor", force_terminal=False)
#: Rich styles as Textual's (`Content.from_rich_text` converted each bar's every time).
_AS_STYLE: dict[tuple[RichStyle, TerminalTheme | None], Style] = {}


def _textual(style: RichStyle, theme: TerminalTheme | None) -> Style:
    found = _AS_STYLE.get((style, theme))
    if found is None:
        if len(_AS_STYLE) > 4096:
            _AS_STYLE.clear()
        found = _AS_STYLE[style, theme] = Style.from_rich_style(style, theme)
    return found


#: The meta Textual's drawing gives a segment at each cell offset (`rich_style_with_offset`).
_OFFSETS: list[RichStyle] = []


def _at(x: int) -> RichStyle:
    while len(_OFFSETS) <= x:
        _OFFSETS.append(RichStyle.from_meta({"offset": (len(_OFFSETS), 0)}))
    return _OFFSETS[x]


def _opaque_colour(style: RichStyle) -> bool:
    """A colour alone, given as red, green and blue (as `ChartBars` gives each bar)."""
    colour = style.color
    return (
        colour is not None
        and colour.type == ColorType.TRUECOLOR
        and style == RichStyle.from_color(colour)
    )


class ChartVisual(Visual):
    """A chart line as Textual draws the `Text` of `ChartLine.text` (`Content.from_rich_text`,
    then `Content.render_strips`), each segment styled directly: the label, each bar, then the
    gap and the figures through `Content.render` alone."""

    def __init__(
        self,
        label: Text,
        bars: list[Segment],
        figures: Text,
        *,
        console: Console,
        theme: TerminalTheme | None,
    ) -> None:
        """`console` and `theme`: the app's console and ANSI theme, which Textual's drawing
        reads a `Text`'s styles with."""
        self.label = label
        self.bars = bars
        self.figures = figures
        self.console = console
        self.theme = theme
        self._content: Content | None = None

    def text(self) -> Text:
        """The whole line as a `Text`: what Textual's own drawing is given."""
        line = Text(no_wrap=True, overflow="ellipsis", end="")
        line.append_text(self.label)
        for bar in self.bars:
            line.append(bar.text, bar.style)
        line.append(" ")
        line.append_text(self.figures)
        return line

    def content(self) -> Content:
        if self._content is None:
            self._content = Content.from_rich_text(self.text(), console=self.console)
        return self._content

    def _plain(self, width: int) -> bool:
        """Whether the line is drawn as Textual would draw it without folding or changing it."""
        texts = (self.label.plain, self.figures.plain, *(bar.text for bar in self.bars))
        if any(character < _PLAIN_LIMIT for text in texts for character in text):
            return False
        if self.label._spans or self.label.style or self.figures.style:
            return False
        return self._cells() <= width

    def _cells(self) -> int:
        bars = sum(bar.cell_length for bar in self.bars)
        return self.label.cell_len + bars + 1 + self.figures.cell_len

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        if (
            not width
            or options.selection is not None
            or options.post_style is not None
            or not self._plain(width)
        ):
            return self.content().render_strips(width, height, style, options)
        # Content.render yields the label alone (no span: the base style), then each bar (a
        # span of its own: the base and its colour), then " " and the figures; its
        # `_FormattedLine.to_strip` adds the base to each again and notes the cell offset
        # (`rich_style_with_offset`: the Rich style and {"offset": (x, 0)} in its meta).
        segments: list[Segment] = []
        add = segments.append
        label = self.label.plain
        if label:
            add(Segment(label, (style + style).rich_style + _at(0)))
        x = len(label)
        theme, get_style = self.theme, self.console.get_style
        # On an opaque background, the base and an opaque colour, added twice, is the base's
        # Rich style with that colour (Textual's `Style.__add__`, `Style.rich_style`): one
        # Rich addition a bar, not two Textual styles built and converted.
        background = style.background
        opaque = background is not None and background.a == 1
        base = style.rich_style
        for bar in self.bars:
            colour = bar.style or RichStyle.null()
            if opaque and _opaque_colour(colour):
                rich = base + colour
            else:
                rich = (style + (style + _textual(colour, theme))).rich_style
            add(Segment(bar.text, rich + _at(x)))
            x += len(bar.text)
        spans = [
            Span(
                span.start + 1,
                span.end + 1,
                _textual(
                    get_style(span.style) if isinstance(span.style, str) else span.style, theme
                ),
            )
            for span in self.figures._spans
        ]
        rest = Content(" " + self.figures.plain, spans, strip_control_codes=False)
        for text, text_style in rest.render(style, end="", parse_style=options.get_style):
            add(Segment(text, (style + text_style).rich_style + _at(x)))
            x += len(text)
        return [Strip(segments, self._cells())][: 1 if height is None else height]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.content().get_optimal_width(rules, container_width)

    def get_minimal_width(self, rules: RulesMap) -> int:
        return self.content().get_minimal_width(rules)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self.content().get_height(rules, width)


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
        """New values and figures (and label), repainted in place: nothing laid out again, and
        nothing drawn again when they are the ones shown."""
        data = list(data)
        label = self.label if label is None else label
        same_figures = figures == self.figures and figures.style == self.figures.style
        if data == self.data and same_figures and label == self.label:
            return
        self.data = data
        self.figures = figures
        self.label = label
        self.refresh()

    def _chart_width(self, width: int) -> int:
        if self.chart_width is not None:
            return self.chart_width
        return max(1, min(self.chart_max, (width - self.label_width - 1) // 3))

    def drawing(self) -> ChartVisual | None:
        """What the line draws at its width: None when it has no width."""
        width = self.size.width
        if width <= 0:
            return None
        label = Text(self.label, no_wrap=True, overflow="ellipsis", end="")
        label.truncate(self.label_width, overflow="ellipsis", pad=True)
        chart = self._chart_width(width)
        _, base = self.background_colors
        low = base + self.get_component_styles("sparkline--min-color").color
        high = base + self.get_component_styles("sparkline--max-color").color
        bars = ChartBars(
            self.data, width=chart, min_color=low.rich_color, max_color=high.rich_color
        )
        figures = self.figures.copy()
        figures.truncate(max(0, width - self.label_width - chart - 1), overflow="ellipsis")
        app = self.app
        return ChartVisual(
            label, bars.bars(chart), figures, console=app.console, theme=app.ansi_theme
        )

    def render(self) -> RenderResult:
        drawing = self.drawing()
        if drawing is None:
            return Text(no_wrap=True, overflow="ellipsis", end="")
        return drawing
