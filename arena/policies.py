"""In-process policies: a function from (state, seat, legal actions) to an action.

They stand in for bots where no process is needed (self-play, benchmarks) and
are the host's seeded fallback when a bot fails to answer.
"""

from __future__ import annotations

import random
from typing import Callable, Sequence

from arena.games.base import GameState

Policy = Callable[[GameState, int, Sequence[int]], int]


class RandomPolicy:
    """Uniform over the legal actions, from its own seeded generator."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def __call__(self, state: GameState, seat: int, legal: Sequence[int]) -> int:
        return legal[int(self._rng.random() * len(legal))]


def play_in_process(state: GameState, policies: Sequence[Policy]) -> GameState:
    """Play ``state`` to its end, asking ``policies[seat]`` for every decision."""
    while not state.is_terminal():
        for seat in state.current_seats():
            state.apply_action(seat, policies[seat](state, seat, state.legal_actions(seat)))
    return state
