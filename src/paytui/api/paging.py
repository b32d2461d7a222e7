"""Paging that always ends, whatever the service's (unpublished) list shape and paging style.

The spec shows neither the list envelope of `GET /v2/charges` nor how it pages (see
docs/api-assumptions.md, "Lists and paging"). So:

- `unwrap` finds the rows: a bare list, or a list under ``data``, ``items``, ``results``,
  ``content`` or the resource's plural, or nested as ``{"data": {"charges": [...]}}``; paging hints
  are read from the body and from a ``meta`` / ``pagination`` / ``links`` object beside it.
- `hints_of` reads those hints: a count (``total``, ``count``, ``total_count``), ``has_more``, a
  ``next`` link (``null``: the end), the page size the service used (``limit``, ``per_page``,
  ``page_size``) and a page number (``page``).
- `more` decides "maybe more rows" from them, in that order of trust; with no hint at all, a full
  page means more, and a page *shorter than asked* is confirmed by reading the next one (a service
  with a smaller page size than asked is not the end of the list).
- `Pager` (one per client) remembers, for each list and offset reached, the ids of the page that
  led there and how to ask for the next one (a ``next`` link, or ``page``/``per_page`` when the
  service said it pages that way). Callers keep asking by offset; the pager turns the offset into
  the service's own continuation. A page whose rows are all rows of the page before it means the
  service ignores paging: the list stops there, with a `Page.paging_note` saying why, instead of
  reading the same rows for ever.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit

#: Keys a list may sit under (besides the resource's plural name).
LIST_KEYS = ("data", "items", "results", "content")
#: Keys of the number of matching rows.
COUNT_KEYS = ("total", "count", "total_count")
#: Keys of the page size the service used.
SIZE_KEYS = ("limit", "per_page", "page_size")
#: Keys of a link to the next page.
NEXT_KEYS = ("next", "next_url", "next_page_url")
#: Objects beside the list that may hold the hints.
META_KEYS = ("meta", "pagination", "paging", "links")
#: How many (list, offset) pairs a client remembers (a few screens' worth; oldest forgotten first).
MEMORY = 256

PagingStyle = Literal["offset", "page"]
Params = list[tuple[str, str]]


@dataclass(frozen=True)
class Hints:
    """What a list answer says about paging (None: it did not say)."""

    total: int | None = None
    has_more: bool | None = None
    #: A link to the next page; `next_said` with no link means "no next page".
    next_link: str | None = None
    next_said: bool = False
    size: int | None = None
    page: int | None = None
    total_pages: int | None = None

    @property
    def any(self) -> bool:
        return (
            self.total is not None
            or self.has_more is not None
            or self.next_said
            or self.size is not None
        )


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def unwrap(body: Any, plural: str) -> tuple[list[Any], dict[str, Any]] | None:
    """The raw rows of a list answer and the flat hints beside them; None: no list found."""
    found = locate(body, plural)
    return None if found is None else (found[1], found[2])


def locate(body: Any, plural: str) -> tuple[str, list[Any], dict[str, Any]] | None:
    """`unwrap`, and where the rows were: "" (the body is the list), a key (``data``) or two
    (``data.charges``)."""
    if isinstance(body, list):
        return "", body, {}
    if not isinstance(body, Mapping):
        return None
    keys = (*LIST_KEYS, plural)
    where = next((key for key in keys if isinstance(body.get(key), list)), None)
    rows = body[where] if where is not None else None
    meta: dict[str, Any] = {}
    if rows is None:  # nested: {"data": {"charges": [...], ...}, "meta": {...}}
        for key in keys:
            inner = body.get(key)
            if isinstance(inner, Mapping):
                found = next((k for k in keys if isinstance(inner.get(k), list)), None)
                if found is not None:
                    where, rows = f"{key}.{found}", inner[found]
                    meta.update((k, v) for k, v in inner.items() if not isinstance(v, list))
                    break
    if rows is None or where is None:
        return None
    for key in META_KEYS:
        inner = body.get(key)
        if isinstance(inner, Mapping):
            for name, value in inner.items():
                meta.setdefault(name, value)
    # The body's own keys win over the ones found beside it.
    meta.update((k, v) for k, v in body.items() if k not in META_KEYS)
    return where, rows, meta


def count_of(meta: Mapping[str, Any]) -> tuple[str, int] | None:
    """The number of matching rows a list answer gives, and its key (``total``...)."""
    return next(((k, v) for k in COUNT_KEYS if (v := _int(meta.get(k))) is not None), None)


def hints_of(meta: Mapping[str, Any]) -> Hints:
    counted = count_of(meta)
    total = counted[1] if counted is not None else None
    size = next((v for k in SIZE_KEYS if (v := _int(meta.get(k))) is not None), None)
    has_more = meta.get("has_more")
    link: str | None = None
    said = False
    for key in NEXT_KEYS:
        if key in meta:
            value = meta[key]
            if isinstance(value, Mapping):  # {"next": {"href": "..."}}
                value = value.get("href")
            if isinstance(value, str) and value:
                link, said = value, True
                break
            if value is None or value == "":
                said = True
    return Hints(
        total=total,
        has_more=has_more if isinstance(has_more, bool) else None,
        next_link=link,
        next_said=said,
        size=size,
        page=_int(meta.get("page")),
        total_pages=_int(meta.get("total_pages")),
    )


def more(hints: Hints, count: int, limit: int, offset: int) -> bool:
    """Maybe more rows after these `count` rows read at `offset` (asked `limit`)?"""
    if hints.has_more is not None:
        return hints.has_more
    if hints.next_said:
        return hints.next_link is not None
    if hints.total is not None:
        return offset + count < hints.total
    if hints.page is not None and hints.total_pages is not None:
        return hints.page < hints.total_pages
    if count == 0:
        return False
    if hints.size is not None:
        return count >= hints.size
    # No hint at all: a full page means more; a short one is confirmed by the next read (a
    # service whose page size is smaller than asked has not ended; an empty page ends).
    return True


@dataclass(frozen=True)
class _Reached:
    """How a list got to an offset: the ids of the page before it, and how to ask for the next."""

    ids: frozenset[str]
    follow: tuple[str, Params] | None = None


@dataclass(frozen=True)
class Settled:
    """What `Pager.settle` decided about a page."""

    has_more: bool
    #: Why the list stops here when it is not its end (one line for a person), else None.
    note: str | None = None
    #: The page repeats the one before it: its rows are not new and are dropped.
    repeated: bool = False


def _key(path: str, params: Sequence[tuple[str, str]], offset: int) -> tuple[Any, ...]:
    return (path, tuple(params), offset)


class Pager:
    """Turns offsets into the service's continuation and notices a service that ignores paging."""

    def __init__(self, base_url: str, style: PagingStyle = "offset") -> None:
        self._base = urlsplit(base_url)
        self.style: PagingStyle = style
        self._reached: OrderedDict[tuple[Any, ...], _Reached] = OrderedDict()

    def request(
        self, path: str, params: Sequence[tuple[str, str]], limit: int, offset: int
    ) -> tuple[str, Params]:
        """The path and query of the page at `offset` of the list `path` + `params`."""
        reached = self._reached.get(_key(path, params, offset))
        if offset > 0 and reached is not None and reached.follow is not None:
            return reached.follow
        if self.style == "page":
            number = offset // limit + 1
            return path, [*params, ("page", str(number)), ("per_page", str(limit))]
        return path, [*params, ("limit", str(limit)), ("offset", str(offset))]

    def settle(
        self,
        path: str,
        params: Sequence[tuple[str, str]],
        limit: int,
        offset: int,
        ids: Sequence[str],
        hints: Hints,
        has_more: bool,
    ) -> Settled:
        """After reading `ids` at `offset`: maybe more rows, and why the list stopped when that
        is not its end. Remembers how to continue from ``offset + len(ids)``."""
        seen = frozenset(ids)
        before = self._reached.get(_key(path, params, offset))
        if offset > 0 and before is not None and seen and seen <= before.ids:
            way = "its next link" if before.follow is not None else f"offset {offset}"
            return Settled(
                False,
                # The cause first: a narrow status line shows the start of it.
                f"The service ignores paging: stopped after {offset} rows (asked for the next"
                f" page by {way}, it sent the same rows again); more rows may exist than shown",
                repeated=True,
            )
        follow: tuple[str, Params] | None = None
        note: str | None = None
        if has_more and hints.next_link is not None:
            follow = self.link(path, hints.next_link)
            if follow is None:
                has_more = False
                note = (
                    f"Next-page link not followed: stopped after {offset + len(ids)} rows (the"
                    " service's link points outside this service's list)"
                )
        elif has_more and hints.page is not None:
            size = hints.size or len(ids) or limit
            follow = (path, [*params, ("page", str(hints.page + 1)), ("per_page", str(size))])
        if has_more:
            key = _key(path, params, offset + len(ids))
            self._reached[key] = _Reached(seen, follow)
            self._reached.move_to_end(key)
            while len(self._reached) > MEMORY:
                self._reached.popitem(last=False)
        return Settled(has_more, note)

    def link(self, path: str, link: str) -> tuple[str, Params] | None:
        """A next link as (path, query) when it stays on this list of this service; else None
        (the bearer token is never sent elsewhere)."""
        parts = urlsplit(link)
        elsewhere = (parts.scheme, parts.netloc) != (self._base.scheme, self._base.netloc)
        if (parts.scheme or parts.netloc) and elsewhere:
            return None
        target = parts.path or path
        base_path = self._base.path.rstrip("/")
        if base_path and target.startswith(base_path + "/"):
            target = target[len(base_path) :]
        if target != path:
            return None
        return target, parse_qsl(parts.query, keep_blank_values=True)


def row_key(item: Any, plural: str) -> str:
    """A row's identity for "is this the same page again": its own id (``refund_id`` in a list
    of refunds, never the ``charge_id`` it refers to), else its content."""
    for name in (f"{plural.removesuffix('s')}_id", "id"):
        value = getattr(item, name, None)
        if isinstance(value, str) and value:
            return value
    dump = getattr(item, "model_dump_json", None)
    return dump() if callable(dump) else repr(item)


__all__ = [
    "COUNT_KEYS",
    "LIST_KEYS",
    "Hints",
    "Pager",
    "Settled",
    "count_of",
    "hints_of",
    "locate",
    "more",
    "row_key",
    "unwrap",
]
