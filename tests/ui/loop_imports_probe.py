"""Run as a script by `test_loop_imports.py`: an app on a small sandbox, up to the end of its
read-back of earlier actions; prints, as JSON, which thread first imported each watched module.

A new process, because the test process has long imported them: an import finder placed first
on `sys.meta_path` sees each module's first import and the thread it ran on.
"""

from __future__ import annotations

import asyncio
import importlib.abc
import importlib.machinery
import json
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: The executor and what it pulls in: 100-400 ms of imports, after the first page.
WATCHED = ("paytui.ui.actions_service", "paytui.actions.executor", "paytui.actions.operations")
seen: dict[str, str] = {}


class FirstImports(importlib.abc.MetaPathFinder):
    """Notes the thread of each watched module's first import; finds nothing itself."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name in WATCHED:
            seen.setdefault(name, threading.current_thread().name)
        return None


sys.meta_path.insert(0, FirstImports())

from paytui.api.client import PaymentClient  # noqa: E402
from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET  # noqa: E402
from paytui.sandbox.app import create_app  # noqa: E402
from paytui.sandbox.seed import build_database  # noqa: E402
from paytui.sandbox.transport import InProcessTransport  # noqa: E402
from paytui.ui.app import PaytuiApp  # noqa: E402


async def main(folder: Path) -> None:
    db = folder / "sandbox.sqlite3"
    build_database(db, charges=60, seed=7)
    transport = InProcessTransport(create_app(db))

    async def factory() -> PaymentClient:
        return PaymentClient(
            "http://sandbox",
            transport=transport,
            client_id=DEMO_CLIENT_ID,
            client_secret=DEMO_CLIENT_SECRET,
            max_retries=0,
        )

    app = PaytuiApp(factory, journal_path=folder / "journal.sqlite3")
    async with app.run_test(size=(120, 40)) as pilot:
        # Until the read-back of earlier actions has built the executor and ended (an ended
        # worker leaves `app.workers`, so the executor's being there is the event).
        while True:
            await pilot.pause()
            actions = app.session._actions
            built = actions is not None and actions._executor is not None
            if built and not any(w.group == "reconcile" for w in app.workers):
                break
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
