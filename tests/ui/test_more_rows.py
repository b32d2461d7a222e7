"""The list kit's one paging (`MoreRows`): where the next page starts, and when it is read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from paytui.ui.widgets.more_rows import MoreRows
from tests.ui.conftest import screen_text, settle


@dataclass
class _Page:
    total: int | None
    has_more: bool


def test_the_next_page_starts_after_every_row_read_unreadable_ones_included() -> None:
    more = MoreRows(50)
    more.took(_Page(total=120, has_more=True), 50)  # 48 readable + 2 unreadable rows
    assert more.next_offset == 50 and more.total == 120


def test_more_is_read_only_near_the_end_and_never_twice_at_once() -> None:
    more = MoreRows(50, near=5)
    more.took(_Page(total=120, has_more=True), 50)
    assert not more.wants_more(44)
    assert more.wants_more(45)
    more.loading = True
    assert not more.wants_more(49)  # the page is on its way
    more.loading = False
    more.took(_Page(total=120, has_more=True), 50)
    more.took(_Page(total=120, has_more=False), 20)
    assert not more.wants_more(119)  # everything is read


def test_a_new_search_starts_from_the_top() -> None:
    more = MoreRows(50)
    more.took(_Page(total=None, has_more=True), 50)
    more.loading = True
    more.reset()
    assert (more.next_offset, more.total, more.has_more, more.loading) == (0, None, False, False)


@pytest.mark.asyncio
async def test_a_next_page_that_fails_keeps_the_rows_and_is_asked_again(app_factory: Any) -> None:
    """Distributions (as tokens and refunds): the rows read stay under one error line, the offset
    does not move, and the next move near the end reads the same page again."""
    from paytui.api.errors import ServerError
    from paytui.ui.screens.distributions import PAGE_SIZE, DistributionsScreen

    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        client = await app.get_client()
        real = client.list_distributions_page
        asked: list[int] = []

        async def flaky(*, limit: int, offset: int, **kwargs: Any) -> Any:
            asked.append(offset)
            if offset and asked.count(offset) == 1:
                raise ServerError("the service had a hiccup", status=503)
            return await real(limit=limit, offset=offset, **kwargs)

        client.list_distributions_page = flaky  # type: ignore[method-assign]
        await pilot.press("4")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, DistributionsScreen)
        await pilot.press("G")
        await settle(app, pilot)
        assert asked == [0, PAGE_SIZE]
        assert len(screen.distributions) == PAGE_SIZE and screen.more.next_offset == PAGE_SIZE
        assert "more distributions did not load" in screen_text(app)
        await pilot.press("k", "j")  # the next move near the end asks again
        await settle(app, pilot)
        assert asked == [0, PAGE_SIZE, PAGE_SIZE]
        assert len(screen.distributions) == 2 * PAGE_SIZE
