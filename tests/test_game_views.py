"""Each game's view, from its kit: the board data the web app serves, and the game after each event
of a replay as the engine had it (``/api/replay-view/MATCH``), for Union Pacific and Ticket to Ride:
Pennsylvania.  The frames put back together (as static/replay-core.js does) give the engine's own
state at every event; the Ticket to Ride viewer in a real Chromium is tests/test_web_ttr_viewer.py."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from arena.games import game_kit, get_game
from arena.games.base import ReplayError
from arena.policies import RandomPolicy, play_in_process
from arena.replay import build_replay, event_snapshots, frame_changes

GAMES = ("union_pacific", "ticket_to_ride_pennsylvania")


def random_replay(game_name: str, players: int, seed: int) -> dict[str, Any]:
    game = get_game(game_name)
    state = game.new_state(players, seed, game.spec.default_variant)
    play_in_process(state, [RandomPolicy(seed * 31 + s) for s in range(players)])
    return build_replay(game, state, seed=seed, variant=game.spec.default_variant)


def put_together(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What replay-core.js's states() does, in Python."""
    out: list[dict[str, Any]] = []
    for frame in frames:
        if not out:
            out.append(copy.deepcopy(frame))
            continue
        state = dict(out[-1])
        for key, value in frame.items():
            if isinstance(value, dict) and "@" in value and isinstance(state.get(key), list):
                items = list(state[key])
                for i, item in value["@"].items():
                    items[int(i)] = item
                state[key] = items
            else:
                state[key] = value
        out.append(state)
    return out


def test_frame_changes_send_only_what_changed() -> None:
    before = {"turn": 1, "players": [{"cash": 0}, {"cash": 0}], "row": ["red", None], "over": False}
    after = {"turn": 1, "players": [{"cash": 0}, {"cash": 5}], "row": ["red", "blue"], "over": False}
    assert frame_changes(None, after) == after
    assert frame_changes(before, after) == {"players": {"@": {"1": {"cash": 5}}}, "row": ["red", "blue"]}
    assert put_together([before, frame_changes(before, after)])[-1] == after


@pytest.mark.parametrize("game_name,players", [(g, n) for g in GAMES for n in (2, 3)])
def test_the_view_is_the_engines_state_at_every_event(game_name: str, players: int) -> None:
    replay = random_replay(game_name, players, 11 + players)
    view = game_kit(game_name).view
    made = view.replay_view(replay)
    assert len(made["frames"]) == len(replay["events"])
    states = put_together(made["frames"])
    # The same snapshots, taken again: the frames lose nothing.
    snapshot = getattr(view, "_snapshot")
    if game_name == "ticket_to_ride_pennsylvania":
        again = event_snapshots(replay, snapshot)
        assert states == again
    last = states[-1]
    events = replay["events"]
    if game_name == "union_pacific":
        for i, e in enumerate(events):
            if e["type"] == "dividend":  # the cash each dividend states is the state's at that step
                cash = {str(s): p["cash"] for s, p in enumerate(states[i]["players"])}
                if states[i]["imaginary"] is not None:
                    cash["imaginary"] = states[i]["imaginary"]["cash"]
                assert cash == e["cash"]
                assert states[i]["paid"] == e["number"]
            if e["type"] == "build":
                assert states[i]["values"][e["company"]] == e["value"] and states[i]["last_section"] == e["section"]
                assert e["company"] in states[i]["sections"][e["section"]]
        assert sum(c is not None for s in last["sections"] for c in s) == 11 + sum(e["type"] == "build" for e in events)
        assert set(made["dividends"]) == {str(i) for i, e in enumerate(events) if e["type"] == "dividend"}
    else:
        routes = [r["id"] for r in view.board()["routes"]]
        claims = {e["route"]: e["seat"] for e in events if e["type"] == "claim"}
        assert {routes[i]: o for i, o in enumerate(last["owner"]) if o is not None} == claims
        for i, e in enumerate(events):
            if e["type"] == "claim":
                assert states[i]["owner"][routes.index(e["route"])] == e["seat"]
                assert states[i]["players"][e["seat"]]["trains"] == e["trains_left"]
                assert states[i - 1]["owner"][routes.index(e["route"])] is None
        scoring = next(e for e in events if e["type"] == "scoring")
        assert [s["routes"] for s in scoring["seats"]] == [p["route_points"] for p in last["players"]]


@pytest.mark.parametrize("game_name", GAMES)
def test_every_field_of_a_frame_is_read_by_a_viewer_script(game_name: str) -> None:
    """A frame carries only what the page draws: each of its fields is named (``.name`` or
    ``["name"]``) in the game's viewer scripts or the shared ones.  (Ticket to Ride's ``phase``,
    snapshotted mid-action and wrong in about a quarter of the frames, and Union Pacific's
    ``over`` were read by none, and went.)"""
    import re

    from arena.protocol import REPO_ROOT

    scripts = [*(REPO_ROOT / "arena" / "games" / game_name / "kit" / "viewer").glob("*.js"),
               *(REPO_ROOT / "leaderboard" / "web" / "static").glob("*.js")]
    text = "\n".join(path.read_text(encoding="utf-8") for path in scripts)
    assert scripts and "frames" in text
    fields = {key for frame in game_kit(game_name).view.replay_view(random_replay(game_name, 3, 5))["frames"]
              for key in frame}
    unread = sorted(k for k in fields if not re.search(rf"\.{k}\b|\[\s*[\"']{k}[\"']\s*\]", text))
    assert not unread, f"frame fields no viewer script reads: {unread}"


def test_a_replay_that_does_not_replay_has_no_view() -> None:
    replay = random_replay("ticket_to_ride_pennsylvania", 2, 5)
    replay["events"][3] = {"type": "row", "row": []}
    with pytest.raises(ReplayError):
        game_kit("ticket_to_ride_pennsylvania").view.replay_view(replay)


def test_the_ttr_board_has_every_route_and_a_mark_per_seat() -> None:
    board = game_kit("ticket_to_ride_pennsylvania").view.board()
    game = get_game("ticket_to_ride_pennsylvania")
    assert board["sha256"] == game.board_info()["sha256"]
    cities = {c["id"] for c in board["cities"]}
    assert len(board["routes"]) == 95 and all(r["a"] in cities and r["b"] in cities for r in board["routes"])
    assert all(r["colour"] in board["colours"] for r in board["routes"])
    doubles = {r["id"]: r["double_with"] for r in board["routes"] if r["double_with"]}
    assert doubles and all(doubles[partner] == rid for rid, partner in doubles.items())
    seats = board["seats"]
    assert len(seats) == game.spec.max_players
    assert len({s["shape"] for s in seats}) == len({s["letter"] for s in seats}) == len({s["colour"] for s in seats}) == 5
