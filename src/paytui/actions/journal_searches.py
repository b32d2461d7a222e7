"""The team's saved searches, kept in the journal (so every agent of a team journal sees them);
each save and removal is a link of the trail."""

from __future__ import annotations

from paytui.actions.journal_trail import Room, iso

__all__ = ["SearchesRoom"]


class SearchesRoom(Room):
    """The team's saved searches: listed, shared, unshared."""

    def team_searches(self) -> dict[str, tuple[str, str | None]]:
        """The team's saved searches: name -> (query, who saved it), by name."""
        rows = self._store.rows("SELECT name, query, agent FROM team_searches ORDER BY name")
        return {r["name"]: (r["query"], r["agent"]) for r in rows}

    def share_search(self, name: str, query: str, *, agent: str | None) -> None:
        """Save (or replace) the team's search `name` (a trail link says who and when)."""
        with self._store.transaction(self._trail_key):
            (row,) = self._store.rows(
                "INSERT INTO team_searches (name, query, agent, saved_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (name) DO UPDATE SET query = excluded.query,"
                " agent = excluded.agent, saved_at = excluded.saved_at RETURNING *",
                (name, query, agent, iso(self._clock())),
            )
            self._append("search", row)

    def unshare_search(self, name: str, *, agent: str | None) -> bool:
        """Remove the team's search `name` (False: there was none)."""
        with self._store.transaction(self._trail_key):
            rows = self._store.rows("DELETE FROM team_searches WHERE name = ? RETURNING *", (name,))
            if rows:
                self._append("unsearch", {**rows[0], "removed_by": agent})
        return bool(rows)
