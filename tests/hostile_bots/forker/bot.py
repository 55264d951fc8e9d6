"""Hostile test bot: tries to start ``$FORKER_COUNT`` (default 200) threads, then as many
processes, in its first decision, holds them all, counts every task it can see in its
``/proc`` at the peak, reports, then lets them go:

    PROBE spawn threads OK|DENIED got=<n> ...
    PROBE spawn processes OK|DENIED got=<n> ...
    PROBE spawn peak-tasks OK <n>

It plays random legal actions.
"""

from __future__ import annotations

import os
import sys
import threading

from arena.sdk import Bot, serve

COUNT = int(os.environ.get("FORKER_COUNT", "200"))


def probe(kind: str, target: object, ok: bool, detail: object = "") -> None:
    text = " ".join(str(detail).split())
    print(f"PROBE {kind} {target} {'OK' if ok else 'DENIED'} {text}".rstrip(), file=sys.stderr, flush=True)


def visible_tasks() -> int:
    total = 0
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                total += len(os.listdir(f"/proc/{name}/task"))
            except OSError:
                pass
    return total


def bomb() -> None:
    release = threading.Event()
    threads: list[threading.Thread] = []
    thread_error = ""
    for _ in range(COUNT):
        try:
            thread = threading.Thread(target=release.wait, daemon=True)
            thread.start()
            threads.append(thread)
        except RuntimeError as exc:
            thread_error = f"{type(exc).__name__}: {exc}"
    probe("spawn", "threads", len(threads) == COUNT, f"got={len(threads)} of {COUNT} {thread_error}")
    # Processes by posix_spawn (vfork): os.fork() would run gRPC's fork handlers, which
    # hang when no thread can be created (the bot's own problem, but it would never report).
    children: list[int] = []
    spawn_error = ""
    for _ in range(COUNT):
        try:
            children.append(os.posix_spawn("/bin/sleep", ["sleep", "60"], {}))
        except OSError as exc:
            spawn_error = f"{type(exc).__name__}: {exc}"
    probe("spawn", "processes", len(children) == COUNT, f"got={len(children)} of {COUNT} {spawn_error}")
    probe("spawn", "peak-tasks", True, visible_tasks())
    for pid in children:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except OSError:
            pass
    release.set()
    for thread in threads:
        thread.join(1.0)
    probe("spawn", "released", True, f"tasks now {visible_tasks()}")


class Forker(Bot):
    name = "hostile-forker"
    version = "1.0.0"
    author = "tests"

    def __init__(self) -> None:
        self.done = False

    def decide(self, observation: dict, legal_actions) -> int:
        if not self.done:
            self.done = True
            bomb()
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(Forker())
