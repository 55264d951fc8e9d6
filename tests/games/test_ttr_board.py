"""The Ticket to Ride: Pennsylvania board data (§1, §2): the shipped board loads with the
documented numbers, the game object is what the interface promises, and a malformed
board file is refused with a BoardError that names the problem."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any, Callable

import pytest

from arena.games.base import BoardError, Game, GameState
from arena.games.ticket_to_ride_pennsylvania import (
    TicketToRidePennsylvania,
    board_from_json,
    default_game,
    load_default_board,
)
from arena.games.ticket_to_ride_pennsylvania.board import GREY, board_from_data

DEFAULT_TEXT = resources.files("arena.games.ticket_to_ride_pennsylvania").joinpath(
    "boards", "pennsylvania-1.json").read_text()
DEFAULT_DATA: dict[str, Any] = json.loads(DEFAULT_TEXT)


def test_the_shipped_board_has_the_documented_numbers() -> None:
    board = load_default_board()
    assert len(board.nodes) == 36 and board.num_routes == 95 and board.num_tickets == 50
    assert sum(board.route_length) == 322
    assert sum(1 for p in board.route_partner if p >= 0) == 48  # 24 pairs
    assert [r for r in range(board.num_routes) if board.route_locos[r]] == [
        board.route_ids.index(r) for r in ("R39", "R40", "R59", "R60")]
    assert all(board.route_colour[r] == GREY for r in range(board.num_routes) if board.route_locos[r])
    assert sum(1 for cs in board.route_companies if not cs) == 7
    assert dict(zip(board.companies, board.company_shares)) == {
        "PRR": 15, "BO": 10, "EL": 8, "RDG": 7, "LV": 6, "NYC": 5, "WM": 4, "JCL": 3, "BRP": 2}
    assert board.company_points[board.companies.index("PRR")] == (30, 21, 14, 9, 6)
    assert board.trains == 45 and board.end_trigger == 2 and board.globetrotter == 15
    assert (board.per_colour, board.locomotives) == (12, 14)
    assert (board.tickets_deal, board.tickets_keep_setup, board.tickets_draw, board.tickets_keep_draw) == (5, 3, 4, 1)
    ontario = {board.nodes.index("ontario_west"), board.nodes.index("ontario_east")}
    assert sum(1 for t in range(board.num_tickets) if board.ticket_a[t] == ontario or board.ticket_b[t] == ontario) == 3


def test_the_board_hash_is_of_the_canonical_json() -> None:
    board = load_default_board()
    assert board_from_json(json.dumps(DEFAULT_DATA, indent=4)).sha256 == board.sha256
    changed = copy.deepcopy(DEFAULT_DATA)
    changed["globetrotter_bonus"] = 10
    assert board_from_data(changed).sha256 != board.sha256


def test_the_game_object_follows_the_interface() -> None:
    game = default_game()
    assert isinstance(game, Game) and game is default_game()
    assert (game.name, game.min_players, game.max_players, game.variants) == (
        "ticket_to_ride_pennsylvania", 2, 5, ("standard",))
    assert game.board_info() == {"name": game.board.name, "sha256": game.board.sha256}
    assert game.participants(2) == ("0", "1")
    assert game.participants(4) == ("0", "1", "2", "3")
    assert isinstance(game.new_state(3, 0), GameState)
    other = TicketToRidePennsylvania(board_from_json(DEFAULT_TEXT))
    assert other.new_state(3, 5).events == game.new_state(3, 5).events


def _edit(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(data: dict[str, Any]) -> None:
        keys = path.split(".")
        target: Any = data
        for key in keys[:-1]:
            target = target[int(key)] if isinstance(target, list) else target[key]
        last = keys[-1]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    return apply


def _route(rid: str) -> int:
    return next(i for i, r in enumerate(DEFAULT_DATA["routes"]) if r["id"] == rid)


BAD: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("unknown route end", _edit(f"routes.{_route('R07')}.a", "atlantis"), "two known nodes"),
    ("unknown colour", _edit(f"routes.{_route('R07')}.colour", "purple"), "unknown colour"),
    ("coloured ferry", _edit(f"routes.{_route('R07')}.locomotives", 1), "a ferry must be grey"),
    ("too many symbols", _edit(f"routes.{_route('R59')}.locomotives", 4), "locomotive symbols"),
    ("one-sided double", _edit(f"routes.{_route('R06')}.double_with", None), "double_with is not mutual"),
    ("unknown company", _edit(f"routes.{_route('R07')}.companies", ["XYZ"]), "known codes"),
    ("length without points", _edit(f"routes.{_route('R07')}.length", 9), "route_points"),
    ("unknown ticket place", _edit("tickets.0.a", "atlantis"), "known places"),
    ("duplicate route id", _edit(f"routes.{_route('R07')}.id", "R06"), "duplicate route id"),
    ("seven colours", _edit("train_cards.colours", ["pink", "white", "blue", "yellow", "orange", "black", "red"]),
     "8 distinct colour names"),
    ("bad share table", _edit("companies.0.points", []), "non-empty list"),
    ("keep more than dealt", _edit("tickets_setup.keep_at_least", 6), "keep_at_least"),
    ("missing trains", _edit("players", {"min": 2}), "trains_per_player"),
]


@pytest.mark.parametrize("name,change,message", BAD, ids=[b[0] for b in BAD])
def test_a_malformed_board_is_refused_with_a_clear_message(name: str, change: Callable, message: str) -> None:
    data = copy.deepcopy(DEFAULT_DATA)
    change(data)
    with pytest.raises(BoardError, match=message):
        board_from_json(json.dumps(data), source="my-board.json")


def test_a_file_that_is_not_json_is_refused() -> None:
    with pytest.raises(BoardError, match="my-board.json: not valid JSON"):
        board_from_json("{", source="my-board.json")
    with pytest.raises(BoardError, match="must be a JSON object"):
        board_from_json("[]")
