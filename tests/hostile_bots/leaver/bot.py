"""Hostile test bot: tries to leave processes running after the match.

At its first StartMatch it starts two ``/bin/sleep`` processes with arguments the test
can find in ``/proc/*/cmdline``: a daemon (fork, ``setsid``, fork again, exec
``sleep $LEAVER_TAG``; the processes in between exit, so the daemon is an orphan in a
session of its own) and a child in a process group of its own (``sleep $LEAVER_TAG+1``).
Each decision sleeps ``$LEAVER_SLOW_MS`` ms (to make a match last).  It plays random
legal actions.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from arena.sdk import Bot, serve

TAG = int(os.environ.get("LEAVER_TAG", "7770001"))
SLOW_S = int(os.environ.get("LEAVER_SLOW_MS", "0")) / 1000.0


def probe(kind: str, target: object, ok: bool, detail: object = "") -> None:
    text = " ".join(str(detail).split())
    print(f"PROBE {kind} {target} {'OK' if ok else 'DENIED'} {text}".rstrip(), file=sys.stderr, flush=True)


# The classic double fork, run by a plain Python started for it: forking a process that
# runs gRPC threads, and forking again in the child, crashes now and then (gRPC's fork
# handlers), which would be the bot's own problem, not the sandbox's.
_DAEMONIZE = """
import os, sys
if os.fork() == 0:
    os.setsid()
    grandchild = os.fork()
    if grandchild == 0:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.execv("/bin/sleep", ["sleep", sys.argv[1]])
    print(grandchild, flush=True)
os._exit(0)
"""


def daemon(tag: int) -> None:
    done = subprocess.run([sys.executable, "-I", "-S", "-c", _DAEMONIZE, str(tag)], capture_output=True,
                          text=True, timeout=5)
    got = done.stdout.strip()
    probe("daemon", tag, got.isdigit(), f"pid {got} in a new session, its parents gone" if got.isdigit()
          else f"status {done.returncode}: {done.stderr.strip()[-200:]}")


def own_group_child(tag: int) -> None:
    child = subprocess.Popen(["sleep", str(tag)], executable="/bin/sleep", process_group=0, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    probe("pgroup-child", tag, True, f"pid {child.pid} in its own process group")


class Leaver(Bot):
    name = "hostile-leaver"
    version = "1.0.0"
    author = "tests"

    def __init__(self) -> None:
        self.done = False

    def start_match(self, match) -> None:
        if self.done:
            return
        self.done = True
        try:
            daemon(TAG)
            own_group_child(TAG + 1)
        except (OSError, subprocess.SubprocessError) as exc:
            probe("daemon", TAG, False, f"{type(exc).__name__}: {exc}")

    def decide(self, observation: dict, legal_actions) -> int:
        if SLOW_S:
            time.sleep(SLOW_S)
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(Leaver())
