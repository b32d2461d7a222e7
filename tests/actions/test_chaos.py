"""The chaos harness's small fixed-seed sample (`python -m benchmarks.chaos --runs 5 --seed 7`):
any duplicate, any journal verdict that contradicts the server, or any entry left unresolved
after reconciliation fails the build. The full proof (`--runs 200`) is in docs/reliability.md."""

from __future__ import annotations

from benchmarks.chaos import KINDS, run_chaos


async def test_small_chaos_run_has_no_duplicates_or_contradictions() -> None:
    results = await run_chaos(runs=5, seed=7)
    assert [r["kind"] for r in results] == list(KINDS)
    for result in results:
        assert result["runs"] == 5
        assert (result["duplicates"], result["contradictions"], result["unresolved"]) == (
            0,
            0,
            0,
        ), result
    # The sample exercises every fault at least once across the kinds.
    seen = {fault for result in results for fault in result["faults"]}
    assert seen >= {"drop_after_commit", "late_commit", "reset_after_commit", "killed"}, seen
