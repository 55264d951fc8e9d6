"""The greedy sample bot's win rate against random players, measured in-process.

The greedy strategy is the pure function ``choose(observation, legal_actions)``
of ``sample_bots/python/greedy_bot/strategy.py``.  Here it is called exactly as
the SDK calls it inside the bot process: the observation and the legal actions
go through the protocol codec (engine dict -> protobuf -> dict, and
:class:`~arena.host.codec.LegalAction` objects), only without a socket.  The
other seats play :class:`~arena.policies.RandomPolicy`.

Scoring: a match is a *win* when the greedy seat finishes in place 1, a place
it may share (equal cash shares a place, as the rules say); shared first
places are also counted on their own.  In the two-player game the imaginary
shareholder is a participant like a player: the greedy seat wins only if
nobody, the imaginary one included, has more cash.
"""

from __future__ import annotations

import importlib.util
import math
import statistics
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Sequence

from arena.games.base import GameState, Outcome
from arena.host import codec
from arena.host.codec import LegalAction
from arena.policies import RandomPolicy
from arena.protocol import REPO_ROOT

#: Where the greedy bot's strategy lives (a sample bot folder, not a package).
STRATEGY_PATH = REPO_ROOT / "sample_bots" / "python" / "greedy_bot" / "strategy.py"

Strategy = Callable[[dict[str, Any], Sequence[LegalAction]], int]


@lru_cache(maxsize=1)
def load_greedy_strategy(path: Path = STRATEGY_PATH) -> ModuleType:
    """The greedy bot's ``strategy`` module, loaded from its file."""
    if not path.is_file():
        raise FileNotFoundError(f"the greedy bot's strategy is missing: {path}")
    spec = importlib.util.spec_from_file_location("arena_greedy_strategy", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wire_view(state: GameState, seat: int, actions: Sequence[int]) -> tuple[dict[str, Any], list[LegalAction]]:
    """The observation and legal actions exactly as a Python bot receives them (through the codec)."""
    seen = state.observation(seat)
    observation = codec.observation_from_proto(codec.observation_to_proto(seen))
    legal = [codec.action_from_proto(message)
             for message in codec.legal_actions_to_proto(state, actions, game=seen["game"])]
    return observation, legal


def direct_view(state: GameState, seat: int, actions: Sequence[int]) -> tuple[dict[str, Any], list[LegalAction]]:
    """The same data straight from the engine (equal to :func:`wire_view`, faster; for tuning)."""
    legal = [LegalAction(i, state.action_to_string(a), state.describe_action(a)) for i, a in enumerate(actions)]
    return state.observation(seat), legal


@dataclass(frozen=True)
class GreedyFigures:
    """The greedy seat's results over ``matches`` matches of ``players`` seats."""

    players: int
    matches: int
    wins: int  # place 1, shared or not
    shared_wins: int  # of those, place 1 shared with another participant
    places: tuple[int, ...]  # the greedy seat's place in each match
    margins: tuple[int, ...]  # its cash minus the best other participant's, per match
    variant: str

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches

    @property
    def mean_place(self) -> float:
        return statistics.fmean(self.places)

    @property
    def mean_margin(self) -> float:
        return statistics.fmean(self.margins)

    def win_rate_interval(self, z: float = 1.96) -> tuple[float, float]:
        """Wilson score interval of the win rate (95 % by default)."""
        n, p = self.matches, self.win_rate
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return max(0.0, centre - half), min(1.0, centre + half)

    def to_json(self) -> dict[str, Any]:
        low, high = self.win_rate_interval()
        return {
            "players": self.players, "matches": self.matches, "variant": self.variant,
            "wins": self.wins, "shared_wins": self.shared_wins, "win_rate": self.win_rate,
            "win_rate_95": [low, high], "mean_place": self.mean_place,
            "mean_margin": self.mean_margin,
        }


def play_greedy_match(game: Any, players: int, seed: int, greedy_seat: int, *, variant: str = "standard",
                      strategy: Strategy | None = None, wire: bool = True) -> Outcome:
    """Play one match (greedy at ``greedy_seat``, random elsewhere); its outcome."""
    choose = strategy or load_greedy_strategy().choose
    view = wire_view if wire else direct_view
    state = game.new_state(players, seed, variant)
    randoms = {seat: RandomPolicy(seed * 8 + seat) for seat in range(players) if seat != greedy_seat}
    while not state.is_terminal():
        for seat in state.current_seats():
            actions = state.legal_actions(seat)
            if seat == greedy_seat:
                observation, legal = view(state, seat, actions)
                index = choose(observation, legal)
                if not 0 <= index < len(actions):
                    raise ValueError(f"the strategy chose index {index} of {len(actions)} (seed {seed})")
                action = actions[index]
            else:
                action = randoms[seat](state, seat, actions)
            state.apply_action(seat, action)
    return state.outcome()


def bench_greedy(players: int = 4, matches: int = 200, seed: int = 0, *, variant: str = "standard",
                 strategy: Strategy | None = None, wire: bool = True,
                 progress: Callable[[int], None] | None = None) -> GreedyFigures:
    """Greedy vs ``players - 1`` random seats over ``matches`` matches; the greedy seat rotates.

    Match ``i`` uses game seed ``seed + i`` and puts the greedy bot in seat
    ``i % players``.  ``wire=False`` skips the codec round trip (same data, faster).
    """
    if not 2 <= players <= 6:
        raise ValueError(f"players must be 2 to 6, got {players}")
    if matches < 1:
        raise ValueError(f"matches must be at least 1, got {matches}")
    from arena.games.union_pacific import default_game

    game = default_game()
    places: list[int] = []
    margins: list[int] = []
    shared = 0
    for i in range(matches):
        me = str(i % players)
        outcome = play_greedy_match(game, players, seed + i, i % players, variant=variant, strategy=strategy,
                                    wire=wire)
        places.append(outcome.places[me])
        margins.append(outcome.cash[me] - max(cash for p, cash in outcome.cash.items() if p != me))
        if outcome.places[me] == 1 and sum(1 for p in outcome.places.values() if p == 1) > 1:
            shared += 1
        if progress is not None:
            progress(i + 1)
    wins = sum(1 for p in places if p == 1)
    return GreedyFigures(players, matches, wins, shared, tuple(places), tuple(margins), variant)


__all__ = ["GreedyFigures", "STRATEGY_PATH", "bench_greedy", "direct_view", "load_greedy_strategy",
           "play_greedy_match", "wire_view"]
