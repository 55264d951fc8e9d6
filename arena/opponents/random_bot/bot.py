"""Arena's own opponent for the compliance check: a uniformly random legal action."""

from __future__ import annotations

from arena.games import registered_games
from arena.sdk import Bot, serve


class RandomOpponent(Bot):
    name = "random-opponent"
    version = "1.0.0"
    author = "Arena"
    games = tuple(spec.name for spec in registered_games())  # it plays anything: the check's opponent for every game

    def decide(self, observation: dict, legal_actions) -> int:
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(RandomOpponent())
