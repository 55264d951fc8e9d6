"""Each rule of Ticket to Ride: Pennsylvania in a hand-made situation.

Section numbers (§) are those of shared/docs/ticket-to-ride-pennsylvania-rules.md,
which docs/rules-ticket-to-ride-pennsylvania.md summarises.
"""

from __future__ import annotations

import pytest

from arena.games.base import GameOverError, IllegalActionError, NotYourTurnError, Termination
from arena.games.ticket_to_ride_pennsylvania.actions import BLIND, PASS, SHARE_NONE, TAKE, TICKETS
from tests.games.ttr_scenario import (
    BOARD,
    KINDS,
    act,
    claims,
    company,
    give_route,
    hand,
    kind,
    new_game,
    payments,
    route,
    set_deck,
    set_discard,
    set_hand,
    set_row,
    set_ticket_deck,
    started,
    take_shares,
    ticket_deck_top_first,
)


def kinds_of(state) -> set[str]:
    return {state.describe_action(a)["kind"] for a in state.legal_actions(state.current)}


# -- set-up (§3) ----------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_deals_in_seat_order_from_the_shuffled_decks(players: int) -> None:
    state = new_game(players, seed=11)
    order = state.events[1]
    assert order["type"] == "shuffle" and order["pile"] == "train_cards" and len(order["order"]) == 110
    deals = [e for e in state.events if e["type"] == "deal"]
    assert [d["cards"] for d in deals] == [order["order"][4 * s:4 * s + 4] for s in range(players)]
    row = next(e for e in state.events if e["type"] == "row")["row"]
    assert row == order["order"][4 * players:4 * players + 5]
    tickets = next(e for e in state.events if e["type"] == "shuffle" and e["pile"] == "tickets")["order"]
    dealt = [e["tickets"] for e in state.events if e["type"] == "deal_tickets"]
    assert dealt == [tickets[5 * s:5 * s + 5] for s in range(players)]
    assert state.trains == [45] * players and state.route_points == [0] * players
    assert [sum(h) for h in state.hands] == [4] * players
    assert len(state.ticket_deck) == 50 - 5 * players
    if not any(e["type"] == "refresh" for e in state.events):
        assert len(state.deck) == 110 - 4 * players - 5
    assert state.current_seats() == tuple(range(players))
    assert all(state.decision_kind(s) == "initial_tickets" for s in range(players))


def test_setup_counts_match_the_components() -> None:
    state = new_game(4, seed=0)
    deck = [KINDS[c] for c in state.deck + state.row] + [KINDS[k] for h in state.hands for k, n in enumerate(h)
                                                          for _ in range(n)]
    assert len(deck) == 110
    assert deck.count("locomotive") == 14
    assert all(deck.count(colour) == 12 for colour in BOARD.colours)


# -- the initial ticket choice (§3.7, §15.28) ---------------------------------------------------

def test_initial_choice_keeps_three_to_five_of_five() -> None:
    state = new_game(3, seed=1)
    legal = state.legal_actions(0)
    assert len(legal) == 16 and all(bin(m).count("1") >= 3 for m in legal) and legal == sorted(legal)
    with pytest.raises(IllegalActionError, match="at least 3"):
        state.apply_action(0, 0b00011)


def test_initial_choice_is_simultaneous_and_secret_until_all_chose() -> None:
    state = new_game(3, seed=2)
    before = [state.observation(s) for s in (1, 2)]
    events = len(state.events)
    act(state, 0, "keep 0 1 2 3")
    assert state.current_seats() == (1, 2)
    assert len(state.events) == events  # nothing is written before all have chosen
    assert [state.observation(s) for s in (1, 2)] == before
    assert state.observation(0)["chosen_tickets"] == [BOARD.ticket_ids[t] for t in state.offers[0][:4]]
    with pytest.raises(NotYourTurnError):
        act(state, 0, "keep 0 1 2")
    act(state, 2, "keep 0 1 2 3 4")
    assert state.observation(1) == before[0]
    act(state, 1, "keep 2 3 4")
    assert state.current_seats() == (0,) and state.decision_kind(0) == "turn"
    assert [len(t) for t in state.tickets] == [4, 3, 5]
    reveal = next(e for e in state.events if e["type"] == "initial_tickets")
    seen = state.observation(1)["public_events"]
    view = next(e for e in seen if e["type"] == "initial_tickets")
    assert view == {"type": "initial_tickets", "kept_counts": {"0": 4, "1": 3, "2": 5},
                    "kept": reveal["kept"]["1"], "returned": reveal["returned"]["1"]}


def test_returned_initial_tickets_go_to_the_bottom_in_seat_order() -> None:
    state = new_game(3, seed=3)
    dealt = [[BOARD.ticket_ids[t] for t in offer] for offer in state.offers]
    top = ticket_deck_top_first(state)
    act(state, 1, "keep 1 2 3")  # returns its 0 and 4
    act(state, 0, "keep 0 1 2 3")  # returns its 4
    act(state, 2, "keep 0 1 2 3 4")
    assert ticket_deck_top_first(state) == top + [dealt[1][4], dealt[1][0], dealt[0][4]][::-1]


# -- drawing train cards (§5) -------------------------------------------------------------------

def test_a_face_up_locomotive_is_the_whole_draw() -> None:
    """§16.1, first half."""
    state = started(3)
    set_row(state, ["red", "red", "locomotive", "blue", "locomotive"])
    set_deck(state, ["green", "white", "black"])
    set_hand(state, 0, {})
    act(state, 0, "take locomotive")
    assert hand(state, 0) == {"locomotive": 1}
    assert state.current == 1 and state.decision_kind(1) == "turn"
    assert [KINDS[c] for c in state.row] == ["red", "red", "green", "blue", "locomotive"]


def test_a_refill_showing_a_third_locomotive_refreshes_before_the_second_card() -> None:
    """§16.1, second half."""
    state = started(3)
    set_row(state, ["red", "red", "locomotive", "blue", "locomotive"])
    set_deck(state, ["locomotive", "green", "white", "black", "yellow", "orange", "pink"])
    set_discard(state, [])
    act(state, 0, "take red")
    refresh = next(e for e in reversed(state.events) if e["type"] == "refresh")
    assert sorted(refresh["discarded"]) == sorted(["locomotive", "red", "locomotive", "blue", "locomotive"])
    assert [KINDS[c] for c in state.row] == ["green", "white", "black", "yellow", "orange"]
    assert state.decision_kind(0) == "second_card"
    legal = {state.action_to_string(a) for a in state.legal_actions(0)}
    assert legal == {"take green", "take white", "take black", "take yellow", "take orange", "draw blind"}


def test_the_second_card_is_never_a_face_up_locomotive_and_is_not_optional() -> None:
    state = started(3)
    set_row(state, ["red", "locomotive", "blue", "green", "white"])
    set_deck(state, ["locomotive", "black", "yellow"])
    act(state, 0, "take red")  # the refill shows a second locomotive: no refresh
    assert [KINDS[c] for c in state.row] == ["locomotive", "locomotive", "blue", "green", "white"]
    legal = state.legal_actions(0)
    assert TAKE + kind("locomotive") not in legal
    assert legal == [TAKE + kind("white"), TAKE + kind("blue"), TAKE + kind("green"), BLIND]
    assert PASS not in legal and SHARE_NONE not in legal
    with pytest.raises(IllegalActionError):
        act(state, 0, "take locomotive")


def test_a_blind_locomotive_is_an_ordinary_first_card() -> None:
    state = started(3)
    set_row(state, ["red", "blue", "green", "white", "black"])
    set_deck(state, ["locomotive", "yellow"])
    set_hand(state, 0, {})
    act(state, 0, "draw blind")
    assert state.decision_kind(0) == "second_card"
    act(state, 0, "draw blind")
    assert hand(state, 0) == {"locomotive": 1, "yellow": 1} and state.current == 1


def test_taking_a_colour_takes_the_lowest_slot_and_refills_it() -> None:
    state = started(3)
    set_row(state, ["blue", "red", "green", "red", "white"])
    set_deck(state, ["black", "yellow", "pink"])
    act(state, 0, "take red")
    take = next(e for e in reversed(state.events) if e["type"] == "take")
    assert take == {"type": "take", "seat": 0, "slot": 1, "card": "red"}
    assert [KINDS[c] for c in state.row] == ["blue", "black", "green", "red", "white"]


def test_no_second_card_when_none_exists_ends_the_draw_with_one() -> None:
    state = started(3)
    set_row(state, ["red", "locomotive", "locomotive", None, None])
    set_deck(state, [])
    set_discard(state, [])
    set_hand(state, 0, {})
    act(state, 0, "take red")
    assert hand(state, 0) == {"red": 1} and state.current == 1
    assert any(e == {"type": "no_second_card", "seat": 0} for e in state.events)


def test_the_discard_pile_is_reshuffled_only_when_a_card_is_needed() -> None:
    state = started(3)
    set_row(state, ["red", "blue", "green", "white", "black"])
    set_deck(state, [])
    set_discard(state, ["yellow", "yellow", "pink"])
    act(state, 0, "take red")  # the refill needs a card: the discard pile becomes the deck
    shuffles = [e for e in state.events if e["type"] == "reshuffle"]
    assert len(shuffles) == 1 and sorted(shuffles[0]["order"]) == ["pink", "yellow", "yellow"]
    assert state.discard == [] and len(state.deck) == 2
    act(state, 0, "draw blind")
    act(state, 1, "draw blind")
    act(state, 1, "take blue")  # the refill finds deck and discard empty: the slot stays empty
    assert state.deck == [] and state.row.count(-1) == 1


def test_an_empty_slot_is_filled_at_the_end_of_a_turn_once_cards_were_discarded() -> None:
    state = started(3)
    set_row(state, ["red", "blue", "green", "white", None])
    set_deck(state, [])
    set_discard(state, [])
    set_hand(state, 0, {"red": 3})
    act(state, 0, "claim R07 allentown-philadelphia 3 red")
    act(state, 0, "share PRR")
    assert [KINDS[c] for c in state.row] == ["red", "blue", "green", "white", "red"]
    assert len(state.discard) == 0 and len(state.deck) == 2


def test_no_refresh_when_fewer_than_three_other_cards_remain() -> None:
    state = started(3)
    set_row(state, ["locomotive", "locomotive", "locomotive", "red", None])
    set_deck(state, ["locomotive"])
    set_discard(state, ["blue"])
    set_hand(state, 0, {"green": 1})
    act(state, 0, "take red")  # refill: a 4th locomotive; others left: blue only
    assert not any(e["type"] == "refresh" for e in state.events[-4:])
    assert state.row.count(kind("locomotive")) == 4


def test_a_skipped_refresh_happens_at_the_end_of_the_turn_that_makes_it_possible() -> None:
    """§15.27: a claim's payment brings non-locomotives back; the end of the turn refreshes."""
    state = started(3)
    set_row(state, ["locomotive", "locomotive", "locomotive", "green", "blue"])
    set_deck(state, [])
    set_discard(state, [])
    state._three_locomotives()
    assert state.row.count(kind("locomotive")) == 3  # only 2 non-locomotives anywhere: no refresh
    set_hand(state, 0, {"red": 3})
    act(state, 0, "claim R07 allentown-philadelphia 3 red")
    assert state.row.count(kind("locomotive")) == 3 and state.decision_kind(0) == "share"
    claimed_at = len(state.events)
    act(state, 0, "share PRR")
    refresh = next(e for e in state.events[claimed_at:] if e["type"] == "refresh")
    assert sorted(refresh["discarded"]) == ["blue", "green", "locomotive", "locomotive", "locomotive"]
    assert state.row.count(kind("locomotive")) < 3


def test_the_draw_card_actions_are_offered_only_when_a_card_can_be_taken() -> None:
    state = started(3)
    set_row(state, [None] * 5)
    set_deck(state, [])
    set_discard(state, [])
    assert "take" not in kinds_of(state) and "blind" not in kinds_of(state)
    set_discard(state, ["red"])
    assert "blind" in kinds_of(state)


# -- claiming routes (§6) -----------------------------------------------------------------------

def test_payments_of_the_worked_example() -> None:
    """§16.2: hand 3 red, 2 blue, 2 locomotives."""
    state = started(4)
    set_hand(state, 0, {"red": 3, "blue": 2, "locomotive": 2})
    assert payments(state, 0, "R07") == {("red", 0), ("red", 1), ("red", 2)}
    assert payments(state, 0, "R33") == {("red", 1), ("red", 2), ("blue", 2)}
    assert payments(state, 0, "R59") == {("red", 2), ("blue", 2)}
    assert payments(state, 0, "R39") == {(None, 1)}
    assert claims(state, 0, "R07") == ["claim R07 allentown-philadelphia 3 red",
                                       "claim R07 allentown-philadelphia 2 red + 1 locomotive",
                                       "claim R07 allentown-philadelphia 1 red + 2 locomotives"]


def test_all_locomotives_pay_any_route() -> None:
    state = started(4)
    set_hand(state, 0, {"locomotive": 3})
    assert payments(state, 0, "R07") == {(None, 3)}
    assert payments(state, 0, "R59") == {(None, 3)}
    assert payments(state, 0, "R33") == set()


def test_claiming_pays_discards_moves_trains_and_scores() -> None:
    state = started(3)
    set_hand(state, 0, {"red": 3, "locomotive": 2})
    set_discard(state, [])
    act(state, 0, "claim R07 allentown-philadelphia 2 red + 1 locomotive")
    assert hand(state, 0) == {"red": 1, "locomotive": 1}
    assert sorted(KINDS[c] for c in state.discard) == ["locomotive", "red", "red"]
    assert state.trains[0] == 42 and state.route_points[0] == 4 and state.owner[route("R07")] == 0
    claim = next(e for e in reversed(state.events) if e["type"] == "claim")
    assert claim == {"type": "claim", "seat": 0, "route": "R07", "colour": "red", "locomotives": 1,
                     "cards": ["red", "red", "locomotive"], "points": 4, "trains_left": 42}
    assert state.decision_kind(0) == "share"


@pytest.mark.parametrize("length,points", [(1, 1), (2, 2), (3, 4), (4, 7), (5, 10), (6, 15), (7, 18)])
def test_route_points_by_length(length: int, points: int) -> None:
    assert BOARD.route_points[length] == points


def test_the_seven_long_route_scores_eighteen() -> None:
    state = started(3)
    set_hand(state, 0, {"blue": 7})
    act(state, 0, "claim R22 baltimore-cumberland 7 blue")
    assert state.route_points[0] == 18 and state.trains[0] == 38


@pytest.mark.parametrize("players", [2, 3])
def test_with_two_or_three_players_only_one_route_of_a_double_is_used(players: int) -> None:
    state = started(players)
    give_route(state, 1, "R06")
    set_hand(state, 0, {"red": 3})
    assert payments(state, 0, "R07") == set()
    action = state.table.claim_id(route("R07"), kind("red"), 0)
    with pytest.raises(IllegalActionError, match="only one route of a double"):
        state.apply_action(0, action)


@pytest.mark.parametrize("players", [4, 5])
def test_with_four_or_five_players_each_route_of_a_double_has_its_own_owner(players: int) -> None:
    state = started(players)
    set_hand(state, 0, {"red": 3})
    give_route(state, 1, "R06")
    assert payments(state, 0, "R07") == {("red", 0)}
    state.owner[route("R06")] = 0
    assert payments(state, 0, "R07") == set()  # never both routes of a pair


def test_a_claim_needs_enough_trains() -> None:
    state = started(3)
    set_hand(state, 0, {"red": 3})
    state.trains[0] = 2
    assert payments(state, 0, "R07") == set()
    state.trains[0] = 3
    assert payments(state, 0, "R07") == {("red", 0)}


def test_a_claimed_route_is_gone_for_everybody() -> None:
    state = started(4)
    set_hand(state, 0, {"red": 3})
    set_hand(state, 1, {"red": 3})
    act(state, 0, "claim R07 allentown-philadelphia 3 red")
    act(state, 0, "share RDG")
    assert payments(state, 1, "R07") == set()


# -- shares (§7, §11) ---------------------------------------------------------------------------

def test_the_share_offer_of_the_rulebook_example() -> None:
    """§16.3: Oil City-Warren offers PRR, B&O and EL; an empty pile drops out."""
    state = started(3)
    set_hand(state, 0, {"orange": 2})
    act(state, 0, "claim R83 oil_city-warren 2 orange")
    assert [state.action_to_string(a) for a in state.legal_actions(0)] == [
        "share none", "share PRR", "share BO", "share EL"]
    assert state.observation(0)["share_offer"] == ["PRR", "BO", "EL"]
    state2 = started(3)
    take_shares(state2, 2, "EL", 8)
    set_hand(state2, 0, {"orange": 2})
    act(state2, 0, "claim R83 oil_city-warren 2 orange")
    assert [state2.action_to_string(a) for a in state2.legal_actions(0)] == ["share none", "share PRR", "share BO"]


def test_a_route_without_companies_gives_no_share() -> None:
    state = started(3)
    set_hand(state, 0, {"pink": 6})
    act(state, 0, "claim R01 albany-binghamton 6 pink")
    assert state.current == 1 and state.decision_kind(1) == "turn"


def test_shares_come_off_the_top_of_the_sorted_pile() -> None:
    state = started(3)
    take_shares(state, 1, "PRR", 2)
    set_hand(state, 0, {"orange": 2})
    act(state, 0, "claim R83 oil_city-warren 2 orange")
    act(state, 0, "share PRR")
    assert state.shares[0][company("PRR")] == [3]
    assert state.events[-2] == {"type": "share", "seat": 0, "company": "PRR", "number": 3}
    assert state.observation(2)["share_piles"]["PRR"] == {"left": 12, "top": 4}
    assert state.observation(2)["players"][0]["shares"] == {"PRR": [3]}


def test_declining_a_share_is_allowed_and_recorded() -> None:
    state = started(3)
    set_hand(state, 0, {"orange": 2})
    act(state, 0, "claim R83 oil_city-warren 2 orange")
    act(state, 0, "share none")
    assert state.taken == [0] * 9 and state.current == 1
    assert {"type": "share", "seat": 0, "company": None, "number": None} in state.events


def test_two_players_choose_a_share_for_the_neutral_from_the_same_offer() -> None:
    state = started(2)
    take_shares(state, 1, "BO", 9)  # one B&O share left
    set_hand(state, 0, {"orange": 2})
    act(state, 0, "claim R83 oil_city-warren 2 orange")
    act(state, 0, "share BO")
    assert state.decision_kind(0) == "neutral_share"
    assert [state.action_to_string(a) for a in state.legal_actions(0)] == ["neutral share PRR", "neutral share EL"]
    act(state, 0, "neutral share PRR")
    assert state.shares[2][company("PRR")] == [1] and state.neutral_pile == [(company("PRR"), 1)]
    assert state.observation(1)["neutral"] == {"shares": {"PRR": [1]}}
    assert state.current == 1


def test_the_neutral_may_get_the_next_share_of_the_same_company() -> None:
    state = started(2)
    set_hand(state, 0, {"yellow": 1})
    act(state, 0, "claim R15 altoona-johnstown 1 yellow")  # PRR only
    act(state, 0, "share PRR")
    assert [state.action_to_string(a) for a in state.legal_actions(0)] == ["neutral share PRR"]
    act(state, 0, "neutral share PRR")
    assert state.shares[0][company("PRR")] == [1] and state.shares[2][company("PRR")] == [2]


def test_the_neutral_gets_nothing_when_the_offer_is_empty_or_the_seat_declined() -> None:
    state = started(2)
    take_shares(state, 1, "BRP", 1)
    set_hand(state, 0, {"yellow": 5})
    act(state, 0, "claim R36 buffalo-rochester 5 yellow")
    take_shares(state, 1, "BO", 10)
    take_shares(state, 1, "EL", 8)
    take_shares(state, 1, "LV", 6)
    take_shares(state, 1, "NYC", 5)
    act(state, 0, "share BRP")  # the last BRP share; the others' piles are empty: no neutral share
    assert state.current == 1 and state.shares[2] == [[] for _ in range(9)]
    state = started(2)
    set_hand(state, 0, {"yellow": 1})
    act(state, 0, "claim R15 altoona-johnstown 1 yellow")
    act(state, 0, "share none")
    assert state.current == 1 and state.neutral_pile == []


def test_there_is_no_neutral_with_three_players() -> None:
    state = started(3)
    set_hand(state, 0, {"yellow": 1})
    act(state, 0, "claim R15 altoona-johnstown 1 yellow")
    act(state, 0, "share PRR")
    assert state.current == 1 and state.observation(0)["neutral"] is None


# -- destination tickets (§8) -------------------------------------------------------------------

def test_drawing_tickets_keeps_at_least_one_of_four_and_returns_the_rest_to_the_bottom() -> None:
    state = started(3)
    set_ticket_deck(state, ["T01", "T02", "T03", "T04", "T05", "T06"])
    act(state, 0, "draw tickets")
    assert state.decision_kind(0) == "keep_tickets"
    assert state.observation(0)["offered_tickets"] == ["T01", "T02", "T03", "T04"]
    assert state.observation(1)["offered_tickets"] == []
    legal = state.legal_actions(0)
    assert len(legal) == 15 and 0 not in legal
    act(state, 0, "keep 1 3")
    assert [BOARD.ticket_ids[t] for t in state.tickets[0][-2:]] == ["T02", "T04"]
    assert ticket_deck_top_first(state) == ["T05", "T06", "T01", "T03"]  # T03 returned last: the bottom card
    assert state.current == 1


def test_fewer_than_four_tickets_draws_them_all_and_an_empty_deck_forbids_drawing() -> None:
    state = started(3)
    set_ticket_deck(state, ["T07", "T08"])
    act(state, 0, "draw tickets")
    assert state.observation(0)["offered_tickets"] == ["T07", "T08"]
    assert state.legal_actions(0) == [1, 2, 3]
    act(state, 0, "keep 0 1")
    assert state.ticket_deck == [] and TICKETS not in state.legal_actions(1)


# -- passing and the end (§4, §9) ---------------------------------------------------------------

def _nothing_to_do(state) -> None:
    set_row(state, [None] * 5)
    set_deck(state, [])
    set_discard(state, [])
    set_ticket_deck(state, [])
    for seat in range(state.num_players):
        set_hand(state, seat, {})


def test_pass_only_when_nothing_else_is_legal_and_n_passes_end_the_game() -> None:
    state = started(3)
    assert PASS not in state.legal_actions(0)
    _nothing_to_do(state)
    for seat in range(3):
        assert [state.legal_actions(s) for s in range(3)] == [[PASS] if s == seat else [] for s in range(3)]
        act(state, seat, "pass")
    assert state.is_terminal() and state.outcome().termination is Termination.STALEMATE
    assert {"type": "deadlock", "passes": 3} in state.events


def test_a_non_pass_turn_resets_the_pass_count() -> None:
    state = started(3)
    _nothing_to_do(state)
    act(state, 0, "pass")
    act(state, 1, "pass")
    set_hand(state, 2, {"yellow": 1})
    act(state, 2, "claim R15 altoona-johnstown 1 yellow")
    set_discard(state, [])  # the paid card would otherwise refill the row at the end of the turn
    act(state, 2, "share PRR")
    act(state, 0, "pass")
    act(state, 1, "pass")
    assert not state.is_terminal()
    set_hand(state, 2, {})
    act(state, 2, "pass")
    assert state.is_terminal()


def test_the_final_round_of_the_worked_example() -> None:
    """§16.7: seat 1 is left with 2 trains; seats 2, 0 and 1 play once more, then the game ends."""
    state = started(3)
    act(state, 0, "draw blind")
    act(state, 0, "draw blind")
    state.trains[1] = 4
    set_hand(state, 1, {"orange": 2})
    act(state, 1, "claim R83 oil_city-warren 2 orange")
    act(state, 1, "share PRR")
    assert state.events[-2] == {"type": "final_round", "trigger_seat": 1, "trains": 2}
    assert state.observation(0)["final_round"] == {"trigger_seat": 1, "turns_left": 3}
    for seat in (2, 0, 1):
        assert state.current_seats() == (seat,)
        act(state, seat, "draw blind")
        act(state, seat, "draw blind")
    assert state.is_terminal() and state.outcome().termination is Termination.NORMAL
    assert [e["seat"] for e in state.events if e["type"] == "turn"][-4:] == [1, 2, 0, 1]


def test_trains_falling_during_the_final_round_change_nothing() -> None:
    state = started(2)
    state.trains = [3, 3]
    set_hand(state, 0, {"yellow": 1})
    set_hand(state, 1, {"pink": 1})
    act(state, 0, "claim R15 altoona-johnstown 1 yellow")
    act(state, 0, "share none")
    assert state.trigger_seat == 0 and state.final_left == 2
    act(state, 1, "claim R74 lancaster-york 1 pink")  # seat 1 falls to 2 trains too
    act(state, 1, "share none")
    assert state.trigger_seat == 0 and state.final_left == 1
    assert [e["type"] for e in state.events].count("final_round") == 1
    act(state, 0, "draw blind")
    act(state, 0, "draw blind")
    assert state.is_terminal()


def test_the_last_final_turn_that_is_also_the_nth_pass_ends_normally() -> None:
    """§15.31."""
    state = started(2)
    _nothing_to_do(state)
    state.trains[0] = 3
    set_hand(state, 0, {"yellow": 1})
    act(state, 0, "claim R15 altoona-johnstown 1 yellow")
    set_discard(state, [])
    act(state, 0, "share none")
    assert state.trigger_seat == 0
    act(state, 1, "pass")
    act(state, 0, "pass")
    assert state.is_terminal() and state.outcome().termination is Termination.NORMAL
    assert not any(e["type"] == "deadlock" for e in state.events)


def test_drawing_tickets_is_allowed_in_the_final_round() -> None:
    state = started(2)
    state.final_left, state.trigger_seat = 2, 1
    assert TICKETS in state.legal_actions(0)


# -- errors -------------------------------------------------------------------------------------

def test_bad_actions_are_refused_with_clear_errors() -> None:
    state = started(3)
    with pytest.raises(NotYourTurnError, match="seat 0's decision"):
        act(state, 1, "draw blind")
    with pytest.raises(IllegalActionError, match="not an action id"):
        state.apply_action(0, True)
    with pytest.raises(IllegalActionError, match="not an action id"):
        state.apply_action(0, 10**6)
    with pytest.raises(IllegalActionError, match="not legal now"):
        act(state, 0, "share PRR")
    set_hand(state, 0, {"red": 1})
    with pytest.raises(IllegalActionError, match="holds 1 red cards, the payment needs 3"):
        act(state, 0, "claim R07 allentown-philadelphia 3 red")
    with pytest.raises(IllegalActionError, match="not a Ticket to Ride"):
        state.string_to_action("build EPRG")


def test_nothing_can_be_applied_after_the_end() -> None:
    state = started(2)
    _nothing_to_do(state)
    act(state, 0, "pass")
    act(state, 1, "pass")
    with pytest.raises(GameOverError):
        act(state, 0, "pass")
    assert state.legal_actions(0) == [] and state.current_seats() == ()


def test_the_game_refuses_bad_table_sizes_variants_and_seeds() -> None:
    for players in (1, 6, True):
        with pytest.raises(ValueError, match="2 to 5 players"):
            new_game(players)
    from tests.games.ttr_scenario import GAME
    with pytest.raises(ValueError, match="unknown variant"):
        GAME.new_state(3, 0, "pro")
    with pytest.raises(ValueError, match="seed"):
        GAME.new_state(3, "x")  # type: ignore[arg-type]
