"""Hostile test bot: allocates and touches ``$HOG_MB`` MB (default 1024) in one decision.

It does it at its main decision of turn 4 or 5 (whichever is its own), once: a
process restarted after the kernel killed it comes back at a later turn and plays on.

With ``$HOG_LINGER_MS`` set, ``bot.py`` is a small wrapper, as a start-up script or a
supervisor would be: it runs the bot as its child and, when the child ends, waits that
many milliseconds (cleaning up, say) before it exits with the child's status.

It plays random legal actions.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from arena.sdk import Bot, serve

HOG_BYTES = int(os.environ.get("HOG_MB", "1024")) << 20
LINGER_S = int(os.environ.get("HOG_LINGER_MS", "0")) / 1000.0
_BLOCK = 16 << 20


def probe(kind: str, target: object, ok: bool, detail: object = "") -> None:
    text = " ".join(str(detail).split())
    print(f"PROBE {kind} {target} {'OK' if ok else 'DENIED'} {text}".rstrip(), file=sys.stderr, flush=True)


class Hog(Bot):
    name = "hostile-hog"
    version = "1.0.0"
    author = "tests"

    def __init__(self) -> None:
        self.blocks: list[bytes] = []

    def decide(self, observation: dict, legal_actions) -> int:
        if observation.get("decision") == "main" and observation.get("turn") in (4, 5) and not self.blocks:
            probe("allocate", f"{HOG_BYTES >> 20}MB", True, "starting")
            try:
                while len(self.blocks) * _BLOCK < HOG_BYTES:
                    self.blocks.append(b"\x01" * _BLOCK)  # written, so really resident
                probe("allocate", f"{HOG_BYTES >> 20}MB", True, f"{len(self.blocks) * _BLOCK >> 20} MB resident")
            except MemoryError as exc:
                probe("allocate", f"{HOG_BYTES >> 20}MB", False,
                      f"MemoryError after {len(self.blocks) * _BLOCK >> 20} MB: {exc}")
        return self.match.rng.randrange(len(legal_actions))


def wrapper() -> int:
    child = subprocess.run([sys.executable, *sys.argv], env={**os.environ, "HOG_LINGER_MS": "0"})
    probe("wrapper", "child-ended", True, f"status {child.returncode}, lingering {LINGER_S:g} s")
    time.sleep(LINGER_S)
    return child.returncode if child.returncode >= 0 else 128 - child.returncode


if __name__ == "__main__":
    if LINGER_S:
        sys.exit(wrapper())
    serve(Hog())
