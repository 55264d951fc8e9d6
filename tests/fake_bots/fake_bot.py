"""A fake bot for the host's tests: a real gRPC server whose misbehaviour is chosen by --mode.

Modes:
  random           plays a uniformly random legal index (the well-behaved baseline)
  slow             sleeps past every deadline in Decide
  crash            exits (status 3) at its Nth Decide (--after N, default 5), every time it is started
  crash-once       like crash, but only in its first life (a marker file in $FAKE_BOT_STATE_DIR)
  out-of-range     answers an index past the end of the legal actions
  garbage          answers Decide with bytes that are not a DecisionReply
  error            answers Decide with a gRPC error status (INTERNAL)
  oversized        answers Decide with a 2 MiB debug text
  never-ready      never starts its server (it still exits on stdin EOF)
  exit-early       prints a message to stderr and exits at once (status 2)
  ignore-shutdown  plays randomly but ignores SIGTERM and stdin EOF
  record           plays randomly and appends every DecisionRequest to $FAKE_BOT_RECORD
  debug            plays index 0 and sends a 300-character debug text
  describe-bad     answers Describe with protocol version 99 and no games

Every mode but ignore-shutdown exits when stdin reaches EOF and on SIGTERM.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
import threading
import time
from concurrent import futures
from pathlib import Path

import grpc

from arena.v1 import bot_pb2, bot_pb2_grpc


class FakeBot(bot_pb2_grpc.BotServicer):
    def __init__(self, mode: str, after: int, name: str | None = None) -> None:
        self.mode = mode
        self.name = name or f"fake-{mode}"
        self.after = after
        self.decides = 0
        self.lock = threading.Lock()
        self.rng = random.Random(1)
        self.crash_now = mode == "crash"
        if mode == "crash-once":
            marker = Path(os.environ["FAKE_BOT_STATE_DIR"]) / "crashed-once"
            self.crash_now = not marker.exists()
            self.marker = marker

    def Describe(self, request, context):
        if self.mode == "describe-bad":
            return bot_pb2.DescribeReply(name="bad", version="0", language="python", protocol_version=99)
        return bot_pb2.DescribeReply(name=self.name, version="0.1", author="tests", language="python",
                                     games=["union_pacific"], protocol_version=1)

    def StartMatch(self, request, context):
        return bot_pb2.StartMatchReply()

    def Decide(self, request, context):
        with self.lock:
            self.decides += 1
            count = self.decides
        n = len(request.legal_actions)
        if self.mode in ("crash", "crash-once") and self.crash_now and count >= self.after:
            if self.mode == "crash-once":
                self.marker.write_text("yes")
            print(f"fake bot: crashing at decision {request.decision_number}", file=sys.stderr, flush=True)
            os._exit(3)
        if self.mode == "slow":
            time.sleep(30)
        if self.mode == "out-of-range":
            return bot_pb2.DecisionReply(action_index=n + 5)
        if self.mode == "error":
            context.abort(grpc.StatusCode.INTERNAL, "fake bot: something broke")
        if self.mode == "oversized":
            return bot_pb2.DecisionReply(action_index=0, debug="x" * (2 << 20))
        if self.mode == "record":
            with self.lock, open(os.environ["FAKE_BOT_RECORD"], "ab") as out:
                data = request.SerializeToString()
                out.write(len(data).to_bytes(4, "big") + data)
        if self.mode == "debug":
            return bot_pb2.DecisionReply(action_index=0, debug="d" * 300)
        with self.lock:
            index = self.rng.randrange(n)
        return bot_pb2.DecisionReply(action_index=index, debug=f"picked {index}")

    def EndMatch(self, request, context):
        return bot_pb2.EndMatchReply()


def _garbage_service(servicer: FakeBot) -> grpc.GenericRpcHandler:
    """The service with Decide answering undecodable bytes."""

    def unary(method, request_type, reply_type):
        return grpc.unary_unary_rpc_method_handler(method, request_deserializer=request_type.FromString,
                                                   response_serializer=reply_type.SerializeToString)

    return grpc.method_handlers_generic_handler("arena.v1.Bot", {
        "Describe": unary(servicer.Describe, bot_pb2.DescribeRequest, bot_pb2.DescribeReply),
        "StartMatch": unary(servicer.StartMatch, bot_pb2.StartMatchRequest, bot_pb2.StartMatchReply),
        "EndMatch": unary(servicer.EndMatch, bot_pb2.EndMatchRequest, bot_pb2.EndMatchReply),
        "Decide": grpc.unary_unary_rpc_method_handler(
            lambda request, context: b"\xff\xff\xff\xff",
            request_deserializer=bot_pb2.DecisionRequest.FromString,
            response_serializer=lambda raw: raw,
        ),
    })


def _exit_on_stdin_eof() -> None:
    def watch() -> None:
        while sys.stdin.buffer.read(4096):
            pass
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", required=True)
    parser.add_argument("--port", type=int, default=int(os.environ.get("ARENA_BOT_PORT", "0")))
    parser.add_argument("--after", type=int, default=5)
    parser.add_argument("--name", default=None, help="the name given in Describe (default fake-MODE)")
    args = parser.parse_args()
    print(f"fake bot {args.mode} starting on port {args.port}", file=sys.stderr, flush=True)
    if args.mode == "exit-early":
        print("fake bot: cannot load my model, giving up", file=sys.stderr, flush=True)
        sys.exit(2)
    if args.mode == "ignore-shutdown":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
        _exit_on_stdin_eof()
    if args.mode == "never-ready":
        while True:
            time.sleep(0.1)
    servicer = FakeBot(args.mode, args.after, args.name)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    if args.mode == "garbage":
        server.add_generic_rpc_handlers((_garbage_service(servicer),))
    else:
        bot_pb2_grpc.add_BotServicer_to_server(servicer, server)
    server.add_insecure_port(f"127.0.0.1:{args.port}")
    server.start()
    print(f"fake bot pid {os.getpid()} ready", file=sys.stderr, flush=True)
    # Short sleeps: a signal the kernel hands to another thread only runs its Python
    # handler when the main thread next runs Python code.
    while True:
        time.sleep(0.1)


if __name__ == "__main__":
    main()
