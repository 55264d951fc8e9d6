"""Hostile test bot: tries to reach its opponent's endpoint (or anything else) over the network.

At StartMatch it waits for ``targets.json`` in its folder (written by the test), then tries:

- ``tcp 127.0.0.1:<port>`` for every port in ``tcp_ports`` (the opponent's, were it on TCP,
  a canary the test listens on, the sandbox relay's port), and ``tcp HOST:PORT`` for every
  address in ``tcp_addresses``;
- ``unix <path>`` for every socket path in ``unix_paths`` (the opponent's socket as the host
  sees it) and ``abstract <name>`` for every abstract socket name in ``abstract_names``;
- ``grpc <address>``: a Describe call to every address in ``grpc_addresses``;
- ``glob /tmp/arena-bot-*``: whether it sees the host's socket folders at all.

It plays random legal actions.
"""

from __future__ import annotations

import glob
import json
import os
import socket
import sys
import time

from arena.sdk import Bot, serve


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


def connect(kind: str, target: str, family: int, address: object) -> None:
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.settimeout(0.5)
    try:
        sock.connect(address)
        sock.sendall(b"PRI * HTTP/2.0\r\n\r\nhello from hostile-caller\n")
        probe(kind, target, True, "connected")
    except OSError as exc:
        probe(kind, target, False, f"{type(exc).__name__}: {exc}")
    finally:
        sock.close()


def call_describe(address: str) -> None:
    import grpc

    from arena.v1 import bot_pb2, bot_pb2_grpc

    channel = grpc.insecure_channel(address)
    try:
        reply = bot_pb2_grpc.BotStub(channel).Describe(bot_pb2.DescribeRequest(protocol_version=1), timeout=1.0)
        probe("grpc", address, True, f"Describe answered {reply.name!r}")
    except grpc.RpcError as exc:
        probe("grpc", address, False, f"{exc.code()}: {exc.details()}")
    finally:
        channel.close()


def attack(t: dict) -> None:
    for port in t.get("tcp_ports", []):
        connect("tcp", f"127.0.0.1:{port}", socket.AF_INET, ("127.0.0.1", port))
    for host, port in t.get("tcp_addresses", []):
        connect("tcp", f"{host}:{port}", socket.AF_INET, (host, port))
    for path in t.get("unix_paths", []):
        connect("unix", path, socket.AF_UNIX, path)
    for name in t.get("abstract_names", []):
        connect("abstract", name, socket.AF_UNIX, "\0" + name)
    for address in t.get("grpc_addresses", []):
        call_describe(address)
    seen = glob.glob("/tmp/arena-bot-*")
    probe("glob", "/tmp/arena-bot-*", bool(seen), seen)
    probe("done", "-", True)


class Caller(Bot):
    name = "hostile-caller"
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
    serve(Caller())
