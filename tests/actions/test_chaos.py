"""The chaos harness's small fixed-seed sample (`python -m benchmarks.chaos --runs 2 --seed 330`):
any duplicate, any journal verdict that contradicts the server, or any entry left unresolved
after reconciliation fails the build. The full proof (`--runs 200`) is in docs/reliability.md.

Two schedules per kind keep it to a few seconds (the waits are real: a late commit is waited
out); seed 330 is one whose twelve schedules draw every fault — a late commit for a charge, a
distribution and a tag edit — every follow-up, and reads down after the send."""

from __future__ import annotations

from benchmarks.chaos import FAULTS, KINDS, run_chaos


async def test_small_chaos_run_has_no_duplicates_or_contradictions() -> None:
    results = await run_chaos(runs=2, seed=330)
    assert [r["kind"] for r in results] == list(KINDS)
    for result in results:
        assert result["runs"] == 2
        assert (result["duplicates"], result["contradictions"], result["unresolved"]) == (
            0,
            0,
            0,
        ), result
    seen = {fault for result in results for fault in result["faults"]}
    assert seen == set(FAULTS), seen
