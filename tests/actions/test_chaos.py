"""The chaos harness's small fixed-seed samples: `python -m benchmarks.chaos --runs 2 --seed 330`
(one actor, every kind) and a sample of `--two-actors` (two actors meaning the same action). Any
duplicate, any journal verdict that contradicts the server, or any entry left unresolved after
reconciliation fails the build. The full figures are in docs/reliability.md.

Two schedules per kind keep it to a few seconds (the waits are real: a late commit is waited
out); seed 330 is one whose twelve schedules draw every fault — a late commit for a charge, a
distribution and a tag edit — every follow-up, and reads down after the send."""

from __future__ import annotations

from benchmarks.chaos import FAULTS, KINDS, PAIRINGS, run_chaos, run_two_actors


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


#: One run per case: every pairing, every fault kind (the pilot's "no fault" with the dialog and
#: the command line), all at once.
TWO_ACTOR_SAMPLE = (
    ("app+cli/refund", "none"),
    ("cli+cli/refund", "late_commit"),
    ("cli+cli/refund", "reset_after_commit"),
    ("bulk+single/refund", "killed"),
    ("app+cli/capture", "drop_after_commit"),
    ("bulk+single/capture", "error_5xx"),
)


async def test_two_actors_meaning_the_same_action_do_it_once() -> None:
    """`python -m benchmarks.chaos --two-actors`, a fixed-seed sample: two independent actors
    (separate journal connections on one file, separate executors and clients) mean the same
    refund or capture; any second effect, contradiction, unresolved entry or crash fails. Seed 2
    draws both actors starting together and one after the other, a recent identical refund
    refused (`RecentlyDone`), one in flight (`UnresolvedAction`), a review that showed it done,
    and a process killed mid-send. The full figure is in docs/reliability.md."""
    results = await run_two_actors(
        runs=1, seed=2, cases=TWO_ACTOR_SAMPLE, parallel=len(TWO_ACTOR_SAMPLE)
    )
    assert [r["pairing"] for r in results] == list(PAIRINGS)
    for result in results:
        figures = [result[name] for name in ("duplicates", "contradictions", "unresolved")]
        assert figures == [0, 0, 0] and result["crashes"] == 0, result
    ran = {(r["pairing"], fault) for r in results for fault, f in r["faults"].items() if f["runs"]}
    assert ran == set(TWO_ACTOR_SAMPLE)
    assert {fault for _, fault in ran} == set(FAULTS)
