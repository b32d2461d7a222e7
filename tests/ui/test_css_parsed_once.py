"""Before the first frame each stylesheet is parsed once (`textual_fixes.ParsedOnceStylesheet`).

Parsing the CSS is CPU the first frame waits for; a start used to parse the App's, the first
screen's and every widget's stylesheet up to five times (docs/performance.md). Counted through
Textual's own parser (`css_parses`), not timed.
"""

from __future__ import annotations

from collections import Counter

import httpx
import pytest

from paytui.config.model import UiPrefs
from tests.ui.conftest import fake_app, make_app, settle
from tests.ui.test_production import prod_connection


def _parsed_twice(parses: Counter[tuple[object, ...]]) -> list[object]:
    return [key[1] for key, count in parses.items() if count > 1]


async def test_a_start_parses_each_stylesheet_once(css_parses: Counter[tuple[object, ...]]) -> None:
    app = fake_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
    sources = {key[1] for key in css_parses}
    assert any("charges.tcss" in str(where) for where in sources)  # the first screen's own
    assert any("app.tcss" in str(where) for where in sources)
    assert _parsed_twice(css_parses) == []


@pytest.mark.parametrize("theme", ["nord", "ansi-dark"])  # ansi: paytui's own variables too
async def test_a_configured_theme_is_in_place_before_the_first_parse(
    theme: str,
    css_parses: Counter[tuple[object, ...]],
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    app = make_app(sandbox_transport, connection=prod_connection(ui=UiPrefs(theme=theme)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.theme == theme
        assert app.stylesheet._variables == app.get_css_variables()
    assert _parsed_twice(css_parses) == []
