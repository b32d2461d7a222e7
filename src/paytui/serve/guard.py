"""The guard in front of textual-serve: the per-launch key, its cookie, and the socket's origin.

textual-serve has no login and accepts a WebSocket from any page, and its socket starts a
dashboard with this person's credentials, so any web page open in their browser could drive
paytui as them (cross-site WebSocket hijacking). Here every request must carry the cookie that
only the printed URL sets, and the socket must also come from this server's own page:

- a request whose `Host` is not this server's own address (`127.0.0.1:PORT`) answers 403
  before anything else: a page whose name an attacker re-points at 127.0.0.1 (DNS rebinding)
  is same-origin with itself, not with this server, and is served nothing;
- `/?token=KEY` (the printed URL) sets an HttpOnly, SameSite=Strict cookie holding the key and
  redirects to `/`, so the key leaves the address bar and the history at once;
- any page, asset, download or socket without that cookie answers 401; a wrong key 403;
- the socket's `Origin` must be exactly this server's (scheme, host and port), else 403 before
  the handshake, so no process is started;
- every answer forbids framing, caching and referrers, and lets the page load and connect to
  this server only.

The key is random per launch and lives only in this process's memory: it dies with the process.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cached_property

from aiohttp import web

#: The printed URL's query parameter that carries the key.
TOKEN_PARAMETER = "token"
#: The socket textual-serve's page opens.
SOCKET_PATH = "/ws"
NO_KEY = (
    "paytui serve: this page needs the address paytui serve printed when it started "
    "(it holds this server's key)."
)
WRONG_KEY = (
    "paytui serve: that key is not this server's (it changes each time paytui serve starts)."
)
FOREIGN_ORIGIN = "paytui serve: the socket is opened only by this server's own page."
FOREIGN_HOST = "paytui serve: this server answers only at the address it printed ({address})."
#: Sent with every answer: no framing (clickjacking), no caching, no referrer, no sniffing.
SAFETY_HEADERS = {
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}
#: The page loads and connects to this server only: textual-serve's page asks Google Fonts for its
#: font, which the browser is told not to (it falls back to its monospace font); its inline style
#: and script stay allowed. `{socket}` is this server's ws:// origin.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self' {socket}; "
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass
class Guard:
    """The key of one launch and the one origin its pages come from (`http://127.0.0.1:PORT`)."""

    origin: str
    key: str = field(default_factory=lambda: secrets.token_urlsafe(32), repr=False)

    @property
    def cookie_name(self) -> str:
        """Named for the port: cookies ignore ports, so two servers on one host must not
        overwrite each other's."""
        port = self.origin.rsplit(":", 1)[-1]
        return f"paytui_serve_{port}" if port.isdigit() else "paytui_serve"

    @property
    def address(self) -> str:
        """`HOST:PORT` as the printed URL names it: the one `Host` header this server answers."""
        return self.origin.split("://", 1)[-1]

    @property
    def entry_url(self) -> str:
        """The one URL to open: it holds the key."""
        return f"{self.origin}/?{TOKEN_PARAMETER}={self.key}"

    def _is_key(self, value: str | None) -> bool:
        """Constant-time. A header's bytes that are not UTF-8 arrive as lone surrogates:
        encoded as they are (never the key), not an error."""
        if value is None:
            return False
        return hmac.compare_digest(value.encode(errors="surrogatepass"), self.key.encode())

    def refusal(self, request: web.Request) -> web.Response | None:
        """The answer to a request that may not pass (None: it may)."""
        if not self._is_key(request.cookies.get(self.cookie_name)):
            return web.Response(status=401, text=NO_KEY)
        if request.path == SOCKET_PATH and request.headers.get("Origin") != self.origin:
            return web.Response(status=403, text=FOREIGN_ORIGIN)
        return None

    def misdirected(self, request: web.Request) -> web.Response | None:
        """403 unless the request names this server as its printed URL does (DNS rebinding:
        the browser sends the attacker's name in `Host`); checked before the key is even read."""
        if request.headers.get("Host", "").lower() == self.address:
            return None
        return web.Response(status=403, text=FOREIGN_HOST.format(address=self.address))

    def enter(self, token: str) -> web.Response:
        """The printed URL opened: the cookie, and a redirect to the clean URL (or 403)."""
        if not self._is_key(token):
            return web.Response(status=403, text=WRONG_KEY)
        response = web.Response(status=303, headers={"Location": "/"})
        response.set_cookie(
            self.cookie_name,
            self.key,
            path="/",
            httponly=True,
            samesite="Strict",
            secure=self.origin.startswith("https:"),
        )
        return response

    @cached_property
    def headers(self) -> dict[str, str]:
        """What `add_headers` sends: `SAFETY_HEADERS` and the policy naming this origin's socket."""
        socket = "ws" + self.origin.removeprefix("http")
        policy = CONTENT_SECURITY_POLICY.format(socket=socket)
        return {**SAFETY_HEADERS, "Content-Security-Policy": policy}

    async def add_headers(self, request: web.Request, response: web.StreamResponse) -> None:
        """`on_response_prepare`: on every answer, the sockets' and the refusals' too."""
        for name, value in self.headers.items():
            response.headers.setdefault(name, value)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        misdirected = self.misdirected(request)
        if misdirected is not None:
            return misdirected
        token = request.query.get(TOKEN_PARAMETER)
        if token is not None and request.path == "/":
            return self.enter(token)
        refused = self.refusal(request)
        if refused is not None:
            return refused
        return await handler(request)
