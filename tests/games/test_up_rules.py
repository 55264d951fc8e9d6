"""Rule scenarios for the Union Pacific engine, one rule of docs/union-pacific-rules.md at a time.

Positions are set up by editing a state's fields (tests/games/scenario.py); the
rules section each test checks is named in its docstring or name.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from arena.games.base import IMAGINARY, GameOverError, IllegalActionError, NotYourTurnError, Termination
from arena.games.union_pacific.board import COMPANIES, PUBLISHED_TRAINS
from tests.games.scenario import (
    BOARD,
    GAME,
    act,
    block_all_builds,
    clear_investments,
    events_of,
    first_invest_all,
    hidden_view,
    legal_texts,
    new_game,
    put_train,
    rig_setup_display,
    section,
    set_cash,
    set_display,
    set_dividends_paid,
    set_invested,
    set_share_hand,
    set_supply,
    set_track_discards,
    set_track_hand,
    set_up_stack,
    share_census,
    share_deck_top_down,
    share_hand,
    skipped_draw_game,
    stack_share_deck,
    stack_track_deck,
    stalemate_game,
    started_game,
)

ALL_FOUR = {"PLAIN": 1, "COAST": 1, "BORDER": 1, "MOUNTAIN": 1}


def _snapshot(state) -> str:
    """Everything about a state, to check that an illegal action changed nothing."""
    return json.dumps({
        "obs": [state.observation(s) for s in range(state.num_players)],
        "events": state.events, "history": state.history, "hidden": hidden_view(state),
    }, sort_keys=True, default=str)


def _index(state, kind: str, **match) -> int:
    """Position in the event log of the first event of ``kind`` matching ``match``."""
    for i, e in enumerate(state.events):
        if e["type"] == kind and all(e.get(k) == v for k, v in match.items()):
            return i
    raise AssertionError(f"no {kind} event matching {match}")


def _built(state, up_stack: int = 0) -> int:
    """The seat to move builds DM on Denver-El Paso, with ``up_stack`` UP shares left; returns the seat."""
    [seat] = state.current_seats()
    set_track_hand(state, seat, ALL_FOUR)
    set_up_stack(state, up_stack)
    act(state, seat, "build DM Denver-El Paso MOUNTAIN")
    assert state.decision_kind(seat) == "draw_share"
    return seat


def _dividends(state) -> list[dict]:
    return events_of(state, "dividend")


# -- §3 setup --------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_setup_trains_values_cards_and_shares(players: int) -> None:
    state = new_game(players, seed=players)
    for seat in range(players):
        obs = state.observation(seat)
        assert obs["decision"] == "first_invest" and obs["current_seat"] is None
        assert sum(obs["hand"]["track"].values()) == 3
        shares = obs["hand"]["shares"]
        assert shares.get("UP") == 1 and sum(shares.values()) == 5
        assert all(p["invested"] == {} and p["cash"] == 0 and p["hand_shares"] == 5 and p["hand_track"] == 3
                   for p in obs["players"])
    obs = state.observation(0)
    assert obs["up_stack"] == 20 - players
    assert obs["track_deck"] == 40 - 3 * players
    for c, company in enumerate(obs["companies"]):
        starts = 2 if company["code"] == "EPRG" else 1
        assert company["trains_on_board"] == starts and company["value"] == starts + 1
        assert company["supply"] == PUBLISHED_TRAINS[company["code"]] - starts
        assert company["sections"] == sorted(BOARD.company_start[c])
    assert state.current_seats() == tuple(range(players))


def test_the_first_investment_is_simultaneous() -> None:
    """§3.4: picks stay hidden until every seat has picked, then all are revealed at once."""
    state = new_game(3, seed=7)
    before = [state.observation(s) for s in range(3)]
    pick = state.legal_actions(1)[-1]
    state.apply_action(1, pick)
    code = state.action_to_string(pick).split()[-1]
    assert state.observation(0) == before[0] and state.observation(2) == before[2]
    mine = state.observation(1)
    assert mine["pending_first_investment"] == code and mine["decision"] == "none"
    assert mine["players"][1]["invested"] == {} and mine["hand"] == before[1]["hand"]
    assert state.current_seats() == (0, 2) and state.legal_actions(1) == []
    assert events_of(state, "first_investment") == []
    with pytest.raises(NotYourTurnError, match="already chosen"):
        state.apply_action(1, pick)
    state.apply_action(2, state.legal_actions(2)[0])
    assert state.observation(0) == before[0]
    state.apply_action(0, state.legal_actions(0)[0])
    picks = events_of(state, "first_investment")[0]["picks"]
    assert picks["1"] == code
    for seat in range(3):
        obs = state.observation(seat)
        assert obs["pending_first_investment"] is None
        assert [p["invested"] for p in obs["players"]] == [{picks[str(s)]: 1} for s in range(3)]
        assert sum(obs["hand"]["shares"].values()) == 4
    assert state.current_seats() == (0,) and state.decision_kind(0) == "main"


def test_the_order_of_the_picks_does_not_matter() -> None:
    one, other = new_game(4, seed=3), new_game(4, seed=3)
    picks = {s: one.action_to_string(one.legal_actions(s)[-1]).split()[-1] for s in range(4)}
    for seat in (0, 1, 2, 3):
        act(one, seat, f"first-invest {picks[seat]}")
    for seat in (3, 1, 0, 2):
        act(other, seat, f"first-invest {picks[seat]}")
    assert one.events == other.events and one.observation(2) == other.observation(2)


def test_a_first_investment_must_be_a_share_in_hand() -> None:
    state = new_game(3, seed=1)
    missing = next(c for c in COMPANIES if c not in share_hand(state, 0))
    with pytest.raises(IllegalActionError, match=f"holds no {missing} share"):
        act(state, 0, f"first-invest {missing}")


def test_up_may_be_the_first_investment() -> None:
    state = new_game(2, seed=2)
    first_invest_all(state, {0: "UP", 1: "UP"})
    assert [p["invested"] for p in state.observation(0)["players"]] == [{"UP": 1}, {"UP": 1}]


def test_setup_turns_up_a_display_of_four() -> None:
    for seed in range(10):
        state = started_game(4, seed)
        display = state.observation(0)["display"]
        assert len(display) == 4 and len(set(display)) > 1


def test_four_of_a_kind_at_setup_is_boxed_and_replaced_repeatedly() -> None:
    """§3.5 with §5.4: the rule applies to the setup display too, while it holds."""
    state = new_game(2, seed=4)
    rig_setup_display(state, ["EPRG"] * 4 + ["BNL"] * 4 + ["MS", "DM", "KCC", "WW"])
    first_invest_all(state)
    obs = state.observation(0)
    assert obs["boxed_four_of_a_kind"] == {"EPRG": 4, "BNL": 4}
    assert sorted(obs["display"]) == sorted(["MS", "DM", "KCC", "WW"])
    assert obs["share_deck"] == 98 - 8 - 12 + 4
    assert [e["company"] for e in events_of(state, "four_of_a_kind")] == ["EPRG", "BNL"]


# -- §3.6 the share deck --------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_standard_share_deck_layout(players: int, seed: int) -> None:
    state = started_game(players, seed)
    deck = share_deck_top_down(state)
    boxed = sum(state.observation(0)["boxed_four_of_a_kind"].values())
    assert len(deck) == 98 - 4 * players - 4 - boxed + 4
    assert "DIVIDEND" not in deck[:6]
    assert deck[6:25].count("DIVIDEND") == 1
    assert deck[25:].count("DIVIDEND") == 3


def test_standard_dividend_cards_are_shuffled_in() -> None:
    firsts, lasts = set(), set()
    for seed in range(20):
        deck = share_deck_top_down(started_game(4, seed))
        positions = [i for i, c in enumerate(deck) if c == "DIVIDEND"]
        firsts.add(positions[0])
        lasts.add(positions[-1])
    assert len(firsts) > 3 and len(lasts) > 3


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pro_share_deck_layout(players: int, seed: int) -> None:
    """§3.6 pro: from the top 6, big, 6, big, 6, big, 6, big; big piles as equal as possible,
    the larger lower down; one dividend card in each big pile."""
    state = started_game(players, seed, "pro")
    deck = share_deck_top_down(state)
    shares = len(deck) - 4
    boxed = sum(state.observation(0)["boxed_four_of_a_kind"].values())
    assert shares == 98 - 4 * players - 4 - boxed
    q, r = divmod(shares - 24, 4)
    bigs = [q] * (4 - r) + [q + 1] * r
    at = 0
    for big in bigs:
        assert "DIVIDEND" not in deck[at:at + 6], f"a six-card pile at {at} holds a dividend card"
        at += 6
        assert deck[at:at + big + 1].count("DIVIDEND") == 1, f"the big pile at {at} needs one dividend card"
        at += big + 1
    assert at == len(deck)


# -- §4 a turn -----------------------------------------------------------------------


def test_each_turn_starts_with_the_top_track_card() -> None:
    state = new_game(3, seed=5)
    stack_track_deck(state, ["COAST", "MOUNTAIN", "WILD"])
    hand0 = Counter(state.observation(0)["hand"]["track"])
    hand1 = Counter(state.observation(1)["hand"]["track"])
    first_invest_all(state)
    obs = state.observation(0)
    assert Counter(obs["hand"]["track"]) == hand0 + Counter({"COAST": 1})
    assert obs["track_deck"] == 2 and obs["turn"] == 1
    assert [p["hand_track"] for p in obs["players"]] == [4, 3, 3]
    set_share_hand(state, 0, {"DM": 1})
    act(state, 0, f"invest 1 DM discard {next(iter(obs['hand']['track']))}")
    assert Counter(state.observation(1)["hand"]["track"]) == hand1 + Counter({"MOUNTAIN": 1})
    assert state.observation(1)["turn"] == 2


def test_the_draw_that_takes_the_last_track_card_reshuffles_the_discards_at_once() -> None:
    """§4.1 (all three rulebooks: "when the last card is drawn"): the reshuffle comes with
    the draw that empties the deck, not with the next draw; so the card the drawer
    discards later in that turn starts the new discard pile and is not in the new deck."""
    state = started_game(3, seed=6)
    stack_track_deck(state, ["COAST"])  # seat 1 will draw the last card
    set_track_discards(state, {"MOUNTAIN": 5})
    set_track_hand(state, 0, {"PLAIN": 4})
    set_share_hand(state, 0, {"DM": 1})
    act(state, 0, "invest 1 DM discard PLAIN")  # the discards: 5 MOUNTAIN, 1 PLAIN
    assert [e["type"] for e in state.events[-2:]] == ["turn", "reshuffle"]
    assert state.events[-2]["seat"] == 1 and state.events[-2]["track_card"] == "COAST"
    assert state.events[-1]["cards"] == 6
    obs = state.observation(1)
    assert obs["track_deck"] == 6
    assert obs["track_discards"] == {"PLAIN": 0, "COAST": 0, "BORDER": 0, "MOUNTAIN": 0, "WILD": 0}
    assert obs["hand"]["track"].get("COAST", 0) >= 1
    set_track_hand(state, 1, {"WILD": 4})
    set_share_hand(state, 1, {"DM": 1})
    act(state, 1, "invest 1 DM discard WILD")
    obs = state.observation(2)
    assert obs["track_discards"]["WILD"] == 1 and sum(obs["track_discards"].values()) == 1  # the new pile
    assert obs["track_deck"] == 5  # seat 2 drew from the new deck: no second reshuffle
    assert len(events_of(state, "reshuffle")) == 1
    # Every seat sees the reshuffle among its public events, right after the turn's draw.
    seen = obs["public_events"]
    i = seen.index({"type": "reshuffle", "cards": 6})
    assert seen[i - 1] == {"type": "turn", "turn": 2, "seat": 1}  # seat 1's card is hidden from seat 2


# -- §5.2 build legality ----------------------------------------------------------------

#: (legal build, the same build with one condition of §5.2 broken, how, message)
BUILD_VIOLATIONS = [
    ("build DM Denver-El Paso MOUNTAIN", "build DM Denver-El Paso MOUNTAIN", "fill", r"Denver-El Paso has no empty neutral space"),
    ("build DM Denver-El Paso MOUNTAIN", "build DM Denver-El Paso PLAIN", None, r"Denver-El Paso is MOUNTAIN track"),
    ("build ESL Washington-New York COAST", "build ESL Detroit-New York PLAIN", None, r"ESL may not use PLAIN track"),
    ("build BNL Calgary-Billings MOUNTAIN", "build BNL Billings-Casper MOUNTAIN", None, r"BNL already has a train on Billings-Casper"),
    ("build DM Denver-El Paso MOUNTAIN", "build DM Boise-Portland MOUNTAIN", None, r"Boise-Portland does not touch DM's network"),
    ("build DM Denver-El Paso MOUNTAIN", "build DM Denver-El Paso MOUNTAIN", "supply", r"DM has no train left"),
    ("build DM Denver-El Paso MOUNTAIN", "build DM Denver-El Paso MOUNTAIN", "no card", r"seat 0 holds no MOUNTAIN card"),
]


@pytest.mark.parametrize("legal,illegal,how,message", BUILD_VIOLATIONS,
                         ids=["section full", "wrong card type", "type not allowed", "train already there",
                              "not connected", "no train left", "card not held"])
def test_each_build_condition_violated_alone_is_refused(legal: str, illegal: str, how: str | None, message: str) -> None:
    """§5.2: each condition, broken alone, makes the build illegal with a message naming it."""
    state = started_game(3, seed=8)
    set_track_hand(state, 0, ALL_FOUR)
    assert legal in legal_texts(state, 0)
    if how == "fill":
        put_train(state, "EPRG", "Denver", "El Paso")
        put_train(state, "WW", "Denver", "El Paso")
    elif how == "supply":
        set_supply(state, "DM", 0)
    elif how == "no card":
        set_track_hand(state, 0, {"PLAIN": 2, "COAST": 1, "BORDER": 1})
    assert illegal not in legal_texts(state, 0)
    before = _snapshot(state)
    with pytest.raises(IllegalActionError, match=message):
        act(state, 0, illegal)
    assert _snapshot(state) == before


def test_a_legal_build_places_a_train_discards_the_card_and_asks_for_a_share() -> None:
    state = started_game(3, seed=8)
    set_track_hand(state, 0, {"MOUNTAIN": 2, "PLAIN": 2})
    act(state, 0, "build DM Denver-El Paso MOUNTAIN")
    obs = state.observation(0)
    dm = obs["companies"][COMPANIES.index("DM")]
    assert section("Denver", "El Paso") in dm["sections"]
    assert dm["trains_on_board"] == 2 and dm["value"] == 3 and dm["supply"] == PUBLISHED_TRAINS["DM"] - 2
    assert obs["hand"]["track"] == {"MOUNTAIN": 1, "PLAIN": 2} and obs["track_discards"]["MOUNTAIN"] == 1
    assert obs["free_spaces"][section("Denver", "El Paso")] == 1
    assert obs["decision"] == "draw_share" and obs["current_seat"] == 0


def test_a_wild_card_matches_every_type() -> None:
    state = started_game(3, seed=8)
    set_track_hand(state, 0, {"WILD": 1, "PLAIN": 3})
    wild = {t.rsplit(" ", 1)[0] for t in legal_texts(state, 0) if t.startswith("build") and t.endswith("WILD")}
    set_track_hand(state, 0, ALL_FOUR)
    typed = {t.rsplit(" ", 1)[0] for t in legal_texts(state, 0) if t.startswith("build")}
    assert wild == typed and len(wild) > 10
    assert "build DM Denver-El Paso" in wild and "build EPRG El Paso-Chihuahua" in wild
    set_track_hand(state, 0, {"WILD": 1, "PLAIN": 3})
    act(state, 0, "build EPRG El Paso-Chihuahua WILD")
    assert state.observation(0)["track_discards"]["WILD"] == 1


def test_a_build_extends_the_network_to_the_far_city() -> None:
    state = started_game(3, seed=8)
    set_track_hand(state, 0, {"MOUNTAIN": 4})
    assert "build DM Phoenix-El Paso MOUNTAIN" not in legal_texts(state, 0)
    _built(state)
    act(state, 0, "draw deck")
    set_track_hand(state, 1, {"MOUNTAIN": 4})
    assert "build DM Phoenix-El Paso MOUNTAIN" in legal_texts(state, 1)


def test_anyone_may_build_for_any_company() -> None:
    state = started_game(3, seed=8)
    clear_investments(state)
    set_share_hand(state, 0, {})
    set_track_hand(state, 0, ALL_FOUR)
    companies = {t.split()[1] for t in legal_texts(state, 0) if t.startswith("build")}
    assert companies == set(COMPANIES)


# -- §5.3 drawing a share -------------------------------------------------------------


def test_drawing_from_the_display_refills_the_same_place_from_the_deck_top() -> None:
    state = started_game(3, seed=9)
    seat = _built(state)
    set_display(state, ["DM", "WW", "BNL", "MS"])
    stack_share_deck(state, ["KCC", "ESL"])
    hand = Counter(share_hand(state, seat))
    assert set(legal_texts(state, seat)) == {"draw display DM", "draw display WW", "draw display BNL",
                                             "draw display MS", "draw deck"}
    act(state, seat, "draw display WW")
    assert Counter(share_hand(state, seat)) == hand + Counter({"WW": 1})
    assert state.observation(1)["display"] == ["DM", "KCC", "BNL", "MS"]
    assert share_deck_top_down(state) == ["ESL"]
    assert state.decision_kind(1) == "main"  # the UP stack is empty: no exchange


def test_a_blind_draw_takes_the_deck_top() -> None:
    state = started_game(3, seed=9)
    seat = _built(state)
    set_display(state, ["DM", "WW", "BNL", "MS"])
    stack_share_deck(state, ["ESL", "KCC"])
    hand = Counter(share_hand(state, seat))
    act(state, seat, "draw deck")
    assert Counter(share_hand(state, seat)) == hand + Counter({"ESL": 1})
    assert state.observation(1)["display"] == ["DM", "WW", "BNL", "MS"]
    assert share_deck_top_down(state) == ["KCC"]


def test_drawing_from_the_up_stack() -> None:
    state = started_game(3, seed=9)
    seat = _built(state, up_stack=5)
    hand = Counter(share_hand(state, seat))
    assert "draw up" in legal_texts(state, seat)
    act(state, seat, "draw up")
    assert Counter(share_hand(state, seat)) == hand + Counter({"UP": 1})
    assert state.observation(0)["up_stack"] == 4


def test_no_draw_from_an_empty_source() -> None:
    state = started_game(3, seed=9)
    seat = _built(state)
    set_display(state, [])
    stack_share_deck(state, [])
    set_up_stack(state, 2)
    assert legal_texts(state, seat) == ["draw up"]
    with pytest.raises(IllegalActionError, match="share deck is empty"):
        act(state, seat, "draw deck")
    with pytest.raises(IllegalActionError, match="no DM share in the display"):
        act(state, seat, "draw display DM")
    set_up_stack(state, 0)
    set_display(state, ["DM"])
    with pytest.raises(IllegalActionError, match="stack is empty"):
        act(state, seat, "draw up")


def test_a_display_place_stays_empty_when_the_deck_is_empty() -> None:
    state = started_game(3, seed=9)
    seat = _built(state)
    set_display(state, ["DM", "WW", "BNL", "MS"])
    stack_share_deck(state, [])
    act(state, seat, "draw display WW")
    assert state.observation(1)["display"] == ["DM", "BNL", "MS"]


def test_the_draw_is_skipped_when_nothing_can_be_drawn() -> None:
    state, build = skipped_draw_game()
    hand = share_hand(state, 0)
    act(state, 0, build)
    assert share_hand(state, 0) == hand
    assert events_of(state, "draw_skipped") == [{"type": "draw_skipped", "seat": 0}]
    assert state.current_seats() == (1,) and state.decision_kind(1) == "main"


# -- §5.4 four of a kind --------------------------------------------------------------


def test_four_of_a_kind_in_the_display_is_boxed_and_replaced_while_it_holds() -> None:
    state = started_game(3, seed=10)
    seat = _built(state)
    set_display(state, ["DM", "DM", "DM", "WW"])
    stack_share_deck(state, ["DM", "BNL", "BNL", "BNL", "BNL", "MS", "KCC", "ESL", "UMR", "EPRG"])
    act(state, seat, "draw display WW")
    obs = state.observation(1)
    assert obs["boxed_four_of_a_kind"] == {"DM": 4, "BNL": 4}
    assert obs["display"] == ["MS", "KCC", "ESL", "UMR"]
    assert share_deck_top_down(state) == ["EPRG"]
    assert [e["company"] for e in events_of(state, "four_of_a_kind")] == ["DM", "BNL"]


def test_three_of_a_kind_stays() -> None:
    state = started_game(3, seed=10)
    seat = _built(state)
    set_display(state, ["DM", "DM", "DM", "WW"])
    stack_share_deck(state, ["MS", "EPRG"])
    act(state, seat, "draw display WW")
    assert state.observation(1)["display"] == ["DM", "DM", "DM", "MS"]
    assert state.observation(1)["boxed_four_of_a_kind"] == {}


def test_four_of_a_kind_with_too_few_cards_left_leaves_a_short_display() -> None:
    state = started_game(3, seed=10)
    seat = _built(state)
    set_display(state, ["DM", "DM", "DM", "WW"])
    stack_share_deck(state, ["DM", "BNL", "MS"])
    act(state, seat, "draw display WW")
    assert state.observation(1)["display"] == ["BNL", "MS"]
    assert state.observation(1)["share_deck"] == 0


# -- §5.5 exchange -------------------------------------------------------------------


def _drawn(state, up_stack: int = 5, draw: str = "draw display WW") -> int:
    seat = _built(state, up_stack=up_stack)
    set_display(state, ["DM", "WW", "BNL", "MS"])
    stack_share_deck(state, ["KCC", "ESL", "UMR"])
    set_share_hand(state, seat, {"DM": 2, "UP": 1})
    act(state, seat, draw)
    return seat


def test_after_the_draw_the_drawer_may_exchange_any_share_in_hand() -> None:
    state = started_game(3, seed=11)
    seat = _drawn(state)
    assert state.decision_kind(seat) == "exchange"
    assert set(legal_texts(state, seat)) == {"exchange none", "exchange DM", "exchange WW", "exchange UP"}
    act(state, seat, "exchange DM")
    assert share_hand(state, seat) == {"DM": 1, "WW": 1, "UP": 2}
    assert state.observation(seat)["up_stack"] == 4
    assert share_census(state)["boxed_exchange"]["DM"] == 1
    assert events_of(state, "exchange")[-1]["company"] == "DM"
    assert state.current_seats() == (seat + 1,) and state.decision_kind(seat + 1) == "main"  # once a turn


def test_the_card_just_drawn_may_be_exchanged() -> None:
    state = started_game(3, seed=11)
    seat = _drawn(state)
    act(state, seat, "exchange WW")
    assert share_hand(state, seat) == {"DM": 2, "UP": 2}


def test_a_up_share_may_be_exchanged() -> None:
    state = started_game(3, seed=11)
    seat = _drawn(state)
    act(state, seat, "exchange UP")
    assert share_hand(state, seat) == {"DM": 2, "WW": 1, "UP": 1}
    assert state.observation(seat)["up_stack"] == 4


def test_the_exchange_is_optional() -> None:
    state = started_game(3, seed=11)
    seat = _drawn(state)
    act(state, seat, "exchange none")
    assert share_hand(state, seat) == {"DM": 2, "WW": 1, "UP": 1}
    assert state.observation(seat)["up_stack"] == 5
    assert state.current_seats() == (seat + 1,)


def test_no_exchange_once_the_up_stack_is_empty() -> None:
    state = started_game(3, seed=11)
    seat = _drawn(state, up_stack=1, draw="draw up")
    assert state.observation(seat)["up_stack"] == 0
    assert state.current_seats() == (seat + 1,) and state.decision_kind(seat) == "none"


def test_an_exchange_needs_the_card_in_hand() -> None:
    state = started_game(3, seed=11)
    seat = _drawn(state)
    with pytest.raises(IllegalActionError, match="holds no KCC share"):
        act(state, seat, "exchange KCC")


def test_no_exchange_after_an_investment() -> None:
    state = started_game(3, seed=11)
    set_up_stack(state, 5)
    set_share_hand(state, 0, {"DM": 2})
    set_track_hand(state, 0, ALL_FOUR)
    act(state, 0, "invest 1 DM discard PLAIN")
    assert state.current_seats() == (1,) and state.decision_kind(1) == "main"


# -- §6 invest ------------------------------------------------------------------------


def test_the_investments_a_hand_allows() -> None:
    state = started_game(3, seed=12)
    set_share_hand(state, 0, {"DM": 2, "WW": 1, "UP": 1})
    set_track_hand(state, 0, {"PLAIN": 4})
    invests = {t for t in legal_texts(state, 0) if t.startswith("invest")}
    assert invests == {f"invest {s} discard PLAIN" for s in [
        "1 DM", "2 DM", "1 WW", "1 UP", "1 DM 1 WW", "1 DM 1 UP", "1 WW 1 UP"]}


@pytest.mark.parametrize("text,hand_after,invested_after", [
    ("invest 3 DM discard PLAIN", {"WW": 1, "UP": 1}, {"DM": 3}),
    ("invest 1 DM 1 UP discard PLAIN", {"DM": 2, "WW": 1}, {"DM": 1, "UP": 1}),
    ("invest 1 UP discard PLAIN", {"DM": 3, "WW": 1}, {"UP": 1}),
])
def test_investing_moves_shares_from_hand_and_discards_a_track_card(text: str, hand_after: dict,
                                                                    invested_after: dict) -> None:
    state = started_game(3, seed=12)
    clear_investments(state)
    set_share_hand(state, 0, {"DM": 3, "WW": 1, "UP": 1})
    set_track_hand(state, 0, {"PLAIN": 2, "WILD": 2})
    act(state, 0, text)
    obs = state.observation(0)
    assert obs["hand"]["shares"] == hand_after and obs["players"][0]["invested"] == invested_after
    assert obs["hand"]["track"] == {"PLAIN": 1, "WILD": 2} and obs["track_discards"]["PLAIN"] == 1
    assert state.current_seats() == (1,)


def test_investments_add_up() -> None:
    state = started_game(3, seed=12)
    set_invested(state, 0, {"DM": 2})
    set_share_hand(state, 0, {"DM": 2})
    set_track_hand(state, 0, {"PLAIN": 4})
    act(state, 0, "invest 2 DM discard PLAIN")
    assert state.observation(1)["players"][0]["invested"] == {"DM": 4}


@pytest.mark.parametrize("text", ["invest 1 DM 1 WW 1 UP discard PLAIN", "invest 2 DM 1 UP discard PLAIN",
                                  "invest 1 DM 1 DM discard PLAIN", "invest 0 DM discard PLAIN"])
def test_only_one_company_or_one_share_each_of_two(text: str) -> None:
    state = started_game(3, seed=12)
    with pytest.raises(IllegalActionError, match="is not a Union Pacific action"):
        state.string_to_action(text)


def test_an_investment_needs_the_shares_in_hand() -> None:
    state = started_game(3, seed=12)
    set_share_hand(state, 0, {"DM": 1})
    set_track_hand(state, 0, {"PLAIN": 4})
    with pytest.raises(IllegalActionError, match=r"holds 1 DM share"):
        act(state, 0, "invest 2 DM discard PLAIN")
    with pytest.raises(IllegalActionError, match=r"holds 0 WW share"):
        act(state, 0, "invest 1 DM 1 WW discard PLAIN")
    with pytest.raises(IllegalActionError, match=r"holds no WILD card"):
        act(state, 0, "invest 1 DM discard WILD")


# -- §4 pass ---------------------------------------------------------------------------


def test_pass_only_when_neither_build_nor_invest_is_legal() -> None:
    state = started_game(3, seed=13)
    block_all_builds(state)
    set_share_hand(state, 0, {})
    set_share_hand(state, 1, {"DM": 1})  # someone still holds a share: no stalemate
    set_track_hand(state, 0, {"PLAIN": 2, "WILD": 2})
    assert set(legal_texts(state, 0)) == {"pass discard PLAIN", "pass discard WILD"}
    act(state, 0, "pass discard WILD")
    assert state.observation(1)["track_discards"]["WILD"] == 1
    assert state.observation(1)["players"][0]["hand_track"] == 3
    assert events_of(state, "pass")[-1] == {"type": "pass", "seat": 0, "discard": "WILD"}
    assert state.current_seats() == (1,)


def test_no_pass_when_an_investment_is_legal() -> None:
    state = started_game(3, seed=13)
    block_all_builds(state)
    set_share_hand(state, 0, {"DM": 1})
    set_track_hand(state, 0, {"PLAIN": 4})
    assert not any(t.startswith("pass") for t in legal_texts(state, 0))
    with pytest.raises(IllegalActionError, match="may not pass"):
        act(state, 0, "pass discard PLAIN")


def test_no_pass_when_a_build_is_legal() -> None:
    state = started_game(3, seed=13)
    set_share_hand(state, 0, {})
    set_track_hand(state, 0, {"MOUNTAIN": 4})
    with pytest.raises(IllegalActionError, match="may not pass"):
        act(state, 0, "pass discard MOUNTAIN")


# -- §7 dividends ------------------------------------------------------------------------


def _dm_investor(players: int = 3, seed: int = 14, up_stack: int = 5):
    """Seat 0 invested 1 DM (and nothing else) and has just built DM to value 3."""
    state = started_game(players, seed)
    clear_investments(state)
    set_invested(state, 0, {"DM": 1})
    _built(state, up_stack=up_stack)
    set_display(state, ["WW", "MS", "BNL", "ESL"])
    return state


def test_a_dividend_revealed_by_a_blind_draw() -> None:
    """§7.1: the dividend card is set aside, the next card is drawn instead, then the payout."""
    state = _dm_investor()
    stack_share_deck(state, ["DIVIDEND", "KCC", "WW"])
    hand = Counter(share_hand(state, 0))
    act(state, 0, "draw deck")
    assert Counter(share_hand(state, 0)) == hand + Counter({"KCC": 1})
    assert share_deck_top_down(state) == ["WW"]
    [dividend] = _dividends(state)
    assert dividend["number"] == 1
    dm = dividend["companies"][COMPANIES.index("DM")]
    assert dm["value"] == 3 and dm["holdings"] == {"0": 1} and dm["payouts"] == {"0": 4}  # V + H
    assert dividend["cash"] == {"0": 4, "1": 0, "2": 0}
    assert state.observation(1)["players"][0]["cash"] == 4 and state.observation(0)["dividends_paid"] == 1
    assert _index(state, "dividend_revealed") < _index(state, "draw", source="deck") < _index(state, "dividend")
    assert state.decision_kind(0) == "exchange"  # §7.2: the drawer may still exchange


def test_a_dividend_revealed_by_a_display_refill() -> None:
    state = _dm_investor()
    stack_share_deck(state, ["DIVIDEND", "KCC", "UMR"])
    act(state, 0, "draw display WW")
    assert state.observation(0)["display"] == ["KCC", "MS", "BNL", "ESL"]
    assert [d["number"] for d in _dividends(state)] == [1]
    assert _index(state, "refill") < _index(state, "dividend")


def test_a_dividend_revealed_by_a_four_of_a_kind_replacement_is_paid_after_the_display_is_complete() -> None:
    state = _dm_investor()
    set_display(state, ["DM", "DM", "DM", "WW"])
    stack_share_deck(state, ["DM", "BNL", "DIVIDEND", "MS", "KCC", "ESL", "UMR"])
    act(state, 0, "draw display WW")
    obs = state.observation(0)
    assert obs["display"] == ["BNL", "MS", "KCC", "ESL"] and obs["boxed_four_of_a_kind"] == {"DM": 4}
    assert share_deck_top_down(state) == ["UMR"]
    assert [d["number"] for d in _dividends(state)] == [1]
    assert _index(state, "four_of_a_kind") < _index(state, "dividend")
    assert _index(state, "display", display=["BNL", "MS", "KCC", "ESL"]) < _index(state, "dividend")


def test_a_blind_draw_from_a_deck_of_only_dividend_cards() -> None:
    """§7.1: allowed; the dividend is paid and the drawer gets no share."""
    state = _dm_investor()
    stack_share_deck(state, ["DIVIDEND"])
    hand = share_hand(state, 0)
    assert "draw deck" in legal_texts(state, 0)
    act(state, 0, "draw deck")
    assert share_hand(state, 0) == hand
    assert state.observation(0)["share_deck"] == 0
    assert [d["number"] for d in _dividends(state)] == [1]
    assert events_of(state, "draw")[-1]["company"] is None


def test_a_double_dividend_pays_twice_in_order() -> None:
    state = _dm_investor()
    set_invested(state, 0, {"DM": 1, "UP": 1})
    stack_share_deck(state, ["DIVIDEND", "DIVIDEND", "KCC"])
    act(state, 0, "draw deck")
    first, second = _dividends(state)
    assert (first["number"], second["number"]) == (1, 2)
    assert first["union_pacific"]["payouts"] == {"0": 0} and second["union_pacific"]["payouts"] == {"0": 10}
    assert second["cash"]["0"] == 4 + 4 + 10
    assert "KCC" in share_hand(state, 0)


def test_numbering_counts_the_dividends_so_far() -> None:
    state = _dm_investor()
    set_invested(state, 0, {"UP": 2})
    set_invested(state, 1, {"UP": 1})
    set_dividends_paid(state, 2)
    stack_share_deck(state, ["DIVIDEND", "KCC"])
    act(state, 0, "draw deck")
    [third] = _dividends(state)
    assert third["number"] == 3 and third["union_pacific"]["payouts"] == {"0": 15, "1": 12}


def test_payouts_count_invested_shares_only() -> None:
    state = _dm_investor()
    set_share_hand(state, 1, {"DM": 5, "UP": 5})
    set_invested(state, 2, {"UP": 1})
    set_dividends_paid(state, 1)
    stack_share_deck(state, ["DIVIDEND", "KCC"])
    act(state, 0, "draw deck")
    [dividend] = _dividends(state)
    assert dividend["companies"][COMPANIES.index("DM")]["payouts"] == {"0": 4}
    assert dividend["union_pacific"]["payouts"] == {"2": 10}
    assert dividend["cash"] == {"0": 4, "1": 0, "2": 10}


def test_every_company_is_paid_in_order_with_its_value() -> None:
    state = _dm_investor()
    for seat, company in enumerate(("EPRG", "WW")):
        set_invested(state, seat + 1, {company: 2})
    stack_share_deck(state, ["DIVIDEND", "KCC"])
    act(state, 0, "draw deck")
    [dividend] = _dividends(state)
    assert [c["company"] for c in dividend["companies"]] == list(COMPANIES)
    by_code = {c["company"]: c for c in dividend["companies"]}
    assert by_code["EPRG"]["value"] == 3 and by_code["EPRG"]["payouts"] == {"1": 4}
    assert by_code["WW"]["value"] == 2 and by_code["WW"]["payouts"] == {"2": 3}
    assert by_code["KCC"]["payouts"] == {} and by_code["KCC"]["holdings"] == {}


# -- §8 end of the game -------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_game_ends_right_after_the_fourth_payout(players: int) -> None:
    state = _dm_investor(players)
    set_dividends_paid(state, 3)
    stack_share_deck(state, ["DIVIDEND", "KCC", "ESL"])
    act(state, 0, "draw deck")
    assert state.is_terminal()
    assert [d["number"] for d in _dividends(state)] == [4]
    assert state.events[-1]["type"] == "game_end"
    outcome = state.outcome()
    assert outcome.termination is Termination.NORMAL
    assert outcome.cash == {str(s): (4 if s == 0 else 0) for s in range(players)}
    assert outcome.places == {str(s): (1 if s == 0 else 2) for s in range(players)}
    assert state.current_seats() == ()
    for seat in range(players):
        assert state.legal_actions(seat) == [] and state.decision_kind(seat) == "none"
        assert state.observation(seat)["current_seat"] is None
    with pytest.raises(GameOverError):
        act(state, 0, "exchange none")


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_game_goes_on_after_the_third_payout(players: int) -> None:
    state = _dm_investor(players)
    set_dividends_paid(state, 2)
    stack_share_deck(state, ["DIVIDEND", "KCC"])
    act(state, 0, "draw deck")
    assert not state.is_terminal() and state.decision_kind(0) == "exchange"
    with pytest.raises(GameOverError, match="not over"):
        state.outcome()


def test_the_third_and_fourth_together_end_the_game_after_both() -> None:
    state = _dm_investor(4)
    set_dividends_paid(state, 2)
    stack_share_deck(state, ["DIVIDEND", "DIVIDEND", "KCC"])
    act(state, 0, "draw deck")
    assert state.is_terminal() and [d["number"] for d in _dividends(state)] == [3, 4]


def test_equal_cash_shares_a_place() -> None:
    state = _dm_investor(4)
    clear_investments(state)
    for seat, cash in enumerate([5, 9, 5, 9]):
        set_cash(state, seat, cash)
    set_dividends_paid(state, 3)
    stack_share_deck(state, ["DIVIDEND"])
    act(state, 0, "draw deck")
    assert state.outcome().places == {"0": 3, "1": 1, "2": 3, "3": 1}


# -- §9 two players ----------------------------------------------------------------------


def test_the_two_player_game_ends_right_after_the_third_payout() -> None:
    state = _dm_investor(2)
    assert state.observation(0)["dividends_to_end"] == 3
    set_dividends_paid(state, 2)
    stack_share_deck(state, ["DIVIDEND", "KCC", "DIVIDEND", "ESL"])
    act(state, 0, "draw deck")
    assert state.is_terminal() and [d["number"] for d in _dividends(state)] == [3]
    assert set(state.outcome().cash) == {"0", "1", IMAGINARY}


def test_the_imaginary_shareholder_takes_display_deck_and_up_stack_after_the_draw_is_complete() -> None:
    """§9: cards flushed by that draw's four-of-a-kind are already in the box."""
    state = _dm_investor(2, up_stack=7)
    set_dividends_paid(state, 2)
    set_display(state, ["DM", "DM", "DM", "WW"])
    stack_share_deck(state, ["DIVIDEND", "DM", "BNL", "MS", "KCC", "ESL", "EPRG", "DIVIDEND", "UMR"])
    act(state, 0, "draw display WW")
    obs = state.observation(1)
    assert obs["imaginary"]["invested"] == {"BNL": 1, "MS": 1, "KCC": 1, "ESL": 1, "EPRG": 1, "UMR": 1, "UP": 7}
    assert obs["display"] == [] and obs["up_stack"] == 0
    assert share_deck_top_down(state) == ["DIVIDEND"]
    assert _index(state, "four_of_a_kind") < _index(state, "imaginary_shareholder") < _index(state, "dividend")
    [third] = _dividends(state)
    assert third["union_pacific"]["holdings"] == {IMAGINARY: 7}
    assert third["union_pacific"]["payouts"] == {IMAGINARY: 15}
    earned = sum(c["payouts"].get(IMAGINARY, 0) for c in third["companies"]) + 15
    assert obs["imaginary"]["cash"] == third["cash"][IMAGINARY] == earned


def test_the_imaginary_shareholder_takes_part_in_the_third_payout_only() -> None:
    """§9: a 2nd+3rd double dividend pays the 2nd without it and the 3rd with it."""
    state = _dm_investor(2)
    set_dividends_paid(state, 1)
    stack_share_deck(state, ["DIVIDEND", "DIVIDEND", "KCC", "DM", "DM", "DM"])
    act(state, 0, "draw deck")
    second, third = _dividends(state)
    assert (second["number"], third["number"]) == (2, 3)
    assert second["companies"][COMPANIES.index("DM")]["payouts"] == {"0": 4}
    assert IMAGINARY not in second["cash"]
    dm = third["companies"][COMPANIES.index("DM")]
    assert dm["holdings"] == {"0": 1, IMAGINARY: 3}
    assert dm["payouts"] == {"0": 1, IMAGINARY: 3}  # the imaginary shareholder leads: V to it, H to seat 0
    assert _index(state, "dividend", number=2) < _index(state, "imaginary_shareholder") < _index(state, "dividend", number=3)


def test_the_imaginary_shareholder_can_win() -> None:
    state = _dm_investor(2)
    clear_investments(state)
    set_cash(state, 0, 3)
    set_dividends_paid(state, 2)
    stack_share_deck(state, ["DIVIDEND", "KCC", "DM", "EPRG"])
    act(state, 0, "draw deck")
    outcome = state.outcome()
    assert outcome.cash[IMAGINARY] > 3
    assert outcome.places == {IMAGINARY: 1, "0": 2, "1": 3}
    assert outcome.extra == {"imaginary_ahead_of": {"0": True, "1": True}}
    assert GAME.participants(2) == ("0", "1", IMAGINARY)


# -- §8 stalemate ------------------------------------------------------------------------


def _no_builds_no_shares(players: int):
    return stalemate_game(players)[0]


@pytest.mark.parametrize("players", [3, 4, 6])
def test_a_stalemate_pays_every_remaining_payout_at_once(players: int) -> None:
    state = _no_builds_no_shares(players)
    set_dividends_paid(state, 1)
    assert legal_texts(state, 0) == ["pass discard PLAIN"]
    act(state, 0, "pass discard PLAIN")
    assert state.is_terminal()
    assert [d["number"] for d in _dividends(state)] == [2, 3, 4]
    assert events_of(state, "stalemate") == [{"type": "stalemate", "dividends_paid": 1}]
    assert state.outcome().termination is Termination.STALEMATE
    assert state.events[-1]["termination"] == "stalemate"


def test_a_two_player_stalemate_creates_the_imaginary_shareholder_before_the_third() -> None:
    state = _no_builds_no_shares(2)
    act(state, 0, "pass discard PLAIN")
    assert state.is_terminal() and [d["number"] for d in _dividends(state)] == [1, 2, 3]
    assert _index(state, "dividend", number=2) < _index(state, "imaginary_shareholder") < _index(state, "dividend", number=3)
    assert IMAGINARY in state.outcome().cash and state.outcome().termination is Termination.STALEMATE


def test_no_stalemate_while_someone_holds_a_share() -> None:
    state = _no_builds_no_shares(3)
    set_share_hand(state, 2, {"DM": 1})
    act(state, 0, "pass discard PLAIN")
    assert not state.is_terminal()
    act(state, 1, state.action_to_string(state.legal_actions(1)[0]))  # seat 1 can only pass
    assert not state.is_terminal()
    assert any(t.startswith("invest 1 DM") for t in legal_texts(state, 2))
    act(state, 2, legal_texts(state, 2)[0])
    assert state.is_terminal() and state.outcome().termination is Termination.STALEMATE


def test_no_stalemate_while_a_placement_exists() -> None:
    state = started_game(3, seed=15)
    for seat in range(3):
        set_share_hand(state, seat, {})
    set_share_hand(state, 0, {"DM": 1})
    set_track_hand(state, 0, {"PLAIN": 4})
    act(state, 0, "invest 1 DM discard PLAIN")
    assert not state.is_terminal() and state.decision_kind(1) == "main"


def test_a_placement_is_one_of_any_type_whatever_the_cards_in_hand() -> None:
    state = _no_builds_no_shares(3)
    set_supply(state, "ESL", 1)  # ESL could still build on COAST or BORDER track
    set_track_hand(state, 1, {"PLAIN": 3})
    act(state, 0, "pass discard PLAIN")
    assert not state.is_terminal()


# -- errors ----------------------------------------------------------------------------------


def test_the_wrong_seat_is_refused() -> None:
    state = started_game(3, seed=16)
    action = state.legal_actions(0)[0]
    with pytest.raises(NotYourTurnError, match="seat 0's decision, not seat 1's"):
        state.apply_action(1, action)
    with pytest.raises(NotYourTurnError):
        state.apply_action(7, action)
    assert state.legal_actions(1) == [] and state.decision_kind(1) == "none"


def test_a_first_investment_from_a_seat_that_does_not_exist() -> None:
    state = new_game(3, seed=16)
    with pytest.raises(NotYourTurnError, match="no seat 3"):
        state.apply_action(3, 0)


@pytest.mark.parametrize("phase,text,message", [
    ("main", "draw deck", "'draw deck'.*build, invest or pass"),
    ("main", "exchange none", "'exchange none'.*build, invest or pass"),
    ("main", "first-invest DM", "'first-invest DM'.*build, invest or pass"),
    ("draw_share", "build DM Denver-Kansas City PLAIN", "'build DM Denver-Kansas City PLAIN'.*draw a share"),
    ("draw_share", "exchange none", "'exchange none'.*draw a share"),
    ("exchange", "draw deck", "'draw deck'.*exchange"),
    ("first_invest", "draw deck", "'draw deck'.*first investment"),
])
def test_an_action_of_the_wrong_kind_is_refused(phase: str, text: str, message: str) -> None:
    state = new_game(3, seed=16)
    if phase != "first_invest":
        first_invest_all(state)
    if phase in ("draw_share", "exchange"):
        _built(state, up_stack=5)
    if phase == "exchange":
        act(state, 0, "draw up")
    assert state.decision_kind(0) == phase
    before = _snapshot(state)
    with pytest.raises(IllegalActionError, match=message):
        act(state, 0, text)
    assert _snapshot(state) == before


@pytest.mark.parametrize("action", [-1, -10**9, 10**9])
def test_an_unknown_action_id_is_refused(action: int) -> None:
    state = started_game(3, seed=16)
    with pytest.raises(IllegalActionError):
        state.apply_action(0, action)
    with pytest.raises(IllegalActionError, match="is not an action id"):
        state.describe_action(action)
    with pytest.raises(IllegalActionError, match="is not an action id"):
        state.action_to_string(action)


@pytest.mark.parametrize("phase", ["first_invest", "main"])
@pytest.mark.parametrize("action", [None, "12", 12.0, 20.5, True], ids=["None", "str", "float", "fraction", "bool"])
def test_a_value_that_is_not_an_action_id_is_refused_as_illegal(phase: str, action: object) -> None:
    """base.GameState.apply_action: anything that is not a legal action raises IllegalActionError
    (describe_action already refuses these values that way)."""
    state = new_game(3, seed=1) if phase == "first_invest" else started_game(3, seed=1)
    assert "BNL" in share_hand(state, 0)  # whose first-invest id is 1 == True
    with pytest.raises(IllegalActionError):
        state.describe_action(action)  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError):
        state.apply_action(0, action)  # type: ignore[arg-type]


def test_the_first_id_past_the_table_is_unknown() -> None:
    state = started_game(3, seed=16)
    with pytest.raises(IllegalActionError, match="is not an action id"):
        state.describe_action(GAME.actions.size)


@pytest.mark.parametrize("text", ["", "fly to the moon", "build DM Denver-Atlantis PLAIN", "draw display UP",
                                  "first-invest XYZ", "exchange"])
def test_unknown_action_text_is_refused(text: str) -> None:
    with pytest.raises(IllegalActionError, match="is not a Union Pacific action"):
        started_game(3, seed=16).string_to_action(text)


def test_action_text_tolerates_extra_spaces() -> None:
    state = started_game(3, seed=16)
    assert state.string_to_action("  build  DM Denver-El Paso   MOUNTAIN ") == state.string_to_action(
        "build DM Denver-El Paso MOUNTAIN")


def test_the_documented_action_forms() -> None:
    state = started_game(3, seed=16)
    cases = {
        "first-invest DM": {"kind": "first_invest", "company": "DM"},
        "build EPRG Denver-El Paso MOUNTAIN": {"kind": "build", "card": "MOUNTAIN", "company": "EPRG",
                                              "section": section("Denver", "El Paso")},
        "invest 2 DM discard PLAIN": {"kind": "invest", "shares": {"DM": 2}, "discard": "PLAIN"},
        "invest 1 DM 1 UP discard WILD": {"kind": "invest", "shares": {"DM": 1, "UP": 1}, "discard": "WILD"},
        "pass discard PLAIN": {"kind": "pass", "discard": "PLAIN"},
        "draw display DM": {"kind": "draw", "source": "display", "company": "DM"},
        "draw deck": {"kind": "draw", "source": "deck"},
        "draw up": {"kind": "draw", "source": "up"},
        "exchange DM": {"kind": "exchange", "company": "DM"},
        "exchange none": {"kind": "exchange", "company": None},
    }
    for text, described in cases.items():
        action = state.string_to_action(text)
        assert state.describe_action(action) == described
        assert state.action_to_string(action) == text


@pytest.mark.parametrize("players,variant", [(1, "standard"), (7, "standard"), (4, "expert")])
def test_a_game_outside_the_rules_cannot_be_made(players: int, variant: str) -> None:
    with pytest.raises(ValueError):
        new_game(players, 0, variant)
