"""The journal's claims: an agent says "I am working on this charge" (`paytui.actions.claims`),
others on the same journal see it on the row and are warned before acting. Each claim and its
release is a link of the trail.

A claim lives as long as its agent's paytui does: a session advisory lock on PostgreSQL (held by
`Store.hold` until the claim is released or the session ends), the process on a file journal.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Mapping
from typing import Any

from paytui.actions.claims import Claim, ClaimedElsewhere, process_alive
from paytui.actions.entry import required_time
from paytui.actions.journal_store import placeholders
from paytui.actions.journal_trail import Room, iso

__all__ = ["ClaimsRoom"]


class ClaimsRoom(Room):
    """Claims on targets of a service: taken, listed, released."""

    def _claim_live(self, row: Mapping[str, Any], owner: str | None) -> bool:
        if owner is not None and row["owner"] == owner:
            return True
        held = self._store.sender_alive(self._key("claim", row["base_url"], row["target"]))
        return held if held is not None else process_alive(row["owner"])

    @staticmethod
    def _claim_of(row: Mapping[str, Any]) -> Claim:
        return Claim(
            row["target"],
            row["agent"],
            row["machine"],
            row["owner"],
            required_time(row["claimed_at"]),
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
        self, base_url: str, target: str, *, agent: str, machine: str | None, owner: str
    ) -> Claim:
        """Claim `target` for `agent` (this process: `owner`); `ClaimedElsewhere` when another
        live paytui holds it. Claiming again what is ours is a no-op."""
        taken = self._take(base_url, [target], agent=agent, machine=machine, owner=owner)
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
    ) -> Claim | None:
        """In one transaction: the first target that is free (or ours) is claimed and its claim
        returned; with one target and it taken, the other's claim is returned."""
        if not targets:
            return None
        with self._store.transaction(self._key("claims", base_url), self._trail_key):
            sql = f"SELECT * FROM claims WHERE base_url = ? AND target IN ({placeholders(targets)})"
            current = {r["target"]: r for r in self._store.rows(sql, (base_url, *targets))}
            for target in targets:
                row = current.get(target)
                if row is not None and row["owner"] == owner:
                    return self._claim_of(row)
                if row is not None and self._claim_live(row, owner):
                    if first_free:
                        continue
                    return self._claim_of(row)
                (claimed,) = self._store.rows(
                    "INSERT INTO claims (base_url, target, agent, machine, owner, claimed_at)"
                    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (base_url, target) DO UPDATE SET"
                    " agent = excluded.agent, machine = excluded.machine, owner = excluded.owner,"
                    " claimed_at = excluded.claimed_at RETURNING *",
                    (base_url, target, agent, machine, owner, iso(self._clock())),
                )
                self._append("claim", claimed)
                self._store.hold(self._key("claim", base_url, target))
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
        self._store.release(self._key("claim", base_url, target))
        return bool(rows)

    def release_all(self, *, owner: str) -> int:
        """Let go of every claim of this process (on exit)."""
        rows = self._store.rows("SELECT base_url, target FROM claims WHERE owner = ?", (owner,))
        return sum(self.release(r["base_url"], r["target"], owner=owner) for r in rows)
