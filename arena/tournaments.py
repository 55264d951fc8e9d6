"""Tournaments: a stored configuration, a deterministic schedule, and the matches
already stored.  Running (or resuming) one plays the schedule minus the stored
matches, so a tournament survives any crash: nothing lost, nothing counted twice.

This module wires the pieces together: the registry (bots), the pure pairing
generator, the store, and the match queue that workers (:mod:`arena.worker`) claim
matches from: creating a tournament stores its schedule as queue rows, running one
is a local worker on them.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from arena.errors import UserError
from arena.host.sandbox import Isolation, IsolationPolicy, Limits
from arena.scheduler.pairings import Pairing, generate_schedule
from arena.games import DEFAULT_GAME
from arena.sinks import (
    DEFAULT_LEASE_S,
    BotRow,
    ResultStore,
    TournamentRow,
    UnknownBotError,
    WorkerId,
    participant_name,
)

if TYPE_CHECKING:  # the host (gRPC), the check and the executor (trio) load where a match is played
    from arena.host.manifest import BotSpec
    from arena.host.match import MatchConfig
    from arena.records import MatchRecord
    from arena.scheduler.executor import ExecutionSummary, Outcome

@dataclass(frozen=True)
class TournamentConfig:
    bots: tuple[str, ...]
    table_sizes: tuple[int, ...]
    rounds: int = 1
    variant: str = "standard"
    #: The game played (a registered name); its spec says the table sizes and variants, and
    #: every bot must list it among its games (Describe).  The tournament row keeps it too.
    game: str = DEFAULT_GAME
    concurrency: int = 2
    decision_ms: int = 1000
    bank_ms: int = 10_000
    max_faults: int = 3
    #: Publish a deal's replays (and its deck seed) as soon as every seat rotation of
    #: it is stored, instead of when the whole tournament is finished.
    publish_deals: bool = False
    #: How the bots are isolated: ``{"level": "sandbox"|"none", "limits": {...}}`` (see
    #: :class:`arena.host.sandbox.IsolationPolicy`); sandboxed unless said otherwise.
    isolation: dict[str, Any] = field(default_factory=lambda: {"level": "sandbox"})
    #: A gauntlet's candidate (one of ``bots``): only the tables that hold it are played.
    gauntlet: str | None = None
    #: The version of each bot that plays (bot name -> version number), fixed when the
    #: tournament is created; a tournament stored before versions has none: version 1.
    versions: dict[str, int] = field(default_factory=dict)

    def participant(self, name: str) -> str:
        """The version of bot ``name`` that plays in this tournament: ``NAME@NUMBER``."""
        return participant_name(name, self.versions.get(name, 1))

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["bots"] = list(self.bots)
        data["table_sizes"] = list(self.table_sizes)
        data.pop("game")  # the tournament row's column says it (config_of puts it back)
        if not self.versions:
            del data["versions"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TournamentConfig":
        try:
            return cls(bots=tuple(data["bots"]), table_sizes=tuple(int(k) for k in data["table_sizes"]),
                       rounds=int(data["rounds"]), variant=str(data["variant"]),
                       concurrency=int(data["concurrency"]), decision_ms=int(data["decision_ms"]),
                       bank_ms=int(data["bank_ms"]), max_faults=int(data["max_faults"]),
                       publish_deals=bool(data.get("publish_deals", False)),
                       isolation=dict(data.get("isolation") or {"level": "sandbox"}),
                       gauntlet=None if data.get("gauntlet") is None else str(data["gauntlet"]),
                       versions={str(k): int(v) for k, v in (data.get("versions") or {}).items()},
                       game=str(data.get("game", DEFAULT_GAME)))
        except (KeyError, TypeError, ValueError) as exc:
            raise UserError(f"the stored tournament configuration is unusable ({exc!r})") from None

    def policy(self) -> IsolationPolicy:
        """The isolation policy, checked (UserError for a stored one that makes no sense)."""
        try:
            return IsolationPolicy(Isolation(self.isolation.get("level", "sandbox")),
                                   Limits.from_json(self.isolation.get("limits")))
        except (ValueError, TypeError) as exc:
            raise UserError(f"the stored isolation settings are unusable ({exc})") from None

    def match_config(self) -> MatchConfig:
        from arena.host.clock import Clocks
        from arena.host.match import MatchConfig

        return MatchConfig(clocks=Clocks(decision_ms=self.decision_ms, bank_ms=self.bank_ms),
                           max_faults=self.max_faults)


def resolve_bots(store: ResultStore, entries: Sequence[str], *, log_dir: Path,
                 on_register: Callable[[str], None] | None = None,
                 policy: IsolationPolicy | None = None, game: str = DEFAULT_GAME) -> list[BotRow]:
    """The version of each entry that plays: a registered name is its current version
    (``NAME@NUMBER`` one version); a manifest path (or folder) is checked (playing ``game``)
    and registered first when its files are not the current version's (a new bot, or a new version)."""
    from arena.registry import AlreadyRegistered, register_bot

    rows: list[BotRow] = []
    for entry in entries:
        try:
            row = store.get_bot(entry)
        except UnknownBotError:
            path = Path(entry)
            if not (path.exists() or ":" in entry):
                raise UserError(f"no bot named {entry!r} is registered, and it is not a manifest path "
                                "(see 'arena bot list', or pass a bot.toml)") from None
            try:
                row, _ = register_bot(store, entry, log_dir=log_dir, policy=policy, game=game,
                                      on_check=(lambda: on_register(entry)) if on_register else None)
            except AlreadyRegistered as same:
                row = same.row
        if row.removed:
            raise UserError(f"bot {row.name!r} was removed; it cannot enter a new tournament "
                            "('arena bot add' registers it again, as a new version)")
        if row.name in {r.name for r in rows}:
            raise UserError(f"bot {row.name!r} is entered twice")
        rows.append(row)
    return rows


def config_of(row: TournamentRow) -> TournamentConfig:
    """A stored tournament's configuration, its game from the tournament row."""
    return TournamentConfig.from_json({**row.config, "game": row.game})


def schedule_of(config: TournamentConfig, seed: int) -> list[Pairing]:
    try:
        return generate_schedule(list(config.bots), list(config.table_sizes), config.rounds, seed, config.variant,
                                 gauntlet=config.gauntlet, game=config.game)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def new_tournament_key() -> int:
    """A secret tournament key: the deck seeds of the whole schedule derive from it
    (:func:`arena.scheduler.pairings.subset_seed`), so it stays secret until the
    tournament is finished."""
    return secrets.randbits(63)


def create_tournament(store: ResultStore, config: TournamentConfig, seed: int | None = None) -> int:
    """Store a new tournament and its schedule (every match planned); its key (the seed all deck seeds derive from) is ``seed``,
    or a fresh secret one when None.  An explicit seed makes every deal predictable to
    anyone who knows it: for local runs only."""
    if seed is None:
        seed = new_tournament_key()
    elif not -(2**63) <= seed < 2**63:
        raise UserError(f"--seed must fit in a signed 64-bit integer, got {seed}")
    schedule_of(config, seed)  # refuse a configuration that has no valid schedule
    if config.concurrency < 1:
        raise UserError(f"--concurrency must be at least 1, got {config.concurrency}")
    tournament_id = store.create_tournament(config.game, config.to_json(), seed)
    plan_tournament(store, tournament_id)  # the schedule as rows that workers claim
    return tournament_id


def pending(store: ResultStore, tournament_id: int) -> tuple[TournamentConfig, list[Pairing], list[Pairing]]:
    """The configuration, the whole schedule and what is left of it."""
    row = store.get_tournament(tournament_id)
    config = config_of(row)
    schedule = schedule_of(config, row.seed)
    done = store.stored_schedule_indexes(tournament_id)
    return config, schedule, [p for p in schedule if p.index not in done]


def spares_per_bot(config: TournamentConfig, workers: int, policy: IsolationPolicy) -> int:
    """Ready processes to keep per bot (fresh processes only): enough for the seats that
    ``workers`` matches at once take on average, at most ``workers`` (memory is bounded)."""
    if not policy.fresh_processes:
        return 0
    if config.gauntlet is not None:
        return max(1, workers)  # the candidate sits at every table
    seats_at_once = workers * max(config.table_sizes)
    return max(1, min(workers, -(-seats_at_once // max(1, len(config.bots)))))


class Stopped(KeyboardInterrupt):
    """A local worker stopped by SIGINT or SIGTERM (``signum``); what was finished is stored."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def plan_tournament(store: ResultStore, tournament_id: int) -> int:
    """Store the tournament's schedule as queue rows (those missing; idempotent); returns how
    many were added.  A tournament stored before the queue existed is planned here, its
    stored matches counted as done."""
    row = store.get_tournament(tournament_id)
    schedule = schedule_of(config_of(row), row.seed)
    queue = store.queue()
    return queue.plan(tournament_id, [(p.index, p.round, p.table_size) for p in schedule])


def seats_to_play(todo: list[Pairing], specs: dict[str, BotSpec]) -> dict[str, int]:
    """How many seats each bot (by spec key) has left in ``todo`` (the pool starts no spare beyond)."""
    seats: dict[str, int] = {}
    for pairing in todo:
        for name in pairing.seats:
            key = specs[name].key
            seats[key] = seats.get(key, 0) + 1
    return seats


def run_tournament(
    store: ResultStore,
    tournament_id: int,
    *,
    concurrency: int | None = None,
    log_dir: Path = Path("arena-data/logs"),
    on_start: Callable[[int, int], None] | None = None,
    on_done: Callable[[Outcome[MatchRecord]], None] | None = None,
    cancel: threading.Event | None = None,
    policy: IsolationPolicy | None = None,
    on_bot_failure: Callable[[str, str, Path | None], None] | None = None,
    on_notice: Callable[[str], None] | None = None,
    worker_id: str | None = None,
    lease_s: float | None = None,
) -> ExecutionSummary:
    """Play what is left of a tournament's schedule on this machine and store each match as
    it ends: a local worker (:class:`arena.worker.Worker`) on the tournament's queue.

    ``on_start(total, already_stored)`` is called once before the first match.
    ``policy`` overrides the tournament's stored isolation (e.g. ``resume --isolation none``).
    Sandboxed, every seat of every match gets a fresh process, and each bot keeps
    ``concurrency`` spare processes started ahead while matches play.  Failed matches of
    an earlier run are queued again.  Other workers (``arena worker``) may share the
    tournament; the matches they store count as ``skipped`` here.
    The tournament ends ``finished`` when its whole schedule is stored, else
    ``interrupted`` (resume it with the same call) unless other workers still play it.

    Each bot plays the version the tournament was created with, from the files that
    were checked (a version whose frozen files changed is refused before anything
    starts).  ``on_bot_failure(participant, reason, log_path)`` is called as soon as a
    bot process fails to start; ``on_notice(text)`` says, before the first match, which
    bots' source files changed since their version was added (the checked files play),
    and what the worker sees (a claim taken over, a late result refused, the database gone).
    SIGINT or SIGTERM (in the main thread) stop it: the matches in play stop, their
    claims are released, and :class:`Stopped` is raised.
    """
    from arena.registry import changed_since_registration
    from arena.scheduler.executor import ExecutionSummary
    from arena.worker import Worker, WorkerOptions

    config = config_of(store.get_tournament(tournament_id))
    plan_tournament(store, tournament_id)
    queue = store.queue()
    queue.retry_failed(tournament_id)
    if on_notice is not None:
        for name in config.bots:
            row = store.get_bot(config.participant(name))
            if row.files_dir is not None and changed_since_registration(row):
                on_notice(f"the files at {row.source_path} changed since {row.participant} was added; "
                          f"{row.participant} plays the files that were checked ('arena bot add "
                          f"{row.source_path}' registers the changes as a new version)")
    options = WorkerOptions(concurrency=concurrency or config.concurrency, tournament_id=tournament_id,
                            lease_s=lease_s or DEFAULT_LEASE_S, policy=policy, log_dir=log_dir)
    worker = Worker(store, WorkerId.make(worker_id), options, cancel=cancel, on_done=on_done,
                    on_notice=on_notice, on_bot_failure=on_bot_failure)
    worker.prepare(tournament_id)  # bots resolved and checked before anything starts
    before = queue.work_left(tournament_id)
    total = before.planned + before.claimed + before.failed + before.done
    if on_start:
        on_start(total, before.done)
    try:
        result = worker.run()
    finally:
        queue.settle(tournament_id)
    after = queue.work_left(tournament_id)
    todo = total - before.done
    summary = ExecutionSummary(scheduled=todo, played=result.played, failed=result.failed,
                               skipped=max(0, after.done - before.done - result.played), wall_s=result.wall_s)
    summary.cancelled = result.stopped and after.done < total
    if result.signal is not None:
        raise Stopped(result.signal)
    return summary
