"""Hostile test bot: tries to carry knowledge from one match to the next.

At every StartMatch it reports what it finds from earlier matches, a global variable
and a file (``$AMNESIAC_FILE``, in its ``/tmp`` by default), then leaves both for the next:

    PROBE remember global OK|DENIED <what it found>
    PROBE remember file OK|DENIED <what it found>
    PROBE process <token> OK pid=<pid in its namespace>

``OK`` means something survived.  ``<token>`` is random per process.  It plays random
legal actions.
"""

from __future__ import annotations

import os
import sys
import uuid

from arena.sdk import Bot, serve

MEMORY_FILE = os.environ.get("AMNESIAC_FILE", "/tmp/amnesiac-memory")
TOKEN = uuid.uuid4().hex
REMEMBERED: list[str] = []


def probe(kind: str, target: object, ok: bool, detail: object = "") -> None:
    text = " ".join(str(detail).split())
    print(f"PROBE {kind} {target} {'OK' if ok else 'DENIED'} {text}".rstrip(), file=sys.stderr, flush=True)


class Amnesiac(Bot):
    name = "hostile-amnesiac"
    version = "1.0.0"
    author = "tests"

    def start_match(self, match) -> None:
        probe("remember", "global", bool(REMEMBERED), REMEMBERED or "nothing")
        try:
            with open(MEMORY_FILE) as f:
                probe("remember", "file", True, f.read())
        except OSError as exc:
            probe("remember", "file", False, f"{type(exc).__name__}: {exc}")
        probe("process", TOKEN, True, f"pid={os.getpid()}")
        REMEMBERED.append(match.match_id)
        try:
            with open(MEMORY_FILE, "a") as f:
                f.write(f"{TOKEN} saw {match.match_id}\n")
        except OSError as exc:
            probe("leave", MEMORY_FILE, False, f"{type(exc).__name__}: {exc}")

    def decide(self, observation: dict, legal_actions) -> int:
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(Amnesiac())
