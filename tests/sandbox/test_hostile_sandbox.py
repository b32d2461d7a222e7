"""A sandbox fit to be tested against: paging bounds answer 422 (never 500), the control
endpoints need the demo token (tests/sandbox/test_auth.py), and its database is private.
"""

from __future__ import annotations

import stat
from pathlib import Path

import httpx
import pytest

from paytui.sandbox.seed import build_database

LISTS = ["/v2/charges", "/v2/refunds", "/v2/tokens", "/v2/accounts", "/v2/merchants",
         "/v2/distributions"]  # fmt: skip


@pytest.mark.parametrize("path", LISTS)
@pytest.mark.parametrize(
    "params",
    [
        {"offset": str(2**63)},
        {"offset": str(2**64 + 1)},
        {"offset": "-1"},
        {"limit": "0"},
        {"limit": str(2**63)},
        {"limit": "-5", "offset": str(2**63)},
        {"offset": "1e3"},
    ],
)
async def test_paging_out_of_bounds_is_422_never_500(
    api: httpx.AsyncClient, path: str, params: dict[str, str]
) -> None:
    response = await api.get(path, params=params)
    assert response.status_code in (200, 422), response.text
    if "offset" in params and params["offset"] != "-1" and int(float(params["offset"])) > 2**31:
        assert response.status_code == 422


def test_the_database_is_private(tmp_path: Path) -> None:
    db = tmp_path / "fresh" / "sandbox.sqlite3"
    build_database(db, charges=20, seed=1)
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700
