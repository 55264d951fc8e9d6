"""Ticket to Ride: Pennsylvania over the protocol: its wire kit round-trips the engine's data
through real serialized bytes, hidden information never reaches the wire, and real bot
processes play it over gRPC (the random sample bot: the compliance check, matches at 2 and
5 seats), while a bot whose Describe does not list the game is refused.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.games import game_kit, get_game
from arena.games.ticket_to_ride_pennsylvania.knowledge import public_event
from arena.host import codec
from arena.host.client import BotConnection, SeatClient, encoder_for
from arena.host.clock import Clocks
from arena.host.manifest import parse_bot_spec
from arena.host.match import MatchConfig, run_match
from arena.host.pool import BotPool
from arena.protocol import REPO_ROOT
from arena.records import FaultReason
from arena.replay import replay_game, verify_replay
from arena.v1 import bot_pb2

NAME = "ticket_to_ride_pennsylvania"
GAME = get_game(NAME)
WIRE = game_kit(NAME).wire
TTR_RANDOM = REPO_ROOT / "sample_bots" / "python" / "ttr_random_bot"
UP_RANDOM = REPO_ROOT / "sample_bots" / "python" / "random_bot"
FAST = MatchConfig(clocks=Clocks(decision_ms=2000, bank_ms=10_000))


def _wire(message):
    """The message as a bot parses it from the bytes."""
    return type(message).FromString(message.SerializeToString())


def _random_game(players: int, seed: int):
    """Every state of one random game, in order (the last one terminal)."""
    state = GAME.new_state(players, seed)
    rng = random.Random(seed)
    states = [state.clone()]
    while not state.is_terminal():
        seat = rng.choice(state.current_seats())
        state.apply_action(seat, rng.choice(state.legal_actions(seat)))
        states.append(state.clone())
    return states


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_observations_actions_and_events_round_trip_through_the_bytes(players: int) -> None:
    kinds: set[str] = set()
    for seed in (players, 100 + players):
        states = _random_game(players, seed)
        for state in states[:: max(1, len(states) // 60)] + [states[-1]]:
            for seat in range(players):
                observation = state.observation(seat)
                message = _wire(codec.observation_to_proto(observation))
                assert message.WhichOneof("game") == NAME
                assert codec.observation_from_proto(message) == observation
            for seat in state.current_seats():
                for i, message in enumerate(codec.legal_actions_to_proto(state, state.legal_actions(seat), game=NAME)):
                    action = state.legal_actions(seat)[i]
                    expected = codec.LegalAction(i, state.action_to_string(action), state.describe_action(action))
                    assert codec.action_from_proto(_wire(message)) == expected
                    kinds.add(expected.action["kind"])
        final = states[-1]
        for event in final.events:  # every event of the game as each seat saw it
            for seat in range(players):
                view = public_event(event, seat)
                assert WIRE.event_from_proto(_wire(WIRE.event_to_proto(view)), seat) == view
    assert {"keep_tickets", "take", "claim"} <= kinds
    if players == 2:
        assert "neutral_share" in kinds or "share" in kinds


def test_the_board_round_trips_field_for_field() -> None:
    board = GAME.board.data
    message = _wire(codec.board_to_proto(board, game=NAME))
    assert message.WhichOneof("game") == NAME
    assert codec.board_from_proto(message) == board


@pytest.mark.parametrize("players", [2, 5])
def test_the_host_encoder_writes_what_the_codec_builds(players: int) -> None:
    """One encoder per match, shared by its seats, keeps bytes of unchanged fields: every
    observation of every seat still parses as the codec's message."""
    encoder = codec.ObservationEncoder()
    for state in _random_game(players, 5):
        for seat in range(players):
            observation = state.observation(seat)
            raw = encoder.encode(observation)
            assert bot_pb2.Observation.FromString(raw) == codec.observation_to_proto(observation)


def test_bad_input_is_refused_naming_the_problem() -> None:
    observation = GAME.new_state(2, 1).observation(0)
    with pytest.raises(codec.CodecError, match="secret"):
        codec.observation_to_proto({**observation, "secret": 1})
    del observation["hand"]
    with pytest.raises(codec.CodecError, match="hand"):
        codec.observation_to_proto(observation)
    with pytest.raises(codec.CodecError, match="teleport"):
        codec.action_to_proto(0, "teleport", {"kind": "teleport"}, game=NAME)
    with pytest.raises(codec.CodecError, match="unknown game"):
        codec.action_to_proto(0, "pass", {"kind": "pass"}, game="chess")


def test_the_result_carries_scores_and_leaves_cash_to_union_pacific() -> None:
    state = _random_game(2, 9)[-1]
    outcome = state.outcome()
    message = _wire(codec.outcome_to_proto(outcome, game=NAME))
    assert dict(message.scores) == dict(outcome.cash) and not message.cash
    back = codec.match_result_from_proto(message)
    assert back["scores"] == dict(outcome.cash) and back["places"] == dict(outcome.places)


# ------------------------------------------------------------------ hidden information


def _payload(state, me: int, match_id: str) -> bytes:
    legal = state.legal_actions(me) if me in state.current_seats() else []
    client = SeatClient(BotConnection("unix:/nonexistent/bot.sock"), match_id=match_id, seat=me, clocks=Clocks(),
                        encoder=encoder_for(GAME))
    return client.payload(state, len(state.history), state.observation(me), legal)


def _hidden(state) -> tuple:
    return (state.deck, state.hands, state.ticket_deck, state.tickets, state.offers, state.picks,
            state.rng.getstate())


@pytest.mark.parametrize("players", [2, 3, 5])
def test_hidden_changes_never_change_the_bytes_a_bot_receives(players: int) -> None:
    rng = random.Random(players)
    changed = 0
    for state in _random_game(players, 40 + players)[::7]:
        if state.is_terminal():
            continue
        for me in state.current_seats():
            before = _payload(state, me, "m-hidden")
            twin = GAME.hidden_twin(state, me, rng)
            if _hidden(twin) != _hidden(state):
                changed += 1
                assert _payload(twin, me, "m-hidden") == before, "hidden information reaches the wire"
    assert changed > 10


# ---------------------------------------------------------------- real bots over gRPC


def test_the_random_sample_bot_passes_the_check_for_the_game(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    status = main(["bot", "check", "--game", NAME, str(TTR_RANDOM), "--logs", str(tmp_path / "logs")])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "5 players" in out and "2 players" in out and "ticket_to_ride_pennsylvania" in out


@pytest.mark.parametrize("players", [2, 5])
def test_a_match_over_grpc_with_the_random_bot(tmp_path: Path, players: int) -> None:
    spec = parse_bot_spec(str(TTR_RANDOM))
    with BotPool(log_dir=tmp_path / "logs", stop_timeout=1, game=NAME) as pool:
        record = run_match(pool, [spec] * players, seed=7 + players, config=FAST, game=GAME)
    assert record.game == NAME and len(record.seats) == players
    assert all(not s.faults and not s.forfeited for s in record.seats), [s.faults for s in record.seats]
    assert record.termination.value in ("normal", "stalemate")
    assert verify_replay(record.replay).ok  # the bots' choices re-play to the same game
    assert {str(s.seat): s.place for s in record.seats} == {k: v for k, v in _outcome(record).places.items()}


def _outcome(record):
    return replay_game(record.replay)[1].outcome()


def test_a_bot_that_does_not_list_the_game_is_refused(tmp_path: Path) -> None:
    ttr = parse_bot_spec(str(TTR_RANDOM))
    up_only = parse_bot_spec(str(UP_RANDOM))
    with BotPool(log_dir=tmp_path / "logs", stop_timeout=1) as pool:
        record = run_match(pool, [ttr, up_only], seed=3, config=FAST, game=GAME)
    refused = record.seats[1]
    assert refused.forfeited and refused.faults[0].reason is FaultReason.NOT_READY
    assert "cannot play 'ticket_to_ride_pennsylvania'" in refused.faults[0].detail
    assert "['union_pacific']" in refused.faults[0].detail
    assert not record.seats[0].faults


def test_another_seat_s_dealt_cards_are_never_sent_even_if_the_engine_let_them_through() -> None:
    """The wire's own guard: were the engine to leave a deal's cards in another seat's view, both
    the checked path and the host's fast encoder refuse the observation instead of sending it."""
    state = GAME.new_state(3, 5)
    deal = next(e for e in state.events if e["type"] == "deal" and e["seat"] == 1)
    leaked = {**state.observation(0), "public_events": [dict(deal)]}  # seat 1's cards in seat 0's view
    with pytest.raises(codec.CodecError, match="cards of seat 1 in the observation of seat 0"):
        codec.observation_to_proto(leaked)
    with pytest.raises(codec.CodecError, match="cards of seat 1 in the observation of seat 0"):
        WIRE.observation_encoder().encode(leaked)
    own = {**state.observation(1), "public_events": [public_event(deal, 1)]}  # its own cards: sent
    assert codec.observation_from_proto(codec.observation_to_proto(own))["public_events"][0]["cards"] == deal["cards"]


def test_a_refresh_with_an_empty_slot_is_kept_by_the_event_cache_and_encodes_as_the_codec_does() -> None:
    """A ``refresh`` event's row holds None for a slot the exhausted deck could not fill: the fast
    encoder keeps its bytes like any other event's (it used to encode it anew for every seat and
    decision), and they are the checked path's bytes; a row that differs only there is not
    confused with it."""
    state = GAME.new_state(3, 5)
    base = state.observation(0)
    refresh = {"type": "refresh", "discarded": ["locomotive", "locomotive", "locomotive", "red", "blue"],
               "row": ["red", None, None, "blue", None]}
    other = {**refresh, "row": ["red", "green", None, "blue", None]}
    for event in (refresh, other):
        assert WIRE._event_key(event) is not None
        observation = {**base, "public_events": [event]}
        encoder = codec.ObservationEncoder()
        for _ in range(2):  # the second time from the cache
            raw = encoder.encode(observation)
            assert bot_pb2.Observation.FromString(raw) == codec.observation_to_proto(observation)
            seen = codec.observation_from_proto(bot_pb2.Observation.FromString(raw))["public_events"][0]
            assert seen["row"] == event["row"]
        assert WIRE._event_key(event) in WIRE._EVENT_BYTES
    assert WIRE._EVENT_BYTES[WIRE._event_key(refresh)] != WIRE._EVENT_BYTES[WIRE._event_key(other)]
    assert WIRE._event_key({**refresh, "row": ["red", True, None, "blue", None]}) is None  # a bool: not kept
