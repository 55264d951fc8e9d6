"""Read a scope's finished matches straight into :class:`ResultArrays` (no object per match).

The rating fit of a million matches must not build a million ORM rows or
:class:`~leaderboard.finishing_orders.RatedMatch` objects: ordered queries of whole
numbers only (the matches, their seats), read chunk by chunk from the driver straight into
narrow numpy arrays (PostgreSQL's binary ``COPY``, SQLite's cursor), one more for the
reference participants (tables of two), and numpy does the rest: a million matches take a few
hundred MB, not the GB a whole result held at once costs.  The result is the
same as ``ResultArrays.from_matches(store.rated_matches(...))`` (the tests compare
them on SQLite and PostgreSQL).  Revision 0007_fit_index adds covering indexes so
this reads indexes only, never the rows with the replays.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Hashable, Iterator, Sequence
from itertools import islice
from typing import Any

import numpy as np
from sqlalchemy import BigInteger, Integer, and_, case, cast, exists, func, literal, true
from sqlalchemy import select as sa_select
from sqlmodel import Session, col

from arena.records import reference_participant
from arena.sinks import participant_name
from leaderboard.errors import CorruptDataError
from leaderboard.models import Bot, BotVersion, ExcludedWorker, Match, MatchReference, QueuedMatch, Seat, Tournament
from leaderboard.result_arrays import ParticipantStats, ResultArrays
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
    # the matches in schedule order, then their seats, whole numbers only, chunk by chunk
    # from the driver straight into numpy (no Python object per match)
    header = _read(connection, sa_select(*_typed(
        (col(Match.tournament_id), col(Match.schedule_index), variant, col(Match.table_size), col(Match.seed)),
        MATCH_COLUMNS)).where(scope).order_by(col(Match.tournament_id), col(Match.schedule_index)), MATCH_COLUMNS)
    tournament, schedule, _, size_of, _ = header
    row_code = _code(tournament, schedule, tournament, schedule)
    if len(row_code) and np.any(np.diff(row_code) <= 0):
        raise CorruptDataError("two stored matches share a tournament and schedule index")

    versions = connection.execute(
        sa_select(col(BotVersion.id), col(Bot.name), col(BotVersion.number))
        .join(Bot, col(BotVersion.bot_id) == col(Bot.id))
    ).all()
    stats = _VersionStats(max((int(v[0]) for v in versions), default=0) + 1)

    def seat_rows(chunk: list[np.ndarray]) -> list[np.ndarray]:
        """A chunk of seats: (match row, version, place) kept, its stats summed per version."""
        tournament_of, index_of, version, place, score, forfeits, faults = chunk
        stats.add(version, score, forfeits, faults)
        return [_rows_of(_code(tournament_of, index_of, tournament, schedule), row_code, "a seat"), version, place]

    # in any order (the cells are sorted by match below): an ORDER BY would make the database
    # sort millions of rows, slower than the rest of the read
    forfeited = case((col(Seat.forfeited), literal(1)), else_=literal(0))
    seats = _read(connection, sa_select(*_typed(
        (col(Match.tournament_id), col(Match.schedule_index), col(Seat.bot_version_id), col(Seat.place),
         col(Seat.score), forfeited, col(Seat.fault_count)), SEAT_COLUMNS))
        .select_from(Match).join(Seat, col(Seat.match_id) == col(Match.id)).where(scope),
        SEAT_COLUMNS, capacity=int(size_of.sum(dtype=np.int64)), convert=seat_rows, kept=SEAT_KEPT)
    references = connection.execute(
        sa_select(col(Match.tournament_id), col(Match.schedule_index), col(MatchReference.name),
                  col(MatchReference.place), col(MatchReference.score))
        .join(Match, col(MatchReference.match_id) == col(Match.id)).where(scope)
    ).all()
    arrays = _arrays(header, seats, row_code, references,
                     {int(i): participant_name(name, int(number)) for i, name, number in versions}, variants, stats)
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


#: The numbers read per match, in order: (name, SQL type on the wire, dtype kept).
MATCH_COLUMNS = (("tournament_id", Integer, np.int32), ("schedule_index", Integer, np.int32),
                 ("variant", Integer, np.int32), ("table_size", Integer, np.int32), ("seed", BigInteger, np.int64))
#: ... and per seat (the values as they come, int64 from SQLite) ...
SEAT_COLUMNS = (("tournament_id", Integer, np.int64), ("schedule_index", Integer, np.int64),
                ("bot_version_id", Integer, np.int64), ("place", Integer, np.int64), ("score", Integer, np.int64),
                ("forfeited", Integer, np.int64), ("fault_count", Integer, np.int64))
#: ... of which a seat keeps its match row, version and place (its score, forfeit and faults are
#: summed per version as they are read: only the bots' statistics use them)
SEAT_KEPT = (("match row", np.int32), ("bot_version_id", np.int32), ("place", np.int32))
#: Rows per chunk of a read: its transient memory is a few MB whatever the size of the scope.
READ_CHUNK = 65_536
_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
_COPY_TRAILER = b"\xff\xff"


def _typed(expressions: Sequence[Any], columns: tuple[tuple[str, Any, Any], ...]) -> list[Any]:
    """The expressions cast to their columns' SQL types (the binary COPY's field widths)."""
    return [cast(e, sql_type).label(name) for e, (name, sql_type, _) in zip(expressions, columns)]


def _read(connection: Any, query: Any, columns: tuple[tuple[str, Any, Any], ...], *, capacity: int = 0,
          convert: Callable[[list[np.ndarray]], list[np.ndarray]] | None = None,
          kept: tuple[tuple[str, Any], ...] | None = None) -> list[np.ndarray]:
    """The rows of ``query`` (whole numbers, never NULL, typed as ``columns``) as one array
    per column, kept in the columns' dtypes and read chunk by chunk from the driver:
    PostgreSQL's binary COPY, SQLite's cursor (SQLAlchemy's row objects would cost more than
    the rest of the fit, and a whole result held at once several times its arrays).
    ``convert`` maps each chunk's columns to those ``kept`` (name, dtype);
    ``capacity``: the rows expected (the arrays grow past it if need be)."""
    compiled = query.compile(dialect=connection.dialect)
    params = compiled.construct_params()
    args = tuple(params[name] for name in compiled.positiontup) if compiled.positional else params
    if connection.dialect.driver == "psycopg":
        chunks = _copy_chunks(connection, compiled.string, args, [t for _, t, _ in columns])
    else:
        chunks = _cursor_chunks(connection, compiled.string, args, len(columns))
    spec = kept if kept is not None else tuple((name, dtype) for name, _, dtype in columns)
    arrays = _Columns([name for name, _ in spec], [np.dtype(t) for _, t in spec], capacity)
    # closed on any error here too: a COPY left open holds the connection's lock, and the
    # session's rollback would wait for it forever
    with contextlib.closing(chunks):
        for chunk in chunks:
            arrays.add(convert(chunk) if convert is not None else chunk)
    return arrays.finish()


def _cursor_chunks(connection: Any, statement: str, args: Any, width: int) -> Iterator[list[np.ndarray]]:
    """The rows from the DBAPI cursor, :data:`READ_CHUNK` at a time, one int64 array per column."""
    cursor = connection.exec_driver_sql(statement, args).cursor
    try:
        while True:
            block = np.fromiter(islice(cursor, READ_CHUNK), dtype=np.dtype((np.int64, width)))
            if not len(block):
                return
            yield [block[:, i] for i in range(width)]
    finally:
        cursor.close()


def _copy_chunks(connection: Any, statement: str, args: Any, types: list[Any]) -> Iterator[list[np.ndarray]]:
    """The rows of a PostgreSQL query through ``COPY ... TO STDOUT (FORMAT binary)``, parsed by
    numpy: every field is a fixed-width big-endian integer (``types``: Integer or BigInteger,
    never NULL), so a tuple is a fixed-size record.  Streamed during the statement (the
    transaction is never idle meanwhile) in chunks of about :data:`READ_CHUNK` rows."""
    record = np.dtype([("fields", ">i2")] + [
        part for i, t in enumerate(types)
        for part in ((f"length{i}", ">i4"), (f"value{i}", ">i8" if t is BigInteger else ">i4"))])
    sizes = [8 if t is BigInteger else 4 for t in types]
    buffer = bytearray()
    started = False

    def records(final: bool) -> list[np.ndarray] | None:
        nonlocal buffer, started
        if not started:
            if len(buffer) < 19:
                if final:
                    raise CorruptDataError("PostgreSQL's binary COPY ended before its header")
                return None
            if buffer[:11] != _COPY_SIGNATURE:
                raise CorruptDataError("PostgreSQL's binary COPY did not start with its signature")
            skip = 19 + int.from_bytes(buffer[15:19], "big")
            if len(buffer) < skip:
                return None
            buffer, started = buffer[skip:], True
        count = len(buffer) // record.itemsize
        rest = bytearray(buffer[count * record.itemsize:])
        if final and rest != _COPY_TRAILER:
            raise CorruptDataError("PostgreSQL's binary COPY ended with an incomplete row (a NULL number?)")
        rows = np.frombuffer(buffer, dtype=record, count=count)
        if np.any(rows["fields"] != len(types)) or any(
                np.any(rows[f"length{i}"] != size) for i, size in enumerate(sizes)):
            raise CorruptDataError("PostgreSQL's binary COPY sent a row of unexpected shape (a NULL number?)")
        columns = [rows[f"value{i}"].astype(np.int64 if size == 8 else np.int32) for i, size in enumerate(sizes)]
        del rows  # (the buffer can be replaced once no array looks into it)
        buffer = rest
        return columns

    wanted = READ_CHUNK * record.itemsize
    raw = connection.connection.driver_connection
    with raw.cursor() as cursor, cursor.copy(f"COPY ({statement}) TO STDOUT (FORMAT binary)", args) as copy:
        # one message per row: appended to a bytearray (holding the driver's buffers costs 3x more)
        for data in copy:
            buffer += data
            if len(buffer) >= wanted:
                chunk = records(final=False)
                if chunk is not None and len(chunk[0]):
                    yield chunk
    chunk = records(final=True)
    if chunk is not None and len(chunk[0]):
        yield chunk


class _Columns:
    """Columns of whole numbers filled chunk by chunk into preallocated arrays of their dtypes
    (grown if more rows come than expected); a value that does not fit its dtype is an error."""

    def __init__(self, names: list[str], dtypes: list[np.dtype], capacity: int) -> None:
        self.names = names
        self.arrays = [np.empty(max(capacity, 0), dtype=t) for t in dtypes]
        self.used = 0

    def add(self, chunk: list[np.ndarray]) -> None:
        n = len(chunk[0])
        if self.used + n > len(self.arrays[0]):
            grown = max(self.used + n, len(self.arrays[0]) * 3 // 2, READ_CHUNK)
            self.arrays = [np.concatenate([a[:self.used], np.empty(grown - self.used, a.dtype)]) for a in self.arrays]
        for name, array, values in zip(self.names, self.arrays, chunk):
            if values.dtype != array.dtype and len(values):
                limits = np.iinfo(array.dtype)
                if values.min() < limits.min or values.max() > limits.max:
                    raise CorruptDataError(f"a stored {name} is out of range: {int(values.min())}..{int(values.max())}")
            array[self.used:self.used + n] = values
        self.used += n

    def finish(self) -> list[np.ndarray]:
        """The columns, as long as the rows read (a copy only when fewer came than expected)."""
        arrays, self.arrays = self.arrays, []
        return [a if len(a) == self.used else a[:self.used].copy() for a in arrays]


class _VersionStats:
    """The seats' scores, forfeits and faults summed per bot version as the chunks come (whole
    numbers: exact in float64, whatever the order)."""

    def __init__(self, versions: int) -> None:
        self.score = np.zeros(versions)
        self.forfeits = np.zeros(versions)
        self.faults = np.zeros(versions)

    def add(self, version: np.ndarray, score: np.ndarray, forfeits: np.ndarray, faults: np.ndarray) -> None:
        if len(version) and (version.min() < 0 or version.max() >= len(self.score)):
            raise CorruptDataError("a seat of a stored match names a bot version that is not stored")
        n = len(self.score)
        self.score += np.bincount(version, score.astype(np.float64), minlength=n)
        self.forfeits += np.bincount(version, forfeits.astype(np.float64), minlength=n)
        self.faults += np.bincount(version, faults.astype(np.float64), minlength=n)


def _rows_of(codes: np.ndarray, row_code: np.ndarray, what: str) -> np.ndarray:
    """The match row of each ``(tournament, schedule index)`` code; an error for one not read."""
    rows = np.searchsorted(row_code, codes)
    if len(rows) and (rows.max() >= len(row_code) or np.any(row_code[rows] != codes)):
        raise CorruptDataError(f"{what} of a stored match was read without its match")
    return rows


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


def _arrays(header: list[np.ndarray], seats: list[np.ndarray], row_code: np.ndarray, references: list[Any],
            version_names: dict[int, str], variants: list[str], stats: _VersionStats) -> ResultArrays:
    """The arrays of a scope from the columns read (``seats`` is emptied: its columns are freed
    as soon as they are used, the peak of the read being the cells sorted by match) and the
    versions' sums of the bot statistics."""
    tournament, schedule, codes, size_of, seed_of = header
    matches = len(tournament)
    if not matches:
        empty = np.zeros(0, dtype=np.int64)
        return ResultArrays(names=(), keys=None, tournament=empty, schedule=empty, cluster=empty, clusters=0,
                            start=np.zeros(1, dtype=np.int64), who=empty, place=empty,
                            stats=ParticipantStats(score=np.zeros(0), forfeits=np.zeros(0), faults=np.zeros(0)))
    seat_match, seat_version, seat_place = seats
    seats.clear()
    if references:
        r_tournament, r_index, r_name, r_place, _ = zip(*references)
        ref_match = _rows_of(_code(np.asarray(r_tournament, np.int64), np.asarray(r_index, np.int64),
                                   tournament, schedule), row_code, "a reference participant").astype(np.int32)
        ref_label = [reference_participant(n) for n in r_name]
        ref_place = np.asarray(r_place, dtype=np.int32)
    else:
        ref_match, ref_label = np.zeros(0, np.int32), []
        ref_place = np.zeros(0, np.int32)
    # participants: the versions that played and the reference participants, sorted
    used_versions = np.unique(seat_version)
    labels: dict[Hashable, None] = {version_names[int(v)]: None for v in used_versions}
    labels.update(dict.fromkeys(ref_label))
    names = tuple(sorted(labels))  # type: ignore[type-var]
    rank = {name: i for i, name in enumerate(names)}
    version_rank = np.zeros(int(used_versions.max()) + 1 if len(used_versions) else 1, dtype=np.int32)
    for v in used_versions.tolist():
        version_rank[v] = rank[version_names[v]]
    who = np.concatenate([version_rank[seat_version], np.asarray([rank[n] for n in ref_label], dtype=np.int32)])
    del seat_version
    match = np.concatenate([seat_match, ref_match])
    del seat_match
    # the cells sorted by match, then participant ((match, participant) is unique: any sort gives this order)
    key = match.astype(np.int64) * len(names) + who
    cells = np.argsort(key)
    del key
    width = np.bincount(match, minlength=matches)
    del match
    who = who[cells]
    place = np.concatenate([seat_place, ref_place])[cells]
    del seat_place, cells
    # the versions' sums, by participant (the reference participants' stay 0: no bot statistics)
    totals = [np.zeros(len(names)) for _ in range(3)]
    for v in used_versions.tolist():
        for total, by_version in zip(totals, (stats.score, stats.forfeits, stats.faults)):
            total[version_rank[v]] = by_version[v]
    # deals: "VARIANT/SIZE/SEED", numbered in sorted order of those keys
    cluster, clusters = _deals(codes, size_of, seed_of, variants or [""])
    return ResultArrays(
        names=names, keys=None, tournament=tournament, schedule=schedule, cluster=cluster, clusters=clusters,
        start=np.concatenate([[0], np.cumsum(width)]).astype(np.int64), who=who, place=place,
        stats=ParticipantStats(score=totals[0], forfeits=totals[1], faults=totals[2]),
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
    first = int(all_tournaments.min()) if len(all_tournaments) else 0
    return (tournament.astype(np.int64) - first) * span + (index.astype(np.int64) - low)
