"""Sample Arena bot: a uniformly random legal action, seeded per match so games reproduce.

    python bot.py --port 50051        (or ARENA_BOT_PORT=50051 python bot.py)
"""

from __future__ import annotations

from arena.sdk import Bot, serve


class RandomBot(Bot):
    name = "random-bot"
    version = "1.0.0"
    author = "Arena"

    def decide(self, observation: dict, legal_actions) -> int:
        # self.match.rng is seeded from the match id and seat: the same match plays the same.
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(RandomBot())
