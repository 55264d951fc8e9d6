"""The match runner: one match between bots (and in-process players), synchronous, in one thread.

:func:`run_match` asks each seat's bot for its decisions over gRPC with the clocks'
deadlines.  When a reply cannot be used (a timeout, a crash or lost connection, a
malformed or out-of-range reply, a gRPC error) the seat's seeded fallback (a
:class:`~arena.policies.RandomPolicy`) decides instead and a typed
:class:`~arena.records.Fault` is recorded.  After ``max_faults`` faults, or a crash
that one restart does not cure, the seat forfeits: the fallback plays the rest of
its decisions and it is placed last whatever its cash.  The result is one
:class:`~arena.records.MatchRecord` with the replay, faults and forfeits included.

A cooperative cancel (a ``threading.Event``) is checked between decisions; a
cancelled match raises :class:`MatchCancelled` and leaves no record.
"""

from __future__ import annotations

import hashlib
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from arena.games import DEFAULT_GAME, get_game
from arena.games.base import Game, GameState
from arena.host import codec
from arena.host.client import Decision, SeatClient, encoder_for
from arena.host.codec import ObservationEncoder
from arena.host.clock import Clocks
from arena.host.manifest import BotSpec
from arena.host.cgroups import open_cgroups
from arena.host.process import BotHandle, BotPool, BotStartError
from arena.policies import Policy, RandomPolicy
from arena.matchids import new_match_id
from arena.records import Fault, FaultReason, MatchRecord, MatchTermination, ReferenceResult, SeatResult
from arena.replay import build_replay
from arena.v1 import bot_pb2

_DETAIL_CHARS = 1000


@dataclass(frozen=True)
class MatchConfig:
    """How matches are played: clocks, the fault limit, the set-up call deadline, debug text size."""

    clocks: Clocks = field(default_factory=Clocks)
    max_faults: int = 3
    setup_timeout_s: float = 5.0  # StartMatch and EndMatch
    debug_chars: int = 200

    def __post_init__(self) -> None:
        if self.max_faults < 1:
            raise ValueError(f"max_faults must be at least 1, got {self.max_faults}")


@dataclass(frozen=True)
class LocalPlayer:
    """A seat played in-process by ``policy`` (no process, no clock, never a fault)."""

    name: str
    policy: Policy


class MatchCancelled(Exception):
    """The match was stopped by its cancel event; it has no result."""


def fallback_seed(seed: int, seat: int) -> int:
    """The seed of ``seat``'s fallback policy in the match with deck seed ``seed``."""
    digest = hashlib.sha256(f"arena.host.fallback:{seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def ranked_with_forfeits(places: Mapping[str, int], forfeited: set[str]) -> dict[str, int]:
    """The game's places (1 is best; its rules broke ties) with the forfeited participants last.

    The others keep their order: a participant's place is one plus the number of
    others not forfeited placed strictly better; the forfeited share the place after them.
    """
    ranked = {p: v for p, v in places.items() if p not in forfeited}
    last = len(ranked) + 1
    return {p: last if p in forfeited else 1 + sum(1 for v in ranked.values() if v < mine)
            for p, mine in places.items()}


def places_with_forfeits(cash: Mapping[str, int], forfeited: set[str]) -> dict[str, int]:
    """Places by cash (1 is best, equal cash shares a place) with the forfeited participants last.

    The forfeited share the place after every other participant, whatever their cash.
    """
    ranked = {p: c for p, c in cash.items() if p not in forfeited}
    last = len(ranked) + 1
    return {p: last if p in forfeited else 1 + sum(1 for v in ranked.values() if v > c) for p, c in cash.items()}


_BOARDS: "weakref.WeakKeyDictionary[Game, bot_pb2.Board]" = weakref.WeakKeyDictionary()


def _board_message(game: Game) -> bot_pb2.Board:
    board = _BOARDS.get(game)
    if board is None:
        board = _BOARDS.setdefault(game, codec.board_to_proto(game.board.data, game=game.name))  # type: ignore[attr-defined]
    return board


class _Seat:
    """One seat's side of the match: who plays it, its fallback, faults and forfeit."""

    def __init__(self, seat: int, entry: BotSpec | LocalPlayer, fallback: RandomPolicy) -> None:
        self.seat = seat
        self.entry = entry
        self.fallback = fallback
        self.name = entry.name if isinstance(entry, LocalPlayer) else entry.label
        self.handle: BotHandle | None = None
        self.client: SeatClient | None = None
        self.started_generation: int | None = None
        self.faults: list[Fault] = []
        self.forfeit: dict[str, Any] | None = None

    @property
    def asks_bot(self) -> bool:
        return self.client is not None and self.forfeit is None


class _Match:
    def __init__(self, pool: BotPool, game: Game, entries: Sequence[BotSpec | LocalPlayer], *, seed: int,
                 variant: str, match_id: str, names: Sequence[str] | None, config: MatchConfig,
                 cancel: threading.Event | None) -> None:
        self.pool = pool
        self.game = game
        self.seed = seed
        self.variant = variant
        self.match_id = match_id
        self.config = config
        self.cancel = cancel
        self.seats = [_Seat(i, e, RandomPolicy(fallback_seed(seed, i))) for i, e in enumerate(entries)]
        self.names = list(names) if names is not None else None
        self.state: GameState = game.new_state(len(entries), seed, variant)
        self.encoder = encoder_for(game)
        self.observations = ObservationEncoder()  # shared by the seats: an observation repeats most fields
        self.number = 0
        self.restarted: dict[str, int] = {}  # bot key -> generation after this match's restart
        self.restarts: list[dict[str, Any]] = []
        self.notes: list[dict[str, Any]] = []
        self.debug: list[dict[str, Any]] = []

    # -- set-up ------------------------------------------------------------------

    def _seat_key(self, s: _Seat) -> str:
        """Which seats share a process: one per seat with fresh processes, else one per bot."""
        assert isinstance(s.entry, BotSpec)
        if self.pool.fresh and s.entry.manifest is not None:
            return f"{s.entry.key}#{self.match_id}/{s.seat}"
        return s.entry.key

    def connect(self) -> None:
        specs: dict[str, tuple[BotSpec, str | None]] = {}
        for s in self.seats:
            if isinstance(s.entry, BotSpec):
                key = self._seat_key(s)
                specs.setdefault(key, (s.entry, f"{self.match_id}/{s.seat}" if key != s.entry.key else None))
        results: dict[str, BotHandle | BotStartError] = {}

        def acquire(item: tuple[BotSpec, str | None]) -> BotHandle | BotStartError:
            try:
                return self.pool.acquire(item[0], lease=item[1])
            except BotStartError as exc:
                return exc

        if len(specs) > 1:
            with ThreadPoolExecutor(max_workers=len(specs), thread_name_prefix="arena-acquire") as executor:
                for key, result in zip(specs, executor.map(acquire, specs.values())):
                    results[key] = result
        else:
            results = {key: acquire(item) for key, item in specs.items()}
        for s in self.seats:
            if isinstance(s.entry, BotSpec) and not isinstance(results[self._seat_key(s)], BotStartError):
                s.handle = results[self._seat_key(s)]  # type: ignore[assignment]
        refused = self.impostors()
        for s in self.seats:
            if not isinstance(s.entry, BotSpec):
                continue
            result = results[self._seat_key(s)]
            if s.seat in refused:
                result = BotStartError(refused[s.seat])
            if isinstance(result, BotStartError):
                s.handle = None
                s.faults.append(Fault(s.seat, 0, FaultReason.NOT_READY, _cut(str(result), _DETAIL_CHARS)))
                s.forfeit = {"seat": s.seat, "decision": 0, "reason": "the bot never became ready"}
                continue
            s.handle = result
            s.name = result.name
            s.client = SeatClient(result.connection, match_id=self.match_id, seat=s.seat,
                                  clocks=self.config.clocks, encoder=self.encoder,
                                  setup_timeout_s=self.config.setup_timeout_s, observations=self.observations)
        for s in self.seats:
            if s.asks_bot:
                self.refresh(s)

    def impostors(self) -> dict[int, str]:
        """Seats whose bot does not list the match's game in Describe, or whose bot at an
        address claims a name it may not use: another seat's bot's name, or not the name
        it was entered under."""
        refused: dict[int, str] = {}
        by_name: dict[str, str] = {}
        for s in self.seats:
            if s.handle is not None and s.handle.process is not None:
                by_name.setdefault(s.handle.name, s.handle.spec.key)
        game = self.game.name
        for s in self.seats:
            handle = s.handle
            if handle is not None and game not in handle.describe.games:
                refused[s.seat] = (f"the bot {handle.name!r} cannot play {game!r}: its Describe lists the games "
                                   f"{list(handle.describe.games)}")
                continue
            if handle is None or handle.process is not None:
                continue
            claimed = handle.describe.name
            expected = handle.spec.name or (self.names[s.seat] if self.names is not None else None)
            if expected is not None and claimed != expected:
                refused[s.seat] = (f"the bot at {handle.spec.address} calls itself {claimed!r} in Describe, "
                                   f"but it was entered as {expected!r}")
            elif by_name.get(claimed, handle.spec.key) != handle.spec.key:
                refused[s.seat] = (f"the bot at {handle.spec.address} calls itself {claimed!r}, the name of "
                                   "another bot in this match")
        return refused

    def release(self) -> None:
        """Give the seats' processes back to the pool (fresh ones are stopped)."""
        self.pool.release([s.handle for s in self.seats if s.handle is not None])

    def start_request(self, seat: int) -> bot_pb2.StartMatchRequest:
        return bot_pb2.StartMatchRequest(match_id=self.match_id, seat=seat, num_players=len(self.seats),
                                         variant=self.variant, game=self.game.name,
                                         board=_board_message(self.game))

    def refresh(self, s: _Seat) -> None:
        """Follow a restart of the seat's bot (here or in another match): StartMatch again."""
        assert s.handle is not None and s.client is not None
        current = self.pool.current(s.handle)
        if current is not s.handle:
            s.handle = current
            s.client.connection = current.connection
        if s.started_generation != s.handle.generation:
            s.started_generation = s.handle.generation
            fault = s.client.start_match(self.start_request(s.seat))
            if fault is not None:
                self.fault(s, *fault)

    # -- faults --------------------------------------------------------------------

    def fault(self, s: _Seat, reason: FaultReason, detail: str) -> None:
        crashed = reason is FaultReason.DISCONNECT and self.crashed(s)
        process = s.handle.process if s.handle is not None else None
        if crashed and process is not None and process.out_of_memory():
            reason = FaultReason.OUT_OF_MEMORY
            detail = (f"the bot went over its memory limit ({process.policy.limits.memory_mb} MB) and was "
                      f"killed ({detail})")
        s.faults.append(Fault(s.seat, self.number, reason, _cut(detail, _DETAIL_CHARS)))
        if crashed:
            self.recover(s)
        if s.forfeit is None and len(s.faults) >= self.config.max_faults:
            self.forfeit(s, f"{len(s.faults)} faults (the limit is {self.config.max_faults})")

    def crashed(self, s: _Seat) -> bool:
        handle = s.handle
        if handle is None:
            return False
        if handle.process is None:
            return True  # a bot at an address that stopped answering
        # The socket closes a moment before the process is reaped: give it that moment,
        # thawed (the call's end froze it, and a frozen sandbox cannot finish exiting).
        process = handle.process
        process.thaw()
        if process.wait(0.5) is not None:
            return True
        process.freeze()
        return False

    def recover(self, s: _Seat) -> None:
        """One restart per bot per match; a second crash, or a failed restart, forfeits its seats."""
        handle = s.handle
        assert handle is not None
        status = handle.process.returncode if handle.process is not None else None
        what = f"exit status {status}" if handle.process is not None else "no answer"
        same_bot = [t for t in self.seats if t.handle is not None and t.handle.key == handle.key]
        current = self.pool.current(handle)
        if current.generation != handle.generation:
            # Already restarted since this seat last used it (the same crash, seen by another
            # seat or match): the seat moves to the new process at its next decision.
            self.restarted.setdefault(handle.key, current.generation)
            return
        if handle.key in self.restarted:
            for t in same_bot:
                self.forfeit(t, f"the bot crashed again after its restart ({what})")
            return
        try:
            new = self.pool.restart(handle)
        except BotStartError as exc:
            self.restarted[handle.key] = handle.generation
            self.restarts.append({"bot": s.name, "decision": self.number, "crash": what, "ok": False,
                                  "detail": _cut(str(exc), _DETAIL_CHARS)})
            for t in same_bot:
                self.forfeit(t, f"the bot crashed ({what}) and did not restart")
            return
        self.restarted[handle.key] = new.generation
        self.restarts.append({"bot": s.name, "decision": self.number, "crash": what, "ok": True,
                              "generation": new.generation})

    def forfeit(self, s: _Seat, reason: str) -> None:
        if s.forfeit is None:
            s.forfeit = {"seat": s.seat, "decision": self.number, "reason": reason}

    # -- decisions -----------------------------------------------------------------

    def play(self) -> None:
        state = self.state
        while not state.is_terminal():
            if self.cancel is not None and self.cancel.is_set():
                raise MatchCancelled(f"match {self.match_id} was cancelled at decision {self.number}")
            current = state.current_seats()
            if len(current) == 1:
                seat = current[0]
                state.apply_action(seat, self.decide(seat))
                self.number += 1
            else:
                for seat, action in self.decide_together(current):
                    state.apply_action(seat, action)
                    self.number += 1

    def decide(self, seat: int) -> int:
        s = self.seats[seat]
        state = self.state
        legal = state.legal_actions(seat)
        if isinstance(s.entry, LocalPlayer):
            return s.entry.policy(state, seat, legal)
        if s.asks_bot:
            self.refresh(s)
        if not s.asks_bot:
            return s.fallback(state, seat, legal)
        assert s.client is not None
        decision = s.client.decide(s.client.payload(state, self.number, None, legal), len(legal))
        return self.use(s, decision, legal)

    def decide_together(self, seats: Sequence[int]) -> list[tuple[int, int]]:
        """A simultaneous decision: every seat is asked about the same state, concurrently.

        Decision numbers follow the seat order, which is also the order the actions are applied.
        """
        state = self.state
        first = self.number
        chosen: dict[int, int] = {}
        pending = []
        for i, seat in enumerate(seats):
            s = self.seats[seat]
            legal = state.legal_actions(seat)
            self.number = first + i
            if isinstance(s.entry, LocalPlayer):
                chosen[seat] = s.entry.policy(state, seat, legal)
                continue
            if s.asks_bot:
                self.refresh(s)
            if not s.asks_bot or s.client is None:
                chosen[seat] = s.fallback(state, seat, legal)
                continue
            payload = s.client.payload(state, first + i, None, legal)
            pending.append((i, s, legal, s.client.begin(payload)))
        for i, s, legal, request in pending:
            self.number = first + i
            chosen[s.seat] = self.use(s, request.result(len(legal)), legal)
        self.number = first
        return [(seat, chosen[seat]) for seat in seats]

    def use(self, s: _Seat, decision: Decision, legal: list[int]) -> int:
        if decision.debug:
            self.debug.append({"decision": self.number, "seat": s.seat,
                               "text": _cut(decision.debug, self.config.debug_chars)})
        if decision.fault is not None or decision.index is None:
            reason, detail = decision.fault or (FaultReason.MALFORMED_REPLY, "no index")
            self.fault(s, reason, detail)
            return s.fallback(self.state, s.seat, legal)
        return legal[decision.index]

    # -- the end -------------------------------------------------------------------

    def end_all(self, result: bot_pb2.MatchResult, forfeited: set[int], timeout: float | None = None) -> None:
        for s in self.seats:
            if s.client is None or s.handle is None:
                continue
            handle = self.pool.current(s.handle)
            if not handle.alive():
                continue
            s.client.connection = handle.connection
            if timeout is not None:
                s.client.setup_timeout_s = timeout
            error = s.client.end_match(bot_pb2.EndMatchRequest(match_id=self.match_id, seat=s.seat, result=result,
                                                               forfeited=s.seat in forfeited))
            if error is not None:
                self.notes.append({"seat": s.seat, "note": _cut(error, _DETAIL_CHARS)})

    def abort(self) -> None:
        """Tell the bots the match is void (best effort, short deadline)."""
        result = codec.match_result_to_proto({}, {}, MatchTermination.ERROR, game=self.game.name)
        self.end_all(result, set(), timeout=1.0)

    def record(self, started_at: float, started: float) -> MatchRecord:
        state = self.state
        outcome = state.outcome()
        forfeited = {s.seat for s in self.seats if s.forfeit is not None}
        places = ranked_with_forfeits(outcome.places, {str(seat) for seat in forfeited})
        termination = MatchTermination.FORFEIT if forfeited else MatchTermination(outcome.termination.value)
        self.end_all(codec.match_result_to_proto(outcome.cash, places, termination, forfeited, game=self.game.name),
                     forfeited)
        names = self.names or [s.name for s in self.seats]
        duration = time.monotonic() - started
        seats = tuple(
            SeatResult(seat=s.seat, bot=names[s.seat], score=outcome.cash[str(s.seat)], place=places[str(s.seat)],
                       forfeited=s.forfeit is not None, faults=tuple(s.faults))
            for s in self.seats
        )
        references = tuple(ReferenceResult(name, outcome.cash[name], places[name])
                           for name in self.game.spec.reference(len(self.seats)))
        match = {
            "match_id": self.match_id,
            "termination": termination.value,
            "cash": dict(outcome.cash),
            "places": places,
            "forfeited_seats": sorted(forfeited),
            "faults": [f.to_json() for s in self.seats for f in s.faults],
            "forfeits": [s.forfeit for s in self.seats if s.forfeit is not None],
            "restarts": self.restarts,
            "clocks": self.config.clocks.to_json(),
            "isolation": self.isolation_json(),
            "max_faults": self.config.max_faults,
            "seats": [self.seat_json(s, names[s.seat]) for s in self.seats],
            "debug": self.debug,
            "notes": self.notes,
            "started_at": started_at,
            "duration_s": round(duration, 3),
        }
        replay = build_replay(self.game, state, seed=self.seed, variant=self.variant, seats=names, match=match)
        return MatchRecord(
            match_id=self.match_id, game=self.game.name, seed=self.seed, variant=self.variant,
            players=len(self.seats), seats=seats, termination=termination, replay=replay,
            started_at=started_at, duration_s=duration, references=references,
            extra={"decisions": len(state.history), "restarts": len(self.restarts)},
        )

    def isolation_json(self) -> dict[str, Any]:
        """How the match's bot processes were isolated, and which limits the host enforced."""
        policy = self.pool.policy
        data: dict[str, Any] = {"level": policy.level.value, "fresh_processes": policy.fresh_processes,
                                "limits": policy.limits.to_json() if policy.sandboxed else {}}
        if policy.sandboxed:
            cgroups = open_cgroups()
            data["enforced_by"] = {"cgroups": cgroups.kind if cgroups is not None else None,
                                   "cgroup_limits": sorted(cgroups.enforced) if cgroups is not None else [],
                                   "rlimits": ["file_mb"] + ([] if cgroups is not None and "memory" in cgroups.enforced
                                                             else ["memory_mb (per process)"])}
        return data

    @staticmethod
    def seat_json(s: _Seat, name: str) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": s.seat, "bot": name}
        if isinstance(s.entry, LocalPlayer):
            data["kind"] = "local"
            return data
        data["kind"] = "bot"
        if s.handle is not None:
            data["address"] = s.handle.connection.address
            data["version"] = s.handle.describe.version
        if s.client is not None:
            data["clock"] = s.client.clock.to_json()
        return data


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def run_match(
    pool: BotPool,
    seats: Sequence[BotSpec | LocalPlayer],
    *,
    seed: int,
    variant: str = "standard",
    match_id: str | None = None,
    names: Sequence[str] | None = None,
    config: MatchConfig | None = None,
    cancel: threading.Event | None = None,
    game: Game | None = None,
) -> MatchRecord:
    """Play one match and return its record (result, faults, forfeits, replay).

    ``seats[i]`` plays seat ``i``: a bot (started or reused through ``pool``) or an
    in-process :class:`LocalPlayer`.  ``names`` overrides the names recorded for the
    seats (default: the manifests' names, or what a bot at an address calls itself).
    Blocks the calling thread; :class:`MatchCancelled` if ``cancel`` is set before the end.
    """
    game = game if game is not None else get_game(pool.game or DEFAULT_GAME)
    config = config if config is not None else MatchConfig()
    if not game.min_players <= len(seats) <= game.max_players:
        raise ValueError(f"{game.name} is played by {game.min_players} to {game.max_players} seats, "
                         f"not {len(seats)}")
    if names is not None and len(names) != len(seats):
        raise ValueError(f"{len(names)} names for {len(seats)} seats")
    if variant not in game.variants:
        raise ValueError(f"unknown variant {variant!r} (known: {', '.join(game.variants)})")
    match = _Match(pool, game, seats, seed=seed, variant=variant, match_id=match_id or new_match_id(),
                   names=names, config=config, cancel=cancel)
    started_at = time.time()
    started = time.monotonic()
    try:
        try:
            match.connect()
            match.play()
        except BaseException as exc:
            if not isinstance(exc, KeyboardInterrupt):
                match.abort()
            raise
        return match.record(started_at, started)
    finally:
        match.release()
