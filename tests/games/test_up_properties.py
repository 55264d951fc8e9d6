"""Invariants of whole random games (Hypothesis over seeds), checked after every action.

Every table size 2-6 and both variants.  The legal actions are also recomputed
from the rules alone (not from the engine's incremental caches) and compared.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.base import IMAGINARY, Termination
from arena.games.union_pacific.board import COMPANIES, PUBLISHED_SHARES, PUBLISHED_TRAINS, SHARE_CODES
from tests.games.scenario import (
    BOARD,
    KINDS,
    all_counts,
    hidden_view,
    new_game,
    play_randomly,
    share_census,
    track_census,
    trains_by_section,
)

CONFIGS = [(players, variant) for players in (2, 3, 4, 5, 6) for variant in ("standard", "pro")]
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
CARD_TOTALS = Counter(dict(zip(KINDS, BOARD.card_counts)))
SHARE_TOTALS = Counter({**PUBLISHED_SHARES, "UP": BOARD.up_shares, "DIVIDEND": 4})


# -- the rules, computed from scratch ------------------------------------------------------

def _network_cities(sections_of: list[set[str]], code: str) -> set[int]:
    """The cities joined to ``code``'s home city by its own trains (breadth first)."""
    c = COMPANIES.index(code)
    reached = {BOARD.company_home[c]}
    todo = [BOARD.company_home[c]]
    while todo:
        city = todo.pop()
        for s in BOARD.city_sections[city]:
            if code in sections_of[s]:
                for end in (BOARD.section_a[s], BOARD.section_b[s]):
                    if end not in reached:
                        reached.add(end)
                        todo.append(end)
    return reached


def _key(description: dict) -> str:
    return json.dumps(description, sort_keys=True)


def expected_actions(state, seat: int) -> set[str]:
    """The legal actions of ``seat`` by the rules (§3.4, §4-§6), as structured forms."""
    decision = state.decision_kind(seat)
    obs = state.observation(seat)
    hand = obs["hand"]["shares"]
    cards = [k for k in obs["hand"]["track"]]
    out: list[dict] = []
    if decision == "first_invest":
        out = [{"kind": "first_invest", "company": c} for c in hand]
    elif decision == "main":
        sections_of = trains_by_section(state)
        for c, code in enumerate(COMPANIES):
            if not obs["companies"][c]["supply"]:
                continue
            network = _network_cities(sections_of, code)
            for s in range(BOARD.num_sections):
                if (len(sections_of[s]) >= BOARD.section_spaces[s] or code in sections_of[s]
                        or BOARD.section_type[s] not in BOARD.company_types[c]
                        or not {BOARD.section_a[s], BOARD.section_b[s]} & network):
                    continue
                for card in cards:
                    if card == "WILD" or KINDS.index(card) == BOARD.section_type[s]:
                        out.append({"kind": "build", "card": card, "company": code, "section": s})
        held = [c for c in SHARE_CODES if c in hand]
        combos = [{c: n} for c in held for n in range(1, hand[c] + 1)]
        combos += [{a: 1, b: 1} for i, a in enumerate(held) for b in held[i + 1:]]
        out += [{"kind": "invest", "shares": combo, "discard": card} for combo in combos for card in cards]
        if not out:
            out = [{"kind": "pass", "discard": card} for card in cards]
    elif decision == "draw_share":
        out = [{"kind": "draw", "source": "display", "company": c} for c in set(obs["display"])]
        if obs["share_deck"]:
            out.append({"kind": "draw", "source": "deck"})
        if obs["up_stack"]:
            out.append({"kind": "draw", "source": "up"})
    elif decision == "exchange":
        out = [{"kind": "exchange", "company": None}] + [{"kind": "exchange", "company": c} for c in hand]
    return {_key(d) for d in out}


# -- invariants ---------------------------------------------------------------------------

def check_invariants(state, placed: set[tuple[str, int]]) -> None:
    n = state.num_players
    census = share_census(state)
    laid_out = not sum(census["undealt"].values())  # the dividend cards join the deck at its layout
    totals = SHARE_TOTALS if laid_out else SHARE_TOTALS - Counter({"DIVIDEND": 4})
    assert all_counts(census.values()) == totals, {k: dict(v) for k, v in census.items()}
    assert all_counts(track_census(state).values()) == CARD_TOTALS
    sections_of = trains_by_section(state)
    obs = state.observation(0)
    for c, code in enumerate(COMPANIES):
        company = obs["companies"][c]
        mine = [s for s in range(BOARD.num_sections) if code in sections_of[s]]
        assert company["trains_on_board"] + company["supply"] == PUBLISHED_TRAINS[code]
        assert company["trains_on_board"] == len(mine) == len([p for p in placed if p[0] == code])
        assert company["sections"] == mine and company["value"] == len(mine) + 1
        network = _network_cities(sections_of, code)
        assert all({BOARD.section_a[s], BOARD.section_b[s]} <= network for s in mine), f"{code} is not connected"
    for s in range(BOARD.num_sections):
        assert len(sections_of[s]) <= BOARD.section_spaces[s]
        assert obs["free_spaces"][s] == BOARD.section_spaces[s] - len(sections_of[s])
    earned: Counter = Counter()
    for e in state.events:
        if e["type"] == "dividend":
            for company in e["companies"]:
                earned.update(company["payouts"])
            earned.update(e["union_pacific"]["payouts"])
    assert [p["cash"] for p in obs["players"]] == [earned[str(s)] for s in range(n)]
    if obs["imaginary"] is not None:
        assert obs["imaginary"]["cash"] == earned[IMAGINARY]
    if not state.is_terminal() and state.decision_kind(state.current_seats()[0]) != "first_invest":
        mover = state.current_seats()[0]
        expected = [4 if s == mover and state.decision_kind(s) == "main" else 3 for s in range(n)]
        assert [p["hand_track"] for p in obs["players"]] == expected


def check_legal_actions(state) -> None:
    for seat in range(state.num_players):
        legal = state.legal_actions(seat)
        assert legal == sorted(set(legal))
        assert {_key(state.describe_action(a)) for a in legal} == expected_actions(state, seat)


def check_end(state) -> None:
    assert state.is_terminal() and state.current_seats() == ()
    numbers = [e["number"] for e in state.events if e["type"] == "dividend"]
    assert numbers == list(range(1, (3 if state.num_players == 2 else 4) + 1))
    outcome = state.outcome()
    assert state.events[-1] == {"type": "game_end", **outcome.to_json()}
    assert (IMAGINARY in outcome.cash) == (state.num_players == 2)
    stalemates = [e for e in state.events if e["type"] == "stalemate"]
    assert (outcome.termination is Termination.STALEMATE) == bool(stalemates)
    for who, cash in outcome.cash.items():
        assert outcome.places[who] == 1 + sum(1 for other in outcome.cash.values() if other > cash)


def _snapshot(state) -> str:
    return json.dumps({"obs": [state.observation(s) for s in range(state.num_players)],
                       "events": state.events, "history": state.history, "hidden": hidden_view(state),
                       "legal": [state.legal_actions(s) for s in range(state.num_players)]}, default=str)


def play_checked(players: int, variant: str, seed: int) -> None:
    rng = random.Random(seed)
    state = new_game(players, seed, variant)
    placed = {(COMPANIES[c], s) for c in range(len(COMPANIES)) for s in BOARD.company_start[c]}
    clone_at = rng.randrange(1, 150)
    twin = None
    seen_events = len(state.events)
    check_invariants(state, placed)
    while not state.is_terminal():
        if len(state.history) == clone_at:
            twin = state.clone()
            before = _snapshot(state)
            play_randomly(state.clone(), random.Random(seed + 1))  # a clone played to the end...
            assert _snapshot(state) == before  # ...leaves the original untouched
        check_legal_actions(state)
        seat = state.current_seats()[0]
        legal = state.legal_actions(seat)
        state.apply_action(seat, legal[int(rng.random() * len(legal))])
        for e in state.events[seen_events:]:
            if e["type"] == "build":
                assert (e["company"], e["section"]) not in placed, "a company built twice on one section"
                placed.add((e["company"], e["section"]))
        seen_events = len(state.events)
        check_invariants(state, placed)
    check_end(state)
    # Determinism: the same seed and actions give the same events, byte for byte.
    again = new_game(players, seed, variant)
    for seat, action in state.history:
        again.apply_action(seat, action)
    assert json.dumps(again.events) == json.dumps(state.events)
    # A clone taken mid-game, given the same remaining actions, ends the same way.
    if twin is not None:
        for seat, action in state.history[clone_at:]:
            twin.apply_action(seat, action)
        assert json.dumps(twin.events) == json.dumps(state.events)


@pytest.mark.parametrize("players,variant", CONFIGS)
@settings(max_examples=8, deadline=None)
@given(seed=SEEDS)
def test_random_games_keep_every_invariant(players: int, variant: str, seed: int) -> None:
    play_checked(players, variant, seed)


@settings(max_examples=10, deadline=None)
@given(seed=SEEDS, players=st.integers(min_value=2, max_value=6), variant=st.sampled_from(["standard", "pro"]))
def test_every_legal_action_text_parses_back_and_is_json(seed: int, players: int, variant: str) -> None:
    rng = random.Random(seed)
    state = new_game(players, seed, variant)
    while not state.is_terminal():
        seat = state.current_seats()[0]
        legal = state.legal_actions(seat)
        kind = state.decision_kind(seat)
        for action in legal:
            text = state.action_to_string(action)
            assert state.string_to_action(text) == action, text
            described = state.describe_action(action)
            assert json.loads(json.dumps(described)) == described
            assert described["kind"] == {"first_invest": "first_invest", "draw_share": "draw",
                                         "exchange": "exchange"}.get(kind, described["kind"])
            if kind == "main":
                assert described["kind"] in ("build", "invest", "pass")
        state.apply_action(seat, legal[int(rng.random() * len(legal))])


def test_seeds_give_different_games() -> None:
    one, two = new_game(4, 1), new_game(4, 2)
    assert one.events[0] != two.events[0]


def test_a_clone_diverges_without_touching_the_original() -> None:
    state = new_game(3, 21)
    play_randomly(state, random.Random(0), max_actions=40)
    twin = state.clone()
    snapshot = _snapshot(state)
    play_randomly(twin, random.Random(1))
    assert twin.is_terminal() and not state.is_terminal()
    assert _snapshot(state) == snapshot
    play_randomly(state, random.Random(2))
    assert state.events != twin.events


def test_a_track_reshuffle_after_cloning_is_the_same_in_both() -> None:
    """The clone copies the random generator: later shuffles agree."""
    state = new_game(5, 22)
    play_randomly(state, random.Random(3), max_actions=10)
    twin = state.clone()
    rng_a, rng_b = random.Random(4), random.Random(4)
    play_randomly(state, rng_a)
    play_randomly(twin, rng_b)
    assert any(e["type"] == "reshuffle" for e in state.events)
    assert json.dumps(state.events) == json.dumps(twin.events)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_incremental_build_lists_equal_their_definition_after_every_action(players: int) -> None:
    """The engine's build lists, kept up to date move by move, always equal the ones
    recomputed from the board alone (builds_from_scratch)."""
    import random as _random

    from arena.games.union_pacific import default_game

    for seed in range(3):
        state = default_game().new_state(players, seed)
        rng = _random.Random(seed)
        while not state.is_terminal():
            assert state.build_actions() == state.builds_from_scratch()
            for seat in state.current_seats():
                legal = state.legal_actions(seat)
                state.apply_action(seat, legal[int(rng.random() * len(legal))])


def test_the_memoised_invest_ids_of_a_hand_are_those_of_its_combos() -> None:
    """``invest_parts`` (three memoised parts per card kind) gives the ids of ``invest_combos``, whose
    combos are the rules' (§6: one to all shares of a company, or one share each of two), sorted."""
    from arena.games.union_pacific import default_game

    table = default_game().actions
    rng = random.Random(5)
    for _ in range(3000):
        hand = [rng.choice((0, 0, 0, 0, 1, 1, 2, 3, 6)) for _ in range(len(SHARE_CODES))]
        combos = table.invest_combos(hand)
        owned = [c for c in range(len(SHARE_CODES)) if hand[c]]
        expected = {((c, n),) for c in owned for n in range(1, hand[c] + 1)}
        expected |= {((c1, 1), (c2, 1)) for c1 in owned for c2 in owned if c1 < c2}
        assert list(combos) == sorted(combos) and {table.combos[i] for i in combos} == expected
        low, high, pairs = table.invest_parts(hand)
        for k, ids in enumerate(table.invest_ids):
            assert low[k] + high[k] + pairs[k] == tuple(ids[i] for i in combos)
