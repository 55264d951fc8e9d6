"""Final scoring (§10, §11.3-11.4), checked against the rules' worked examples by hand."""

from __future__ import annotations

from collections import deque

import pytest

from arena.games.base import Termination
from arena.games.ticket_to_ride_pennsylvania import scoring
from arena.games.ticket_to_ride_pennsylvania.state import NEUTRAL_PARTICIPANT
from tests.games.ttr_scenario import (
    BOARD,
    act,
    company,
    give_route,
    route,
    set_deck,
    set_discard,
    set_hand,
    set_row,
    set_ticket_deck,
    started,
    take_shares,
    ticket,
)

PRR = BOARD.company_points[company("PRR")]
BO = BOARD.company_points[company("BO")]
WM = BOARD.company_points[company("WM")]


def node(name: str) -> int:
    return BOARD.nodes.index(name)


def path(a: str, b: str, avoid: frozenset[str] = frozenset()) -> list[str]:
    """Route ids of a shortest path (in routes) from node ``a`` to node ``b`` (test-side BFS)."""
    start, goal = node(a), node(b)
    came: dict[int, tuple[int, int] | None] = {start: None}
    todo = deque([start])
    while todo:
        x = todo.popleft()
        if x == goal:
            break
        for r in range(BOARD.num_routes):
            if BOARD.route_ids[r] in avoid or BOARD.route_partner[r] in [BOARD.route_ids.index(i) for i in avoid]:
                continue
            ends = (BOARD.route_a[r], BOARD.route_b[r])
            if x in ends:
                y = ends[1] if ends[0] == x else ends[0]
                if y not in came:
                    came[y] = (x, r)
                    todo.append(y)
    out = []
    x = goal
    while came[x] is not None:
        x, r = came[x]  # type: ignore[misc]
        out.append(BOARD.route_ids[r])
    return out[::-1]


# -- shares by majority (§10.4) -------------------------------------------------------------

def test_ties_go_to_who_invested_first() -> None:
    """§16.4: A #2 #7, B #1 #9, C #3 #4 #5 in PRR: C 30, B 21, A 14."""
    assert scoring.share_points([[2, 7], [1, 9], [3, 4, 5]], PRR) == [14, 21, 30]
    assert scoring.share_places([[2, 7], [1, 9], [3, 4, 5]]) == [3, 2, 1]


def test_more_holders_than_paying_places() -> None:
    """§16.5: WM (9, 5): A #1 #3, B #2, C #4: A 9, B 5, C 0."""
    assert scoring.share_points([[1, 3], [2], [4]], WM) == [9, 5, 0]


def test_no_share_no_points() -> None:
    assert scoring.share_points([[], [1], []], BO) == [0, 20, 0]
    assert scoring.share_places([[], [1], []]) == [None, 1, None]


def test_the_neutral_takes_a_place_and_scores_nothing() -> None:
    """§16.6 (PRR and WM) and the rulebook's B&O example; the neutral is the last holder."""
    # PRR: A #1 #6, B #3 #4 #9, the neutral's revealed #5 #8.
    points = scoring.share_points([[1, 6], [3, 4, 9], [5, 8]], PRR)
    assert points[:2] == [21, 30] and scoring.share_places([[1, 6], [3, 4, 9], [5, 8]])[2] == 3
    # WM: the neutral's revealed #1, A #2, B none.
    assert scoring.share_points([[2], [], [1]], WM)[:2] == [5, 0]
    # Mark 3 B&O, the neutral 2, Erik 1: Mark 20, Erik 9.
    assert scoring.share_points([[4, 5, 6], [3], [1, 2]], BO)[:2] == [20, 9]


# -- tickets, Globetrotter and places (§8.4, §10) ----------------------------------------------

def test_a_ticket_is_completed_by_a_chain_of_own_routes() -> None:
    t = ticket("T01")  # Altoona - Binghamton
    a, b = BOARD.ticket_places[t]
    chain = [route(r) for r in path(a, b)]
    assert scoring.completed_tickets(BOARD, chain, [t]) == [True]
    assert scoring.completed_tickets(BOARD, chain[:-1], [t]) == [False]


def test_an_ontario_ticket_is_completed_through_either_ontario_node() -> None:
    t = ticket("T28")  # Ontario - Pittsburgh
    west = [route(r) for r in path("pittsburgh", "erie", avoid=frozenset({"R34", "R35"})) + ["R59"]]
    east = [route(r) for r in path("pittsburgh", "buffalo") + ["R39"]]
    assert scoring.completed_tickets(BOARD, west, [t]) == [True]
    assert scoring.completed_tickets(BOARD, east, [t]) == [True]
    assert scoring.completed_tickets(BOARD, west[:-1], [t]) == [False]


def test_the_two_ontario_nodes_are_not_joined() -> None:
    labels = scoring.connected_components(len(BOARD.nodes), [
        (BOARD.route_a[route(r)], BOARD.route_b[route(r)]) for r in ("R59", "R39")])
    assert labels[node("erie")] == labels[node("ontario_west")]
    assert labels[node("buffalo")] == labels[node("ontario_east")]
    assert labels[node("erie")] != labels[node("buffalo")]


def test_globetrotter_goes_to_every_seat_with_the_most_completed_tickets() -> None:
    assert scoring.globetrotter([2, 2, 1], 15) == [15, 15, 0]
    assert scoring.globetrotter([0, 0, 0], 15) == [15, 15, 15]  # §15.5: even when the most is 0
    assert BOARD.globetrotter == 15


def test_places_break_ties_by_completed_tickets_then_share_them() -> None:
    assert scoring.places([50, 50, 40], [3, 2, 1]) == [1, 2, 3]
    assert scoring.places([50, 50, 40], [2, 2, 1]) == [1, 1, 3]
    assert scoring.places([-5, 10, 0], [0, 1, 0]) == [3, 1, 2]


# -- a whole end of game, by hand -------------------------------------------------------------

def _end_by_deadlock(state) -> None:
    set_row(state, [None] * 5)
    set_deck(state, [])
    set_discard(state, [])
    set_ticket_deck(state, [])
    for seat in range(state.num_players):
        set_hand(state, seat, {})
    for seat in range(state.num_players):
        act(state, state.current, "pass")
    assert state.is_terminal()


def test_a_three_player_end_scored_by_hand() -> None:
    state = started(3)
    # Seat 0: Altoona - Binghamton (T01, 9) completed, T02 (16) not: +9 - 16; routes scored as given.
    state.tickets = [[ticket("T01"), ticket("T02")], [ticket("T03")], []]
    for r in path("altoona", "binghamton"):
        give_route(state, 0, r)
    state.route_points = [20, 7, 0]
    # Shares: PRR seat 0 #1 #2, seat 1 #3 #4 #5 -> seat 1 30, seat 0 21; BO seat 2 #1 -> 20.
    take_shares(state, 0, "PRR", 2)
    take_shares(state, 1, "PRR", 3)
    take_shares(state, 2, "BO", 1)
    _end_by_deadlock(state)
    t03 = BOARD.ticket_points[ticket("T03")]
    expected = {"0": 20 + 9 - 16 + 15 + 21, "1": 7 - t03 + 0 + 30, "2": 0 + 0 + 0 + 20}
    outcome = state.outcome()
    assert outcome.cash == expected
    assert outcome.termination is Termination.STALEMATE
    assert outcome.extra == {"completed_tickets": {"0": 1, "1": 0, "2": 0}}
    score = next(e for e in state.events if e["type"] == "scoring")
    assert [(s["routes"], s["tickets"], s["globetrotter"], s["shares"]) for s in score["seats"]] == [
        (20, -7, 15, 21), (7, -t03, 0, 30), (0, 0, 0, 20)]
    assert score["seats"][0]["ticket_results"] == [{"ticket": "T01", "completed": True},
                                                   {"ticket": "T02", "completed": False}]
    prr = next(c for c in score["companies"] if c["company"] == "PRR")
    assert prr == {"company": "PRR", "holdings": {"0": [1, 2], "1": [3, 4, 5]}, "places": {"0": 2, "1": 1},
                   "points": {"0": 21, "1": 30}}
    assert state.events[-1] == {"type": "game_end", **outcome.to_json()}


@pytest.mark.parametrize("count", [1, 2, 3, 5, 9])
def test_the_neutral_reveals_half_its_shares_rounded_up_and_only_those_count(count: int) -> None:
    state = started(2, seed=count)
    taken = take_shares(state, 2, "PRR", count)
    mine = take_shares(state, 0, "PRR", 2)
    _end_by_deadlock(state)
    reveal = next(e for e in state.events if e["type"] == "neutral_reveal")
    assert sorted(num for _, num in reveal["order"]) == taken and reveal["revealed"] == (count + 1) // 2
    shown = sorted(num for _, num in reveal["order"][:reveal["revealed"]])
    prr = next(c for c in next(e for e in state.events if e["type"] == "scoring")["companies"] if c["company"] == "PRR")
    assert prr["holdings"][NEUTRAL_PARTICIPANT] == shown
    # Only the revealed shares count: with 2 of them (count 3 or 4) the neutral ties seat 0's 2 and wins
    # the tie with its lower number; with 1 (count 1 or 2) it is behind, whatever it holds unrevealed.
    neutral_ahead = len(shown) > len(mine) or (len(shown) == len(mine) and shown[0] < mine[0])
    assert neutral_ahead == (count >= 3)
    assert prr["points"] == {"0": PRR[1] if neutral_ahead else PRR[0]}


def test_the_two_player_outcome_ranks_the_seats_alone() -> None:
    state = started(2)
    state.route_points = [10, -0]
    state.tickets = [[], [ticket("T02")]]  # seat 1: -16
    _end_by_deadlock(state)
    outcome = state.outcome()
    assert outcome.cash == {"0": 10 + 15, "1": -16 + 15}  # the neutral scores nothing and is not ranked
    assert outcome.places == {"0": 1, "1": 2}
