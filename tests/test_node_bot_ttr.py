"""The Node.js sample bot plays Ticket to Ride: Pennsylvania: the game's second ``oneof`` member,
over real gRPC, as a real process.

The Union Pacific side of the same process is tested in test_node_bot_smoke.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.games import get_game
from arena.host import codec
from arena.host.clock import Clocks
from arena.host.manifest import parse_bot_spec
from arena.host.match import MatchConfig, run_match
from arena.host.pool import BotPool
from arena.protocol import REPO_ROOT
from arena.replay import verify_replay
from arena.v1 import bot_pb2

BOT_DIR = REPO_ROOT / "sample_bots" / "node"
NAME = "ticket_to_ride_pennsylvania"
GAME = get_game(NAME)

if shutil.which("node") is None:
    pytest.skip("node is not installed (the Node.js sample bot cannot run)", allow_module_level=True)
if not (BOT_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
    pytest.skip("sample_bots/node/node_modules is missing: run `npm ci` in sample_bots/node", allow_module_level=True)

from tests.test_node_bot_smoke import node_bot  # noqa: E402  (after the skips: it needs node too)


def test_a_ttr_match_over_grpc_against_the_python_samples(tmp_path: Path) -> None:
    """The host plays a 3-seat match: the Node sample, the Python random and sensible TTR bots, each
    a sandboxed process.  No seat faults, the game ends normally, the replay re-plays the bots'
    choices, and the Node bot (which claims routes for its tickets) finishes ahead of the random one."""
    specs = [parse_bot_spec(str(BOT_DIR)),
             parse_bot_spec(str(REPO_ROOT / "sample_bots" / "python" / "ttr_random_bot")),
             parse_bot_spec(str(REPO_ROOT / "sample_bots" / "python" / "ttr_sensible_bot"))]
    config = MatchConfig(clocks=Clocks(decision_ms=2000, bank_ms=20_000))
    with BotPool(log_dir=tmp_path / "logs", stop_timeout=1, game=NAME) as pool:
        record = run_match(pool, specs, seed=12, config=config, game=GAME)
    assert record.game == NAME
    assert all(not s.faults and not s.forfeited for s in record.seats), [s.faults for s in record.seats]
    assert record.termination.value == "normal"
    assert verify_replay(record.replay).ok
    node, random_bot, _ = record.seats
    assert node.bot == "node-sample" and random_bot.bot == "ttr-random-bot"
    assert node.score > random_bot.score, [(s.bot, s.score, s.place) for s in record.seats]
    log = (tmp_path / "logs" / "node-sample.log").read_text()
    assert "ticket_to_ride_pennsylvania, seat 0 of 3" in log and " claims)" in log


def test_claims_the_route_its_ticket_needs(tmp_path: Path) -> None:
    """Straight over gRPC: with a ticket whose chain is a single route, the Node bot claims that
    route rather than a longer one elsewhere or a card; a share goes to the richest company."""
    board = GAME.board.data
    routes = board["routes"]
    # a ticket between two cities joined by one route, and that route
    ticket, route = next((t, r) for t in board["tickets"] for r in routes
                         if {r["a"], r["b"]} == {t["a"], t["b"]} and r["colour"] != "grey")
    elsewhere = next(r for r in routes if r["length"] >= 5 and r is not route and r["colour"] != "grey")
    state = GAME.new_state(3, 5)
    for seat in range(3):
        state.apply_action(seat, state.legal_actions(seat)[0])
    observation = dict(state.observation(0), tickets=[ticket["id"]])
    actions = [("draw blind", {"kind": "blind"}),
               (f"claim {elsewhere['id']}", {"kind": "claim", "route": elsewhere["id"], "colour": elsewhere["colour"],
                                             "locomotives": 0}),
               (f"claim {route['id']}", {"kind": "claim", "route": route["id"], "colour": route["colour"],
                                         "locomotives": 0})]
    share_observation = dict(observation, decision="share", share_offer=["NYC", "PRR"])
    shares = [("share none", {"kind": "share", "company": None}), ("share NYC", {"kind": "share", "company": "NYC"}),
              ("share PRR", {"kind": "share", "company": "PRR"})]
    with node_bot(tmp_path) as bot:
        bot.stub.StartMatch(bot_pb2.StartMatchRequest(
            match_id="ttr-1", seat=0, num_players=3, variant="standard", game=NAME,
            board=codec.board_to_proto(board, game=NAME)), timeout=5)

        def decide(obs: dict, legal: list) -> tuple[int, str]:
            reply = bot.stub.Decide(bot_pb2.DecisionRequest(
                match_id="ttr-1", seat=0, decision_number=1, observation=codec.observation_to_proto(obs),
                legal_actions=[codec.action_to_proto(i, text, a, game=NAME) for i, (text, a) in enumerate(legal)],
                decision_time_ms=1000, time_bank_ms=10_000), timeout=5)
            return reply.action_index, reply.debug

        index, debug = decide(observation, actions)
        assert index == 2 and "for a ticket" in debug, (index, debug)
        index, debug = decide(share_observation, shares)
        assert index == 2, (index, debug)
