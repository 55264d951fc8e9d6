"""Test-side helpers that set up Union Pacific positions by editing a state's fields.

The engine keeps its state in flat lists (see arena/games/union_pacific/state.py);
every test that needs to reach inside it goes through this module, so that a
change of the engine's internals is fixed here once.  Card and company arguments
are the public codes ("DM", "UP", "MOUNTAIN", "DIVIDEND"); lists of cards are
given top first.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Iterable, Mapping, Sequence

from arena.games.union_pacific import UnionPacificState, default_game
from arena.games.union_pacific.board import COMPANIES, NUM_COMPANIES, NUM_SHARE_KINDS, SHARE_CODES
from arena.games.union_pacific.state import DIVIDEND, FIRST_INVEST

GAME = default_game()
BOARD = GAME.board
KINDS = BOARD.card_kinds  # the four track types in board order, then "WILD"
DIVIDEND_CODE = "DIVIDEND"


# -- names ------------------------------------------------------------------------

def kind_index(kind: str) -> int:
    """Index of a track card kind ("PLAIN", ..., "WILD")."""
    return KINDS.index(kind)


def section(a: str, b: str) -> int:
    """Index of the section joining cities ``a`` and ``b`` (either order)."""
    ia, ib = BOARD.cities.index(a), BOARD.cities.index(b)
    for s, (x, y) in enumerate(zip(BOARD.section_a, BOARD.section_b)):
        if {x, y} == {ia, ib}:
            return s
    raise LookupError(f"no section {a}-{b} on the default board")


def _share_card(code: str) -> int:
    return DIVIDEND if code == DIVIDEND_CODE else COMPANIES.index(code)


def _share_code(card: int) -> str:
    return DIVIDEND_CODE if card == DIVIDEND else COMPANIES[card]


# -- games and actions --------------------------------------------------------------

def new_game(players: int = 4, seed: int = 0, variant: str = "standard") -> UnionPacificState:
    return GAME.new_state(players, seed, variant)


def act(state: UnionPacificState, seat: int, text: str) -> None:
    """Apply an action given in its text form."""
    state.apply_action(seat, state.string_to_action(text))


def legal_texts(state: UnionPacificState, seat: int) -> list[str]:
    return [state.action_to_string(a) for a in state.legal_actions(seat)]


def first_invest_all(state: UnionPacificState, picks: Mapping[int, str] | None = None) -> None:
    """Make every waiting seat's first investment (``picks[seat]`` or its first legal one)."""
    picks = dict(picks or {})
    for seat in range(state.num_players):
        if state.decision_kind(seat) != "first_invest":
            continue
        if seat in picks:
            act(state, seat, f"first-invest {picks[seat]}")
        else:
            state.apply_action(seat, state.legal_actions(seat)[0])


def started_game(players: int = 4, seed: int = 0, variant: str = "standard") -> UnionPacificState:
    """A game right after the first investment: seat 0 must build, invest or pass."""
    state = new_game(players, seed, variant)
    first_invest_all(state)
    return state


def in_first_investment(state: UnionPacificState) -> bool:
    return state.phase == FIRST_INVEST


def events_of(state: UnionPacificState, kind: str) -> list[dict]:
    return [e for e in state.events if e["type"] == kind]


def play_randomly(state: UnionPacificState, rng: random.Random, max_actions: int | None = None) -> int:
    """Play uniformly random legal actions until the end (or ``max_actions``); returns how many."""
    done = 0
    while not state.is_terminal() and (max_actions is None or done < max_actions):
        seat = state.current_seats()[0]
        legal = state.legal_actions(seat)
        state.apply_action(seat, legal[int(rng.random() * len(legal))])
        done += 1
    return done


# -- hands ------------------------------------------------------------------------

def set_track_hand(state: UnionPacificState, seat: int, cards: Mapping[str, int]) -> None:
    """Replace ``seat``'s track cards (the deck is not touched)."""
    state.hand_track[seat] = [cards.get(k, 0) for k in KINDS]


def set_share_hand(state: UnionPacificState, seat: int, shares: Mapping[str, int]) -> None:
    """Replace ``seat``'s hand of share cards."""
    state.hand_shares[seat] = [shares.get(c, 0) for c in SHARE_CODES]
    state.hand_share_total = sum(map(sum, state.hand_shares))


def share_hand(state: UnionPacificState, seat: int) -> dict[str, int]:
    return {SHARE_CODES[c]: n for c, n in enumerate(state.hand_shares[seat]) if n}


def set_invested(state: UnionPacificState, seat: int, shares: Mapping[str, int]) -> None:
    state.invested[seat] = [shares.get(c, 0) for c in SHARE_CODES]


def clear_investments(state: UnionPacificState) -> None:
    """Nobody has invested anything (makes payouts easy to predict)."""
    for seat in range(state.num_players):
        set_invested(state, seat, {})


def set_cash(state: UnionPacificState, seat: int, cash: int) -> None:
    state.cash[seat] = cash


# -- decks, display, stacks ------------------------------------------------------------

def stack_share_deck(state: UnionPacificState, top_down: Sequence[str]) -> None:
    """Replace the share deck; "DIVIDEND" is a dividend card."""
    state.share_deck = [_share_card(c) for c in reversed(top_down)]


def share_deck_top_down(state: UnionPacificState) -> list[str]:
    return [_share_code(c) for c in reversed(state.share_deck)]


def stack_track_deck(state: UnionPacificState, top_down: Sequence[str]) -> None:
    """Replace the track deck (top first); the discard pile is not touched."""
    state.track_deck = [kind_index(k) for k in reversed(top_down)]


def set_track_discards(state: UnionPacificState, cards: Mapping[str, int]) -> None:
    state.track_discard = [cards.get(k, 0) for k in KINDS]


def set_display(state: UnionPacificState, codes: Sequence[str]) -> None:
    state.display = [COMPANIES.index(c) for c in codes]


def set_up_stack(state: UnionPacificState, cards: int) -> None:
    state.up_stack = cards


def set_dividends_paid(state: UnionPacificState, paid: int) -> None:
    """Pretend ``paid`` dividend cards have been revealed and paid."""
    state.dividends_paid = paid
    state.dividends_revealed = paid


def rig_setup_display(state: UnionPacificState, codes: Sequence[str]) -> None:
    """Before the first investment completes: make the next undealt shares turned up be ``codes``, in order."""
    pool = state._pool
    chosen = []
    for code in codes:
        c = COMPANIES.index(code)
        if c not in pool:
            raise LookupError(f"no undealt {code} share left to rig the display with")
        pool.remove(c)
        chosen.append(c)
    pool.extend(reversed(chosen))  # the display is popped off the end


# -- the board ----------------------------------------------------------------------

def put_train(state: UnionPacificState, code: str, a: str, b: str) -> None:
    """Place a train of ``code`` on a neutral space of section a-b, without any legality check."""
    s = section(a, b)
    if not state.free[s]:
        raise ValueError(f"{a}-{b} has no empty neutral space to put a {code} train on")
    state.free[s] -= 1
    if not state.free[s]:
        state._fill(s)  # a full section leaves every frontier
    state._place(COMPANIES.index(code), s)


def set_supply(state: UnionPacificState, code: str, trains: int) -> None:
    state.supply[COMPANIES.index(code)] = trains
    state._reset_builds()


def block_all_builds(state: UnionPacificState) -> None:
    """No company has a train left: no build is possible anywhere."""
    for code in COMPANIES:
        set_supply(state, code, 0)


# -- the rules' rare situations, which random games almost never reach ---------------------------

def skipped_draw_game() -> tuple[UnionPacificState, str]:
    """A 3-player game whose seat 0 builds with nothing left to draw (no display, share deck or
    Union Pacific share), so its draw is skipped: the state and seat 0's action."""
    state = started_game(3, seed=9)
    set_display(state, [])
    stack_share_deck(state, [])
    set_up_stack(state, 0)
    set_track_hand(state, 0, {"MOUNTAIN": 4})
    return state, "build DM Denver-El Paso MOUNTAIN"


def stalemate_game(players: int) -> tuple[UnionPacificState, str]:
    """Nothing can be built and no seat holds a share: seat 0's pass (its only action) makes the
    stalemate of §8.  The state and that action."""
    state = started_game(players, seed=15)
    block_all_builds(state)
    for seat in range(players):
        set_share_hand(state, seat, {})
    set_track_hand(state, 0, {"PLAIN": 4})
    return state, "pass discard PLAIN"


# -- whole-state views used by invariants ---------------------------------------------

def share_census(state: UnionPacificState) -> dict[str, Counter]:
    """Where every share card and dividend card is, by location."""
    imaginary = state.imaginary or [0] * NUM_SHARE_KINDS
    return {
        "hands": Counter({SHARE_CODES[c]: sum(h[c] for h in state.hand_shares) for c in range(NUM_SHARE_KINDS)}),
        "invested": Counter({SHARE_CODES[c]: sum(h[c] for h in state.invested) for c in range(NUM_SHARE_KINDS)}),
        "display": Counter(COMPANIES[c] for c in state.display),
        "deck": Counter(_share_code(c) for c in state.share_deck),
        "undealt": Counter(COMPANIES[c] for c in state._pool),
        "boxed_four": Counter({COMPANIES[c]: n for c, n in enumerate(state.boxed_four)}),
        "boxed_exchange": Counter({SHARE_CODES[c]: n for c, n in enumerate(state.boxed_exchange)}),
        "imaginary": Counter({SHARE_CODES[c]: n for c, n in enumerate(imaginary)}),
        "up_stack": Counter({"UP": state.up_stack}),
        "dividends_revealed": Counter({DIVIDEND_CODE: state.dividends_revealed}),
    }


def track_census(state: UnionPacificState) -> dict[str, Counter]:
    return {
        "hands": Counter({KINDS[k]: sum(h[k] for h in state.hand_track) for k in range(len(KINDS))}),
        "deck": Counter(KINDS[k] for k in state.track_deck),
        "discards": Counter({KINDS[k]: n for k, n in enumerate(state.track_discard)}),
    }


def trains_by_section(state: UnionPacificState) -> list[set[str]]:
    """The companies with a train on each section."""
    return [{COMPANIES[c] for c in range(NUM_COMPANIES) if mask >> c & 1} for mask in state.has_train]


def hidden_view(state: UnionPacificState) -> dict:
    """Everything the observations leave out, for comparing whole states."""
    return {
        "hand_shares": [list(h) for h in state.hand_shares],
        "hand_track": [list(h) for h in state.hand_track],
        "share_deck": list(state.share_deck),
        "undealt": list(state._pool),
        "track_deck": list(state.track_deck),
        "boxed_exchange": list(state.boxed_exchange),
        "picks": list(state.picks),
        "rng": state.rng.getstate(),
    }


def all_counts(values: Iterable[Counter]) -> Counter:
    total: Counter = Counter()
    for v in values:
        total.update(v)
    return total
