"""A response read whole keeps its body, not its client's bound stream (`unbind`).

httpx binds a sent response's stream to the response (`BoundAsyncStream`, which points back at
it): a cycle, so a response and its body outlived their last use until a full collection of the
cyclic garbage collector, which the dashboard holds back while the person works
(`paytui.collector`). At 100,000 charges that was 15 MB for each refresh of the pulse (150
pages), still held when the next began: resident memory 1.33x the first draw's after ten
refreshes with a core busy (`pulse_refresh_rss_ratio`, issue 45). Read whole, a body needs no
stream but its bytes; unbound, the response is freed as soon as its reader drops it.
"""

from __future__ import annotations

import httpx

__all__ = ["unbind"]


def unbind(response: httpx.Response) -> None:
    """Replace a read response's bound stream by its bytes; one not read yet is left alone (its
    stream is still the way to its body)."""
    if response.is_stream_consumed:
        response.stream = httpx.ByteStream(response.content)
