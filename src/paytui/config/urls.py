"""The base-URL policy: what paytui agrees to send credentials to.

A bearer token or client secret sent over plain http can be read by anyone on the path, so http
is accepted only for loopback hosts (a sandbox on this machine). Credentials or a query string
inside the URL are refused too: they end up in logs, shell history and the process list, and a
query would be silently glued onto every request path.
"""

from __future__ import annotations

import ipaddress
import urllib.parse


class UrlPolicyError(ValueError):
    """A base URL paytui refuses; the message is one line meant for the user."""


def is_loopback_host(host: str) -> bool:
    """True for `localhost`, 127.0.0.0/8 and ::1; names that merely start with them do not count."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_base_url(url: str) -> str:
    """Validate `url` against the policy and return it normalised (no trailing slash).

    Raises `UrlPolicyError` with a message naming what is wrong and how to fix it.
    """
    text = url.strip()
    if not text:
        raise UrlPolicyError("the base URL is empty")
    if any(ch.isspace() or ord(ch) < 32 for ch in text):
        raise UrlPolicyError("the base URL contains whitespace or control characters")
    try:
        parts = urllib.parse.urlsplit(text)
    except ValueError as exc:
        raise UrlPolicyError(f"the base URL cannot be parsed ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise UrlPolicyError(
            f"the base URL must start with https:// (got {_describe_scheme(parts.scheme)})"
        )
    if "@" in parts.netloc:
        raise UrlPolicyError(
            "the base URL must not contain credentials (user:password@host); "
            "store them with `paytui profile add` instead"
        )
    if parts.query or parts.fragment or "?" in text or "#" in text:
        raise UrlPolicyError("the base URL must not contain a query (?...) or fragment (#...)")
    host = parts.hostname
    if not host:
        raise UrlPolicyError("the base URL has no host name")
    try:
        _ = parts.port
    except ValueError:
        raise UrlPolicyError("the base URL has an invalid port") from None
    if scheme == "http" and not is_loopback_host(host):
        raise UrlPolicyError(
            f"plain http is only allowed for loopback hosts (localhost, 127.0.0.0/8, ::1); "
            f"use https://{parts.netloc}{parts.path} for {host}"
        )
    return urllib.parse.urlunsplit((scheme, parts.netloc.lower(), parts.path.rstrip("/"), "", ""))


def _describe_scheme(scheme: str) -> str:
    return f"{scheme}://" if scheme else "no scheme"


#: Spellings of this machine that reach the same local service.
_LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def service_key(url: str) -> str:
    """The one name of the service `url` reaches, for "is this the same service?".

    Two profiles, or two spellings of one URL, must share the journal's guard: a refund in flight
    through ``http://127.0.0.1:8000/`` is the same refund as one through ``http://localhost:8000``.
    So: scheme and host lower-cased, ``localhost`` / ``127.0.0.1`` / ``::1`` as one
    (``localhost``), the scheme's default port dropped, no trailing slash. A URL that does not
    parse is returned stripped (the guard then matches only the same spelling).
    """
    text = url.strip()
    try:
        parts = urllib.parse.urlsplit(text)
        port = parts.port
    except ValueError:
        return text.rstrip("/")
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if host in _LOCAL_NAMES:
        host = "localhost"
    elif ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    if port is not None and port != _DEFAULT_PORTS.get(scheme):
        host = f"{host}:{port}"
    return urllib.parse.urlunsplit((scheme, host, parts.path.rstrip("/"), "", ""))
