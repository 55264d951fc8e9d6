"""Union Pacific's wire adapter: engine dicts <-> its ``union_pacific`` oneof members.

The host turns what the engine produces (an observation dict, an action's structured
form, the board JSON) into the ``UnionPacific*`` messages of protos/arena/v1/bot.proto;
a Python bot turns them back into the very dicts the engine produced
(``observation_from_proto(observation_to_proto(d)) == d``).  The public events are in
:mod:`~arena.games.union_pacific.kit.wire_events`; the fast, hand-written observation
encoder the host uses on every decision in :mod:`~arena.games.union_pacific.kit.wire_fast`.

Every ``*_to_proto`` function checks the keys of its input and raises
:class:`~arena.protocol.wire_checks.CodecError`, naming the key, for a missing or
unknown one: a field the engine adds without a matching protocol field must fail
loudly, never vanish.  Count maps come back in a fixed order (payout order of
companies, then ``UP``; track kinds as the rules list them); dict equality does not
depend on it.

The interface every game's ``kit/wire.py`` offers is described in :mod:`arena.host.codec`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from arena.games.union_pacific.kit import wire_events
from arena.protocol.wire_checks import CodecError, build, check_keys, ordered
from arena.v1 import bot_pb2

#: The game's name, which is also the name of its member in the ``game`` oneofs.
GAME = UNION_PACIFIC = "union_pacific"
ONEOF = GAME
#: The final score also travels as ``MatchResult.cash`` (for bots older than ``scores``).
RESULT_CASH = True

#: Company codes in payout order, then Union Pacific.
COMPANY_ORDER = ("EPRG", "BNL", "MS", "DM", "SFRB", "UMR", "ESL", "KCC", "MRR", "WW", "UP")

#: Track card kinds in the order the rules list them.
TRACK_ORDER = ("PLAIN", "COAST", "BORDER", "MOUNTAIN", "WILD")

_UPObs = bot_pb2.UnionPacificObservation
_UPAction = bot_pb2.UnionPacificAction
_UPBoard = bot_pb2.UnionPacificBoard


# ------------------------------------------------------------------ shared bits

_check_keys = check_keys
_ordered = ordered
_build = build


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
    "public_events": wire_events.events_to_proto,
    "known_shares": wire_events.known_shares_to_proto,
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


def observation_to_proto(observation: Mapping[str, Any]) -> bot_pb2.UnionPacificObservation:
    """An engine observation dict (``state.observation(seat)``) as a ``UnionPacificObservation``."""
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
    return message


def _company_from_proto(c: Any) -> dict[str, Any]:
    return {"code": c.code, "trains_on_board": c.trains_on_board, "supply": c.supply, "value": c.value,
            "sections": list(c.sections)}


def _player_from_proto(p: Any) -> dict[str, Any]:
    return {"seat": p.seat, "cash": p.cash, "invested": _ordered(p.invested, COMPANY_ORDER),
            "hand_shares": p.hand_shares, "hand_track": p.hand_track}


def _optional(name: str) -> Callable[[Any], Any]:
    return lambda msg: getattr(msg, name) if msg.HasField(name) else None


#: Per observation key (in :data:`OBSERVATION_KEYS` order), how its value is read from a
#: ``UnionPacificObservation``: :func:`observation_from_proto` reads them all, the SDK's lazy
#: observation each key when the bot first reads it.
OBSERVATION_DECODERS: dict[str, Callable[[Any], Any]] = {
    "game": lambda msg: UNION_PACIFIC,
    "seat": lambda msg: msg.seat,
    "num_players": lambda msg: msg.num_players,
    "variant": lambda msg: msg.variant,
    "decision": lambda msg: msg.decision,
    "current_seat": _optional("current_seat"),
    "turn": lambda msg: msg.turn,
    "dividends_paid": lambda msg: msg.dividends_paid,
    "dividends_to_end": lambda msg: msg.dividends_to_end,
    "share_deck": lambda msg: msg.share_deck,
    "track_deck": lambda msg: msg.track_deck,
    "up_stack": lambda msg: msg.up_stack,
    "display": lambda msg: list(msg.display),
    "track_discards": lambda msg: _ordered(msg.track_discards, TRACK_ORDER),
    "boxed_four_of_a_kind": lambda msg: _ordered(msg.boxed_four_of_a_kind, COMPANY_ORDER),
    "free_spaces": lambda msg: list(msg.free_spaces),
    "companies": lambda msg: [_company_from_proto(c) for c in msg.companies],
    "players": lambda msg: [_player_from_proto(p) for p in msg.players],
    "hand": lambda msg: {"shares": _ordered(msg.hand.shares, COMPANY_ORDER),
                         "track": _ordered(msg.hand.track, TRACK_ORDER)},
    "pending_first_investment": _optional("pending_first_investment"),
    "imaginary": lambda msg: ({"invested": _ordered(msg.imaginary.invested, COMPANY_ORDER),
                               "cash": msg.imaginary.cash} if msg.HasField("imaginary") else None),
    "public_events": lambda msg: wire_events.events_from_proto(msg.public_events),
    "known_shares": lambda msg: wire_events.known_shares_from_proto(msg.known_shares),
}
assert tuple(OBSERVATION_DECODERS) == OBSERVATION_KEYS


def observation_decoders() -> dict[str, Callable[[Any], Any]]:
    """Per observation key, how its value is read from the message (see :mod:`arena.host.codec`)."""
    return OBSERVATION_DECODERS


def observation_from_proto(msg: bot_pb2.UnionPacificObservation) -> dict[str, Any]:
    """The observation dict the engine produced, rebuilt from a ``UnionPacificObservation``."""
    return {key: decode(msg) for key, decode in OBSERVATION_DECODERS.items()}


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


def action_to_proto(action: Mapping[str, Any]) -> bot_pb2.UnionPacificAction:
    """An action's structured form (``state.describe_action(a)``) as a ``UnionPacificAction``."""
    kind = action.get("kind") if isinstance(action, Mapping) else None
    if kind not in _ACTION_KINDS:
        raise CodecError(f"action: unknown kind {kind!r} (known: {', '.join(_ACTION_KINDS)})")
    required, optional, nullable, factory = _ACTION_KINDS[kind]
    where = f"action {kind!r}"
    _check_keys(action, where, ("kind", *required), optional, nullable)
    fields = {key: value for key, value in action.items() if key != "kind" and value is not None}
    return _build(where, _UPAction, **{kind: _build(where, factory, **fields)})


def action_from_proto(msg: bot_pb2.UnionPacificAction) -> dict[str, Any]:
    """The structured form of a ``UnionPacificAction``."""
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


def board_to_proto(board: Mapping[str, Any]) -> bot_pb2.UnionPacificBoard:
    """The board JSON (as loaded from the game's board file) as a ``UnionPacificBoard``."""
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
    return _build("board", _UPBoard, cities=cities, sections=sections, companies=companies, **fields)


def board_from_proto(msg: bot_pb2.UnionPacificBoard) -> dict[str, Any]:
    """The board JSON, rebuilt from a ``UnionPacificBoard`` (same keys and order as the board file)."""
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


def observation_encoder() -> Any:
    """A fresh fast encoder (one per match): ``.encode(observation)`` gives the bytes of the
    ``UnionPacificObservation`` that :func:`observation_to_proto` builds, re-encoding only what changed."""
    from arena.games.union_pacific.kit.wire_fast import ObservationEncoder

    return ObservationEncoder()


def state_encoder() -> Any:
    """A fresh encoder writing observations straight from the state (one per match, for the
    host): ``.encode(state, seat)`` gives the bytes of ``observation_to_proto(state.observation(seat))``
    as :func:`observation_encoder`'s encoder writes them, or None when it cannot."""
    from arena.games.union_pacific.kit.wire_state import StateEncoder

    return StateEncoder()


event_to_proto = wire_events.event_to_proto
event_from_proto = wire_events.event_from_proto

__all__ = ["COMPANY_ORDER", "GAME", "ONEOF", "OBSERVATION_KEYS", "RESULT_CASH", "TRACK_ORDER", "UNION_PACIFIC",
           "action_from_proto", "action_to_proto", "board_from_proto", "board_to_proto", "check_observation",
           "event_from_proto", "event_to_proto", "observation_decoders", "observation_encoder", "observation_from_proto",
           "observation_to_proto"]
