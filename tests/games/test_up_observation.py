"""What each seat knows (§10): an observation holds everything public and the seat's own
secrets, and nothing hidden from that seat.

The main property: over random game prefixes, changing anything hidden from a seat
(other seats' hands, the order of either deck, the cards boxed by exchanges, other
seats' pending first-investment picks) leaves that seat's observation as it was;
changing anything public does change it.
"""

from __future__ import annotations

import json
import random
from typing import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games.union_pacific.board import COMPANIES, NUM_SHARE_KINDS, SHARE_CODES, UP
from arena.games.union_pacific.conformance import (
    change_other_pending_pick,
    deck_of_shares,
    reorder_share_deck,
    reorder_track_deck,
    swap_exchange_box_with_deck,
    swap_exchange_box_with_other_hand,
    swap_other_hand_share_with_deck,
    swap_other_hand_track_with_deck,
    swap_shares_between_other_hands,
    swappable,
)
from arena.games.union_pacific.state import DIVIDEND
from tests.games.scenario import (
    act,
    first_invest_all,
    hidden_view,
    new_game,
    play_randomly,
    set_display,
    set_share_hand,
    set_track_hand,
    set_up_stack,
    stack_share_deck,
    started_game,
)

OBSERVATION_KEYS = {
    "game", "seat", "num_players", "variant", "decision", "current_seat", "turn", "dividends_paid",
    "dividends_to_end", "share_deck", "track_deck", "up_stack", "display", "track_discards",
    "boxed_four_of_a_kind", "free_spaces", "companies", "players", "hand", "pending_first_investment", "imaginary",
    "public_events", "known_shares",
}

# A mutation edits a state in place for the observer ``me``; it returns False when it does not apply.
Mutation = Callable[[object, int, random.Random], bool]


def _others(state, me: int) -> list[int]:
    return [s for s in range(state.num_players) if s != me]


# Hidden changes to the record: another history that differs from the real one only in what
# §10 hides (the state is changed to match, as that history would have left it).

def _events_of_others(state, me: int, kind: str) -> list[int]:
    return [i for i, e in enumerate(state.events) if e["type"] == kind and e.get("seat") is not None
            and e["seat"] != me]


def rewrite_other_blind_draw(state, me: int, rng: random.Random) -> bool:
    """Another seat's deck draw found another card (still in its hand), which stays in the deck instead."""
    options = [(i, d) for i in _events_of_others(state, me, "draw") if state.events[i]["source"] == "deck"
               and state.events[i]["company"] is not None
               and state.events[i]["company"] != "UP"
               and COMPANIES.index(state.events[i]["company"]) in swappable(state, state.events[i]["seat"])
               for d, card in enumerate(state.share_deck) if card != DIVIDEND
               and COMPANIES[card] != state.events[i]["company"]]
    if not options:
        return False
    i, d = rng.choice(options)
    event = state.events[i]
    seat, old, new = event["seat"], COMPANIES.index(event["company"]), state.share_deck[d]
    state.events[i] = {**event, "company": COMPANIES[new]}  # a new dict: a clone shares the old one
    state.hand_shares[seat][old] -= 1
    state.hand_shares[seat][new] += 1
    state.share_deck[d] = old
    return True


def rewrite_other_exchange(state, me: int, rng: random.Random) -> bool:
    """Another seat boxed another card of its hand in an exchange."""
    options = [(i, c) for i in _events_of_others(state, me, "exchange")
               for c in swappable(state, state.events[i]["seat"]) if SHARE_CODES[c] != state.events[i]["company"]]
    if not options:
        return False
    i, c = rng.choice(options)
    event = state.events[i]
    seat, old = event["seat"], SHARE_CODES.index(event["company"])
    if not state.boxed_exchange[old]:
        return False
    state.events[i] = {**event, "company": SHARE_CODES[c]}
    state.boxed_exchange[old] -= 1
    state.boxed_exchange[c] += 1
    state.hand_shares[seat][c] -= 1
    state.hand_shares[seat][old] += 1
    return True


def rewrite_other_track_draw(state, me: int, rng: random.Random) -> bool:
    """Another seat drew another track card at the start of a turn (still in its hand)."""
    kinds = state.board.card_kinds
    options = [(i, d) for i in _events_of_others(state, me, "turn")
               if state.hand_track[state.events[i]["seat"]][kinds.index(state.events[i]["track_card"])]
               for d, card in enumerate(state.track_deck) if kinds[card] != state.events[i]["track_card"]]
    if not options:
        return False
    i, d = rng.choice(options)
    event = state.events[i]
    seat, old, new = event["seat"], kinds.index(event["track_card"]), state.track_deck[d]
    state.events[i] = {**event, "track_card": kinds[new]}
    state.hand_track[seat][old] -= 1
    state.hand_track[seat][new] += 1
    state.track_deck[d] = old
    return True


def rewrite_other_dealt_hand(state, me: int, rng: random.Random) -> bool:
    """Another seat was dealt another share (still in its hand), which is in the deck instead."""
    setup = state.events[0]
    deck = deck_of_shares(state)
    options = [(s, c, d) for s in _others(state, me) for c in swappable(state, s) if c != UP
               and setup["hands"][s]["shares"].get(SHARE_CODES[c])
               for d, card in enumerate(deck) if card != DIVIDEND and card != c]
    if not options:
        return False
    s, c, d = rng.choice(options)
    new = deck[d]
    hands = [dict(h, shares=dict(h["shares"])) for h in setup["hands"]]
    shares = hands[s]["shares"]
    shares[SHARE_CODES[c]] -= 1
    shares[SHARE_CODES[new]] = shares.get(SHARE_CODES[new], 0) + 1
    hands[s]["shares"] = {k: n for k, n in shares.items() if n}
    state.events[0] = {**setup, "hands": hands}
    state.hand_shares[s][c] -= 1
    state.hand_shares[s][new] += 1
    deck[d] = c
    return True


def rewrite_share_deck_order(state, me: int, rng: random.Random) -> bool:
    """The cards still in the share deck lie in another order (and the set-up record says so)."""
    index = next((i for i, e in enumerate(state.events) if e["type"] == "share_deck"), None)
    deck = state.share_deck
    if index is None or len(set(deck)) < 2:
        return False
    before = list(deck)
    while deck == before:
        rng.shuffle(deck)
    event = state.events[index]
    drawn = event["cards"] - len(deck) if state.imaginary is None else None
    if drawn is None:
        return True
    codes = ["DIVIDEND" if c == DIVIDEND else COMPANIES[c] for c in reversed(deck)]
    state.events[index] = {**event, "order": event["order"][:drawn] + codes}
    return True


HIDDEN: list[Mutation] = [
    swap_other_hand_share_with_deck, swap_shares_between_other_hands, swap_other_hand_track_with_deck,
    reorder_share_deck, reorder_track_deck, swap_exchange_box_with_other_hand, swap_exchange_box_with_deck,
    change_other_pending_pick, rewrite_other_blind_draw, rewrite_other_exchange, rewrite_other_track_draw,
    rewrite_other_dealt_hand, rewrite_share_deck_order,
]


# -- public changes (each must show) ---------------------------------------------------------

def more_cash(state, me: int, rng: random.Random) -> bool:
    state.cash[rng.randrange(state.num_players)] += 1
    return True


def other_display_card(state, me: int, rng: random.Random) -> bool:
    if not state.display:
        return False
    i = rng.randrange(len(state.display))
    state.display[i] = (state.display[i] + 1) % len(COMPANIES)
    return True


def one_more_invested(state, me: int, rng: random.Random) -> bool:
    state.invested[rng.randrange(state.num_players)][rng.randrange(NUM_SHARE_KINDS)] += 1
    return True


def swap_own_hand_share_with_deck(state, me: int, rng: random.Random) -> bool:
    deck = deck_of_shares(state)
    options = [(c, i) for c in swappable(state, me) if c != UP for i, d in enumerate(deck) if d not in (DIVIDEND, c)]
    if not options:
        return False
    c, i = rng.choice(options)
    state.hand_shares[me][c] -= 1
    state.hand_shares[me][deck[i]] += 1
    deck[i] = c
    return True


def swap_own_track_with_deck(state, me: int, rng: random.Random) -> bool:
    options = [(k, i) for k, n in enumerate(state.hand_track[me]) if n for i, m in enumerate(state.track_deck) if m != k]
    if not options:
        return False
    k, i = rng.choice(options)
    state.hand_track[me][k] -= 1
    state.hand_track[me][state.track_deck[i]] += 1
    state.track_deck[i] = k
    return True


def shorter_share_deck(state, me: int, rng: random.Random) -> bool:
    if not state.share_deck:
        return False
    state.share_deck.pop()
    return True


def one_more_discard(state, me: int, rng: random.Random) -> bool:
    state.track_discard[rng.randrange(len(state.track_discard))] += 1
    return True


def one_less_up_share(state, me: int, rng: random.Random) -> bool:
    if not state.up_stack:
        return False
    state.up_stack -= 1
    return True


def other_display_draw_in_window(state, me: int, rng: random.Random) -> bool:
    """A display draw the seat has not been shown yet took another company."""
    window = state.observation(me)["public_events"]
    start = len(state.events) - len(window)
    options = [i for i in range(start, len(state.events)) if state.events[i]["type"] == "draw"
               and state.events[i]["source"] == "display"]
    if not options:
        return False
    i = rng.choice(options)
    event = state.events[i]
    state.events[i] = {**event, "company": COMPANIES[(COMPANIES.index(event["company"]) + 1) % len(COMPANIES)]}
    return True


PUBLIC: list[Mutation] = [other_display_draw_in_window, more_cash, other_display_card, one_more_invested, swap_own_hand_share_with_deck,
                          swap_own_track_with_deck, shorter_share_deck, one_more_discard, one_less_up_share]


# -- the properties -----------------------------------------------------------------------

@st.composite
def game_prefixes(draw: st.DrawFn):
    """A game after a random number of random actions (often still in the first investment)."""
    players = draw(st.integers(min_value=2, max_value=6))
    variant = draw(st.sampled_from(["standard", "pro"]))
    seed = draw(st.integers(min_value=0, max_value=2**32 - 1))
    actions = draw(st.one_of(st.integers(min_value=0, max_value=players), st.integers(min_value=0, max_value=400)))
    state = new_game(players, seed, variant)
    play_randomly(state, random.Random(seed), max_actions=actions)
    return state


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=game_prefixes(), data=st.data())
def test_hidden_changes_never_change_an_observation(state, data: st.DataObject) -> None:
    me = data.draw(st.integers(min_value=0, max_value=state.num_players - 1), label="observer")
    rng = random.Random(data.draw(st.integers(min_value=0, max_value=2**32 - 1), label="mutation seed"))
    before = state.observation(me)
    for mutation in HIDDEN:
        twin = state.clone()
        if mutation(twin, me, rng):
            assert hidden_view(twin) != hidden_view(state), f"{mutation.__name__} changed nothing"
            assert twin.observation(me) == before, f"{mutation.__name__} shows in seat {me}'s observation"
    twin = state.clone()
    if sum(mutation(twin, me, rng) for mutation in HIDDEN):  # all of them at once
        assert twin.observation(me) == before


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=game_prefixes(), data=st.data())
def test_public_changes_do_change_the_observation(state, data: st.DataObject) -> None:
    me = data.draw(st.integers(min_value=0, max_value=state.num_players - 1), label="observer")
    rng = random.Random(data.draw(st.integers(min_value=0, max_value=2**32 - 1), label="mutation seed"))
    before = state.observation(me)
    for mutation in PUBLIC:
        twin = state.clone()
        if mutation(twin, me, rng):
            assert twin.observation(me) != before, f"{mutation.__name__} does not show in seat {me}'s observation"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=game_prefixes())
def test_an_observation_is_json_with_exactly_the_documented_fields(state) -> None:
    for seat in range(state.num_players):
        obs = state.observation(seat)
        assert set(obs) == OBSERVATION_KEYS
        assert json.loads(json.dumps(obs)) == obs
        assert obs["seat"] == seat and obs["num_players"] == state.num_players
        assert len(obs["companies"]) == 10 and [c["code"] for c in obs["companies"]] == list(COMPANIES)
        assert [p["seat"] for p in obs["players"]] == list(range(state.num_players))
        assert obs["dividends_to_end"] == (3 if state.num_players == 2 else 4)
        assert sum(obs["hand"]["shares"].values()) == obs["players"][seat]["hand_shares"]
        assert sum(obs["hand"]["track"].values()) == obs["players"][seat]["hand_track"]
        assert all(n > 0 for n in obs["hand"]["shares"].values())
        assert all(n > 0 for p in obs["players"] for n in p["invested"].values())
        assert set(obs["track_discards"]) == {"PLAIN", "COAST", "BORDER", "MOUNTAIN", "WILD"}
        assert obs["decision"] == state.decision_kind(seat)


def test_editing_an_observation_does_not_touch_the_game() -> None:
    state = started_game(3, seed=30)
    obs = state.observation(0)
    snapshot = json.dumps(state.observation(0))
    obs["display"].clear()
    obs["free_spaces"][0] = 99
    obs["companies"][0]["sections"].append(70)
    obs["hand"]["shares"]["UP"] = 9
    assert json.dumps(state.observation(0)) == snapshot


# -- hidden moves, seen from the other seats ----------------------------------------------------

def test_a_blind_draw_shows_the_card_to_the_drawer_only() -> None:
    state = started_game(3, seed=31)
    set_track_hand(state, 0, {"MOUNTAIN": 4})
    set_up_stack(state, 0)
    act(state, 0, "build DM Denver-El Paso MOUNTAIN")
    one, other = state.clone(), state.clone()
    stack_share_deck(one, ["DM", "WW", "KCC"])
    stack_share_deck(other, ["WW", "DM", "KCC"])
    act(one, 0, "draw deck")
    act(other, 0, "draw deck")
    assert one.observation(1) == other.observation(1) and one.observation(2) == other.observation(2)
    assert one.observation(0)["hand"] != other.observation(0)["hand"]


def test_the_exchanged_card_is_seen_by_nobody_else() -> None:
    state = started_game(3, seed=32)
    set_track_hand(state, 0, {"MOUNTAIN": 4})
    set_up_stack(state, 5)
    act(state, 0, "build DM Denver-El Paso MOUNTAIN")
    set_display(state, ["WW", "MS", "BNL", "ESL"])
    act(state, 0, "draw display WW")
    set_share_hand(state, 0, {"DM": 1, "WW": 1, "UP": 1})
    one, other = state.clone(), state.clone()
    act(one, 0, "exchange DM")
    act(other, 0, "exchange WW")
    assert one.observation(1) == other.observation(1) and one.observation(2) == other.observation(2)
    assert one.observation(0) != other.observation(0)


def test_a_first_investment_pick_is_seen_by_nobody_else_until_all_have_picked() -> None:
    state = new_game(4, seed=33)
    options = state.legal_actions(2)
    one, other = state.clone(), state.clone()
    one.apply_action(2, options[0])
    other.apply_action(2, options[-1])
    for seat in (0, 1, 3):
        assert one.observation(seat) == other.observation(seat)
    assert one.observation(2)["pending_first_investment"] != other.observation(2)["pending_first_investment"]
    first_invest_all(one, {})
    first_invest_all(other, {})
    assert one.observation(0)["players"][2]["invested"] != other.observation(0)["players"][2]["invested"]

