"""Benchmark bot: a CPU hog.  At its first StartMatch it forks processes that spin for ever
(four per core, each in a session of its own), to steal CPU from whoever decides while it waits; it plays
random legal actions.

Sandboxed, its cgroup is frozen between its decisions and capped at one CPU, so the
spinning stops while others think; unsandboxed it is not.
"""

from __future__ import annotations

import os

from arena.sdk import Bot, serve

SPINNERS = 4 * (os.cpu_count() or 2)


def _spin_forever() -> None:
    # One fork from the gRPC process (its fork handlers are skipped), then plain forks.
    for _ in range(SPINNERS - 1):
        if os.fork() == 0:
            break
    os.setsid()  # a session each: with the scheduler's autogroups, each one its own CPU share
    while True:
        pass


class HogBot(Bot):
    name = "bench-hog"
    version = "1.0.0"
    author = "Arena"

    def __init__(self) -> None:
        self.spinning = False

    def start_match(self, match) -> None:
        if not self.spinning:
            self.spinning = True
            if os.fork() == 0:
                _spin_forever()

    def decide(self, observation: dict, legal_actions) -> int:
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(HogBot())
