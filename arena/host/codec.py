"""Engine data <-> protocol messages, for every game: a dispatcher by game name.

The host turns what an engine produces (an observation dict, an action's text and
structured form, the board data, an :class:`~arena.games.base.Outcome`) into
``arena.v1`` messages; a Python bot turns the messages back into the very dicts the
engine produced (``observation_from_proto(observation_to_proto(d)) == d``).  The
game-specific part is each game's wire kit (``arena/games/GAME/kit/wire.py``, found
by :func:`arena.games.game_kit`); this module names no game.

A wire kit is a module offering:

``GAME``, ``ONEOF``
    The game's name and the name of its member in the ``game`` oneofs of
    ``Observation``, ``Action`` and ``Board`` (by convention the same string).
``observation_to_proto(dict) -> message`` / ``observation_from_proto(message) -> dict``
    The engine's ``state.observation(seat)`` and the game's observation message.
``observation_decoders() -> {key: function(message) -> value}`` (optional)
    Per observation key, in ``observation_from_proto``'s order, its value read from the
    message alone: the SDK's lazy observation (:func:`lazy_observation_from_proto`)
    decodes a key when the bot first reads it.
``action_to_proto(dict) -> message`` / ``action_from_proto(message) -> dict``
    An action's structured form (``state.describe_action(a)``) and the game's action message.
``board_to_proto(dict) -> message`` / ``board_from_proto(message) -> dict``
    The game's board data (``game.board.data``) and the game's board message.
``event_to_proto`` / ``event_from_proto`` (optional)
    One public event, for tests and tools.
``observation_encoder() -> encoder`` (optional)
    A fast path for the host: a fresh object per match whose ``encode(observation)``
    returns the bytes of the game's observation message (without it the host
    serializes ``observation_to_proto``).
``state_encoder() -> encoder`` (optional)
    A faster path still: a fresh object per match whose ``encode(state, seat)`` returns
    the bytes of ``observation_to_proto(state.observation(seat))`` written from the state
    itself (no dict), or None when it cannot (the host then encodes the dict).
``RESULT_CASH`` (optional, default False)
    Also send the final scores as ``MatchResult.cash`` (Union Pacific, for bots older
    than ``MatchResult.scores``).

Every ``*_to_proto`` checks its input's keys and raises :class:`CodecError`, naming
the key, for a missing or unknown one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any, Iterable, Sequence

from arena.games.base import GameState, Outcome, Termination
from arena.games.registry import game_kit, registered_games
from arena.protocol.lazy import LazyDict, placeholders
from arena.protocol.wire_checks import CodecError, build
from arena.protocol.wirebytes import length_prefixed, tag
from arena.records import MatchTermination
from arena.v1 import bot_pb2


@dataclass(frozen=True)
class LegalAction:
    """One legal action as a bot sees it: its index, text and structured form."""

    index: int
    text: str
    action: dict[str, Any]


# ------------------------------------------------------------------ the kits


@lru_cache(maxsize=None)
def wire_of(game: str) -> ModuleType:
    """The wire kit of ``game`` (a registered game's name); CodecError for any other name."""
    try:
        wire = game_kit(game).wire
    except (LookupError, ValueError) as exc:  # an unknown game, or one without a wire kit
        raise CodecError(str(exc)) from None
    if getattr(wire, "ONEOF", None) not in bot_pb2.Observation.DESCRIPTOR.fields_by_name:
        raise CodecError(f"the wire kit of {game!r} names no member of the Observation oneof")
    return wire


_MEMBER_WIRES: dict[str, ModuleType] = {}  # oneof member name -> its game's wire kit (filled when first asked)


def _member_wire(message: Any, where: str) -> tuple[ModuleType, Any]:
    """The wire kit for the ``game`` member set in ``message``, and that member."""
    member = message.WhichOneof("game")
    if member is None:
        raise CodecError(f"{where}: no game member is set")
    wire = _MEMBER_WIRES.get(member)
    if wire is None:
        for spec in registered_games():
            candidate = wire_of(spec.name)
            if candidate.ONEOF == member:
                wire = _MEMBER_WIRES[member] = candidate
                break
        else:
            raise CodecError(f"{where}: unsupported game member {member!r}")  # pragma: no cover
    return wire, getattr(message, member)


def game_of(message: Any) -> str:
    """The game whose member is set in an ``Observation``, ``Action`` or ``Board``."""
    return _member_wire(message, type(message).__name__)[0].GAME


# ------------------------------------------------------------------ observation


def observation_to_proto(observation: Mapping[str, Any]) -> bot_pb2.Observation:
    """An engine observation dict (its ``"game"`` key names the game) as an ``Observation``."""
    game = observation.get("game") if isinstance(observation, Mapping) else None
    if not isinstance(game, str):
        raise CodecError(f"observation: expected a dict with a 'game' name, got {type(observation).__name__}")
    wire = wire_of(game)
    return bot_pb2.Observation(**{wire.ONEOF: wire.observation_to_proto(observation)})


def observation_from_proto(message: bot_pb2.Observation) -> dict[str, Any]:
    """The observation dict the engine produced, rebuilt from an ``Observation``."""
    wire, member = _member_wire(message, "observation")
    return wire.observation_from_proto(member)


@lru_cache(maxsize=None)
def _lazy_parts(wire: ModuleType) -> tuple[Any, dict[str, Any]] | None:
    make = getattr(wire, "observation_decoders", None)
    if make is None:
        return None
    decoders = make()
    return decoders, placeholders(decoders)


def lazy_observation_from_proto(message: bot_pb2.Observation) -> dict[str, Any]:
    """:func:`observation_from_proto`'s dict, each value decoded when first read (a
    :class:`~arena.protocol.lazy.LazyDict`; what the Python SDK gives a bot).  A game whose
    wire kit has no ``observation_decoders`` gets the eager dict."""
    wire, member = _member_wire(message, "observation")
    parts = _lazy_parts(wire)
    if parts is None:
        return wire.observation_from_proto(member)
    return LazyDict(member, parts[0], parts[1])


class _PlainEncoder:
    """The fallback observation encoder: protobuf's own serialization."""

    __slots__ = ("wire",)

    def __init__(self, wire: ModuleType) -> None:
        self.wire = wire

    def encode(self, observation: Mapping[str, Any]) -> bytes:
        return self.wire.observation_to_proto(observation).SerializeToString(deterministic=True)


class ObservationEncoder:
    """Encodes one match's observations (any game) as ``Observation`` bytes.

    Uses the game's fast encoder when its kit has one (a fresh one per game seen, so
    one ``ObservationEncoder`` per match keeps the reuse of unchanged fields).
    """

    __slots__ = ("_by_game", "_from_state")

    def __init__(self) -> None:
        self._by_game: dict[str, tuple[Any, bytes]] = {}
        #: _from_state[game]: (the kit's state encoder or None, the member's tag)
        self._from_state: dict[str, tuple[Any, bytes]] = {}

    def encode_state(self, game: str, state: GameState, seat: int) -> bytes:
        """The serialized ``Observation`` of ``state.observation(seat)`` (``state`` a game of
        ``game``), written from the state when the game's kit can, else from the dict."""
        entry = self._from_state.get(game)
        if entry is None:
            wire = wire_of(game)
            make = getattr(wire, "state_encoder", None)
            number = bot_pb2.Observation.DESCRIPTOR.fields_by_name[wire.ONEOF].number
            entry = self._from_state[game] = (make() if make is not None else None, tag(number, 2))
        encoder, member_tag = entry
        body = encoder.encode(state, seat) if encoder is not None else None
        if body is None:
            return self.encode(state.observation(seat))
        return length_prefixed(member_tag, body)

    def member_bytes(self, observation: Mapping[str, Any]) -> tuple[bytes, bytes]:
        """The ``Observation`` wrapper's tag for the game's member, and the member's bytes."""
        game = observation.get("game") if isinstance(observation, Mapping) else None
        entry = self._by_game.get(game) if isinstance(game, str) else None
        if entry is None:
            if not isinstance(game, str):
                raise CodecError("observation: expected a dict with a 'game' name")
            wire = wire_of(game)
            make = getattr(wire, "observation_encoder", None)
            encoder = make() if make is not None else _PlainEncoder(wire)
            number = bot_pb2.Observation.DESCRIPTOR.fields_by_name[wire.ONEOF].number
            entry = self._by_game[game] = (encoder, tag(number, 2))
        return entry[1], entry[0].encode(observation)

    def encode(self, observation: Mapping[str, Any]) -> bytes:
        """The serialized ``Observation`` (its game member set)."""
        member_tag, body = self.member_bytes(observation)
        return length_prefixed(member_tag, body)


# ---------------------------------------------------------------------- actions


def action_to_proto(index: int, text: str, action: Mapping[str, Any], *, game: str) -> bot_pb2.Action:
    """One legal action of ``game``: its ``index`` in the legal list, its text and structured form."""
    wire = wire_of(game)
    return build("action", bot_pb2.Action, index=index, text=text, **{wire.ONEOF: wire.action_to_proto(action)})


def action_from_proto(message: bot_pb2.Action) -> LegalAction:
    """The index, text and structured dict of an ``Action``."""
    wire, member = _member_wire(message, "action")
    return LegalAction(message.index, message.text, wire.action_from_proto(member))


def legal_actions_to_proto(state: GameState, actions: Sequence[int], *, game: str) -> list[bot_pb2.Action]:
    """The ``Action`` list for engine action ids ``actions`` (index i is ``actions[i]``)."""
    return [action_to_proto(i, state.action_to_string(a), state.describe_action(a), game=game)
            for i, a in enumerate(actions)]


# ------------------------------------------------------------------------ board


def board_to_proto(board: Mapping[str, Any], *, game: str) -> bot_pb2.Board:
    """``game``'s board data (as loaded from its board file) as a ``Board``."""
    wire = wire_of(game)
    return bot_pb2.Board(**{wire.ONEOF: wire.board_to_proto(board)})


def board_from_proto(message: bot_pb2.Board) -> dict[str, Any]:
    """The board data, rebuilt from a ``Board``."""
    wire, member = _member_wire(message, "board")
    return wire.board_from_proto(member)


# ----------------------------------------------------------------------- result


def _termination_to_proto(termination: Termination | MatchTermination) -> int:
    if not isinstance(termination, (Termination, MatchTermination)):
        raise CodecError(f"result: termination must be an enum member, got {termination!r}")
    return bot_pb2.Termination.Value(f"TERMINATION_{termination.value.upper()}")


def match_result_to_proto(
    scores: Mapping[str, int],
    places: Mapping[str, int],
    termination: Termination | MatchTermination,
    forfeited_seats: Iterable[int] = (),
    *,
    game: str,
) -> bot_pb2.MatchResult:
    """A ``MatchResult``: score and place per participant (``"0"``.. plus the game's others).

    ``scores`` fills ``MatchResult.scores``, and ``cash`` too when the game's wire kit
    says so (``RESULT_CASH``: Union Pacific, whose older bots read ``cash``).
    """
    wire = wire_of(game)
    scores = dict(scores)
    return build(
        "result",
        bot_pb2.MatchResult,
        cash=scores if getattr(wire, "RESULT_CASH", False) else {},
        scores=scores,
        places=dict(places),
        termination=_termination_to_proto(termination),
        forfeited_seats=sorted(forfeited_seats),
    )


def outcome_to_proto(outcome: Outcome, *, game: str) -> bot_pb2.MatchResult:
    """The ``MatchResult`` of a game the rules ended (no forfeit); ``outcome.extra`` is not sent."""
    return match_result_to_proto(outcome.cash, outcome.places, outcome.termination, game=game)


def _participant_order(participant: str) -> tuple[int, int, str]:
    return (0, int(participant), "") if participant.isdigit() else (1, 0, participant)


def match_result_from_proto(message: bot_pb2.MatchResult) -> dict[str, Any]:
    """A ``MatchResult`` as ``{"scores", "cash", "places", "termination", "forfeited_seats"}``.

    ``scores`` is every game's final score per participant (from a host older than the
    ``scores`` field: its ``cash``); ``cash`` is what the message holds (Union Pacific
    only).  ``termination`` is the lower-case name (``"normal"``, ``"stalemate"``,
    ``"forfeit"``, ``"error"``), as in :class:`~arena.records.MatchTermination`;
    participants come seats first (by number), then the others.
    """
    name = bot_pb2.Termination.Name(message.termination)
    scores = message.scores if message.scores else message.cash
    return {
        "scores": {p: scores[p] for p in sorted(scores, key=_participant_order)},
        "cash": {p: message.cash[p] for p in sorted(message.cash, key=_participant_order)},
        "places": {p: message.places[p] for p in sorted(message.places, key=_participant_order)},
        "termination": name.removeprefix("TERMINATION_").lower(),
        "forfeited_seats": list(message.forfeited_seats),
    }


__all__ = [
    "CodecError",
    "LegalAction",
    "ObservationEncoder",
    "action_from_proto",
    "action_to_proto",
    "board_from_proto",
    "board_to_proto",
    "game_of",
    "lazy_observation_from_proto",
    "legal_actions_to_proto",
    "match_result_from_proto",
    "match_result_to_proto",
    "observation_from_proto",
    "observation_to_proto",
    "outcome_to_proto",
    "wire_of",
]
