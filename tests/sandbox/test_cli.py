"""`paytui sandbox` over a real loopback socket."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET
from paytui.sandbox.cli import main
from tests.sandbox.helpers import card


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_refuses_a_non_loopback_host(tmp_path: Path, capsys: object) -> None:
    assert main(["--host", "0.0.0.0", "--db", str(tmp_path / "x.sqlite3")]) == 2
    assert not (tmp_path / "x.sqlite3").exists()


def test_serves_token_and_sale_then_exits_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "cli.sqlite3"
    argv = ["sandbox", "--port", str(port), "--db", str(db), "--charges", "200"]
    code = f"from paytui.cli import main; raise SystemExit(main({argv!r}))"
    process = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    seen_err: list[str] = []
    try:
        base = f"http://127.0.0.1:{port}"
        # Serving is an event the server reports (uvicorn's "running on" line, once its socket
        # is bound), not a guess of how long building 200 charges takes on a loaded machine.
        assert process.stderr is not None
        for line in process.stderr:
            seen_err.append(line)
            if "Uvicorn running on" in line:
                break
        else:
            raise AssertionError(f"the sandbox ended before serving: {''.join(seen_err)}")
        httpx.get(f"{base}/openapi.json", timeout=30).raise_for_status()
        token = httpx.post(
            f"{base}/v2/services/oauth2/token",
            data={"grant_type": "client_credentials"},
            auth=(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET),
        ).json()["access_token"]
        headers = {"Authorization": f"Bearer {token}"}
        account = httpx.get(
            f"{base}/v2/accounts", params={"status": "approved"}, headers=headers
        ).json()["data"][0]
        sale = httpx.post(
            f"{base}/v2/charges",
            json={
                "account_id": account["account_id"],
                "total_amount": 9.99,
                "payment_method": card(),
            },
            headers=headers,
        )
        assert sale.status_code == 201
        assert sale.json()["total_amount"] == 9.99
    finally:
        process.send_signal(signal.SIGINT)
        out, rest = process.communicate(timeout=60)
    err = "".join(seen_err) + rest
    assert process.returncode == 0
    assert "Traceback" not in err
    assert "Built" in out and f"http://127.0.0.1:{port}" in out
    assert "paytui-demo-secret" in out and "curl" in out
    assert token not in err + out
