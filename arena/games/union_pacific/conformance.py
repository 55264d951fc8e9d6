"""Hidden changes for the conformance suite (see arena/games/conformance.py) and the
observation tests: each edits a state in place so that only what rules §10 hides from
seat ``me`` changes (other seats' hands, the order of either deck, the cards boxed by
exchanges, other seats' pending first-investment picks, the random generator).
"""

from __future__ import annotations

import random
from typing import Callable

from arena.games.conformance import apply_some, reorder
from arena.games.union_pacific.board import COMPANIES, NUM_SHARE_KINDS, UP
from arena.games.union_pacific.state import DIVIDEND, FIRST_INVEST, UnionPacificState

Mutation = Callable[[UnionPacificState, int, random.Random], bool]


def _others(state: UnionPacificState, me: int) -> list[int]:
    return [s for s in range(state.num_players) if s != me]


def in_first_investment(state: UnionPacificState) -> bool:
    return state.phase == FIRST_INVEST


def deck_of_shares(state: UnionPacificState) -> list[int]:
    """The hidden undealt shares: the deck, or before it is laid out, the undealt pile."""
    return state.share_deck if state.share_deck else state._pool


def swappable(state: UnionPacificState, seat: int) -> list[int]:
    """Share kinds ``seat`` may lose from its hand without breaking its pending pick."""
    hand = state.hand_shares[seat]
    pick = state.picks[seat] if in_first_investment(state) else None
    return [c for c in range(NUM_SHARE_KINDS) if hand[c] > (1 if c == pick else 0)]


def swap_other_hand_share_with_deck(state: UnionPacificState, me: int, rng: random.Random) -> bool:
    deck = deck_of_shares(state)
    options = [(s, c, i) for s in _others(state, me) for c in swappable(state, s) if c != UP
               for i, d in enumerate(deck) if d != DIVIDEND and d != c]
    if not options:
        return False
    seat, c, i = rng.choice(options)
    state.hand_shares[seat][c] -= 1
    state.hand_shares[seat][deck[i]] += 1
    deck[i] = c
    return True


def swap_shares_between_other_hands(state: UnionPacificState, me: int, rng: random.Random) -> bool:
    options = [(a, b, ca, cb) for a in _others(state, me) for b in _others(state, me) if a < b
               for ca in swappable(state, a) for cb in swappable(state, b) if ca != cb]
    if not options:
        return False
    a, b, ca, cb = rng.choice(options)
    state.hand_shares[a][ca] -= 1
    state.hand_shares[a][cb] += 1
    state.hand_shares[b][cb] -= 1
    state.hand_shares[b][ca] += 1
    return True


def swap_other_hand_track_with_deck(state: UnionPacificState, me: int, rng: random.Random) -> bool:
    options = [(s, k, i) for s in _others(state, me) for k, n in enumerate(state.hand_track[s]) if n
               for i, m in enumerate(state.track_deck) if m != k]
    if not options:
        return False
    seat, k, i = rng.choice(options)
    state.hand_track[seat][k] -= 1
    state.hand_track[seat][state.track_deck[i]] += 1
    state.track_deck[i] = k
    return True


def reorder_share_deck(state: UnionPacificState, me: int, rng: random.Random) -> bool:
    return reorder(deck_of_shares(state), rng)


def reorder_track_deck(state: UnionPacificState, me: int, rng: random.Random) -> bool:
    return reorder(state.track_deck, rng)


def swap_exchange_box_with_other_hand(state: UnionPacificState, me: int, rng: random.Random) -> bool:
    options = [(c, s, d) for c in range(NUM_SHARE_KINDS) if state.boxed_exchange[c]
               for s in _others(state, me) for d in swappable(state, s) if d != c]
    if not options:
        return False
    c, seat, d = rng.choice(options)
    state.boxed_exchange[c] -= 1
    state.boxed_exchange[d] += 1
    state.hand_shares[seat][d] -= 1
    state.hand_shares[seat][c] += 1
    return True


def swap_exchange_box_with_deck(state: UnionPacificState, me: int, rng: random.Random) -> bool:
    deck = state.share_deck
    options = [(c, i) for c in range(len(COMPANIES)) if state.boxed_exchange[c]
               for i, d in enumerate(deck) if d != DIVIDEND and d != c]
    if not options:
        return False
    c, i = rng.choice(options)
    state.boxed_exchange[c] -= 1
    state.boxed_exchange[deck[i]] += 1
    deck[i] = c
    return True


def change_other_pending_pick(state: UnionPacificState, me: int, rng: random.Random) -> bool:
    if not in_first_investment(state):
        return False
    options = [(s, c) for s in _others(state, me) if state.picks[s] is not None
               for c in range(NUM_SHARE_KINDS) if state.hand_shares[s][c] and c != state.picks[s]]
    if not options:
        return False
    seat, c = rng.choice(options)
    state.picks[seat] = c
    return True


def reseed(state: UnionPacificState, me: int, rng: random.Random) -> bool:
    """The generator that will shuffle the discards later is in another state."""
    state.rng.seed(rng.getrandbits(64))
    return True


HIDDEN_CHANGES: tuple[Mutation, ...] = (
    swap_other_hand_share_with_deck, swap_shares_between_other_hands, swap_other_hand_track_with_deck,
    reorder_share_deck, reorder_track_deck, swap_exchange_box_with_other_hand, swap_exchange_box_with_deck,
    change_other_pending_pick, reseed,
)


def hidden_twin(state: UnionPacificState, me: int, rng: random.Random) -> UnionPacificState:
    """A clone of ``state`` with a random selection of :data:`HIDDEN_CHANGES` (for ``me``) applied."""
    return apply_some(state.clone(), me, rng, HIDDEN_CHANGES)
