"""Final scoring (rules §10, §11.3-11.4): tickets, Globetrotter, shares by majority, places.

Pure functions over plain data, so that the rules' worked examples can be checked
without playing a game.
"""

from __future__ import annotations

from typing import Any, Sequence

from arena.games.ticket_to_ride_pennsylvania.board import Board

#: The participant id of the two-player game's neutral shareholder (§11).
NEUTRAL_PARTICIPANT = "neutral"


def connected_components(num_nodes: int, edges: Sequence[tuple[int, int]]) -> list[int]:
    """A component label per node for the graph of ``edges`` (union-find)."""
    parent = list(range(num_nodes))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return [find(x) for x in range(num_nodes)]


def completed_tickets(board: Board, routes: Sequence[int], tickets: Sequence[int]) -> list[bool]:
    """For each of ``tickets``, is it completed by the seat owning ``routes`` (§8.4)?

    An end naming several nodes (Ontario) is reached through any of them; the
    nodes themselves are not joined to each other.
    """
    label = connected_components(len(board.nodes), [(board.route_a[r], board.route_b[r]) for r in routes])
    out = []
    for t in tickets:
        ends_a = {label[x] for x in board.ticket_a[t]}
        out.append(any(label[y] in ends_a for y in board.ticket_b[t]))
    return out


def globetrotter(completed_counts: Sequence[int], bonus: int) -> list[int]:
    """§10.3: ``bonus`` to every seat whose completed-ticket count is the highest (even 0)."""
    best = max(completed_counts)
    return [bonus if c == best else 0 for c in completed_counts]


def share_places(holdings: Sequence[Sequence[int]]) -> list[int | None]:
    """§10.4: each holder's place in one company (1 = best), None for a non-holder.

    ``holdings[p]`` is the sorted list of share numbers participant ``p`` holds
    (for the neutral: its revealed ones only).  More shares ranks higher; equal
    counts: the lowest share number (first to invest) ranks higher.
    """
    holders = sorted((-len(h), h[0], p) for p, h in enumerate(holdings) if h)
    places: list[int | None] = [None] * len(holdings)
    for place, (_, _, p) in enumerate(holders, start=1):
        places[p] = place
    return places


def share_points(holdings: Sequence[Sequence[int]], table: Sequence[int]) -> list[int]:
    """The points each participant's place in one company is worth (0 past the table)."""
    return [0 if place is None or place > len(table) else table[place - 1] for place in share_places(holdings)]


def places(totals: Sequence[int], completed: Sequence[int]) -> list[int]:
    """§10.5 and §15.32: rank by total, then by completed tickets; ties share a place (1, 1, 3)."""
    keys = list(zip(totals, completed))
    return [1 + sum(1 for other in keys if other > mine) for mine in keys]


def final_scores(board: Board, route_points: Sequence[int], routes_of: Sequence[Sequence[int]],
                 tickets: Sequence[Sequence[int]], holders: Sequence[Sequence[Sequence[int]]]) -> dict[str, Any]:
    """The whole final scoring (§10) as the ``scoring`` event shows it (JSON-ready).

    ``holders[p][c]``: the sorted share numbers of company ``c`` that participant
    ``p`` holds; one row per seat, then (2 players) one for the neutral's revealed
    shares.  Returns ``{"seats": [per seat: routes, tickets, globetrotter, shares,
    total, ticket_results], "companies": [per company: holdings, places, points]}``.
    """
    n = len(route_points)
    names = [str(s) for s in range(n)] + [NEUTRAL_PARTICIPANT] * (len(holders) - n)
    completed = [completed_tickets(board, routes_of[s], tickets[s]) for s in range(n)]
    ticket_points = [sum(board.ticket_points[t] if done else -board.ticket_points[t]
                         for t, done in zip(tickets[s], completed[s])) for s in range(n)]
    bonus = globetrotter([sum(done) for done in completed], board.globetrotter)
    share_total = [0] * n
    companies = []
    for c, code in enumerate(board.companies):
        per = [holders[p][c] for p in range(len(holders))]
        points = share_points(per, board.company_points[c])
        ranks = share_places(per)
        for s in range(n):
            share_total[s] += points[s]
        companies.append({"company": code,
                          "holdings": {names[p]: list(per[p]) for p in range(len(per)) if per[p]},
                          "places": {names[p]: ranks[p] for p in range(len(per)) if per[p]},
                          "points": {names[s]: points[s] for s in range(n) if per[s]}})
    seats = [{
        "seat": s, "routes": route_points[s], "tickets": ticket_points[s], "globetrotter": bonus[s],
        "shares": share_total[s], "total": route_points[s] + ticket_points[s] + bonus[s] + share_total[s],
        "ticket_results": [{"ticket": board.ticket_ids[t], "completed": done} for t, done in zip(tickets[s], completed[s])],
    } for s in range(n)]
    return {"seats": seats, "companies": companies}
