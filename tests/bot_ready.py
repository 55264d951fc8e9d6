"""Test helper: wait until a bot process started by a test answers Describe."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import grpc
import pytest

from arena.protocol import PROTOCOL_VERSION
from arena.v1 import bot_pb2, bot_pb2_grpc


def wait_ready(stub: bot_pb2_grpc.BotStub, process: subprocess.Popen[bytes], stderr: Path,
               limit_s: float = 30) -> None:
    """Ready means the first Describe that answers; fail with the bot's stderr if it exits or times out."""
    deadline = time.monotonic() + limit_s
    while True:
        try:
            stub.Describe(bot_pb2.DescribeRequest(protocol_version=PROTOCOL_VERSION), timeout=1)
            return
        except grpc.RpcError:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the bot never became ready (exit {process.poll()}):\n{stderr.read_text()}")
            time.sleep(0.05)
