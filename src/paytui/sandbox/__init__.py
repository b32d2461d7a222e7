"""The stateful sandbox of the payment API (FastAPI + SQLite).

This package initialiser stays import-light on purpose: the UI imports the demo credentials and the
embedded launcher from here, and FastAPI alone costs about 0.3 s to import. Import the server parts
(`paytui.sandbox.app`, `paytui.sandbox.seed`) explicitly where they are needed.
"""

from __future__ import annotations

DEMO_CLIENT_ID = "paytui-demo"
DEMO_CLIENT_SECRET = "paytui-demo-secret"
LIMITED_CLIENT_ID = "paytui-limited"
LIMITED_CLIENT_SECRET = "paytui-limited-secret"

__all__ = ["DEMO_CLIENT_ID", "DEMO_CLIENT_SECRET", "LIMITED_CLIENT_ID", "LIMITED_CLIENT_SECRET"]
