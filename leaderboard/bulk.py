"""Storing many finished matches at once: :meth:`leaderboard.store.Store.record_matches`.

The same checks as :func:`leaderboard.store.insert_match` (each record, its schedule
index and round, its tournament's game, a match already stored, the seats' bots), but
a batch is one transaction and its rows (matches, seats, reference participants) go in
as a few multi-row INSERTs: the
tournaments and bot versions are looked up once per batch, the duplicates in one
query per few hundred matches.  Per match, what remains is encoding and compressing
its replay.  All or nothing: on any error nothing of the batch is stored.

The row values are those :func:`leaderboard.store.insert_match` writes: both take
them from :mod:`leaderboard.match_rows`; the test
``test_bulk.py::test_record_matches_stores_what_record_match_stores`` compares
every column of both paths.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import and_, insert, or_
from sqlmodel import Session, col, select

from arena.records import MatchRecord
from leaderboard.errors import AlreadyRecorded
from leaderboard.match_rows import check_slot, match_values, played_versions, reference_values, seat_values
from leaderboard.models import BotVersion, Match, MatchReference, Seat
from leaderboard.store_core import _CHUNK, _check_record, _find_tournament, _refuse_recorded

#: One match to store: (tournament id, schedule index, round, record), as record_match takes them.
Item = tuple[int, int, int, MatchRecord]


def insert_matches(session: Session, items: Sequence[Item]) -> None:
    """Add the matches to ``session``'s transaction; raises as ``record_match`` does (the first
    problem found, naming its match), and :class:`AlreadyRecorded` for two items of the batch
    with one match id or one (tournament, schedule index)."""
    ids: dict[str, Item] = {}
    slots: dict[tuple[int, int], str] = {}
    for item in items:
        tournament_id, schedule_index, round, record = item
        _check_record(record)
        check_slot(record, schedule_index, round)
        if record.match_id in ids:
            raise AlreadyRecorded(f"match id {record.match_id!r} is twice in the batch")
        if (tournament_id, schedule_index) in slots:
            raise AlreadyRecorded(
                f"tournament {tournament_id} schedule index {schedule_index} is twice in the batch "
                f"(matches {slots[tournament_id, schedule_index]!r} and {record.match_id!r})"
            )
        ids[record.match_id] = item
        slots[tournament_id, schedule_index] = record.match_id
    games = {}
    for tournament_id, _, _, record in items:
        if tournament_id not in games:
            games[tournament_id] = _find_tournament(session, tournament_id).game
        if games[tournament_id] != record.game:
            raise ValueError(
                f"match {record.match_id!r} is a {record.game!r} match, "
                f"but tournament {tournament_id} plays {games[tournament_id]!r}"
            )
    _refuse_stored(session, items)
    versions: dict[str, BotVersion] = {}
    match_rows: list[dict[str, Any]] = []
    seat_rows: list[dict[str, Any]] = []
    reference_rows: list[dict[str, Any]] = []
    for tournament_id, schedule_index, round, record in items:
        played = played_versions(session, record, versions)
        match_rows.append(match_values(tournament_id, schedule_index, round, record))
        seat_rows.extend(seat_values(record, seat, version) for seat, version in zip(record.seats, played))
        reference_rows.extend(reference_values(record, r) for r in record.references)
    if match_rows:
        session.execute(insert(Match), match_rows)  # type: ignore[arg-type]
        session.execute(insert(Seat), seat_rows)  # type: ignore[arg-type]
    if reference_rows:
        session.execute(insert(MatchReference), reference_rows)  # type: ignore[arg-type]


def _refuse_stored(session: Session, items: Sequence[Item]) -> None:
    """:class:`AlreadyRecorded` (record_match's message) for the first item already stored."""
    for start in range(0, len(items), _CHUNK):
        chunk = items[start : start + _CHUNK]
        by_tournament: dict[int, list[int]] = {}
        for tournament_id, schedule_index, _, _ in chunk:
            by_tournament.setdefault(tournament_id, []).append(schedule_index)
        found = session.exec(
            select(col(Match.id), col(Match.tournament_id), col(Match.schedule_index)).where(
                or_(
                    col(Match.id).in_([record.match_id for _, _, _, record in chunk]),
                    *(
                        and_(col(Match.tournament_id) == t, col(Match.schedule_index).in_(indexes))
                        for t, indexes in by_tournament.items()
                    ),
                )
            )
        ).first()
        if found is not None:
            stored_id, tournament_id, schedule_index = found
            for t, index, _, record in chunk:  # name the item as record_match would
                if record.match_id == stored_id or (t, index) == (tournament_id, schedule_index):
                    _refuse_recorded(session, t, index, record.match_id)
            raise AssertionError("a stored match matched no item")  # pragma: no cover
