"""Ratings: batch Plackett-Luce/Elo fit with bootstrap intervals over deals, and the live Elo column."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from scipy import optimize, stats

from leaderboard import plackett_luce
from leaderboard.ratings import (
    REFERENCE,
    RatedMatch,
    Rating,
    fit,
    fit_ratings,
    live_elo,
    live_elo_history,
)
from leaderboard.synthetic import synthetic_matches

TRUE_ELO = {"ant": 1250.0, "bee": 1400.0, "cat": 1500.0, "dog": 1600.0, "eel": 1750.0}  # mean 1500


def simulate(
    true: dict[str, float], matches: int, table: int, seed: int, prefix: str = "m"
) -> list[RatedMatch]:
    """Finishing orders drawn from Plackett-Luce on strengths 10**(R/400).

    Plackett-Luce is an exponential race, so i finishes ahead of j with probability
    s_i / (s_i + s_j) at any table: Elo's formula, pair by pair.
    """
    rng = np.random.default_rng(seed)
    names = sorted(true)
    strength = np.array([true[n] for n in names]) * math.log(10) / 400
    result = []
    for m in range(matches):
        seated = rng.choice(len(names), size=table, replace=False)
        # Gumbel-max sampling of a Plackett-Luce order: sort by log-strength + Gumbel noise.
        finish = seated[np.argsort(-(strength[seated] + rng.gumbel(size=table)))]
        places = {names[b]: place for place, b in enumerate(finish, start=1)}
        result.append(RatedMatch(f"{prefix}{m:05d}", (0, m), places))
    return result


def ci_width(ratings: dict[str, Rating]) -> float:
    return float(np.mean([r.ci_high - r.ci_low for r in ratings.values()]))


# --------------------------------------------------------------------------- batch fit


def test_recovers_known_strengths_order_and_gaps():
    ratings = fit_ratings(simulate(TRUE_ELO, matches=1000, table=4, seed=7), bootstrap=50, seed=1)
    fitted = {name: r.elo for name, r in ratings.items()}
    assert sorted(fitted, key=fitted.get) == sorted(TRUE_ELO, key=TRUE_ELO.get)
    # Tolerance: over 40 simulated data sets of this size the per-bot standard error
    # was at most 10.3 Elo (and the bootstrap CI width ~33 Elo, i.e. ~4 SE), so 40 Elo
    # is about 4 standard errors: a failure means a real bias, not bad luck.
    for name, true in TRUE_ELO.items():
        assert fitted[name] == pytest.approx(true, abs=40)
    names = sorted(TRUE_ELO, key=TRUE_ELO.get)
    for low, high in zip(names, names[1:]):
        assert fitted[high] - fitted[low] == pytest.approx(TRUE_ELO[high] - TRUE_ELO[low], abs=50)
    assert np.mean(list(fitted.values())) == pytest.approx(1500, abs=1e-9)


def test_mixed_table_sizes_recover_order():
    matches = []
    for table in (2, 3, 5):
        matches += simulate(TRUE_ELO, matches=400, table=table, seed=table, prefix=f"t{table}-")
    fitted = {name: r.elo for name, r in fit_ratings(matches, bootstrap=0).items()}
    assert sorted(fitted, key=fitted.get) == sorted(TRUE_ELO, key=TRUE_ELO.get)
    for name, true in TRUE_ELO.items():
        assert fitted[name] == pytest.approx(true, abs=40)


def shuffled(matches: list[RatedMatch], rng: random.Random) -> list[RatedMatch]:
    """The same results, arriving in another order, with places dicts in another insertion order."""
    copies = []
    for m in matches:
        items = list(m.places.items())
        rng.shuffle(items)
        copies.append(RatedMatch(m.key, m.order, dict(items), m.deal))
    rng.shuffle(copies)
    return copies


def test_completion_order_does_not_change_a_single_bit():
    matches = simulate(TRUE_ELO, matches=300, table=4, seed=3)
    matches += simulate(TRUE_ELO, matches=100, table=3, seed=4, prefix="x")
    matches += [
        RatedMatch(f"duo{i}", (1, i), {"ant": 1 + i % 3, REFERENCE: 2 - i % 2, "eel": 3 - i % 3})
        for i in range(30)
    ]
    matches += [RatedMatch("tie", (2, 0), {"bee": 1, "cat": 1, "dog": 3})]
    matches += synthetic_matches(TRUE_ELO, 200, seed=6, ties=0.1, prefix="deal")  # deals, ties, the reference
    reference = fit_ratings(matches, bootstrap=40, seed=5)
    rng = random.Random(0)
    for _ in range(3):
        assert fit_ratings(shuffled(matches, rng), bootstrap=40, seed=5) == reference
    assert list(reference) == sorted(reference)
    one_step = fit_ratings(matches, bootstrap=40, seed=5, method="one-step")
    assert fit_ratings(shuffled(matches, rng), bootstrap=40, seed=5, method="one-step") == one_step


def test_bootstrap_seed_fixes_intervals_and_leaves_point_fit_alone():
    matches = simulate(TRUE_ELO, matches=200, table=3, seed=11)
    first = fit_ratings(matches, bootstrap=60, seed=1)
    assert fit_ratings(matches, bootstrap=60, seed=1) == first
    other = fit_ratings(matches, bootstrap=60, seed=2)
    assert [r.elo for r in other.values()] == [r.elo for r in first.values()]
    assert [r.ci_low for r in other.values()] != [r.ci_low for r in first.values()]
    no_ci = fit_ratings(matches, bootstrap=0)
    assert [r.elo for r in no_ci.values()] == [r.elo for r in first.values()]
    assert all(r.ci_low is None and r.ci_high is None for r in no_ci.values())


def test_intervals_contain_the_estimate_and_shrink_with_more_data():
    small = fit_ratings(simulate(TRUE_ELO, matches=100, table=4, seed=21), bootstrap=100, seed=0)
    large = fit_ratings(simulate(TRUE_ELO, matches=2000, table=4, seed=22), bootstrap=100, seed=0)
    for ratings in (small, large):
        for r in ratings.values():
            assert r.ci_low < r.elo < r.ci_high
    # 20x the data should narrow the intervals by about sqrt(20) ~ 4.5; ask for 3x.
    assert ci_width(large) * 3 < ci_width(small)


def test_interval_matches_the_binomial_bootstrap_of_a_duel():
    # 1600 games, x wins 960: resampling whole matches resamples x's win count,
    # Binomial(1600, 0.6), and each resample's fit is x = 1500 + logit(p)/2 on the
    # Elo scale.  So the 95% percentile interval follows from binomial quantiles.
    games, wins = 1600, 960
    matches = [
        RatedMatch(f"g{i:04d}", (i,), {"x": 1, "y": 2} if i < wins else {"x": 2, "y": 1})
        for i in range(games)
    ]
    x = fit_ratings(matches, bootstrap=4000, seed=3)["x"]

    def rating(p: float) -> float:
        return 1500 + 200 / math.log(10) * math.log(p / (1 - p))

    # Tolerance 0.7 Elo: win-count steps of 1/1600 (0.23 Elo), Monte Carlo error of
    # 4000 resamples (~0.2 Elo) and the prior's one virtual draw (< 0.1 Elo); a 90%
    # interval instead of 95% would be off by 1.4 Elo at each end.
    assert x.elo == pytest.approx(rating(0.6), abs=0.1)
    assert x.ci_low == pytest.approx(rating(stats.binom.ppf(0.025, games, 0.6) / games), abs=0.7)
    assert x.ci_high == pytest.approx(rating(stats.binom.ppf(0.975, games, 0.6) / games), abs=0.7)


def test_unbeaten_bot_is_finite_and_top():
    matches = [RatedMatch("m0", (0,), {"champ": 1, "ant": 2, "bee": 3})]
    matches += simulate({"ant": 1400.0, "bee": 1500.0, "cat": 1600.0}, matches=60, table=2, seed=2)
    matches += [
        RatedMatch(f"c{i}", (1, i), {"champ": 1, **{n: 2 + j for j, n in enumerate(pair)}})
        for i, pair in enumerate([("ant", "bee"), ("bee", "cat"), ("ant", "cat")] * 3)
    ]
    ratings = fit_ratings(matches, bootstrap=50, seed=0)
    champ = ratings["champ"]
    assert all(math.isfinite(v) for v in (champ.elo, champ.ci_low, champ.ci_high))
    assert champ.elo == max(r.elo for r in ratings.values())
    assert champ.elo < 1500 + 1500  # the prior keeps it at a sane distance


def test_two_bots_one_result_stay_finite_and_symmetric():
    ratings = fit_ratings([RatedMatch("only", (0,), {"winner": 1, "loser": 2})], bootstrap=10)
    assert ratings["winner"].elo > 1500 > ratings["loser"].elo
    assert ratings["winner"].elo - 1500 == pytest.approx(1500 - ratings["loser"].elo, abs=1e-9)
    assert ratings["winner"].elo < 2000


def test_symmetric_tie_only_record_gives_equal_ratings():
    matches = [RatedMatch(f"t{i}", (i,), {"ant": 1, "bee": 1, "cat": 1}) for i in range(10)]
    ratings = fit_ratings(matches, bootstrap=20)
    assert {r.elo for r in ratings.values()} == {1500.0}


def test_a_tie_counts_as_half_a_win():
    split = [RatedMatch("a", (0,), {"x": 1, "y": 2}), RatedMatch("b", (1,), {"x": 2, "y": 1})]
    tied = [RatedMatch("a", (0,), {"x": 1, "y": 1}), RatedMatch("b", (1,), {"x": 1, "y": 1})]
    assert fit_ratings(split, bootstrap=0)["x"].elo == 1500.0
    assert fit_ratings(tied, bootstrap=0)["x"].elo == 1500.0
    # In a table of 3, a shared first place beats the third player and draws the other.
    shared = [RatedMatch(f"s{i}", (i,), {"x": 1, "y": 1, "z": 3}) for i in range(5)]
    ratings = fit_ratings(shared, bootstrap=0)
    assert ratings["x"].elo == pytest.approx(ratings["y"].elo, abs=1e-9)
    assert ratings["x"].elo > 1500 > ratings["z"].elo


def test_reference_participant_is_fitted_and_flagged_but_not_in_the_mean():
    # The imaginary shareholder always beats both bots of every two-player game.
    matches = simulate({"ant": 1450.0, "bee": 1550.0}, matches=40, table=2, seed=4)
    matches = [
        RatedMatch(m.key, m.order, {**{n: p + 1 for n, p in m.places.items()}, REFERENCE: 1})
        for m in matches
    ]
    ratings = fit_ratings(matches, bootstrap=30)
    assert ratings[REFERENCE].reference is True
    assert not ratings["ant"].reference and not ratings["bee"].reference
    assert ratings[REFERENCE].elo > max(ratings["ant"].elo, ratings["bee"].elo)
    assert (ratings["ant"].elo + ratings["bee"].elo) / 2 == pytest.approx(1500, abs=1e-9)


def test_reference_between_two_bots_sits_near_the_middle():
    matches = [RatedMatch(f"g{i}", (i,), {"strong": 1, REFERENCE: 2, "weak": 3}) for i in range(20)]
    ratings = fit_ratings(matches, bootstrap=0)
    assert ratings["strong"].elo > ratings[REFERENCE].elo > ratings["weak"].elo
    assert (ratings["strong"].elo + ratings["weak"].elo) / 2 == pytest.approx(1500, abs=1e-9)
    # Not exactly in the middle: Plackett-Luce reads the order stage by stage (strong beat
    # two, then the reference beat one), which is not symmetric between top and bottom.
    assert ratings[REFERENCE].elo == pytest.approx(1500, abs=5)


def test_no_matches_gives_empty_result():
    assert fit_ratings([]) == {}


def test_single_bot_and_bot_without_opponents():
    assert fit_ratings([RatedMatch("solo", (0,), {"lonely": 1})]) == {
        "lonely": Rating("lonely", 1500.0, 1500.0, 1500.0, reference=False)
    }
    matches = [RatedMatch("a", (0,), {"x": 1, "y": 2}), RatedMatch("b", (1,), {"alone": 1})]
    ratings = fit_ratings(matches, bootstrap=20)
    assert set(ratings) == {"alone", "x", "y"}
    assert ratings["alone"].elo == pytest.approx(1500, abs=1e-6)
    assert ratings["x"].elo > 1500 > ratings["y"].elo


def test_disconnected_groups_are_each_centred_by_the_prior():
    group_a = simulate({"a1": 1300.0, "a2": 1700.0}, matches=50, table=2, seed=1, prefix="a")
    group_b = simulate({"b1": 1400.0, "b2": 1600.0}, matches=50, table=2, seed=2, prefix="b")
    ratings = fit_ratings(group_a + group_b, bootstrap=0)
    assert all(math.isfinite(r.elo) for r in ratings.values())
    assert ratings["a2"].elo > ratings["a1"].elo and ratings["b2"].elo > ratings["b1"].elo


# --------------------------------------------------------------------------- the model itself


def brute_force_elo(matches: list[RatedMatch]) -> dict[str, float]:
    """The posterior mode written out plainly, as a check of the fast fit.

    Every order consistent with the ties is enumerated, its Plackett-Luce
    log-likelihood computed stage by stage, and the orders averaged; plus one
    virtual drawn duel per participant against a 1500 opponent; the mean of the
    real participants fixed at 1500.  Minimised by BFGS with numeric gradients.
    """
    names = sorted({n for m in matches for n in m.places})
    index = {n: i for i, n in enumerate(names)}
    real = np.array([n != REFERENCE for n in names])
    tables = []
    for m in matches:
        groups = [[index[n] for n in m.places if m.places[n] == p] for p in sorted(set(m.places.values()))]
        tables.append([sum(c, ()) for c in itertools.product(*[itertools.permutations(g) for g in groups])])

    def centred(x: np.ndarray) -> np.ndarray:
        return x - x[real].mean()

    def minus_log_posterior(x: np.ndarray) -> float:
        theta = centred(x)
        total = 0.0
        for orders in tables:
            for order in orders:
                for stage in range(len(order)):
                    total += (theta[order[stage]] - np.logaddexp.reduce(theta[list(order[stage:])])) / len(orders)
        total -= 0.5 * np.sum(np.logaddexp(0, theta) + np.logaddexp(0, -theta))
        return -total

    result = optimize.minimize(minus_log_posterior, np.zeros(len(names)), method="BFGS", options={"gtol": 1e-10})
    theta = centred(result.x)
    return {n: 1500 + 400 / math.log(10) * theta[i] for i, n in enumerate(names)}


def test_fit_is_the_plackett_luce_posterior_mode_with_ties_averaged():
    rng = random.Random(5)
    pool = ["a", "b", "c", "d", REFERENCE]
    matches = []
    for i in range(30):
        k = rng.randint(2, 4)
        places = sorted(rng.randint(1, k) for _ in range(k))  # ties of 2, 3 and 4 happen
        matches.append(RatedMatch(f"m{i}", (i,), dict(zip(rng.sample(pool, k), places))))
    matches += [RatedMatch("solo", (99,), {"e": 1}), RatedMatch("all-tied", (100,), {"a": 2, "b": 2, "c": 2})]
    assert any(len(set(m.places.values())) < len(m.places) for m in matches)
    got = fit_ratings(matches, bootstrap=0)
    want = brute_force_elo(matches)
    assert set(got) == set(want)
    for name, elo in want.items():
        assert got[name].elo == pytest.approx(elo, abs=2e-3)  # BFGS on numeric gradients: ~1e-4 Elo


def test_a_table_reads_stage_by_stage_not_pair_by_pair():
    # Plackett-Luce: "a wins a table of four" is one stage of evidence against the three,
    # not three separate duels, so it moves a less than three duel wins would.
    opponents = [{"b": 2, "c": 3, "d": 4}, {"b": 3, "c": 4, "d": 2}, {"b": 4, "c": 2, "d": 3}]
    table = [RatedMatch(f"t{i}", (i,), {"a": 1, **opponents[i % 3]}) for i in range(30)]
    duels = [RatedMatch(f"d{i}{o}", (i,), {"a": 1, o: 2}) for i in range(10) for o in "bcd"]
    pl, pairs = fit_ratings(table, bootstrap=0)["a"].elo, fit_ratings(duels, bootstrap=0)["a"].elo
    assert 1500 < pl and 1500 < pairs
    # 30 table wins: P(a first of 4) ~ 30/31; 30 duel wins: P(a ahead) ~ 30/31 against each of 3 opponents.
    assert pl != pytest.approx(pairs, abs=20)


def test_elo_scale_one_duel_probability():
    # P(x ahead of y) = 1 / (1 + 10**(-d/400)): 1000 duels won 3 to 1 give d = 400 log10(3) ~ 191 Elo.
    matches = [RatedMatch(f"g{i}", (i,), {"x": 1, "y": 2} if i % 4 else {"x": 2, "y": 1}) for i in range(1000)]
    ratings = fit_ratings(matches, bootstrap=0)
    assert ratings["x"].elo - ratings["y"].elo == pytest.approx(400 * math.log10(3), abs=1.0)  # the prior: < 1


def test_a_tie_of_more_than_sixteen_is_refused():
    with pytest.raises(ValueError, match="a tie of 17 participants"):
        fit_ratings([RatedMatch("crowd", (0,), {f"p{i}": 1 for i in range(17)})], bootstrap=0)


def test_participant_keys_need_not_be_names():
    # Bot versions as (name, version) tuples, next to the reference's string key.
    matches = synthetic_matches({"ant": 1400.0, "bee": 1500.0, "cat": 1600.0}, 120, seed=2, ties=0.1)
    as_tuples = [RatedMatch(m.key, m.order, {(n, "1.0") if n != REFERENCE else n: p for n, p in m.places.items()},
                            m.deal) for m in matches]
    by_name, by_tuple = fit_ratings(matches, bootstrap=20), fit_ratings(as_tuples, bootstrap=20)
    for name, rating in by_name.items():
        other = by_tuple[(name, "1.0") if name != REFERENCE else name]
        assert other.elo == pytest.approx(rating.elo, abs=1e-9)
        assert other.reference is rating.reference


# --------------------------------------------------------------------------- deals and the bootstrap


def test_the_rotations_of_one_deal_are_resampled_together():
    base = simulate(TRUE_ELO, matches=300, table=3, seed=8)
    # Each result three times: as three rotations of one deal, or as three unrelated matches.
    one_deal = [RatedMatch(f"{m.key}-{r}", m.order + (r,), m.places, deal=m.key) for m in base for r in range(3)]
    unrelated = [RatedMatch(f"{m.key}-{r}", m.order + (r,), m.places) for m in base for r in range(3)]
    width_base = ci_width(fit_ratings(base, bootstrap=200, seed=1))
    width_deal = ci_width(fit_ratings(one_deal, bootstrap=200, seed=1))
    width_unrelated = ci_width(fit_ratings(unrelated, bootstrap=200, seed=1))
    # Copies of one deal add no independent evidence: about the width of the base data.
    assert width_deal == pytest.approx(width_base, rel=0.15)
    # Taken as independent, the same data look sqrt(3) times more precise than they are.
    assert width_unrelated == pytest.approx(width_base / math.sqrt(3), rel=0.15)


def test_one_step_bootstrap_agrees_with_refits_on_plenty_of_data():
    matches = synthetic_matches(TRUE_ELO, 3000, table_sizes=(2, 3, 4), seed=4, ties=0.02)
    refit = fit(matches, bootstrap=200, seed=3, method="refit")
    one_step = fit(matches, bootstrap=200, seed=3, method="one-step")
    assert (refit.method, one_step.method) == ("refit", "one-step")
    for name, r in refit.ratings.items():
        o = one_step.ratings[name]
        assert o.elo == r.elo
        width = r.ci_high - r.ci_low
        assert abs(o.ci_low - r.ci_low) < 0.1 * width and abs(o.ci_high - r.ci_high) < 0.1 * width


def test_auto_refits_small_data_and_steps_once_on_large(monkeypatch):
    matches = synthetic_matches(TRUE_ELO, 200, seed=4)
    assert fit(matches, bootstrap=50).method == "refit"
    monkeypatch.setattr(plackett_luce, "REFIT_WORK", 10.0)
    assert fit(matches, bootstrap=50).method == "one-step"
    assert fit(matches, bootstrap=0).method is None
    with pytest.raises(ValueError, match="method must be"):
        fit(matches, method="fast")


def test_likelihood_of_superiority_comes_from_the_resamples():
    result = fit(simulate(TRUE_ELO, matches=400, table=4, seed=12), bootstrap=200, seed=0)
    assert result.superiority("eel", "ant") == 1.0 and result.superiority("ant", "eel") == 0.0
    for a, b in itertools.combinations(TRUE_ELO, 2):
        p = result.superiority(a, b)
        assert p + result.superiority(b, a) == pytest.approx(1.0)
        ra, rb = result.ratings[a], result.ratings[b]
        if ra.ci_low > rb.ci_high:  # intervals apart: a is above b in nearly every resample
            assert p > 0.95
    tied = [RatedMatch(f"t{i}", (i,), {"x": 1 + i % 2, "y": 2 - i % 2}) for i in range(40)]
    assert fit(tied, bootstrap=200).superiority("x", "y") == pytest.approx(0.5, abs=0.15)
    assert fit(tied, bootstrap=0).superiority("x", "y") is None


@pytest.mark.slow
def test_intervals_cover_the_true_ratings_about_95_percent_of_the_time():
    """Over many simulated tournaments of bots of known strength, the 95% intervals
    contain the true rating about 95% of the time, and the fitted order is right when
    the data are plenty.  The rotations of a deal are correlated (shared luck), which
    resampling whole deals accounts for and resampling matches would not."""
    true = {"ant": 1300.0, "bee": 1420.0, "cat": 1500.0, "dog": 1580.0, "eel": 1700.0}
    reference = 1350.0
    centre = float(np.mean(list(true.values())))
    target = {**{n: e - centre + 1500 for n, e in true.items()}, REFERENCE: reference - centre + 1500}
    datasets = 100
    covered, covered_by_match = [], []
    for r in range(datasets):
        matches = synthetic_matches(true, 500, table_sizes=(2, 3, 4), seed=100 + r, deal_luck=0.7,
                                    reference_elo=reference)
        ratings = fit_ratings(matches, bootstrap=200, seed=r)
        covered.append(np.mean([ratings[n].ci_low <= t <= ratings[n].ci_high for n, t in target.items()]))
        by_match = fit_ratings([RatedMatch(m.key, m.order, m.places) for m in matches], bootstrap=200, seed=r)
        covered_by_match.append(np.mean([by_match[n].ci_low <= t <= by_match[n].ci_high for n, t in target.items()]))
    # Each data set's share of covered participants has mean 0.95 and a variance no larger
    # than a Bernoulli's (a [0, 1] variable), so the binomial sd over the data sets bounds the
    # mean's: 3 sd is 0.065 for 100 data sets.
    tolerance = 3 * math.sqrt(0.95 * 0.05 / datasets)
    print(f"coverage {np.mean(covered):.3f}, resampling matches instead of deals {np.mean(covered_by_match):.3f}")
    assert abs(np.mean(covered) - 0.95) < tolerance
    assert np.mean(covered_by_match) < 0.95 - tolerance
    large = fit_ratings(synthetic_matches(true, 6000, table_sizes=(2, 3, 4), seed=1, reference_elo=reference),
                        bootstrap=0)
    assert sorted(target, key=lambda n: large[n].elo) == sorted(target, key=target.get)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: RatedMatch("", (0,), {"a": 1}), "non-empty string"),
        (lambda: RatedMatch("k", [0], {"a": 1}), "order must be a tuple"),
        (lambda: RatedMatch("k", (0,), {}), "places is empty"),
        (lambda: RatedMatch("k", (0,), {"a": 0}), "place of 'a' must be an int >= 1"),
        (lambda: RatedMatch("k", (0,), {"a": True}), "place of 'a' must be an int >= 1"),
        (lambda: RatedMatch("k", (0,), {"a": 1.5}), "place of 'a' must be an int >= 1"),
    ],
)
def test_bad_match_is_refused(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_duplicate_key_and_bad_bootstrap_are_refused():
    twice = [RatedMatch("same", (0,), {"a": 1, "b": 2}), RatedMatch("same", (1,), {"a": 2, "b": 1})]
    with pytest.raises(ValueError, match="duplicate match key 'same'"):
        fit_ratings(twice)
    with pytest.raises(ValueError, match="duplicate match key 'same'"):
        live_elo(twice)
    with pytest.raises(ValueError, match="bootstrap must be an int >= 0"):
        fit_ratings(twice[:1], bootstrap=-1)


# --------------------------------------------------------------------------- live Elo


def test_live_elo_textbook_two_player_update():
    assert live_elo([RatedMatch("m", (0,), {"a": 1, "b": 2})]) == {"a": 1516.0, "b": 1484.0}
    assert live_elo([RatedMatch("m", (0,), {"a": 1, "b": 1})]) == {"a": 1500.0, "b": 1500.0}


def test_live_elo_multiplayer_uses_k_over_n_minus_one_and_pre_match_ratings():
    first = RatedMatch("m1", (0,), {"a": 1, "b": 2, "c": 3})
    # Each of 2 opponents is worth K/2 = 16: a wins both (+16), b one of each (0), c none (-16).
    assert live_elo([first]) == pytest.approx({"a": 1516.0, "b": 1500.0, "c": 1484.0})
    second = RatedMatch("m2", (1,), {"c": 1, "b": 2, "a": 3})
    after = live_elo([second, first])  # list order is irrelevant; `order` decides

    def expected(mine: float, theirs: float) -> float:
        return 1 / (1 + 10 ** ((theirs - mine) / 400))

    before = {"a": 1516.0, "b": 1500.0, "c": 1484.0}
    score = {("a", "b"): 0, ("a", "c"): 0, ("b", "a"): 1, ("b", "c"): 0}
    score |= {("c", "a"): 1, ("c", "b"): 1}
    for name in before:
        others = [o for o in before if o != name]
        change = 16 * sum(score[name, o] - expected(before[name], before[o]) for o in others)
        assert after[name] == pytest.approx(before[name] + change, abs=1e-12)


def test_live_elo_follows_schedule_order_and_history_matches():
    a_first = RatedMatch("k1", (0, 1), {"a": 1, "b": 2})
    b_second = RatedMatch("k2", (0, 2), {"a": 2, "b": 1})
    ratings = live_elo([b_second, a_first])
    assert ratings["b"] > ratings["a"]  # the latest result weighs most
    reversed_order = [
        RatedMatch("k1", (0, 2), a_first.places),
        RatedMatch("k2", (0, 1), b_second.places),
    ]
    assert live_elo(reversed_order)["a"] > live_elo(reversed_order)["b"]
    history = live_elo_history([b_second, a_first])
    assert [key for key, _ in history] == ["k1", "k2"]
    assert history[0][1] == {"a": 1516.0, "b": 1484.0}
    assert history[-1][1] == ratings


def test_live_elo_history_lists_only_the_match_participants():
    matches = [RatedMatch("x", (0,), {"a": 1, "b": 2}), RatedMatch("y", (1,), {"c": 1, "d": 2})]
    history = live_elo_history(matches)
    assert [set(ratings) for _, ratings in history] == [{"a", "b"}, {"c", "d"}]
    assert live_elo(matches) == {"a": 1516.0, "b": 1484.0, "c": 1516.0, "d": 1484.0}


def test_live_elo_equal_orders_fall_back_to_key():
    one = RatedMatch("b-key", (0,), {"a": 2, "b": 1})
    two = RatedMatch("a-key", (0,), {"a": 1, "b": 2})
    assert [k for k, _ in live_elo_history([one, two])] == ["a-key", "b-key"]


def test_live_elo_is_zero_sum_and_rewards_the_strong():
    matches = simulate(TRUE_ELO, matches=500, table=4, seed=9)
    matches += [RatedMatch(f"r{i}", (1, i), {"ant": 1, REFERENCE: 2, "eel": 3}) for i in range(5)]
    ratings = live_elo(matches, k=24, initial=1000)
    assert sum(ratings.values()) == pytest.approx(1000 * len(ratings), abs=1e-6)
    real = {n: r for n, r in ratings.items() if n != REFERENCE}
    assert max(real, key=real.get) == "eel" and min(real, key=real.get) == "ant"
    for _, after in live_elo_history(matches[:50]):
        assert len(after) == 4


def test_live_elo_refuses_bad_arguments():
    with pytest.raises(ValueError, match="k must be a finite number > 0"):
        live_elo([], k=0)
    with pytest.raises(ValueError, match="initial must be a finite number"):
        live_elo([], initial=math.inf)
    mixed = [RatedMatch("a", (0,), {"x": 1, "y": 2}), RatedMatch("b", ("late",), {"x": 1, "y": 2})]
    with pytest.raises(ValueError, match="match orders cannot be compared"):
        live_elo(mixed)
