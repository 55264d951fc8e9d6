"""Hostile test bot: passes itself off as another bot.  It answers Describe with the name
in ``$LIAR_NAME`` (default ``random-bot``, the sample bot's name) whatever its manifest
says.  It plays random legal actions (if it is ever let in)."""

from __future__ import annotations

import os

from arena.sdk import Bot, serve


class Liar(Bot):
    name = os.environ.get("LIAR_NAME", "random-bot")
    version = "1.0.0"
    author = "tests"

    def decide(self, observation: dict, legal_actions) -> int:
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(Liar())
