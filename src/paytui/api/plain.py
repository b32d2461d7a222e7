"""One object read from the service with the standard library, for a script command that reads
one thing and ends (`paytui charges show ID`).

Why: `PaymentClient` is an async httpx client with pydantic's models; for one GET, asyncio,
anyio, httpcore, h11, pydantic and the models cost a script command several times the read
itself (docs/performance.md). Here the token and the object are read with `http.client` and
decoded as the client decodes them (`paytui.api.money.loads_json`: exact decimals), and the
caller reads the object light (a charge as a `paytui.api.rows.ChargeLine`).

Only the plain case is read here; anything else gives None, and the caller asks the client,
which then decides and says what went wrong, exactly as without this module:

- a service named by the command line and the environment alone (`config.environment.
  plain_service`): the ad hoc profile, every default (no profile's token style, scopes, CA
  bundle or paging to honour);
- no proxy variable (httpx's `trust_env` would honour it: the client's to do);
- over https, the certificates httpx trusts by default (`SSL_CERT_FILE`, else `SSL_CERT_DIR`,
  else certifi's: `httpx.create_ssl_context`), host names checked;
- the token by HTTP Basic (the client's first style) answered 200 with an access token, then the
  object answered 200 with a JSON body, not compressed, all within `DEADLINE`.

A refusal, an error status, a redirect, a timeout, a body that is not JSON: None (the client
then asks again, with its retries, and maps the answer to its one error line and exit code). A
GET only: nothing here ever writes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import http.client
    from pathlib import Path

    from paytui.config.environment import PlainService

__all__ = [
    "DEADLINE",
    "TOKEN_PATH",
    "USER_AGENT",
    "NotPlain",
    "PlainReader",
    "answer",
    "basic_token",
    "decoded",
    "plain_get",
    "plain_reader",
    "plainly_reachable",
    "read_over",
    "unix_connection",
]

#: Seconds for the whole read (the token and the object): the client's default timeout.
DEADLINE = 10.0
#: The token endpoint and the client's own name (`paytui.api.auth.TOKEN_PATH`,
#: `paytui.api.client.USER_AGENT`; held equal by `tests/ui/test_first_page.py` and
#: `tests/test_charges_show_plain.py`).
TOKEN_PATH = "/v2/services/oauth2/token"
USER_AGENT = "paytui/0.1"
#: The proxy variables httpx reads (`trust_env`, any case): with one set, the client reads.
_PROXY_VARS = frozenset({"http_proxy", "https_proxy", "all_proxy", "no_proxy"})


class NotPlain(Exception):
    """Anything but the plain answer: the client's to read."""


def plainly_reachable(environ: Mapping[str, str] | None = None) -> bool:
    """No proxy variable that httpx would honour is set (any case; httpx reads the process's
    environment, `os.environ`, as `environ` defaults to)."""
    found = os.environ if environ is None else environ
    return not any(name.lower() in _PROXY_VARS and found[name] for name in found)


def plain_get(service: PlainService, path: str, params: Sequence[tuple[str, str]] = ()) -> Any:
    """The decoded JSON body of ``GET path`` (under the base URL, `path` already escaped) from
    `service`, or None for anything but the plain case (see the module's docstring)."""
    from urllib.parse import urlsplit

    conn = _connection(service)
    if conn is None:
        return None
    body = read_over(
        conn,
        urlsplit(service.base_url).path,
        path,
        params,
        token=service.token,
        credentials=_credentials(service),
    )
    return None if body is None else decoded(body)


def plain_reader(service: PlainService) -> PlainReader | None:
    """A reader of several objects (an export's pages) from `service` over one connection, or
    None when the service is not plainly reachable (see the module's docstring)."""
    from urllib.parse import urlsplit

    conn = _connection(service)
    if conn is None:
        return None
    path = urlsplit(service.base_url).path
    return PlainReader(
        conn,
        path,
        token=service.token,
        credentials=_credentials(service),
        connect=lambda: _connection(service),
    )


def _credentials(service: PlainService) -> tuple[str, str] | None:
    if service.token is not None:
        return None
    assert service.client_id is not None and service.client_secret is not None
    return (service.client_id, service.client_secret)


def _connection(service: PlainService) -> http.client.HTTPConnection | None:
    """A connection to `service`'s host (not opened yet), or None: a proxy variable, or a
    scheme or address the standard library is not to read."""
    import http.client
    from urllib.parse import urlsplit

    if not plainly_reachable():
        return None
    base = urlsplit(service.base_url)
    try:
        if base.scheme == "https":
            return http.client.HTTPSConnection(
                base.netloc, timeout=DEADLINE, context=_default_context()
            )
        if base.scheme == "http":
            return http.client.HTTPConnection(base.netloc, timeout=DEADLINE)
    except (OSError, ValueError):
        return None
    return None


class PlainReader:
    """``GET``s one after the other over one kept-alive connection, the token asked for once
    (or given), each answer within `DEADLINE` as the client's: `get` gives the decoded body of
    a plain 200, else None; after a None the reader reads nothing more (the client's turn).
    `connect` makes another connection to the same service, for `twin`."""

    def __init__(
        self,
        conn: http.client.HTTPConnection,
        base_path: str,
        *,
        token: str | None = None,
        credentials: tuple[str, str] | None = None,
        connect: Callable[[], http.client.HTTPConnection | None] | None = None,
    ) -> None:
        self._conn: http.client.HTTPConnection | None = conn
        self._root = base_path.rstrip("/")
        self._token = token
        self._credentials = credentials
        self._connect = connect

    def twin(self) -> PlainReader | None:
        """Another reader of the same service over a connection of its own, with this one's
        token (a reader per thread: reads side by side, as the client's several at once);
        None before this reader has its token, or without a way to connect again."""
        conn = self._connect() if self._connect is not None and self._conn is not None else None
        if conn is None or self._token is None:
            return None
        return PlainReader(conn, self._root, token=self._token, connect=self._connect)

    def get(self, path: str, params: Sequence[tuple[str, str]]) -> Any:
        import http.client
        from urllib.parse import urlencode

        conn = self._conn
        if conn is None:
            return None
        ends = time.monotonic() + DEADLINE
        try:
            if self._token is None:
                assert self._credentials is not None
                self._token = basic_token(conn, self._root, *self._credentials, ends)
                from paytui.logs import register_secret

                register_secret(self._token)
            target = self._root + path + (f"?{urlencode(list(params))}" if params else "")
            headers = {"Authorization": f"Bearer {self._token}"}
            body = answer(conn, "GET", target, headers, None, ends)
        except (NotPlain, OSError, http.client.HTTPException, ValueError):
            self.close()
            return None
        found = decoded(body)
        if found is None:
            self.close()
        return found

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def decoded(body: bytes) -> Any:
    """A plain answer's body as the client decodes it (`paytui.api.money.loads_json`: numbers
    exact), or None when it is not JSON."""
    from paytui.api.money import loads_json

    try:
        return loads_json(body)
    except (ValueError, RecursionError):
        return None


def read_over(
    conn: http.client.HTTPConnection,
    base_path: str,
    path: str,
    params: Sequence[tuple[str, str]],
    *,
    token: str | None = None,
    credentials: tuple[str, str] | None = None,
    deadline: float = DEADLINE,
    remember: bool = True,
) -> bytes | None:
    """``GET path`` over `conn` (closed after), under the base URL's path `base_path`, with
    `token`, or one asked for with `credentials` (client id, secret: `basic_token`; with
    `remember`, scrubbed from every log and error from now on, as the client's token is), all
    within `deadline` seconds: the body of a plain 200, else None."""
    import http.client
    from urllib.parse import urlencode

    ends = time.monotonic() + deadline
    root = base_path.rstrip("/")
    try:
        try:
            if token is None:
                assert credentials is not None
                token = basic_token(conn, root, *credentials, ends)
                if remember:
                    from paytui.logs import register_secret

                    register_secret(token)
            target = root + path + (f"?{urlencode(list(params))}" if params else "")
            return answer(conn, "GET", target, {"Authorization": f"Bearer {token}"}, None, ends)
        finally:
            conn.close()
    except (NotPlain, OSError, http.client.HTTPException, ValueError):
        return None


def unix_connection(socket_path: Path, host: str, timeout: float) -> http.client.HTTPConnection:
    """An HTTP connection over the Unix socket at `socket_path` (the embedded sandbox's), its
    requests addressed to `host`."""
    import http.client
    import socket

    class UnixConnection(http.client.HTTPConnection):
        def connect(self) -> None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            sock.connect(str(socket_path))
            self.sock = sock

    return UnixConnection(host, timeout=timeout)


def _default_context() -> Any:
    """The context httpx makes for ``verify=True`` (`httpx.create_ssl_context`, `trust_env`):
    `SSL_CERT_FILE`'s certificates, else `SSL_CERT_DIR`'s, else certifi's; host names checked."""
    import ssl

    if os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    if os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    import certifi

    return ssl.create_default_context(cafile=certifi.where())


def basic_token(
    conn: http.client.HTTPConnection, root: str, client_id: str, secret: str, deadline: float
) -> str:
    """An access token by client credentials over HTTP Basic (the client's first style) from
    the token endpoint under `root` (the base URL's path); `NotPlain` for anything but a 200
    with one. Also the first-page child's (`paytui.ui.first_page`), over the sandbox's socket."""
    import base64
    import json

    pair = f"{client_id}:{secret}".encode()
    body = answer(
        conn,
        "POST",
        root + TOKEN_PATH,
        {
            "Authorization": f"Basic {base64.b64encode(pair).decode('ascii')}",
            "Content-Type": "application/x-www-form-urlencoded",
        },
        b"grant_type=client_credentials",
        deadline,
    )
    try:
        found = json.loads(body)
    except RecursionError:  # nested deeper than the decoder goes: no plain answer
        raise NotPlain from None
    token = found.get("access_token") if isinstance(found, dict) else None
    if not isinstance(token, str) or not token:
        raise NotPlain
    return token


def answer(
    conn: http.client.HTTPConnection,
    method: str,
    target: str,
    headers: dict[str, str],
    body: bytes | None,
    deadline: float,
) -> bytes:
    """The body of a 200 answer, read whole before `deadline`; `NotPlain` otherwise."""
    conn.request(
        method,
        target,
        body=body,
        headers={"User-Agent": USER_AGENT, "Accept": "application/json", **headers},
    )
    response = conn.getresponse()
    if response.status != 200 or response.getheader("Content-Encoding", "identity") != "identity":
        raise NotPlain
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise NotPlain  # a trickling answer: the client's deadline decides
        if conn.sock is not None:
            conn.sock.settimeout(left)
        chunk = response.read1(65536)
        if not chunk:
            if response.length:  # the connection ended before the body did
                raise NotPlain
            response.close()  # read whole: the connection takes the next request
            return b"".join(chunks)
        chunks.append(chunk)
