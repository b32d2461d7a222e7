"""Pilot tests of the charge detail screen on the seeded sandbox (3000 charges, seed 7).

Charges are found through the client (by status, type, capture state) rather than by hard-coded
ids, so the tests say what kind of charge they need and survive a reseed. Workers are awaited,
never slept on.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Static

from paytui.api.models import Charge
from paytui.api.queries import ChargeQuery
from paytui.sandbox.faults import Faults
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen
from paytui.ui.widgets.distribution_tree import EMPTY_MESSAGE, NOT_LOADED_MESSAGE, DistributionTree
from paytui.ui.widgets.json_view import JsonView
from tests.ui.conftest import HANG_GUARD, frozen_clock, make_app, settle
from tests.ui.shared_app import app_and_pilot, shared_app_test

AppFactory = Callable[..., PaytuiApp]


def plain(renderable: Any, width: int = 200) -> str:
    """A Rich renderable as plain text (what a panel says, whatever scrolled into view)."""
    console = Console(width=width, file=io.StringIO(), color_system=None, record=True)
    console.print(renderable)
    return console.export_text(styles=False)


def panel(screen: ChargeDetailScreen, panel_id: str) -> Static:
    return screen.query_one(f"#panel-{panel_id}", Static)


def panel_text(screen: ChargeDetailScreen, panel_id: str) -> str:
    return plain(panel(screen, panel_id).content)


def tree_labels(tree: DistributionTree) -> list[str]:
    """Every label in the tree, depth first (collapsed nodes included)."""
    labels: list[str] = []

    def walk(node: Any) -> None:
        for child in node.children:
            labels.append(child.label.plain)
            walk(child)

    walk(tree.root)
    return labels


async def find(
    app: PaytuiApp, query: ChargeQuery, pick: Callable[[Charge], bool] | None = None
) -> Charge:
    client = await app.get_client()
    page = await client.search_charges_page(query, limit=100)
    for charge in page.items:
        if pick is None or pick(charge):
            return charge
    raise AssertionError(f"no seeded charge for {query.to_params()}")


async def open_detail(
    app: PaytuiApp, pilot: Any, charge_id: str, **kwargs: Any
) -> ChargeDetailScreen:
    screen = ChargeDetailScreen(charge_id, **kwargs)
    await app.push_screen(screen)
    await settle(app, pilot)
    assert app.screen is screen
    return screen


class TimeoutEnforcingTransport(httpx.AsyncBaseTransport):
    """Applies the request's read timeout the way httpx's network transport does.

    The in-process ASGI transport has no timeouts of its own, so without this a slow sandbox
    (`delay_seconds`) would simply be waited for and the timeout path never run.
    """

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        timeout = (request.extensions.get("timeout") or {}).get("read")
        try:
            return await asyncio.wait_for(self.inner.handle_async_request(request), timeout)
        except TimeoutError as exc:
            raise httpx.ReadTimeout("read timed out", request=request) from exc


def notifications(app: PaytuiApp) -> list[str]:
    return [n.message for n in app._notifications]


@shared_app_test
async def test_sale_shows_every_group(shared_pilot: Pilot[Any]) -> None:
    app, pilot = app_and_pilot(shared_pilot)
    sale = await find(
        app, ChargeQuery(charge_type="sale", status="success"), lambda c: bool(c.invoice_number)
    )
    screen = await open_detail(app, pilot, sale.charge_id)

    summary = panel_text(screen, "summary")
    assert sale.charge_id in summary
    assert "success" in summary and "Approved" in summary and "sale" in summary
    assert f"{sale.total_amount:,.2f}" in summary
    assert sale.account_id in summary and sale.merchant_id in summary
    payment = panel_text(screen, "payment")
    assert sale.last4 in payment and "XXXX" in payment
    assert sale.payment_method.contact.first_name in payment
    assert "AVS" in panel_text(screen, "processor")
    assert sale.invoice_number in panel_text(screen, "fees")
    timestamps = panel_text(screen, "timestamps")
    assert "UTC" in timestamps and " ago" in timestamps
    for tag in sale.tags:
        assert tag in panel_text(screen, "tags")
    for key in sale.attributes:
        assert key in panel_text(screen, "attributes")
    # A plain sale has no disputes, no line items, no unknown fields.
    for absent in ("chargebacks", "return", "other"):
        assert not panel(screen, absent).display
    assert screen.error is None

    # The header shows the charge's account; escape goes back to the list.
    assert app.account_in_focus == sale.account_id
    await pilot.press("escape")
    await settle(app, pilot)
    assert not isinstance(app.screen, ChargeDetailScreen)
    # Back on the list: the profile's account, not the row under the cursor.
    assert app.account_in_focus == app.session.default_account_id


@shared_app_test
async def test_chargeback_shows_chargebacks_and_distribution_tree(shared_pilot: Pilot[Any]) -> None:
    app, pilot = app_and_pilot(shared_pilot)
    charge = await find(app, ChargeQuery(status="chargeback"))
    screen = await open_detail(app, pilot, charge.charge_id)

    chargebacks = panel_text(screen, "chargebacks")
    assert panel(screen, "chargebacks").display
    assert "Total charged back" in chargebacks
    assert charge.chargebacks is not None
    for item in charge.chargebacks.items:
        assert item.chargeback_id in chargebacks
        assert item.reason_code in chargebacks

    labels = tree_labels(screen.query_one(DistributionTree))
    assert any(label.startswith("Distribution ") for label in labels)
    totals = [label for label in labels if label.startswith("chargebacks ")]
    assert totals, labels  # the category shows among totals and this charge's items
    assert any("item " in label and label.startswith("chargebacks") for label in labels)


@shared_app_test
async def test_capture_opens_its_authorization_and_escape_returns(shared_pilot: Pilot[Any]) -> None:
    app, pilot = app_and_pilot(shared_pilot)
    capture = await find(app, ChargeQuery(charge_type="capture"))
    screen = await open_detail(app, pilot, capture.charge_id)
    assert capture.original_charge_id in panel_text(screen, "summary")
    assert screen.check_action("open_authorization", ()) is True
    assert screen.check_action("open_capture", ()) is False

    await pilot.press("o")
    await settle(app, pilot)
    auth = app.screen
    assert isinstance(auth, ChargeDetailScreen)
    assert auth.charge_id == capture.original_charge_id
    assert re.search(r"Type\W+auth\b", panel_text(auth, "summary"))  # fmt.charge_type_name

    await pilot.press("escape")
    await settle(app, pilot)
    assert app.screen is screen


@shared_app_test
async def test_authorization_links_to_its_capture(shared_pilot: Pilot[Any]) -> None:
    app, pilot = app_and_pilot(shared_pilot)
    auth = await find(app, ChargeQuery(charge_type="authorization", captured=True))
    assert auth.captured_charge_id
    screen = await open_detail(app, pilot, auth.charge_id)
    assert auth.captured_charge_id in panel_text(screen, "summary")
    await pilot.press("o")
    await settle(app, pilot)
    assert isinstance(app.screen, ChargeDetailScreen)
    assert app.screen.charge_id == auth.captured_charge_id


async def test_authorization_without_captured_id_finds_capture_by_search(
    app_factory: AppFactory,
) -> None:
    """A service that does not echo `captured_charge_id`: the link comes from a search."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        auth = await find(app, ChargeQuery(charge_type="authorization", captured=True))
        client = await app.get_client()
        real_get = client.get_charge

        async def get_without_link(charge_id: str, **kwargs: Any) -> Charge:
            charge = await real_get(charge_id, **kwargs)
            return charge.model_copy(update={"captured_charge_id": None})

        client.get_charge = get_without_link  # type: ignore[method-assign]
        screen = await open_detail(app, pilot, auth.charge_id)
        assert auth.captured_charge_id in panel_text(screen, "summary")
        assert screen.check_action("open_capture", ()) is True

        open_auth = await find(app, ChargeQuery(charge_type="authorization", captured=False))
        other = await open_detail(app, pilot, open_auth.charge_id)
        assert "not captured yet" in panel_text(other, "summary")
        assert other.check_action("open_capture", ()) is False

        # A service that ignores original_charge_id answers with captures of other
        # authorizations: none is named as this one's capture, and it can still be captured.
        real_search = client.search_charges_page

        async def ignoring(query: Any = None, **kwargs: Any) -> Any:
            return await real_search(ChargeQuery(charge_type="capture"), **kwargs)

        client.search_charges_page = ignoring  # type: ignore[method-assign]
        others = await real_search(ChargeQuery(charge_type="capture"), limit=20)
        blind = await open_detail(app, pilot, open_auth.charge_id)
        summary = panel_text(blind, "summary")
        assert "unknown (the service ignored" in summary
        assert not any(c.charge_id in summary for c in others.items)
        assert blind.check_action("open_capture", ()) is False
        assert blind.check_action("capture", ()) is True


async def test_expand_all_loads_and_says_what_it_added(app_factory: AppFactory) -> None:
    """X: the charge read with expand=all; a line names what the expansion added."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        charge = await find(app, ChargeQuery(charge_type="sale", status="success"))
        client = await app.get_client()
        asked: list[object] = []
        real_get = client.get_charge

        async def recording(charge_id: str, **kwargs: Any) -> Charge:
            asked.append(kwargs.get("expand"))
            return await real_get(charge_id, **kwargs)

        client.get_charge = recording  # type: ignore[method-assign]
        screen = await open_detail(app, pilot, charge.charge_id, expand=None)
        line = screen.query_one("#detail-expanded", Static)
        assert not line.display
        await pilot.press("X")
        await settle(app, pilot)
        assert asked[-1] == "all"
        assert line.display and "expand=all added: distributions" in plain(line.content)
        assert screen.query_one(DistributionTree).display


@shared_app_test
async def test_j_toggles_raw_json(shared_pilot: Pilot[Any]) -> None:
    app, pilot = app_and_pilot(shared_pilot)
    charge = await find(app, ChargeQuery(status="return"))
    screen = await open_detail(app, pilot, charge.charge_id)
    view = screen.query_one(JsonView)
    assert not view.display
    await pilot.press("J")
    await pilot.pause()
    assert view.display and not screen.query_one("#detail-panels").display
    assert f'"charge_id": "{charge.charge_id}"' in view.text
    assert '"return": {' in view.text and '"return_code"' in view.text
    assert app.focused is view
    await pilot.press("J")
    await pilot.pause()
    assert not view.display and screen.query_one("#detail-panels").display
    # The ACH return also has its own panel.
    assert "R0" in panel_text(screen, "return")


@shared_app_test
async def test_d_loads_distributions_on_demand(shared_pilot: Pilot[Any]) -> None:
    app, pilot = app_and_pilot(shared_pilot)
    charge = await find(app, ChargeQuery(status="chargeback"))
    screen = await open_detail(app, pilot, charge.charge_id, expand=None)
    tree = screen.query_one(DistributionTree)
    assert tree_labels(tree) == [NOT_LOADED_MESSAGE]
    await pilot.press("d")
    await settle(app, pilot)
    assert any(label.startswith("Distribution ") for label in tree_labels(tree))
    assert app.focused is tree


@shared_app_test
async def test_undistributed_charge_says_so(shared_pilot: Pilot[Any]) -> None:
    app, pilot = app_and_pilot(shared_pilot)
    auth = await find(app, ChargeQuery(charge_type="authorization", captured=False))
    screen = await open_detail(app, pilot, auth.charge_id)
    assert auth.charge_id
    assert tree_labels(screen.query_one(DistributionTree)) == [EMPTY_MESSAGE]


@shared_app_test
async def test_markup_in_customer_data_is_literal(shared_pilot: Pilot[Any]) -> None:
    app, pilot = app_and_pilot(shared_pilot)
    charge = await find(app, ChargeQuery(status="chargeback"), lambda c: "[" in c.contact_name)
    screen = await open_detail(app, pilot, charge.charge_id)
    assert "[bold red]Mallory[/]" in panel_text(screen, "payment")
    await pilot.press("J")
    await pilot.pause()
    assert "[bold red]Mallory[/]" in screen.query_one(JsonView).text


async def test_unknown_fields_show_under_other(app_factory: AppFactory) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(app, ChargeQuery(charge_type="sale", status="success"))
        client = await app.get_client()
        real_get = client.get_charge

        async def get_with_extras(charge_id: str, **kwargs: Any) -> Charge:
            charge = await real_get(charge_id, **kwargs)
            wire = charge.model_dump(mode="json", by_alias=True, exclude_unset=True)
            wire["risk_flags"] = {"velocity": "[blink]high[/]"}
            wire["line_items"] = [{"description": "Widget", "quantity": 2, "unit_price": 4.5}]
            return Charge.model_validate(wire)

        client.get_charge = get_with_extras  # type: ignore[method-assign]
        screen = await open_detail(app, pilot, sale.charge_id)
        other = panel_text(screen, "other")
        assert "risk_flags" in other and "[blink]high[/]" in other
        line_items = panel_text(screen, "line-items")
        assert "Widget" in line_items and "4.50" in line_items
        await pilot.press("J")
        await pilot.pause()
        assert '"risk_flags"' in screen.query_one(JsonView).text


@shared_app_test
async def test_not_found(shared_pilot: Pilot[Any]) -> None:
    app, pilot = app_and_pilot(shared_pilot)
    missing = "0" * 24
    screen = await open_detail(app, pilot, missing)
    assert screen.error == f"No charge {missing}"
    assert screen.query_one("#detail-error").display
    assert f"No charge {missing}" in notifications(app)
    assert not panel(screen, "summary").display


@pytest.mark.parametrize(
    ("fault", "expected", "timeout"),
    [
        # Only the timeout case gets a short client timeout: the retry after recovery must not
        # race a busy machine.
        pytest.param(
            {"fail_status": 500, "fail_path_prefix": "/v2/charges/"}, "(500)", 10.0, id="500"
        ),
        pytest.param(
            {"fail_status": 403, "fail_path_prefix": "/v2/charges/"}, "(403)", 10.0, id="403"
        ),
        pytest.param({"delay_seconds": 3.0}, "Timed out", 1.0, id="timeout"),
    ],
)
async def test_errors_are_clear_and_retry_works(
    sandbox_transport: httpx.AsyncBaseTransport,
    sandbox_faults: Faults,
    fault: dict[str, Any],
    expected: str,
    timeout: float,
) -> None:
    app = make_app(TimeoutEnforcingTransport(sandbox_transport), timeout=timeout)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        charge = await find(app, ChargeQuery(status="chargeback"))
        sandbox_faults.update(fault)
        screen = await open_detail(app, pilot, charge.charge_id)
        assert screen.error is not None
        assert expected in screen.error
        error_text = plain(screen.query_one("#detail-error", Static).content, width=500)
        assert expected in error_text and "ctrl+r to retry" in error_text
        assert any(expected in message for message in notifications(app))
        assert not panel(screen, "summary").display

        sandbox_faults.reset()
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert screen.error is None
        assert not screen.query_one("#detail-error").display
        assert charge.charge_id in panel_text(screen, "summary")


async def test_a_slow_read_shows_the_spinner_then_the_charge_in_one_go(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """The spinner waits `SPINNER_AFTER` (a quick answer paints once, whole); a slow one shows
    it, and the charge and its refunds land together. Slow: the charge's read is held until the
    spinner was seen (a service answering after a fixed second could, on a loaded machine, answer
    before the test looked)."""
    held = HeldRefunds(sandbox_transport)
    app = make_app(held)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        charge = await find(app, ChargeQuery(status="success"))
        held.path, held.armed = f"/v2/charges/{charge.charge_id}", True
        screen = ChargeDetailScreen(charge.charge_id)
        await app.push_screen(screen)
        body = screen.query_one("#detail-panels")
        for _ in range(400):
            if body.loading:
                break
            await pilot.pause(0.01)
        assert body.loading, "no spinner while the service held the charge"
        assert screen.charge is None and screen.refund_position is None
        held.release.set()
        await settle(app, pilot)
        assert not body.loading
        assert charge.charge_id in panel_text(screen, "summary")
        assert screen.refund_position is not None


async def test_a_failed_refunds_read_is_said_and_the_charge_still_shows(
    app_factory: AppFactory, sandbox_faults: Faults
) -> None:
    """The refunds are read beside the charge: their failure is said in their panel, and the
    heading claims no refund position (nothing is "left to refund" without them)."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        charge = await find(app, ChargeQuery(status="success"))
        sandbox_faults.update(
            {"fail_status": 500, "fail_path_prefix": "/v2/refunds", "fail_count": 1000}
        )
        screen = await open_detail(app, pilot, charge.charge_id)
        assert screen.error is None
        assert charge.charge_id in panel_text(screen, "summary")
        assert "Could not load the refunds" in panel_text(screen, "refunds")
        assert screen.refund_position is None
        assert "left to refund" not in plain(screen.query_one("#detail-heading", Static).content)


class HeldRefunds(httpx.AsyncBaseTransport):
    """Once `armed`, refund lists (or reads of `path`) wait for `release`; everything else
    answers at once. (Armed from the start, it would also hold the refunds the app reads as it
    starts, until the client's timeout.)"""

    def __init__(self, inner: httpx.AsyncBaseTransport, path: str = "/v2/refunds") -> None:
        self.inner = inner
        self.path = path
        self.armed = False
        self.release = asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.armed and request.url.path == self.path:
            await self.release.wait()
        return await self.inner.handle_async_request(request)


async def _loaded(app: PaytuiApp, pilot: Any, screen: ChargeDetailScreen) -> None:
    """The detail's load worker (`charge-detail-load`) started as the screen mounted, and ended."""
    for _ in range(100):
        load = [w for w in app.workers if w.group == "charge-detail-load" and w.node is screen]
        if load:
            break
        await pilot.pause()
    assert load, "the detail never started loading"
    await asyncio.wait_for(load[0].wait(), timeout=HANG_GUARD)
    await pilot.pause()


async def test_a_slow_refunds_list_does_not_hold_the_charge_back(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    """The refunds join the charge's frame only when they answer soon after it: a refunds
    list still busy (retrying, say) leaves the charge shown, and its panel follows."""
    held = HeldRefunds(sandbox_transport)
    app = make_app(held)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        charge = await find(app, ChargeQuery(status="success"))
        held.armed = True
        screen = ChargeDetailScreen(charge.charge_id)
        await app.push_screen(screen)
        # Not `settle`: it would wait for the held refunds worker. The charge is awaited as
        # an event: the detail's load worker ending (after `REFUNDS_WAIT` for the refunds,
        # however long a loaded machine takes to get there).
        panels = screen.query_one("#detail-panels")
        await _loaded(app, pilot, screen)
        assert charge.charge_id in panel_text(screen, "summary")
        assert not panels.loading
        assert screen.refund_position is None  # not known yet, and not claimed
        # ... and said in words on the heading (a lone "?" is read as "question mark").
        assert screen.state_line().plain == "refunds not read yet"
        held.release.set()
        await settle(app, pilot)
        # The refunds land on their own once they answer: that answer is the event.
        refunds = screen._refunds_pending
        assert refunds is not None
        await asyncio.wait_for(asyncio.shield(refunds), timeout=HANG_GUARD)
        await pilot.pause()
        assert screen.refund_position is not None


async def test_failed_reload_keeps_the_charge_on_screen(
    app_factory: AppFactory, sandbox_faults: Faults
) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        charge = await find(app, ChargeQuery(status="chargeback"))
        screen = await open_detail(app, pilot, charge.charge_id)
        sandbox_faults.update({"fail_status": 500})
        await pilot.press("d")
        await settle(app, pilot)
        assert screen.error is not None and "(500)" in screen.error
        assert charge.charge_id in panel_text(screen, "summary")


async def test_money_actions_follow_the_policy(app_factory: AppFactory) -> None:
    """c / r / e are enabled where they apply, greyed out (with the reason) where not or when the
    policy refuses them."""
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        auth = await find(app, ChargeQuery(charge_type="authorization", captured=False))
        screen = await open_detail(app, pilot, auth.charge_id)
        for action in ("capture", "edit"):
            assert screen.check_action(action, ()) is True
        # An open authorization moved no money: refund is disabled and says why.
        assert screen.check_action("refund", ()) is None
        assert "open authorization" in (screen.disabled_reason("refund") or "")
        footer_keys = {b.binding.key: b for b in app.active_bindings.values()}
        for key in ("c", "e"):
            assert key in footer_keys and footer_keys[key].enabled
            assert "needs urn:v2:" in footer_keys[key].tooltip
        assert not footer_keys["r"].enabled
        app.session.read_only = True  # type: ignore[attr-defined]
        for action in ("capture", "refund", "edit"):
            assert screen.check_action(action, ()) is None


@shared_app_test
async def test_y_copies_the_charge_id(shared_pilot: Pilot[Any]) -> None:
    app, pilot = app_and_pilot(shared_pilot)
    charge = await find(app, ChargeQuery(charge_type="sale"))
    await open_detail(app, pilot, charge.charge_id)
    await pilot.press("y")
    await pilot.pause()
    assert app.clipboard == charge.charge_id
    assert f"Copied charge id {charge.charge_id}" in notifications(app)


def test_bindings_have_ids_and_descriptions() -> None:
    from textual.binding import Binding

    bindings = [b for b in ChargeDetailScreen.BINDINGS if isinstance(b, Binding)]
    assert {b.key for b in bindings} >= {"escape", "o", "d", "J", "y", "ctrl+r", "c", "r", "e"}
    for binding in bindings:
        assert binding.id and binding.id.startswith("detail.")
        assert binding.description and binding.tooltip
    assert len({b.id for b in bindings}) == len(bindings)


async def test_failed_connection_is_an_inline_error_and_retry_connects(
    sandbox_transport: httpx.AsyncBaseTransport,
) -> None:
    working = make_app(sandbox_transport)
    broken = {"now": True}

    async def flaky_factory() -> Any:
        if broken["now"]:
            raise OSError("sandbox did not start")
        return await working.session._client_factory()  # type: ignore[misc]

    app = PaytuiApp(flaky_factory, clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        screen = await open_detail(app, pilot, "0" * 24)
        assert screen.error is not None and "sandbox did not start" in screen.error
        broken["now"] = False
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert screen.error == f"No charge {'0' * 24}"  # connected, and the service answered
