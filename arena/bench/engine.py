"""Engine speed: random games with the legal actions enumerated at every decision."""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass

from arena.games.base import Game


@dataclass(frozen=True)
class EngineFigures:
    players: int
    games: int
    median_ms: float
    games_per_s: float
    decisions_per_s: float
    decisions_per_game: float


def bench_engine(game: Game, players: int, games: int, seed: int = 0) -> EngineFigures:
    """Play ``games`` random games on one core; time each one (process CPU time)."""
    times: list[float] = []
    decisions = 0
    clock = time.process_time
    for i in range(games):
        rng = random.Random(seed + i)
        start = clock()
        state = game.new_state(players, seed + i)
        while not state.is_terminal():
            for seat in state.current_seats():
                legal = state.legal_actions(seat)
                state.apply_action(seat, legal[int(rng.random() * len(legal))])
        times.append(clock() - start)
        decisions += len(state.history)
    total = sum(times)
    return EngineFigures(
        players=players,
        games=games,
        median_ms=statistics.median(times) * 1000,
        games_per_s=games / total,
        decisions_per_s=decisions / total,
        decisions_per_game=decisions / games,
    )
