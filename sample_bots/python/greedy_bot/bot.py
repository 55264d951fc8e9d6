"""Sample Arena bot: a greedy Union Pacific player (the strategy is in strategy.py).

    python bot.py --port 50051        (or ARENA_BOT_PORT=50051 python bot.py)
"""

from __future__ import annotations

from strategy import choose

from arena.sdk import Bot, serve


class GreedyBot(Bot):
    name = "greedy-bot"
    version = "1.0.0"
    author = "Arena"

    def decide(self, observation: dict, legal_actions) -> int:
        return choose(observation, legal_actions)


if __name__ == "__main__":
    serve(GreedyBot())
