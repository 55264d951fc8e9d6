"""The greedy sample bot's strategy: always legal, sensible in set positions, and better than random."""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import pytest

from arena.bench.greedy import bench_greedy, direct_view, load_greedy_strategy, wire_view
from arena.games.union_pacific import default_game
from arena.host.codec import LegalAction

strategy = load_greedy_strategy()
choose = strategy.choose
GAME = default_game()


@pytest.mark.parametrize("variant", ["standard", "pro"])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_always_a_legal_index(players: int, variant: str) -> None:
    """At every decision of every seat of a random game, and of a game the strategy plays against
    itself, the strategy answers an index into the legal actions; every decision kind comes up."""
    kinds: Counter[str] = Counter()
    for driver in ("random", "greedy"):
        seed = 100 * players + (7 if variant == "pro" else 0)
        state = GAME.new_state(players, seed, variant)
        rng = random.Random(seed)
        while not state.is_terminal():
            for seat in state.current_seats():
                actions = state.legal_actions(seat)
                observation, legal = direct_view(state, seat, actions)
                index = choose(observation, legal)
                assert isinstance(index, int) and 0 <= index < len(actions), (observation, index)
                kinds[observation["decision"]] += 1
                kinds[legal[index].action["kind"]] += 1
                state.apply_action(seat, actions[index if driver == "greedy" else rng.randrange(len(actions))])
    assert {"first_invest", "main", "draw_share", "exchange", "build", "invest", "draw"} <= set(kinds)


def test_the_wire_view_equals_the_engine_view() -> None:
    """The bench's fast path (engine dicts) gives the strategy exactly what the codec round trip gives."""
    state = GAME.new_state(3, 21)
    rng = random.Random(21)
    checked = 0
    while not state.is_terminal():
        for seat in state.current_seats():
            actions = state.legal_actions(seat)
            if rng.random() < 0.1:
                assert wire_view(state, seat, actions) == direct_view(state, seat, actions)
                checked += 1
            state.apply_action(seat, actions[rng.randrange(len(actions))])
    assert checked > 10


@pytest.mark.slow
def test_beats_random_players() -> None:
    """40 four-player matches against three random seats (the greedy seat rotating), through the codec.

    The full benchmark (arena/bench/greedy.py, 200+ matches) measures a win rate near
    100 % (see the report in docs/writing-a-bot.md); at any true rate of 90 % the chance
    of fewer than 20 wins in 40 is below 1e-12.  Everything is seeded, so this test gives
    the same result on every run; the loose bound only guards against a broken strategy.
    """
    figures = bench_greedy(players=4, matches=40, seed=9000)
    assert figures.win_rate >= 0.5, figures.to_json()
    assert figures.mean_place < 2.0


# ------------------------------------------------------------------ set positions

COMPANIES = strategy.COMPANIES


def _observation(**changes: Any) -> dict[str, Any]:
    """A four-player main decision of seat 0, mid-way to the first dividend; every company worth 5."""
    observation: dict[str, Any] = {
        "game": "union_pacific", "seat": 0, "num_players": 4, "variant": "standard", "decision": "main",
        "current_seat": 0, "turn": 20, "dividends_paid": 0, "dividends_to_end": 4,
        "share_deck": 80, "track_deck": 20, "up_stack": 10, "display": ["BNL", "MS", "WW", "KCC"],
        "track_discards": {"PLAIN": 0, "COAST": 0, "BORDER": 0, "MOUNTAIN": 0, "WILD": 0},
        "boxed_four_of_a_kind": {}, "free_spaces": [2] * 71,
        "companies": [{"code": c, "trains_on_board": 4, "supply": 5, "value": 5, "sections": []} for c in COMPANIES],
        "players": [{"seat": s, "cash": 0, "invested": {}, "hand_shares": 3, "hand_track": 4} for s in range(4)],
        "hand": {"shares": {}, "track": {"PLAIN": 2, "MOUNTAIN": 1, "WILD": 1}},
        "pending_first_investment": None, "imaginary": None,
    }
    observation.update(copy.deepcopy(changes))
    return observation


def _legal(*actions: dict[str, Any]) -> list[LegalAction]:
    return [LegalAction(i, str(a), a) for i, a in enumerate(actions)]


def _pick(observation: dict[str, Any], *actions: dict[str, Any]) -> dict[str, Any]:
    return actions[choose(observation, _legal(*actions))]


def _build(company: str, card: str = "PLAIN", section: int = 3) -> dict[str, Any]:
    return {"kind": "build", "card": card, "company": company, "section": section}


def _with_invested(observation: dict[str, Any], **seats: dict[str, int]) -> dict[str, Any]:
    for seat, invested in seats.items():
        observation["players"][int(seat.removeprefix("s"))]["invested"] = invested
    return observation


def test_invests_when_the_dividend_is_near_and_builds_while_it_is_far() -> None:
    """Three DM in hand take the DM lead (seat 1 has 2, this seat 1).  Two cards into the deck the
    first dividend cannot come for a while: build (and draw).  With 20 of the 25 top cards gone it
    is due within a few cards: invest now."""
    build = _build("DM")
    invest = {"kind": "invest", "shares": {"DM": 3}, "discard": "PLAIN"}
    hand = {"shares": {"DM": 3}, "track": {"PLAIN": 2, "MOUNTAIN": 1, "WILD": 1}}
    early = _with_invested(_observation(hand=hand, share_deck=80), s0={"DM": 1}, s1={"DM": 2})
    late = _with_invested(_observation(hand=hand, share_deck=62), s0={"DM": 1}, s1={"DM": 2})
    assert _pick(early, build, invest) == build
    assert _pick(late, build, invest) == invest


def test_builds_for_the_company_it_leads() -> None:
    observation = _with_invested(_observation(), s0={"MS": 3}, s1={"DM": 3, "MS": 1})
    assert _pick(observation, _build("DM"), _build("MS"), _build("WW"))["company"] == "MS"


def test_builds_with_a_plain_card_rather_than_the_wild_card() -> None:
    observation = _with_invested(_observation(), s0={"MS": 3})
    assert _pick(observation, _build("MS", "WILD"), _build("MS", "PLAIN"))["card"] == "PLAIN"


def test_draws_the_share_that_reaches_a_majority() -> None:
    """Seat 1 holds 3 MS, this seat 2: one more MS ties the lead.  One more BNL, KCC or WW would
    stay third, and this seat already leads Union Pacific: those draws gain nothing.  (The deck is
    left out: here most companies have no holder at all, so a blind card is worth even more.)"""
    observation = _with_invested(
        _observation(decision="draw_share", hand={"shares": {}, "track": {"PLAIN": 1}}),
        s0={"MS": 2, "UP": 3}, s1={"MS": 3, "KCC": 2, "WW": 4, "UP": 1},
        s2={"BNL": 6, "WW": 3, "UP": 1}, s3={"BNL": 3, "KCC": 2, "UP": 1})
    draws = [{"kind": "draw", "source": "display", "company": c} for c in ("BNL", "KCC", "MS", "WW")]
    draws.append({"kind": "draw", "source": "up"})
    assert _pick(observation, *draws) == {"kind": "draw", "source": "display", "company": "MS"}


def test_a_lone_second_holder_share_is_worth_drawing() -> None:
    """With seat 2 the only BNL holder, one BNL makes this seat the second holder (half the value
    at every dividend), which beats tying a lead it would share."""
    observation = _with_invested(
        _observation(decision="draw_share", hand={"shares": {}, "track": {"PLAIN": 1}}),
        s0={"MS": 2, "UP": 3}, s1={"MS": 3, "UP": 1}, s2={"BNL": 6, "UP": 1}, s3={"UP": 1})
    draws = [{"kind": "draw", "source": "display", "company": c} for c in ("BNL", "MS")]
    assert _pick(observation, *draws)["company"] == "BNL"


def test_exchanges_a_hopeless_share_for_union_pacific() -> None:
    """A lone BNL behind seat 2's 6 and seat 3's 3 BNL earns nothing, and one more UP share breaks
    a three-way UP tie: box the BNL (not the DM, which ties the DM lead).  When this seat already
    leads Union Pacific by far, a UP share adds nothing: exchange nothing."""
    exchanges = [{"kind": "exchange", "company": None}, {"kind": "exchange", "company": "BNL"},
                 {"kind": "exchange", "company": "DM"}]
    hand = {"shares": {"BNL": 1, "DM": 1}, "track": {"PLAIN": 1}}
    tied = _with_invested(_observation(decision="exchange", dividends_paid=1, share_deck=50, hand=hand),
                          s0={"DM": 2, "UP": 1}, s1={"DM": 3, "UP": 1}, s2={"BNL": 6, "UP": 1}, s3={"BNL": 3})
    assert _pick(tied, *exchanges) == {"kind": "exchange", "company": "BNL"}
    leading = _with_invested(_observation(decision="exchange", dividends_paid=1, share_deck=50, hand=hand),
                             s0={"DM": 2, "UP": 6}, s1={"DM": 3, "UP": 1}, s2={"BNL": 6, "UP": 1}, s3={"BNL": 3})
    assert _pick(leading, *exchanges) == {"kind": "exchange", "company": None}


def test_a_pass_keeps_the_wild_card() -> None:
    observation = _observation(hand={"shares": {}, "track": {"WILD": 1, "COAST": 1}})
    passes = [{"kind": "pass", "discard": "COAST"}, {"kind": "pass", "discard": "WILD"}]
    assert _pick(observation, *reversed(passes)) == passes[0]


def test_first_investment_goes_where_the_hand_is_strongest() -> None:
    observation = _observation(decision="first_invest", current_seat=None, turn=0, share_deck=0, display=[],
                               hand={"shares": {"EPRG": 1, "DM": 2, "WW": 1, "UP": 1}, "track": {"PLAIN": 3}})
    picks = [{"kind": "first_invest", "company": c} for c in ("EPRG", "DM", "WW", "UP")]
    assert _pick(observation, *picks) == {"kind": "first_invest", "company": "DM"}


def test_dividend_clock_follows_the_deck_layout() -> None:
    """Standard four-player deck: 82 cards, the first dividend among cards 7-25 from the top."""
    fresh = strategy.View(_observation(share_deck=82)).risk
    assert fresh(1) == 0.0
    # Before the next turn: about 4 * 0.63 = 2.5 cards drawn, none of them can be a dividend.
    assert fresh(2) == 0.0
    risks = [fresh(t) for t in range(1, 20)]
    assert risks == sorted(risks) and risks[-1] == 1.0
    due = strategy.View(_observation(share_deck=58)).risk  # 24 drawn: the dividend is the next card
    assert due(2) == 1.0
    # After the first dividend the three others lie in the bottom 57 cards: a while to wait.
    after = strategy.View(_observation(share_deck=57, dividends_paid=1)).risk
    assert 0.0 < after(2) < 0.2
