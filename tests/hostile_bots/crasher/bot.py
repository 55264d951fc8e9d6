"""Hostile test bot: exits (status 3) in the middle of its ``$CRASHER_AT``-th decision
(default 1st), every time it is started.  Otherwise it plays random legal actions."""

from __future__ import annotations

import os
import sys

from arena.sdk import Bot, serve

CRASH_AT = int(os.environ.get("CRASHER_AT", "1"))


class Crasher(Bot):
    name = "hostile-crasher"
    version = "1.0.0"
    author = "tests"

    def __init__(self) -> None:
        self.decisions = 0

    def decide(self, observation: dict, legal_actions) -> int:
        self.decisions += 1
        if self.decisions == CRASH_AT:
            print(f"PROBE crash decision-{self.decisions} OK exiting", file=sys.stderr, flush=True)
            os._exit(3)
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(Crasher())
