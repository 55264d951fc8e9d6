"""The host's pure rules: clocks, places with forfeits, fallback seeds, request encoding."""

from __future__ import annotations

import random

import pytest

from arena.games.union_pacific import default_game
from arena.host import codec
from arena.host.client import DecisionEncoder
from arena.host.codec import ObservationEncoder
from arena.host.clock import Clocks, SeatClock
from arena.host.match import fallback_seed, places_with_forfeits
from arena.v1 import bot_pb2


def test_time_beyond_the_decision_limit_comes_out_of_the_bank() -> None:
    clock = SeatClock(Clocks(decision_ms=1000, bank_ms=10_000, grace_ms=50))
    assert clock.allowed_s() == pytest.approx(11.05)
    assert clock.charge(0.4) and clock.bank_ms == 10_000
    assert clock.charge(3.5) and clock.bank_ms == pytest.approx(7_500)
    assert clock.request_bank_ms() == 7_500
    assert clock.allowed_s() == pytest.approx(8.55)


def test_the_grace_margin_accepts_a_reply_but_never_lends_time() -> None:
    clock = SeatClock(Clocks(decision_ms=200, bank_ms=100, grace_ms=50))
    assert clock.charge(0.340)  # 40 ms into the grace margin
    assert clock.bank_ms == 0
    assert not clock.charge(0.251)  # limit 200 + bank 0 + grace 50 exceeded
    assert clock.to_json()["decisions"] == 2


def test_a_reply_at_the_deadline_is_in_time_and_the_clock_keeps_its_figures() -> None:
    clock = SeatClock(Clocks(decision_ms=200, bank_ms=100, grace_ms=50))
    assert clock.decision_ms == 200
    assert clock.charge(clock.allowed_s())  # 350 ms: exactly limit + bank + grace
    assert clock.bank_ms == 0 and clock.allowed_s() == pytest.approx(0.25)
    assert clock.charge(0.05) and clock.charge(0.12)
    assert not clock.charge(0.2500001)
    assert clock.to_json() == {"decisions": 4, "bank_left_ms": 0,
                               "mean_decision_ms": round((0.35 + 0.05 + 0.12 + 0.2500001) * 1000 / 4, 3),
                               "max_decision_ms": 350.0}


def test_a_timeout_empties_the_bank() -> None:
    clock = SeatClock(Clocks(decision_ms=200, bank_ms=500))
    clock.expire(0.74)
    assert clock.bank_ms == 0 and clock.allowed_s() == pytest.approx(0.25)


def test_clock_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="decision limit"):
        Clocks(decision_ms=0)
    with pytest.raises(ValueError, match="negative"):
        Clocks(bank_ms=-1)


def test_without_forfeits_places_are_the_engine_places() -> None:
    cash = {"0": 40, "1": 55, "2": 40, "3": 10}
    assert places_with_forfeits(cash, set()) == {"0": 2, "1": 1, "2": 2, "3": 4}


def test_forfeited_seats_share_the_last_place_whatever_their_cash() -> None:
    cash = {"0": 90, "1": 55, "2": 40, "3": 100}
    assert places_with_forfeits(cash, {"0", "3"}) == {"0": 3, "1": 1, "2": 2, "3": 3}
    two_player = {"0": 80, "1": 30, "imaginary": 50}
    assert places_with_forfeits(two_player, {"0"}) == {"0": 3, "1": 2, "imaginary": 1}


def test_fallback_seeds_are_stable_and_differ_by_seat_and_seed() -> None:
    seeds = {fallback_seed(seed, seat) for seed in range(20) for seat in range(6)}
    assert len(seeds) == 120
    assert fallback_seed(7, 2) == fallback_seed(7, 2)


def test_cached_action_encoding_equals_the_codec_message() -> None:
    game = default_game()
    encoder = DecisionEncoder("union_pacific")
    rng = random.Random(3)
    for players in (2, 4, 6):
        state = game.new_state(players, players)
        number = 0
        while not state.is_terminal():
            seat = state.current_seats()[0]
            legal = state.legal_actions(seat)
            if number % 7 == 0:
                obs = state.observation(seat)
                raw = encoder.encode(state, match_id="m", seat=seat, number=number, observation=obs, actions=legal,
                                     decision_ms=1000, bank_ms=9876)
                expected = bot_pb2.DecisionRequest(
                    match_id="m", seat=seat, decision_number=number, observation=codec.observation_to_proto(obs),
                    legal_actions=codec.legal_actions_to_proto(state, legal, game="union_pacific"), decision_time_ms=1000,
                    time_bank_ms=9876)
                assert bot_pb2.DecisionRequest.FromString(raw) == expected
                assert len(raw) == expected.ByteSize()
            state.apply_action(seat, legal[int(rng.random() * len(legal))])
            number += 1


@pytest.mark.parametrize(("players", "variant"), [(2, "standard"), (4, "pro"), (6, "standard")])
def test_a_matchs_requests_with_kept_bytes_equal_fresh_ones(players: int, variant: str) -> None:
    """The match runner's encoder keeps bytes between decisions (all seats share it): every
    request still parses as the codec's message for that very seat and decision."""
    game = default_game()
    encoder = DecisionEncoder("union_pacific")
    observations = ObservationEncoder()
    state = game.new_state(players, 7 * players, variant)
    rng = random.Random(players)
    number = 0
    while True:
        seats = range(players) if state.is_terminal() else state.current_seats()
        for seat in seats:  # also the seats that do not decide now, and after the end
            legal = state.legal_actions(seat)
            obs = state.observation(seat)
            raw = encoder.encode(state, match_id="m", seat=seat, number=number, observation=obs, actions=legal,
                                 decision_ms=1000, bank_ms=500, observations=observations)
            expected = bot_pb2.DecisionRequest(
                match_id="m", seat=seat, decision_number=number, observation=codec.observation_to_proto(obs),
                legal_actions=codec.legal_actions_to_proto(state, legal, game="union_pacific"), decision_time_ms=1000, time_bank_ms=500)
            assert bot_pb2.DecisionRequest.FromString(raw) == expected
            assert len(raw) == expected.ByteSize()
        if state.is_terminal():
            break
        seat = state.current_seats()[0]
        legal = state.legal_actions(seat)
        state.apply_action(seat, legal[int(rng.random() * len(legal))])
        number += 1
