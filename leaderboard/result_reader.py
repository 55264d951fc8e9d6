"""Read a scope's finished matches straight into :class:`ResultArrays` (no object per match).

The rating fit of a million matches must not build a million ORM rows or
:class:`~leaderboard.finishing_orders.RatedMatch` objects: one query returns a row per
match with its seats aggregated into one string (``VERSION,PLACE;...``), one more the
reference participants (tables of two), and numpy does the rest.  The result is the
same as ``ResultArrays.from_matches(store.rated_matches(...))`` (the tests compare
them on SQLite and PostgreSQL).  Revision 0007_fit_index adds covering indexes so
this reads indexes only, never the rows with the replays.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
from sqlalchemy import String, and_, case, cast, exists, func, literal, true
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from arena.records import reference_participant
from arena.sinks import participant_name
from leaderboard.models import Bot, BotVersion, ExcludedWorker, Match, MatchReference, QueuedMatch, Seat, Tournament
from leaderboard.result_arrays import ResultArrays, SeatStats

#: What the seats' aggregate string holds per seat, in order.
SEAT_FIELDS = ("bot_version_id", "place", "score", "forfeited", "fault_count")
from leaderboard.store_core import _find_tournament


def read_results(session: Session, tournament_id: int | None = None, *, table_size: int | None = None,
                 game: str | None = None) -> ResultArrays:
    """The counted matches of a scope (one tournament or all; one table size or all; one
    game or all) as arrays, in (tournament, schedule index) order: the matches
    ``Store.rated_matches`` gives, with the same participants, places and deals.
    Run it in one read transaction (``store.read_session()``) for a consistent snapshot."""
    if tournament_id is not None:
        _find_tournament(session, tournament_id)
    scope = _scope(session, tournament_id, table_size, game)
    forfeited = case((col(Seat.forfeited), literal(1)), else_=literal(0))
    fields = [col(Seat.bot_version_id), col(Seat.place), col(Seat.score), forfeited, col(Seat.fault_count)]
    cell = cast(fields[0], String)
    for field in fields[1:]:
        cell = cell + literal(",") + cast(field, String)
    seats = (sa_select(func.aggregate_strings(cell, ";"))
             .where(col(Seat.match_id) == col(Match.id)).scalar_subquery())
    rows = session.connection().execute(
        sa_select(col(Match.id), col(Match.tournament_id), col(Match.schedule_index), col(Match.variant),
                  col(Match.table_size), col(Match.seed), seats)
        .where(scope).order_by(col(Match.tournament_id), col(Match.schedule_index))
    ).all()
    references = session.connection().execute(
        sa_select(col(Match.tournament_id), col(Match.schedule_index), col(MatchReference.name),
                  col(MatchReference.place), col(MatchReference.score))
        .join(Match, col(MatchReference.match_id) == col(Match.id)).where(scope)
    ).all()
    versions = session.connection().execute(
        sa_select(col(BotVersion.id), col(Bot.name), col(BotVersion.number))
        .join(Bot, col(BotVersion.bot_id) == col(Bot.id))
    ).all()
    return _arrays(rows, references, {int(i): participant_name(name, int(number)) for i, name, number in versions})


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


def _arrays(rows: list[Any], references: list[Any], version_names: dict[int, str]) -> ResultArrays:
    matches = len(rows)
    keys = np.empty(matches, dtype=object)
    if not matches:
        return ResultArrays(names=(), keys=keys, tournament=np.zeros(0, np.int64), cluster=np.zeros(0, np.int64),
                            clusters=0, start=np.zeros(1, np.int64), who=np.zeros(0, np.int64),
                            place=np.zeros(0, np.int64))
    ids, tournaments, indexes, variants, sizes, seeds, seat_text = zip(*rows)
    keys[:] = ids
    tournament = np.asarray(tournaments, dtype=np.int64)
    schedule = np.asarray(indexes, dtype=np.int64)
    # seats: "VERSION,PLACE,SCORE,FORFEITED,FAULTS;..." per match
    texts = [t or "" for t in seat_text]
    seat_count = np.fromiter((t.count(";") + 1 if t else 0 for t in texts), dtype=np.int64, count=matches)
    joined = ";".join(t for t in texts if t)
    numbers = (np.array(joined.replace(";", ",").split(","), dtype=np.int64) if joined
               else np.zeros(0, np.int64)).reshape(-1, len(SEAT_FIELDS))
    seat_version, seat_place, seat_score, seat_forfeited, seat_faults = numbers.T
    seat_match = np.repeat(np.arange(matches, dtype=np.int64), seat_count)
    # reference participants: matched to their match row by (tournament, schedule index)
    if references:
        r_tournament, r_index, r_name, r_place, r_score = zip(*references)
        row_code = _code(tournament, schedule, tournament, schedule)
        ref_match = np.searchsorted(row_code, _code(np.asarray(r_tournament, np.int64), np.asarray(r_index, np.int64),
                                                     tournament, schedule))
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
    match = np.concatenate([seat_match, ref_match])
    order = np.lexsort((who, match))
    width = np.bincount(match, minlength=matches)
    # deals: "VARIANT/SIZE/SEED", numbered in sorted order of those keys
    variant_code: dict[str, int] = {}
    codes = np.fromiter((variant_code.setdefault(v, len(variant_code)) for v in variants), dtype=np.int64,
                        count=matches)
    size_of, seed_of = np.asarray(sizes, dtype=np.int64), np.asarray(seeds, dtype=np.int64)
    by_deal = np.lexsort((seed_of, size_of, codes))
    first = np.ones(matches, dtype=bool)
    first[1:] = ((np.diff(codes[by_deal]) != 0) | (np.diff(size_of[by_deal]) != 0)
                 | (np.diff(seed_of[by_deal]) != 0))
    deal_of_sorted = np.cumsum(first) - 1
    inverse = np.empty(matches, dtype=np.int64)
    inverse[by_deal] = deal_of_sorted
    heads = by_deal[first]
    variant_of = list(variant_code)
    deal_keys = [f"{variant_of[v]}/{s}/{seed}" for v, s, seed in
                 zip(codes[heads].tolist(), size_of[heads].tolist(), seed_of[heads].tolist())]
    deal_rank = np.empty(len(deal_keys), dtype=np.int64)
    deal_rank[np.asarray(sorted(range(len(deal_keys)), key=deal_keys.__getitem__), dtype=np.int64)] = \
        np.arange(len(deal_keys))
    nothing = np.zeros(len(ref_label), dtype=np.int64)
    return ResultArrays(
        names=names, keys=keys, tournament=tournament, cluster=deal_rank[inverse],
        clusters=len(deal_keys), start=np.concatenate([[0], np.cumsum(width)]).astype(np.int64),
        who=who[order], place=place[order],
        seat_stats=SeatStats(score=np.concatenate([seat_score, ref_score])[order],
                             forfeited=np.concatenate([seat_forfeited, nothing])[order],
                             faults=np.concatenate([seat_faults, nothing])[order]),
    )


def _code(tournament: np.ndarray, index: np.ndarray, all_tournaments: np.ndarray, all_indexes: np.ndarray) -> np.ndarray:
    """One sortable int per (tournament, schedule index), in the matches' order."""
    low = int(all_indexes.min()) if len(all_indexes) else 0
    span = int(all_indexes.max()) - low + 1 if len(all_indexes) else 1
    return (tournament - int(all_tournaments.min())) * span + (index - low)
