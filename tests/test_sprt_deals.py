"""The SPRT's deals (arena/scheduler/sprt_deals.py): twins, rotations, the open-ended
sequence, indexes, seeds and the scores fed to the test."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from arena.scheduler.sprt_deals import SprtEntrants, deal, deal_number_of, deal_scores, deals

POOL = ("alpha", "bravo", "charlie", "delta")
IMAGINARY = "(imaginary)"


def entrants(sizes=(2, 4), pool=POOL) -> SprtEntrants:
    return SprtEntrants(candidate="new", baseline="old", pool=pool, table_sizes=sizes)


@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_a_deal_is_every_rotation_twice_new_and_old_in_the_same_seat(size: int) -> None:
    d = deal(entrants((size,)), key=99, number=7)
    assert d.table_size == size and len(d.opponents) == size - 1
    assert len(d.pairings) == 2 * size and list(d.indexes) == [p.index for p in d.pairings]
    assert {p.seed for p in d.pairings} == {d.seed} and {p.round for p in d.pairings} == {7}
    new_side, old_side = d.pairings[0::2], d.pairings[1::2]
    for new, old in zip(new_side, old_side):  # twins: OLD exactly where NEW sat, the rest unchanged
        assert [("new" if b == "old" else b) for b in old.seats] == list(new.seats)
        assert old.index == new.index + 1
    for side, bot in ((new_side, "new"), (old_side, "old")):
        assert sorted(p.seats.index(bot) for p in side) == list(range(size))  # every seat once
        assert all(set(p.seats) == {bot, *d.opponents} for p in side)
        assert all(p.subset == (bot, *d.opponents) for p in side)


def test_the_sequence_alternates_sizes_cycles_the_pool_and_numbers_indexes_without_gaps() -> None:
    e = entrants((2, 4))
    first = list(itertools.islice(deals(e, key=5), 20))
    assert [d.number for d in first] == list(range(1, 21))
    assert [d.table_size for d in first] == [2, 4] * 10
    assert [p.index for d in first for p in d.pairings] == list(range(sum(2 * d.table_size for d in first)))
    twos = [frozenset(d.opponents) for d in first if d.table_size == 2]
    assert twos[:4] == [frozenset(c) for c in itertools.combinations(POOL, 1)] and twos[4:8] == twos[:4]
    fours = Counter(frozenset(d.opponents) for d in first if d.table_size == 4)
    assert set(fours) == {frozenset(c) for c in itertools.combinations(POOL, 3)}
    assert deal(e, 5, 13) == first[12]  # one deal without the ones before it


def test_the_deal_of_any_index() -> None:
    e = entrants((3, 2, 5), pool=POOL + ("echo",))
    for d in itertools.islice(deals(e, key=1), 30):
        assert {deal_number_of(e, i) for i in d.indexes} == {d.number}
    with pytest.raises(ValueError, match="int >= 0"):
        deal_number_of(e, -1)


def test_seeds_come_from_the_key_and_the_deal_not_from_new_or_old() -> None:
    e = entrants()
    seeds = [d.seed for d in itertools.islice(deals(e, key=12345), 40)]
    assert len(set(seeds)) == 40 and all(0 <= s < 2**63 for s in seeds)
    other_key = [d.seed for d in itertools.islice(deals(e, key=12346), 40)]
    assert not set(seeds) & set(other_key)
    # another candidate against the same baseline meets the same deals under the same key
    v3 = SprtEntrants(candidate="new-v3", baseline="old", pool=POOL, table_sizes=(2, 4))
    assert [d.seed for d in itertools.islice(deals(v3, key=12345), 40)] == seeds
    arrangements = {d.opponents for d in itertools.islice(deals(entrants((4,)), key=3), 60)}
    assert len(arrangements) > 4  # the opponents' order around the table varies with the seed


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"baseline": "new"}, "the same bot"),
        ({"pool": ()}, "at least one bot"),
        ({"pool": ("alpha", "old")}, "'old' is in the pool"),
        ({"pool": ("alpha", "alpha")}, "more than once: alpha"),
        ({"table_sizes": (4,), "pool": ("alpha", "bravo")}, "table size 4 needs 3 pool bots"),
        ({"table_sizes": (7,)}, "outside 2..6"),
        ({"table_sizes": ()}, "at least one table size"),
        ({"table_sizes": (2, 2)}, "more than once"),
        ({"variant": "expert"}, "unknown variant"),
        ({"candidate": ""}, "non-empty"),
    ],
)
def test_bad_entrants_are_refused_with_the_reason(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SprtEntrants(**{"candidate": "new", "baseline": "old", "pool": POOL, "table_sizes": (2,)} | kwargs)


def test_scores_count_opponents_beaten_over_all_rotations_ties_half() -> None:
    d = deal(entrants((3,)), key=0, number=1)
    a, b = d.opponents
    places = {}
    for p in d.pairings:
        bot = p.subset[0]
        if bot == "new":  # NEW wins twice, then ties for first with a
            places[p.index] = {bot: 1, a: 2, b: 3} if p.index < d.first_index + 4 else {bot: 1, a: 1, b: 3}
        else:  # OLD: last, second, first
            order = (p.index - d.first_index) // 2
            places[p.index] = [{bot: 3, a: 1, b: 2}, {bot: 2, a: 1, b: 3}, {bot: 1, a: 2, b: 3}][order]
    new, old = deal_scores(d, places)
    assert new == Fraction(2 + 2 + 1, 6) + Fraction(1, 12) and old == Fraction(0 + 1 + 2, 6)
    del places[d.first_index + 3]
    with pytest.raises(KeyError):
        deal_scores(d, places)


def test_the_imaginary_shareholder_is_one_more_opponent_in_the_two_player_game() -> None:
    d = deal(entrants((2,)), key=0, number=1)
    (a,) = d.opponents
    places = {}
    for p in d.pairings:
        bot = p.subset[0]
        # NEW beats a and the imaginary shareholder; OLD beats a but finishes behind the imaginary
        places[p.index] = {bot: 1, a: 2, IMAGINARY: 3} if bot == "new" else {IMAGINARY: 1, bot: 2, a: 3}
    assert deal_scores(d, places) == (Fraction(1), Fraction(1, 2))
