"""The chaos harness's small fixed-seed samples: `python -m benchmarks.chaos --runs 2 --seed 330`
(one actor, every kind), a sample of `--two-actors` (two actors meaning the same action), and
one of `--two-actors --team-journal` (two agents' processes, two homes, one PostgreSQL journal).
Any duplicate, any journal verdict that contradicts the server, or any entry left unresolved
after reconciliation fails the build. The full figures are in docs/reliability.md.

Two schedules per kind keep it to a few seconds (the waits are real: a late commit is waited
out); seed 330 is one whose twelve schedules draw every fault — a late commit for a charge, a
distribution and a tag edit — every follow-up, and reads down after the send."""

from __future__ import annotations

from collections import Counter

from benchmarks.chaos import (
    FAULTS,
    KINDS,
    LATE_FAULT,
    PAIRINGS,
    run_chaos,
    run_two_actors,
)


async def test_small_chaos_run_has_no_duplicates_or_contradictions() -> None:
    results = await run_chaos(runs=2, seed=330, drawn=FAULTS)
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


async def test_a_commit_after_the_read_back_is_never_sent_twice_nor_a_wrong_success() -> None:
    """`python -m benchmarks.chaos --faults commit_after_read_back`, a fixed-seed sample: every
    kind's first send is committed by the service only after the read-back that proved "not
    applied"; the follow-ups (pressed again at once or later, Retry, restart) and the final
    reconciliation leave one effect at most, and every journal verdict agrees with the
    service (a "succeeded" only where it committed, the late one found)."""
    results = await run_chaos(runs=2, seed=38, drawn=(LATE_FAULT,))
    assert [r["kind"] for r in results] == list(KINDS)
    for result in results:
        assert result["faults"] == {LATE_FAULT: 2}, result
        figures = (result["duplicates"], result["contradictions"], result["unresolved"])
        assert figures == (0, 0, 0), result


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


#: Seed of the team sample: its four schedules draw the agents starting together and a little
#: apart, a kill that hits an agent racing the other, and losers told which agent acted.
TEAM_SEED = 5
#: One run per case, all at once: two agents on two machines (processes with homes of their
#: own) on one PostgreSQL journal. Every pairing; the faults whose runs end within a second or
#: two (a late commit and a 5xx are waited out for the margin, 2 s: the full run has them).
TEAM_SAMPLE = (
    ("cli+cli/refund", "killed"),
    ("cli+cli/capture", "reset_after_commit"),
    ("app+cli/refund", "none"),
    ("app+cli/capture", "drop_after_commit"),
)


async def test_two_machines_on_one_team_journal_do_it_once(postgres_server: str) -> None:
    """`python -m benchmarks.chaos --two-actors --team-journal`, a fixed-seed sample on the real
    PostgreSQL server (`postgres_server`: the environment's, else the wheel's; it fails, never
    skips, without one): each agent a process of its own (forked) with its own home and
    `PAYTUI_AGENT`, both on one team journal (a schema per case, dropped after); "killed" is a real
    SIGKILL of the agent whose send the service has just read. Any second effect, contradiction,
    unresolved entry, trail that does not verify, or crash fails. The agents' request deadline is
    1 s (`--agent-timeout`), so an unknown outcome is waited out in about 3 s. The full figures:
    docs/reliability.md ("Two machines on one team journal")."""
    from benchmarks.chaos_team import run_team

    results = await run_team(
        runs=1,
        seed=TEAM_SEED,
        server=postgres_server,
        cases=TEAM_SAMPLE,
        agent_timeout=1.0,
        parallel=len(TEAM_SAMPLE),
    )
    for result in results:
        figures = [result[name] for name in ("duplicates", "contradictions", "unresolved")]
        assert figures == [0, 0, 0], result
        assert (result["crashes"], result["unverified"], result["kills_missed"]) == (0, 0, 0)
        assert result["trail_links"] > 0
    ran = {(r["pairing"], fault) for r in results for fault, f in r["faults"].items() if f["runs"]}
    assert ran == set(TEAM_SAMPLE)
    told = Counter(t for r in results for t, n in r["told"].items() for _ in range(n))
    assert any(t.startswith("killed") for t in told), told  # the kill hit a live agent
    assert any("names the other agent" in t for t in told), told  # the loser was told who
