"""Pure conversions between engine data (plain JSON-ready dicts) and protocol messages.

The host turns what the engine produces (an observation dict, an action's text and
structured form, the board JSON, an :class:`~arena.games.base.Outcome`) into
``arena.v1`` messages; a Python bot turns the messages back into the very dicts the
engine produced (``observation_from_proto(observation_to_proto(d)) == d``).

Every ``*_to_proto`` function checks the keys of its input and raises
:class:`CodecError`, naming the key, for a missing or unknown one: a field the
engine adds without a matching protocol field must fail loudly, never vanish.
Count maps come back in a fixed order (payout order of companies, then ``UP``;
track kinds as the rules list them); dict equality does not depend on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from arena.games.base import GameState, Outcome, Termination
from arena.host import event_codec
from arena.host.wire_checks import CodecError, build, check_keys, ordered
from arena.records import MatchTermination
from arena.v1 import bot_pb2

#: The game name of Union Pacific (observation ``"game"``, StartMatch ``game``).
UNION_PACIFIC = "union_pacific"

#: Company codes in payout order, then Union Pacific.
COMPANY_ORDER = ("EPRG", "BNL", "MS", "DM", "SFRB", "UMR", "ESL", "KCC", "MRR", "WW", "UP")

#: Track card kinds in the order the rules list them.
TRACK_ORDER = ("PLAIN", "COAST", "BORDER", "MOUNTAIN", "WILD")

_UPObs = bot_pb2.UnionPacificObservation
_UPAction = bot_pb2.UnionPacificAction
_UPBoard = bot_pb2.UnionPacificBoard


@dataclass(frozen=True)
class LegalAction:
    """One legal action as a bot sees it: its index, text and structured form."""

    index: int
    text: str
    action: dict[str, Any]


# ------------------------------------------------------------------ shared bits

_check_keys = check_keys
_ordered = ordered
_build = build


def _game_of(message: Any, where: str) -> str:
    game = message.WhichOneof("game")
    if game is None:
        raise CodecError(f"{where}: no game member is set")
    return game


# ------------------------------------------------------------------ observation

#: The observation's keys: "game", then the UnionPacificObservation fields in field-number order.
OBSERVATION_KEYS = (
    "game",
    "seat",
    "num_players",
    "variant",
    "decision",
    "current_seat",
    "turn",
    "dividends_paid",
    "dividends_to_end",
    "share_deck",
    "track_deck",
    "up_stack",
    "display",
    "track_discards",
    "boxed_four_of_a_kind",
    "free_spaces",
    "companies",
    "players",
    "hand",
    "pending_first_investment",
    "imaginary",
    "public_events",
    "known_shares",
)
_OBSERVATION_KEYS = OBSERVATION_KEYS
#: Keys that may be None (an unset field).
OBSERVATION_NULLABLE = frozenset({"current_seat", "pending_first_investment", "imaginary"})
_COMPANY_STATE_KEYS = ("code", "trains_on_board", "supply", "value", "sections")
_PLAYER_KEYS = ("seat", "cash", "invested", "hand_shares", "hand_track")
_HAND_KEYS = ("shares", "track")
_IMAGINARY_KEYS = ("invested", "cash")


def _rows(keys: tuple[str, ...], label: str, factory: Any) -> Callable[[Any], list[Any]]:
    def convert(rows: Any) -> list[Any]:
        if not isinstance(rows, list):
            raise CodecError(f"observation.{label}: expected a list, got {type(rows).__name__}")
        out = []
        for i, row in enumerate(rows):
            where = f"observation.{label}[{i}]"
            _check_keys(row, where, keys)
            out.append(_build(where, factory, **row))
        return out
    return convert


def _one(keys: tuple[str, ...], label: str, factory: Any) -> Callable[[Any], Any]:
    def convert(value: Any) -> Any:
        where = f"observation.{label}"
        _check_keys(value, where, keys)
        return _build(where, factory, **value)
    return convert


def _same(value: Any) -> Any:
    return value


#: Per observation key, what the UnionPacificObservation constructor takes for it (checked).
FIELD_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    **{key: _same for key in OBSERVATION_KEYS[1:]},
    "companies": _rows(_COMPANY_STATE_KEYS, "companies", _UPObs.Company),
    "players": _rows(_PLAYER_KEYS, "players", _UPObs.Player),
    "hand": _one(_HAND_KEYS, "hand", _UPObs.Hand),
    "imaginary": _one(_IMAGINARY_KEYS, "imaginary", _UPObs.Imaginary),
    "public_events": event_codec.events_to_proto,
    "known_shares": event_codec.known_shares_to_proto,
}


def check_observation(observation: Any) -> None:
    """Raise :class:`CodecError` unless ``observation`` is a Union Pacific observation dict with
    exactly the protocol's keys (values are checked as they are converted)."""
    game = observation.get("game") if isinstance(observation, Mapping) else None
    if game != UNION_PACIFIC:
        raise CodecError(f"observation: unknown game {game!r} (known: {UNION_PACIFIC!r})")
    _check_keys(observation, "observation", OBSERVATION_KEYS, nullable=OBSERVATION_NULLABLE)


def observation_field(name: str, value: Any) -> bot_pb2.UnionPacificObservation:
    """A ``UnionPacificObservation`` with only field ``name`` set from ``value`` (None: nothing set)."""
    if value is None:
        return _UPObs()
    where = f"observation.{name}" if name in ("hand", "imaginary", "public_events", "known_shares") else "observation"
    converted = FIELD_CONVERTERS[name](value)
    try:
        return _UPObs(**{name: converted})
    except (TypeError, ValueError) as exc:
        raise CodecError(f"{where}: {name!r}: {exc}") from exc


def observation_to_proto(observation: Mapping[str, Any]) -> bot_pb2.Observation:
    """An engine observation dict (``state.observation(seat)``) as an ``Observation``."""
    check_observation(observation)
    fields = {name: FIELD_CONVERTERS[name](observation[name]) for name in OBSERVATION_KEYS[1:]
              if observation[name] is not None}
    try:
        message = _UPObs(**fields)
    except (TypeError, ValueError):
        # Say which field: convert them one at a time.
        message = _UPObs()
        for name in OBSERVATION_KEYS[1:]:
            message.MergeFrom(observation_field(name, observation[name]))
    return bot_pb2.Observation(union_pacific=message)


def observation_from_proto(message: bot_pb2.Observation) -> dict[str, Any]:
    """The observation dict the engine produced, rebuilt from an ``Observation``."""
    game = _game_of(message, "observation")
    if game == "union_pacific":
        return _up_observation_from_proto(message.union_pacific)
    raise CodecError(f"observation: unsupported game member {game!r}")  # pragma: no cover


def _up_observation_from_proto(msg: bot_pb2.UnionPacificObservation) -> dict[str, Any]:
    return {
        "game": UNION_PACIFIC,
        "seat": msg.seat,
        "num_players": msg.num_players,
        "variant": msg.variant,
        "decision": msg.decision,
        "current_seat": msg.current_seat if msg.HasField("current_seat") else None,
        "turn": msg.turn,
        "dividends_paid": msg.dividends_paid,
        "dividends_to_end": msg.dividends_to_end,
        "share_deck": msg.share_deck,
        "track_deck": msg.track_deck,
        "up_stack": msg.up_stack,
        "display": list(msg.display),
        "track_discards": _ordered(msg.track_discards, TRACK_ORDER),
        "boxed_four_of_a_kind": _ordered(msg.boxed_four_of_a_kind, COMPANY_ORDER),
        "free_spaces": list(msg.free_spaces),
        "companies": [
            {
                "code": c.code,
                "trains_on_board": c.trains_on_board,
                "supply": c.supply,
                "value": c.value,
                "sections": list(c.sections),
            }
            for c in msg.companies
        ],
        "players": [
            {
                "seat": p.seat,
                "cash": p.cash,
                "invested": _ordered(p.invested, COMPANY_ORDER),
                "hand_shares": p.hand_shares,
                "hand_track": p.hand_track,
            }
            for p in msg.players
        ],
        "hand": {
            "shares": _ordered(msg.hand.shares, COMPANY_ORDER),
            "track": _ordered(msg.hand.track, TRACK_ORDER),
        },
        "pending_first_investment": (
            msg.pending_first_investment if msg.HasField("pending_first_investment") else None
        ),
        "imaginary": (
            {"invested": _ordered(msg.imaginary.invested, COMPANY_ORDER), "cash": msg.imaginary.cash}
            if msg.HasField("imaginary")
            else None
        ),
        "public_events": event_codec.events_from_proto(msg.public_events),
        "known_shares": event_codec.known_shares_from_proto(msg.known_shares),
    }


# ---------------------------------------------------------------------- actions

# kind -> (required keys besides "kind", optional keys, nullable keys, message class)
_ACTION_KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], Any]] = {
    "first_invest": (("company",), (), (), _UPAction.FirstInvest),
    "build": (("card", "company", "section"), (), (), _UPAction.Build),
    "invest": (("shares", "discard"), (), (), _UPAction.Invest),
    "pass": (("discard",), (), (), _UPAction.Pass),
    "draw": (("source",), ("company",), ("company",), _UPAction.Draw),
    "exchange": (("company",), (), ("company",), _UPAction.Exchange),
}


def action_to_proto(
    index: int, text: str, action: Mapping[str, Any], *, game: str = UNION_PACIFIC
) -> bot_pb2.Action:
    """One legal action: its ``index`` in the legal list, its text and structured form."""
    if game != UNION_PACIFIC:
        raise CodecError(f"action: unknown game {game!r} (known: {UNION_PACIFIC!r})")
    return _build(
        "action", bot_pb2.Action, index=index, text=text, union_pacific=_up_action_to_proto(action)
    )


def action_from_proto(message: bot_pb2.Action) -> LegalAction:
    """The index, text and structured dict of an ``Action``."""
    game = _game_of(message, "action")
    if game == "union_pacific":
        return LegalAction(message.index, message.text, _up_action_from_proto(message.union_pacific))
    raise CodecError(f"action: unsupported game member {game!r}")  # pragma: no cover


def legal_actions_to_proto(state: GameState, actions: Sequence[int]) -> list[bot_pb2.Action]:
    """The ``Action`` list for engine action ids ``actions`` (index i is ``actions[i]``)."""
    return [
        action_to_proto(i, state.action_to_string(a), state.describe_action(a))
        for i, a in enumerate(actions)
    ]


def _up_action_to_proto(action: Mapping[str, Any]) -> bot_pb2.UnionPacificAction:
    kind = action.get("kind") if isinstance(action, Mapping) else None
    if kind not in _ACTION_KINDS:
        raise CodecError(f"action: unknown kind {kind!r} (known: {', '.join(_ACTION_KINDS)})")
    required, optional, nullable, factory = _ACTION_KINDS[kind]
    where = f"action {kind!r}"
    _check_keys(action, where, ("kind", *required), optional, nullable)
    fields = {key: value for key, value in action.items() if key != "kind" and value is not None}
    return _build(where, _UPAction, **{kind: _build(where, factory, **fields)})


def _up_action_from_proto(msg: bot_pb2.UnionPacificAction) -> dict[str, Any]:
    kind = msg.WhichOneof("kind")
    if kind is None:
        raise CodecError("action: no kind member is set")
    body = getattr(msg, kind)
    if kind == "first_invest":
        return {"kind": kind, "company": body.company}
    if kind == "build":
        return {"kind": kind, "card": body.card, "company": body.company, "section": body.section}
    if kind == "invest":
        return {"kind": kind, "shares": _ordered(body.shares, COMPANY_ORDER), "discard": body.discard}
    if kind == "pass":
        return {"kind": kind, "discard": body.discard}
    if kind == "draw":
        result: dict[str, Any] = {"kind": kind, "source": body.source}
        if body.HasField("company"):
            result["company"] = body.company
        return result
    if kind == "exchange":
        return {"kind": kind, "company": body.company if body.HasField("company") else None}
    raise CodecError(f"action: unsupported kind member {kind!r}")  # pragma: no cover


# ------------------------------------------------------------------------ board

_BOARD_KEYS = (
    "name",
    "track_types",
    "wild_cards",
    "cities",
    "sections",
    "companies",
    "union_pacific_shares",
)
_CITY_KEYS = ("name", "lon", "lat")
_SECTION_KEYS = ("a", "b", "spaces", "type")
_BOARD_COMPANY_KEYS = ("name", "shares", "trains", "home", "types", "start")


def board_to_proto(board: Mapping[str, Any], *, game: str = UNION_PACIFIC) -> bot_pb2.Board:
    """The board JSON (as loaded from the game's board file) as a ``Board``."""
    if game != UNION_PACIFIC:
        raise CodecError(f"board: unknown game {game!r} (known: {UNION_PACIFIC!r})")
    _check_keys(board, "board", _BOARD_KEYS, ("note",), ("note",))
    cities = []
    for i, city in enumerate(board["cities"]):
        where = f"board.cities[{i}]"
        _check_keys(city, where, _CITY_KEYS)
        cities.append(_build(where, _UPBoard.City, **city))
    sections = []
    for i, section in enumerate(board["sections"]):
        where = f"board.sections[{i}]"
        _check_keys(section, where, _SECTION_KEYS)
        sections.append(_build(where, _UPBoard.Section, **section))
    companies = []
    for code, company in board["companies"].items():
        where = f"board.companies[{code!r}]"
        _check_keys(company, where, _BOARD_COMPANY_KEYS)
        start = []
        for pair in company["start"]:
            if len(pair) != 2:
                raise CodecError(f"{where}.start: expected [city, city], got {pair!r}")
            start.append(_UPBoard.CityPair(a=pair[0], b=pair[1]))
        fields = {key: value for key, value in company.items() if key != "start"}
        companies.append(_build(where, _UPBoard.Company, code=code, start=start, **fields))
    fields = {key: board[key] for key in ("name", "track_types", "wild_cards", "union_pacific_shares")}
    if board.get("note") is not None:
        fields["note"] = board["note"]
    return bot_pb2.Board(
        union_pacific=_build(
            "board", _UPBoard, cities=cities, sections=sections, companies=companies, **fields
        )
    )


def board_from_proto(message: bot_pb2.Board) -> dict[str, Any]:
    """The board JSON, rebuilt from a ``Board`` (same keys and order as the board file)."""
    game = _game_of(message, "board")
    if game != "union_pacific":  # pragma: no cover
        raise CodecError(f"board: unsupported game member {game!r}")
    msg = message.union_pacific
    board: dict[str, Any] = {"name": msg.name}
    if msg.HasField("note"):
        board["note"] = msg.note
    board["track_types"] = _ordered(msg.track_types, TRACK_ORDER)
    board["wild_cards"] = msg.wild_cards
    board["cities"] = [{"name": c.name, "lon": c.lon, "lat": c.lat} for c in msg.cities]
    board["sections"] = [
        {"a": s.a, "b": s.b, "spaces": s.spaces, "type": s.type} for s in msg.sections
    ]
    board["companies"] = {
        c.code: {
            "name": c.name,
            "shares": c.shares,
            "trains": c.trains,
            "home": c.home,
            "types": list(c.types),
            "start": [[pair.a, pair.b] for pair in c.start],
        }
        for c in msg.companies
    }
    board["union_pacific_shares"] = msg.union_pacific_shares
    return board


# ----------------------------------------------------------------------- result


def _termination_to_proto(termination: Termination | MatchTermination) -> int:
    if not isinstance(termination, (Termination, MatchTermination)):
        raise CodecError(f"result: termination must be an enum member, got {termination!r}")
    return bot_pb2.Termination.Value(f"TERMINATION_{termination.value.upper()}")


def match_result_to_proto(
    cash: Mapping[str, int],
    places: Mapping[str, int],
    termination: Termination | MatchTermination,
    forfeited_seats: Iterable[int] = (),
) -> bot_pb2.MatchResult:
    """A ``MatchResult``: cash and places per participant (``"0"``.. and ``"imaginary"``)."""
    return _build(
        "result",
        bot_pb2.MatchResult,
        cash=dict(cash),
        places=dict(places),
        termination=_termination_to_proto(termination),
        forfeited_seats=sorted(forfeited_seats),
    )


def outcome_to_proto(outcome: Outcome) -> bot_pb2.MatchResult:
    """The ``MatchResult`` of a game the rules ended (no forfeit); ``outcome.extra`` is not sent."""
    return match_result_to_proto(outcome.cash, outcome.places, outcome.termination)


def _participant_order(participant: str) -> tuple[int, int, str]:
    return (0, int(participant), "") if participant.isdigit() else (1, 0, participant)


def match_result_from_proto(message: bot_pb2.MatchResult) -> dict[str, Any]:
    """A ``MatchResult`` as ``{"cash", "places", "termination", "forfeited_seats"}``.

    ``termination`` is the lower-case name (``"normal"``, ``"stalemate"``,
    ``"forfeit"``, ``"error"``), as in :class:`~arena.records.MatchTermination`;
    participants come seats first (by number), then the others.
    """
    name = bot_pb2.Termination.Name(message.termination)
    return {
        "cash": {p: message.cash[p] for p in sorted(message.cash, key=_participant_order)},
        "places": {p: message.places[p] for p in sorted(message.places, key=_participant_order)},
        "termination": name.removeprefix("TERMINATION_").lower(),
        "forfeited_seats": list(message.forfeited_seats),
    }


__all__ = [
    "COMPANY_ORDER",
    "CodecError",
    "LegalAction",
    "TRACK_ORDER",
    "UNION_PACIFIC",
    "action_from_proto",
    "action_to_proto",
    "board_from_proto",
    "board_to_proto",
    "legal_actions_to_proto",
    "match_result_from_proto",
    "match_result_to_proto",
    "observation_from_proto",
    "observation_to_proto",
    "outcome_to_proto",
]
