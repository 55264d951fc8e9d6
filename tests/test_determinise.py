"""Determinisation (arena/games/union_pacific/determinise.py): samples consistent with what one
seat knows, from the full state (host side) and from the seat's observations (a bot's side)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.games.union_pacific import default_game
from arena.games.union_pacific.board import NUM_CARD_KINDS, NUM_COMPANIES, NUM_SHARE_KINDS, UP
from arena.games.union_pacific.determinise import (
    Determiniser,
    SeatKnowledge,
    deck_layout,
    from_observation,
    knowledge_of,
)
from arena.games.union_pacific.state import DIVIDEND, FIRST_INVEST

GAME = default_game()


def _without_window(observation: dict) -> dict:
    out = dict(observation)
    out.pop("public_events")
    return out


def _card_totals_hold(state) -> None:
    """Every track card and share card is somewhere, once."""
    board = state.board
    for k in range(NUM_CARD_KINDS):
        where = state.track_deck.count(k) + state.track_discard[k] + sum(h[k] for h in state.hand_track)
        assert where == board.card_counts[k]
    totals = list(board.company_shares) + [board.up_shares]
    for c in range(NUM_SHARE_KINDS):
        where = (sum(h[c] for h in state.hand_shares) + sum(row[c] for row in state.invested)
                 + state.display.count(c) + state.share_deck.count(c) + state._pool.count(c)
                 + state.boxed_exchange[c] + (state.imaginary[c] if state.imaginary else 0))
        where += state.boxed_four[c] if c < NUM_COMPANIES else state.up_stack
        assert where == totals[c], c
    assert state.share_deck.count(DIVIDEND) == 4 - state.dividends_revealed or state.share_deck == []


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("variant", ["standard", "pro"])
def test_samples_agree_with_what_the_seat_sees(players: int, variant: str) -> None:
    """At decisions through whole random games: a host-side sample shows the seat exactly its
    real observation; one rebuilt from the seat's observations (what a bot has) shows it the
    same except the window of events, with the same knowledge and the same legal actions;
    known cards stay in their hands, every card is somewhere once, and samples play to the end."""
    state = GAME.new_state(players, 500 + players, variant)
    rng = random.Random(players)
    logs: dict[int, list] = {s: [] for s in range(players)}
    step = 0
    while not state.is_terminal():
        seat = rng.choice(state.current_seats())
        observation = state.observation(seat)
        logs[seat] += observation["public_events"]
        if step % 3 == 0:
            know = knowledge_of(state, seat)
            sample = Determiniser(state, know, seed=step).sample()
            assert sample.observation(seat) == observation
            base, rebuilt = from_observation(GAME, observation, logs[seat])
            assert rebuilt == know
            other = Determiniser(base, rebuilt, seed=step).sample()
            assert _without_window(other.observation(seat)) == _without_window(observation)
            assert other.legal_actions(seat) == state.legal_actions(seat)
            for s in (sample, other):
                _card_totals_hold(s)
                for o in range(players):
                    assert all(s.hand_shares[o][c] >= know.known[o][c] for c in range(NUM_SHARE_KINDS))
                assert s.hand_shares[seat] == state.hand_shares[seat]
                assert s.hand_track[seat] == state.hand_track[seat]
            if step % 30 == 0:
                for s in (sample, other):
                    play = random.Random(step)
                    while not s.is_terminal():
                        who = s.current_seats()[0]
                        s.apply_action(who, play.choice(s.legal_actions(who)))
                    assert s.outcome().places
        state.apply_action(seat, rng.choice(state.legal_actions(seat)))
        step += 1
    assert step > 50


def _state_after(players: int, decisions: int, seed: int, variant: str = "standard"):
    state = GAME.new_state(players, seed, variant)
    rng = random.Random(seed)
    for _ in range(decisions):
        seat = state.current_seats()[0]
        state.apply_action(seat, rng.choice(state.legal_actions(seat)))
    return state


def test_samples_are_roughly_uniform() -> None:
    """Over many samples (fixed seed), each unseen card lands in a given place about as often as
    a uniform deal says: the companies of the other hands' unknown cards, the track cards of a
    hand, and the dividend card's position within its part of the deck.  Bounds are wide (about
    five standard deviations): a wrong deal (known cards dealt again, a UP share in the deck, a
    dividend outside its part) is far outside them."""
    state = _state_after(4, 40, 3)
    seat = state.current_seats()[0]
    know = knowledge_of(state, seat)
    assert state.dividends_revealed == 0 and know.dividend_spans
    determiniser = Determiniser(state, know, seed=11)
    other = (seat + 1) % 4
    draws = 3000
    hand_cards: Counter[int] = Counter()
    track_cards: Counter[int] = Counter()
    dividend_at: Counter[int] = Counter()
    open_slots = know.open_share_slots()
    deck_companies = know.deck_cards - sum(k for _, _, k in know.dividend_spans)
    for _ in range(draws):
        sample = determiniser.sample()
        row = sample.hand_shares[other]
        for c in range(NUM_SHARE_KINDS):
            hand_cards[c] += row[c] - know.known[other][c]
        for k in range(NUM_CARD_KINDS):
            track_cards[k] += sample.hand_track[other][k]
        assert UP not in sample.share_deck
        for i, card in enumerate(sample.share_deck):
            if card == DIVIDEND:
                dividend_at[i] += 1
    unknown = know.share_hand_sizes[other] - sum(know.known[other])
    for c in range(NUM_COMPANIES):
        # a company card is in the open places (hands and boxes) with chance (open - UPs) / companies
        expected = draws * unknown * know.share_unseen[c] / (open_slots - know.share_unseen[UP] + deck_companies) \
            * (open_slots - know.share_unseen[UP]) / open_slots
        assert abs(hand_cards[c] - expected) <= 5 * expected ** 0.5 + 5, (c, hand_cards[c], expected)
    expected_up = draws * unknown * know.share_unseen[UP] / open_slots
    assert abs(hand_cards[UP] - expected_up) <= 5 * expected_up ** 0.5 + 5
    size = know.track_hand_sizes[other]
    for k in range(NUM_CARD_KINDS):
        expected = draws * size * know.track_unseen[k] / sum(know.track_unseen)
        assert abs(track_cards[k] - expected) <= 5 * expected ** 0.5 + 5, (k, track_cards[k], expected)
    for lo, hi, k in know.dividend_spans:
        expected = draws * k / (hi - lo)
        for i in range(lo, hi):
            assert abs(dividend_at[i] - expected) <= 5 * expected ** 0.5 + 5, (i, dividend_at[i], expected)
    assert sum(dividend_at.values()) == draws * sum(k for _, _, k in know.dividend_spans)


def test_first_investment_samples_forget_the_other_picks() -> None:
    """Before every seat has picked, the others' picks are hidden: a sample lets them pick again
    (from their dealt hands), keeps the seat's own, and the undealt pile is shuffled."""
    state = GAME.new_state(3, 8)
    state.apply_action(1, state.legal_actions(1)[0])
    state.apply_action(0, state.legal_actions(0)[-1])
    assert state.phase == FIRST_INVEST
    know = knowledge_of(state, 0)
    assert know.pile and know.deck_cards == len(state._pool)
    determiniser = Determiniser(state, know, seed=2)
    piles = set()
    for _ in range(20):
        sample = determiniser.sample()
        assert sample.picks == [state.picks[0], None, None]
        piles.add(tuple(sample._pool))
        _card_totals_hold(sample)
        while not sample.is_terminal():
            who = sample.current_seats()[0]
            sample.apply_action(who, sample.legal_actions(who)[0])
    assert len(piles) == 20


def test_deck_layout_matches_the_engine() -> None:
    """The public layout of the share deck (top first) is where the engine put the dividends."""
    for players in (2, 4, 6):
        for variant in ("standard", "pro"):
            state = _state_after(players, players, 40 + players, variant)  # the first investments made
            deck = list(reversed(state.share_deck))  # top first
            parts = deck_layout(len(deck) - 4, variant)
            assert sum(size for size, _ in parts) == len(deck)
            start = 0
            for size, dividends in parts:
                assert deck[start:start + size].count(DIVIDEND) == dividends
                start += size


def test_inconsistent_knowledge_is_refused() -> None:
    state = _state_after(4, 30, 5)
    know = knowledge_of(state, 0)
    fields = dict(know.__dict__)
    fields["share_unseen"] = tuple(c + 1 for c in know.share_unseen)
    with pytest.raises(ValueError, match="unseen share cards"):
        SeatKnowledge(**fields)
    observation = state.observation(state.current_seats()[0])
    with pytest.raises(ValueError, match="share_deck"):
        from_observation(GAME, observation, [])
    observation = dict(state.observation((state.current_seats()[0] + 1) % 4))
    with pytest.raises(ValueError, match="no decision"):
        from_observation(GAME, observation, [])


def test_the_speed_benchmark_runs_small() -> None:
    from arena.bench.determinise import bench_determinise

    figures = bench_determinise(players=3, positions=2, reps=20)
    assert set(figures) == {"sample", "clone_rng", "clone"}
    assert all(v > 0 for v in figures.values())
