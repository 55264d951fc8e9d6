"""Rollout states (``clone(rollout=True)``): the same game, without an event log or a history.

A rollout state must play exactly as the full state it was cloned from (the same legal actions at
every decision, the same outcome, the same board and cash), and must refuse, with a clear error,
whatever it does not keep: it can never pass for a full state.
"""

from __future__ import annotations

import random

import pytest

from arena.games.union_pacific import default_game
from arena.games.union_pacific.phases import RolloutStateError
from arena.games.union_pacific.state import UnionPacificState
from tests.games.scenario import (act, set_display, set_track_hand, set_up_stack, skipped_draw_game, stack_share_deck,
                                  stalemate_game, started_game)

GAME = default_game()


def _step(state: UnionPacificState, rng: random.Random) -> tuple[int, list[int]]:
    seat = state.current_seats()[0]
    legal = state.legal_actions(seat)
    state.apply_action(seat, legal[int(rng.random() * len(legal))])
    return seat, legal


def _public(state: UnionPacificState) -> tuple:
    """What both kinds of state hold, as plain values."""
    return (state.phase, state.current, state.turn, list(state.cash), [list(h) for h in state.hand_track],
            [list(h) for h in state.hand_shares], [list(r) for r in state.invested], list(state.display),
            list(state.share_deck), list(state.track_deck), state.build_actions(), state.dividends_paid)


@pytest.mark.parametrize("seed", range(30))
def test_a_rollout_clone_plays_the_same_game_as_a_full_clone(seed: int) -> None:
    players = 2 + seed % 5
    variant = "pro" if seed % 2 else "standard"
    state = GAME.new_state(players, seed, variant)
    rng = random.Random(seed)
    for _ in range(random.Random(-seed).randrange(0, 120)):  # a random point of the game
        if state.is_terminal():
            break
        _step(state, rng)
    full, fast = state.clone(), state.clone(rollout=True)
    assert not full.rollout and fast.rollout
    rng_full, rng_fast = random.Random(seed + 1), random.Random(seed + 1)
    while not full.is_terminal():
        assert fast.current_seats() == full.current_seats()
        for seat in range(players):
            assert fast.legal_actions(seat) == full.legal_actions(seat)
        assert _step(fast, rng_fast) == _step(full, rng_full)
        assert _public(fast) == _public(full)
    assert fast.is_terminal()
    assert fast.outcome() == full.outcome()
    assert full.builds_from_scratch() == full.builds and fast.builds_from_scratch() == fast.builds
    assert fast.own == full.own  # (sections_of, which a rollout state does not keep, is read from own's bits)
    assert full.sections_of == [tuple(s for s in range(GAME.board.num_sections) if own >> s & 1) for own in full.own]


def test_a_rollout_state_refuses_what_it_does_not_keep() -> None:
    state = GAME.new_state(4, 7)
    rng = random.Random(7)
    for _ in range(40):
        _step(state, rng)
    fast = state.clone(rollout=True)
    for read in (lambda s: s.events, lambda s: s.history, lambda s: s.decisions, lambda s: s.sections_of,
                 lambda s: s.observation(0)):
        with pytest.raises(RolloutStateError, match=r"rollout state \(made by clone\(rollout=True\)\).*use clone\(\)"):
            read(fast)
    with pytest.raises(RolloutStateError, match="keeps no history"):
        fast.history = []
    with pytest.raises(RolloutStateError, match="keeps no event log"):
        fast.events = []
    assert not hasattr(fast, "_no_such_field")  # an AttributeError stays an AttributeError
    with pytest.raises(RolloutStateError):
        getattr(fast, "events", None)  # not an AttributeError: a default cannot hide it
    # its clones are rollout states too, whatever is asked
    again = fast.clone()
    assert again.rollout
    with pytest.raises(RolloutStateError):
        again.history


def test_the_full_state_a_rollout_clone_was_made_from_keeps_its_log() -> None:
    state = GAME.new_state(3, 11)
    rng = random.Random(11)
    for _ in range(30):
        _step(state, rng)
    before_events, before_history = len(state.events), len(state.history)
    fast = state.clone(rollout=True)
    rng_fast = random.Random(1)
    while not fast.is_terminal():
        _step(fast, rng_fast)
    assert len(state.events) == before_events and len(state.history) == before_history
    _step(state, rng)
    assert len(state.history) == before_history + 1 and len(state.events) > before_events
    assert state.clone().history == state.history


# -- the rules' rare paths, which random games almost never take ---------------------------------

def _skipped_draw():
    state, text = skipped_draw_game()
    return state, [(0, text)], "draw_skipped"


def _stalemate(players: int):
    def make():
        state, text = stalemate_game(players)
        return state, [(0, text)], "stalemate"
    return make


def _four_of_a_kind_refill():
    state = started_game(3, seed=10)
    [seat] = state.current_seats()
    set_track_hand(state, seat, {"PLAIN": 2, "MOUNTAIN": 2, "WILD": 2})
    set_up_stack(state, 0)
    set_display(state, ["DM", "DM", "DM", "WW"])
    stack_share_deck(state, ["DM", "BNL", "BNL", "BNL", "BNL", "MS", "KCC", "ESL", "UMR", "EPRG"])
    return state, [(seat, "build DM Denver-El Paso MOUNTAIN"), (seat, "draw display WW")], "four_of_a_kind"


@pytest.mark.parametrize("make", [_skipped_draw, _stalemate(2), _stalemate(3), _stalemate(6), _four_of_a_kind_refill],
                         ids=["skipped-draw", "stalemate-2p", "stalemate-3p", "stalemate-6p", "four-of-a-kind"])
def test_a_rollout_clone_takes_the_rare_paths_as_a_full_clone(make) -> None:
    state, steps, rare = make()
    full, fast = state.clone(), state.clone(rollout=True)
    for seat, text in steps:
        act(full, seat, text)
        act(fast, seat, text)
        assert fast.current_seats() == full.current_seats() and fast.is_terminal() == full.is_terminal(), text
        assert _public(fast) == _public(full), text
        for other in range(full.num_players):
            assert fast.legal_actions(other) == full.legal_actions(other), (text, other)
    if full.is_terminal():
        assert fast.outcome() == full.outcome()
    assert rare in {e["type"] for e in full.events[len(state.events):]}  # the rare path was taken
