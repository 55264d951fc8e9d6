"""Benchmark bot: a fixed amount of CPU work per decision, then a random legal action.

Its decision time is what ``arena bench isolation`` watches while a CPU hog sits at
the same table.
"""

from __future__ import annotations

from arena.sdk import Bot, serve

WORK = 200_000  # loop iterations per decision: about 10 ms of one core


class ThinkerBot(Bot):
    name = "bench-thinker"
    version = "1.0.0"
    author = "Arena"

    def decide(self, observation: dict, legal_actions) -> int:
        total = 0
        for i in range(WORK):
            total += i * i
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(ThinkerBot())
