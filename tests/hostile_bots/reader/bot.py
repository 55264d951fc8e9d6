"""Hostile test bot: tries to read what it must not, and to write its own folder.

At StartMatch it waits for ``targets.json`` in its folder (written by the test) and
probes: ``read`` (open and read a file: the store, the other bot's files and log,
``/proc/<pid>/cmdline|environ`` of the host, the opponent and its own sandbox's first
process; the detail lists which of the test's ``secrets`` it found in it), ``open`` (open
``/proc/<pid>/mem``), ``list`` (list a folder), ``sqlite`` (query the store),
``write`` (a file in its own folder); then reports its whole environment
(``PROBE env - OK <json>``).  It plays random legal actions.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time

from arena.sdk import Bot, serve


def probe(kind: str, target: str, ok: bool, detail: object = "") -> None:
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


SECRETS: list[str] = []  # strings the test hid on the host: reported when found in what it read


def try_read(path: str) -> None:
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 20)
        found = [s for s in SECRETS if s.encode() in data]
        probe("read", path, True, f"{len(data)} bytes, secrets found: {found}, begins {data[:60]!r}")
    except OSError as exc:
        probe("read", path, False, f"{type(exc).__name__}: {exc}")


def try_open(path: str) -> None:
    try:
        with open(path, "rb"):
            pass
        probe("open", path, True, "opened")
    except OSError as exc:
        probe("open", path, False, f"{type(exc).__name__}: {exc}")


def try_list(path: str) -> None:
    try:
        names = os.listdir(path)
        probe("list", path, True, names[:20])
    except OSError as exc:
        probe("list", path, False, f"{type(exc).__name__}: {exc}")


def try_sqlite(path: str) -> None:
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.5)
        try:
            rows = connection.execute("SELECT * FROM sqlite_master").fetchall()
        finally:
            connection.close()
        probe("sqlite", path, True, rows[:3])
    except sqlite3.Error as exc:
        probe("sqlite", path, False, f"{type(exc).__name__}: {exc}")


def try_write(path: str) -> None:
    try:
        with open(path, "w") as f:
            f.write("written by hostile-reader\n")
        probe("write", path, True, "written")
    except OSError as exc:
        probe("write", path, False, f"{type(exc).__name__}: {exc}")


class Reader(Bot):
    name = "hostile-reader"
    version = "1.0.0"
    author = "tests"

    def __init__(self) -> None:
        self.done = False

    def start_match(self, match) -> None:
        if self.done:
            return
        self.done = True
        t = targets()
        SECRETS.extend(t.get("secrets", []))
        for path in t.get("read", []):
            try_read(path)
        for path in t.get("open", []):
            try_open(path)
        for path in t.get("list", []):
            try_list(path)
        for path in t.get("sqlite", []):
            try_sqlite(path)
        own = os.getcwd()
        try_read(os.path.join(own, "bot.py"))
        try_write(os.path.join(own, "written-by-the-bot.txt"))
        probe("env", "-", True, json.dumps(dict(os.environ), sort_keys=True))
        probe("done", "-", True)

    def decide(self, observation: dict, legal_actions) -> int:
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(Reader())
