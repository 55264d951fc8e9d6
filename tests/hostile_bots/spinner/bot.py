"""Hostile test bot: burns CPU while its opponents think.

At its first StartMatch it starts ``SPINNERS`` threads that derive keys for ever
(``hashlib.pbkdf2_hmac`` runs without the GIL, some 30 ms a call: the threads really use
several CPUs, and hardly ever hold up the bot's own gRPC threads).  At each Decide it reports in its ``debug`` text
the process CPU time (all threads) and the wall time since the end of its previous
decision: ``cpu=<s> wall=<s>``.  Frozen between its decisions, it cannot use CPU then.
It plays random legal actions.
"""

from __future__ import annotations

import hashlib
import threading
import time

from arena.sdk import Bot, serve

SPINNERS = 4


def _spin() -> None:
    while True:
        hashlib.pbkdf2_hmac("sha256", b"spin", b"salt", 100_000)


class Spinner(Bot):
    name = "hostile-spinner"
    version = "1.0.0"
    author = "tests"

    def __init__(self) -> None:
        self.spinning = False
        self.last: tuple[float, float] | None = None
        self.lock = threading.Lock()

    def start_match(self, match) -> None:
        with self.lock:
            if self.spinning:
                return
            self.spinning = True
        for i in range(SPINNERS):
            threading.Thread(target=_spin, name=f"spinner-{i}", daemon=True).start()

    def decide(self, observation: dict, legal_actions) -> tuple[int, str]:
        cpu, wall = time.process_time(), time.monotonic()
        debug = ""
        if self.last is not None:
            debug = f"cpu={cpu - self.last[0]:.5f} wall={wall - self.last[1]:.5f}"
        index = self.match.rng.randrange(len(legal_actions))
        self.last = (time.process_time(), time.monotonic())
        return index, debug


if __name__ == "__main__":
    serve(Spinner())
