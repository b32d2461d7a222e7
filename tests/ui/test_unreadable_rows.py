"""One unreadable item in any list (refunds, tokens, accounts, distributions, an account's
charges) is one "unreadable row" with its id, and the rest of the page shows: the list kit's
`add_unreadable_rows`, one implementation for every table."""

from __future__ import annotations

import json
from typing import Any

import httpx
from textual.widgets import DataTable

from paytui.ui.screens.account_detail import AccountDetailScreen
from paytui.ui.widgets.list_state import UNREADABLE_LABEL, is_unreadable_key
from tests.ui.conftest import make_app, settle

PAGE_HINTS = ("has_more", "total", "limit")


class SecondItemUnreadable(httpx.AsyncBaseTransport):
    """Every list page answered has its second item's own id replaced by an object (its value
    moved to a bare ``id``: the item has no id its model can read, as a broken server would
    send) and its timestamps replaced by objects; the ids so spoiled are kept. (An odd
    timestamp alone only makes that field unreadable, tests/api/test_trust.py; without its id
    an item is an unreadable row.)"""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.spoiled: set[str] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.method != "GET" or not response.headers.get("content-type", "").startswith(
            "application/json"
        ):
            return response
        body = json.loads(await response.aread())
        items = _items(body)
        if items is not None and len(items) > 1 and isinstance(items[1], dict):
            item: dict[str, Any] = items[1]
            stamps = [key for key in item if key.endswith("_timestamp")] or ["created_timestamp"]
            for key in stamps:
                item[key] = {"hostile": True}
            # Its own id becomes an object (a bare ``id`` alone is read as the id, as some
            # services key it), its value kept under ``id``.
            own = next(key for key in item if key.endswith("_id"))
            item["id"] = item[own]
            item[own] = {"hostile": True}
            self.spoiled.add(str(item["id"]))
        return httpx.Response(response.status_code, json=body)


def _items(body: Any) -> list[Any] | None:
    if isinstance(body, list):
        return body
    if isinstance(body, dict) and any(hint in body for hint in PAGE_HINTS):
        return next((v for v in body.values() if isinstance(v, list)), None)
    return None


async def laid_out(app: Any, pilot: Any) -> None:
    """Every table with rows has its columns. A list filled while its screen had no size yet
    (built ahead) holds rows without cells until its first layout fits the columns
    (`FitTable._refit`); a quick `settle` could end before the newly shown screen's layout,
    and the rows read then had no cells (IndexError at load 18). Waited for, not timed."""
    for _ in range(200):
        if all(table.columns or not table.row_count for table in app.screen.query(DataTable)):
            return
        await pilot.pause()
    raise AssertionError("a table kept rows without columns")


def unreadable_rows(app: Any) -> list[tuple[str, int]]:
    """(the id an unreadable row shows, rows in its table) for every unreadable row on screen."""
    found = []
    for table in app.screen.query(DataTable):
        for key in table.rows:
            if is_unreadable_key(key.value):
                cells = table.get_row(key)
                assert cells[0].plain == UNREADABLE_LABEL
                found.append((cells[1].plain, table.row_count))
    return found


async def test_every_list_shows_an_unreadable_item_as_one_row(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    transport = SecondItemUnreadable(sandbox_transport)
    app = make_app(transport)
    seen: dict[str, list[tuple[str, int]]] = {}
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(app, pilot)
        for mode in ("tokens", "distributions", "accounts"):
            await app.switch_mode(mode)
            await settle(app, pilot)
            await laid_out(app, pilot)
            seen[mode] = unreadable_rows(app)
        client = await app.get_client()
        account_id = (await client.search_charges_page(limit=1)).items[0].account_id
        assert account_id is not None
        await app.push_screen(AccountDetailScreen(account_id))
        await settle(app, pilot)
        await laid_out(app, pilot)
        seen["an account's charges"] = unreadable_rows(app)
        await app.switch_mode("charges")
        app.action_refunds()
        await settle(app, pilot)
        await laid_out(app, pilot)
        seen["refunds"] = unreadable_rows(app)
    for where, rows in seen.items():
        assert len(rows) == 1, (where, rows)
        shown_id, row_count = rows[0]
        assert shown_id in transport.spoiled, (where, shown_id)
        assert row_count > 2, (where, row_count)  # the rest of the page shows
