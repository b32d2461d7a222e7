"""The journal's claims: an agent says "I am working on this charge" (`paytui.actions.claims`),
others on the same journal see it on the row and are warned before acting. Each claim and its
release is a link of the trail.

A claim lives while its holder's paytui does *and* renews it: a session advisory lock on
PostgreSQL (held by `Store.hold` until the claim is released or the session ends), the process on a
file journal; and a heartbeat (`beat_claims`, every `CLAIM_BEAT` from the dashboard) within the
claim lease (`claim_lease`, the profile's `claim_lease_seconds`). A paytui left open on a laptop
that went to sleep keeps its connection (and lock) for a long time; its claims stop beating and
lapse after the lease, by the reader's clock.

Taking over a claim that is still live needs a reason (`claim(..., take_over=REASON)`): the link
of the trail says who took it from whom, when and why. A lapsed claim is simply taken.
"""

from __future__ import annotations

import builtins
import json
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from paytui.actions.claims import Claim, ClaimedElsewhere, process_alive
from paytui.actions.entry import required_time
from paytui.actions.journal_store import placeholders
from paytui.actions.journal_trail import Room, iso

__all__ = ["CLAIM_BEAT", "CLAIM_LEASE", "ClaimsRoom"]

#: How long a claim lives after its holder's paytui last renewed it (the default of the profile's
#: `claim_lease_seconds`).
CLAIM_LEASE = timedelta(minutes=2)
#: How often a dashboard renews its claims (well within any lease a profile may set).
CLAIM_BEAT = timedelta(seconds=10)


class ClaimsRoom(Room):
    """Claims on targets of a service: taken, listed, released."""

    #: How long a claim lives without a heartbeat (the opener sets the profile's).
    claim_lease: timedelta = CLAIM_LEASE

    def _claim_live(self, row: Mapping[str, Any], owner: str | None) -> bool:
        """Ours; or its holder's paytui is alive (its session lock; its process on a file) and
        renewed it within the lease."""
        if owner is not None and row["owner"] == owner:
            return True
        held = self._store.sender_alive(
            self._claim_key(row["base_url"], row["target"], row["owner"])
        )
        alive = held if held is not None else process_alive(row["owner"])
        return alive and self._clock() - self._claim_of(row).beat < self.claim_lease

    def _claim_key(self, base_url: str, target: str, owner: str | None) -> int:
        """The session lock that says a holder's paytui is alive: its own (the owner in the
        key), so a claim taken over never waits for the one it was taken from."""
        return self._key("claim", base_url, target, owner)

    @staticmethod
    def _claim_of(row: Mapping[str, Any]) -> Claim:
        beat = row["beat_at"]
        return Claim(
            row["target"],
            row["agent"],
            row["machine"],
            row["owner"],
            required_time(row["claimed_at"]),
            required_time(beat) if beat else None,
        )

    def beat_claims(self, *, owner: str) -> int:
        """Renew every claim of this paytui (`owner`): they live one more lease. Not a link of
        the trail (a heartbeat is no decision); how many were renewed."""
        if not self._store.one("SELECT 1 AS held FROM claims WHERE owner = ? LIMIT 1", (owner,)):
            return 0  # nothing to renew: no write (a file journal's lock is not taken)
        return self._store.run(
            "UPDATE claims SET beat_at = ? WHERE owner = ?", (iso(self._clock()), owner)
        )

    def claims(
        self, base_url: str, targets: Iterable[str] | None = None, *, owner: str | None = None
    ) -> dict[str, Claim]:
        """The live claims on the service (of `targets`, if given), by target. A claim lives
        as long as its agent's paytui: its session lock on PostgreSQL, its process on a file."""
        sql = "SELECT * FROM claims WHERE base_url = ?"
        params: builtins.list[Any] = [base_url]
        if targets is not None:
            wanted = sorted(set(targets))
            if not wanted:
                return {}
            sql += f" AND target IN ({placeholders(wanted)})"
            params += wanted
        rows = self._store.rows(sql, params)
        return {r["target"]: self._claim_of(r) for r in rows if self._claim_live(r, owner)}

    def claim(
        self,
        base_url: str,
        target: str,
        *,
        agent: str,
        machine: str | None,
        owner: str,
        take_over: str | None = None,
    ) -> Claim:
        """Claim `target` for `agent` (this process: `owner`); `ClaimedElsewhere` when another
        live paytui holds it, unless `take_over` gives the reason to take it from them (kept in
        the trail with whom it was taken from). Claiming again what is ours is a no-op."""
        reason = (take_over or "").strip() or None
        taken = self._take(
            base_url, [target], agent=agent, machine=machine, owner=owner, take_over=reason
        )
        if isinstance(taken, Claim) and taken.mine(owner):
            return taken
        assert isinstance(taken, Claim)
        raise ClaimedElsewhere(taken)

    def claim_next(
        self,
        base_url: str,
        candidates: Iterable[str],
        *,
        agent: str,
        machine: str | None,
        owner: str,
    ) -> Claim | None:
        """Claim the first of `candidates` (in order) nobody else holds; None when all are
        taken. Claimers of one service take turns (one short transaction each), so ten agents
        pressing at once get ten different items."""
        items = list(dict.fromkeys(candidates))
        taken = self._take(
            base_url, items, agent=agent, machine=machine, owner=owner, first_free=True
        )
        return taken if isinstance(taken, Claim) and taken.mine(owner) else None

    def _take(
        self,
        base_url: str,
        targets: builtins.list[str],
        *,
        agent: str,
        machine: str | None,
        owner: str,
        first_free: bool = False,
        take_over: str | None = None,
    ) -> Claim | None:
        """In one transaction: the first target that is free (or ours) is claimed and its claim
        returned; with one target and it taken, the other's claim is returned, or with
        `take_over` (a reason) it is taken from them."""
        if not targets:
            return None
        with self._store.transaction(self._key("claims", base_url), self._trail_key):
            sql = f"SELECT * FROM claims WHERE base_url = ? AND target IN ({placeholders(targets)})"
            current = {r["target"]: r for r in self._store.rows(sql, (base_url, *targets))}
            for target in targets:
                row = current.get(target)
                if row is not None and row["owner"] == owner:
                    return self._claim_of(row)
                live = row is not None and self._claim_live(row, owner)
                if live and first_free:
                    continue
                if live and take_over is None:
                    assert row is not None
                    return self._claim_of(row)
                now = iso(self._clock())
                (claimed,) = self._store.rows(
                    "INSERT INTO claims (base_url, target, agent, machine, owner, claimed_at,"
                    " beat_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (base_url, target)"
                    " DO UPDATE SET agent = excluded.agent, machine = excluded.machine,"
                    " owner = excluded.owner, claimed_at = excluded.claimed_at,"
                    " beat_at = excluded.beat_at RETURNING *",
                    (base_url, target, agent, machine, owner, now, now),
                )
                if live:
                    assert row is not None
                    # A live claim taken over: who from, and why, are links of the trail.
                    taken_from = {"agent": row["agent"], "machine": row["machine"]}
                    link = {**claimed, "taken_from": taken_from, "reason": take_over}
                    self._append("takeover", link)
                else:
                    self._append("claim", claimed)
                # The lock is this holder's own (its owner in the key): one taken over, or
                # lapsed while its session lives on, keeps its lock, and nobody waits for it.
                self._store.hold(self._claim_key(base_url, target, owner))
                return self._claim_of(claimed)
        return None

    def release(self, base_url: str, target: str, *, owner: str) -> bool:
        """Let go of our claim on `target` (False: it was not ours)."""
        with self._store.transaction(self._trail_key):
            rows = self._store.rows(
                "DELETE FROM claims WHERE base_url = ? AND target = ? AND owner = ? RETURNING *",
                (base_url, target, owner),
            )
            if rows:
                self._append("release", rows[0])
        self._store.release(self._claim_key(base_url, target, owner))
        return bool(rows)

    def last_claim_change(
        self, base_url: str, *, owner: str, scan: int = 200
    ) -> tuple[str, str, datetime] | None:
        """This paytui's (`owner`) newest claim, take-over or release on the service, from the
        trail: (kind, target, when); None when it made none among the newest `scan` claim links
        (undo, `paytui.actions.undo`)."""
        rows = self._store.rows(
            "SELECT kind, at, body FROM trail WHERE kind IN ('claim', 'takeover', 'release')"
            " ORDER BY seq DESC LIMIT ?",
            (scan,),
        )
        for row in rows:
            body = json.loads(row["body"])
            if body.get("owner") == owner and body.get("base_url") == base_url:
                return str(row["kind"]), str(body["target"]), required_time(row["at"])
        return None

    def release_all(self, *, owner: str) -> int:
        """Let go of every claim of this process (on exit)."""
        rows = self._store.rows("SELECT base_url, target FROM claims WHERE owner = ?", (owner,))
        return sum(self.release(r["base_url"], r["target"], owner=owner) for r in rows)
