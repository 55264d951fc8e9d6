"""The Python bot SDK: the random sample bot as a real process over real gRPC, and the SDK in-process."""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import grpc
import pytest

from arena.games.union_pacific import default_game
from arena.host import codec
from arena.protocol import PROTOCOL_VERSION, REPO_ROOT
from arena.records import MatchTermination
from arena.sdk import Bot, LegalActions, Match, MatchResult, ServeError, listen_address, make_server
from arena.sdk_request import legal_actions as legal_actions_of_request
from arena.host.client import BotConnection
from arena.host.process import free_port
from tests.bot_ready import wait_ready
from arena.v1 import bot_pb2, bot_pb2_grpc

RANDOM_BOT = REPO_ROOT / "sample_bots" / "python" / "random_bot"
GREEDY_BOT = REPO_ROOT / "sample_bots" / "python" / "greedy_bot"
# Reconnect quickly while the bot starts, instead of gRPC's default back-off of a second and more.
CHANNEL_OPTIONS = [("grpc.initial_reconnect_backoff_ms", 50), ("grpc.max_reconnect_backoff_ms", 200),
                   ("grpc.min_reconnect_backoff_ms", 50)]


class BotProcess:
    def __init__(self, process: subprocess.Popen[bytes], stub: bot_pb2_grpc.BotStub, stderr: Path) -> None:
        self.process = process
        self.stub = stub
        self.stderr = stderr

    def log(self) -> str:
        return self.stderr.read_text()


def bot_env(**extra: str) -> dict[str, str]:
    """This environment without the host's variables (they would win over the command line), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_BOT_PORT", "ARENA_BOT_ADDRESS")}
    env.update(extra)
    return env


@contextlib.contextmanager
def run_bot(tmp_path: Path, args: list[str], env: dict[str, str], target: str,
            folder: Path = RANDOM_BOT) -> Iterator[BotProcess]:
    """``sys.executable bot.py ARGS`` in the bot's folder, stdin a pipe (as the host runs it), ready at ``target``."""
    stderr_path = tmp_path / f"{folder.name}-{time.monotonic_ns()}.stderr"
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen([sys.executable, "bot.py", *args], cwd=folder, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=stderr, env=env)
    try:
        with grpc.insecure_channel(target, options=CHANNEL_OPTIONS) as channel:
            stub = bot_pb2_grpc.BotStub(channel)
            wait_ready(stub, process, stderr_path)
            yield BotProcess(process, stub, stderr_path)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None and not stream.closed:
                stream.close()


@contextlib.contextmanager
def bot_process(tmp_path: Path, folder: Path = RANDOM_BOT, *, via_env: bool = False) -> Iterator[BotProcess]:
    """``sys.executable bot.py --port N`` (or ARENA_BOT_PORT=N alone) in the bot's folder."""
    port = free_port()
    args = [] if via_env else ["--port", str(port)]
    env = bot_env(ARENA_BOT_PORT=str(port)) if via_env else bot_env()
    with run_bot(tmp_path, args, env, f"127.0.0.1:{port}", folder) as bot:
        yield bot


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    """A fresh folder with a short path (a socket path holds at most 107 bytes; pytest's tmp_path can be longer)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-sdk-", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def random_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BotProcess]:
    with bot_process(tmp_path_factory.mktemp("random-bot")) as bot:
        yield bot


GAME = default_game()
BOARD = codec.board_to_proto(GAME.board.data, game="union_pacific")


def _start(stub: bot_pb2_grpc.BotStub, match_id: str, seat: int, players: int) -> None:
    stub.StartMatch(bot_pb2.StartMatchRequest(match_id=match_id, seat=seat, num_players=players,
                                              variant="standard", game="union_pacific", board=BOARD), timeout=5)


def _request(match_id: str, state: Any, seat: int, number: int) -> tuple[bot_pb2.DecisionRequest, list[int]]:
    actions = state.legal_actions(seat)
    request = bot_pb2.DecisionRequest(
        match_id=match_id, seat=seat, decision_number=number,
        observation=codec.observation_to_proto(state.observation(seat)),
        legal_actions=codec.legal_actions_to_proto(state, actions, game="union_pacific"),
        decision_time_ms=1000, time_bank_ms=10000,
    )
    return request, actions


def _play(stub: bot_pb2_grpc.BotStub, matches: dict[str, tuple[int, int]], order_seed: int) -> dict[str, list[int]]:
    """Play real games ``match_id -> (players, seed)``, every seat asked over gRPC, the matches'
    decisions interleaved at random; the chosen indices of each match, in order."""
    states = {m: GAME.new_state(players, seed) for m, (players, seed) in matches.items()}
    for match_id, state in states.items():
        for seat in range(state.num_players):
            _start(stub, match_id, seat, state.num_players)
    rng = random.Random(order_seed)
    chosen: dict[str, list[int]] = {m: [] for m in matches}
    numbers = dict.fromkeys(matches, 0)
    while not all(s.is_terminal() for s in states.values()):
        match_id = rng.choice([m for m, s in states.items() if not s.is_terminal()])
        state = states[match_id]
        seat = state.current_seats()[0]
        request, actions = _request(match_id, state, seat, numbers[match_id])
        reply = stub.Decide(request, timeout=5)
        assert 0 <= reply.action_index < len(actions), f"index {reply.action_index} of {len(actions)}"
        state.apply_action(seat, actions[reply.action_index])
        chosen[match_id].append(reply.action_index)
        numbers[match_id] += 1
    for match_id, state in states.items():
        for seat in range(state.num_players):
            stub.EndMatch(bot_pb2.EndMatchRequest(match_id=match_id, seat=seat,
                                                  result=codec.outcome_to_proto(state.outcome(), game="union_pacific")), timeout=5)
    return chosen


# ------------------------------------------------------------------ the real process


def test_describe(random_bot: BotProcess) -> None:
    about = random_bot.stub.Describe(bot_pb2.DescribeRequest(protocol_version=PROTOCOL_VERSION), timeout=5)
    assert (about.name, about.version, about.author, about.language) == ("random-bot", "1.0.0", "Arena", "python")
    assert list(about.games) == ["union_pacific"]
    assert about.protocol_version == PROTOCOL_VERSION


def test_two_interleaved_real_matches_are_legal_and_reproducible(random_bot: BotProcess) -> None:
    """Every reply is a legal index; a match plays the same whatever else the process is doing."""
    together = _play(random_bot.stub, {"sdk-a": (4, 11), "sdk-b": (3, 12)}, order_seed=1)
    assert len(together["sdk-a"]) > 100 and len(together["sdk-b"]) > 100
    # The same match ids again, interleaved differently: the random bot is seeded by match id and seat.
    again = _play(random_bot.stub, {"sdk-a": (4, 11), "sdk-b": (3, 12)}, order_seed=2)
    assert again == together
    # Another match id draws other numbers.
    other = _play(random_bot.stub, {"sdk-c": (4, 11)}, order_seed=3)
    assert other["sdk-c"] != together["sdk-a"]


def test_an_exception_in_decide_is_a_grpc_error_and_the_server_keeps_serving(random_bot: BotProcess) -> None:
    _start(random_bot.stub, "sdk-error", 0, 2)
    state = GAME.new_state(2, 5)
    request, actions = _request("sdk-error", state, 0, 0)
    del request.legal_actions[:]  # randrange(0) raises ValueError inside decide()
    with pytest.raises(grpc.RpcError) as raised:
        random_bot.stub.Decide(request, timeout=5)
    assert raised.value.code() == grpc.StatusCode.INTERNAL
    assert "decide() raised ValueError" in raised.value.details()
    assert "Traceback" in random_bot.log() and "ValueError" in random_bot.log()
    # Still serving, the same match included.
    good, actions = _request("sdk-error", state, 0, 1)
    assert 0 <= random_bot.stub.Decide(good, timeout=5).action_index < len(actions)
    assert random_bot.stub.Describe(bot_pb2.DescribeRequest(), timeout=5).name == "random-bot"


def test_exits_on_stdin_eof_within_3_seconds(tmp_path: Path) -> None:
    with bot_process(tmp_path, via_env=True) as bot:  # the port from ARENA_BOT_PORT alone
        _start(bot.stub, "sdk-eof", 1, 3)
        assert bot.process.stdin is not None
        bot.process.stdin.close()
        started = time.monotonic()
        try:
            status = bot.process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            pytest.fail("the bot did not exit within 3 s of its stdin closing")
        assert status == 0, bot.log()
        assert time.monotonic() - started < 3
        assert bot.process.stdout is not None and bot.process.stdout.read() == b"", "stdout must stay silent"
        assert "stdin closed" in bot.log()


def test_sigterm_stops_gracefully(tmp_path: Path) -> None:
    with bot_process(tmp_path) as bot:
        bot.process.send_signal(signal.SIGTERM)
        try:
            status = bot.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pytest.fail("the bot did not stop within 5 s of SIGTERM")
        assert status == 0, bot.log()
        assert "stopping: SIGTERM" in bot.log()


def test_greedy_bot_process_answers_with_legal_indices(tmp_path: Path) -> None:
    with bot_process(tmp_path, GREEDY_BOT) as bot:
        about = bot.stub.Describe(bot_pb2.DescribeRequest(protocol_version=PROTOCOL_VERSION), timeout=5)
        assert (about.name, about.language) == ("greedy-bot", "python")
        chosen = _play(bot.stub, {"greedy-a": (2, 3)}, order_seed=0)
        assert len(chosen["greedy-a"]) > 50


def test_no_address_is_a_clear_error() -> None:
    run = subprocess.run([sys.executable, "bot.py"], cwd=RANDOM_BOT, env=bot_env(), stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "no address to listen on" in run.stderr
    assert all(word in run.stderr for word in ("ARENA_BOT_ADDRESS", "--address", "--port", "ARENA_BOT_PORT"))


def test_a_taken_port_is_a_clear_error() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run([sys.executable, "bot.py", "--port", str(port)], cwd=RANDOM_BOT,
                             stdin=subprocess.PIPE, capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in run.stderr


# ------------------------------------------------------------------ addresses: Unix sockets and precedence


def _play_through_connection(connection: BotConnection, match_id: str, players: int, seed: int) -> int:
    """A whole real game through the host's own client, every seat asked; the number of decisions."""
    state = GAME.new_state(players, seed)
    for seat in range(players):
        connection.start_match(bot_pb2.StartMatchRequest(match_id=match_id, seat=seat, num_players=players,
                                                         variant="standard", game="union_pacific", board=BOARD), 5)
    number = 0
    while not state.is_terminal():
        seat = state.current_seats()[0]
        request, actions = _request(match_id, state, seat, number)
        reply = bot_pb2.DecisionReply.FromString(connection.decide(request.SerializeToString(), 5))
        assert 0 <= reply.action_index < len(actions)
        state.apply_action(seat, actions[reply.action_index])
        number += 1
    for seat in range(players):
        connection.end_match(bot_pb2.EndMatchRequest(match_id=match_id, seat=seat,
                                                     result=codec.outcome_to_proto(state.outcome(), game="union_pacific")), 5)
    return number


def test_serves_on_a_unix_socket_through_the_host_client(tmp_path: Path, socket_dir: Path) -> None:
    """``--address unix:PATH``: the host's BotConnection plays a whole game; EOF stops it and removes the socket."""
    sock = socket_dir / "bot.sock"
    address = f"unix:{sock}"
    with open(tmp_path / "bot.stderr", "wb") as stderr:
        process = subprocess.Popen([sys.executable, "bot.py", "--address", address], cwd=RANDOM_BOT,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=bot_env())
    connection = BotConnection(address)
    try:
        about = connection.wait_ready(30, alive=lambda: process.poll() is None)
        assert (about.name, about.protocol_version) == ("random-bot", PROTOCOL_VERSION)
        assert sock.is_socket()
        assert _play_through_connection(connection, "unix-a", 3, 21) > 50
        log = (tmp_path / "bot.stderr").read_text()
        assert f"serving on {address} (from --address, pid {process.pid})" in log
        assert process.stdin is not None
        process.stdin.close()
        try:
            status = process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            pytest.fail("the bot did not exit within 3 s of its stdin closing")
        assert status == 0, (tmp_path / "bot.stderr").read_text()
        assert process.stdout is not None and process.stdout.read() == b"", "stdout must stay silent"
        assert not sock.exists(), "the socket file outlived the bot"
    finally:
        connection.close()
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def test_arena_bot_address_wins_over_port(tmp_path: Path, socket_dir: Path) -> None:
    """A ``--port {port}`` manifest in a sandbox: the SDK listens on ARENA_BOT_ADDRESS, not on the port."""
    port = free_port()
    sock = socket_dir / "bot.sock"
    address = f"unix:{sock}"
    env = bot_env(ARENA_BOT_ADDRESS=address, ARENA_BOT_PORT=str(port))
    with run_bot(tmp_path, ["--port", str(port)], env, address) as bot:
        _play(bot.stub, {"env-a": (2, 4)}, order_seed=0)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
        assert f"serving on {address} (from ARENA_BOT_ADDRESS" in bot.log()
        assert "ARENA_BOT_ADDRESS is set: it wins over --address/--port" in bot.log()
        bot.process.send_signal(signal.SIGTERM)
        try:
            status = bot.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pytest.fail("the bot did not stop within 5 s of SIGTERM")
        assert status == 0, bot.log()
        assert "stopping: SIGTERM" in bot.log()
        assert not sock.exists()


def test_a_tcp_address_wins_over_port(tmp_path: Path) -> None:
    port, unused = free_port(), free_port()
    with run_bot(tmp_path, ["--port", str(unused), "--address", f"127.0.0.1:{port}"], bot_env(),
                 f"127.0.0.1:{port}") as bot:
        assert bot.stub.Describe(bot_pb2.DescribeRequest(), timeout=5).name == "random-bot"
        assert f"serving on 127.0.0.1:{port} (from --address" in bot.log()
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", unused), timeout=2).close()


@pytest.mark.parametrize(("argv", "environ", "expected"), [
    (["--address", "unix:/a.sock", "--port", "5"], {"ARENA_BOT_ADDRESS": "unix:/run/arena/bot.sock",
                                                    "ARENA_BOT_PORT": "6"}, ("unix:/run/arena/bot.sock",
                                                                             "ARENA_BOT_ADDRESS")),
    (["--port", "{port}"], {"ARENA_BOT_ADDRESS": "127.0.0.1:7000"}, ("127.0.0.1:7000", "ARENA_BOT_ADDRESS")),
    (["--address", "unix:/a.sock", "--port", "5"], {"ARENA_BOT_PORT": "6"}, ("unix:/a.sock", "--address")),
    (["--address", "unix:///abs/a.sock"], {}, ("unix:///abs/a.sock", "--address")),
    (["--address", "unix:relative.sock"], {}, ("unix:relative.sock", "--address")),
    (["--address", "0.0.0.0:50051"], {}, ("0.0.0.0:50051", "--address")),
    (["--address", "[::1]:50051"], {}, ("[::1]:50051", "--address")),
    (["--port", "5"], {"ARENA_BOT_PORT": "6"}, ("127.0.0.1:5", "--port")),
    ([], {"ARENA_BOT_PORT": "6"}, ("127.0.0.1:6", "ARENA_BOT_PORT")),
    (["--port", "5"], {"ARENA_BOT_ADDRESS": "  "}, ("127.0.0.1:5", "--port")),  # set but empty: not set
])
def test_where_to_listen_env_then_address_then_port(argv: list[str], environ: dict[str, str],
                                                    expected: tuple[str, str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--address")
    parser.add_argument("--port")
    assert listen_address(parser.parse_args(argv), environ) == expected


@pytest.mark.parametrize(("address", "port", "environ", "message"), [
    (None, None, {}, "no address to listen on: the host sets ARENA_BOT_ADDRESS; by hand, pass --address "
                     "unix:/path/bot.sock, --address HOST:PORT or --port N (or set ARENA_BOT_PORT)"),
    ("unix:/a.sock", None, {"ARENA_BOT_ADDRESS": "http://x"},
     "ARENA_BOT_ADDRESS: 'http://x' is not an address to listen on: give unix:/path/to/bot.sock or HOST:PORT"),
    ("bot.sock", None, {}, "--address: 'bot.sock' is not an address to listen on"),
    ("127.0.0.1:0", None, {}, "--address: '127.0.0.1:0' is not an address to listen on"),
    ("127.0.0.1:70000", None, {}, "--address: '127.0.0.1:70000' is not an address"),
    ("unix:", None, {}, "--address: 'unix:': no socket path after 'unix:'"),
    ("unix://run/bot.sock", None, {}, "--address: 'unix://run/bot.sock': a unix:// address needs an absolute path"),
    ("unix:/" + "s" * 107, None, {}, "the socket path is 108 bytes long; a Unix domain socket path holds at most 107"),
    (None, "abc", {}, "--port: port must be a whole number, got 'abc'"),
    (None, "0", {}, "--port: port must be 1 to 65535, got 0"),
    (None, None, {"ARENA_BOT_PORT": "70000"}, "ARENA_BOT_PORT: port must be 1 to 65535, got 70000"),
])
def test_where_to_listen_errors(address: str | None, port: str | None, environ: dict[str, str],
                                message: str) -> None:
    with pytest.raises(ServeError) as raised:
        listen_address(argparse.Namespace(address=address, port=port), environ)
    assert message in str(raised.value)


def test_a_bad_address_stops_the_bot_with_exit_2() -> None:
    run = subprocess.run([sys.executable, "bot.py", "--port", "5"], cwd=RANDOM_BOT, stdin=subprocess.DEVNULL,
                         env=bot_env(ARENA_BOT_ADDRESS="dns:///bots:1"), capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert "error: ARENA_BOT_ADDRESS: 'dns:///bots:1' is not an address to listen on" in run.stderr


def test_a_file_in_the_way_of_the_socket_is_a_clear_error(socket_dir: Path) -> None:
    (socket_dir / "bot.sock").write_text("mine")
    run = subprocess.run([sys.executable, "bot.py", "--address", f"unix:{socket_dir}/bot.sock"], cwd=RANDOM_BOT,
                         env=bot_env(), stdin=subprocess.PIPE, capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert f"{socket_dir}/bot.sock exists and is not a socket; not replacing it" in run.stderr
    assert (socket_dir / "bot.sock").read_text() == "mine"


# ------------------------------------------------------------------ the SDK in-process


class Recorder(Bot):
    """A bot that records its hooks and lets a test script decide()."""

    name = "recorder"
    version = "0.1"
    author = "tests"

    def __init__(self) -> None:
        self.started: list[Match] = []
        self.ended: list[MatchResult] = []
        self.seen: list[tuple[dict[str, Any], list[Any]]] = []
        self.answer: Any = 0
        self.barrier: threading.Barrier | None = None

    def start_match(self, match: Match) -> None:
        assert self.match is match
        self.started.append(match)

    def decide(self, observation: dict[str, Any], legal_actions: Any) -> Any:
        self.seen.append((observation, list(legal_actions)))
        self.match.data["decisions"] = self.match.data.get("decisions", 0) + 1
        if self.barrier is not None:
            self.barrier.wait(timeout=5)
        return self.answer

    def end_match(self, result: MatchResult) -> None:
        self.ended.append(result)


@contextlib.contextmanager
def in_process(bot: Bot, address: str | None = None) -> Iterator[bot_pb2_grpc.BotStub]:
    """``bot`` served in this process on ``address`` (default: a free TCP port)."""
    if address is None:
        address = f"127.0.0.1:{free_port()}"
    server = make_server(bot, address=address)
    try:
        with grpc.insecure_channel(address, options=CHANNEL_OPTIONS) as channel:
            stub = bot_pb2_grpc.BotStub(channel)
            stub.Describe(bot_pb2.DescribeRequest(), timeout=10, wait_for_ready=True)
            yield stub
    finally:
        server.stop(0).wait()


def _midgame(players: int = 4, seed: int = 3, steps: int = 40) -> Any:
    state = GAME.new_state(players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        for seat in state.current_seats():
            actions = state.legal_actions(seat)
            state.apply_action(seat, actions[rng.randrange(len(actions))])
    return state


def test_hooks_see_the_engine_data_and_the_match() -> None:
    bot = Recorder()
    state = _midgame()
    seat = state.current_seats()[0]
    with in_process(bot) as stub:
        _start(stub, "m1", seat, 4)
        request, actions = _request("m1", state, seat, 7)
        bot.answer = (len(actions) - 1, "last one")
        reply = stub.Decide(request, timeout=5)
        assert (reply.action_index, reply.debug) == (len(actions) - 1, "last one")
        stub.EndMatch(bot_pb2.EndMatchRequest(
            match_id="m1", seat=seat, forfeited=False,
            result=codec.match_result_to_proto({"0": 5, "1": 9, "2": 9, "3": 1}, {"0": 3, "1": 1, "2": 1, "3": 4},
                                               MatchTermination.NORMAL, game="union_pacific")), timeout=5)
    [match] = bot.started
    assert (match.match_id, match.seat, match.num_players, match.variant, match.game) == (
        "m1", seat, 4, "standard", "union_pacific")
    assert match.board == GAME.board.data
    assert match.data == {"decisions": 1}
    observation, legal = bot.seen[0]
    assert observation == state.observation(seat)
    assert [(a.index, a.text, a.action) for a in legal] == [
        (i, state.action_to_string(a), state.describe_action(a)) for i, a in enumerate(actions)]
    [result] = bot.ended
    assert (result.match_id, result.seat, result.termination, result.forfeited) == ("m1", seat, "normal", False)
    assert result.place == {"0": 3, "1": 1, "2": 1, "3": 4}[str(seat)]


def test_decide_without_start_match_starts_the_match_itself() -> None:
    bot = Recorder()
    state = _midgame(players=3)
    seat = state.current_seats()[0]
    with in_process(bot) as stub:
        request, _ = _request("late", state, seat, 0)
        stub.Decide(request, timeout=5)
        stub.Decide(request, timeout=5)
    [match] = bot.started
    assert (match.match_id, match.seat, match.num_players, match.board) == ("late", seat, 3, None)
    assert match.data == {"decisions": 2}


@pytest.mark.parametrize("answer, message", [
    (None, "must return an int index"),
    (1.5, "must return an int index"),
    (True, "not a bool"),
    ((0, 7), "debug text of type int"),
])
def test_a_wrong_return_type_is_a_grpc_error(answer: Any, message: str) -> None:
    bot = Recorder()
    bot.answer = answer
    state = _midgame()
    seat = state.current_seats()[0]
    with in_process(bot) as stub:
        request, _ = _request("m", state, seat, 0)
        with pytest.raises(grpc.RpcError) as raised:
            stub.Decide(request, timeout=5)
        assert raised.value.code() == grpc.StatusCode.INTERNAL
        assert message in raised.value.details()


def test_an_index_out_of_range_is_sent_for_the_host_to_judge() -> None:
    bot = Recorder()
    state = _midgame()
    seat = state.current_seats()[0]
    with in_process(bot) as stub:
        request, actions = _request("m", state, seat, 0)
        bot.answer = len(actions)
        assert stub.Decide(request, timeout=5).action_index == len(actions)


def test_decisions_of_different_matches_run_at_the_same_time() -> None:
    """Two Decide calls meet inside decide() (a two-party barrier): the server does not serialise them."""
    bot = Recorder()
    bot.barrier = threading.Barrier(2)
    state = _midgame()
    seat = state.current_seats()[0]
    with in_process(bot) as stub:
        requests = [_request(m, state, seat, 0)[0] for m in ("left", "right")]
        futures = [stub.Decide.future(r, timeout=10) for r in requests]
        assert [f.result().action_index for f in futures] == [0, 0]
    assert sorted(m.match_id for m in bot.started) == ["left", "right"]


def test_start_match_for_another_game_is_refused() -> None:
    with in_process(Recorder()) as stub:
        with pytest.raises(grpc.RpcError) as raised:
            stub.StartMatch(bot_pb2.StartMatchRequest(match_id="x", seat=0, num_players=2, game="chess"), timeout=5)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "chess" in raised.value.details()


def test_bot_match_outside_a_call_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="only available inside"):
        _ = Recorder().match


@pytest.mark.parametrize("wire", [False, True], ids=["messages", "bytes"])
def test_legal_actions_decode_lazily_and_behave_like_a_list(wire: bool) -> None:
    state = _midgame()
    seat = state.current_seats()[0]
    actions = state.legal_actions(seat)
    messages = codec.legal_actions_to_proto(state, actions, game="union_pacific")
    if wire:  # as the server makes them: over the request's bytes, parsed when one is first read
        data = bot_pb2.DecisionRequest(match_id="m", legal_actions=messages).SerializeToString()
        legal = LegalActions._of_request(len(messages), legal_actions_of_request, data)
    else:
        legal = LegalActions(messages)
    assert len(legal) == len(actions)
    assert legal._decoded is None and (legal._messages is None) == wire  # nothing decoded before it is read
    assert legal[-1].text == state.action_to_string(actions[-1])
    assert legal._decoded is not None and legal._decoded.count(None) == len(actions) - 1
    assert legal[0].action == state.describe_action(actions[0])
    assert [a.index for a in legal] == list(range(len(actions)))
    assert [a.index for a in legal[1:3]] == [1, 2]
    with pytest.raises(IndexError, match="out of range"):
        legal[len(actions)]


def test_make_server_checks_the_bot() -> None:
    class Nameless(Bot):
        def decide(self, observation: dict[str, Any], legal_actions: Any) -> int:
            return 0

    class Undecided(Bot):
        name = "undecided"

    with pytest.raises(ServeError, match="name must be a non-empty string"):
        make_server(Nameless(), free_port())
    with pytest.raises(ServeError, match="does not define decide"):
        make_server(Undecided(), free_port())


def test_make_server_refuses_a_port_in_use() -> None:
    port = free_port()
    first = make_server(Recorder(), port)
    try:
        with pytest.raises(ServeError, match=f"cannot listen on 127.0.0.1:{port}"):
            make_server(Recorder(), port)
    finally:
        first.stop(0).wait()


def _stale_socket(path: Path) -> None:
    """A socket file whose process is gone (bound, never listened on, closed)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind(str(path))
    assert path.is_socket()


def test_make_server_replaces_a_stale_socket(socket_dir: Path) -> None:
    path = socket_dir / "bot.sock"
    _stale_socket(path)
    with in_process(Recorder(), f"unix:{path}") as stub:
        assert stub.Describe(bot_pb2.DescribeRequest(), timeout=5).name == "recorder"
    assert not path.exists()


def test_make_server_never_takes_a_live_socket_over(socket_dir: Path) -> None:
    """gRPC alone would unlink the other server's socket and bind its own; the SDK refuses."""
    address = f"unix:{socket_dir}/bot.sock"
    first = Recorder()
    with in_process(first, address) as stub:
        with pytest.raises(ServeError, match=f"cannot listen on {address}: another process is listening on "
                                             f"{socket_dir}/bot.sock"):
            make_server(Recorder(), address=address)
        state = _midgame()
        seat = state.current_seats()[0]
        stub.Decide(_request("still-mine", state, seat, 0)[0], timeout=5)
    assert [m.match_id for m in first.started] == ["still-mine"]


def test_make_server_socket_errors(socket_dir: Path) -> None:
    with pytest.raises(ServeError, match=f"the folder {socket_dir}/absent does not exist"):
        make_server(Recorder(), address=f"unix:{socket_dir}/absent/bot.sock")
    (socket_dir / "file").write_text("x")
    with pytest.raises(ServeError, match="exists and is not a socket"):
        make_server(Recorder(), address=f"unix:{socket_dir}/file")
    with pytest.raises(ServeError, match="exactly one of a port and an address"):
        make_server(Recorder())
    with pytest.raises(ServeError, match="exactly one of a port and an address"):
        make_server(Recorder(), 5, address=f"unix:{socket_dir}/bot.sock")
    with pytest.raises(ServeError, match="is not an address to listen on"):
        make_server(Recorder(), address="localhost")
