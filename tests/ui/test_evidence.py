"""`E` on a chargeback (issue #42): its evidence pack on a screen, `x` saves it; `E` does not
apply to a charge without a chargeback (the registry's rule, as `paytui evidence` applies)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from paytui.api.queries import ChargeQuery
from paytui.ui.screens.evidence import EvidenceScreen
from tests.ui.conftest import screen_text, settle
from tests.ui.test_charge_detail import AppFactory, find, open_detail


async def test_e_on_a_chargeback_shows_its_pack_and_x_saves_it(
    app_factory: AppFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import platformdirs

    monkeypatch.setattr(platformdirs, "user_documents_dir", lambda: str(tmp_path))
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        ravi = await find(app, ChargeQuery(status="chargeback", contact_name="Ravi Menon"))
        await open_detail(app, pilot, ravi.charge_id)
        await pilot.press("E")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, EvidenceScreen) and screen.pack is not None
        text = screen_text(app)
        missing = len(screen.pack.missing)
        assert f"{missing} items missing, 1 of them required: it would be refused" in text
        assert "[ ] Proof of delivery (carrier, tracking, delivered date) (required)" in text
        # Shown as text, not as Markdown's source: no escapes, no "##", the score line.
        assert "no attribute tracking_number, tracking, carrier" in text
        assert "\\_" not in text and "## " not in text
        assert "Score: checklist " in text and "missing (required): Proof of delivery" in text
        await pilot.press("x")
        await settle(app, pilot)
        saved = sorted(path.suffix for path in tmp_path.glob("paytui-evidence-*"))
        assert saved == [".json", ".md", ".pdf"]
        modes = {stat.S_IMODE(p.stat().st_mode) for p in tmp_path.glob("paytui-evidence-*")}
        assert modes == {0o600}


async def test_e_does_not_apply_to_a_charge_without_a_chargeback(
    app_factory: AppFactory,
) -> None:
    app = app_factory()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        sale = await find(
            app,
            ChargeQuery(status="success", charge_type="sale"),
            lambda c: c.chargebacks is None,
        )
        screen = await open_detail(app, pilot, sale.charge_id)
        assert screen.disabled_reason("evidence") == (
            "The charge has no chargeback: there is no case to answer"
        )
        await pilot.press("E")
        await settle(app, pilot)
        assert app.screen is screen


def test_the_pack_on_screen_is_plain_text_through_the_sanitiser() -> None:
    """What the service sent is shown as it is, never read as markup (Rich's or Markdown's),
    and an escape sequence is a placeholder (rule 5)."""
    from datetime import UTC, datetime

    from paytui.evidence.pack import MISSING, CheckItem, Pack, PackSection
    from paytui.ui.screens.evidence import pack_text

    hostile = "[bold red]urgent[/] *x* \\_y_ \x1b[31mred"
    pack = Pack(
        charge_id="c1",
        built_at=datetime(2026, 11, 29, tzinfo=UTC),
        title="Evidence pack: chargeback on charge c1",
        case_lines=(f"Disputed charge: {hostile}",),
        checklist=(CheckItem("delivery", "Proof of delivery", MISSING, True, hostile),),
        sections=(
            PackSection("delivery", "Delivery", (f"note: {hostile}", f"  nested {hostile}")),
        ),
        priors=(),
        priors_summary=None,
        priors_best=(),
        reason_code="13.1",
        category="consumer dispute",
        dispute="not_received",
    )
    text = pack_text(pack)
    plain = text.plain
    assert "\x1b" not in plain
    assert plain.count("[bold red]urgent[/] *x* \\_y_ ") == 4
    assert "Score: checklist 0/1; missing (required): Proof of delivery" in plain
    assert "1. Delivery" in plain and "  • note: " in plain and "    ◦ nested " in plain
    # The hostile words carry no style of their own: only paytui's marks and headings do.
    start = plain.index("[bold red]")
    assert all(span.end <= start or span.start >= start + 10 for span in text.spans)
