"""Ticket to Ride: Pennsylvania's view: the board as the web app's replay viewer draws it, and the
game after each event of a replay as the engine had it (the viewer's scripts are in ``viewer/``
beside this module and only draw what these functions give).

- :func:`board` -- the cities (with their coordinates), the routes (ends, length, colour,
  ferry locomotives, double partner, companies pictured), the companies with their share
  tables, the tickets, each card colour's drawing colour, and each seat's colour, shape and
  letter (a claimed route reads without its colour too).
- :func:`replay_view` -- one snapshot per event, taken from the engine's own state as it
  emitted the event (:func:`arena.replay.event_frames`), sent as the changes from the step
  before.  The final scores are the engine's ``scoring`` event's.

Nothing here re-implements a rule.  Pure data, no I/O (tests/test_layers.py).
"""

from __future__ import annotations

from typing import Any

from arena.games.ticket_to_ride_pennsylvania import default_game
from arena.games.ticket_to_ride_pennsylvania.phases import OVER
from arena.games.ticket_to_ride_pennsylvania.state import TicketToRideState
from arena.replay import event_frames

#: The viewer's entry script and its page fragment, in ``viewer/`` beside this module.
SCRIPT = "replay.js"
FRAGMENT = "viewer.html"
#: What the caption under the viewer adds about its keys and its marks on the slider.
KEYS = ", C next claim, + − zoom"
MARKS = "the final round and the scoring (gold), "

#: How the board draws each route colour (and the cards of that colour); grey routes take any one colour.
ROUTE_COLOURS: dict[str, str] = {
    "pink": "#e58fc0",
    "white": "#f4f4f0",
    "blue": "#2f6fd6",
    "yellow": "#f2cd27",
    "orange": "#f08a24",
    "black": "#262626",
    "red": "#d23a2e",
    "green": "#3a9a48",
    "grey": "#a3a8ae",
    "locomotive": "#8a6fb5",
}

#: Each seat's colour, the shape and the letter its claimed routes carry (for colour-blind readers).
SEAT_STYLES: tuple[dict[str, str], ...] = (
    {"colour": "#1f5fbf", "shape": "circle", "letter": "A"},
    {"colour": "#c4302b", "shape": "square", "letter": "B"},
    {"colour": "#2a9d3a", "shape": "triangle-up", "letter": "C"},
    {"colour": "#e0a400", "shape": "diamond", "letter": "D"},
    {"colour": "#7b3fa0", "shape": "star", "letter": "E"},
)

#: Company colours for the share chips (the companies' own are not all known: a drawing choice).
COMPANY_COLOURS: tuple[str, ...] = ("#b3262d", "#1d4e89", "#2f7d4f", "#6b4c9a", "#c46a1b", "#3b6e8f", "#8c5a2b",
                                    "#5d6d2e", "#a03d6e")


def board() -> dict[str, Any]:
    """The board data and how to draw it."""
    game = default_game()
    b, data = game.board, game.board.data
    return {
        "game": game.name,
        **game.board_info(),
        "cities": [{"id": c["id"], "name": c["name"], "lon": c["lon"], "lat": c["lat"]} for c in data["cities"]],
        "routes": [{"index": r, "id": b.route_ids[r], "a": b.nodes[b.route_a[r]], "b": b.nodes[b.route_b[r]],
                    "length": b.route_length[r], "colour": raw["colour"], "ferry": bool(b.route_locos[r]),
                    "locomotives": b.route_locos[r],
                    "double_with": None if b.route_partner[r] < 0 else b.route_ids[b.route_partner[r]],
                    "companies": [b.companies[c] for c in b.route_companies[r]], "points": b.route_points[b.route_length[r]]}
                   for r, raw in enumerate(data["routes"])],
        "companies": [{"code": code, "name": b.company_names[c], "shares": b.company_shares[c],
                       "points": list(b.company_points[c]), "colour": COMPANY_COLOURS[c % len(COMPANY_COLOURS)]}
                      for c, code in enumerate(b.companies)],
        "tickets": [{"id": t, "a": b.ticket_places[i][0], "b": b.ticket_places[i][1], "points": b.ticket_points[i]}
                    for i, t in enumerate(b.ticket_ids)],
        "locations": data.get("locations", {}),
        "colours": ROUTE_COLOURS,
        "seats": list(SEAT_STYLES),
        "trains": b.trains,
    }


def _holdings(state: TicketToRideState, p: int) -> dict[str, list[int]]:
    companies = state.board.companies
    return {companies[c]: list(nums) for c, nums in enumerate(state.shares[p]) if nums}


class _Seats:
    """Each seat's part of a snapshot, made again only when the seat changed (most events change
    one seat or none); an unchanged seat is the same object, which the frames compare at once."""

    def __init__(self) -> None:
        self.made: dict[int, tuple[tuple[Any, ...], dict[str, Any]]] = {}

    def seat(self, state: TicketToRideState, s: int) -> dict[str, Any]:
        key = (state.trains[s], state.route_points[s], tuple(state.hands[s]), tuple(state.tickets[s]),
               tuple(state.offers[s]), tuple(map(len, state.shares[s])))
        found = self.made.get(s)
        if found is not None and found[0] == key:
            return found[1]
        ids, names = state.board.ticket_ids, state.kind_names
        made = {"trains": state.trains[s], "route_points": state.route_points[s],
                "hand": {names[k]: n for k, n in enumerate(state.hands[s]) if n},
                "tickets": [ids[t] for t in state.tickets[s]], "offer": [ids[t] for t in state.offers[s]],
                "shares": _holdings(state, s)}
        self.made[s] = (key, made)
        return made


def _snapshot(state: TicketToRideState, event: dict[str, Any] | None, seats: _Seats | None = None) -> dict[str, Any]:
    seats = seats if seats is not None else _Seats()
    b = state.board
    companies = b.companies
    return {
        "turn": state.turn,
        "seat": None if state.phase == OVER or not state.turn else state.current,
        "players": [seats.seat(state, s) for s in range(state.n)],
        "neutral": {"shares": _holdings(state, state.n)} if state.n == 2 else None,
        "owner": [None if o < 0 else o for o in state.owner],
        "row": state._row_names(),
        "deck": len(state.deck),
        "discard": len(state.discard),
        "ticket_deck": len(state.ticket_deck),
        "taken": {code: state.taken[c] for c, code in enumerate(companies)},
        "final_round": None if state.final_left is None else {"trigger_seat": state.trigger_seat,
                                                              "turns_left": state.final_left},
        "last_route": event["route"] if event is not None and event.get("type") == "claim" else None,
    }


def replay_view(replay: dict[str, Any]) -> dict[str, Any]:
    """The viewer's steps: ``frames[i]`` holds what changed at event ``i`` (frame 0: the whole
    snapshot).  Raises :class:`arena.games.base.ReplayError` when the replay does not re-play."""
    seats = _Seats()
    return {"frames": event_frames(replay, lambda state, event: _snapshot(state, event, seats))}  # type: ignore[arg-type]
