"""``arena sprt``: is NEW better than OLD?  Deals against a frozen pool until a sequential
test decides.

An SPRT is stored as a tournament whose configuration says ``"format": "sprt"``: its
secret key (the tournament seed) deals every deck, its matches are stored with their
replays like any tournament's, and its schedule is the open-ended deal sequence of
:mod:`arena.scheduler.sprt_deals`.  The test (:mod:`arena.stats.sprt`) reads the deals
in order, each once all its ``2k`` matches are stored, and stops at the first deal
where the log-likelihood ratio crosses a bound: the result is a pure function of the
stored matches, whatever the concurrency, completion order or interruptions, so
``arena tournament resume ID`` goes on exactly where it stopped.  Matches of later
deals that were already playing are stopped when the test decides; those already
stored stay stored (and count on the leaderboard) but not in the test.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Callable

import trio

from arena.errors import UserError
from arena.host.match import MatchCancelled, run_match
from arena.host.process import BotPool
from arena.host.sandbox import IsolationPolicy, SandboxUnavailable, require_sandbox
from arena.matchids import new_match_id
from arena.records import MatchRecord, is_reference_participant
from arena.registry import spec_for
from arena.scheduler.executor import AlreadyStored, ExecutionSummary, Outcome, execute
from arena.scheduler.pairings import Pairing
from arena.scheduler.sprt_deals import Deal, SprtEntrants, deal, deal_scores
from arena.stats.sprt import Decision, SequentialTest, SprtParameters, SprtState
from arena.games import DEFAULT_GAME
from arena.tournaments import TournamentConfig, new_tournament_key, spares_per_bot
from arena.sinks import AlreadyRecorded, ResultStore, TournamentStatus, participant_name, split_participant

FORMAT = "sprt"


def is_sprt(config: dict[str, Any]) -> bool:
    """Whether a stored tournament configuration is an SPRT's."""
    return config.get("format") == FORMAT


@dataclass(frozen=True)
class SprtConfig:
    """What an SPRT plays and decides; stored as the tournament's configuration."""

    candidate: str
    baseline: str
    pool: tuple[str, ...]
    table_sizes: tuple[int, ...]
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    max_deals: int | None = None
    variant: str = "standard"
    concurrency: int = 2
    decision_ms: int = 1000
    bank_ms: int = 10_000
    max_faults: int = 3
    isolation: dict[str, Any] = field(default_factory=lambda: {"level": "sandbox"})
    #: The game played (a registered name): its spec says the table sizes and variants, and
    #: every bot must list it (Describe).  The tournament row's column keeps it, not the JSON.
    game: str = DEFAULT_GAME
    #: Each bot's files hash when the test started: a bot changed since is refused (a test
    #: compares fixed bots).
    files_sha256: dict[str, str] = field(default_factory=dict)
    #: The version of each bot that plays (name -> number), fixed when the test starts (an
    #: SPRT stored before versions has none: each bot's version whose files hash as above).
    versions: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        try:
            self.entrants()
            self.params()
        except ValueError as exc:
            raise UserError(str(exc)) from None
        if self.max_deals is not None and self.max_deals < 1:
            raise UserError(f"--max-deals must be at least 1, got {self.max_deals}")
        if self.concurrency < 1:
            raise UserError(f"--concurrency must be at least 1, got {self.concurrency}")

    @property
    def bots(self) -> tuple[str, ...]:
        return (self.candidate, self.baseline, *self.pool)

    def entrants(self) -> SprtEntrants:
        return SprtEntrants(self.candidate, self.baseline, self.pool, self.table_sizes, self.variant, self.game)

    def params(self) -> SprtParameters:
        return SprtParameters(self.elo0, self.elo1, self.alpha, self.beta)

    def tournament(self) -> TournamentConfig:
        """The settings an SPRT shares with a tournament (clocks, faults, isolation)."""
        return TournamentConfig(bots=self.bots, table_sizes=self.table_sizes, variant=self.variant,
                                concurrency=self.concurrency, decision_ms=self.decision_ms, bank_ms=self.bank_ms,
                                max_faults=self.max_faults, isolation=self.isolation, versions=dict(self.versions),
                                game=self.game)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "candidate": self.candidate, "baseline": self.baseline, "pool": list(self.pool),
                "bots": list(self.bots), "table_sizes": list(self.table_sizes), "elo0": self.elo0,
                "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta, "max_deals": self.max_deals,
                "variant": self.variant, "concurrency": self.concurrency, "decision_ms": self.decision_ms,
                "bank_ms": self.bank_ms, "max_faults": self.max_faults, "publish_deals": False,
                "isolation": self.isolation, "files_sha256": dict(self.files_sha256),
                **({"versions": dict(self.versions)} if self.versions else {})}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SprtConfig":
        try:
            return cls(candidate=str(data["candidate"]), baseline=str(data["baseline"]),
                       pool=tuple(str(b) for b in data["pool"]), table_sizes=tuple(int(k) for k in data["table_sizes"]),
                       elo0=float(data["elo0"]), elo1=float(data["elo1"]), alpha=float(data["alpha"]),
                       beta=float(data["beta"]),
                       max_deals=None if data.get("max_deals") is None else int(data["max_deals"]),
                       variant=str(data["variant"]), concurrency=int(data["concurrency"]),
                       decision_ms=int(data["decision_ms"]), bank_ms=int(data["bank_ms"]),
                       max_faults=int(data["max_faults"]),
                       isolation=dict(data.get("isolation") or {"level": "sandbox"}),
                       files_sha256={str(k): str(v) for k, v in (data.get("files_sha256") or {}).items()},
                       versions={str(k): int(v) for k, v in (data.get("versions") or {}).items()},
                       game=str(data.get("game", DEFAULT_GAME)))
        except (KeyError, TypeError, ValueError) as exc:
            raise UserError(f"the stored SPRT configuration is unusable ({exc!r})") from None


def create_sprt(store: ResultStore, config: SprtConfig, seed: int | None = None) -> int:
    """Store a new SPRT; its secret key is ``seed`` or a fresh random one (as for tournaments,
    an explicit seed makes every deal predictable: local runs only)."""
    if seed is None:
        seed = new_tournament_key()
    elif not -(2**63) <= seed < 2**63:
        raise UserError(f"--seed must fit in a signed 64-bit integer, got {seed}")
    return store.create_tournament(config.game, config.to_json(), seed)


@dataclass(frozen=True)
class SprtReport:
    """Where an SPRT stands: the test's state after the deals counted so far."""

    state: SprtState
    counted_deals: int  # deals fed to the test, in order
    stored_matches: int
    max_deals: int | None

    @property
    def decided(self) -> bool:
        return self.state.decision is not Decision.CONTINUE

    @property
    def exhausted(self) -> bool:
        """No decision, and every deal allowed by ``max_deals`` is counted: the test is over."""
        return not self.decided and self.max_deals is not None and self.counted_deals >= self.max_deals

    @property
    def finished(self) -> bool:
        return self.decided or self.exhausted

    @property
    def verdict(self) -> str:
        if self.state.decision is Decision.H1:
            return "H1 accepted"
        if self.state.decision is Decision.H0:
            return "H0 accepted"
        return "inconclusive (--max-deals reached)" if self.exhausted else "undecided"

    def to_json(self) -> dict[str, Any]:
        return {**self.state.to_json(), "counted_deals": self.counted_deals, "stored_matches": self.stored_matches,
                "max_deals": self.max_deals, "verdict": self.verdict, "finished": self.finished}


class SprtProgress:
    """The results stored so far and the test fed with the deals complete in order.

    Thread-safe: the executor's worker threads :meth:`add` results as matches end.
    """

    def __init__(self, config: SprtConfig, key: int, stored: dict[int, dict[str, int]]) -> None:
        self.config = config
        self._entrants = config.entrants()
        self._key = key
        self._lock = threading.Lock()
        self._results: dict[int, dict[str, int]] = {}
        self._deals: dict[int, Deal] = {}
        self._test = SequentialTest(config.params())
        self._counted = 0
        for index, places in stored.items():
            self._results[index] = dict(places)
        with self._lock:
            self._advance()

    def deal(self, number: int) -> Deal:
        found = self._deals.get(number)
        if found is None:
            found = self._deals[number] = deal(self._entrants, self._key, number)
        return found

    def is_stored(self, index: int) -> bool:
        with self._lock:
            return index in self._results

    def add(self, index: int, places: dict[str, int]) -> SprtReport:
        """One more stored match; the test takes every deal that is now complete in order."""
        with self._lock:
            self._results.setdefault(index, dict(places))
            self._advance()
            return self._report()

    def report(self) -> SprtReport:
        with self._lock:
            return self._report()

    def _report(self) -> SprtReport:
        return SprtReport(state=self._test.state(), counted_deals=self._counted,
                          stored_matches=len(self._results), max_deals=self.config.max_deals)

    def _advance(self) -> None:
        while not self._report().finished:
            nxt = self.deal(self._counted + 1)
            if not all(i in self._results for i in nxt.indexes):
                return
            new, old = deal_scores(nxt, self._results)
            self._test.add(float(new), float(old))
            self._counted += 1

    def pending(self, stop: threading.Event) -> Iterator[Pairing]:
        """The pairings not stored yet, deal after deal, until the test is over or ``stop`` is set."""
        number = 1
        while not stop.is_set() and not self.report().finished:
            if self.config.max_deals is not None and number > self.config.max_deals:
                return
            for pairing in self.deal(number).pairings:
                if stop.is_set() or self.report().finished:
                    return
                if not self.is_stored(pairing.index):
                    yield pairing
            number += 1


def places_of(record: MatchRecord) -> dict[str, int]:
    """A match's finishing order: bot name -> place (the seats name versions, ``NAME@N``: one
    version of each bot plays an SPRT), and the game's reference participants' places (``(NAME)``)."""
    return {_bot_name(who): place for who, place in record.rated_places.items()}


def stored_places(store: ResultStore, tournament_id: int) -> dict[int, dict[str, int]]:
    """Schedule index -> finishing order (bot name -> place) of every stored match of the tournament."""
    return {m.order[1]: {_bot_name(who): place for who, place in m.places.items()}
            for m in store.rated_matches(tournament_id)}


def _bot_name(participant: str) -> str:
    parts = None if is_reference_participant(participant) else split_participant(participant)
    return participant if parts is None else parts[0]


def config_of(row: Any) -> SprtConfig:
    """A stored SPRT's configuration, its game from the tournament row."""
    return SprtConfig.from_json({**row.config, "game": row.game})


def load_progress(store: ResultStore, tournament_id: int) -> tuple[SprtConfig, SprtProgress]:
    row = store.get_tournament(tournament_id)
    if not is_sprt(row.config):
        raise UserError(f"tournament {tournament_id} is not an SPRT")
    config = config_of(row)
    return config, SprtProgress(config, row.seed, stored_places(store, tournament_id))


@dataclass
class SprtSummary:
    report: SprtReport
    execution: ExecutionSummary
    failed: bool = False

    @property
    def complete(self) -> bool:
        return self.report.finished and not self.failed


def _check_frozen(store: ResultStore, config: SprtConfig) -> dict[str, Any]:
    rows = {}
    for name in config.bots:
        if name in config.versions:  # the version the test started with (its files are checked by spec_for)
            rows[name] = store.get_bot(participant_name(name, config.versions[name]))
            continue
        row = store.get_bot(name)
        expected = config.files_sha256.get(name)
        if expected is not None and row.files_sha256 != expected:
            raise UserError(f"bot {name!r} changed since this SPRT started (its registered files hash is no "
                            "longer the one tested); a test compares fixed bots: start a new one")
        rows[name] = row
    return rows


def run_sprt(
    store: ResultStore,
    tournament_id: int,
    *,
    concurrency: int | None = None,
    log_dir: Any,
    on_start: Callable[[SprtReport], None] | None = None,
    on_done: Callable[[Outcome[MatchRecord], SprtReport], None] | None = None,
    cancel: threading.Event | None = None,
    policy: IsolationPolicy | None = None,
) -> SprtSummary:
    """Play deals until the test decides (or ``max_deals``), storing every match as it ends.

    ``on_start(report)`` is called once with what the stored matches already say;
    ``on_done(outcome, report)`` after every match (from the trio thread).  A match the
    host could not finish stops the test (its deal cannot be counted without it): the
    tournament is left ``interrupted`` and resuming plays it again.  Ends ``finished``
    once the test is over, else ``interrupted``.
    """
    config, progress = load_progress(store, tournament_id)
    rows = _check_frozen(store, config)
    specs = {name: spec_for(row) for name, row in rows.items()}
    shared = config.tournament()
    match_config = shared.match_config()
    policy = policy if policy is not None else shared.policy()
    if policy.sandboxed:
        try:
            require_sandbox()
        except SandboxUnavailable as exc:
            raise UserError(str(exc)) from None
    workers = concurrency or config.concurrency
    if on_start:
        on_start(progress.report())
    stop = cancel if cancel is not None else threading.Event()
    summary = SprtSummary(report=progress.report(), execution=ExecutionSummary(scheduled=0))
    if summary.report.finished:
        store.set_tournament_status(tournament_id, TournamentStatus.FINISHED)
        return summary
    store.set_tournament_status(tournament_id, TournamentStatus.RUNNING)
    try:
        # NEW and OLD sit at every table: as many spares as a gauntlet's candidate
        spares = spares_per_bot(TournamentConfig(bots=shared.bots, table_sizes=shared.table_sizes,
                                                 gauntlet=config.candidate), workers, policy)
        with BotPool(log_dir=log_dir, policy=policy, game=config.game, spares=spares) as pool:
            pool.prepare(list({id(s): s for s in specs.values()}.values()))

            def play(pairing: Pairing, cancel_event: threading.Event) -> MatchRecord:
                return run_match(pool, [specs[name] for name in pairing.seats], seed=pairing.seed,
                                 variant=pairing.variant, match_id=new_match_id(),
                                 names=[rows[name].participant for name in pairing.seats],
                                 config=match_config, cancel=cancel_event)

            def record(pairing: Pairing, rec: MatchRecord) -> None:
                try:
                    store.record_match(tournament_id, pairing.index, pairing.round, rec)
                except AlreadyRecorded:  # another host stored it first: count what is stored
                    places = stored_places(store, tournament_id).get(pairing.index)
                    if places is not None and progress.add(pairing.index, places).finished:
                        stop.set()
                    raise AlreadyStored() from None
                if progress.add(pairing.index, places_of(rec)).finished:
                    stop.set()  # decided: stop the matches of later deals, start no more

            def done(outcome: Outcome[MatchRecord]) -> None:
                if outcome.error is not None:
                    summary.failed = True
                    stop.set()
                if on_done:
                    on_done(outcome, progress.report())

            summary.execution = trio.run(lambda: execute(
                progress.pending(stop), play, record, concurrency=workers, cancel=stop, on_done=done,
                is_cancellation=lambda exc: isinstance(exc, MatchCancelled)))
    finally:
        summary.report = progress.report()
        status = TournamentStatus.FINISHED if summary.report.finished else TournamentStatus.INTERRUPTED
        store.set_tournament_status(tournament_id, status)
    return summary

