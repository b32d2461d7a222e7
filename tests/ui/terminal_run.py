"""Run paytui in a real terminal on a sandbox database holding the hostile charge: the charge
list, the hostile charge's detail, its JSON view, then exit. Driven by
`tests/ui/test_terminal_bytes.py` (in a pty, and in tmux when it is installed).

    python -m tests.ui.terminal_run DB

Each step waits for the app's workers (no fixed waits); the app exits after the JSON view has
been painted.
"""

from __future__ import annotations

import sys
from pathlib import Path

from textual.worker import get_current_worker

from paytui.api.client import PaymentClient
from paytui.sandbox.embedded import asgi_transport
from paytui.ui.app import PaytuiApp
from paytui.ui.screens.charge_detail import ChargeDetailScreen

DONE = "TERMINAL-RUN-DONE"


def main(db: Path) -> None:
    async def factory() -> PaymentClient:
        return PaymentClient(
            "http://sandbox",
            client_id="paytui-demo",
            client_secret="paytui-demo-secret",
            transport=asgi_transport(db),
        )

    async def others_done(app: PaytuiApp) -> None:
        me = get_current_worker()
        for _ in range(20):  # a worker may start another
            busy = [w for w in app.workers if w is not me and not w.is_finished]
            if not busy:
                return
            await app.workers.wait_for_complete(busy)

    async def script(app: PaytuiApp) -> None:
        await others_done(app)  # the charge list, the hostile charge on top
        client = await app.get_client()
        page = await client.search_charges_page(limit=1)
        await app.push_screen(ChargeDetailScreen(page.items[0].charge_id))
        await others_done(app)
        await app.screen.run_action("toggle_json")
        await others_done(app)
        app.call_after_refresh(lambda: app.call_after_refresh(app.exit))

    class Driven(PaytuiApp):
        def on_ready(self) -> None:
            self.run_worker(script(self), exit_on_error=True)

    Driven(factory, journal_path=db.parent / "journal.sqlite3").run()
    print(DONE)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
