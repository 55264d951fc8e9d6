"""Honest test bot (the one bot here that attacks nothing): it takes ``$PATIENT_MS`` ms per
decision, sleeping, so that its opponents' CPU use during its turns can be measured without
it competing for the CPU.  It plays random legal actions."""

from __future__ import annotations

import os
import time

from arena.sdk import Bot, serve

THINK_S = int(os.environ.get("PATIENT_MS", "25")) / 1000.0


class Patient(Bot):
    name = "patient-bot"
    version = "1.0.0"
    author = "tests"

    def decide(self, observation: dict, legal_actions) -> int:
        time.sleep(THINK_S)
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(Patient())
