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
