"""`ChartLine` draws what Textual draws for the same line: its bars as Textual's `Sparkline`
yields them, its strips as Textual's `Content` renders the line's `Text` (the way the line was
drawn before `ChartVisual`), segment for segment: text, colours, attributes and the offsets a
text selection reads."""

from __future__ import annotations

import random
from collections.abc import Sequence

from rich.color import Color
from rich.console import Console
from rich.segment import Segment
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.renderables.sparkline import Sparkline
from textual.visual import Visual, visualize

from paytui.ui import format as fmt
from paytui.ui.widgets.chart_line import ChartBars, ChartLine, ChartVisual

SERIES: list[list[float]] = [
    [],
    [4.0],
    [2.0, 2.0, 2.0],
    [0.0, 1.0],
    [3.0, -1.5, 7.25, 0.0, 7.25, 1e-9, 2.5],
    [float(day % 7) for day in range(30)],
    [random.Random(seed).uniform(0, 1e6) for seed in range(90)],  # more days than cells
    [random.Random(7).random() for _ in range(11)],  # fewer days than cells
    [0.0] * 29 + [12.0],
]


def textual_bars(data: Sequence[float], width: int) -> list[Segment]:
    drawing = Sparkline(data, width=width, min_color=Color.parse("#123456"))
    console = Console(width=width)
    return [s for s in drawing.__rich_console__(console, console.options) if isinstance(s, Segment)]


def test_the_bars_are_textuals_sparkline_bars() -> None:
    for data in SERIES:
        for width in (1, 7, 30, 31, 90):
            ours = ChartBars(data, width=width, min_color=Color.parse("#123456")).bars(width)
            assert ours == textual_bars(data, width), (data, width)


def textual_line(line: ChartLine) -> Text:
    """The line as `ChartLine.render` built it before: Textual's `Sparkline` drawn into a
    `Text` beside the label and the figures."""
    width = line.size.width
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    label = Text(line.label, no_wrap=True, overflow="ellipsis", end="")
    label.truncate(line.label_width, overflow="ellipsis", pad=True)
    text.append_text(label)
    chart = line._chart_width(width)
    _, base = line.background_colors
    low = base + line.get_component_styles("sparkline--min-color").color
    high = base + line.get_component_styles("sparkline--max-color").color
    drawing = Sparkline(line.data, width=chart, min_color=low.rich_color, max_color=high.rich_color)
    console = line.app.console
    for segment in drawing.__rich_console__(console, console.options):
        if isinstance(segment, Segment):
            text.append(segment.text, segment.style)
    text.append(" ")
    figures = line.figures.copy()
    figures.truncate(max(0, width - line.label_width - chart - 1), overflow="ellipsis")
    text.append_text(figures)
    return text


def figures(n: int) -> Text:
    shapes = [
        Text(),
        Text("plain words only"),
        Text.assemble(("today $1,234.00", "bold"), " · 30 d $98,765.43 · max $7,000.00"),
        Text.assemble(
            ("1.25 %", "bold"),
            " · ",
            ("ABOVE the 1 % line", fmt.tone("bold error")),
            " · 12 of 3,456 sales",
            (" · $12.00 of $3,456.00", "dim"),
        ),
        Text.assemble(
            "starts plain, ", ("then bold", "bold"), (" not proven", fmt.tone("warning"))
        ),
        Text("a long figure that does not fit beside the chart " * 4),
    ]
    return shapes[n % len(shapes)]


class Lines(App[None]):
    CSS = """
    #boosted { background: $boost; height: auto; }
    #plain { height: auto; }
    """

    def compose(self) -> ComposeResult:
        labels = ["Sales volume", "acct_0123456789abcdef0123456789", "口座・日本語ラベル", ""]
        for box in ("plain", "boosted"):
            with Vertical(id=box):
                for n, data in enumerate(SERIES):
                    yield ChartLine(
                        labels[n % len(labels)],
                        label_width=16 if n % 2 else 24,
                        chart_width=30 if n % 3 else None,
                        data=data,
                        figures=figures(n),
                    )


async def test_each_line_is_drawn_as_textual_draws_its_text() -> None:
    drawn_directly = 0
    for size in ((120, 40), (60, 40), (45, 40)):  # at 45 and 60 some lines are folded
        app = Lines()
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            for line in app.query(ChartLine):
                width = line.size.width
                visual = line.render()
                assert isinstance(visual, ChartVisual)
                drawn_directly += visual._plain(width)
                ours = list(line.render_line(0))
                textual = Visual.to_strips(
                    line, visualize(line, textual_line(line)), width, 1, line.visual_style
                )
                assert ours == list(textual[0]), (size, line.label, line.data)
    assert drawn_directly > len(SERIES)  # the direct drawing was the one compared


async def test_a_line_shows_new_values_and_not_the_same_ones_again() -> None:
    app = Lines()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        line = app.query(ChartLine).first()
        before = list(line.render_line(0))
        line.show([1.0, 5.0, 2.0], figures(2), label="Captures")
        assert line._dirty_regions  # a new line is drawn again
        after = list(line.render_line(0))
        assert after != before and after == list(
            Visual.to_strips(
                line, visualize(line, textual_line(line)), line.size.width, 1, line.visual_style
            )[0]
        )
        line.show([1.0, 5.0, 2.0], figures(2), label="Captures")
        assert not line._dirty_regions  # the same line is not
