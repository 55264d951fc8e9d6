"""Read a scope's finished matches straight into :class:`ResultArrays` (no object per match).

The rating fit of a million matches must not build a million ORM rows or
:class:`~leaderboard.finishing_orders.RatedMatch` objects: ordered queries of whole
numbers only (the matches, their seats), read from the driver's cursor straight into
numpy, one more for the reference participants (tables of two), and numpy does the rest.  The result is the
same as ``ResultArrays.from_matches(store.rated_matches(...))`` (the tests compare
them on SQLite and PostgreSQL).  Revision 0007_fit_index adds covering indexes so
this reads indexes only, never the rows with the replays.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import and_, case, exists, func, literal, true
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from arena.records import reference_participant
from arena.sinks import participant_name
from leaderboard.errors import CorruptDataError
from leaderboard.models import Bot, BotVersion, ExcludedWorker, Match, MatchReference, QueuedMatch, Seat, Tournament
from leaderboard.result_arrays import ResultArrays, SeatStats
from leaderboard.store_core import _find_tournament


def read_results(session: Session, tournament_id: int | None = None, *, table_size: int | None = None,
                 game: str | None = None, ids: bool = True) -> ResultArrays:
    """The counted matches of a scope (one tournament or all; one table size or all; one
    game or all) as arrays, in (tournament, schedule index) order: the matches
    ``Store.rated_matches`` gives, with the same participants, places and deals.
    Run it in one snapshot (``store.snapshot_session()``): its queries are separate statements.
    ``ids``: read every match id too (without, ``keys`` is None: :func:`match_ids` reads
    those of a few rows)."""
    if tournament_id is not None:
        _find_tournament(session, tournament_id)
    scope = _scope(session, tournament_id, table_size, game)
    connection = session.connection()
    variants = sorted(connection.execute(sa_select(col(Match.variant)).where(scope).distinct()).scalars())
    variant = case({v: literal(i) for i, v in enumerate(variants)}, value=col(Match.variant), else_=literal(-1)) \
        if len(variants) > 1 else literal(0)
    # the matches and their seats in schedule order, whole numbers only, straight from the
    # driver's cursor into numpy (no Python object per match beyond the driver's own tuple)
    header = _rows(connection, sa_select(col(Match.tournament_id), col(Match.schedule_index), variant,
                                         col(Match.table_size), col(Match.seed))
                   .where(scope).order_by(col(Match.tournament_id), col(Match.schedule_index)), len(MATCH_FIELDS))
    forfeited = case((col(Seat.forfeited), literal(1)), else_=literal(0))
    seat_numbers = _rows(connection, sa_select(
        col(Match.tournament_id), col(Match.schedule_index), col(Seat.bot_version_id), col(Seat.place),
        col(Seat.score), forfeited, col(Seat.fault_count))
        .select_from(Match).join(Seat, col(Seat.match_id) == col(Match.id))
        .where(scope).order_by(col(Match.tournament_id), col(Match.schedule_index)), len(SEAT_FIELDS))
    references = connection.execute(
        sa_select(col(Match.tournament_id), col(Match.schedule_index), col(MatchReference.name),
                  col(MatchReference.place), col(MatchReference.score))
        .join(Match, col(MatchReference.match_id) == col(Match.id)).where(scope)
    ).all()
    versions = connection.execute(
        sa_select(col(BotVersion.id), col(Bot.name), col(BotVersion.number))
        .join(Bot, col(BotVersion.bot_id) == col(Bot.id))
    ).all()
    arrays = _arrays(header, seat_numbers,
                     references, {int(i): participant_name(name, int(number)) for i, name, number in versions},
                     variants)
    if ids:
        arrays = dataclasses.replace(arrays, keys=np.array(match_ids(session, arrays, None), dtype=object))
    return arrays


def match_ids(session: Session, results: ResultArrays, rows: Sequence[int] | None) -> list[str]:
    """The ids of the matches at ``rows`` of ``results`` (all of them for None), in that order
    (by tournament and schedule index: the unique index of a match's place in its schedule)."""
    tournament, schedule = results.tournament, results.schedule
    rows = range(results.matches) if rows is None else list(rows)
    wanted: dict[int, set[int]] = {}
    for r in rows:
        wanted.setdefault(int(tournament[r]), set()).add(int(schedule[r]))
    found: dict[tuple[int, int], str] = {}
    query = sa_select(col(Match.tournament_id), col(Match.schedule_index), col(Match.id))
    for t, indexes in wanted.items():
        if len(indexes) == int(np.count_nonzero(tournament == t)):  # all of the tournament's in the scope
            found.update({(ti, i): m for ti, i, m in session.connection().execute(
                query.where(col(Match.tournament_id) == t))})
            continue
        ordered = sorted(indexes)
        for lo in range(0, len(ordered), 500):
            found.update({(ti, i): m for ti, i, m in session.connection().execute(
                query.where(col(Match.tournament_id) == t, col(Match.schedule_index).in_(ordered[lo:lo + 500])))})
    return [found[(int(tournament[r]), int(schedule[r]))] for r in rows]


#: The numbers read per match and per seat, in order.
MATCH_FIELDS = ("tournament_id", "schedule_index", "variant", "table_size", "seed")
SEAT_FIELDS = ("tournament_id", "schedule_index", "bot_version_id", "place", "score", "forfeited", "fault_count")


def _rows(connection: Any, query: Any, width: int) -> np.ndarray:
    """The rows of ``query`` (whole numbers, ``width`` columns) as an int64 array, read from
    the DBAPI cursor itself: SQLAlchemy's row objects would cost more than the rest of the fit."""
    compiled = query.compile(dialect=connection.dialect)
    params = compiled.construct_params()
    args = tuple(params[name] for name in compiled.positiontup) if compiled.positional else params
    cursor = connection.exec_driver_sql(compiled.string, args).cursor
    return np.fromiter(cursor, dtype=np.dtype((np.int64, width))).reshape(-1, width)


def _scope(session: Session, tournament_id: int | None, table_size: int | None, game: str | None) -> Any:
    """``store._results_scope``, without the per-match exclusion test when no worker is excluded
    in the scope (the common case: the test costs a probe per match)."""
    conditions = []
    if tournament_id is not None:
        conditions.append(col(Match.tournament_id) == tournament_id)
    if table_size is not None:
        conditions.append(col(Match.table_size) == table_size)
    if game is not None:
        conditions.append(col(Match.tournament_id).in_(sa_select(col(Tournament.id)).where(col(Tournament.game) == game)))
    excluded = sa_select(func.count()).select_from(ExcludedWorker)
    if tournament_id is not None:
        excluded = excluded.where(col(ExcludedWorker.tournament_id) == tournament_id)
    if session.connection().execute(excluded).scalar_one():
        conditions.append(~exists().where(
            col(QueuedMatch.match_id) == col(Match.id),
            col(ExcludedWorker.tournament_id) == col(QueuedMatch.tournament_id),
            col(ExcludedWorker.worker) == col(QueuedMatch.worker),
        ))
    return and_(true(), *conditions)


def _arrays(header: np.ndarray, seats: np.ndarray, references: list[Any], version_names: dict[int, str],
            variants: list[str]) -> ResultArrays:
    matches = len(header)
    if not matches:
        empty = np.zeros(0, dtype=np.int64)
        return ResultArrays(names=(), keys=None, tournament=empty, schedule=empty, cluster=empty, clusters=0,
                            start=np.zeros(1, dtype=np.int64), who=empty, place=empty,
                            seat_stats=SeatStats(score=empty, forfeited=empty, faults=empty))
    tournament, schedule, codes, size_of, seed_of = (np.ascontiguousarray(header[:, i]) for i in range(5))
    row_code = _code(tournament, schedule, tournament, schedule)
    if matches and np.any(np.diff(row_code) <= 0):
        raise CorruptDataError("two stored matches share a tournament and schedule index")
    seat_code = _code(seats[:, 0], seats[:, 1], tournament, schedule)
    seat_match = np.searchsorted(row_code, seat_code) if matches else np.zeros(0, np.int64)
    if len(seat_match) and (seat_match.max() >= matches or np.any(row_code[seat_match] != seat_code)):
        raise CorruptDataError("a seat of a stored match was read without its match")
    seat_version, seat_place, seat_score, seat_forfeited, seat_faults = (seats[:, i] for i in range(2, 7))
    if references:
        r_tournament, r_index, r_name, r_place, r_score = zip(*references)
        ref_code = _code(np.asarray(r_tournament, np.int64), np.asarray(r_index, np.int64), tournament, schedule)
        ref_match = np.searchsorted(row_code, ref_code)
        if ref_match.max() >= matches or np.any(row_code[ref_match] != ref_code):
            raise CorruptDataError("a reference participant of a stored match was read without its match")
        ref_label = [reference_participant(n) for n in r_name]
        ref_place = np.asarray(r_place, dtype=np.int64)
        ref_score = np.asarray(r_score, dtype=np.int64)
    else:
        ref_match, ref_label = np.zeros(0, np.int64), []
        ref_place = ref_score = np.zeros(0, np.int64)
    # participants: the versions that played and the reference participants, sorted
    used_versions = np.unique(seat_version)
    labels: dict[Hashable, None] = {version_names[int(v)]: None for v in used_versions}
    labels.update(dict.fromkeys(ref_label))
    names = tuple(sorted(labels))  # type: ignore[type-var]
    rank = {name: i for i, name in enumerate(names)}
    version_rank = np.zeros(int(used_versions.max()) + 1 if len(used_versions) else 1, dtype=np.int64)
    for v in used_versions.tolist():
        version_rank[v] = rank[version_names[v]]
    who = np.concatenate([version_rank[seat_version], np.asarray([rank[n] for n in ref_label], dtype=np.int64)])
    place = np.concatenate([seat_place, ref_place])
    match = np.concatenate([seat_match, ref_match]).astype(np.int64)
    cells = np.lexsort((who, match))
    width = np.bincount(match, minlength=matches)
    # deals: "VARIANT/SIZE/SEED", numbered in sorted order of those keys
    cluster, clusters = _deals(codes, size_of, seed_of, variants or [""])
    nothing = np.zeros(len(ref_label), dtype=np.int64)
    return ResultArrays(
        names=names, keys=None, tournament=tournament, schedule=schedule, cluster=cluster, clusters=clusters,
        start=np.concatenate([[0], np.cumsum(width)]).astype(np.int64), who=who[cells], place=place[cells],
        seat_stats=SeatStats(score=np.concatenate([seat_score, ref_score])[cells],
                             forfeited=np.concatenate([seat_forfeited, nothing])[cells],
                             faults=np.concatenate([seat_faults, nothing])[cells]),
    )


def _deals(codes: np.ndarray, size_of: np.ndarray, seed_of: np.ndarray, variants: list[str]) -> tuple[np.ndarray, int]:
    """Each match's deal number, deals numbered in sorted order of their keys ``VARIANT/SIZE/SEED``."""
    matches = len(codes)
    if not matches:
        return np.zeros(0, np.int64), 0
    by_deal = np.lexsort((seed_of, size_of, codes))
    first = np.ones(matches, dtype=bool)
    first[1:] = ((np.diff(codes[by_deal]) != 0) | (np.diff(size_of[by_deal]) != 0)
                 | (np.diff(seed_of[by_deal]) != 0))
    inverse = np.empty(matches, dtype=np.int64)
    inverse[by_deal] = np.cumsum(first) - 1
    heads = by_deal[first]
    deal_keys = [f"{variants[v]}/{s}/{seed}" for v, s, seed in
                 zip(codes[heads].tolist(), size_of[heads].tolist(), seed_of[heads].tolist())]
    rank = np.empty(len(deal_keys), dtype=np.int64)
    rank[np.asarray(sorted(range(len(deal_keys)), key=deal_keys.__getitem__), dtype=np.int64)] = \
        np.arange(len(deal_keys))
    return rank[inverse], len(deal_keys)


def _code(tournament: np.ndarray, index: np.ndarray, all_tournaments: np.ndarray, all_indexes: np.ndarray) -> np.ndarray:
    """One sortable int per (tournament, schedule index), in the matches' order."""
    low = int(all_indexes.min()) if len(all_indexes) else 0
    span = int(all_indexes.max()) - low + 1 if len(all_indexes) else 1
    return (tournament - int(all_tournaments.min())) * span + (index - low)
