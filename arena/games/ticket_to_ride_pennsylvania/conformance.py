"""Hidden changes for the conformance suite (see arena/games/conformance.py) and the
observation tests: each edits a state in place so that only what rules §12 hides from
seat ``me`` changes (the other seats' hands and tickets, their pending ticket offers and
initial picks, the order of either deck, the random generator).
"""

from __future__ import annotations

import random
from typing import Callable

from arena.games.conformance import apply_some, reorder
from arena.games.ticket_to_ride_pennsylvania.state import INITIAL, TicketToRideState, keep_masks

Mutation = Callable[[TicketToRideState, int, random.Random], bool]


def _others(state: TicketToRideState, me: int) -> list[int]:
    return [s for s in range(state.num_players) if s != me]


def swap_other_hand_card_with_deck(state: TicketToRideState, me: int, rng: random.Random) -> bool:
    """Another seat holds another card (one nobody saw it take), which lies in the deck instead."""
    options = [(s, k, i) for s in _others(state, me) for k in range(len(state.board.kind_names))
               if state.hands[s][k] > state.known[s][k] for i, d in enumerate(state.deck) if d != k]
    if not options:
        return False
    seat, k, i = rng.choice(options)
    state.hands[seat][k] -= 1
    state.hands[seat][state.deck[i]] += 1
    state.deck[i] = k
    return True


def reorder_train_deck(state: TicketToRideState, me: int, rng: random.Random) -> bool:
    return reorder(state.deck, rng)


def reorder_ticket_deck(state: TicketToRideState, me: int, rng: random.Random) -> bool:
    return reorder(state.ticket_deck, rng)


def swap_other_ticket_with_deck(state: TicketToRideState, me: int, rng: random.Random) -> bool:
    """Another seat's kept or offered ticket changes places with one in the deck."""
    options = [(pile, s, i) for s in _others(state, me) for pile in ("tickets", "offers")
               for i in range(len(getattr(state, pile)[s]))]
    if not options or not state.ticket_deck:
        return False
    pile, seat, i = rng.choice(options)
    j = rng.randrange(len(state.ticket_deck))
    held = getattr(state, pile)[seat]
    held[i], state.ticket_deck[j] = state.ticket_deck[j], held[i]
    return True


def change_other_initial_pick(state: TicketToRideState, me: int, rng: random.Random) -> bool:
    if state.phase != INITIAL:
        return False
    options = [(s, m) for s in _others(state, me) if state.picks[s] is not None
               for m in keep_masks(len(state.offers[s]), state.board.tickets_keep_setup) if m != state.picks[s]]
    if not options:
        return False
    seat, mask = rng.choice(options)
    state.picks[seat] = mask
    return True


def reseed(state: TicketToRideState, me: int, rng: random.Random) -> bool:
    """The generator that will shuffle the discards later is in another state."""
    state.rng.seed(rng.random())
    return True


HIDDEN_CHANGES: tuple[Mutation, ...] = (
    swap_other_hand_card_with_deck, reorder_train_deck, reorder_ticket_deck, swap_other_ticket_with_deck,
    change_other_initial_pick, reseed,
)


def hidden_twin(state: TicketToRideState, me: int, rng: random.Random) -> TicketToRideState:
    """A clone of ``state`` with a random selection of :data:`HIDDEN_CHANGES` (for ``me``) applied."""
    return apply_some(state.clone(), me, rng, HIDDEN_CHANGES)
