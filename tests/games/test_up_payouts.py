"""Dividend arithmetic (§7.3 companies, §7.4 Union Pacific), incl. every published example."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.union_pacific.payouts import UP_TABLE, company_payout, union_pacific_payout

# -- §7.3 companies -----------------------------------------------------------------


@pytest.mark.parametrize(
    "value,holdings,expected",
    [
        (7, [2, 2, 2], [3, 3, 3]),  # rulebook: three tied leaders, (7 + 3) / 3
        (5, [3, 1, 1, 1], [5, 0, 0, 0]),  # rulebook: one leader, three tied seconds share 2 -> 0 each
        (3, [3, 2, 1], [3, 1, 0]),  # rulebook: holdings 3/2/1
        (6, [4, 2, 1], [6, 3, 0]),  # rulebook: holdings 4/2/1
    ],
    ids=["V7-three-tied-leaders", "V5-leader-three-seconds", "V3-3-2-1", "V6-4-2-1"],
)
def test_rulebook_examples(value: int, holdings: list[int], expected: list[int]) -> None:
    assert company_payout(value, holdings) == expected


@pytest.mark.parametrize("value,expected", [(2, 3), (3, 4), (5, 7), (10, 15), (24, 36)])
def test_a_sole_shareholder_gets_value_plus_half(value: int, expected: int) -> None:
    assert company_payout(value, [0, 4, 0]) == [0, expected, 0]


def test_a_sole_shareholder_with_one_share_still_gets_both_amounts() -> None:
    assert company_payout(9, [1]) == [13]


@pytest.mark.parametrize("holdings", [[0], [0, 0], [0, 0, 0, 0, 0, 0, 0]])
def test_nobody_invested_pays_nothing(holdings: list[int]) -> None:
    assert company_payout(8, holdings) == [0] * len(holdings)


def test_two_tied_leaders_share_value_plus_half_and_the_rest_get_nothing() -> None:
    assert company_payout(9, [3, 1, 3, 2]) == [6, 0, 6, 0]  # (9 + 4) // 2


def test_one_leader_and_one_second() -> None:
    assert company_payout(9, [1, 5, 0]) == [4, 9, 0]


def test_tied_seconds_share_the_half_rounded_down() -> None:
    assert company_payout(9, [5, 2, 2, 1]) == [9, 2, 2, 0]  # H = 4, 4 // 2
    assert company_payout(11, [5, 2, 2, 2]) == [11, 1, 1, 1]  # H = 5, 5 // 3


def test_third_place_and_below_get_nothing() -> None:
    assert company_payout(8, [4, 3, 2, 1]) == [8, 4, 0, 0]


# -- §7.4 Union Pacific -------------------------------------------------------------


def test_the_table_is_the_published_one() -> None:
    assert [list(row) for row in UP_TABLE] == [
        [0, 0, 0, 0, 0],
        [10, 8, 6, 4, 2],
        [15, 12, 9, 6, 3],
        [20, 16, 12, 8, 4],
    ]


def test_rulebook_example_third_dividend_three_tied_for_most() -> None:
    assert union_pacific_payout(3, [4, 4, 4, 1]) == [12, 12, 12, 6]  # (15+12+9)/3; then position 4


@pytest.mark.parametrize("number", [2, 3, 4])
def test_distinct_holdings_take_the_positions_in_order(number: int) -> None:
    assert union_pacific_payout(number, [1, 5, 3, 2, 4]) == [
        UP_TABLE[number - 1][4], UP_TABLE[number - 1][0], UP_TABLE[number - 1][2],
        UP_TABLE[number - 1][3], UP_TABLE[number - 1][1]]


def test_a_tie_below_first_shares_its_positions() -> None:
    assert union_pacific_payout(4, [5, 3, 3, 1]) == [20, 14, 14, 8]  # (16 + 12) // 2


def test_a_tie_rounds_down() -> None:
    assert union_pacific_payout(2, [2, 2, 2]) == [8, 8, 8]  # (10 + 8 + 6) // 3
    assert union_pacific_payout(3, [1, 2, 2]) == [9, 13, 13]  # (15 + 12) // 2 = 13


def test_positions_past_five_are_worth_nothing() -> None:
    assert union_pacific_payout(4, [6, 5, 4, 3, 2, 1]) == [20, 16, 12, 8, 4, 0]


def test_a_tie_straddling_position_five_shares_what_is_left() -> None:
    assert union_pacific_payout(4, [6, 5, 4, 3, 1, 1]) == [20, 16, 12, 8, 2, 2]  # (4 + 0) // 2
    assert union_pacific_payout(4, [1, 1, 1, 1, 1, 1]) == [10] * 6  # (20+16+12+8+4+0) // 6


def test_unused_positions_are_paid_to_nobody() -> None:
    paid = union_pacific_payout(4, [0, 3, 0, 1])
    assert paid == [0, 20, 0, 16]
    assert sum(paid) < sum(UP_TABLE[3])


def test_non_shareholders_are_not_ranked() -> None:
    assert union_pacific_payout(2, [0, 0, 2]) == [0, 0, 10]


def test_the_first_dividend_pays_nothing() -> None:
    assert union_pacific_payout(1, [5, 3, 1]) == [0, 0, 0]


@pytest.mark.parametrize("number", [0, 5, -1])
def test_a_dividend_number_outside_1_to_4_is_refused(number: int) -> None:
    with pytest.raises(ValueError, match="dividend number"):
        union_pacific_payout(number, [1])


# -- properties -------------------------------------------------------------------

holdings_lists = st.lists(st.integers(min_value=0, max_value=12), min_size=1, max_size=7)  # one per participant


@settings(max_examples=300, deadline=None)
@given(value=st.integers(min_value=1, max_value=30), holdings=holdings_lists)
def test_company_payout_properties(value: int, holdings: list[int]) -> None:
    paid = company_payout(value, holdings)
    half = value // 2
    assert len(paid) == len(holdings)
    assert sum(paid) <= value + half
    assert all(p == 0 for p, h in zip(paid, holdings) if h == 0)
    # equal holdings are paid equally; more shares are never paid less
    for i, hi in enumerate(holdings):
        for j, hj in enumerate(holdings):
            if hi == hj:
                assert paid[i] == paid[j]
            elif hi > hj:
                assert paid[i] >= paid[j]
    if any(holdings):
        top = max(holdings)
        assert all(paid[i] > 0 for i, h in enumerate(holdings) if h == top) or value + half < holdings.count(top)


@settings(max_examples=300, deadline=None)
@given(number=st.integers(min_value=1, max_value=4), holdings=holdings_lists)
def test_union_pacific_payout_properties(number: int, holdings: list[int]) -> None:
    paid = union_pacific_payout(number, holdings)
    assert len(paid) == len(holdings)
    holders = sum(1 for h in holdings if h)
    assert sum(paid) <= sum(UP_TABLE[number - 1][:holders])
    assert all(p == 0 for p, h in zip(paid, holdings) if h == 0)
    for i, hi in enumerate(holdings):
        for j, hj in enumerate(holdings):
            if hi == hj:
                assert paid[i] == paid[j]
            elif hi > hj:
                assert paid[i] >= paid[j]


def test_the_shape_of_a_holding_pays_what_company_payout_pays() -> None:
    """company_shape (what the dividends pay with) against company_payout, the definition: every
    holding of 1 to 6 participants with 0 to 4 shares each (7 with 0 to 3), at values 1 to 25."""
    import itertools

    from arena.games.union_pacific.payouts import company_shape

    checked = 0
    for n, most in ((1, 4), (2, 4), (3, 4), (4, 4), (5, 4), (6, 4), (7, 3)):
        for holdings in itertools.product(range(most + 1), repeat=n):
            leaders, seconds = company_shape(holdings)
            for value in range(1, 26):
                paid = [0] * n
                half = value // 2
                if seconds:
                    paid[leaders[0]] = value
                    for i in seconds:
                        paid[i] = half // len(seconds)
                else:
                    for i in leaders:
                        paid[i] = (value + half) // len(leaders)
                assert paid == company_payout(value, holdings), (value, holdings)
                checked += 1
    assert checked > 1_000_000 // 10


def _positional_payout(number: int, holdings: tuple[int, ...]) -> list[int]:
    """§7.4 as written: the distinct counts from the highest take the positions in turn; a tie
    shares the amounts of the positions it takes, rounded down; no share, nothing."""
    table = UP_TABLE[number - 1]
    paid = [0] * len(holdings)
    position = 0
    for count in sorted(set(holdings), reverse=True):
        if count <= 0:
            break
        group = [i for i, h in enumerate(holdings) if h == count]
        for i in group:
            paid[i] = sum(table[position:position + len(group)]) // len(group)
        position += len(group)
    return paid


def test_the_union_pacific_payout_is_the_positional_rule_on_every_holding() -> None:
    """Every holding of 1-5 participants with 0-5 shares, and of 6 with 0-3, at every dividend."""
    from itertools import product

    for players, most in [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5), (6, 3)]:
        for holdings in product(range(most + 1), repeat=players):
            for number in range(1, len(UP_TABLE) + 1):
                assert union_pacific_payout(number, holdings) == _positional_payout(number, holdings), (number, holdings)
