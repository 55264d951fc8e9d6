"""Test-side helpers that set up Ticket to Ride: Pennsylvania positions by editing a state.

The engine keeps its state in plain lists (arena/games/ticket_to_ride_pennsylvania/state.py);
every test that reaches inside goes through this module.  Cards, routes, tickets and
companies are given by their public names ("red", "locomotive", "R07", "T28", "PRR");
piles are given top first.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Iterable, Mapping

from arena.games.ticket_to_ride_pennsylvania import TicketToRideState, default_game
from arena.games.ticket_to_ride_pennsylvania.cards import EMPTY
from arena.games.ticket_to_ride_pennsylvania.state import INITIAL

GAME = default_game()
BOARD = GAME.board
KINDS = BOARD.kind_names  # 8 colours, then "locomotive"


def kind(name: str) -> int:
    return KINDS.index(name)


def route(rid: str) -> int:
    return BOARD.route_ids.index(rid)


def ticket(tid: str) -> int:
    return BOARD.ticket_ids.index(tid)


def company(code: str) -> int:
    return BOARD.companies.index(code)


def new_game(players: int = 3, seed: int = 0) -> TicketToRideState:
    return GAME.new_state(players, seed)


def act(state: TicketToRideState, seat: int, text: str) -> None:
    """Apply an action given in its text form."""
    state.apply_action(seat, state.string_to_action(text))


def keep_first_three(state: TicketToRideState) -> None:
    """Finish the initial ticket choice: every seat keeps its first three tickets."""
    for seat in range(state.num_players):
        state.apply_action(seat, 0b00111)


def started(players: int = 3, seed: int = 0) -> TicketToRideState:
    """A game at seat 0's first turn."""
    state = new_game(players, seed)
    keep_first_three(state)
    return state


def hand(state: TicketToRideState, seat: int) -> dict[str, int]:
    return {KINDS[k]: n for k, n in enumerate(state.hands[seat]) if n}


def set_hand(state: TicketToRideState, seat: int, cards: Mapping[str, int]) -> None:
    state.hands[seat] = [cards.get(name, 0) for name in KINDS]
    state.known[seat] = [0] * len(KINDS)


def set_row(state: TicketToRideState, cards: Iterable[str | None]) -> None:
    state.row = [EMPTY if c is None else kind(c) for c in cards]


def set_deck(state: TicketToRideState, top_first: Iterable[str]) -> None:
    state.deck = [kind(c) for c in reversed(list(top_first))]


def deck_top_first(state: TicketToRideState) -> list[str]:
    return [KINDS[c] for c in reversed(state.deck)]


def set_discard(state: TicketToRideState, cards: Iterable[str]) -> None:
    state.discard = [kind(c) for c in cards]


def set_ticket_deck(state: TicketToRideState, top_first: Iterable[str]) -> None:
    state.ticket_deck = [ticket(t) for t in reversed(list(top_first))]


def ticket_deck_top_first(state: TicketToRideState) -> list[str]:
    return [BOARD.ticket_ids[t] for t in reversed(state.ticket_deck)]


def give_route(state: TicketToRideState, seat: int, rid: str) -> None:
    """Seat ``seat`` owns route ``rid`` (no cards, trains or points change)."""
    r = route(rid)
    state.owner[r] = seat
    state.routes_of[seat].append(r)
    closed = {r, BOARD.route_partner[r]} if state.num_players <= 3 else {r}
    state.open_routes = [[info for info in group if info[0] not in closed] for group in state.open_routes]


def take_shares(state: TicketToRideState, participant: int, code: str, count: int) -> list[int]:
    """``participant`` (the neutral is ``num_players``) takes the next ``count`` shares of ``code``."""
    c = company(code)
    numbers = []
    for _ in range(count):
        state.taken[c] += 1
        numbers.append(state.taken[c])
        state.shares[participant][c].append(state.taken[c])
        if participant == state.num_players:
            state.neutral_pile.append((c, state.taken[c]))
    return numbers


def claims(state: TicketToRideState, seat: int, rid: str) -> list[str]:
    """The text forms of the legal claims of ``rid`` for ``seat``."""
    r = route(rid)
    out = []
    for a in state.claim_actions(seat):
        if state.table.claims[a - state.table.claim][0] == r:
            out.append(state.action_to_string(a))
    return out


def payments(state: TicketToRideState, seat: int, rid: str) -> set[tuple[str | None, int]]:
    """The legal payments ``(colour, locomotives)`` of ``rid`` for ``seat``."""
    out = set()
    for a in state.claim_actions(seat):
        d = state.describe_action(a)
        if d["route"] == rid:
            out.add((d["colour"], d["locomotives"]))
    return out


def in_initial_choice(state: TicketToRideState) -> bool:
    return state.phase == INITIAL


def play_randomly(state: TicketToRideState, rng: random.Random, max_actions: int | None = None) -> None:
    """Random legal actions (the lowest seat to move first) until the end or ``max_actions``."""
    done = 0
    while not state.is_terminal() and (max_actions is None or done < max_actions):
        seat = state.current_seats()[0]
        legal = state.legal_actions(seat)
        state.apply_action(seat, legal[int(rng.random() * len(legal))])
        done += 1


def card_census(state: TicketToRideState) -> Counter:
    """Every train card, wherever it is (deck, discard, row, hands), by kind name."""
    total: Counter = Counter()
    for c in state.deck + state.discard + [c for c in state.row if c != EMPTY]:
        total[KINDS[c]] += 1
    for h in state.hands:
        for k, n in enumerate(h):
            total[KINDS[k]] += n
    return total


def hidden_view(state: TicketToRideState) -> dict:
    """Everything the observations may leave out, for comparing whole states."""
    return {
        "hands": [list(h) for h in state.hands],
        "deck": list(state.deck),
        "ticket_deck": list(state.ticket_deck),
        "tickets": [list(t) for t in state.tickets],
        "offers": [list(o) for o in state.offers],
        "picks": list(state.picks),
        "events": [dict(e) for e in state.events],
        "rng": state.rng.getstate(),
    }
