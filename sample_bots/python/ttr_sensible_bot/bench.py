"""The sensible Ticket to Ride bot against uniformly random players, in-process (no gRPC).

    python bench.py --matches 60 --players 2 3 4 5

Each match seats one sensible player (its seat rotating) and random players in the
other seats; the strategy gets the observation and the legal actions exactly as
the SDK hands them to a bot (the engine's dicts, ``LegalAction`` objects with the
engine's structured form) and the board JSON the host sends.  Prints, per table
size, the sensible seat's win rate (place 1, shared or not), its mean score, the
random seats' mean score and the mean time per decision.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent


def load_strategy() -> ModuleType:
    """The bot's ``strategy`` module, loaded from its file (the bot folder is no package)."""
    spec = importlib.util.spec_from_file_location("arena_ttr_sensible_strategy", HERE / "strategy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


@dataclass
class Figures:
    players: int
    matches: int
    wins: int
    scores: list[int]  # the sensible seat's score per match
    random_scores: list[int]  # every random seat's score
    decisions: int
    decide_s: float
    stalemates: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches

    def line(self) -> str:
        return (f"{self.players} players, {self.matches} matches: win rate {self.win_rate:.0%}, "
                f"mean score {statistics.mean(self.scores):.1f} vs random {statistics.mean(self.random_scores):.1f}, "
                f"{1000 * self.decide_s / max(1, self.decisions):.2f} ms/decision, stalemates {self.stalemates}")


def legal_view(state: Any, seat: int, actions: list[int]) -> list[Any]:
    from arena.host.codec import LegalAction

    return [LegalAction(i, state.action_to_string(a), state.describe_action(a)) for i, a in enumerate(actions)]


def play(players: int, matches: int, seed: int = 0, strategy: ModuleType | None = None,
         check: bool = False) -> Figures:
    """``matches`` matches of ``players`` seats: one sensible seat (rotating), random seats."""
    from arena.games.ticket_to_ride_pennsylvania import default_game

    strategy = strategy or load_strategy()
    game = default_game()
    board = strategy.BoardMap(game.board.data)
    figures = Figures(players, matches, 0, [], [], 0, 0.0, 0)
    for m in range(matches):
        me = m % players
        state = game.new_state(players, seed + m)
        rng = random.Random(10_000 + seed + m)
        while not state.is_terminal():
            for seat in state.current_seats():
                actions = state.legal_actions(seat)
                if seat == me:
                    observation = state.observation(seat)
                    legal = legal_view(state, seat, actions)
                    start = time.perf_counter()
                    index = strategy.choose(observation, legal, board)
                    figures.decide_s += time.perf_counter() - start
                    figures.decisions += 1
                    if check:
                        assert type(index) is int and 0 <= index < len(actions), (observation, index)
                    action = actions[index]
                else:
                    action = actions[int(rng.random() * len(actions))]
                state.apply_action(seat, action)
        outcome = state.outcome()
        figures.wins += outcome.places[str(me)] == 1
        figures.scores.append(outcome.cash[str(me)])
        figures.random_scores.extend(outcome.cash[str(s)] for s in range(players) if s != me)
        figures.stalemates += outcome.termination.value == "stalemate"
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=60)
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4, 5])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for players in args.players:
        print(play(players, args.matches, args.seed).line(), flush=True)


if __name__ == "__main__":
    main()
