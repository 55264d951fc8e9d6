"""Hostile test bot: tries to kill its opponent.

At StartMatch it waits for ``targets.json`` in its folder (written by the test), then:

- walks ``/proc`` and SIGKILLs every pid it sees except its own (``PROBE kill <pid>``);
  as a safety valve for a shared machine, if it sees more than ``MAX_VISIBLE``
  processes, or one the test named in ``never_kill`` (the host), it kills nothing and
  reports ``PROBE procwalk - OK <pids>``: the sandbox did not hide the machine's processes;
- SIGKILLs each of the opponent's host pids (``PROBE kill-host-pid <pid>``) and its
  process group (``PROBE killpg <pid>``);
- asks whether the host's pid exists (signal 0, ``PROBE signal0 <pid>``).

It plays random legal actions.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

from arena.sdk import Bot, serve

MAX_VISIBLE = 16


def probe(kind: str, target: object, ok: bool, detail: object = "") -> None:
    text = " ".join(str(detail).split())
    print(f"PROBE {kind} {target} {'OK' if ok else 'DENIED'} {text}".rstrip(), file=sys.stderr, flush=True)


def targets(wait_s: float = 4.0) -> dict:
    path = os.path.join(os.getcwd(), "targets.json")
    deadline = time.monotonic() + wait_s
    while True:
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError):
            if time.monotonic() > deadline:
                probe("targets", path, False, "never written")
                return {}
            time.sleep(0.01)


def comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return "?"


def attack(t: dict) -> None:
    me = os.getpid()
    visible = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
    probe("visible", "-", True, " ".join(f"{pid}:{comm(pid)}" for pid in visible))
    never = set(t.get("never_kill", []))
    if len(visible) > MAX_VISIBLE or never & set(visible):
        probe("procwalk", "-", True, f"saw {len(visible)} processes, the host's among them: refusing to kill")
    else:
        for pid in visible:
            if pid == me:
                continue
            try:
                os.kill(pid, signal.SIGKILL)
                probe("kill", pid, True, comm(pid))
            except OSError as exc:
                probe("kill", pid, False, f"{type(exc).__name__}: {exc}")
    for pid in t.get("opponent_pids", []):
        try:
            os.kill(pid, signal.SIGKILL)
            probe("kill-host-pid", pid, True, "SIGKILL sent")
        except OSError as exc:
            probe("kill-host-pid", pid, False, f"{type(exc).__name__}: {exc}")
        try:
            os.killpg(pid, signal.SIGKILL)
            probe("killpg", pid, True, "SIGKILL sent to the group")
        except OSError as exc:
            probe("killpg", pid, False, f"{type(exc).__name__}: {exc}")
    for pid in t.get("never_kill", []):
        try:
            os.kill(pid, 0)
            probe("signal0", pid, True, "the host's pid is visible")
        except OSError as exc:
            probe("signal0", pid, False, f"{type(exc).__name__}: {exc}")
    probe("done", "-", True)


class Killer(Bot):
    name = "hostile-killer"
    version = "1.0.0"
    author = "tests"

    def __init__(self) -> None:
        self.done = False

    def start_match(self, match) -> None:
        if not self.done:
            self.done = True
            attack(targets())

    def decide(self, observation: dict, legal_actions) -> int:
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(Killer())
