"""The SDK's forward model: samples of the full game built from what a bot is sent over gRPC,
and the search sample bot that plays on them (a real process, sandboxed, through `arena bot check`)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main
from arena.games import registered_games
from arena.games.union_pacific import default_game
from arena.games.union_pacific.determinise import knowledge_of
from arena.host import codec
from arena.protocol import REPO_ROOT
from arena.sdk import Bot
from arena.v1 import bot_pb2
from tests.test_sdk import _request, _start, in_process

GAME = default_game()
SEARCH_BOT = REPO_ROOT / "sample_bots" / "python" / "search_bot"


class Sampler(Bot):
    """At every decision: a forward model, two samples played on, what they showed."""

    name = "sampler"
    version = "1.0.0"
    author = "tests"

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    def decide(self, observation: dict[str, Any], legal_actions: Any) -> int:
        model = self.match.forward_model(observation, legal_actions)
        first, second = model.sample(), model.sample()
        seat = model.seat
        shown = first.observation(seat)
        self.seen.append({
            "observation": observation, "sample": shown, "actions": list(model.actions),
            "texts": [a.text for a in legal_actions], "knowledge": model.knowledge,
            "same_deal": (first.hand_track, first.track_deck) == (second.hand_track, second.track_deck),
            "events": len(self.match.public_events),
            "complete": self.match.history_complete,
            "clocks": (self.match.decision_time_ms, self.match.time_bank_ms),
        })
        index = self.match.rng.randrange(len(legal_actions))
        # play one sample on to the end from the chosen action
        first.apply_action(seat, model.actions[index])
        while not first.is_terminal():
            who = first.current_seats()[0]
            first.apply_action(who, first.legal_actions(who)[0])
        return index


def _without_window(observation: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in observation.items() if k != "public_events"}


@pytest.mark.parametrize("players", [2, 4])
def test_forward_model_over_grpc_matches_what_the_seat_knows(players: int) -> None:
    """Every seat of a whole match is a bot asking the SDK for samples at each decision, over
    real gRPC: the samples show the seat what the host showed it (the window of events aside),
    the forward model's action ids are the host's legal actions in order, its knowledge is what
    the host-side determinisation reads from the real state, and samples are dealt afresh."""
    bot = Sampler()
    state = GAME.new_state(players, 77 + players)
    with in_process(bot) as stub:
        for seat in range(players):
            _start(stub, "fm", seat, players)
        number = 0
        while not state.is_terminal():
            seat = state.current_seats()[0]
            request, actions = _request("fm", state, seat, number)
            know = knowledge_of(state, seat)
            reply = stub.Decide(request, timeout=30)
            seen = bot.seen[-1]
            assert seen["actions"] == actions
            assert seen["texts"] == [state.action_to_string(a) for a in actions]
            assert _without_window(seen["sample"]) == _without_window(state.observation(seat))
            assert seen["knowledge"] == know
            assert seen["clocks"] == (1000, 10000)
            assert seen["complete"]  # this process saw the match from its start
            state.apply_action(seat, actions[reply.action_index])
            number += 1
        for seat in range(players):
            stub.EndMatch(bot_pb2.EndMatchRequest(match_id="fm", seat=seat,
                                                  result=codec.outcome_to_proto(state.outcome(), game="union_pacific")), timeout=5)
    assert number > 50
    hidden = sum(1 for s in bot.seen if s["knowledge"].track_hand_sizes and not s["same_deal"])
    assert hidden > 0.9 * len(bot.seen)
    assert bot.seen[-1]["events"] > 100


def test_search_bot_passes_bot_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The search sample bot, a real sandboxed process over gRPC, plays the check's matches within
    the clocks (with a short budget here, to keep the test quick)."""
    folder = tmp_path / "search_bot"
    shutil.copytree(SEARCH_BOT, folder, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text() + '\n[env]\nSEARCH_BUDGET_S = "0.02"\n')
    assert main(["bot", "check", str(manifest), "--logs", str(tmp_path / "logs"), "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "PASS: search-bot is ready to submit" in out, out


class Restarted(Bot):
    """Says, in its debug text, whether it knows the whole history and why it has no forward model."""

    name = "restarted"
    version = "1.0.0"
    author = "tests"

    def decide(self, observation: dict[str, Any], legal_actions: Any) -> tuple[int, str]:
        complete = f"complete={self.match.history_complete} "
        try:
            self.match.forward_model(observation, legal_actions)
        except ValueError as exc:
            return 0, complete + f"{type(exc).__name__}: {exc}"[:300]
        return 0, complete + "built"


def test_a_match_joined_midway_has_no_forward_model_and_says_why() -> None:
    """A process that never saw the start of the match (restarted) lacks the public events before
    its first decision: forward_model raises a ValueError that says what is missing."""
    state = GAME.new_state(4, 5)
    while state.turn < 12:
        seat = state.current_seats()[0]
        state.apply_action(seat, state.legal_actions(seat)[0])
    seat = state.current_seats()[0]
    for _ in range(2):  # the seat's previous decision: its window no longer reaches the start
        while seat not in state.current_seats():
            who = state.current_seats()[0]
            state.apply_action(who, state.legal_actions(who)[0])
        state.apply_action(seat, state.legal_actions(seat)[0])
    while seat not in state.current_seats():
        who = state.current_seats()[0]
        state.apply_action(who, state.legal_actions(who)[0])
    with in_process(Restarted()) as stub:
        request, _ = _request("late", state, seat, 40)
        reply = stub.Decide(request, timeout=10)
    assert reply.debug.startswith("complete=False PartialHistory: the public events start mid-match"), reply.debug
    assert "restarted" in reply.debug


def _after_first_decisions(players: int, seed: int) -> tuple[Any, int]:
    """A Union Pacific state at some seat's second decision, and that seat."""
    state = GAME.new_state(players, seed)
    decided: set[int] = set()
    while True:
        seat = state.current_seats()[0]
        if seat in decided:
            return state, seat
        decided.add(seat)
        state.apply_action(seat, state.legal_actions(seat)[0])


def test_a_restart_right_after_the_first_investment_is_no_longer_a_silent_partial_sample() -> None:
    """After its first decision a seat's window no longer holds the set-up, but it may still hold
    everything the sampler reads (the share deck's set-up): the sampler used to build samples from
    it without a word.  A restarted process now knows its history is partial and gets no sample;
    one that saw the match from the start, at the same decision, gets its sample."""
    from arena.forward_model import PartialHistory, forward_model
    from arena.games.union_pacific.determinise import from_observation

    state, seat = _after_first_decisions(4, 3)
    window = state.observation(seat)["public_events"]
    assert window[0]["type"] != "setup" and any(e["type"] == "share_deck" for e in window)
    from_observation(GAME, state.observation(seat), window)  # what the sampler alone would accept
    with pytest.raises(PartialHistory, match="start mid-match"):
        forward_model("union_pacific", None, state.observation(seat), window, None, 1)
    with in_process(Restarted()) as stub:  # the restarted process: StartMatch again, then this decision
        _start(stub, "restart", seat, 4)
        request, _ = _request("restart", state, seat, 8)
        reply = stub.Decide(request, timeout=10)
    assert reply.debug.startswith("complete=False PartialHistory"), reply.debug
    with in_process(Restarted()) as stub:  # the same decision in a process that saw every one of the seat's
        _start(stub, "whole", seat, 4)
        first = GAME.new_state(4, 3)
        while seat not in first.current_seats():
            who = first.current_seats()[0]
            first.apply_action(who, first.legal_actions(who)[0])
        stub.Decide(_request("whole", first, seat, 0)[0], timeout=10)
        reply = stub.Decide(_request("whole", state, seat, 8)[0], timeout=10)
    assert reply.debug == "complete=True built", reply.debug


@pytest.mark.parametrize("game", [spec.name for spec in registered_games()])
def test_only_a_seats_first_decision_shows_the_set_up_event(game: str) -> None:
    """The contract the SDK's history_complete rests on (arena.games.registry.SETUP_EVENT): in
    every registered game, a seat's public events begin with the set-up at its first decision
    and at no later one, at every table size."""
    import random

    from arena.games import get_game
    from arena.games.registry import starts_at_setup

    engine = get_game(game)
    for players in range(engine.min_players, engine.max_players + 1):
        state = engine.new_state(players, players, engine.variants[0])
        rng = random.Random(players)
        decided: set[int] = set()
        while not state.is_terminal():
            seat = state.current_seats()[0]
            events = state.observation(seat)["public_events"]
            assert starts_at_setup(events) == (seat not in decided), (game, players, seat, events[:1])
            decided.add(seat)
            state.apply_action(seat, rng.choice(state.legal_actions(seat)))
        assert decided == set(range(players))
