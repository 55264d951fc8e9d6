"""One conformance suite over every registered game and every seat count it has.

What each game must do, whatever its rules: a seed and a list of actions make the same
game every time; a clone is independent of its original; legal actions are sorted and
unique, each of them applies and any other raises IllegalActionError; observations are
JSON and do not change when anything hidden from their seat changes (each game's
``hidden_twin`` re-deals its hidden parts); a full random game ends with an outcome
over exactly the spec's participants, and its replay verifies.
"""

from __future__ import annotations

import json
import random

import pytest

from arena.games import get_game, registered_games
from arena.games.base import Game, GameState, IllegalActionError
from arena.replay import build_replay, verify_replay

CASES = [pytest.param(spec.name, players, variant, id=f"{spec.name}-{players}p-{variant}")
         for spec in registered_games() for players in spec.seat_counts for variant in spec.variants]
MAX_ACTIONS = 20_000  # far above any real game: a game that does not end fails here
CHECK_EVERY = 17  # the costly checks (clones, legal actions applied, hidden twins) run on every 17th decision


def _snapshot(state: GameState) -> str:
    """What a state shows: its history, events, decisions and every seat's observation."""
    return json.dumps({
        "history": list(state.history),
        "events": list(state.events),
        "terminal": state.is_terminal(),
        "seats": list(state.current_seats()) if not state.is_terminal() else [],
        "observations": [state.observation(s) for s in range(state.num_players)],
    }, sort_keys=True)


def _choose(state: GameState, rng: random.Random) -> tuple[int, int]:
    seats = state.current_seats()
    seat = seats[int(rng.random() * len(seats))]
    legal = state.legal_actions(seat)
    return seat, legal[int(rng.random() * len(legal))]


def _not_legal(legal: list[int]) -> int:
    taken = set(legal)
    return next(a for a in range(len(legal) + 1) if a not in taken)


def _check_decision(state: GameState, seat: int, rng: random.Random, deep: bool) -> None:
    seats = state.current_seats()
    assert seats and seat in seats and len(set(seats)) == len(seats)
    legal = state.legal_actions(seat)
    assert legal, f"seat {seat} must decide but has no legal action"
    assert legal == sorted(set(legal)), "legal actions must be sorted and unique"
    before = (len(state.history), len(state.events))
    for bad in (-1, _not_legal(legal)):
        with pytest.raises(IllegalActionError):
            state.apply_action(seat, bad)
    idle = [s for s in range(state.num_players) if s not in seats]
    if idle:
        with pytest.raises(IllegalActionError):
            state.apply_action(idle[0], state.legal_actions(seat)[0])
    assert (len(state.history), len(state.events)) == before, "an illegal action changed the state"
    if not deep:
        return
    shown = _snapshot(state)
    for action in legal:  # each applies, on a clone, leaving the original
        state.clone().apply_action(seat, action)
        assert state.string_to_action(state.action_to_string(action)) == action
        json.dumps(state.describe_action(action))
    assert _snapshot(state) == shown, "acting on a clone changed the original"


def _check_hidden(game: Game, state: GameState, rng: random.Random, stats: dict) -> None:
    for me in range(state.num_players):
        seen = state.observation(me)
        json.loads(json.dumps(seen))
        twin = game.hidden_twin(state, me, rng)
        assert twin.observation(me) == seen, f"a change hidden from seat {me} shows in its observation"
        if any(twin.observation(s) != state.observation(s) for s in range(state.num_players) if s != me):
            stats["hidden_changes_seen_by_others"] += 1


@pytest.mark.parametrize("name", [spec.name for spec in registered_games()])
def test_the_game_object_carries_its_registered_spec(name: str) -> None:
    game = get_game(name)
    spec = game.spec
    assert spec.name == game.name == name
    assert (game.min_players, game.max_players, tuple(game.variants)) == \
        (spec.min_players, spec.max_players, spec.variants)
    for players in spec.seat_counts:
        assert game.participants(players) == spec.participants(players)
    with pytest.raises(ValueError):
        game.new_state(spec.max_players + 1, 1, spec.default_variant)


@pytest.mark.parametrize(("name", "players", "variant"), CASES)
def test_a_seed_and_the_same_actions_make_the_same_game(name: str, players: int, variant: str) -> None:
    game = get_game(name)
    seed = 1000 + players
    one, two = game.new_state(players, seed, variant), game.new_state(players, seed, variant)
    rng_one, rng_two = random.Random(seed), random.Random(seed)
    while not one.is_terminal():
        assert len(one.history) < MAX_ACTIONS, f"{name} with {players} players does not end"
        one.apply_action(*_choose(one, rng_one))
        two.apply_action(*_choose(two, rng_two))
        if len(one.history) % CHECK_EVERY == 0:
            assert _snapshot(one) == _snapshot(two)
    assert two.is_terminal() and _snapshot(one) == _snapshot(two)
    assert one.outcome() == two.outcome()
    other = game.new_state(players, seed + 1, variant)
    assert list(other.events) != list(game.new_state(players, seed, variant).events), \
        "another seed deals the same game"


@pytest.mark.parametrize(("name", "players", "variant"), CASES)
def test_a_random_game_obeys_the_contract_and_ends_with_the_spec_participants(name: str, players: int,
                                                                              variant: str) -> None:
    game = get_game(name)
    spec = game.spec
    seed = 7 * players + len(name)
    rng = random.Random(~seed)
    stats = {"hidden_changes_seen_by_others": 0, "decisions": 0}

    state = game.new_state(players, seed, variant)
    play = random.Random(seed)
    while not state.is_terminal():
        assert len(state.history) < MAX_ACTIONS, f"{name} with {players} players does not end"
        seat, action = _choose(state, play)
        deep = stats["decisions"] % CHECK_EVERY == 0
        if deep:
            _check_hidden(game, state, rng, stats)
        _check_decision(state, seat, rng, deep)
        if deep:
            twin, shown = state.clone(), _snapshot(state)
            state.apply_action(seat, action)
            assert _snapshot(twin) == shown, "acting on the original changed its clone"
            twin.apply_action(seat, action)
            assert _snapshot(twin) == _snapshot(state), "a clone does not play on as its original"
        else:
            state.apply_action(seat, action)
        stats["decisions"] += 1

    assert stats["hidden_changes_seen_by_others"], \
        f"{name}'s hidden_twin never changed anything another seat can see: is it a no-op?"
    for seat in range(players):
        with pytest.raises(IllegalActionError):
            state.apply_action(seat, 0)
    outcome = state.outcome()
    participants = set(spec.participants(players))
    assert set(outcome.cash) == participants and set(outcome.places) == participants
    assert all(isinstance(v, int) for v in (*outcome.cash.values(), *outcome.places.values()))
    assert sorted(outcome.places.values())[0] == 1
    ranked = sorted(participants, key=lambda p: outcome.places[p])
    assert all(outcome.places[a] <= outcome.places[b] for a, b in zip(ranked, ranked[1:]))

    replay = json.loads(json.dumps(build_replay(game, state, seed=seed, variant=variant)))
    verdict = verify_replay(replay)
    assert verdict.ok, verdict.message
    replay["events"][-1] = {**replay["events"][-1], "tampered": True}
    assert not verify_replay(replay).ok
