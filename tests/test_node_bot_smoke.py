"""The Node.js sample bot, started as a real process and driven over real gRPC."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Iterator

import grpc
import pytest

from arena.host import codec
from arena.protocol import PROTOCOL_VERSION, REPO_ROOT
from arena.records import MatchTermination
from arena.host.client import BotConnection
from arena.host.process import free_port
from arena.sdk import Bot, make_server
from tests.bot_ready import wait_ready
from arena.v1 import bot_pb2, bot_pb2_grpc

BOT_DIR = REPO_ROOT / "sample_bots" / "node"

if shutil.which("node") is None:
    pytest.skip("node is not installed (the Node.js sample bot cannot run)", allow_module_level=True)
if not (BOT_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
    pytest.skip(
        "sample_bots/node/node_modules is missing: run `npm ci` in sample_bots/node",
        allow_module_level=True,
    )

COMPANIES = ["EPRG", "BNL", "MS", "DM", "SFRB", "UMR", "ESL", "KCC", "MRR", "WW"]
TINY_BOARD = {
    "name": "smoke",
    "track_types": {"PLAIN": 1, "COAST": 1, "BORDER": 1, "MOUNTAIN": 1},
    "wild_cards": 0,
    "cities": [{"name": "Denver", "lon": -105.0, "lat": 39.7}, {"name": "El Paso", "lon": -106.5, "lat": 31.8}],
    "sections": [{"a": "Denver", "b": "El Paso", "spaces": 3, "type": "MOUNTAIN"}],
    "companies": {
        "DM": {"name": "Denver Midland", "shares": 10, "trains": 14, "home": "Denver",
               "types": ["PLAIN", "MOUNTAIN"], "start": [["Denver", "El Paso"]]},
    },
    "union_pacific_shares": 20,
}


class NodeBot:
    """A running bot process, its stub, and its captured output."""

    def __init__(self, process: subprocess.Popen[bytes], stub: bot_pb2_grpc.BotStub, stderr: Path) -> None:
        self.process = process
        self.stub = stub
        self.stderr = stderr


def bot_env(**extra: str) -> dict[str, str]:
    """This environment without the host's variables (ARENA_BOT_ADDRESS would win), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_BOT_PORT", "ARENA_BOT_ADDRESS")}
    env.update(extra)
    return env


@contextlib.contextmanager
def node_bot(tmp_path: Path, args: list[str] | None = None, env: dict[str, str] | None = None,
             target: str | None = None) -> Iterator[NodeBot]:
    """``node bot.js ARGS`` (default ``--port N`` with ARENA_BOT_PORT=N), ready at ``target``."""
    if args is None:
        port = free_port()
        args, env, target = ["--port", str(port)], bot_env(ARENA_BOT_PORT=str(port)), f"127.0.0.1:{port}"
    assert env is not None and target is not None
    stderr_path = tmp_path / "bot.stderr"
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(
            ["node", "bot.js", *args],
            cwd=BOT_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
        )
    try:
        with grpc.insecure_channel(target) as channel:
            stub = bot_pb2_grpc.BotStub(channel)
            wait_ready(stub, process, stderr_path, limit_s=20)
            yield NodeBot(process, stub, stderr_path)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None and not stream.closed:
                stream.close()


def _observation(decision: str, **changes: Any) -> dict[str, Any]:
    obs: dict[str, Any] = {
        "game": "union_pacific",
        "seat": 1,
        "num_players": 3,
        "variant": "standard",
        "decision": decision,
        "current_seat": None if decision == "first_invest" else 1,
        "turn": 0 if decision == "first_invest" else 9,
        "dividends_paid": 0,
        "dividends_to_end": 4,
        "share_deck": 60,
        "track_deck": 25,
        "up_stack": 17,
        "display": ["DM", "EPRG", "WW", "MS"],
        "track_discards": {"PLAIN": 1, "COAST": 0, "BORDER": 0, "MOUNTAIN": 1, "WILD": 0},
        "boxed_four_of_a_kind": {},
        "free_spaces": [2],
        "companies": [
            {"code": c, "trains_on_board": 1, "supply": 9, "value": 2, "sections": [0] if c == "DM" else []}
            for c in COMPANIES
        ],
        "players": [
            {"seat": 0, "cash": 0, "invested": {"EPRG": 1}, "hand_shares": 5, "hand_track": 3},
            {"seat": 1, "cash": 0, "invested": {"DM": 2}, "hand_shares": 4, "hand_track": 4},
            {"seat": 2, "cash": 0, "invested": {"WW": 5}, "hand_shares": 5, "hand_track": 3},
        ],
        "hand": {"shares": {"MS": 2, "WW": 1, "UP": 1}, "track": {"PLAIN": 2, "MOUNTAIN": 1, "WILD": 1}},
        "pending_first_investment": None,
        "imaginary": None,
        "public_events": [
            {"type": "turn", "turn": 8, "seat": 0},
            {"type": "build", "seat": 0, "card": "PLAIN", "company": "DM", "section": 0, "value": 2},
            {"type": "draw", "seat": 0, "source": "display", "company": "WW"},
        ],
        "known_shares": {"0": {"WW": 1, "UP": 1}, "2": {"UP": 1}},
    }
    obs.update(changes)
    return obs


def _decide(bot: NodeBot, observation: dict[str, Any], actions: list[tuple[str, dict[str, Any]]]) -> tuple[int, str]:
    request = bot_pb2.DecisionRequest(
        match_id="smoke-1",
        seat=observation["seat"],
        decision_number=3,
        observation=codec.observation_to_proto(observation),
        legal_actions=[codec.action_to_proto(i, text, a, game="union_pacific") for i, (text, a) in enumerate(actions)],
        decision_time_ms=1000,
        time_bank_ms=10000,
    )
    reply = bot.stub.Decide(request, timeout=5)
    assert 0 <= reply.action_index < len(actions), f"index {reply.action_index} out of range"
    return reply.action_index, reply.debug


def test_full_protocol_round_and_exit_on_stdin_eof(tmp_path: Path) -> None:
    with node_bot(tmp_path) as bot:
        about = bot.stub.Describe(bot_pb2.DescribeRequest(protocol_version=PROTOCOL_VERSION), timeout=5)
        assert (about.name, about.language, about.protocol_version) == ("node-sample", "javascript", 1)
        assert list(about.games) == ["union_pacific", "ticket_to_ride_pennsylvania"]

        bot.stub.StartMatch(
            bot_pb2.StartMatchRequest(
                match_id="smoke-1", seat=1, num_players=3, variant="standard",
                game="union_pacific", board=codec.board_to_proto(TINY_BOARD, game="union_pacific"),
            ),
            timeout=5,
        )

        # First investment: the company held most (MS x2), never UP while another exists.
        first = [
            ("first-invest MS", {"kind": "first_invest", "company": "MS"}),
            ("first-invest WW", {"kind": "first_invest", "company": "WW"}),
            ("first-invest UP", {"kind": "first_invest", "company": "UP"}),
        ]
        index, debug = _decide(bot, _observation("first_invest"), first)
        assert first[index][0] == "first-invest MS"
        assert debug

        # Main: investing 2 MS takes the MS lead (nobody has any) -> invest.
        main = [
            ("build DM Denver-El Paso MOUNTAIN", {"kind": "build", "card": "MOUNTAIN", "company": "DM", "section": 0}),
            ("invest 2 MS discard PLAIN", {"kind": "invest", "shares": {"MS": 2}, "discard": "PLAIN"}),
            ("invest 2 MS discard WILD", {"kind": "invest", "shares": {"MS": 2}, "discard": "WILD"}),
            ("invest 1 MS discard PLAIN", {"kind": "invest", "shares": {"MS": 1}, "discard": "PLAIN"}),
            ("pass discard PLAIN", {"kind": "pass", "discard": "PLAIN"}),
        ]
        index, _ = _decide(bot, _observation("main"), main)
        assert main[index][0] == "invest 2 MS discard PLAIN"

        # Main with a single MS: build for DM (invested), spending MOUNTAIN rather than WILD.
        single = _observation("main", hand={"shares": {"MS": 1}, "track": {"MOUNTAIN": 1, "WILD": 1, "PLAIN": 2}})
        builds = [
            ("build DM Denver-El Paso WILD", {"kind": "build", "card": "WILD", "company": "DM", "section": 0}),
            ("build DM Denver-El Paso MOUNTAIN", {"kind": "build", "card": "MOUNTAIN", "company": "DM", "section": 0}),
            ("invest 1 MS discard PLAIN", {"kind": "invest", "shares": {"MS": 1}, "discard": "PLAIN"}),
        ]
        index, _ = _decide(bot, single, builds)
        assert builds[index][0] == "build DM Denver-El Paso MOUNTAIN"

        # Draw: the display company it leads (DM).
        draws = [
            ("draw display EPRG", {"kind": "draw", "source": "display", "company": "EPRG"}),
            ("draw display DM", {"kind": "draw", "source": "display", "company": "DM"}),
            ("draw deck", {"kind": "draw", "source": "deck"}),
            ("draw up", {"kind": "draw", "source": "up"}),
        ]
        index, _ = _decide(bot, _observation("draw_share"), draws)
        assert draws[index][0] == "draw display DM"

        # Exchange: nothing while every hand share is still useful ...
        exchanges = [
            ("exchange none", {"kind": "exchange", "company": None}),
            ("exchange MS", {"kind": "exchange", "company": "MS"}),
            ("exchange WW", {"kind": "exchange", "company": "WW"}),
            ("exchange UP", {"kind": "exchange", "company": "UP"}),
        ]
        useful = [exchanges[0], exchanges[1], exchanges[3]]
        index, _ = _decide(bot, _observation("exchange", hand={"shares": {"MS": 1, "UP": 1}, "track": {}}), useful)
        assert useful[index][0] == "exchange none"
        # ... but the lone WW is useless: seat 2 has 5 invested, this seat none.
        index, _ = _decide(bot, _observation("exchange"), exchanges)
        assert exchanges[index][0] == "exchange WW"
        # With 2 WW invested, seat 2 is no threat on its own; 3 more known in its hand make it one.
        two_ww = _observation("exchange", players=[
            {"seat": 0, "cash": 0, "invested": {"EPRG": 1}, "hand_shares": 5, "hand_track": 3},
            {"seat": 1, "cash": 0, "invested": {"DM": 2}, "hand_shares": 4, "hand_track": 4},
            {"seat": 2, "cash": 0, "invested": {"WW": 2}, "hand_shares": 5, "hand_track": 3}])
        index, _ = _decide(bot, two_ww, exchanges)
        assert exchanges[index][0] == "exchange none"
        two_ww["known_shares"] = {"0": {}, "2": {"WW": 3}}
        index, _ = _decide(bot, two_ww, exchanges)
        assert exchanges[index][0] == "exchange WW"

        bot.stub.EndMatch(
            bot_pb2.EndMatchRequest(
                match_id="smoke-1",
                seat=1,
                result=codec.match_result_to_proto(
                    {"0": 30, "1": 41, "2": 12}, {"0": 2, "1": 1, "2": 3}, MatchTermination.NORMAL, game="union_pacific"),
                forfeited=False,
            ),
            timeout=5,
        )

        bot.process.stdin.close()
        try:
            status = bot.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pytest.fail("the Node bot did not exit within 5 s of its stdin closing")
        assert status == 0
        assert bot.process.stdout.read() == b"", "the bot must log to stderr only"
        log = bot.stderr.read_text()
        assert "match smoke-1 over" in log
        # Eight Decide calls of match smoke-1 each carried the three events of _observation.
        assert "saw 24 public events (8 builds, 0 dividends)" in log


def test_plays_whole_real_games_legally(tmp_path: Path) -> None:
    """One bot process holds every seat of two concurrent real games; every reply is in range."""
    engine = pytest.importorskip("arena.games.union_pacific", reason="the Union Pacific engine is not there yet")
    game = engine.default_game()
    board = codec.board_to_proto(game.board.data, game="union_pacific")
    with node_bot(tmp_path) as bot:
        states = {f"real-{players}": game.new_state(players, 7, "standard") for players in (3, 5)}
        for match_id, state in states.items():
            for seat in range(state.num_players):
                bot.stub.StartMatch(
                    bot_pb2.StartMatchRequest(
                        match_id=match_id, seat=seat, num_players=state.num_players,
                        variant="standard", game="union_pacific", board=board,
                    ),
                    timeout=5,
                )
        rng = random.Random(7)
        number = 0
        while not all(s.is_terminal() for s in states.values()):
            match_id, state = rng.choice([(m, s) for m, s in states.items() if not s.is_terminal()])
            seat = state.current_seats()[0]
            actions = state.legal_actions(seat)
            reply = bot.stub.Decide(
                bot_pb2.DecisionRequest(
                    match_id=match_id, seat=seat, decision_number=number,
                    observation=codec.observation_to_proto(state.observation(seat)),
                    legal_actions=codec.legal_actions_to_proto(state, actions, game="union_pacific"),
                    decision_time_ms=1000, time_bank_ms=10000,
                ),
                timeout=5,
            )
            assert 0 <= reply.action_index < len(actions)
            state.apply_action(seat, actions[reply.action_index])
            number += 1
        assert number > 100
        for match_id, state in states.items():
            outcome = state.outcome()
            for seat in range(state.num_players):
                bot.stub.EndMatch(
                    bot_pb2.EndMatchRequest(match_id=match_id, seat=seat, result=codec.outcome_to_proto(outcome, game="union_pacific")),
                    timeout=5,
                )


# ------------------------------------------------------------------ addresses: Unix sockets and precedence


@pytest.fixture
def socket_dir() -> Iterator[Path]:
    """A fresh folder with a short path (a socket path holds at most 107 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-node-", dir="/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _stale_socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind(str(path))
    assert path.is_socket()


def _first_invest(connection: BotConnection, match_id: str) -> None:
    """StartMatch, one Decide and EndMatch through the host's own client."""
    connection.start_match(bot_pb2.StartMatchRequest(match_id=match_id, seat=1, num_players=3, variant="standard",
                                                     game="union_pacific", board=codec.board_to_proto(TINY_BOARD, game="union_pacific")), 5)
    first = [("first-invest MS", {"kind": "first_invest", "company": "MS"}),
             ("first-invest UP", {"kind": "first_invest", "company": "UP"})]
    request = bot_pb2.DecisionRequest(
        match_id=match_id, seat=1, decision_number=0, observation=codec.observation_to_proto(
            _observation("first_invest")),
        legal_actions=[codec.action_to_proto(i, text, a, game="union_pacific") for i, (text, a) in enumerate(first)],
        decision_time_ms=1000, time_bank_ms=10000)
    reply = bot_pb2.DecisionReply.FromString(connection.decide(request.SerializeToString(), 5))
    assert reply.action_index == 0 and reply.debug
    connection.end_match(bot_pb2.EndMatchRequest(match_id=match_id, seat=1, result=codec.match_result_to_proto(
        {"0": 1, "1": 2, "2": 0}, {"0": 2, "1": 1, "2": 3}, MatchTermination.NORMAL, game="union_pacific")), 5)


def test_serves_on_a_unix_socket_through_the_host_client(tmp_path: Path, socket_dir: Path) -> None:
    """``--address unix:PATH`` over a stale socket file: it serves there, and removes the socket at exit."""
    sock = socket_dir / "bot.sock"
    _stale_socket(sock)
    address = f"unix:{sock}"
    stderr_path = tmp_path / "bot.stderr"
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(["node", "bot.js", "--address", address], cwd=BOT_DIR, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=stderr, env=bot_env())
    connection = BotConnection(address)
    try:
        about = connection.wait_ready(20, alive=lambda: process.poll() is None)
        assert (about.name, about.protocol_version) == ("node-sample", PROTOCOL_VERSION)
        _first_invest(connection, "unix-1")
        log = stderr_path.read_text()
        assert f"removed the stale socket {sock}" in log
        assert f"serving arena.v1.Bot on {address} (from --address, pid {process.pid})" in log
        assert process.stdin is not None
        process.stdin.close()
        try:
            status = process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pytest.fail("the Node bot did not exit within 5 s of its stdin closing")
        assert status == 0, stderr_path.read_text()
        assert process.stdout is not None and process.stdout.read() == b""
        assert not sock.exists(), "the socket file outlived the bot"
    finally:
        connection.close()
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def test_arena_bot_address_wins_over_port(tmp_path: Path, socket_dir: Path) -> None:
    port = free_port()
    sock = socket_dir / "bot.sock"
    address = f"unix:{sock}"
    env = bot_env(ARENA_BOT_ADDRESS=address, ARENA_BOT_PORT=str(port))
    with node_bot(tmp_path, ["--port", str(port), "--address", "127.0.0.1:1"], env, address) as bot:
        about = bot.stub.Describe(bot_pb2.DescribeRequest(protocol_version=PROTOCOL_VERSION), timeout=5)
        assert about.name == "node-sample"
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
        assert f"serving arena.v1.Bot on {address} (from ARENA_BOT_ADDRESS" in bot.stderr.read_text()
        bot.process.send_signal(signal.SIGTERM)
        try:
            assert bot.process.wait(timeout=5) == 0
        except subprocess.TimeoutExpired:
            pytest.fail("the Node bot did not exit within 5 s of SIGTERM")
        assert not sock.exists()


def test_a_tcp_address_wins_over_port(tmp_path: Path) -> None:
    port, unused = free_port(), free_port()
    with node_bot(tmp_path, ["--port", str(unused), "--address", f"127.0.0.1:{port}"], bot_env(),
                  f"127.0.0.1:{port}") as bot:
        assert bot.stub.Describe(bot_pb2.DescribeRequest(), timeout=5).name == "node-sample"
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", unused), timeout=2).close()


def test_where_to_listen_env_then_address_then_port() -> None:
    """bot.js's listenAddress, called through node on a table of cases."""
    cases = [
        (["--address", "unix:/a.sock", "--port", "5"], {"ARENA_BOT_ADDRESS": "unix:/run/arena/bot.sock",
                                                        "ARENA_BOT_PORT": "6"},
         {"address": "unix:/run/arena/bot.sock", "source": "ARENA_BOT_ADDRESS"}),
        (["--address=unix:/a.sock", "--port", "5"], {"ARENA_BOT_PORT": "6"},
         {"address": "unix:/a.sock", "source": "--address"}),
        (["--address", "unix:///abs/a.sock"], {}, {"address": "unix:///abs/a.sock", "source": "--address"}),
        (["--address", "[::1]:50051"], {}, {"address": "[::1]:50051", "source": "--address"}),
        (["--port", "5"], {"ARENA_BOT_PORT": "6", "ARENA_BOT_ADDRESS": " "},
         {"address": "127.0.0.1:5", "source": "--port"}),
        ([], {"ARENA_BOT_PORT": "6"}, {"address": "127.0.0.1:6", "source": "ARENA_BOT_PORT"}),
        ([], {}, {"error": "no address to listen on: the host sets ARENA_BOT_ADDRESS; by hand, pass --address "
                           "unix:/path/bot.sock, --address HOST:PORT or --port N (or set ARENA_BOT_PORT)"}),
        (["--port", "0"], {}, {"error": '--port: port must be 1 to 65535, got "0"'}),
        ([], {"ARENA_BOT_PORT": "abc"}, {"error": 'ARENA_BOT_PORT: port must be 1 to 65535, got "abc"'}),
        (["--address", "bot.sock"], {}, {"error": '--address: "bot.sock" is not an address to listen on: give '
                                                  "unix:/path/to/bot.sock or HOST:PORT (port 1 to 65535)"}),
        (["--address", "unix://rel.sock"], {}, {"error": '--address: "unix://rel.sock" is not an address to listen '
                                                         "on: give unix:/path/to/bot.sock or HOST:PORT (port 1 to "
                                                         "65535)"}),
        ([], {"ARENA_BOT_ADDRESS": "host:70000"}, {"error": 'ARENA_BOT_ADDRESS: "host:70000" is not an address to '
                                                            "listen on: give unix:/path/to/bot.sock or HOST:PORT "
                                                            "(port 1 to 65535)"}),
    ]
    script = ("const {listenAddress} = require('./bot.js');"
              "const cases = JSON.parse(process.argv[1]);"
              "process.stdout.write(JSON.stringify(cases.map(([argv, env]) => listenAddress(argv, env))));")
    run = subprocess.run(["node", "-e", script, json.dumps([[argv, env] for argv, env, _ in cases])], cwd=BOT_DIR,
                         capture_output=True, text=True, timeout=30, check=True)
    assert json.loads(run.stdout) == [expected for _, _, expected in cases]


class _Anyone(Bot):
    name = "anyone"

    def decide(self, observation: dict[str, Any], legal_actions: Any) -> int:
        return 0


@pytest.mark.parametrize("in_the_way", ["live socket", "file"])
def test_what_is_in_the_way_of_the_socket_stays(socket_dir: Path, in_the_way: str) -> None:
    """A socket another process listens on, or a file that is no socket: the bot exits 1 and leaves it."""
    sock = socket_dir / "bot.sock"
    server = None
    if in_the_way == "file":
        sock.write_text("mine")
        expected = f"{sock} exists and is not a socket; not replacing it"
    else:
        server = make_server(_Anyone(), address=f"unix:{sock}")
        expected = f"another process is listening on {sock}"
    try:
        run = subprocess.run(["node", "bot.js", "--address", f"unix:{sock}"], cwd=BOT_DIR, env=bot_env(),
                             stdin=subprocess.PIPE, capture_output=True, text=True, timeout=30)
        assert run.returncode == 1, run.stderr
        assert f"cannot listen on unix:{sock}: {expected}" in run.stderr
        if server is not None:
            connection = BotConnection(f"unix:{sock}")
            try:
                assert connection.describe(5).name == "anyone", "the bot took the live socket over"
            finally:
                connection.close()
        else:
            assert sock.read_text() == "mine"
    finally:
        if server is not None:
            server.stop(0).wait()


def test_a_bad_address_exits_2() -> None:
    run = subprocess.run(["node", "bot.js"], cwd=BOT_DIR, env=bot_env(ARENA_BOT_ADDRESS="dns:///x:1"),
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    assert run.returncode == 2
    assert 'ARENA_BOT_ADDRESS: "dns:///x:1" is not an address to listen on' in run.stderr


def test_the_shipped_proto_is_the_source_of_truth() -> None:
    """The sample loads its own copy of bot.proto (a sandboxed bot sees only its folder): it must not drift."""
    copy = BOT_DIR / "protos" / "arena" / "v1" / "bot.proto"
    assert copy.read_bytes() == (REPO_ROOT / "protos" / "arena" / "v1" / "bot.proto").read_bytes(), (
        "sample_bots/node/protos/arena/v1/bot.proto differs from protos/arena/v1/bot.proto: copy it again")
