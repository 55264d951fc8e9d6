"""Sample Arena bot: a greedy Union Pacific player (the strategy is in strategy.py).

    python bot.py --address unix:/tmp/bot.sock     (or --address 127.0.0.1:50051, or --port 50051)
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
