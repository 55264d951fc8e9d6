"""The pure pairing generator: counts, subsets, seat balance, seeds, determinism, errors."""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys
from collections import Counter

import pytest

from arena.scheduler import Pairing, generate_schedule
from arena.scheduler.pairings import schedule_length

BOTS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"]


@pytest.mark.parametrize(
    ("n", "sizes"),
    [(2, [2]), (3, [2, 3]), (4, [3]), (5, [2, 3, 4, 5]), (6, [6]), (7, [2, 4, 6])],
)
@pytest.mark.parametrize("rounds", [1, 3])
def test_match_count_is_binomial_times_table_size_per_round(n, sizes, rounds):
    schedule = generate_schedule(BOTS[:n], sizes, rounds=rounds, seed=11)
    per_size = Counter(p.table_size for p in schedule)
    assert per_size == {k: rounds * math.comb(n, k) * k for k in sizes}
    assert len(schedule) == rounds * sum(math.comb(n, k) * k for k in sizes)
    assert schedule_length(n, sizes, rounds) == len(schedule)  # counted without generating it


def test_schedule_length_refuses_what_generate_schedule_refuses():
    with pytest.raises(ValueError, match="needs at least 4 bots"):
        schedule_length(3, [4], 1)
    with pytest.raises(ValueError, match="rounds must be at least 1"):
        schedule_length(3, [2], 0)


def test_index_is_position_and_order_is_round_then_ascending_size():
    schedule = generate_schedule(BOTS[:5], [4, 2, 3], rounds=2, seed=3)
    assert [p.index for p in schedule] == list(range(len(schedule)))
    keys = [(p.round, p.table_size) for p in schedule]
    assert keys == sorted(keys)
    assert {p.round for p in schedule} == {1, 2}


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_every_subset_present_in_combination_order_with_all_rotations(k):
    bots = BOTS[:6]
    schedule = generate_schedule(bots, [k], rounds=1, seed=5)
    subsets_in_order = list(dict.fromkeys(p.subset for p in schedule))
    assert subsets_in_order == list(itertools.combinations(bots, k))
    for subset in subsets_in_order:
        seatings = [p.seats for p in schedule if p.subset == subset]
        assert len(seatings) == k
        # Each bot sits in each seat exactly once across the subset's matches.
        for seat in range(k):
            assert sorted(s[seat] for s in seatings) == sorted(subset)
        # Every seating is a rotation of the subset (the cyclic order is kept).
        for seats in seatings:
            shift = seats.index(subset[0])
            assert seats[shift:] + seats[:shift] == subset


def test_seat_balance_within_each_table_size():
    schedule = generate_schedule(BOTS, [2, 3, 5], rounds=2, seed=9)
    for k in (2, 3, 5):
        seats = Counter(
            (bot, seat) for p in schedule if p.table_size == k for seat, bot in enumerate(p.seats)
        )
        expected = 2 * math.comb(len(BOTS) - 1, k - 1)  # rounds * subsets containing the bot
        assert set(seats.values()) == {expected}
        assert len(seats) == len(BOTS) * k


def test_rotations_share_one_seed_and_subsets_and_rounds_differ():
    schedule = generate_schedule(BOTS, [2, 3, 4], rounds=3, seed=2024)
    by_table = {}
    for p in schedule:
        by_table.setdefault((p.round, p.subset), set()).add(p.seed)
    assert all(len(seeds) == 1 for seeds in by_table.values())
    seeds = [next(iter(s)) for s in by_table.values()]
    assert len(set(seeds)) == len(seeds)
    assert all(0 <= s < 2**63 for s in seeds)
    assert all(isinstance(s, int) for s in seeds)


def test_same_subset_gets_a_new_seed_each_round():
    schedule = generate_schedule(BOTS[:3], [3], rounds=4, seed=1)
    per_round = {p.round: p.seed for p in schedule}
    assert len(set(per_round.values())) == 4


def test_deterministic_for_same_inputs():
    first = generate_schedule(BOTS, [2, 4], rounds=2, seed=77, variant="pro")
    second = generate_schedule(list(BOTS), (4, 2), rounds=2, seed=77, variant="pro")
    assert first == second
    assert all(isinstance(p, Pairing) and p.variant == "pro" for p in first)


def test_seeds_do_not_depend_on_the_interpreter_hash_seed():
    # Python's hash() of strings changes with PYTHONHASHSEED; the deck seeds must not.
    code = (
        "from arena.scheduler import generate_schedule;"
        "print([p.seed for p in generate_schedule(['a', 'b', 'c'], [2, 3], rounds=2, seed=4)])"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for hash_seed in ("1", "2")
    }
    here = str([p.seed for p in generate_schedule(["a", "b", "c"], [2, 3], rounds=2, seed=4)])
    assert outputs == {here}


def test_different_tournament_seed_changes_every_deck_seed():
    a = generate_schedule(BOTS[:5], [3], rounds=2, seed=1)
    b = generate_schedule(BOTS[:5], [3], rounds=2, seed=2)
    assert [p.seats for p in a] == [p.seats for p in b]
    assert all(x.seed != y.seed for x, y in zip(a, b))


def test_seed_depends_on_subset_not_on_other_entrants():
    small = generate_schedule(BOTS[:3], [2], rounds=1, seed=8)
    large = generate_schedule(BOTS[:5], [2], rounds=1, seed=8)
    seeds_large = {p.subset: p.seed for p in large}
    assert all(seeds_large[p.subset] == p.seed for p in small)


def test_two_bots_at_table_size_two():
    schedule = generate_schedule(["x", "y"], [2], rounds=1, seed=0)
    assert [p.seats for p in schedule] == [("x", "y"), ("y", "x")]
    assert schedule[0].seed == schedule[1].seed


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bots": ["solo"]}, "at least 2 bots"),
        ({"bots": []}, "at least 2 bots"),
        ({"bots": ["a", "b", "a"]}, "duplicate bot names: a"),
        ({"bots": ["a", ""]}, "non-empty strings"),
        ({"bots": "abc"}, "single string"),
        ({"table_sizes": [1]}, "table size 1 is outside 2..6"),
        ({"table_sizes": [7]}, "table size 7 is outside 2..6"),
        ({"bots": ["a", "b", "c"], "table_sizes": [4]}, "size 4 needs at least 4 bots, only 3"),
        ({"table_sizes": []}, "at least one table size"),
        ({"table_sizes": [3, 3]}, "more than once: 3"),
        ({"table_sizes": [2.0]}, "table size must be an int"),
        ({"rounds": 0}, "rounds must be at least 1"),
        ({"rounds": -2}, "rounds must be at least 1"),
        ({"seed": "7"}, "seed must be an int"),
        ({"variant": "expert"}, "unknown variant 'expert'"),
        ({"gauntlet": "zulu"}, "gauntlet candidate 'zulu' is not among the bots"),
    ],
)
def test_errors_name_the_problem(kwargs, message):
    args = {"bots": BOTS[:4], "table_sizes": [2, 3], "rounds": 1, "seed": 0} | kwargs
    with pytest.raises(ValueError, match=message):
        generate_schedule(**args)


# -- the gauntlet: one candidate against the field --------------------------------------


@pytest.mark.parametrize(("n", "sizes"), [(2, [2]), (4, [2, 3, 4]), (6, [2, 4, 6]), (7, [3, 5])])
@pytest.mark.parametrize("rounds", [1, 2])
def test_gauntlet_plays_every_field_subset_with_the_candidate_and_nothing_else(n, sizes, rounds):
    bots = BOTS[:n]
    candidate = bots[n // 2]  # anywhere in the entry order
    field = [b for b in bots if b != candidate]
    schedule = generate_schedule(bots, sizes, rounds=rounds, seed=5, gauntlet=candidate)
    assert all(candidate in p.seats for p in schedule)  # the field never plays itself
    assert [p.index for p in schedule] == list(range(len(schedule)))
    assert Counter(p.table_size for p in schedule) == {k: rounds * math.comb(n - 1, k - 1) * k for k in sizes}
    for round_number in range(1, rounds + 1):
        for k in sizes:
            opponents = [tuple(b for b in p.subset if b != candidate) for p in schedule
                         if p.round == round_number and p.table_size == k]
            # each (k-1)-subset of the field once per seat rotation, in combination order
            assert list(dict.fromkeys(opponents)) == list(itertools.combinations(field, k - 1))
            assert Counter(opponents) == {o: k for o in itertools.combinations(field, k - 1)}
            # the candidate sits in every seat equally often
            seats = Counter(p.seats.index(candidate) for p in schedule
                            if p.round == round_number and p.table_size == k)
            assert seats == {s: math.comb(n - 1, k - 1) for s in range(k)}


def test_gauntlet_is_the_round_robin_minus_the_tables_without_the_candidate():
    bots = BOTS[:5]
    full = generate_schedule(bots, [2, 3, 4], rounds=2, seed=41)
    gauntlet = generate_schedule(bots, [2, 3, 4], rounds=2, seed=41, gauntlet="charlie")
    kept = [p for p in full if "charlie" in p.subset]
    # same tables, seatings and deck seeds, in the same order; only the indexes close up
    assert [(p.round, p.subset, p.seats, p.seed) for p in gauntlet] == [(p.round, p.subset, p.seats, p.seed)
                                                                        for p in kept]
    assert len(gauntlet) < len(full)
