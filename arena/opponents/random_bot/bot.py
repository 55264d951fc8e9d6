"""Arena's own opponent for the compliance check: a uniformly random legal action."""

from __future__ import annotations

from arena.sdk import Bot, serve


class RandomOpponent(Bot):
    name = "random-opponent"
    version = "1.0.0"
    author = "Arena"

    def decide(self, observation: dict, legal_actions) -> int:
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(RandomOpponent())
