"""What of the store is public, and how the bots were isolated, for the web pages.

Until a tournament is finished, a match's deck seed, replay, fault details and bot
debug text stay hidden (:class:`Visibility`): a replay reveals the hands of every
seating still to play that deal, and the seed rebuilds them.  The addresses of bots
registered by address are never shown (:class:`Redactor`).  :func:`isolation_json`
reads how a match's bot processes were isolated from its replay.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from leaderboard import match_details
from leaderboard.rows import MatchRow, TournamentRow
from leaderboard.store import Store

#: What replaces a fault's detail while the match's replay is not published (a detail
#: such as "action_index 7 is out of range [0, 5)" tells how many moves a seat had).
DETAIL_HIDDEN = "published with the replay"
#: What replaces a bot's address (HOST:PORT) wherever text mentions it.
ADDRESS_HIDDEN = "(address hidden)"


# -- what is public ------------------------------------------------------------------


class ReplayNotPublished(Exception):
    """A match's replay is not public yet; the message says when it will be."""


class Visibility:
    """Which stored matches are public, worked out once per request.

    Every match of a finished tournament is; with the tournament's ``publish_deals``
    option, also every match of a deal (one subset of bots in one round, dealt from
    one deck seed) whose seat rotations are all stored; no other.  A public match
    shows its deck seed, replay, fault details and debug text; the others show
    their result only, since a replay reveals the hands of every seating still to
    play that deal, and the seed rebuilds them.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._tournaments: dict[int, TournamentRow] = {}
        self._deals: dict[str, bool] = {}  # match id -> whether its deal is complete

    def tournament(self, tournament_id: int) -> TournamentRow:
        row = self._tournaments.get(tournament_id)
        if row is None:
            row = self._tournaments[tournament_id] = self._store.get_tournament(tournament_id)
        return row

    def published(self, match: MatchRow | Any) -> bool:
        """Whether the match (anything with its ``id`` and ``tournament_id``) is public."""
        tournament = self.tournament(match.tournament_id)
        if tournament.finished:
            return True
        if not tournament.config.get("publish_deals"):
            return False
        found = self._deals.get(match.id)
        if found is None:
            found = self._deals[match.id] = self._deal_complete(match.id)
        return found

    def _deal_complete(self, match_id: str) -> bool:
        """Whether every seat rotation of the match's deal (its subset of bots, in its round,
        dealt from its deck seed) is stored: the other matches of that deal only, by index."""
        seatings = match_details.deal_seatings(self._store, match_id)
        mine = seatings.get(match_id)
        if mine is None:
            return False
        rotations = {s for s in seatings.values() if frozenset(s) == frozenset(mine)}
        complete = len(rotations) >= len(mine)
        for other, seating in seatings.items():  # its deal's other matches have the same answer
            if seating in rotations:
                self._deals[other] = complete
        return complete

    def hidden_message(self, match: MatchRow) -> str:
        tournament = self.tournament(match.tournament_id)
        when = f"when tournament {tournament.id} is finished (it is {tournament.status} now)"
        if tournament.config.get("publish_deals"):
            when = f"once every seating of its deal has been played, or {when}"
        return f"The replay and deck seed of match {match.id} are published {when}."


class Redactor:
    """Takes the addresses (HOST:PORT) of bots registered by address out of everything sent."""

    def __init__(self, addresses: Iterable[str]) -> None:
        self._addresses = sorted({a for a in addresses if a}, key=len, reverse=True)

    @classmethod
    def of(cls, store: Store) -> "Redactor":
        return cls(b.address for b in store.list_bots(include_removed=True) if b.address)

    def text(self, value: str) -> str:
        for address in self._addresses:
            if address in value:
                value = value.replace(address, ADDRESS_HIDDEN)
        return value

    def clean(self, value: Any) -> Any:
        """``value`` with every mention of an address replaced (dicts and lists are copied)."""
        if not self._addresses:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(k) if isinstance(k, str) else k: self.clean(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.clean(v) for v in value]
        return value


def public_replay(replay: dict[str, Any]) -> dict[str, Any]:
    """The replay without the ``address`` the host records for each seat's bot process."""
    section = replay.get("match")
    if not isinstance(section, dict) or not isinstance(section.get("seats"), list):
        return replay
    seats = [
        {k: v for k, v in seat.items() if k != "address"} if isinstance(seat, dict) else seat
        for seat in section["seats"]
    ]
    return {**replay, "match": {**section, "seats": seats}}


# -- isolation ----------------------------------------------------------------------


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def isolation_json(replay: dict[str, Any] | None) -> dict[str, Any]:
    """How the match's bot processes were isolated (``replay.match.isolation``), with a
    one-line ``summary``; level ``unknown`` for replays recorded before it was."""
    section = replay.get("match") if isinstance(replay, dict) else None
    found = section.get("isolation") if isinstance(section, dict) else None
    if not isinstance(found, dict) or not isinstance(found.get("level"), str):
        return {"level": "unknown", "fresh_processes": None, "limits": {},
                "summary": "unknown (not recorded for this match)"}
    level = found["level"]
    fresh = found.get("fresh_processes")
    limits = found.get("limits") if isinstance(found.get("limits"), dict) else {}
    parts = []
    if "memory_mb" in limits:
        parts.append(f"memory {_number(limits['memory_mb'])} MB")
    if "pids" in limits:
        parts.append(f"{_number(limits['pids'])} processes")
    if "cpus" in limits:
        cpus = limits["cpus"]
        parts.append(f"{_number(cpus)} CPU" + ("s" if isinstance(cpus, (int, float)) and cpus > 1 else ""))
    if "file_mb" in limits:
        parts.append(f"files {_number(limits['file_mb'])} MB")
    if "tmp_mb" in limits:
        parts.append(f"tmp {_number(limits['tmp_mb'])} MB")
    if level == "none" and not parts:
        parts.append("no sandbox, no limits")
    if fresh is True:
        parts.append("fresh process per match")
    elif fresh is False:
        parts.append("processes reused across matches")
    summary = level + (" — " + ", ".join(parts) if parts else "")
    return {"level": level, "fresh_processes": fresh if isinstance(fresh, bool) else None, "limits": limits,
            "summary": summary}


class _IsolationCache:
    """Isolation per match id (a stored match never changes), read from its replay."""

    LIMIT = 10_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._known: dict[str, dict[str, Any]] = {}

    def get(self, store: Store, match_id: str) -> dict[str, Any]:
        return self.many(store, [match_id]).get(match_id, isolation_json(None))

    def many(self, store: Store, match_ids: list[str]) -> dict[str, dict[str, Any]]:
        """The isolation of each match; the replays of those not known yet read in one query."""
        with self._lock:
            found = {m: self._known[m] for m in match_ids if m in self._known}
        missing = [m for m in match_ids if m not in found]
        if missing:
            read = {m: isolation_json(replay) for m, replay in match_details.stored_replays(store, missing).items()}
            with self._lock:
                if len(self._known) + len(read) > self.LIMIT:
                    self._known.clear()
                self._known.update(read)
            found.update(read)
        return found
