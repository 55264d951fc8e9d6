"""The Python bot SDK: write one class with one method, call :func:`serve`.

::

    from arena.sdk import Bot, serve

    class RandomBot(Bot):
        name = "random-bot"; version = "1.0.0"; author = "Arena"

        def decide(self, observation: dict, legal_actions) -> int:
            return self.match.rng.randrange(len(legal_actions))

    if __name__ == "__main__":
        serve(RandomBot())

``observation`` is the very dict the engine built for the seat (docs/protocol.md
lists its keys), each value decoded from the request when the bot first reads it (a
``dict`` subclass, :class:`arena.protocol.lazy.LazyDict`); ``legal_actions`` is a
read-only sequence of :class:`~arena.host.codec.LegalAction` (``.index``, ``.text``, ``.action``: the
structured dict), decoded only when read.  ``decide`` returns an index into it
(or ``(index, debug_text)``).

:func:`serve` speaks the protocol: it listens where the host says
(``ARENA_BOT_ADDRESS``, else ``--address``, else ``--port``/``ARENA_BOT_PORT`` on
``127.0.0.1``; a ``unix:/path`` socket or ``HOST:PORT``), runs a gRPC server with
a thread pool (one process plays many matches at once; the per-match
:class:`Match` is kept per ``(match_id, seat)``), answers ``Describe``, exits as
soon as stdin reaches EOF (the host is gone), stops gracefully on SIGTERM, and
answers an exception in a hook with a gRPC error status (the host records a
fault) while the server keeps serving.
"""

from __future__ import annotations

import logging
import operator
import random
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from typing import TYPE_CHECKING, Any, overload

from arena.games.registry import DEFAULT_GAME, starts_at_setup
from arena.host import codec
from arena.host.codec import LegalAction
from arena.protocol.lazy import LazyDict, NotDecodable
from arena.sdk_address import (ADDRESS_ENV, MAX_SOCKET_PATH_BYTES, PORT_ENV, ServeError, check_address,
                               listen_address, socket_path)
from arena.sdk_request import public_events as public_events_of
from arena.v1 import bot_pb2

if TYPE_CHECKING:
    from arena.games.union_pacific.kit.forward import ForwardModel

__all__ = ["ADDRESS_ENV", "Bot", "LegalAction", "LegalActions", "MAX_SOCKET_PATH_BYTES", "Match", "MatchResult", "PORT_ENV",
           "ServeError", "check_address", "listen_address", "make_server", "serve", "socket_path"]

log = logging.getLogger("arena.sdk")

#: The gRPC service a bot serves.
SERVICE = "arena.v1.Bot"
#: Worker threads of the gRPC server: decisions of different matches in flight at once.
DEFAULT_WORKERS = 16
#: After SIGTERM, how long in-flight calls may still finish.
STOP_GRACE_S = 2.0


@dataclass
class Match:
    """One seat of one match, as this bot process knows it; lives from StartMatch to EndMatch.

    ``rng`` is seeded from ``match_id`` and ``seat`` (the same match replays the
    same); ``data`` is free storage for the bot's own per-match state.
    """

    match_id: str
    seat: int
    num_players: int
    variant: str
    game: str
    board: dict[str, Any] | None  # the board JSON (None if StartMatch never came)
    rng: random.Random = field(repr=False)
    data: dict[str, Any] = field(default_factory=dict, repr=False)
    #: every public event this seat has been shown so far (each decision's ``public_events``, in
    #: order; from the start of the match unless this process was restarted mid-match, see
    #: :attr:`history_complete`): a property, read from the decisions' observations when first
    #: asked for (see below)
    public_events: InitVar[list[dict[str, Any]] | None] = None
    #: the clocks of the decision being made (``DecisionRequest``): its own time and the bank left
    decision_time_ms: int | None = None
    time_bank_ms: int | None = None
    _events: list[dict[str, Any]] = field(init=False, repr=False)
    # per decision whose public_events are not in _events yet: the observation's bytes (see
    # _observing) or a function giving them, decoded only if public_events is read (never from
    # the bot's own dict), or the list itself
    _unread: list[Any] = field(init=False, repr=False, compare=False)
    _events_lock: threading.Lock = field(init=False, repr=False, compare=False)

    def __post_init__(self, public_events: list[dict[str, Any]] | None) -> None:
        self._events = list(public_events) if public_events is not None else []
        self._unread = []
        self._events_lock = threading.Lock()

    def _observing(self, observation: Mapping[str, Any], data: bytes | None = None) -> None:
        """Before decide(): this decision's public events join :attr:`public_events`, as the host
        sent them whatever the bot does to its observation.  ``data``: the bytes a lazy
        observation was read from (:func:`arena.sdk_request.observation_and_bytes`), kept as they
        are (no Python object for the garbage collector to walk per decision) and decoded only if
        the log is read."""
        if data is not None:
            entry: Any = data
        elif isinstance(observation, LazyDict):
            entry = observation.reader("public_events")
        else:
            entry = list(observation.get("public_events", ()))
        with self._events_lock:
            self._unread.append(entry)

    def _public_events(self) -> list[dict[str, Any]]:
        """Every public event this seat has been shown so far (each decision's ``public_events``,
        in order, as the host sent them), decoded when first read."""
        with self._events_lock:
            while self._unread:  # each entry leaves the queue once decoded: one that does not decode
                entry = self._unread[0]  # stays, and every read says so (never a log with a hole)
                if type(entry) is bytes:
                    entry = public_events_of(entry)
                self._events.extend(entry() if callable(entry) else entry)
                del self._unread[0]
            return self._events

    @property
    def history_complete(self) -> bool:
        """Whether :attr:`public_events` reach back to the start of the match (they begin with
        its set-up event).  False before the seat's first decision, and in a process restarted
        mid-match: it was shown only the events since its seat's previous decision, so what
        happened before is unknown to it and :meth:`forward_model` raises
        :class:`arena.forward_model.PartialHistory`."""
        return starts_at_setup(self.public_events)

    def forward_model(self, observation: dict[str, Any], legal_actions: Sequence[LegalAction] | None = None,
                      seed: int | None = None) -> "ForwardModel":
        """Full game states consistent with what this seat knows, to search (see
        :mod:`arena.forward_model`; the game's kit provides it); ``seed`` defaults to one drawn
        from :attr:`rng`.  A game without one raises ``NoForwardModel``, a history that does not
        reach back to the start of the match (:attr:`history_complete`) ``PartialHistory``
        (both ``ValueError``)."""
        from arena.forward_model import forward_model, require_forward_model  # numpy: loaded by the bots that search

        require_forward_model(self.game)  # a clear error for a game without one
        if seed is None:
            seed = self.rng.getrandbits(64)
        return forward_model(self.game, self.board, observation, self.public_events, legal_actions, seed)


def _set_public_events(match: Match, events: list[dict[str, Any]]) -> None:
    with match._events_lock:
        match._events, match._unread = list(events), []


def _match_state(match: Match) -> dict[str, Any]:  # copy.deepcopy, pickle: the events, no lock
    state = {k: v for k, v in match.__dict__.items() if k not in ("_events_lock", "_unread")}
    return {**state, "_events": list(match._public_events())}


def _set_match_state(match: Match, state: dict[str, Any]) -> None:
    match.__dict__.update(state)
    match._unread, match._events_lock = [], threading.Lock()


# A property over the InitVar of the same name (Match(..., public_events=[...]) still works, and
# so do setting it, copy.deepcopy and pickle).
Match.public_events = property(Match._public_events, _set_public_events,  # type: ignore[assignment]
                               doc=Match._public_events.__doc__)
Match.__getstate__ = _match_state  # type: ignore[method-assign]
Match.__setstate__ = _set_match_state  # type: ignore[method-assign]


@dataclass(frozen=True)
class MatchResult:
    """What EndMatch says: score and place per participant ("0".., and a game's others such as
    Union Pacific's "imaginary").  ``scores`` is filled for every game; ``cash`` (the same
    numbers) only for Union Pacific, as before ``scores`` existed."""

    match_id: str
    seat: int
    cash: dict[str, int]
    places: dict[str, int]
    termination: str  # "normal", "stalemate", "forfeit" or "error"
    forfeited_seats: list[int]
    forfeited: bool
    scores: dict[str, int] = field(default_factory=dict)

    @property
    def place(self) -> int | None:
        """This seat's place (1 is best), or None when the match ended in error."""
        return self.places.get(str(self.seat))


class LegalActions(Sequence[LegalAction]):
    """The legal actions of one decision, decoded from the request only when read."""

    __slots__ = ("_messages", "_decoded", "_count", "_source")

    def __init__(self, messages: Sequence[bot_pb2.Action]) -> None:
        self._messages: Sequence[bot_pb2.Action] | None = messages
        self._count = len(messages)
        self._decoded: list[LegalAction | None] | None = None
        self._source: tuple[Callable[[bytes], Sequence[bot_pb2.Action]], bytes] | None = None

    @classmethod
    def _of_request(cls, count: int, parse: Callable[[bytes], Sequence[bot_pb2.Action]], data: bytes) -> LegalActions:
        """``count`` actions, parsed as ``parse(data)`` when one is first read."""
        legal = cls.__new__(cls)
        legal._messages, legal._count, legal._decoded, legal._source = None, count, None, (parse, data)
        return legal

    def __len__(self) -> int:
        return self._count

    def _get(self, i: int) -> LegalAction:
        decoded = self._decoded
        if decoded is None:
            decoded = self._decoded = [None] * self._count
        action = decoded[i]
        if action is None:
            messages = self._messages
            if messages is None:
                parse, data = self._source  # type: ignore[misc]
                try:
                    messages = self._messages = parse(data)
                except Exception as exc:
                    raise NotDecodable(f"the legal actions do not parse: {exc}") from exc
            try:
                action = codec.action_from_proto(messages[i])
            except codec.CodecError as exc:
                raise NotDecodable(f"legal action {i} does not decode: {exc}") from exc
            decoded[i] = action
        return action

    @overload
    def __getitem__(self, i: int) -> LegalAction: ...
    @overload
    def __getitem__(self, i: slice) -> list[LegalAction]: ...
    def __getitem__(self, i: int | slice) -> LegalAction | list[LegalAction]:
        if isinstance(i, slice):
            return [self._get(j) for j in range(*i.indices(len(self)))]
        n = self._count
        j = operator.index(i)
        if j < 0:
            j += n
        if not 0 <= j < n:
            raise IndexError(f"legal action index {i} out of range (there are {n})")
        return self._get(j)

    def __iter__(self) -> Iterator[LegalAction]:
        return map(self._get, range(self._count))

    def __repr__(self) -> str:
        return f"LegalActions({list(self)!r})"


_call = threading.local()  # the Match of the call the current thread is handling


class Bot:
    """Subclass it: set ``name``, ``version``, ``author``; write :meth:`decide`.

    During a hook, :attr:`match` is the :class:`Match` the call is about.
    """

    name: str = ""
    version: str = "0.0.0"
    author: str = ""
    language: str = "python"
    #: The games this bot plays (Describe lists them; the host refuses a bot for a game not listed).
    games: tuple[str, ...] = (DEFAULT_GAME,)

    def decide(self, observation: dict[str, Any], legal_actions: Sequence[LegalAction]) -> int | tuple[int, str]:
        """Return the index of one of ``legal_actions`` (optionally with a short debug text)."""
        raise NotImplementedError(f"{type(self).__name__} must define decide(observation, legal_actions)")

    def start_match(self, match: Match) -> None:
        """Called once per match before its first decision (override if useful)."""

    def end_match(self, result: MatchResult) -> None:
        """Called when the match is over (override if useful); its Match is dropped after."""

    @property
    def match(self) -> Match:
        """The match the current call is about (only inside decide/start_match/end_match)."""
        match = getattr(_call, "match", None)
        if match is None:
            raise RuntimeError("Bot.match is only available inside decide(), start_match() or end_match()")
        return match


# The serving half (after the classes above, which it imports).
from arena.sdk_server import make_server, serve  # noqa: E402
