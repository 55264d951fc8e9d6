"""The rows of one stored match, as both write paths build them.

:func:`leaderboard.store.insert_match` (one match, ORM objects) and
:func:`leaderboard.bulk.insert_matches` (a batch, multi-row INSERTs) store the same
values in the same columns: they both take them from here, so a new column or a
changed encoding is written once.  ``test_bulk.py`` still compares every stored
column of both paths on both backends.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session

from arena.records import MatchRecord, ReferenceResult, SeatResult
from leaderboard import replays
from leaderboard.errors import UnknownBotError
from leaderboard.models import BotVersion
from leaderboard.rows import MatchStatus
from leaderboard.store_core import _dump_json, _find_version


def check_slot(record: MatchRecord, schedule_index: int, round: int) -> None:
    """A match's schedule index and round are ints >= 0 (ValueError naming the match)."""
    for value, what in ((schedule_index, "schedule index"), (round, "round")):
        if not isinstance(value, int) or value < 0:
            raise ValueError(f"match {record.match_id!r}: {what} must be an int >= 0, got {value!r}")


def match_values(tournament_id: int, schedule_index: int, round: int, record: MatchRecord) -> dict[str, Any]:
    """The ``matches`` row (column -> value) of a finished match; ValueError for a replay or
    extra that is no JSON."""
    replay_json = _dump_json(record.replay, f"match {record.match_id!r}: the replay")
    return {
        "id": record.match_id,
        "tournament_id": tournament_id,
        "schedule_index": schedule_index,
        "round": round,
        "seed": record.seed,
        "variant": record.variant,
        "table_size": record.players,
        "status": MatchStatus.FINISHED.value,
        "termination": record.termination.value,
        "started_at": datetime.fromtimestamp(record.started_at, UTC),
        "duration_s": float(record.duration_s),
        "replay_z": replays.pack(replay_json),
        "extra_json": _dump_json(record.extra, f"match {record.match_id!r}: extra"),
    }


def seat_values(record: MatchRecord, seat: SeatResult, version: BotVersion) -> dict[str, Any]:
    """The ``seats`` row of one seat, played by bot version ``version``."""
    return {
        "match_id": record.match_id,
        "seat": seat.seat,
        "bot_id": version.bot_id,
        "bot_version_id": version.id,
        "score": seat.score,
        "place": seat.place,
        "forfeited": seat.forfeited,
        "faults_json": _dump_json(
            [f.to_json() for f in seat.faults], f"match {record.match_id!r} seat {seat.seat}: faults"
        ),
        "fault_count": len(seat.faults),
    }


def reference_values(record: MatchRecord, reference: ReferenceResult) -> dict[str, Any]:
    """The ``match_references`` row of one of the game's reference participants."""
    return {"match_id": record.match_id, "name": reference.name, "score": reference.score,
            "place": reference.place}


def played_versions(session: Session, record: MatchRecord, known: dict[str, BotVersion]) -> list[BotVersion]:
    """The bot version of each seat, in seat order (``known``: versions looked up before, by
    the seat's name, and filled in); :class:`UnknownBotError` naming the seat, ValueError when
    two seats are versions of one bot."""
    played = []
    for seat in record.seats:
        if seat.bot not in known:
            try:
                known[seat.bot] = _find_version(session, seat.bot)[1]
            except UnknownBotError as exc:
                raise UnknownBotError(f"match {record.match_id!r} seat {seat.seat}: {exc}") from None
        played.append(known[seat.bot])
    if len({v.bot_id for v in played}) != len(played):
        raise ValueError(
            f"match {record.match_id!r}: two seats are versions of one bot "
            f"({', '.join(s.bot for s in record.seats)}); a bot holds one seat per match"
        )
    return played
