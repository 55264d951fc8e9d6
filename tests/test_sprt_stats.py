"""The SPRT's statistics (arena/stats): the constrained maximum likelihood, the LLR, the
Elo relation, and the error rates and length measured on simulated bots of known strength."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from arena.stats.simulation import (
    SimulatedPool,
    VectorisedTest,
    run_simulated_tests,
    scores_of,
    simulate_deals,
    strength_for,
)
from arena.stats.sprt import (
    Decision,
    SequentialTest,
    SprtParameters,
    baseline_estimate,
    constrained_multiplier,
    elo_to_score,
    expected_difference,
    log_likelihood_ratio,
    score_to_elo,
)


def test_elo_and_score_are_inverse_and_match_the_leaderboard_model() -> None:
    elos = np.array([-800.0, -100.0, 0.0, 35.5, 400.0])
    assert np.allclose(score_to_elo(elo_to_score(elos)), elos)
    assert elo_to_score(0.0) == pytest.approx(0.5)
    assert elo_to_score(400.0) == pytest.approx(10 / 11)  # docs/ratings.md: 400 points, 91 %
    assert elo_to_score(100.0) == pytest.approx(0.640, abs=1e-3)


def test_the_expected_difference_is_l_of_r_plus_e_minus_l_of_r() -> None:
    assert expected_difference(0.0, 0.3) == pytest.approx(0.0)
    assert expected_difference(50.0, 0.5) == pytest.approx(elo_to_score(50.0) - 0.5)
    r = score_to_elo(0.2)
    assert expected_difference(-30.0, 0.2) == pytest.approx(elo_to_score(r - 30.0) - 0.2)
    # the same Elo gain is worth less score where OLD already wins or loses nearly everything
    assert expected_difference(20.0, 0.95) < expected_difference(20.0, 0.5)
    assert baseline_estimate(0.0, 10) == pytest.approx(0.5 / 11)  # finite Elo even when OLD never scored


def _brute_force_mle(values: np.ndarray, counts: np.ndarray, mean: float) -> np.ndarray:
    """Maximise sum n_i log p_i on the simplex with sum p_i a_i = mean, by a general optimiser."""
    result = minimize(lambda p: -np.sum(counts * np.log(np.maximum(p, 1e-300))), np.full(len(values), 1 / len(values)),
                      method="SLSQP", bounds=[(1e-12, 1.0)] * len(values),
                      constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1.0},
                                   {"type": "eq", "fun": lambda p: p @ values - mean}],
                      options={"ftol": 1e-14, "maxiter": 1000})
    assert result.success, result.message
    return result.x


@pytest.mark.parametrize("mean", [-0.3, 0.0, 0.1, 0.45])
def test_the_constrained_distribution_is_the_maximum_likelihood_one(mean: float) -> None:
    values = np.array([-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0])
    counts = np.array([1.0, 3.0, 5.0, 9.0, 6.0, 2.0, 1.0])
    lam = constrained_multiplier(values, counts[None, :], np.array([mean]))[0]
    p = counts / counts.sum() / (1 + lam * (values - mean))
    assert p.sum() == pytest.approx(1.0, abs=1e-10)
    assert p @ values == pytest.approx(mean, abs=1e-10)
    assert np.all(p > 0)
    assert np.allclose(p, _brute_force_mle(values, counts, mean), atol=2e-5)


def test_warm_start_and_cold_start_find_the_same_multiplier() -> None:
    values = np.linspace(-1, 1, 25)
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 9, size=(50, 25)).astype(float)
    counts[:, 0] += 1e-3
    counts[:, -1] += 1e-3
    means = rng.uniform(-0.4, 0.4, size=50)
    cold = constrained_multiplier(values, counts, means)
    warm = constrained_multiplier(values, counts, means, start=rng.uniform(-0.5, 0.5, size=50))
    assert np.allclose(cold, warm, atol=1e-10)
    slope = (counts * (values - means[:, None]) / (1 + cold[:, None] * (values - means[:, None]))).sum(axis=1)
    assert np.allclose(slope, 0.0, atol=1e-9)


def test_many_observations_give_the_normal_approximation() -> None:
    # Wald's LLR for a mean shift with known variance: n (m1 - m0)(2 x̄ - m0 - m1) / (2 σ²)
    values = np.arange(-12, 13) / 12
    rng = np.random.default_rng(11)
    draws = np.clip(np.rint(rng.normal(0.02, 0.15, size=20_000) * 12), -12, 12).astype(int)
    counts = np.bincount(draws + 12, minlength=25).astype(float)
    x = values[draws + 12]
    m0, m1 = 0.0, 0.01
    llr, _, _ = log_likelihood_ratio(values, counts[None, :], np.array([m0]), np.array([m1]))
    normal = len(x) * (m1 - m0) * (2 * x.mean() - m0 - m1) / (2 * x.var())
    assert llr[0] == pytest.approx(normal, rel=0.02)
    assert llr[0] > 0  # the sample mean (≈ 0.02) is beyond m1: H1 is the better fit


def test_the_llr_depends_on_the_observations_not_their_order() -> None:
    rng = np.random.default_rng(5)
    scores = [(rng.integers(0, 13) / 12, rng.integers(0, 13) / 12) for _ in range(60)]
    forward, backward = SequentialTest(SprtParameters(0, 30)), SequentialTest(SprtParameters(0, 30))
    a = forward.extend(scores)
    b = backward.extend(scores[::-1])
    assert a.llr == pytest.approx(b.llr, abs=1e-9)
    assert a.deals == b.deals == 60
    assert a.new_score == pytest.approx(np.mean([s[0] for s in scores]))


def test_bounds_are_walds_and_bad_parameters_are_refused() -> None:
    p = SprtParameters(elo0=0, elo1=10, alpha=0.05, beta=0.1)
    assert p.upper == pytest.approx(math.log(0.9 / 0.05))
    assert p.lower == pytest.approx(math.log(0.1 / 0.95))
    assert p.decide(p.upper) is Decision.H1 and p.decide(p.lower) is Decision.H0
    assert p.decide(0.0) is Decision.CONTINUE
    for kwargs, message in (({"elo0": 5, "elo1": 5}, "below elo1"), ({"alpha": 0.0}, "alpha and beta"),
                            ({"alpha": 0.6, "beta": 0.5}, "alpha \\+ beta"), ({"elo1": float("inf")}, "finite")):
        with pytest.raises(ValueError, match=message):
            SprtParameters(**{"elo0": 0, "elo1": 10} | kwargs)
    with pytest.raises(ValueError, match="score must be in"):
        SequentialTest(p).add(1.5, 0.5)


def test_bots_that_always_play_alike_are_not_found_better() -> None:
    test = SequentialTest(SprtParameters(0, 10))
    state = test.state()
    while state.decision is Decision.CONTINUE:
        state = test.add(0.5, 0.5)  # the same score every deal: no difference at all
    assert state.decision is Decision.H0
    assert state.elo == pytest.approx(0.0)


def _deals_to_decide(params: SprtParameters, scores: list[tuple[float, float]]) -> tuple[Decision, int]:
    test = SequentialTest(params)
    state = test.state()
    for new, old in scores:
        state = test.add(new, old)
        if state.decision is not Decision.CONTINUE:
            break
    return state.decision, state.deals


def test_a_clearly_better_bot_is_accepted_and_wide_bounds_decide_sooner() -> None:
    scores = [(0.9, 0.4), (1.0, 0.5), (0.75, 0.5), (1.0, 0.25), (0.9, 0.6), (1.0, 0.5), (0.85, 0.35)] * 40
    state = SequentialTest(SprtParameters(0, 200)).extend(scores[:7])
    assert state.elo > 200 and state.elo_ci95 > 0
    # The model guards against outcomes not seen yet (an unseen -1 could pull the mean to elo0), so
    # a gain far beyond elo1 is accepted sooner with bounds near it: docs/tournaments.md gives figures.
    found = {elo1: _deals_to_decide(SprtParameters(0, elo1), scores) for elo1 in (10, 50, 200, 300)}
    assert all(decision is Decision.H1 for decision, _ in found.values())
    assert found[300][1] <= found[200][1] <= 15 < found[50][1] < found[10][1]


def test_simulated_strength_gives_the_wanted_true_elo() -> None:
    even = SimulatedPool(table_size=3, pool_elo=(0.0, 0.0, 0.0))
    assert even.true_elo(25.0) == pytest.approx(25.0)  # with an even pool the definition is plain Bradley-Terry
    mixed = SimulatedPool(table_size=4, pool_elo=(-200.0, 50.0, 120.0, 300.0))
    strength = strength_for(mixed, 15.0)
    assert mixed.true_elo(strength) == pytest.approx(15.0, abs=1e-6)
    assert strength != pytest.approx(15.0, abs=1e-3)  # an uneven pool bends it a little
    # simulated scores have the exact expectation
    rng = np.random.default_rng(2)
    new, old = simulate_deals(mixed, strength, runs=200, first_deal=0, deals=400, rng=rng)
    assert scores_of(new, mixed).mean() == pytest.approx(mixed.expected_score(strength), abs=0.004)
    assert scores_of(old, mixed).mean() == pytest.approx(mixed.expected_score(0.0), abs=0.004)


def test_the_vectorised_runs_are_the_sequential_test_side_by_side() -> None:
    pool = SimulatedPool(table_size=4)
    params = SprtParameters(0, 40)
    new, old = simulate_deals(pool, strength_for(pool, 20.0), runs=8, first_deal=0, deals=150,
                              rng=np.random.default_rng(9))
    runs = VectorisedTest(params, runs=8, pairs=12)
    for j in range(150):
        rows = runs.active
        if rows.size:
            runs.feed(rows, new[rows, j], old[rows, j])
    for r in range(8):
        single = SequentialTest(params)
        state = single.state()
        for j in range(150):
            state = single.add(new[r, j] / 12, old[r, j] / 12)
            if state.decision is not Decision.CONTINUE:
                break
        assert (state.decision.value, state.deals) == (runs.decisions[r], runs.deals[r])
        assert state.llr == pytest.approx(runs.llr[r], abs=1e-9)


@pytest.mark.parametrize(("table_size", "elo1"), [(4, 20.0), (2, 30.0)])
def test_error_rates_stay_within_alpha_and_beta(table_size: int, elo1: float) -> None:
    """Several hundred simulated SPRTs at each hypothesis: NEW exactly elo0 better is accepted
    at most a share α of the time, NEW exactly elo1 better rejected at most β (sampling
    error allowed: 2.5 standard errors), halfway between it goes either way, and the mean
    length agrees with Wald's approximation of the expected sample size."""
    params = SprtParameters(elo0=0.0, elo1=elo1, alpha=0.05, beta=0.05)
    pool = SimulatedPool(table_size=table_size)
    runs = 400
    at0 = run_simulated_tests(params, pool, params.elo0, runs=runs, max_deals=20_000, seed=1)
    at1 = run_simulated_tests(params, pool, params.elo1, runs=runs, max_deals=20_000, seed=2)
    half = run_simulated_tests(params, pool, (params.elo0 + params.elo1) / 2, runs=runs, max_deals=20_000, seed=3)
    for result in (at0, at1, half):
        assert result.share(Decision.CONTINUE) == 0.0  # every run decided
    margin = 2.5 * math.sqrt(0.05 * 0.95 / runs)
    assert at0.share(Decision.H1) <= params.alpha + margin
    assert at1.share(Decision.H0) <= params.beta + margin
    assert 0.35 <= half.share(Decision.H1) <= 0.65

    # Wald: E[N | H0] ≈ ((1-α) log B + α log A) / E[step | H0], a step's mean being -(m1-m0)²/(2σ²)
    rng = np.random.default_rng(4)
    new, old = simulate_deals(pool, 0.0, runs=1, first_deal=0, deals=50_000, rng=rng)
    d = scores_of(new - old, pool)[0]
    m1 = expected_difference(params.elo1, pool.expected_score(0.0))
    step = m1**2 / (2 * d.var())
    expected = ((1 - params.alpha) * params.lower + params.alpha * params.upper) / -step
    assert 0.7 * expected <= at0.mean_deals <= 1.5 * expected
