"""The first charge opened against the later ones, each sample a new app in a process of its own
(`python -m benchmarks.first_open --db DB`, run `runs` times by `python -m benchmarks`'s
`screens` part: `figures`).

"The first charge opened as fast as the second" (issue 45) was one sample a run: the in-process
app of `typing` and `screens` opened one first charge, and its ratio over the later ones swung
1.01-1.30 between runs of the same tree with a core busy, where the first open was 2-4 ms of
68 ms slower (five apps: 1.01-1.12, median 1.06). Here each run is the product's own case: one
app a process, the sandbox served in its own process over a socket (`served_app`: an
in-process sandbox's first answer of an endpoint, FastAPI's own first-call work, counted as
paytui's), left idle until its warm-up is done, then a charge opened `OPENS` times from the
list. `open_detail_first_ratio` is the median of the runs' ratios (target 1.1), over at least
three runs.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from benchmarks.figures import apart, emit, figure

#: Charges opened a run: the first, then the later ones whose median it is compared with.
OPENS = 5
#: Runs at least, `--quick` too: one run's ratio is one first open (the CI run of 20:56 on
#: 30 November: 1.123 at 3,000 charges, one sample; the same tree's three gave 1.01-1.135, median
#: 1.051, at 100,000), and a median of one is that sample.
SAMPLES_AT_LEAST = 3


async def _opened(app: Any, pilot: Any) -> list[dict[str, Any]]:
    from benchmarks.__main__ import idle_after_start, open_charges, settle

    await settle(app, pilot)
    await idle_after_start(app)
    await settle(app, pilot)
    opened = await open_charges(app, pilot, OPENS)
    return [
        figure("open_detail_first_sample_ms", opened[:1], "ms", None),
        figure("open_detail_later_sample_ms", opened[1:], "ms", None),
    ]


def figures(db: Path, runs: int, quick: bool) -> list[dict[str, Any]]:
    """`runs` samples (at least `SAMPLES_AT_LEAST`, `--quick` too), each in a process of its
    own: `open_detail_first_ratio` (their ratios' median) and `open_detail_first_apart_ms` (the
    first opens' median)."""
    ratios: list[float] = []
    firsts: list[float] = []
    for _ in range(max(SAMPLES_AT_LEAST, runs)):
        found = {
            item["name"]: item for item in apart("benchmarks.first_open", quick, "--db", str(db))
        }
        first = found["open_detail_first_sample_ms"]["value"]
        later = found["open_detail_later_sample_ms"]["median"]
        firsts.append(first)
        ratios.append(first / later)
    return [
        figure("open_detail_first_apart_ms", firsts, "ms", 150.0),
        figure("open_detail_first_ratio", ratios, "x", 1.1),
    ]


def main(argv: list[str] | None = None) -> int:
    from benchmarks.__main__ import served_app

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="accepted, as every part's")
    parser.add_argument("--db", type=Path, required=True, help="the database to serve")
    args = parser.parse_args(argv)
    for item in asyncio.run(served_app(args.db, _opened)):
        emit(item)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
