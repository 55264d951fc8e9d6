"""The public record a seat receives (arena/games/union_pacific/knowledge.py): the events since
its previous decision, as it may see them, and the share cards known to be in the other hands.

Hidden information never reaching these fields is proven with the other hidden changes in
tests/games/test_up_observation.py (and over the wire in tests/test_wire_hidden.py); here:
the windows are exactly "since the previous decision", joined they are the whole public log,
every event type is covered, and the known hands are sound lower bounds, scenario by scenario.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.games.union_pacific import knowledge
from arena.games.union_pacific.board import SHARE_CODES
from tests.games.scenario import (
    act,
    first_invest_all,
    new_game,
    set_display,
    set_share_hand,
    set_track_hand,
    set_up_stack,
    share_hand,
    stack_share_deck,
    started_game,
)


def _play_recording(players: int, seed: int, variant: str = "standard"):
    """A random game, with the log's length when each action was applied (the true window starts),
    and every observation of every seat taken before each action."""
    state = new_game(players, seed, variant)
    rng = random.Random(seed)
    starts: dict[int, int] = {}
    seen: list[tuple[int, dict]] = []
    while not state.is_terminal():
        for seat in range(players):
            seen.append((seat, state.observation(seat)))
        seat = rng.choice(state.current_seats())
        legal = state.legal_actions(seat)
        starts[seat] = len(state.events)
        state.apply_action(seat, legal[int(rng.random() * len(legal))])
        yield state, dict(starts)


@pytest.mark.parametrize(("players", "variant"), [(2, "standard"), (3, "pro"), (4, "standard"), (5, "standard"),
                                                  (6, "pro")])
def test_the_window_starts_where_the_seat_last_decided(players: int, variant: str) -> None:
    for seed in range(6):
        for state, starts in _play_recording(players, 100 * players + seed, variant):
            for seat in range(players):
                got = knowledge.window_start(state.events, state.history, seat,
                                             lambda a: knowledge.action_kind(state.table, a))
                assert got == starts.get(seat, 0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(["standard", "pro"]))
def test_the_windows_of_a_seat_join_into_its_whole_view_of_the_log(players: int, seed: int, variant: str) -> None:
    """What a seat is shown at each of its decisions, then at the end, is every event once, in order."""
    state = new_game(players, seed, variant)
    rng = random.Random(seed)
    received: list[list[dict]] = [[] for _ in range(players)]
    while not state.is_terminal():
        current = state.current_seats()
        for seat in current:  # every seat asked now gets its observation (simultaneous: all of them)
            received[seat].extend(state.observation(seat)["public_events"])
        for seat in current:
            legal = state.legal_actions(seat)
            state.apply_action(seat, legal[int(rng.random() * len(legal))])
    for seat in range(players):
        received[seat].extend(state.observation(seat)["public_events"])
        assert received[seat] == [knowledge.public_event(e, seat) for e in state.events]


def test_every_event_type_has_a_public_view() -> None:
    seen: set[str] = set()
    for players in range(2, 7):
        for seed in range(8):
            state = new_game(players, seed, "pro" if seed % 2 else "standard")
            rng = random.Random(seed)
            while not state.is_terminal():
                seat = state.current_seats()[0]
                legal = state.legal_actions(seat)
                state.apply_action(seat, legal[int(rng.random() * len(legal))])
            for event in state.events:
                assert event["type"] in knowledge.EVENT_TYPES
                for viewer in range(players):
                    view = knowledge.public_event(event, viewer)
                    assert view["type"] == event["type"] and view is not event
                seen.add(event["type"])
    # A stalemate and a four-of-a-kind are rare in random play; their views are tested below.
    assert knowledge.EVENT_TYPES - seen <= {"stalemate", "four_of_a_kind", "draw_skipped", "pass"}


def test_what_each_view_leaves_out() -> None:
    view = knowledge.public_event
    setup = {"type": "setup", "players": 3, "variant": "standard", "hands": [{"seat": 0, "shares": {"DM": 4}}],
             "up_stack": 17}
    assert view(setup, 0) == {"type": "setup", "players": 3, "variant": "standard", "up_stack": 17}
    deck = {"type": "share_deck", "cards": 82, "order": ["DM", "DIVIDEND"]}
    assert view(deck, 1) == {"type": "share_deck", "cards": 82}
    turn = {"type": "turn", "turn": 4, "seat": 2, "track_card": "COAST"}
    assert view(turn, 1) == {"type": "turn", "turn": 4, "seat": 2}
    assert view(turn, 2) == turn
    blind = {"type": "draw", "seat": 2, "source": "deck", "company": "WW"}
    assert view(blind, 0) == {"type": "draw", "seat": 2, "source": "deck"}
    assert view(blind, 2) == blind
    nothing = {"type": "draw", "seat": 2, "source": "deck", "company": None}
    assert view(nothing, 2) == view(nothing, 0) == {"type": "draw", "seat": 2, "source": "deck"}
    shown = {"type": "draw", "seat": 2, "source": "display", "company": "WW"}
    assert view(shown, 0) == shown
    exchange = {"type": "exchange", "seat": 1, "company": "MS"}
    assert view(exchange, 0) == {"type": "exchange", "seat": 1}
    assert view(exchange, 1) == exchange
    assert view({"type": "refill", "company": None}, 0) == {"type": "refill"}
    for public in ({"type": "four_of_a_kind", "company": "DM"}, {"type": "stalemate", "dividends_paid": 2},
                   {"type": "pass", "seat": 0, "discard": "PLAIN"}, {"type": "draw_skipped", "seat": 1}):
        assert view(public, 1) == public
    end = {"type": "game_end", "cash": {"0": 3}, "places": {"0": 1}, "termination": "normal",
           "extra": {"imaginary_ahead_of": {}}}
    assert view(end, 0) == {"type": "game_end", "cash": {"0": 3}, "places": {"0": 1}, "termination": "normal"}
    with pytest.raises(ValueError, match="teleport"):
        view({"type": "teleport"}, 0)


def test_a_view_shares_nothing_with_the_log() -> None:
    state = started_game(3, seed=40)
    rng = random.Random(40)
    while state.dividends_paid < 1:
        seat = state.current_seats()[0]
        legal = state.legal_actions(seat)
        state.apply_action(seat, legal[int(rng.random() * len(legal))])
    before = repr(state.events)
    for event in state.events:
        view = knowledge.public_event(event, 0)
        for value in view.values():
            if isinstance(value, (dict, list)):
                value.clear()
    assert repr(state.events) == before


# -- known shares -----------------------------------------------------------------------

def _known(state, viewer: int, seat: int) -> dict[str, int]:
    return state.observation(viewer)["known_shares"][str(seat)]


def test_every_seat_is_known_to_hold_its_up_share_until_it_invests_it() -> None:
    state = new_game(3, seed=41)
    assert state.observation(0)["known_shares"] == {"1": {"UP": 1}, "2": {"UP": 1}}
    company = next(c for c in share_hand(state, 1) if c != "UP")
    first_invest_all(state, {0: "UP", 1: company, 2: "UP"})
    assert state.observation(0)["known_shares"] == {"1": {"UP": 1}, "2": {}}
    assert state.observation(1)["known_shares"] == {"0": {}, "2": {}}


def _turn(state, seat: int, draw: str, exchange: str = "exchange none") -> None:
    """A build (any), the draw given, then the exchange given if there is one to make."""
    set_track_hand(state, seat, {"MOUNTAIN": 2, "PLAIN": 2})
    state.apply_action(seat, next(a for a in state.legal_actions(seat) if state.describe_action(a)["kind"] == "build"))
    act(state, seat, draw)
    if state.decision_kind(seat) == "exchange":
        act(state, seat, exchange)


def test_display_and_up_draws_are_known_deck_draws_are_not() -> None:
    state = started_game(3, seed=42)  # every seat invested a company first: each still holds its UP share
    set_up_stack(state, 5)
    set_display(state, ["WW", "MS", "BNL", "ESL"])
    _turn(state, 0, "draw display WW")
    assert _known(state, 1, 0) == {"WW": 1, "UP": 1}
    stack_share_deck(state, ["KCC", "DM", "DM", "DM", "DM"])
    _turn(state, 1, "draw deck")
    assert share_hand(state, 1)["KCC"] >= 1
    assert _known(state, 0, 1) == {"UP": 1} and _known(state, 2, 1) == {"UP": 1}
    _turn(state, 2, "draw up")
    assert _known(state, 0, 2) == {"UP": 2}
    assert state.observation(2)["known_shares"] == {"0": {"WW": 1, "UP": 1}, "1": {"UP": 1}}


def test_an_investment_and_an_exchange_take_known_cards_away() -> None:
    state = started_game(3, seed=43)
    set_up_stack(state, 5)
    set_display(state, ["WW", "WW", "BNL", "ESL"])
    _turn(state, 0, "draw display WW")
    _turn(state, 1, "draw up")
    _turn(state, 2, "draw up")
    set_display(state, ["WW", "MS", "BNL", "ESL"])
    set_track_hand(state, 0, {"MOUNTAIN": 2, "PLAIN": 2})
    state.apply_action(0, next(a for a in state.legal_actions(0) if state.describe_action(a)["kind"] == "build"))
    act(state, 0, "draw display WW")
    assert _known(state, 1, 0) == {"WW": 2, "UP": 1}
    # The boxed card is unseen: it may have been a known WW (or the UP), so one of each is
    # known less; the UP share taken is known.
    act(state, 0, "exchange WW")
    assert _known(state, 1, 0) == {"WW": 1, "UP": 1}
    assert {"type": "exchange", "seat": 0, "company": "WW"} in state.observation(0)["public_events"]
    assert {"type": "exchange", "seat": 0} in state.observation(1)["public_events"]
    _turn(state, 1, "draw up")
    _turn(state, 2, "draw up")
    # Investing two WW leaves none known (the known one may have been among them).
    set_share_hand(state, 0, {**share_hand(state, 0), "WW": 2})
    set_track_hand(state, 0, {"PLAIN": 4})
    act(state, 0, "invest 2 WW discard PLAIN")
    assert _known(state, 1, 0) == {"UP": 1}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(["standard", "pro"]))
def test_known_shares_never_claim_a_card_the_hand_does_not_hold(players: int, seed: int, variant: str) -> None:
    state = new_game(players, seed, variant)
    rng = random.Random(seed)
    while True:
        for viewer in range(players):
            known = state.observation(viewer)["known_shares"]
            assert set(known) == {str(s) for s in range(players) if s != viewer}
            for seat, shares in known.items():
                hand = state.hand_shares[int(seat)]
                assert all(hand[SHARE_CODES.index(c)] >= n > 0 for c, n in shares.items()), (seat, shares)
        if state.is_terminal():
            break
        seat = state.current_seats()[0]
        legal = state.legal_actions(seat)
        state.apply_action(seat, legal[int(rng.random() * len(legal))])


def test_the_memo_gives_what_a_fold_from_scratch_gives_and_clones_keep_their_own() -> None:
    state = started_game(4, seed=44)
    rng = random.Random(44)
    clones = []
    for step in range(200):
        if state.is_terminal():
            break
        if step % 37 == 0:
            clones.append(state.clone())
        seat = state.current_seats()[0]
        assert knowledge._known_counts(state) == tuple(map(tuple, knowledge.known_from_events(state.events)))
        legal = state.legal_actions(seat)
        state.apply_action(seat, legal[int(rng.random() * len(legal))])
    for clone in clones:
        twin_rng = random.Random(len(clone.events))
        for _ in range(30):
            if clone.is_terminal():
                break
            seat = clone.current_seats()[0]
            legal = clone.legal_actions(seat)
            clone.apply_action(seat, legal[int(twin_rng.random() * len(legal))])
            assert knowledge._known_counts(clone) == tuple(map(tuple, knowledge.known_from_events(clone.events)))
