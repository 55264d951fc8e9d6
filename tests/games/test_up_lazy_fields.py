"""Fields of a full Union Pacific state made only when read: ``sections_of`` (from the ``own``
bitmasks, kept until a train is placed) and the ``game_end`` event (from its record).

What is read must always be what the state holds at that moment, whatever was read, cloned or
changed before.
"""

from __future__ import annotations

import random

import pytest

from arena.games.union_pacific import default_game
from arena.games.union_pacific.state import UnionPacificState

GAME = default_game()


def _sections(state: UnionPacificState) -> list[tuple[int, ...]]:
    """sections_of by its definition: the sections with a train of each company, sorted."""
    return [tuple(s for s in range(GAME.board.num_sections) if own >> s & 1) for own in state.own]


def _step(state: UnionPacificState, rng: random.Random) -> None:
    for seat in state.current_seats():
        legal = state.legal_actions(seat)
        state.apply_action(seat, legal[int(rng.random() * len(legal))])


@pytest.mark.parametrize("seed", range(6))
def test_sections_of_is_the_boards_at_every_read_and_a_clone_keeps_its_own(seed: int) -> None:
    state = GAME.new_state(2 + seed % 5, seed, "pro" if seed % 2 else "standard")
    rng = random.Random(seed)
    clones: list[tuple[UnionPacificState, list[tuple[int, ...]]]] = []
    step = 0
    while not state.is_terminal():
        if step % (1 + seed % 3) == 0:  # read after one decision, or after several (builds in between)
            sections = state.sections_of
            assert sections == _sections(state)
            sections[0] = (-1,)  # the caller's list: the state's own is not touched
            assert state.sections_of == _sections(state)
        if step % 9 == 0:
            clones.append((state.clone(), _sections(state)))
        _step(state, rng)
        step += 1
    assert state.sections_of == _sections(state)
    for clone, before in clones:  # the original placed trains since: each clone still reads its own board
        assert clone.sections_of == before
        other = random.Random(seed + 1)
        for _ in range(12):
            if clone.is_terminal():
                break
            _step(clone, other)
        assert clone.sections_of == _sections(clone)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_game_end_event_is_the_outcome_of_the_state_it_ended(players: int) -> None:
    state = GAME.new_state(players, 40 + players)
    rng = random.Random(players)
    early = None
    while not state.is_terminal():
        _step(state, rng)
        if early is None and state.decisions >= 30:
            early = state.clone()
    assert early is not None
    end = state.events[-1]
    assert end == {"type": "game_end", **state.outcome().to_json()}
    if players == 2:
        assert "imaginary" in end["cash"] and "imaginary_ahead_of" in end["extra"]
    other = random.Random(players + 100)  # a clone made earlier ends its own game: its own event
    while not early.is_terminal():
        _step(early, other)
    assert early.events[-1] == {"type": "game_end", **early.outcome().to_json()}
    assert [e["type"] for e in state.events].count("game_end") == 1
