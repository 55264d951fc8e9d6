"""A replay records the revision of its game's rules; one from before a rules change says why it does
not re-play instead of looking tampered with (docs/replay-format.md, field ``rules``)."""

from __future__ import annotations

import copy
import random

import pytest

from arena.games import get_game
from arena.games.base import ReplayError
from arena.replay import build_replay, verify_replay


def _reshuffled_game() -> dict:
    """A random 3-player Union Pacific game in which the track discards were reshuffled."""
    game = get_game("union_pacific")
    for seed in range(50):
        state, rng = game.new_state(3, seed), random.Random(seed)
        while not state.is_terminal():
            seat = state.current_seats()[0]
            state.apply_action(seat, rng.choice(state.legal_actions(seat)))
        if any(e["type"] == "reshuffle" for e in state.events):
            return build_replay(game, state, seed=seed, variant="standard")
    raise AssertionError("no reshuffle in 50 random games")


def test_a_replay_names_the_rules_revision_that_played_it() -> None:
    replay = _reshuffled_game()
    spec = get_game("union_pacific").spec
    assert replay["rules"] == spec.rules_revision == 2 and "§4" in spec.rules_changes[0]
    assert verify_replay(replay).ok
    unnamed = {k: v for k, v in replay.items() if k != "rules"}  # older replays: revision 1
    assert verify_replay(unnamed).ok  # a game that re-plays the same still verifies


def test_an_older_revisions_replay_that_differs_names_the_rules_change() -> None:
    replay = _reshuffled_game()
    at = next(i for i, e in enumerate(replay["events"]) if e["type"] == "reshuffle")
    old = copy.deepcopy(replay)
    old["rules"] = 1
    old["events"][at] = dict(old["events"][at], cards=["changed"])  # as the old engine would have logged it
    verdict = verify_replay(old)
    assert not verdict.ok and f"event #{at} differs" in verdict.message
    assert "revision 1 of the Union Pacific rules" in verdict.message and "§4" in verdict.message
    tampered = copy.deepcopy(old)
    tampered["rules"] = 2  # the same difference under today's revision: no excuse is offered
    verdict = verify_replay(tampered)
    assert not verdict.ok and "revision" not in verdict.message


def test_a_replay_from_a_newer_revision_or_a_bad_one_is_refused() -> None:
    replay = _reshuffled_game()
    with pytest.raises(ReplayError, match="revision 3 .* re-play it with a newer Arena"):
        verify_replay(dict(replay, rules=3))
    for bad in (0, "2", True, None):
        with pytest.raises(ReplayError, match="field 'rules' must be a whole number"):
            verify_replay(dict(replay, rules=bad))
