"""Engine data -> protobuf -> engine data is the identity (arena.host.codec)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.base import Outcome, Termination
from arena.host import codec
from arena.records import MatchTermination
from arena.v1 import bot_pb2

COMPANIES = ["EPRG", "BNL", "MS", "DM", "SFRB", "UMR", "ESL", "KCC", "MRR", "WW"]
TRACK = ["PLAIN", "COAST", "BORDER", "MOUNTAIN", "WILD"]


def _wire(message: Any) -> Any:
    """The message after a trip over the wire (serialise, parse into a fresh object)."""
    fresh = type(message)()
    fresh.ParseFromString(message.SerializeToString())
    assert fresh == message
    return fresh


def main_observation() -> dict[str, Any]:
    """A mid-game four-player observation, shaped exactly as common.md describes."""
    return {
        "game": "union_pacific",
        "seat": 2,
        "num_players": 4,
        "variant": "standard",
        "decision": "main",
        "current_seat": 2,
        "turn": 17,
        "dividends_paid": 1,
        "dividends_to_end": 4,
        "share_deck": 45,
        "track_deck": 20,
        "up_stack": 14,
        "display": ["DM", "EPRG", "DM", "WW"],
        "track_discards": {"PLAIN": 3, "COAST": 0, "BORDER": 1, "MOUNTAIN": 0, "WILD": 0},
        "boxed_four_of_a_kind": {"DM": 4},
        "free_spaces": [1, 0, 2, 3, 0, 4],
        "companies": [
            {
                "code": code,
                "trains_on_board": 2 if code == "EPRG" else 1,
                "supply": 21 if code == "EPRG" else 9,
                "value": 3 if code == "EPRG" else 2,
                "sections": [3, 17] if code == "EPRG" else [i],
            }
            for i, code in enumerate(COMPANIES)
        ],
        "players": [
            {"seat": 0, "cash": 0, "invested": {"EPRG": 1, "UP": 1}, "hand_shares": 4, "hand_track": 3},
            {"seat": 1, "cash": 5, "invested": {"DM": 2}, "hand_shares": 3, "hand_track": 3},
            {"seat": 2, "cash": 7, "invested": {}, "hand_shares": 3, "hand_track": 4},
            {"seat": 3, "cash": 0, "invested": {"BNL": 1, "MS": 1, "UP": 2}, "hand_shares": 0, "hand_track": 3},
        ],
        "hand": {"shares": {"DM": 2, "UP": 1}, "track": {"PLAIN": 1, "MOUNTAIN": 2, "WILD": 1}},
        "pending_first_investment": None,
        "imaginary": None,
        "public_events": [dict(e) for e in EVERY_EVENT],
        "known_shares": {"0": {"UP": 1}, "1": {"DM": 2, "UP": 1}, "3": {}},
    }


#: One public event of every type, shaped as arena.games.union_pacific.knowledge writes them.
EVERY_EVENT: list[dict[str, Any]] = [
    {"type": "setup", "players": 4, "variant": "standard", "up_stack": 16},
    {"type": "first_investment", "picks": {"0": "UMR", "1": "BNL", "2": "MS", "3": "UP"}},
    {"type": "display", "display": ["KCC", "EPRG", "BNL", "EPRG"]},
    {"type": "share_deck", "cards": 82},
    {"type": "turn", "turn": 1, "seat": 0},
    {"type": "turn", "turn": 2, "seat": 2, "track_card": "PLAIN"},
    {"type": "reshuffle", "cards": 23},
    {"type": "build", "seat": 0, "card": "PLAIN", "company": "KCC", "section": 60, "value": 3},
    {"type": "draw", "seat": 0, "source": "deck"},
    {"type": "draw", "seat": 2, "source": "deck", "company": "ESL"},
    {"type": "draw", "seat": 1, "source": "display", "company": "EPRG"},
    {"type": "draw", "seat": 1, "source": "up", "company": "UP"},
    {"type": "refill", "company": "MS"},
    {"type": "refill"},
    {"type": "four_of_a_kind", "company": "DM"},
    {"type": "draw_skipped", "seat": 3},
    {"type": "exchange", "seat": 0},
    {"type": "exchange", "seat": 2, "company": "WW"},
    {"type": "invest", "seat": 1, "shares": {"DM": 1, "UP": 1}, "discard": "WILD"},
    {"type": "pass", "seat": 3, "discard": "COAST"},
    {"type": "dividend_revealed", "number": 2},
    {"type": "imaginary_shareholder", "invested": {"EPRG": 5, "WW": 1, "UP": 6}},
    {"type": "dividend", "number": 2,
     "companies": [{"company": "EPRG", "value": 7, "holdings": {"0": 3, "2": 1}, "payouts": {"0": 7, "2": 3}},
                   {"company": "BNL", "value": 2, "holdings": {}, "payouts": {}}],
     "union_pacific": {"holdings": {"0": 1, "1": 2, "imaginary": 3}, "payouts": {"0": 8, "1": 10, "imaginary": 0}},
     "cash": {"0": 31, "1": 20, "2": 9, "3": 0}},
    {"type": "stalemate", "dividends_paid": 2},
    {"type": "game_end", "cash": {"0": 31, "1": 20, "imaginary": 40}, "places": {"0": 2, "1": 3, "imaginary": 1},
     "termination": "normal"},
]


def first_invest_observation() -> dict[str, Any]:
    obs = main_observation()
    obs.update(
        decision="first_invest",
        current_seat=None,
        turn=0,
        dividends_paid=0,
        pending_first_investment="DM",
        boxed_four_of_a_kind={},
    )
    return obs


def two_player_observation() -> dict[str, Any]:
    obs = main_observation()
    obs.update(
        seat=0,
        num_players=2,
        current_seat=1,
        decision="none",
        dividends_paid=3,
        dividends_to_end=3,
        players=obs["players"][:2],
        imaginary={"invested": {"EPRG": 5, "WW": 1, "UP": 6}, "cash": 0},
    )
    return obs


@pytest.mark.parametrize(
    "observation",
    [main_observation(), first_invest_observation(), two_player_observation()],
    ids=["main", "first_invest", "two_player_imaginary"],
)
def test_observation_round_trip(observation: dict[str, Any]) -> None:
    original = copy.deepcopy(observation)
    message = _wire(codec.observation_to_proto(observation))
    assert message.WhichOneof("game") == "union_pacific"
    back = codec.observation_from_proto(message)
    assert back == original
    # Same keys in the same order, so that even a JSON dump is identical.
    assert json.dumps(back) == json.dumps(original)
    assert observation == original  # the input was not modified


def test_observation_nulls_are_unset_fields_not_zero() -> None:
    up = codec.observation_to_proto(first_invest_observation()).union_pacific
    assert not up.HasField("current_seat")
    assert not up.HasField("imaginary")
    assert up.pending_first_investment == "DM"
    seat_zero = main_observation()
    seat_zero["current_seat"] = 0
    assert codec.observation_to_proto(seat_zero).union_pacific.HasField("current_seat")
    assert codec.observation_from_proto(codec.observation_to_proto(seat_zero))["current_seat"] == 0


def test_zero_counts_survive_the_wire() -> None:
    message = _wire(codec.observation_to_proto(main_observation()))
    assert dict(message.union_pacific.track_discards) == {
        "PLAIN": 3, "COAST": 0, "BORDER": 1, "MOUNTAIN": 0, "WILD": 0
    }


ACTIONS = [
    ("first-invest DM", {"kind": "first_invest", "company": "DM"}),
    ("first-invest UP", {"kind": "first_invest", "company": "UP"}),
    ("build EPRG Denver-El Paso MOUNTAIN", {"kind": "build", "card": "MOUNTAIN", "company": "EPRG", "section": 12}),
    ("build DM Vancouver-Seattle WILD", {"kind": "build", "card": "WILD", "company": "DM", "section": 0}),
    ("invest 2 DM discard PLAIN", {"kind": "invest", "shares": {"DM": 2}, "discard": "PLAIN"}),
    ("invest 1 DM 1 UP discard WILD", {"kind": "invest", "shares": {"DM": 1, "UP": 1}, "discard": "WILD"}),
    ("pass discard PLAIN", {"kind": "pass", "discard": "PLAIN"}),
    ("draw display DM", {"kind": "draw", "source": "display", "company": "DM"}),
    ("draw deck", {"kind": "draw", "source": "deck"}),
    ("draw up", {"kind": "draw", "source": "up"}),
    ("exchange DM", {"kind": "exchange", "company": "DM"}),
    ("exchange none", {"kind": "exchange", "company": None}),
]


@pytest.mark.parametrize(("text", "action"), ACTIONS, ids=[text for text, _ in ACTIONS])
def test_action_round_trip(text: str, action: dict[str, Any]) -> None:
    message = _wire(codec.action_to_proto(7, text, action, game="union_pacific"))
    assert message.index == 7
    assert message.text == text
    assert message.union_pacific.WhichOneof("kind") == action["kind"]
    assert codec.action_from_proto(message) == codec.LegalAction(7, text, action)


def test_exchange_none_is_distinct_from_an_empty_company() -> None:
    none = codec.action_to_proto(0, "exchange none", {"kind": "exchange", "company": None}, game="union_pacific")
    assert not none.union_pacific.exchange.HasField("company")
    # An exchange with no company still marks the kind as set (an empty sub-message).
    assert none.union_pacific.WhichOneof("kind") == "exchange"


def test_board_round_trip_on_the_shipped_board() -> None:
    from importlib import resources

    text = (resources.files("arena.games.union_pacific") / "boards" / "reconstruction-1.json").read_text()
    board = json.loads(text)
    message = _wire(codec.board_to_proto(board, game="union_pacific"))
    up = message.union_pacific
    assert len(up.sections) == len(board["sections"]) == 71
    assert [c.code for c in up.companies] == list(board["companies"])
    back = codec.board_from_proto(message)
    assert back == board
    assert json.dumps(back) == json.dumps(board)


def test_board_without_note() -> None:
    board = {
        "name": "tiny",
        "track_types": {"PLAIN": 1, "COAST": 1, "BORDER": 1, "MOUNTAIN": 1},
        "wild_cards": 0,
        "cities": [{"name": "A", "lon": -1.5, "lat": 2.25}, {"name": "B", "lon": 0.0, "lat": 0.0}],
        "sections": [{"a": "A", "b": "B", "spaces": 2, "type": "PLAIN"}],
        "companies": {
            "DM": {"name": "Denver Midland", "shares": 10, "trains": 14, "home": "A",
                   "types": ["PLAIN"], "start": [["A", "B"]]}
        },
        "union_pacific_shares": 20,
    }
    message = codec.board_to_proto(board, game="union_pacific")
    assert not message.union_pacific.HasField("note")
    assert codec.board_from_proto(_wire(message)) == board


@pytest.mark.parametrize("termination", [Termination.NORMAL, Termination.STALEMATE])
def test_outcome_round_trip(termination: Termination) -> None:
    outcome = Outcome(
        cash={"0": 40, "1": 52, "imaginary": 52},
        places={"0": 3, "1": 1, "imaginary": 1},
        termination=termination,
    )
    back = codec.match_result_from_proto(_wire(codec.outcome_to_proto(outcome, game="union_pacific")))
    assert back == {**outcome.to_json(), "scores": outcome.to_json()["cash"], "forfeited_seats": []}
    assert list(back["cash"]) == ["0", "1", "imaginary"]  # union_pacific keeps cash filled for older bots


def test_forfeit_result() -> None:
    message = codec.match_result_to_proto(
        {"0": 80, "1": 60, "2": 10, "3": 95},
        {"0": 1, "1": 2, "2": 3, "3": 4},
        MatchTermination.FORFEIT,
        forfeited_seats=[3], game="union_pacific")
    assert message.termination == bot_pb2.TERMINATION_FORFEIT
    back = codec.match_result_from_proto(_wire(message))
    assert back["termination"] == "forfeit"
    assert back["forfeited_seats"] == [3]
    assert back["places"]["3"] == 4


# ------------------------------------------------------------------ bad input


def test_unknown_observation_key_is_refused_by_name() -> None:
    obs = main_observation()
    obs["secret_deck_order"] = [1, 2, 3]
    with pytest.raises(codec.CodecError, match="secret_deck_order"):
        codec.observation_to_proto(obs)


def test_missing_observation_key_is_refused_by_name() -> None:
    obs = main_observation()
    del obs["players"][1]["hand_track"]
    with pytest.raises(codec.CodecError, match=r"players\[1\].*hand_track"):
        codec.observation_to_proto(obs)


def test_none_where_a_value_is_required() -> None:
    obs = main_observation()
    obs["turn"] = None
    with pytest.raises(codec.CodecError, match="'turn'"):
        codec.observation_to_proto(obs)
    with pytest.raises(codec.CodecError, match="'company'"):
        codec.action_to_proto(0, "first-invest ?", {"kind": "first_invest", "company": None}, game="union_pacific")


def test_wrong_type_names_where() -> None:
    obs = main_observation()
    obs["companies"][4]["supply"] = "nine"
    with pytest.raises(codec.CodecError, match=r"companies\[4\]"):
        codec.observation_to_proto(obs)


def test_unknown_game_and_kind() -> None:
    with pytest.raises(codec.CodecError, match="unknown game 'chess'"):
        codec.observation_to_proto({**main_observation(), "game": "chess"})
    with pytest.raises(codec.CodecError, match="unknown kind 'teleport'"):
        codec.action_to_proto(0, "teleport", {"kind": "teleport"}, game="union_pacific")


def test_empty_messages_are_refused() -> None:
    with pytest.raises(codec.CodecError, match="no game member"):
        codec.observation_from_proto(bot_pb2.Observation())
    with pytest.raises(codec.CodecError, match="no kind member"):
        codec.action_from_proto(bot_pb2.Action(union_pacific=bot_pb2.UnionPacificAction()))


# ------------------------------------------------------- generated observations

_counts = st.dictionaries(st.sampled_from(COMPANIES + ["UP"]), st.integers(1, 20), max_size=11)
_track = st.dictionaries(st.sampled_from(TRACK), st.integers(1, 4), max_size=5)
_small = st.integers(0, 200)


@st.composite
def observations(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(2, 6))
    seat = draw(st.integers(0, n - 1))
    return {
        "game": "union_pacific",
        "seat": seat,
        "num_players": n,
        "variant": draw(st.sampled_from(["standard", "pro"])),
        "decision": draw(st.sampled_from(["first_invest", "main", "draw_share", "exchange", "none"])),
        "current_seat": draw(st.none() | st.integers(0, n - 1)),
        "turn": draw(_small),
        "dividends_paid": draw(st.integers(0, 4)),
        "dividends_to_end": 3 if n == 2 else 4,
        "share_deck": draw(_small),
        "track_deck": draw(st.integers(0, 40)),
        "up_stack": draw(st.integers(0, 18)),
        "display": draw(st.lists(st.sampled_from(COMPANIES), max_size=4)),
        "track_discards": {kind: draw(st.integers(0, 14)) for kind in TRACK},
        "boxed_four_of_a_kind": draw(st.dictionaries(st.sampled_from(COMPANIES), st.just(4), max_size=3)),
        "free_spaces": draw(st.lists(st.integers(0, 4), max_size=71)),
        "companies": [
            {
                "code": code,
                "trains_on_board": draw(st.integers(1, 23)),
                "supply": draw(st.integers(0, 22)),
                "value": draw(st.integers(2, 24)),
                "sections": draw(st.lists(st.integers(0, 70), max_size=5, unique=True)),
            }
            for code in COMPANIES
        ],
        "players": [
            {
                "seat": s,
                "cash": draw(_small),
                "invested": draw(_counts),
                "hand_shares": draw(st.integers(0, 30)),
                "hand_track": draw(st.integers(0, 4)),
            }
            for s in range(n)
        ],
        "hand": {"shares": draw(_counts), "track": draw(_track)},
        "pending_first_investment": draw(st.none() | st.sampled_from(COMPANIES + ["UP"])),
        "imaginary": draw(st.none() | st.fixed_dictionaries({"invested": _counts, "cash": _small})),
        "public_events": draw(st.lists(st.sampled_from(EVERY_EVENT), max_size=12)),
        "known_shares": {str(s): draw(_counts) for s in range(n) if s != seat},
    }


@settings(max_examples=60, deadline=None)
@given(observations())
def test_generated_observations_round_trip(observation: dict[str, Any]) -> None:
    assert codec.observation_from_proto(_wire(codec.observation_to_proto(observation))) == observation


# ------------------------------------------------------------ real engine games


def _engine():
    return pytest.importorskip("arena.games.union_pacific", reason="the Union Pacific engine is not there yet")


@pytest.mark.parametrize(("players", "seed", "variant"), [(2, 11, "standard"), (4, 5, "pro"), (6, 3, "standard")])
def test_real_random_games_round_trip(players: int, seed: int, variant: str) -> None:
    """Every observation and legal action of a real random game survives the codec unchanged."""
    game = _engine().default_game()
    state = game.new_state(players, seed, variant)
    rng = random.Random(seed)
    decisions = 0
    kinds_seen: set[str] = set()
    while not state.is_terminal():
        seat = rng.choice(state.current_seats())
        actions = state.legal_actions(seat)
        observation = state.observation(seat)
        back = codec.observation_from_proto(_wire(codec.observation_to_proto(observation)))
        assert back == observation
        assert json.dumps(back) == json.dumps(observation)
        for i, message in enumerate(codec.legal_actions_to_proto(state, actions, game="union_pacific")):
            expected = codec.LegalAction(i, state.action_to_string(actions[i]), state.describe_action(actions[i]))
            assert codec.action_from_proto(_wire(message)) == expected
            kinds_seen.add(expected.action["kind"])
        state.apply_action(seat, rng.choice(actions))
        decisions += 1
    assert decisions > 50
    assert {"first_invest", "build", "invest", "draw", "exchange"} <= kinds_seen
    outcome = state.outcome()
    result = codec.match_result_from_proto(_wire(codec.outcome_to_proto(outcome, game="union_pacific")))
    sent = {key: value for key, value in outcome.to_json().items() if key != "extra"}
    assert result == {**sent, "scores": sent["cash"], "forfeited_seats": []}  # extra is not part of the protocol
    assert set(result["cash"]) == set(game.participants(players))


def test_real_board_round_trip() -> None:
    board = _engine().default_game().board.data
    assert codec.board_from_proto(_wire(codec.board_to_proto(board, game="union_pacific"))) == board


# ------------------------------------------------- the host's observation encoder

def _encoded(encoder: Any, observation: dict[str, Any]) -> bot_pb2.UnionPacificObservation:
    return bot_pb2.UnionPacificObservation.FromString(encoder.encode(observation))


@pytest.mark.parametrize(
    "observation",
    [main_observation(), first_invest_observation(), two_player_observation()],
    ids=["main", "first_invest", "two_player_imaginary"],
)
def test_the_encoder_writes_what_the_codec_builds(observation: dict[str, Any]) -> None:
    from arena.games.union_pacific.kit.wire_fast import ObservationEncoder

    expected = codec.observation_to_proto(observation).union_pacific
    encoder = ObservationEncoder()
    for _ in range(2):  # the second time from the kept bytes
        assert _encoded(encoder, copy.deepcopy(observation)) == expected
    assert len(encoder.encode(observation)) == expected.ByteSize()


def test_the_encoder_takes_unusual_values_through_the_codec() -> None:
    from arena.games.union_pacific.kit.wire_fast import ObservationEncoder

    observation = main_observation()
    observation.update(turn=70_000, free_spaces=[0, 300, 2], current_seat=0)
    observation["players"][1]["cash"] = 5_000
    observation["hand"]["shares"]["DM"] = 200
    observation["public_events"].append({"type": "build", "seat": 1, "card": "PLAIN", "company": "DM",
                                         "section": 3_000, "value": 2})
    assert _encoded(ObservationEncoder(), observation) == codec.observation_to_proto(observation).union_pacific


@pytest.mark.parametrize(("edit", "match"), [
    (lambda o: o.update(secret_deck_order=[1]), "secret_deck_order"),
    (lambda o: o.update(turn=None), "'turn'"),
    (lambda o: o.update(turn="ten"), "turn"),
    (lambda o: o["companies"][4].update(supply="nine"), r"companies\[4\]"),
    (lambda o: o["players"][1].pop("hand_track"), r"players\[1\].*hand_track"),
    (lambda o: o["public_events"].append({"type": "teleport"}), r"public_events\[\d+\].*teleport"),
    (lambda o: o["public_events"].append({"type": "build", "seat": 1}), r"public_events\[\d+\] 'build'.*missing"),
    (lambda o: o["public_events"].append({"type": "draw", "seat": 1, "source": "deck", "card": "DM"}),
     r"'draw'.*'card'"),
    (lambda o: o["known_shares"].update({"2": {"DM": "two"}}), "known_shares"),
])
def test_the_encoder_refuses_what_the_codec_refuses(edit: Any, match: str) -> None:
    from arena.games.union_pacific.kit.wire_fast import ObservationEncoder

    observation = main_observation()
    edit(observation)
    with pytest.raises(codec.CodecError, match=match):
        codec.observation_to_proto(observation)
    encoder = ObservationEncoder()
    encoder.encode(main_observation())  # with kept bytes from a good observation too
    with pytest.raises(codec.CodecError, match=match):
        encoder.encode(observation)


def test_an_unknown_event_member_from_a_newer_host_is_skipped() -> None:
    message = codec.observation_to_proto(main_observation())
    up = message.union_pacific
    raw = up.SerializeToString() + bytes([0xAA, 0x01, 0x03, 0xF2, 0x07, 0x00])  # event 21 with member 126
    back = codec.observation_from_proto(bot_pb2.Observation(union_pacific=bot_pb2.UnionPacificObservation.FromString(raw)))
    assert back["public_events"] == main_observation()["public_events"]
