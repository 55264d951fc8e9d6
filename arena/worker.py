"""A worker: claims scheduled matches from the store's queue, plays them, records them.

``arena worker`` runs one on any machine that reaches the database; ``arena tournament
run`` and ``resume`` run one locally.  ``concurrency`` slots each loop: claim the next
match with a lease (the store's queue, :class:`arena.sinks.MatchQueueSink`), play it on this machine's
bot processes while a task renews the lease, record the result and replay in one
transaction that checks the lease is still this worker's, claim the next.

- A lease lost while playing (this worker was stopped or cut off past its lease, and
  another took the match over) is not noticed mid-match: the match is finished and its
  result refused by the queue, logged as a ``late_result`` event, never counted twice.
- The database gone (restart, network): every queue call waits and tries again
  (``db_wait_s``), matches in play go on.
- Stop (SIGINT/SIGTERM, or ``cancel``): no new claims; running matches stop within a
  decision and their claims are released (planned again at once); the bot processes
  are all stopped before this returns.
- Bots are the versions the tournament was created with, from their frozen files,
  hashed again before they play: a worker refuses files that differ from the store's.
  ``bot_files`` is where this machine keeps the copies, when not at the paths the store
  names (see docs/tournaments.md, "Workers").
"""

from __future__ import annotations

import dataclasses
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from arena.errors import UserError
from arena.games import DEFAULT_GAME, get_game
from arena.host.match import MatchCancelled, MatchConfig, run_match
from arena.host.manifest import BotSpec
from arena.host.process import BotPool, BotStartError
from arena.host.sandbox import IsolationPolicy, SandboxUnavailable, require_sandbox
from arena.matchids import new_match_id
from arena.records import MatchRecord
from arena.registry import spec_for
from arena.scheduler.executor import Outcome
from arena.scheduler.pairings import Pairing
from arena.sinks import DEFAULT_LEASE_S, BotRow, Lease, RecordOutcome, ResultStore, WorkerId


@dataclass(frozen=True)
class WorkerOptions:
    concurrency: int = 1
    tournament_id: int | None = None  # None: any unfinished tournament
    lease_s: float = DEFAULT_LEASE_S
    poll_s: float = 1.0  # how often to look again when nothing is claimable but matches are still claimed
    keep_waiting: bool = False  # go on waiting for work when nothing is left (else: stop)
    db_wait_s: float | None = 600.0  # how long to wait for a database that is gone (None: forever)
    bot_files: Path | None = None  # this machine's folder of frozen bot copies
    policy: IsolationPolicy | None = None  # overrides each tournament's stored isolation
    log_dir: Path = Path("arena-data/logs")
    handle_signals: bool = True  # SIGINT/SIGTERM stop the worker (main thread only)

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise UserError(f"--concurrency must be at least 1, got {self.concurrency}")
        if self.lease_s <= 0:
            raise UserError(f"--lease must be more than 0 seconds, got {self.lease_s}")


@dataclass
class WorkerSummary:
    played: int = 0  # recorded by this worker
    skipped: int = 0  # stored already by someone else
    late: int = 0  # refused: the lease had been taken over
    released: int = 0  # given back at shutdown
    failed: list[tuple[Pairing, str]] = field(default_factory=list)
    refused_tournaments: dict[int, str] = field(default_factory=dict)  # cannot be played here, and why
    stopped: bool = False
    signal: int | None = None
    wall_s: float = 0.0


@dataclass
class _Tournament:
    """What a worker needs to play one tournament's matches (loaded once)."""

    id: int
    schedule: dict[int, Pairing]
    specs: dict[str, BotSpec]
    names: dict[str, str]
    match_config: MatchConfig
    policy: IsolationPolicy
    pool: BotPool
    game: str = DEFAULT_GAME  # its name (the registry builds the game)


def relocate(row: BotRow, bot_files: Path | None) -> BotRow:
    """The version with its frozen copy looked for under ``bot_files`` (same layout: NAME/HASH)."""
    if bot_files is None or row.files_dir is None or row.manifest_path is None:
        return row
    here = bot_files.expanduser().resolve() / row.files_dir.parent.name / row.files_dir.name
    try:
        manifest = here / row.manifest_path.relative_to(row.files_dir)
    except ValueError:
        return row
    return dataclasses.replace(row, files_dir=here, manifest_path=manifest)


def local_spec(row: BotRow, bot_files: Path | None) -> BotSpec:
    """The version's spec on this machine, its files hashed again; a clear refusal when they
    are missing or differ from the store's."""
    row = relocate(row, bot_files)
    if row.files_dir is not None and not row.files_dir.is_dir():
        raise UserError(f"bot {row.participant}: its files are not on this machine (looked in {row.files_dir}); "
                        "copy the folder of frozen bot copies here (same layout, e.g. rsync -a) and point "
                        "--bot-files (or ARENA_BOT_FILES) at it: see docs/tournaments.md, 'Workers'")
    try:
        return spec_for(row)
    except UserError as exc:
        raise UserError(f"this worker refuses to play {row.participant}: {exc}") from None


class Worker:
    def __init__(self, store: ResultStore, worker_id: WorkerId, options: WorkerOptions, *,
                 cancel: threading.Event | None = None,
                 on_done: Callable[[Outcome[MatchRecord]], None] | None = None,
                 on_notice: Callable[[str], None] | None = None,
                 on_bot_failure: Callable[[str, str, Path | None], None] | None = None) -> None:
        self.store = store
        self.id = worker_id
        self.options = options
        self.queue = store.queue(worker_id, lease_s=options.lease_s)
        self.cancel = cancel if cancel is not None else threading.Event()
        self.on_done = on_done
        self.on_notice = on_notice or (lambda text: None)
        self.on_bot_failure = on_bot_failure
        self.summary = WorkerSummary()
        self._tournaments: dict[int, _Tournament] = {}
        self._loading = threading.Lock()
        self._threads = trio.CapacityLimiter(options.concurrency * 2 + 2)

    # -- the database, patiently ---------------------------------------------------

    def _db(self, call: Callable[[], Any], *, patient: bool = True) -> Any:
        """``call()`` in this thread, tried again while the database is unreachable."""
        waited, delay, said = 0.0, 0.2, False
        while True:
            try:
                return call()
            except Exception as exc:  # noqa: BLE001 - only an unreachable database is retried
                if not self.queue.is_unavailable(exc):
                    raise
                limit = self.options.db_wait_s if patient else 5.0
                if limit is not None and waited >= limit:
                    raise UserError(f"the database is unreachable ({exc}); gave up after {waited:.0f} s") from None
                if not said:
                    self.on_notice(f"the database is unreachable; waiting for it to come back ({exc})")
                    said = True
                time.sleep(delay)
                waited += delay
                delay = min(5.0, delay * 2)

    async def _adb(self, call: Callable[[], Any], *, patient: bool = True) -> Any:
        return await trio.to_thread.run_sync(lambda: self._db(call, patient=patient), limiter=self._threads)

    # -- tournaments ------------------------------------------------------------------

    def _load(self, tournament_id: int) -> _Tournament:
        from arena.tournaments import config_of, schedule_of, seats_to_play, spares_per_bot

        with self._loading:
            if tournament_id in self._tournaments:
                return self._tournaments[tournament_id]
            row = self._db(lambda: self.store.get_tournament(tournament_id))
            config = config_of(row)
            schedule = schedule_of(config, row.seed)
            rows = {name: self._db(lambda n=name: self.store.get_bot(config.participant(n))) for name in config.bots}
            specs = {name: local_spec(r, self.options.bot_files) for name, r in rows.items()}
            policy = self.options.policy if self.options.policy is not None else config.policy()
            if policy.sandboxed:
                try:
                    require_sandbox()
                except SandboxUnavailable as exc:
                    raise UserError(str(exc)) from None

            def failed_to_start(spec: BotSpec, exc: BotStartError) -> None:
                if self.on_bot_failure is not None:
                    self.on_bot_failure(spec.label, str(exc), pool.log_path(spec))

            pool = BotPool(log_dir=self.options.log_dir, policy=policy, game=config.game,
                           spares=spares_per_bot(config, self.options.concurrency, policy),
                           on_start_failure=failed_to_start)
            pool.__enter__()
            statuses = self._db(lambda: self.queue.match_workers(tournament_id))
            left = [p for p in schedule if statuses.get(p.index, (None, None, "planned"))[2] != "done"]
            try:  # no spare beyond the seats the tournament has left (all workers together)
                pool.prepare(list({id(s): s for s in specs.values()}.values()), seats_to_play(left, specs))
            except BaseException:
                pool.__exit__(None, None, None)
                raise
            loaded = _Tournament(tournament_id, {p.index: p for p in schedule}, specs,
                                 {name: r.participant for name, r in rows.items()}, config.match_config(),
                                 policy, pool, config.game)
            self._tournaments[tournament_id] = loaded
            return loaded

    def _close(self) -> None:
        for loaded in self._tournaments.values():
            loaded.pool.__exit__(None, None, None)
        self._tournaments.clear()

    # -- running ----------------------------------------------------------------------

    def prepare(self, tournament_id: int) -> None:
        """Load a tournament's bots now (their files checked, processes started ahead):
        a refusal is raised here, before any match is claimed."""
        try:
            self._load(tournament_id)
        except BaseException:
            self._close()
            raise

    def run(self) -> WorkerSummary:
        """Serve until nothing is left to claim (or forever with ``keep_waiting``), or stopped."""
        started = time.monotonic()
        try:
            trio.run(self._serve)
        except BaseExceptionGroup as group:  # trio wraps what its tasks raise: one error is that error
            leaves = _leaves(group)
            interrupt = next((e for e in leaves if isinstance(e, KeyboardInterrupt)), None)
            raise (interrupt or (leaves[0] if len(leaves) == 1 else group)) from None
        finally:
            try:
                self._close()
            finally:
                self.summary.wall_s = time.monotonic() - started
                self.summary.stopped = self.cancel.is_set()
        return self.summary

    async def _serve(self) -> None:
        async with trio.open_nursery() as outer:
            if self.options.handle_signals and threading.current_thread() is threading.main_thread():
                outer.start_soon(self._signals)
            try:
                async with trio.open_nursery() as slots:
                    for _ in range(self.options.concurrency):
                        slots.start_soon(self._slot)
            finally:
                outer.cancel_scope.cancel()

    async def _signals(self) -> None:
        with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for signum in signals:
                if self.summary.signal is None:
                    self.summary.signal = signum
                    self.on_notice(f"{signal.Signals(signum).name}: stopping; the matches in play stop and "
                                   "their claims are released")
                self.cancel.set()

    async def _pause(self, seconds: float) -> None:
        end = trio.current_time() + seconds
        while not self.cancel.is_set() and trio.current_time() < end:
            await trio.sleep(min(0.1, end - trio.current_time()))

    async def _slot(self) -> None:
        try:
            await self._serve_slot()
        except BaseException:
            self.cancel.set()  # the other slots stop their matches and release their claims
            raise

    async def _serve_slot(self) -> None:
        tid = self.options.tournament_id
        while not self.cancel.is_set():
            skip = set(self.summary.refused_tournaments)
            lease = await self._adb(lambda: self.queue.claim(tid, skip=skip))
            if lease is None:
                left = await self._adb(lambda: self.queue.work_left(tid))
                if not left.open and not self.options.keep_waiting:
                    return
                await self._pause(self.options.poll_s)
                continue
            if self.cancel.is_set():
                await self._adb(lambda: self.queue.release(lease), patient=False)
                self.summary.released += 1
                return
            await self._play(lease)

    async def _play(self, lease: Lease) -> None:
        try:
            loaded = await trio.to_thread.run_sync(self._load, lease.tournament_id, limiter=self._threads)
        except UserError as exc:
            why = str(exc)
            await self._adb(lambda: self.queue.release(lease, f"cannot play here: {why}"))
            self.summary.refused_tournaments[lease.tournament_id] = why
            if self.options.tournament_id is not None:
                raise
            self.on_notice(f"tournament {lease.tournament_id} skipped: {why}")
            return
        if lease.taken_over_from is not None:
            self.on_notice(f"match {lease.schedule_index} of tournament {lease.tournament_id}: took over the claim "
                           f"of {lease.taken_over_from} (its lease expired or its process is gone)")
        pairing = loaded.schedule[lease.schedule_index]
        isolation = loaded.policy.level.value
        current = [lease]
        record: MatchRecord | None = None
        failure: Exception | None = None
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._renew, current)
            try:
                record = await trio.to_thread.run_sync(self._play_sync, loaded, pairing, limiter=self._threads)
            except Exception as exc:  # noqa: BLE001 - a failed match must not stop the others
                failure = exc
            finally:
                nursery.cancel_scope.cancel()  # stop renewing
        if record is None:
            if self.cancel.is_set() or isinstance(failure, MatchCancelled):
                if await self._adb(lambda: self.queue.release(current[0]), patient=False):
                    self.summary.released += 1
                return
            error = f"{type(failure).__name__}: {failure}"
            await self._adb(lambda: self.queue.fail(current[0], error, isolation=isolation))
            self.summary.failed.append((pairing, error))
            if self.on_done:
                self.on_done(Outcome(pairing, None, error))
            return
        done = record
        outcome = await self._adb(lambda: self.queue.record(current[0], done, isolation=isolation))
        if outcome is RecordOutcome.RECORDED:
            self.summary.played += 1
        elif outcome is RecordOutcome.LATE:
            self.summary.late += 1
            self.on_notice(f"the result of match {pairing.index} of tournament {lease.tournament_id} was refused: "
                           "this worker's lease had expired and another worker took the match over")
            return
        else:
            self.summary.skipped += 1
        if self.on_done:
            self.on_done(Outcome(pairing, done))

    def _play_sync(self, loaded: _Tournament, pairing: Pairing) -> MatchRecord:
        return run_match(loaded.pool, [loaded.specs[name] for name in pairing.seats], seed=pairing.seed,
                         variant=pairing.variant, match_id=new_match_id(),
                         names=[loaded.names[name] for name in pairing.seats], config=loaded.match_config,
                         cancel=self.cancel, game=get_game(loaded.game))

    async def _renew(self, current: list[Lease]) -> None:
        """Renew the lease every third of its length while the match plays; a lost lease is
        said once (the result will be refused), a database that is gone is tried again."""
        every = self.options.lease_s / 3
        while True:
            await trio.sleep(every)
            try:
                renewed = await self._adb(lambda: self.queue.renew(current[0]), patient=False)
            except UserError:
                continue  # the database is gone: try again at the next renewal
            if renewed is None:
                self.on_notice(f"lost the lease of match {current[0].schedule_index} of tournament "
                               f"{current[0].tournament_id}: another worker took it over")
                return
            current[0] = renewed


def _leaves(group: BaseExceptionGroup) -> list[BaseException]:
    out: list[BaseException] = []
    for exc in group.exceptions:
        out.extend(_leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc])
    return out
