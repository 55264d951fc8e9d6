"""Observations written from the state (the match runner's path) equal the plain encoding.

The match runner encodes a seat's observation with :meth:`ObservationEncoder.encode_state`:
for a game whose kit has a ``state_encoder`` the bytes are written from the state itself,
each field kept while its key is unchanged and each public event kept per view.  Here,
over whole random games of every game and every table size, each observation the runner
would send is compared with today's plain encoding of ``state.observation(seat)``: the
same bytes as the dict path, the same message field by field as the codec builds, and
the same dict back.  Two access patterns: the runner's (the seat to move, one encoder per
match) and a harsher one (every seat at every step, the same encoder, so what is kept for
one seat is asked for by all the others right after).
"""

from __future__ import annotations

import random

import pytest

from arena.games import get_game, registered_games
from arena.games.union_pacific import knowledge
from arena.host import codec
from arena.host.client import DecisionEncoder
from arena.v1 import bot_pb2

_GAMES = sorted(spec.name for spec in registered_games())


def _check(game_name: str, observations: codec.ObservationEncoder, state, seat: int, where: str) -> None:
    fast = observations.encode_state(game_name, state, seat)
    plain_dict = state.observation(seat)
    assert fast == codec.ObservationEncoder().encode(plain_dict), where  # the dict path's very bytes
    message = bot_pb2.Observation.FromString(fast)
    expected = codec.observation_to_proto(plain_dict)
    member = message.WhichOneof("game")
    assert member == expected.WhichOneof("game"), where
    got, want = getattr(message, member), getattr(expected, member)
    for field in want.DESCRIPTOR.fields:  # field by field, for a readable failure
        assert getattr(got, field.name) == getattr(want, field.name), f"{where}: {field.name}"
    assert message == expected, where
    assert codec.observation_from_proto(message) == plain_dict, where


def _tables(game) -> list[int]:
    return list(range(game.min_players, game.max_players + 1))


def _played(state, rng: random.Random):
    """``state`` played to its end by random moves of the seat to move."""
    while not state.is_terminal():
        seat = state.current_seats()[0]
        state.apply_action(seat, rng.choice(state.legal_actions(seat)))
    return state


@pytest.mark.parametrize("game_name", _GAMES)
def test_the_runner_pattern_sends_the_plain_observation(game_name: str) -> None:
    game = get_game(game_name)
    rng = random.Random(11)
    checked = 0
    for players in _tables(game):
        for match in range(2):
            state = game.new_state(players, 500 + 10 * players + match, rng.choice(game.variants))
            observations = codec.ObservationEncoder()  # one per match, shared by its seats
            while not state.is_terminal():
                current = state.current_seats()
                for seat in current:
                    _check(game_name, observations, state, seat,
                           f"{game_name} {players}p match {match} decision {len(state.history)} seat {seat}")
                    checked += 1
                seat = current[0]
                state.apply_action(seat, rng.choice(state.legal_actions(seat)))
    assert checked > 300


@pytest.mark.parametrize("game_name", _GAMES)
def test_every_seat_at_every_step_gets_its_own_observation(game_name: str) -> None:
    game = get_game(game_name)
    rng = random.Random(12)
    for players in _tables(game):
        state = game.new_state(players, 900 + players)
        observations = codec.ObservationEncoder()
        step = 0
        while not state.is_terminal():
            seats = list(range(players))
            rng.shuffle(seats)
            for seat in seats if step % 3 == 0 else seats[:1]:
                _check(game_name, observations, state, seat, f"{game_name} {players}p step {step} seat {seat}")
            seat = state.current_seats()[0]
            state.apply_action(seat, rng.choice(state.legal_actions(seat)))
            step += 1


@pytest.mark.parametrize("game_name", _GAMES)
def test_a_new_state_in_the_same_encoder_starts_afresh(game_name: str) -> None:
    """An encoder met with another state (a clone, another match) keeps nothing of the first."""
    game = get_game(game_name)
    rng = random.Random(13)
    observations = codec.ObservationEncoder()
    state = game.new_state(game.max_players, 77)
    for _ in range(60):
        seat = state.current_seats()[0]
        _check(game_name, observations, state, seat, f"{game_name} first state")
        state.apply_action(seat, rng.choice(state.legal_actions(seat)))
    other = game.new_state(game.max_players, 78)
    twin = state.clone()
    for s in (other, twin, state, other):
        for seat in range(game.max_players):
            _check(game_name, observations, s, seat, f"{game_name} switched state")
    seat = twin.current_seats()[0]
    twin.apply_action(seat, twin.legal_actions(seat)[-1])
    for seat in range(game.max_players):
        _check(game_name, observations, twin, seat, f"{game_name} twin moved on")
        _check(game_name, observations, state, seat, f"{game_name} back to the first")


@pytest.mark.parametrize("game_name", _GAMES)
def test_the_request_without_a_dict_is_the_request_with_it(game_name: str) -> None:
    game = get_game(game_name)
    rng = random.Random(14)
    encoder = DecisionEncoder(game.name)
    state = game.new_state(game.min_players + 1, 5)
    with_dict, without = codec.ObservationEncoder(), codec.ObservationEncoder()
    while not state.is_terminal():
        seat = state.current_seats()[0]
        actions = state.legal_actions(seat)
        args = dict(match_id="m", seat=seat, number=len(state.history), actions=actions, decision_ms=1000,
                    bank_ms=5000)
        assert (encoder.encode(state, observation=None, observations=without, **args)
                == encoder.encode(state, observation=state.observation(seat), observations=with_dict, **args))
        state.apply_action(seat, rng.choice(actions))


def test_union_pacific_event_views_depend_on_the_seat_only_as_declared() -> None:
    """The state encoder keeps one entry per event and view: an event of a type outside
    SEAT_VIEWS looks the same to every seat, and one of those types looks the same to
    every seat but its own."""
    game = get_game("union_pacific")
    rng = random.Random(15)
    seen = 0
    for players in _tables(game):
        state = _played(game.new_state(players, 40 + players), rng)
        for event in state.events:
            views = [knowledge.public_event(event, s) for s in range(players)]
            if event["type"] in knowledge.SEAT_VIEWS:
                others = [v for s, v in enumerate(views) if s != event["seat"]]
                assert all(v == others[0] for v in others), event
            else:
                assert all(v == views[0] for v in views), event
            seen += 1
    assert seen > 500


def test_ticket_to_ride_event_views_follow_their_view_keys() -> None:
    """The TTR state encoder keeps one entry per event and view key: seats with equal keys
    see the event alike."""
    from arena.games.ticket_to_ride_pennsylvania import knowledge as ttr_knowledge

    game = get_game("ticket_to_ride_pennsylvania")
    rng = random.Random(16)
    seen = 0
    for players in _tables(game):
        state = _played(game.new_state(players, 60 + players), rng)
        for event in state.events:
            by_key: dict = {}
            for s in range(players):
                view = ttr_knowledge.public_event(event, s)
                assert by_key.setdefault(repr(ttr_knowledge.view_key(event, s)), view) == view, (event, s)
            seen += 1
    assert seen > 500


def test_ticket_to_ride_common_event_entries_are_never_one_seats_own_view() -> None:
    """The entry served to every seat that has none of its own is an entry a non-owner sees (or
    nothing, when every seat sees the event its own way): no seat's cards or tickets are ever
    the default, so a slip in putting the own entries in could not show them to the others."""
    from arena.games.ticket_to_ride_pennsylvania import knowledge as ttr_knowledge
    from arena.games.ticket_to_ride_pennsylvania.kit import wire_state

    game = get_game("ticket_to_ride_pennsylvania")
    rng = random.Random(17)
    private = 0
    for players in _tables(game):
        state = game.new_state(players, 70 + players)
        encoder = wire_state.StateEncoder()
        while not state.is_terminal():
            seat = state.current_seats()[0]
            assert encoder.encode(state, seat) is not None
            state.apply_action(seat, rng.choice(state.legal_actions(seat)))
        common = encoder._windows.common
        assert len(common) > 100
        for i, entry in enumerate(common):
            event = state.events[i]
            keys = [ttr_knowledge.view_key(event, s) for s in range(players)]
            if all(key is None for key in keys):
                continue
            private += 1
            outsiders = [s for s, key in enumerate(keys) if key is False]
            if outsiders:
                assert entry == wire_state._entry(event, outsiders[0], i), (players, event["type"])
            else:  # every seat sees it its own way (initial tickets)
                assert entry == b"", (players, event["type"])
    assert private > 50


@pytest.mark.parametrize("game_name", _GAMES)
def test_the_state_path_is_taken(game_name: str) -> None:
    """The kit's state encoder answers at every decision of whole games at every table size (a
    None would silently fall back to the dict path, and every other test here would still pass)."""
    game = get_game(game_name)
    for players in _tables(game):
        encoder = codec.wire_of(game_name).state_encoder()
        state = game.new_state(players, 3)
        rng = random.Random(players)
        steps = 0
        while not state.is_terminal():
            seat = state.current_seats()[0]
            assert encoder.encode(state, seat) is not None, f"{players} players, step {steps}"
            state.apply_action(seat, rng.choice(state.legal_actions(seat)))
            steps += 1
        assert steps > 50
