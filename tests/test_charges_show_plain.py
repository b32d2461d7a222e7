"""`paytui charges show ID` read plainly (`commands.plainly.charges_show_plainly`: the standard
library's HTTP, the charge as a `ChargeLine`) shows what the client and its models show, for the
sandbox's charges and for every odd answer of the second service; whatever is not plain (an odd
field, an error, `--format json`, distributions) is the client's, with the same line and exit
code. Over real loopback sockets: the plain reader speaks HTTP itself."""

from __future__ import annotations

import io
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from paytui.api.money import loads_json
from paytui.api.rows import ChargeLine
from paytui.commands import build_parser, main
from paytui.commands.plainly import charges_show_plainly
from paytui.commands.runtime import Io, Runtime, default_connector
from paytui.config.environment import plain_service
from tests.api.test_rows import BASE, ODD, PLAIN, REFUSED
from tests.sandbox.test_embedded_warm import warm_env
from tests.second_service.app import SecondService
from tests.second_service.data import StoredCharge

if TYPE_CHECKING:
    from paytui.api.client import PaymentClient
    from paytui.config.connection import Connection

PROXIES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
__all__ = ["warm_env"]  # the embedded sandbox kept warm in a private runtime dir (a fixture)


def serve(app: Any) -> Iterator[str]:
    """`app` served by uvicorn on a free loopback port in a thread; yields its base URL."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="error", lifespan="off", access_log=False, http="h11")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the loopback service did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(autouse=True)
def time_limits_a_loaded_machine_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests compare what two readers (the plain one, the client) wrote, not how fast:
    on a machine loaded by about 18 busy processes one read took longer than either reader's
    10 s limit (`plain.DEADLINE`, `client.DEFAULT_TIMEOUT`), and a reader that gave up differed
    from one that did not. Each read may take 120 s here; a hang is still bounded."""
    from paytui.api import client, plain

    monkeypatch.setattr(plain, "DEADLINE", 120.0)
    monkeypatch.setattr(client, "DEFAULT_TIMEOUT", 120.0)


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy variable (a proxy is the client's to honour: `api.plain.plainly_reachable`)."""
    import os

    for name in list(os.environ):
        if name.lower() in PROXIES:
            monkeypatch.delenv(name)


@pytest.fixture
def second() -> Iterator[tuple[SecondService, str]]:
    service = SecondService()
    for url in serve(service.app):
        yield service, url


@pytest.fixture
def sandbox_url(sandbox_db: Path) -> Iterator[str]:
    from paytui.sandbox.app import create_app

    yield from serve(create_app(sandbox_db))


def credentials(client_id: str, secret: str) -> dict[str, str]:
    return {"PAYTUI_CLIENT_ID": client_id, "PAYTUI_CLIENT_SECRET": secret}


def client_only(connection: Connection) -> AbstractAsyncContextManager[PaymentClient]:
    """The default client, under another name: the plain reading is tried only with the
    default connector itself (`Runtime.plainly_connected`), so with this one it never is."""
    return default_connector(connection)


def shown(argv: list[str], env: dict[str, str], *, client: bool) -> tuple[int, str, str]:
    """`paytui *argv` in process: as it runs (`client=False`), or through the client and its
    models only (`client_only`: the plain reading is never tried)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(
        argv,
        io=Io(out=out, err=err, inp=io.StringIO(""), interactive=False),
        connector=client_only if client else None,
        environ=env,
    )
    return code, out.getvalue(), err.getvalue()


def plainly(argv: list[str], env: dict[str, str]) -> str | None:
    """What `charges_show_plainly` itself wrote, or None when it left the charge to the client."""
    args = build_parser("charges", verb="show").parse_args(argv)
    out = io.StringIO()
    runtime = Runtime(Io(out=out, err=io.StringIO()), base_url=args.base_url, environ=env)
    return None if charges_show_plainly(runtime, args) is None else out.getvalue()


def wire(value: Any) -> Any:
    """A test row's value as JSON carries it (a Decimal as the number it is)."""
    if isinstance(value, Decimal):
        return float(value) if value.is_finite() else None
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {key: wire(item) for key, item in value.items()}
    if isinstance(value, list):
        return [wire(item) for item in value]
    return value


def odd_charge(service: SecondService, charge_id: str, laid: dict[str, Any]) -> StoredCharge:
    """A charge of the second service whose every answered field is `laid`'s own (None leaves
    the service's out), the rest taken from its first charge."""
    template = service.store.charges[0]
    body_keys = ("chargebacks", "original_charge_id", "captured_charge_id", "charge_type")
    return StoredCharge(
        charge_id=charge_id,
        moment=template.moment,
        account_id=template.account_id,
        merchant_id=template.merchant_id,
        amount=template.amount,
        method="card",
        last4="1111",
        first_name="x",
        last_name="y",
        fields={**dict.fromkeys(body_keys), **laid},
    )


def test_the_sandbox_s_charges_show_as_the_models_show_them(sandbox_url: str) -> None:
    from paytui.sandbox import DEMO_CLIENT_ID, DEMO_CLIENT_SECRET

    env = credentials(DEMO_CLIENT_ID, DEMO_CLIENT_SECRET)
    found = shown(
        ["charges", "search", "--limit", "30", "--format", "jsonl", "--base-url", sandbox_url],
        env,
        client=True,
    )
    ids = [line.split('"charge_id": "')[1].split('"')[0] for line in found[1].splitlines()]
    assert len(ids) == 30
    for charge_id in ids:
        argv = ["charges", "show", charge_id, "--base-url", sandbox_url]
        before = shown(argv, env, client=True)
        assert before[0] == 0
        assert plainly(argv, env) == before[1]  # read plainly, and the same
        assert shown(argv, env, client=False) == before


CASES = {**{f"plain: {k}": v for k, v in PLAIN.items()}, **{f"odd: {k}": v for k, v in ODD.items()}}
CASES |= {f"refused: {k}": v for k, v in REFUSED.items()}
CASES["distributions"] = {"distributions": [{"distribution_id": "d1", "status": "pending"}]}


@pytest.mark.parametrize("case", list(CASES))
def test_an_answer_of_any_shape_shows_as_the_models_show_it(
    second: tuple[SecondService, str], case: str
) -> None:
    service, url = second
    laid = wire({**BASE, **CASES[case]})
    charge_id = "odd0000000000000000000" + str(len(service.store.charges))
    if laid.get("charge_id", BASE["charge_id"]) == BASE["charge_id"]:
        laid["charge_id"] = charge_id
    service.store.add_charge(odd_charge(service, charge_id, laid))
    env = credentials(service.client_id, service.client_secret)
    argv = ["charges", "show", charge_id, "--base-url", url]
    before = shown(argv, env, client=True)
    now = shown(argv, env, client=False)
    assert now == before
    # Read by hand only what is plain; the rest the models read (and set aside, or refuse).
    plain = ChargeLine.read(loads_json(json.dumps(laid))) is not None
    plain = plain and not laid.get("distributions")
    assert plain or not case.startswith("plain: ")
    assert plainly(argv, env) == (before[1] if plain else None)


def test_what_is_not_a_plain_answer_is_the_client_s_with_its_line_and_code(
    second: tuple[SecondService, str],
) -> None:
    service, url = second
    env = credentials(service.client_id, service.client_secret)
    charge_id = service.store.charges[3].charge_id
    cases = {
        "no such charge": (["charges", "show", "nope", "--base-url", url], env, 5),
        "a secret refused": (
            ["charges", "show", charge_id, "--base-url", url],
            credentials(service.client_id, "wrong-secret"),
            4,
        ),
        "json": (["charges", "show", charge_id, "--base-url", url, "--format", "json"], env, 0),
        "expanded": (
            ["charges", "show", charge_id, "--base-url", url, "--expand", "distributions"],
            env,
            0,
        ),
    }
    for name, (argv, environ, code) in cases.items():
        before = shown(argv, environ, client=True)
        assert before[0] == code, name
        assert shown(argv, environ, client=False) == before, name
    # The expanded charge is plain (an empty list of distributions): read by hand, the same.
    assert plainly(cases["expanded"][0], env) == shown(cases["expanded"][0], env, client=True)[1]
    assert plainly(cases["json"][0], env) is None


def test_a_proxy_leaves_the_charge_to_the_client(
    second: tuple[SecondService, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    service, url = second
    env = credentials(service.client_id, service.client_secret)
    argv = ["charges", "show", service.store.charges[0].charge_id, "--base-url", url]
    assert plainly(argv, env) is not None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    assert plainly(argv, env) is None


def test_a_service_named_by_the_environment_alone_is_what_the_connection_resolves(
    tmp_path: Path,
) -> None:
    """`plain_service` is `resolve_connection`'s answer whenever it gives one, and None
    whenever the config, a profile or a team variable has a say."""
    from paytui.config import client_kwargs, resolve_connection
    from paytui.config.files import config_path

    url = "https://pay.example.com/api/"
    named = {
        "client credentials": credentials("id-1", "secret-1"),
        "a token": {"PAYTUI_TOKEN": "tok-1", **credentials("id-1", "secret-1")},
        "the URL from the environment": {"PAYTUI_BASE_URL": url, "PAYTUI_TOKEN": "tok-2"},
    }
    for name, env in named.items():
        base = None if "PAYTUI_BASE_URL" in env else url
        service = plain_service(None, base, env)
        assert service is not None, name
        resolved = client_kwargs(resolve_connection(base_url=base, environ=env))
        token, secret = resolved["token"], resolved["client_secret"]
        assert {
            "base_url": service.base_url,
            "token": service.token,
            "client_id": service.client_id,
            "client_secret": service.client_secret,
        } == {
            "base_url": resolved["base_url"],
            "token": token.get_secret_value() if token else None,
            "client_id": resolved["client_id"],
            "client_secret": secret.get_secret_value() if secret else None,
        }, name
        # Every default that `api.plain` reads with: none to honour.
        assert resolved["verify"] is True
        assert resolved["scopes"] is None
        assert resolved["token_auth"] == "auto"
        assert resolved["paging"] == "offset"
        assert resolved["parameters"] == {} and resolved["refund_parameters"] == {}
    env = credentials("id-1", "secret-1")
    refused = {
        "a profile": (("p", url), env),
        "a profile from the environment": ((None, url), {**env, "PAYTUI_PROFILE": "p"}),
        "no URL": ((None, None), env),
        "a URL the policy refuses": ((None, "http://pay.example.com"), env),
        "no secret": ((None, url), {"PAYTUI_CLIENT_ID": "id-1"}),
        "a journal elsewhere": ((None, url), {**env, "PAYTUI_JOURNAL_URL": "sqlite:/tmp/x"}),
        "an agent": ((None, url), {**env, "PAYTUI_AGENT": "a\tb"}),
        "four eyes": ((None, url), {**env, "PAYTUI_APPROVE_ABOVE": "x"}),
    }
    for name, ((profile, base), environ) in refused.items():
        assert plain_service(profile, base, environ) is None, name
    config = config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[ui]\nclaim_lease_seconds = 60\n", encoding="utf-8")
    assert plain_service(None, url, env) is None  # a config file: the connection's to read


def test_the_plain_reader_speaks_as_the_client() -> None:
    from paytui.api import auth, client, plain

    assert plain.TOKEN_PATH == auth.TOKEN_PATH
    assert plain.USER_AGENT == client.USER_AGENT


def test_the_embedded_sandbox_s_charges_show_as_the_models_show_them(warm_env: Path) -> None:
    """No URL, no config, no variable: the embedded sandbox with every default, read over its
    socket (`commands.runtime.read_embedded`), as the client reads it."""
    env: dict[str, str] = {}
    found = shown(["charges", "search", "--limit", "5", "--format", "jsonl"], env, client=True)
    ids = [line.split('"charge_id": "')[1].split('"')[0] for line in found[1].splitlines()]
    assert len(ids) == 5
    for charge_id in ids:
        argv = ["charges", "show", charge_id]
        before = shown(argv, env, client=True)
        assert before[0] == 0
        assert plainly(argv, env) == before[1]
        assert shown(argv, env, client=False) == before
    missing = shown(["charges", "show", "nope"], env, client=True)
    assert missing[0] == 5  # not found: the client's line and code
    assert plainly(["charges", "show", "nope"], env) is None
    assert shown(["charges", "show", "nope"], env, client=False) == missing


async def _nested_too_deep(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Every request answered 200 with JSON nested deeper than Python's decoder goes."""
    if scope["type"] != "http":
        return
    body = b"[" * 100_000 + b"]" * 100_000
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def test_a_token_answer_nested_too_deep_is_left_to_the_client() -> None:
    """A token endpoint whose 200 is JSON too deep to decode is no plain answer: the charge is
    the client's to read (and its line and code to say), as a body too deep is, never a
    `RecursionError` out of the plain reader."""
    for url in serve(_nested_too_deep):
        argv = ["charges", "show", "ch_1", "--base-url", url]
        assert plainly(argv, credentials("id", "secret")) is None
