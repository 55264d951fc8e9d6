"""The Ticket to Ride: Pennsylvania board as data: loading, validation and indexes.

The board ships as a JSON file (a reconstruction from public sources, see
docs/rules-ticket-to-ride-pennsylvania.md): nodes, routes with the companies
pictured beside them, tickets, companies with their share tables, and the
game's numbers (trains, cards, ticket deals, route points).  The engine reads
every number from it; :func:`board_from_data` checks what the engine relies on
and raises :class:`~arena.games.base.BoardError` naming the first problem.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from arena.games.base import BoardError
from arena.games.common import board_from_text, packaged_board

DEFAULT_BOARD = "pennsylvania-1.json"
MIN_PLAYERS, MAX_PLAYERS = 2, 5
#: The card kind index of a locomotive; colours are 0 .. LOCO - 1 (board file order).
LOCO = 8
NUM_COLOURS = 8
NUM_KINDS = 9
#: A route's colour index for grey routes (any one colour).
GREY = -1


@dataclass(frozen=True)
class Board:
    """An immutable, validated board with the indexes the engine needs."""

    name: str
    sha256: str
    data: dict[str, Any]  # the file's data, as loaded
    colours: tuple[str, ...]  # the 8 card colours, file order
    kind_names: tuple[str, ...]  # colours, then "locomotive"
    per_colour: int
    locomotives: int
    trains: int  # per player
    end_trigger: int  # trains left at or below which the final round starts
    route_points: tuple[int, ...]  # by length (index 0 unused)
    globetrotter: int
    tickets_deal: int
    tickets_keep_setup: int
    tickets_draw: int
    tickets_keep_draw: int
    nodes: tuple[str, ...]  # node ids
    node_names: tuple[str, ...]
    route_ids: tuple[str, ...]
    route_a: tuple[int, ...]  # node index of each route's ends
    route_b: tuple[int, ...]
    route_length: tuple[int, ...]
    route_colour: tuple[int, ...]  # colour index, GREY for grey
    route_locos: tuple[int, ...]  # locomotive symbols (ferries)
    route_partner: tuple[int, ...]  # the double partner's index, -1 if none
    route_companies: tuple[tuple[int, ...], ...]  # company indexes pictured beside the route
    companies: tuple[str, ...]  # codes, file order
    company_names: tuple[str, ...]
    company_shares: tuple[int, ...]
    company_points: tuple[tuple[int, ...], ...]  # points by place (1st first)
    ticket_ids: tuple[str, ...]
    ticket_a: tuple[frozenset[int], ...]  # the nodes that count as each end
    ticket_b: tuple[frozenset[int], ...]
    ticket_places: tuple[tuple[str, str], ...]  # as printed in the file ("ontario", "pittsburgh")
    ticket_points: tuple[int, ...]

    @property
    def num_routes(self) -> int:
        return len(self.route_a)

    @property
    def num_tickets(self) -> int:
        return len(self.ticket_ids)

    @property
    def num_companies(self) -> int:
        return len(self.companies)


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise BoardError(message)


def _get(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    _require(isinstance(obj, dict), f"{where}: expected an object, got {type(obj).__name__}")
    _require(key in obj, f"{where}: missing field {key!r}")
    value = obj[key]
    _require(isinstance(value, kind) and not (kind is int and isinstance(value, bool)),
             f"{where}: field {key!r} has the wrong type ({type(value).__name__})")
    return value


def _count(obj: Any, key: str, where: str, low: int = 0) -> int:
    value = _get(obj, key, int, where)
    _require(value >= low, f"{where}: {key} must be at least {low}, got {value}")
    return value


def board_from_data(data: Any) -> Board:
    """Validate parsed board data and build the indexes."""
    _require(isinstance(data, dict), "the board must be a JSON object")
    cards = _get(data, "train_cards", dict, "train_cards")
    colours = tuple(_get(cards, "colours", list, "train_cards"))
    _require(len(colours) == NUM_COLOURS and len(set(colours)) == NUM_COLOURS
             and all(isinstance(c, str) and c and c not in ("grey", "locomotive") for c in colours),
             f"train_cards: expected {NUM_COLOURS} distinct colour names, got {list(colours)}")
    per_colour = _count(cards, "per_colour", "train_cards", 1)
    locomotives = _count(cards, "locomotives", "train_cards")
    players = _get(data, "players", dict, "players")
    trains = _count(players, "trains_per_player", "players", 1)
    end_trigger = _count(players, "end_trigger_trains", "players")
    raw_points = _get(data, "route_points", dict, "route_points")
    try:
        by_length = {int(k): v for k, v in raw_points.items()}
    except ValueError:
        raise BoardError("route_points: keys must be lengths") from None
    _require(by_length and all(isinstance(v, int) and not isinstance(v, bool) for v in by_length.values()),
             "route_points: values must be whole numbers")
    max_length = max(by_length)
    _require(set(by_length) == set(range(1, max_length + 1)), "route_points: lengths must be 1 .. n without gaps")
    route_points = (0,) + tuple(by_length[length] for length in range(1, max_length + 1))
    globetrotter = _get(data, "globetrotter_bonus", int, "globetrotter_bonus")
    setup = _get(data, "tickets_setup", dict, "tickets_setup")
    draw = _get(data, "tickets_draw", dict, "tickets_draw")
    deal, keep_setup = _count(setup, "deal", "tickets_setup", 1), _count(setup, "keep_at_least", "tickets_setup", 1)
    n_draw, keep_draw = _count(draw, "draw", "tickets_draw", 1), _count(draw, "keep_at_least", "tickets_draw", 1)
    _require(keep_setup <= deal <= 5 and keep_draw <= n_draw <= 5,
             "tickets: keep_at_least must not exceed the number dealt/drawn, which is at most 5")

    nodes: list[str] = []
    names: list[str] = []
    for i, city in enumerate(_get(data, "cities", list, "cities")):
        where = f"cities[{i}]"
        cid = _get(city, "id", str, where)
        _require(cid not in nodes, f"{where}: duplicate node id {cid!r}")
        nodes.append(cid)
        names.append(_get(city, "name", str, where))
    index = {cid: i for i, cid in enumerate(nodes)}
    locations = data.get("locations", {})
    _require(isinstance(locations, dict), "locations: expected an object")
    places: dict[str, frozenset[int]] = {cid: frozenset((i,)) for cid, i in index.items()}
    for alias, members in locations.items():
        _require(alias not in index, f"locations: {alias!r} is also a node id")
        _require(isinstance(members, list) and members and all(m in index for m in members),
                 f"locations: {alias!r} must list known node ids")
        places[alias] = frozenset(index[m] for m in members)

    companies: list[str] = []
    company_names: list[str] = []
    company_shares: list[int] = []
    company_points: list[tuple[int, ...]] = []
    for i, company in enumerate(_get(data, "companies", list, "companies")):
        where = f"companies[{i}]"
        code = _get(company, "code", str, where)
        _require(code not in companies and code != "none", f"{where}: duplicate or reserved code {code!r}")
        companies.append(code)
        company_names.append(_get(company, "name", str, where))
        company_shares.append(_count(company, "shares", where, 1))
        points = _get(company, "points", list, where)
        _require(points and all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in points),
                 f"{where}: points must be a non-empty list of whole numbers")
        company_points.append(tuple(points))
    company_index = {code: i for i, code in enumerate(companies)}

    colour_index = {c: i for i, c in enumerate(colours)}
    route_ids: list[str] = []
    a_s: list[int] = []
    b_s: list[int] = []
    lengths: list[int] = []
    route_colours: list[int] = []
    locos: list[int] = []
    partner_ids: list[str | None] = []
    route_companies: list[tuple[int, ...]] = []
    for i, route in enumerate(_get(data, "routes", list, "routes")):
        where = f"routes[{i}]"
        rid = _get(route, "id", str, where)
        where = f"route {rid}"
        _require(rid not in route_ids, f"{where}: duplicate route id")
        route_ids.append(rid)
        a, b = _get(route, "a", str, where), _get(route, "b", str, where)
        _require(a in index and b in index and a != b, f"{where}: ends {a!r}, {b!r} must be two known nodes")
        a_s.append(index[a])
        b_s.append(index[b])
        length = _count(route, "length", where, 1)
        _require(length <= max_length, f"{where}: length {length} has no route_points entry")
        lengths.append(length)
        colour = _get(route, "colour", str, where)
        _require(colour == "grey" or colour in colour_index, f"{where}: unknown colour {colour!r}")
        route_colours.append(GREY if colour == "grey" else colour_index[colour])
        m = _count(route, "locomotives", where)
        _require(m <= length, f"{where}: {m} locomotive symbols on {length} spaces")
        _require(m == 0 or colour == "grey", f"{where}: a ferry must be grey")
        locos.append(m)
        partner = route.get("double_with")
        _require(partner is None or isinstance(partner, str), f"{where}: double_with must be a route id or null")
        partner_ids.append(partner)
        codes = _get(route, "companies", list, where)
        _require(all(c in company_index for c in codes) and len(set(codes)) == len(codes),
                 f"{where}: companies must be distinct known codes, got {codes}")
        route_companies.append(tuple(sorted(company_index[c] for c in codes)))
    rindex = {rid: i for i, rid in enumerate(route_ids)}
    partners: list[int] = []
    for r, pid in enumerate(partner_ids):
        if pid is None:
            partners.append(-1)
            continue
        _require(pid in rindex, f"route {route_ids[r]}: double_with names unknown route {pid!r}")
        p = rindex[pid]
        _require(p != r and partner_ids[p] == route_ids[r], f"route {route_ids[r]}: double_with is not mutual")
        _require({a_s[p], b_s[p]} == {a_s[r], b_s[r]} and lengths[p] == lengths[r],
                 f"route {route_ids[r]}: its double {pid} must join the same nodes with the same length")
        partners.append(p)

    ticket_ids: list[str] = []
    ticket_a: list[frozenset[int]] = []
    ticket_b: list[frozenset[int]] = []
    ticket_places: list[tuple[str, str]] = []
    ticket_points: list[int] = []
    for i, ticket in enumerate(_get(data, "tickets", list, "tickets")):
        where = f"tickets[{i}]"
        tid = _get(ticket, "id", str, where)
        _require(tid not in ticket_ids, f"{where}: duplicate ticket id {tid!r}")
        ticket_ids.append(tid)
        a, b = _get(ticket, "a", str, where), _get(ticket, "b", str, where)
        _require(a in places and b in places and not places[a] & places[b],
                 f"ticket {tid}: places {a!r}, {b!r} must be two different known places")
        ticket_a.append(places[a])
        ticket_b.append(places[b])
        ticket_places.append((a, b))
        ticket_points.append(_count(ticket, "points", where, 1))
    _require(len(ticket_ids) >= MAX_PLAYERS * deal, f"tickets: {len(ticket_ids)} are too few to deal {deal} to {MAX_PLAYERS} players")

    sha256 = hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return Board(
        name=_get(data, "name", str, "name"),
        sha256=sha256,
        data=data,
        colours=colours,
        kind_names=colours + ("locomotive",),
        per_colour=per_colour,
        locomotives=locomotives,
        trains=trains,
        end_trigger=end_trigger,
        route_points=route_points,
        globetrotter=globetrotter,
        tickets_deal=deal,
        tickets_keep_setup=keep_setup,
        tickets_draw=n_draw,
        tickets_keep_draw=keep_draw,
        nodes=tuple(nodes),
        node_names=tuple(names),
        route_ids=tuple(route_ids),
        route_a=tuple(a_s),
        route_b=tuple(b_s),
        route_length=tuple(lengths),
        route_colour=tuple(route_colours),
        route_locos=tuple(locos),
        route_partner=tuple(partners),
        route_companies=tuple(route_companies),
        companies=tuple(companies),
        company_names=tuple(company_names),
        company_shares=tuple(company_shares),
        company_points=tuple(company_points),
        ticket_ids=tuple(ticket_ids),
        ticket_a=tuple(ticket_a),
        ticket_b=tuple(ticket_b),
        ticket_places=tuple(ticket_places),
        ticket_points=tuple(ticket_points),
    )


def board_from_json(text: str | bytes, *, source: str = "board") -> Board:
    """Parse and validate a board file's text."""
    return board_from_text(text, board_from_data, source=source)


def load_default_board() -> Board:
    """The board shipped inside the package (a reconstruction; see the rules doc)."""
    return packaged_board(__package__, DEFAULT_BOARD, board_from_data)
