"""The choices of the second service where the spec says "not shown", one switch each."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Envelope = Literal["data", "results", "content", "bare", "nested"]
CountKey = Literal["total", "count", "total_count"]
Paging = Literal["offset", "page", "ignore", "cursor"]
AuthStyle = Literal["basic", "form", "both"]
ErrorShape = Literal[
    "error_object", "fault", "errors", "message", "detail", "detail_list", "error_string", "text"
]


@dataclass(frozen=True)
class ServiceOptions:
    """How this service behaves where the spec is silent. Defaults: a plausible service that
    applies only the `status` filter and sends the published charge shape (no `tags` key, no
    `charge_type`), a list under `data` with `total`, paged by `limit`/`offset`."""

    #: Query parameters it applies as filters; every other filter is accepted and ignored (or
    #: rejected, see `unknown_params`). Names as paytui sends them: status, tag, account_id,
    #: charge_id (refunds), merchant_id, ...
    applied_filters: frozenset[str] = frozenset({"status"})
    #: Echo fields the published charge does not show.
    echo_tags: bool = False
    #: With `echo_tags`: leave the key out of a row without tags (an empty list not sent), so
    #: only the rows that have some show them.
    omit_empty_tags: bool = False
    echo_charge_type: bool = False
    echo_captured_charge_id: bool = False
    #: Keep the attributes of what it makes (charges, refunds) and echo them (the spec accepts
    #: them on create and search; whether they come back is not shown).
    echo_attributes: bool = False
    #: The payer's contact in `payment_method` (the spec shows it).
    echo_contact: bool = True
    #: `data` | `results` | `content` (a list under that key), `bare` (the list itself),
    #: `nested` (`{"data": {"charges": [...]}, "meta": {"total": n}}`).
    envelope: Envelope = "data"
    #: The key of the number of matches, or None for no count at all.
    count_key: CountKey | None = "total"
    #: `offset` (limit/offset), `page` (page/per_page, 1-based), `ignore` (always the first
    #: `page_size` rows, whatever is asked), `cursor` (limit + an opaque cursor, `next` link).
    paging: Paging = "offset"
    #: Rows per page when the request does not say (and always, with `ignore`).
    page_size: int = 25
    max_page_size: int = 100
    #: Echo the paging parameters it used (limit/offset, page/per_page) in the envelope.
    echo_paging: bool = True
    #: Add `has_more` to the envelope (True/False as it is).
    has_more: bool = False
    #: A `next` link that is an absolute URL (True) or a path with its query (False).
    next_absolute: bool = False
    #: How the token endpoint takes the client id and secret.
    auth: AuthStyle = "both"
    #: Its own names of some filters (paytui's name -> this service's): a filter is applied
    #: only when it comes under this service's name; paytui's name is then unknown to it.
    parameter_names: Mapping[str, str] = field(default_factory=dict)
    #: `ignore` unknown query parameters, or `reject` them with a 400.
    unknown_params: Literal["ignore", "reject"] = "ignore"
    #: Lifetime of an access token, seconds.
    expires_in: int = 3600
    #: The key of a refund's id in its JSON.
    refund_id_key: Literal["refund_id", "id"] = "refund_id"
    #: After this many requests every call answers 400 "looping": a test of a client that never
    #: stops fails quickly instead of hanging.
    max_requests: int = 600
    #: The envelope of every error answer (spec: "Error body shape and error codes: not shown"):
    #: `error_object` ``{"error": {"code", "message"}}``; `fault` ``{"fault": {"faultstring",
    #: "detail": {"errorcode"}}}``; `errors` ``{"errors": [{"code", "message"}]}``; `message`
    #: ``{"message", "code"}``; `detail` ``{"detail": "…"}``; `detail_list` FastAPI's
    #: ``{"detail": [{"loc", "msg", "type"}]}``; `error_string` ``{"error": "…"}``; `text` a
    #: text/plain body.
    error_shape: ErrorShape = "error_object"
    #: Every write (POST) is refused with this status before it acts, its reason "refunds and
    #: captures are paused for this account" (a refusal paytui cannot foresee); None: never.
    refuse_writes: int | None = None
    #: The next this-many writes (POST, the token endpoint aside) are answered 429 before they
    #: act, then writes are served again; `retry_after` is their Retry-After header (seconds or
    #: an HTTP date; None: no header).
    throttle_writes: int = 0
    retry_after: str | None = "1"
    #: What it answers a money write with, per operation (`charge`, `capture`, `refund`):
    #: fields laid over the answer, and kept with the object it made (``{"status": "failed",
    #: "result_text": "Insufficient funds"}``: the refund is listed failed and moves nothing;
    #: a field set to None is left out, e.g. no ``status`` at all). `settle()` changes them later.
    answers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: The HTTP status of those answers, per operation (201 when not given; 202 "accepted").
    answer_codes: Mapping[str, int] = field(default_factory=dict)
    #: Statuses of a charge's life beyond the spec's (its full list is "not shown"): a sale or
    #: capture older than the newest `SETTLE_AFTER` charges shows `settled`, one refunded in
    #: part `partially_refunded`, in full `refunded` (and moves there as refunds are made).
    #: Off: every processed charge shows `success`, as the spec's examples do.
    lifecycle_statuses: bool = False
    #: Extra scopes granted (informational; the service does not check scopes).
    scopes: tuple[str, ...] = field(default=("urn:v2:charges:all", "urn:v2:refunds:all"))
