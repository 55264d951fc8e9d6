"""The Node.js sample bot, started as a real process and driven over real gRPC."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any, Iterator

import grpc
import pytest

from arena.host import codec
from arena.protocol import PROTOCOL_VERSION, REPO_ROOT
from arena.records import MatchTermination
from arena.host.process import free_port
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


@contextlib.contextmanager
def node_bot(tmp_path: Path) -> Iterator[NodeBot]:
    port = free_port()
    stderr_path = tmp_path / "bot.stderr"
    with open(stderr_path, "wb") as stderr:
        process = subprocess.Popen(
            ["node", "bot.js", "--port", str(port)],
            cwd=BOT_DIR,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env={**os.environ, "ARENA_BOT_PORT": str(port)},
        )
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
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
    }
    obs.update(changes)
    return obs


def _decide(bot: NodeBot, observation: dict[str, Any], actions: list[tuple[str, dict[str, Any]]]) -> tuple[int, str]:
    request = bot_pb2.DecisionRequest(
        match_id="smoke-1",
        seat=observation["seat"],
        decision_number=3,
        observation=codec.observation_to_proto(observation),
        legal_actions=[codec.action_to_proto(i, text, a) for i, (text, a) in enumerate(actions)],
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
        assert list(about.games) == ["union_pacific"]

        bot.stub.StartMatch(
            bot_pb2.StartMatchRequest(
                match_id="smoke-1", seat=1, num_players=3, variant="standard",
                game="union_pacific", board=codec.board_to_proto(TINY_BOARD),
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

        bot.stub.EndMatch(
            bot_pb2.EndMatchRequest(
                match_id="smoke-1",
                seat=1,
                result=codec.match_result_to_proto(
                    {"0": 30, "1": 41, "2": 12}, {"0": 2, "1": 1, "2": 3}, MatchTermination.NORMAL
                ),
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


def test_plays_whole_real_games_legally(tmp_path: Path) -> None:
    """One bot process holds every seat of two concurrent real games; every reply is in range."""
    engine = pytest.importorskip("arena.games.union_pacific", reason="the Union Pacific engine is not there yet")
    game = engine.default_game()
    board = codec.board_to_proto(game.board.data)
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
                    legal_actions=codec.legal_actions_to_proto(state, actions),
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
                    bot_pb2.EndMatchRequest(match_id=match_id, seat=seat, result=codec.outcome_to_proto(outcome)),
                    timeout=5,
                )
