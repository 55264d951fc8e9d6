"""Hostile test bot: writes ``$FLOOD_MB`` MB (default 40) to stderr in its first decision,
to fill the host's disk through its log.  It plays random legal actions."""

from __future__ import annotations

import os
import sys

from arena.sdk import Bot, serve

FLOOD_BYTES = int(os.environ.get("FLOOD_MB", "40")) << 20
_LINE = b"flood " + b"#" * 1017 + b"\n"  # 1 KiB


class Flooder(Bot):
    name = "hostile-flooder"
    version = "1.0.0"
    author = "tests"

    def __init__(self) -> None:
        self.flooded = False

    def decide(self, observation: dict, legal_actions) -> int:
        if not self.flooded:
            self.flooded = True
            sys.stderr.flush()
            chunk = _LINE * 1024  # 1 MiB
            sent = 0
            while sent < FLOOD_BYTES:
                sent += os.write(2, chunk[: FLOOD_BYTES - sent])
            print(f"PROBE flood stderr OK {sent} bytes written", file=sys.stderr, flush=True)
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(Flooder())
