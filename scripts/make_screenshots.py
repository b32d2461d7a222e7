"""Write an SVG of each main screen into screenshots/ (and, with --keys-doc, docs/keys.md).

Anyone can rerun it: it seeds a fresh sandbox database (seed 7, 3000 charges) in a temporary
directory, drives the app headlessly with a frozen clock at 2026-11-20T18:30:00Z, and saves what
the terminal shows at 120x40.

    .venv/bin/python scripts/make_screenshots.py [--out screenshots] [--keys-doc]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FROZEN_NOW = datetime(2026, 11, 20, 18, 30, tzinfo=UTC)
SIZE = (120, 40)


async def settle(app: Any, pilot: Any) -> None:
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def shot_charges(app: Any, pilot: Any) -> None:
    await pilot.press("j", "j", "j")


async def shot_chargebacks(app: Any, pilot: Any) -> None:
    from paytui.ui.widgets.query_input import QueryInput

    await pilot.press("slash")
    app.screen.query_one(QueryInput).insert_text_at_cursor("status:chargeback")
    await pilot.press("enter")
    await settle(app, pilot)


async def shot_bad_query(app: Any, pilot: Any) -> None:
    from paytui.ui.widgets.query_input import QueryInput

    await pilot.press("slash")
    app.screen.query_one(QueryInput).insert_text_at_cursor("status:chargebak amount>=25")
    await settle(app, pilot)  # the line is parsed as typed, in the search worker


async def shot_detail(app: Any, pilot: Any) -> None:
    await pilot.press("b")
    await settle(app, pilot)
    await pilot.press("enter")
    await settle(app, pilot)


async def shot_help(app: Any, pilot: Any) -> None:
    await pilot.press("question_mark")
    await pilot.pause()


async def shot_tokens(app: Any, pilot: Any) -> None:
    await pilot.press("2")
    await settle(app, pilot)


async def shot_token_form(app: Any, pilot: Any) -> None:
    """The new-token form refusing a mistyped number: only the last four ever show."""
    from textual.widgets import Input

    from paytui.ui.widgets.card_input import CardInput

    await shot_tokens(app, pilot)
    await pilot.press("N")  # New token (`n` is New charge everywhere)
    await settle(app, pilot)
    app.screen.query_one("#card", CardInput).type_digits("4111111111111112")
    app.screen.query_one("#expiry", Input).value = "2026-13"
    await pilot.press("ctrl+s")
    await settle(app, pilot)


async def shot_new_charge(app: Any, pilot: Any) -> None:
    from textual.widgets import Input

    from paytui.ui.widgets.card_input import CardInput

    await pilot.press("n")
    await settle(app, pilot)
    app.screen.query_one("#amount", Input).value = "25.50"
    app.screen.query_one("#card", CardInput).type_digits("4111111111111111")
    app.screen.query_one("#expiry", Input).value = "2029-04"
    app.screen.query_one("#amount", Input).focus()
    await pilot.pause()


async def shot_accounts(app: Any, pilot: Any) -> None:
    await pilot.press("3")
    await settle(app, pilot)


async def shot_account_detail(app: Any, pilot: Any) -> None:
    await shot_accounts(app, pilot)
    await pilot.press("enter")
    await settle(app, pilot)


async def shot_distributions(app: Any, pilot: Any) -> None:
    await pilot.press("4")
    await settle(app, pilot)


async def shot_distribution_detail(app: Any, pilot: Any) -> None:
    await shot_distributions(app, pilot)
    await pilot.press("enter")
    await settle(app, pilot)


async def shot_today(app: Any, pilot: Any) -> None:
    """Today (0): the pulse above the queue, soonest deadline first."""
    await pilot.press("0")
    await settle(app, pilot)


SHOTS: dict[str, Callable[[Any, Any], Awaitable[None]]] = {
    "today": shot_today,
    "charges": shot_charges,
    "charges-chargebacks": shot_chargebacks,
    "charges-query-error": shot_bad_query,
    "charge-detail": shot_detail,
    "help": shot_help,
    "tokens": shot_tokens,
    "token-form": shot_token_form,
    "new-charge": shot_new_charge,
    "accounts": shot_accounts,
    "account-detail": shot_account_detail,
    "distributions": shot_distributions,
    "distribution-detail": shot_distribution_detail,
}


async def take(name: str, db_path: Path, out: Path) -> Path:
    import httpx

    from paytui.api.client import PaymentClient
    from paytui.sandbox.embedded import asgi_transport
    from paytui.ui.app import PaytuiApp

    transport: httpx.AsyncBaseTransport = asgi_transport(db_path)

    async def factory() -> PaymentClient:
        return PaymentClient(
            "http://sandbox",
            client_id="paytui-demo",
            client_secret="paytui-demo-secret",
            transport=transport,
        )

    app = PaytuiApp(factory, clock=lambda: FROZEN_NOW)
    async with app.run_test(size=SIZE) as pilot:
        app.animation_level = "none"
        await settle(app, pilot)
        await SHOTS[name](app, pilot)
        await settle(app, pilot)
        app.save_screenshot(f"{name}.svg", path=str(out))
    return out / f"{name}.svg"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument("--keys-doc", action="store_true", help="also regenerate docs/keys.md")
    args = parser.parse_args(argv)
    if args.keys_doc:
        from paytui.ui.bindings import keys_markdown

        (ROOT / "docs" / "keys.md").write_text(keys_markdown(), encoding="utf-8")
        print("wrote docs/keys.md")
    from paytui.sandbox.seed import build_database

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="paytui-shots-") as temp:
        template = Path(temp) / "template.sqlite3"
        build_database(template)
        for name in SHOTS:
            db_path = Path(temp) / f"{name}.sqlite3"
            db_path.write_bytes(template.read_bytes())  # every screen starts from the same data
            path = asyncio.run(take(name, db_path, args.out))
            print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
