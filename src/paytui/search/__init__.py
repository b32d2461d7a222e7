"""The charge search language (text -> `paytui.api.queries.ChargeQuery`); see docs/search.md."""

from paytui.search.query import (
    ParseResult,
    QueryError,
    apply_completion,
    complete,
    completion_start,
    format_query,
    parse,
)

__all__ = [
    "ParseResult",
    "QueryError",
    "apply_completion",
    "complete",
    "completion_start",
    "format_query",
    "parse",
]
