"""How far a tournament has come: matches stored of the schedule's total, the rate of the
last matches, and when it should be done.

The total is the length of the tournament's deterministic schedule, counted from its
stored configuration (bots, table sizes, rounds) as the scheduler would make it.  The
rate is measured on the newest stored matches (when each ended: start + duration), so
a tournament resumed after a pause is timed on what it does now, not on the pause.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from arena.scheduler.pairings import schedule_length
from leaderboard import match_lists, tallies
from leaderboard.rows import TournamentRow, TournamentStatus
from leaderboard.store import Store

#: The newest matches the rate is measured on, and how far back from the newest one.
RATE_MATCHES = 30
RATE_WINDOW = timedelta(minutes=15)
#: A running tournament with no match stored for this long (and for ten times its usual
#: gap) is said to be stalled: its process may have died without saying so.
STALL_AFTER = timedelta(minutes=5)


def schedule_total(config: dict[str, Any], game: str) -> int | None:
    """The number of matches in the tournament's schedule (of ``game``); None for a configuration that has none."""
    try:
        return schedule_length(len(config["bots"]), [int(k) for k in config["table_sizes"]], int(config["rounds"]),
                               game=game)
    except (KeyError, TypeError, ValueError):
        return None


def progress_json(store: Store, row: TournamentRow, now: datetime | None = None) -> dict[str, Any]:
    """Done of total, matches per minute and the expected end (for a running tournament)."""
    now = now if now is not None else datetime.now(timezone.utc)
    done = tallies.match_count(store, row.id)
    total = schedule_total(row.config, row.game)
    running = row.status == TournamentStatus.RUNNING
    data: dict[str, Any] = {
        "id": row.id,
        "status": str(row.status),
        "done": done,
        "total": total,
        "remaining": None if total is None else max(0, total - done),
        "fraction": None if not total else round(min(1.0, done / total), 4),
        "matches_per_minute": None,
        "eta_seconds": None,
        "eta": None,
        "last_match_at": None,
        "stalled": False,
        "checked_at": now.isoformat(),
        "workers": _workers(store, row.id),
    }
    ends = sorted(match_lists.newest_ends(store, row.id, RATE_MATCHES), reverse=True)
    if not ends:
        return data
    newest = ends[0]
    data["last_match_at"] = newest.isoformat()
    recent = [t for t in ends if newest - t <= RATE_WINDOW]
    span = (recent[0] - recent[-1]).total_seconds()
    rate = (len(recent) - 1) / span if len(recent) > 1 and span > 0 else None  # matches per second
    if rate is not None:
        data["matches_per_minute"] = round(rate * 60, 2)
    if running and rate is not None:
        idle = (now - newest).total_seconds()
        data["stalled"] = idle > max(STALL_AFTER.total_seconds(), 10 / rate)
        if data["remaining"] is not None and not data["stalled"]:
            eta = max(0.0, data["remaining"] / rate - idle)
            data["eta_seconds"] = round(eta)
            data["eta"] = (now + timedelta(seconds=eta)).isoformat()
    return data


def _workers(store: Store, tournament_id: int) -> list[dict[str, Any]]:
    """Per worker (``HOST/ID``): matches held now, done, failed, late results refused,
    matches/min, excluded or not (``arena tournament status`` shows the same)."""
    from leaderboard.queue import MatchQueue

    return [w.to_json() for w in MatchQueue(store).progress(tournament_id).workers]


def duration_text(seconds: float | None) -> str:
    """``40 s``, ``3 min 20 s``, ``25 min``, ``1 h 5 min``: how long, for a person."""
    if seconds is None:
        return ""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 600:
        m, r = divmod(s, 60)
        return f"{m} min {r} s" if r else f"{m} min"
    minutes = round(s / 60)
    if minutes < 60:
        return f"{minutes} min"
    h, m = divmod(minutes, 60)
    return f"{h} h {m} min" if m else f"{h} h"
