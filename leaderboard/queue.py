"""The match queue: a tournament's schedule as rows that workers claim with a lease.

Planning and playing are separate.  :meth:`MatchQueue.plan` stores every scheduled
match as a row (``planned``).  A worker (``arena worker``, or the local one of
``arena tournament run``) :meth:`~MatchQueue.claim`\\ s the next planned match with a
lease (its worker name, a token, an expiry), :meth:`~MatchQueue.renew`\\ s it while it
plays, and :meth:`~MatchQueue.record`\\ s the result and replay in ONE transaction that
first checks, with the row locked, that the lease is still its own.  Delivery is at
least once (a match whose worker vanished is played again once its lease expires),
results are stored exactly once (a late result, whose lease was taken over, is
refused and logged as a ``late_result`` event).

Claims lock the row with ``SELECT ... FOR UPDATE SKIP LOCKED`` on PostgreSQL, so
workers on many machines never wait for each other's rows; on SQLite a write
transaction (``BEGIN IMMEDIATE``) serialises the few local workers one file allows.
Times come from the database server's clock on PostgreSQL (``now()``), so machines
whose clocks differ agree on when a lease expires.

A claimed row of a worker on this machine (same host name) whose process is gone is
claimable at once, without waiting for its lease: ``arena tournament resume`` after a
``kill -9`` goes on immediately.

Only this module (with :mod:`leaderboard.store`) knows these tables' SQL; the
tournament runner talks to it through the small interface below.
"""

from __future__ import annotations

import os
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import and_, exists, func, or_, update
from sqlalchemy import select as sa_select
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import Session, col, select

from arena.records import MatchRecord
from leaderboard.database import writer
from leaderboard.errors import AlreadyRecorded, StoreError
from leaderboard.models import ExcludedWorker, QueuedMatch, Tournament, WorkerEvent
from arena.sinks import DEFAULT_LEASE_S, Lease, RecordOutcome, WorkerId, WorkLeft
from leaderboard.rows import TournamentStatus
from leaderboard.store import Store, insert_match
from leaderboard.store_core import _find_tournament

__all__ = ["DEFAULT_LEASE_S", "DatabaseUnavailable", "Lease", "MatchQueue", "QueueProgress", "RecordOutcome",
           "WorkLeft", "WorkerId", "WorkerProgress"]

PLANNED, CLAIMED, DONE, FAILED = "planned", "claimed", "done", "failed"

T = TypeVar("T")


class DatabaseUnavailable(StoreError):
    """The database cannot be reached right now (restarting, network cut): try again later."""


@dataclass(frozen=True)
class WorkerProgress:
    worker: str
    claimed: int  # holds now
    done: int
    failed: int
    late: int  # results refused because the lease had been taken over
    matches_per_minute: float | None
    last_at: datetime | None
    excluded: bool

    def to_json(self) -> dict[str, Any]:
        return {"worker": self.worker, "claimed": self.claimed, "done": self.done, "failed": self.failed,
                "late": self.late, "matches_per_minute": self.matches_per_minute,
                "last_at": None if self.last_at is None else self.last_at.isoformat(), "excluded": self.excluded}


@dataclass(frozen=True)
class QueueProgress:
    tournament_id: int
    planned: int
    claimed: int
    done: int
    failed: int
    workers: tuple[WorkerProgress, ...]
    matches_per_minute: float | None  # of the workers active in the last RATE_WINDOW
    eta_seconds: float | None

    @property
    def total(self) -> int:
        return self.planned + self.claimed + self.done + self.failed

    def to_json(self) -> dict[str, Any]:
        return {"tournament_id": self.tournament_id, "total": self.total, "planned": self.planned,
                "claimed": self.claimed, "done": self.done, "failed": self.failed,
                "matches_per_minute": self.matches_per_minute, "eta_seconds": self.eta_seconds,
                "workers": [w.to_json() for w in self.workers]}


#: A worker's rate is measured on its matches finished in this window before its newest one.
RATE_WINDOW = timedelta(minutes=15)
#: A worker that finished nothing for this long counts no more towards the ETA.
ACTIVE_WINDOW = timedelta(minutes=5)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class MatchQueue:
    """The queue of one store, as seen by one worker (``worker``; None to plan and inspect only)."""

    def __init__(self, store: Store, worker: WorkerId | None = None, *, lease_s: float = DEFAULT_LEASE_S) -> None:
        if lease_s <= 0:
            raise ValueError(f"a lease must last more than 0 s, got {lease_s}")
        self._engine = store.engine
        self._writer = writer(store.engine)
        self._postgres = store.engine.dialect.name == "postgresql"
        self.worker = worker
        self.lease = timedelta(seconds=lease_s)
        self._running: set[int] = set()  # tournaments this queue marked running

    # -- transactions ------------------------------------------------------------

    @contextmanager
    def _write(self, engine: Any = None) -> Iterator[Session]:
        """One transaction (BEGIN IMMEDIATE on SQLite unless ``engine`` says otherwise);
        a lost server raises :class:`DatabaseUnavailable`."""
        try:
            with Session(engine or self._writer, expire_on_commit=False) as session, session.begin():
                yield session
        except DBAPIError as exc:
            if exc.connection_invalidated or _unreachable(exc):
                raise DatabaseUnavailable(f"the database cannot be reached: {exc.orig}") from exc
            raise

    def _read(self) -> Any:
        return self._write(self._engine)

    def _now(self, session: Session) -> Any:
        """The time to compare and store leases with: the server's ``now()`` on PostgreSQL (one
        clock for every machine, and no round trip to read it), this machine's on SQLite."""
        return func.now() if self._postgres else datetime.now(UTC)

    def _now_value(self, session: Session) -> datetime:
        if self._postgres:
            value = session.exec(sa_select(func.now())).scalar_one()  # type: ignore[call-overload]
            return value.astimezone(UTC)
        return datetime.now(UTC)

    def _me(self) -> WorkerId:
        if self.worker is None:
            raise ValueError("this queue has no worker: give MatchQueue(store, WorkerId.make(...))")
        return self.worker

    def _event(self, session: Session, tournament_id: int, index: int | None, worker: str, kind: str,
               detail: str, now: datetime) -> None:
        session.add(WorkerEvent(tournament_id=tournament_id, schedule_index=index, worker=worker, kind=kind,
                                detail=detail, at=now))

    # -- planning ----------------------------------------------------------------

    def plan(self, tournament_id: int, pairings: Iterable[tuple[int, int, int]]) -> int:
        """Store the schedule's rows ``(schedule_index, round, table_size)`` that are missing
        (status planned; done for a match stored already).  Returns how many were added.
        Idempotent: planning again (or from two processes) adds nothing twice."""
        wanted = {index: (rnd, size) for index, rnd, size in pairings}
        from leaderboard.models import Match

        with self._write() as session:
            # lock the tournament row: two planners of one tournament take turns
            _find_tournament(session, tournament_id)
            if self._postgres:  # NO KEY UPDATE: not blocked by the key-share locks of rows that refer to it
                session.exec(select(Tournament).where(col(Tournament.id) == tournament_id)
                             .with_for_update(key_share=True))
            have = set(session.exec(select(col(QueuedMatch.schedule_index))
                                    .where(col(QueuedMatch.tournament_id) == tournament_id)))
            stored = dict(session.exec(select(col(Match.schedule_index), col(Match.id))
                                       .where(col(Match.tournament_id) == tournament_id)).all())
            now = self._now(session)
            added = 0
            for index in sorted(set(wanted) - have):
                rnd, size = wanted[index]
                done = index in stored
                session.add(QueuedMatch(tournament_id=tournament_id, schedule_index=index, round=rnd,
                                        table_size=size, status=DONE if done else PLANNED,
                                        match_id=stored.get(index), finished_at=now if done else None))
                added += 1
            return added

    def is_planned(self, tournament_id: int) -> bool:
        with self._read() as session:
            return session.exec(select(col(QueuedMatch.schedule_index))
                                .where(col(QueuedMatch.tournament_id) == tournament_id).limit(1)).first() is not None

    def retry_failed(self, tournament_id: int) -> int:
        """Make the failed matches planned again; returns how many."""
        with self._write() as session:
            result = session.exec(update(QueuedMatch)  # type: ignore[call-overload]
                                  .where(col(QueuedMatch.tournament_id) == tournament_id,
                                         col(QueuedMatch.status) == FAILED)
                                  .values(status=PLANNED, lease_token=None, lease_until=None))
            return int(result.rowcount or 0)

    # -- claiming ----------------------------------------------------------------

    def claim(self, tournament_id: int | None = None, *, skip: Iterable[int] = ()) -> Lease | None:
        """The next claimable match (of one tournament, or of any unfinished one but those in
        ``skip``), leased to this worker; None when there is none now."""
        me = self._me()
        with self._write() as session:
            now = self._now(session)
            row = self._claimable(session, tournament_id, now, me, set(skip))
            if row is None:
                return None
            previous = row.worker if row.status == CLAIMED else None
            if previous is not None:
                self._event(session, row.tournament_id, row.schedule_index, previous, "taken_over",
                            f"its claim (until {row.lease_until}) was taken over by {me.label}", now)
            token = uuid.uuid4().hex
            until = now + self.lease
            about = datetime.now(UTC) + self.lease
            session.exec(update(QueuedMatch)  # type: ignore[call-overload]
                         .where(col(QueuedMatch.tournament_id) == row.tournament_id,
                                col(QueuedMatch.schedule_index) == row.schedule_index)
                         .values(status=CLAIMED, worker=me.label, worker_pid=me.pid, lease_token=token,
                                 lease_until=until, claimed_at=now, attempts=QueuedMatch.attempts + 1,
                                 error=None))
            if row.tournament_id not in self._running:  # once per tournament and worker
                session.exec(update(Tournament)  # type: ignore[call-overload]
                             .where(col(Tournament.id) == row.tournament_id,
                                    col(Tournament.status) != TournamentStatus.RUNNING.value)
                             .values(status=TournamentStatus.RUNNING.value, updated_at=now))
                self._running.add(row.tournament_id)
            return Lease(row.tournament_id, row.schedule_index, row.round, token, about, previous)

    def _claimable(self, session: Session, tournament_id: int | None, now: datetime,
                   me: WorkerId, skip: set[int]) -> QueuedMatch | None:
        excluded = exists().where(col(ExcludedWorker.tournament_id) == col(QueuedMatch.tournament_id),
                                  col(ExcludedWorker.worker) == me.label)
        scope = [~excluded]
        if tournament_id is not None:
            scope.append(col(QueuedMatch.tournament_id) == tournament_id)
        else:
            unfinished = exists().where(col(Tournament.id) == col(QueuedMatch.tournament_id),
                                        col(Tournament.status) != TournamentStatus.FINISHED.value)
            scope.append(unfinished)
            if skip:
                scope.append(col(QueuedMatch.tournament_id).not_in(sorted(skip)))
        claimable = or_(col(QueuedMatch.status) == PLANNED,
                        and_(col(QueuedMatch.status) == CLAIMED, col(QueuedMatch.lease_until) < now))
        query = (select(QueuedMatch).where(claimable, *scope)
                 .order_by(col(QueuedMatch.tournament_id), col(QueuedMatch.schedule_index))
                 .limit(1).with_for_update(skip_locked=True))
        row = session.exec(query).first()
        if row is not None:
            return row
        # claims of this machine's workers whose process is gone: no need to wait for their lease
        orphans = session.exec(select(QueuedMatch).where(
            col(QueuedMatch.status) == CLAIMED, col(QueuedMatch.worker).startswith(f"{me.host}/", autoescape=True),
            col(QueuedMatch.worker_pid).is_not(None), col(QueuedMatch.worker_pid) != me.pid, *scope)
            .order_by(col(QueuedMatch.tournament_id), col(QueuedMatch.schedule_index))
            .with_for_update(skip_locked=True)).all()
        for orphan in orphans:
            if orphan.worker_pid is not None and not _pid_alive(orphan.worker_pid):
                return orphan
        return None

    def renew(self, lease: Lease) -> Lease | None:
        """The lease extended by another lease period; None when it is no longer this worker's."""
        with self._write() as session:
            now = self._now(session)
            until = now + self.lease
            result = session.exec(update(QueuedMatch)  # type: ignore[call-overload]
                                  .where(*self._mine(lease)).values(lease_until=until))
            if not result.rowcount:
                return None
            return Lease(lease.tournament_id, lease.schedule_index, lease.round, lease.token,
                         datetime.now(UTC) + self.lease, lease.taken_over_from)

    def _mine(self, lease: Lease) -> list[Any]:
        return [col(QueuedMatch.tournament_id) == lease.tournament_id,
                col(QueuedMatch.schedule_index) == lease.schedule_index,
                col(QueuedMatch.status) == CLAIMED, col(QueuedMatch.lease_token) == lease.token]

    def _locked(self, session: Session, lease: Lease) -> QueuedMatch | None:
        return session.exec(select(QueuedMatch).where(
            col(QueuedMatch.tournament_id) == lease.tournament_id,
            col(QueuedMatch.schedule_index) == lease.schedule_index).with_for_update()).first()

    def record(self, lease: Lease, record: MatchRecord, *, isolation: str) -> RecordOutcome:
        """Store the match's result and replay, and mark it done, in one transaction that
        first checks (row locked) that the lease is still this worker's.

        A lease taken over by another worker: refused, nothing stored, a ``late_result``
        event logged (:attr:`RecordOutcome.LATE`).  A lease that expired but was not taken
        over is still this worker's: nobody else can have stored the match.  Safe to call
        again after a lost connection: a result that was committed is recognised."""
        try:
            return self._record(lease, record, isolation)
        except IntegrityError:  # stored meanwhile without the queue (Store.record_match): say so
            return self._record(lease, record, isolation)

    def _record(self, lease: Lease, record: MatchRecord, isolation: str) -> RecordOutcome:
        me = self._me()
        with self._write() as session:
            now = self._now(session)
            row = self._locked(session, lease)
            if row is None:
                raise StoreError(f"tournament {lease.tournament_id} has no scheduled match {lease.schedule_index}")
            if row.status == DONE and row.match_id == record.match_id:
                return RecordOutcome.RECORDED  # committed before the connection was lost
            if row.status != CLAIMED or row.lease_token != lease.token:
                holder = f"{row.status} by {row.worker}" if row.worker else row.status
                self._event(session, lease.tournament_id, lease.schedule_index, me.label, "late_result",
                            f"result of match {record.match_id} refused: the lease was taken over "
                            f"(the match is now {holder})", now)
                return RecordOutcome.LATE
            try:
                insert_match(session, lease.tournament_id, lease.schedule_index, lease.round, record)
                stored = True
            except AlreadyRecorded:  # checked before anything is written
                stored = False
            if stored:
                self._finish(session, row, now, DONE, match_id=record.match_id, isolation=isolation)
                self._finish_tournament_if_done(session, lease.tournament_id, now)
                return RecordOutcome.RECORDED
            self._already(session, lease, record, row, now)
            return RecordOutcome.ALREADY

    def _already(self, session: Session, lease: Lease, record: MatchRecord, row: QueuedMatch, now: Any) -> None:
        self._event(session, lease.tournament_id, lease.schedule_index, self._me().label, "already_stored",
                    f"result of match {record.match_id} refused: the match was stored already", now)
        self._finish(session, row, now, DONE, match_id=None)

    def _finish(self, session: Session, row: QueuedMatch, now: datetime, status: str, *,
                match_id: str | None = None, error: str | None = None, isolation: str | None = None) -> None:
        if match_id is None and status == DONE:
            from leaderboard.models import Match

            match_id = session.exec(select(col(Match.id)).where(
                col(Match.tournament_id) == row.tournament_id,
                col(Match.schedule_index) == row.schedule_index)).first()
        session.exec(update(QueuedMatch)  # type: ignore[call-overload]
                     .where(col(QueuedMatch.tournament_id) == row.tournament_id,
                            col(QueuedMatch.schedule_index) == row.schedule_index)
                     .values(status=status, match_id=match_id, finished_at=now, lease_token=None,
                             lease_until=None, error=error, isolation=isolation))

    def _finish_tournament_if_done(self, session: Session, tournament_id: int, now: datetime) -> None:
        unfinished = session.exec(select(col(QueuedMatch.schedule_index)).where(
            col(QueuedMatch.tournament_id) == tournament_id, col(QueuedMatch.status) != DONE).limit(1)).first()
        if unfinished is None:
            session.exec(update(Tournament)  # type: ignore[call-overload]
                         .where(col(Tournament.id) == tournament_id)
                         .values(status=TournamentStatus.FINISHED.value, updated_at=now))

    def fail(self, lease: Lease, error: str, *, isolation: str | None = None) -> bool:
        """The host could not finish the match: mark it failed (not claimed again until
        re-queued); False when the lease was no longer this worker's."""
        with self._write() as session:
            now = self._now(session)
            row = self._locked(session, lease)
            if row is None or row.status != CLAIMED or row.lease_token != lease.token:
                return False
            self._finish(session, row, now, FAILED, error=error[:2000], isolation=isolation)
            return True

    def release(self, lease: Lease, why: str = "the worker stopped") -> bool:
        """Give a claimed match back (planned again at once); False when it was no longer ours."""
        me = self._me()
        with self._write() as session:
            now = self._now(session)
            result = session.exec(update(QueuedMatch)  # type: ignore[call-overload]
                                  .where(*self._mine(lease))
                                  .values(status=PLANNED, lease_token=None, lease_until=None))
            if result.rowcount:
                self._event(session, lease.tournament_id, lease.schedule_index, me.label, "released", why, now)
            return bool(result.rowcount)

    # -- what is left ------------------------------------------------------------

    def work_left(self, tournament_id: int | None = None) -> WorkLeft:
        """Counts over one tournament, or over every unfinished one."""
        query = sa_select(col(QueuedMatch.status), func.count()).group_by(col(QueuedMatch.status))
        if tournament_id is not None:
            query = query.where(col(QueuedMatch.tournament_id) == tournament_id)
        else:
            query = query.join(Tournament, col(Tournament.id) == col(QueuedMatch.tournament_id)).where(
                col(Tournament.status) != TournamentStatus.FINISHED.value)
        with self._read() as session:
            counts = dict(session.exec(query).all())  # type: ignore[call-overload]
        return WorkLeft(planned=int(counts.get(PLANNED, 0)), claimed=int(counts.get(CLAIMED, 0)),
                        failed=int(counts.get(FAILED, 0)), done=int(counts.get(DONE, 0)))

    def settle(self, tournament_id: int) -> TournamentStatus:
        """After a worker stops: finished when every match is done, interrupted when no live
        claim is left (nobody plays it), else running (other workers go on)."""
        with self._write() as session:
            now = self._now(session)
            tournament = _find_tournament(session, tournament_id)
            counts = dict(session.exec(  # type: ignore[call-overload]
                sa_select(col(QueuedMatch.status), func.count())
                .where(col(QueuedMatch.tournament_id) == tournament_id).group_by(col(QueuedMatch.status))).all())
            live = session.exec(select(col(QueuedMatch.schedule_index)).where(
                col(QueuedMatch.tournament_id) == tournament_id, col(QueuedMatch.status) == CLAIMED,
                col(QueuedMatch.lease_until) >= now).limit(1)).first()
            if counts and set(counts) == {DONE}:
                status = TournamentStatus.FINISHED
            elif live is None:
                status = TournamentStatus.INTERRUPTED
            else:
                status = TournamentStatus.RUNNING
            if tournament.status != status.value:
                tournament.status = status.value
                tournament.updated_at = now
                session.add(tournament)
            return status

    # -- workers -----------------------------------------------------------------

    def exclude_worker(self, tournament_id: int, worker: str, reason: str = "") -> int:
        """Leave ``worker``'s matches of the tournament out of its ratings and standings, and
        let it claim no more of them; returns how many stored matches it played."""
        with self._write() as session:
            _find_tournament(session, tournament_id)
            played = self._played(session, tournament_id, worker)
            known = played or session.exec(select(col(WorkerEvent.id)).where(
                col(WorkerEvent.tournament_id) == tournament_id, col(WorkerEvent.worker) == worker).limit(1)).first()
            if not known and not session.exec(select(col(QueuedMatch.schedule_index)).where(
                    col(QueuedMatch.tournament_id) == tournament_id, col(QueuedMatch.worker) == worker)).first():
                raise StoreError(f"no worker {worker!r} played in tournament {tournament_id} "
                                 "(see 'arena tournament status' for the workers' names, HOST/ID)")
            if session.get(ExcludedWorker, (tournament_id, worker)) is None:
                session.add(ExcludedWorker(tournament_id=tournament_id, worker=worker,
                                           excluded_at=self._now(session), reason=reason))
            return played

    def include_worker(self, tournament_id: int, worker: str) -> int:
        """Undo :meth:`exclude_worker`; returns how many stored matches count again."""
        with self._write() as session:
            row = session.get(ExcludedWorker, (tournament_id, worker))
            if row is None:
                raise StoreError(f"worker {worker!r} is not excluded from tournament {tournament_id}")
            session.delete(row)
            return self._played(session, tournament_id, worker)

    def _played(self, session: Session, tournament_id: int, worker: str) -> int:
        return int(session.exec(sa_select(func.count()).where(  # type: ignore[call-overload]
            col(QueuedMatch.tournament_id) == tournament_id, col(QueuedMatch.worker) == worker,
            col(QueuedMatch.status) == DONE, col(QueuedMatch.match_id).is_not(None))).scalar_one())

    def events(self, tournament_id: int, kind: str | None = None) -> list[dict[str, Any]]:
        with self._read() as session:
            query = select(WorkerEvent).where(col(WorkerEvent.tournament_id) == tournament_id)
            if kind is not None:
                query = query.where(col(WorkerEvent.kind) == kind)
            return [{"at": e.at.isoformat(), "worker": e.worker, "kind": e.kind, "schedule_index": e.schedule_index,
                     "detail": e.detail} for e in session.exec(query.order_by(col(WorkerEvent.id)))]

    @staticmethod
    def is_unavailable(exc: BaseException) -> bool:
        """Whether ``exc`` (from the store or the queue) says the database cannot be reached now."""
        return is_unavailable(exc)

    def match_workers(self, tournament_id: int) -> dict[int, tuple[str | None, str | None, str]]:
        """schedule index -> (worker, isolation, status) of every planned row."""
        with self._read() as session:
            rows = session.exec(sa_select(  # type: ignore[call-overload]
                col(QueuedMatch.schedule_index), col(QueuedMatch.worker), col(QueuedMatch.isolation),
                col(QueuedMatch.status)).where(col(QueuedMatch.tournament_id) == tournament_id)).all()
        return {index: (worker, isolation, status) for index, worker, isolation, status in rows}

    def progress(self, tournament_id: int) -> QueueProgress:
        """Per worker: claimed now, done, failed, late results, matches/min; and the ETA."""
        with self._read() as session:
            _find_tournament(session, tournament_id)
            now = self._now_value(session)
            rows = session.exec(sa_select(  # type: ignore[call-overload]
                col(QueuedMatch.worker), col(QueuedMatch.status), col(QueuedMatch.finished_at),
                col(QueuedMatch.claimed_at)).where(col(QueuedMatch.tournament_id) == tournament_id)).all()
            late = dict(session.exec(sa_select(col(WorkerEvent.worker), func.count())  # type: ignore[call-overload]
                                     .where(col(WorkerEvent.tournament_id) == tournament_id,
                                            col(WorkerEvent.kind) == "late_result")
                                     .group_by(col(WorkerEvent.worker))).all())
            excluded = set(session.exec(select(col(ExcludedWorker.worker))
                                        .where(col(ExcludedWorker.tournament_id) == tournament_id)))
        return _progress(tournament_id, rows, late, excluded, now)


def _progress(tournament_id: int, rows: list[Any], late: dict[str, int], excluded: set[str],
              now: datetime) -> QueueProgress:
    status_counts: dict[str, int] = defaultdict(int)
    per: dict[str, dict[str, Any]] = defaultdict(lambda: {"claimed": 0, "done": 0, "failed": 0, "ends": []})
    for worker, status, finished_at, _claimed_at in rows:
        status_counts[status] += 1
        if worker is None:
            continue
        entry = per[worker]
        if status == CLAIMED:
            entry["claimed"] += 1
        elif status == DONE:
            entry["done"] += 1
            if finished_at is not None:
                entry["ends"].append(finished_at)
        elif status == FAILED:
            entry["failed"] += 1
    for worker in set(late) | excluded:
        per.setdefault(worker, {"claimed": 0, "done": 0, "failed": 0, "ends": []})
    workers = []
    active_rate = 0.0
    any_active = False
    for worker in sorted(per):
        entry = per[worker]
        ends = sorted(entry["ends"], reverse=True)
        rate = None
        if ends:
            recent = [t for t in ends if ends[0] - t <= RATE_WINDOW]
            span = (recent[0] - recent[-1]).total_seconds()
            if len(recent) > 1 and span > 0:
                rate = round((len(recent) - 1) / span * 60, 2)
        last = ends[0] if ends else None
        if rate is not None and worker not in excluded and (entry["claimed"] or (last and now - last <= ACTIVE_WINDOW)):
            active_rate += rate
            any_active = True
        workers.append(WorkerProgress(worker=worker, claimed=entry["claimed"], done=entry["done"],
                                      failed=entry["failed"], late=int(late.get(worker, 0)),
                                      matches_per_minute=rate, last_at=last, excluded=worker in excluded))
    remaining = status_counts[PLANNED] + status_counts[CLAIMED]
    eta = round(remaining / active_rate * 60) if any_active and active_rate > 0 else None
    return QueueProgress(tournament_id=tournament_id, planned=status_counts[PLANNED],
                         claimed=status_counts[CLAIMED], done=status_counts[DONE], failed=status_counts[FAILED],
                         workers=tuple(workers), matches_per_minute=round(active_rate, 2) if any_active else None,
                         eta_seconds=eta if remaining else 0)


def is_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` (from the store or the queue) says the database cannot be reached now."""
    if isinstance(exc, DatabaseUnavailable):
        return True
    return isinstance(exc, DBAPIError) and (exc.connection_invalidated or _unreachable(exc))


def _unreachable(exc: DBAPIError) -> bool:
    """An error that says the server is gone or restarting (psycopg's OperationalError and friends)."""
    from sqlalchemy.exc import InterfaceError, OperationalError

    if isinstance(exc, (OperationalError, InterfaceError)):
        text = str(exc.orig).lower()
        return not any(word in text for word in ("deadlock", "could not serialize", "database is locked"))
    return False


def retrying(call: Callable[[], T], *, wait: Callable[[float], None], give_up_after: float | None,
             on_wait: Callable[[str], None] | None = None) -> T:
    """``call()`` again and again while the database is unavailable (backing off 0.2 s to 5 s);
    re-raises :class:`DatabaseUnavailable` after ``give_up_after`` seconds of waiting."""
    waited = 0.0
    delay = 0.2
    said = False
    while True:
        try:
            return call()
        except DatabaseUnavailable as exc:
            if give_up_after is not None and waited >= give_up_after:
                raise
            if on_wait is not None and not said:
                on_wait(f"{exc}; waiting for it to come back")
                said = True
            wait(delay)
            waited += delay
            delay = min(5.0, delay * 2)
