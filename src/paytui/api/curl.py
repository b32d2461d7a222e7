"""A request as a curl command a user can paste, never with the secret in it.

"Copy as curl" (the command palette) gives support staff the exact call behind what they see, to
reproduce it or attach it to a ticket. The bearer token is always ``$PAYTUI_TOKEN`` — a shell
variable the user sets themselves — so the command on the clipboard, in a ticket or in shell
history never holds a credential. Every other part is shell-quoted. No Textual.
"""

from __future__ import annotations

import json
import shlex
from typing import Any
from urllib.parse import urlencode

__all__ = ["TOKEN_VARIABLE", "curl_command"]

#: What stands for the bearer token in a copied command.
TOKEN_VARIABLE = "$PAYTUI_TOKEN"


def curl_command(
    method: str,
    base_url: str,
    path: str,
    *,
    params: list[tuple[str, str]] | None = None,
    body: Any = None,
) -> str:
    """``curl`` for `method` `base_url` + `path` (`params` as the query string, `body` as JSON)."""
    url = base_url.rstrip("/") + "/" + path.lstrip("/")
    if params:
        url += "?" + urlencode(params)
    parts = ["curl", "-sS"]
    if method.upper() != "GET":
        parts += ["-X", method.upper()]
    parts.append(shlex.quote(url))
    # Double quotes: the shell expands the variable when the command runs, not before.
    parts += ["-H", f'"Authorization: Bearer {TOKEN_VARIABLE}"']
    if body is not None:
        parts += ["-H", shlex.quote("Content-Type: application/json")]
        parts += ["--data", shlex.quote(json.dumps(body, separators=(",", ":"), default=str))]
    return " ".join(parts)
