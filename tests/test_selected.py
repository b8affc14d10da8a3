"""The kernel learned on all the data, relearned in every permutation
(``mmd_test(estimator="selected")``): its normalised MMD² against explicit Grams, its
min-p against a loop, the identity of its reference p-value with the plain unbiased
test, its size (Hemerik & Goeman 2018: exact for any statistic scored on every
relabelling) and what it learns.

Tolerances: the one-pass values against explicit Grams to 1e-10 relative (float64
sums of at most 60² terms in another order); p-values exactly (counts).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import kmeviz as K
from kmeviz.config import config_context
from kmeviz.twosample.resampling import permutation_assignments
from kmeviz.twosample.selected import (
    MAX_DIMENSIONS,
    coordinate_scales,
    coordinate_subsets,
    min_p,
    permutation_p_values,
    selection_values,
)


@pytest.fixture
def samples():
    rng = np.random.default_rng(5)
    return rng.normal(size=(23, 4)), rng.normal(size=(31, 4)) * [1.5, 1, 1, 1]


def slow_normalised(K_full, labels, m, n):
    """MMD²_u of one labelling from an explicit Gram, over FUSE's N̂."""
    x, y = labels.astype(bool), ~labels.astype(bool)
    Kxx, Kyy, Kxy = K_full[np.ix_(x, x)], K_full[np.ix_(y, y)], K_full[np.ix_(x, y)]
    mmd2 = ((Kxx.sum() - np.trace(Kxx)) / (m * (m - 1)) + (Kyy.sum() - np.trace(Kyy))
            / (n * (n - 1)) - 2 * Kxy.mean())
    off = K_full - np.diag(np.diag(K_full))
    p = min(m, n)
    return mmd2 / (np.sqrt((off**2).sum()) / (p * (p - 1)))


def test_every_kernel_and_labelling_matches_explicit_grams(samples):
    X, Y = samples
    Z = np.vstack([X, Y])
    m, n = len(X), len(Y)
    U = permutation_assignments(m, n, 20, np.random.default_rng(0), with_identity=True)
    scales = coordinate_scales(Z)
    subsets = coordinate_subsets(scales)
    reference = K.GaussianKernel(1.7)
    fast = selection_values(X, Y, reference, U, subsets, scales)
    grams = [reference.gram(Z, Z)]
    for S in subsets:
        gaps = sum((Z[:, [j]] - Z[:, j]) ** 2 / (2 * scales[j] ** 2) for j in S)
        grams.append(np.exp(-gaps))
    slow = np.array([[slow_normalised(G, U[:, b], m, n) for b in range(U.shape[1])]
                     for G in grams])
    assert len(subsets) == 4 + 6
    np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-12 * np.abs(slow).max())


def test_min_p_and_the_p_value_match_a_loop():
    values = np.random.default_rng(1).normal(size=(5, 41)).round(1)  # ties included
    p = permutation_p_values(values)
    loop = np.array([[np.mean(row >= row[b]) for b in range(41)] for row in values])
    np.testing.assert_array_equal(p, loop)
    best = values[1:].max(axis=0)
    expected = np.minimum(loop[0], [np.mean(best >= best[b]) for b in range(41)])
    np.testing.assert_array_equal(min_p(values), expected)


def test_its_reference_p_value_is_the_unbiased_tests(samples):
    """The same seed draws the same relabellings: p_ref is the plain unbiased MMD² test's
    p-value, and the combined p-value is at most twice the smaller of p_ref and p_sel
    (Bonferroni's bound on min-p) plus one replicate's step."""
    X, Y = samples
    kernel = K.GaussianKernel(2.0)
    selected = K.mmd_test(X, Y, kernel, estimator="selected", n_resamples=199, rng=3)
    plain = K.mmd_test(X, Y, kernel, estimator="unbiased", n_resamples=199, rng=3)
    assert selected.fitted["p_reference"] == plain.p_value
    smaller = min(selected.fitted["p_reference"], selected.fitted["p_selected"])
    assert smaller <= selected.p_value <= 2 * smaller + 1 / 200


def test_it_learns_the_two_coordinates_that_differ():
    X, Y = K.two_coordinates_two_sample(300, correlation=0.0, scale=1.3, rng=2)
    result = K.mmd_test(X, Y, estimator="selected", n_resamples=200, rng=0)
    assert result.fitted["coordinates"] == (0, 1)
    assert result.fitted["p_selected"] < result.fitted["p_reference"] / 5
    assert result.p_value <= 2 * result.fitted["p_selected"]
    assert "column(s) 0, 1" in str(result)


def test_threads_and_seeds_reproduce_it(samples):
    X, Y = samples
    with config_context(n_threads=1):
        one = K.mmd_test(X, Y, estimator="selected", n_resamples=99, rng=7)
    with config_context(n_threads=2):
        two = K.mmd_test(X, Y, estimator="selected", n_resamples=99, rng=7)
    np.testing.assert_array_equal(one.null_samples, two.null_samples)
    assert one.statistic == two.statistic


def test_wide_constant_and_one_column_samples():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="at most 100 columns"):
        K.mmd_test(rng.normal(size=(20, MAX_DIMENSIONS + 1)),
                   rng.normal(size=(20, MAX_DIMENSIONS + 1)), estimator="selected")
    X, Y = rng.normal(size=(30, 3)), rng.normal(size=(30, 3))
    X[:, 1] = Y[:, 1] = 4.0  # a constant column carries nothing: not searched
    result = K.mmd_test(X, Y, estimator="selected", n_resamples=50, rng=0)
    assert result.null_params["n_kernels"] == 1 + 2 + 1
    assert 1 not in result.fitted["coordinates"]
    single = K.mmd_test(X[:, :1], Y[:, :1], estimator="selected", n_resamples=50, rng=0)
    assert single.null_params["n_kernels"] == 2 and 0 < single.p_value <= 1
    kernel = K.PrecomputedKernel(K.GaussianKernel(1.0).gram(np.vstack([X, Y]),
                                                            np.vstack([X, Y])))
    Xi, Yi = kernel.samples(np.repeat([0, 1], 30))
    with pytest.raises(TypeError, match="coordinates"):
        K.mmd_test(Xi, Yi, kernel, estimator="selected")
    assert "coordinates" in K.MMD_TESTS.get("selected", "permutation").unmet(Xi, Yi, kernel)


def test_the_comparison_runs_it_with_its_words():
    X, Y = K.two_coordinates_two_sample(80, correlation=0.0, scale=1.4, rng=2)
    table = K.compare_tests(X, Y, tests=["selected"], n_resamples=100,
                            rng=0)
    row = table.iloc[0]
    assert np.isfinite(row.p_value)
    assert "min-p" in row.note and "learned kernel on column(s)" in row.note


def _size(n_draws, B, n=40):
    rejections = 0
    for seed in range(n_draws):
        X, Y = K.two_coordinates_two_sample(n, correlation=0.0, rng=1000 + seed)
        rejections += K.mmd_test(X, Y, estimator="selected", n_resamples=B,
                                 rng=seed).reject
    return rejections


def test_the_size_is_at_most_alpha_within_binomial_error():
    """60 null draws: at most the binomial(60, 0.05) 99.8 % quantile (a valid test fails
    this with probability ≤ 0.002); the slow test below runs 500."""
    assert _size(60, 99) <= stats.binom(60, 0.05).ppf(0.998)


@pytest.mark.slow
def test_the_size_over_500_draws_is_within_its_interval():
    k = _size(500, 199)
    assert stats.binomtest(k, 500).proportion_ci(0.99).low <= 0.05


def test_its_memory_stays_within_the_registered_estimate():
    """O(N·B + tiles): the traced peak at N = 4000, d = 4, B = 200 is under the registry's
    ``memory`` estimate (which the budget reads), itself under the N² of a whole Gram
    (128 MB)."""
    import tracemalloc

    X, Y = K.two_coordinates_two_sample(2000, dim=4, correlation=0.0, rng=0)
    spec = K.MMD_TESTS.get("selected", "permutation")
    tracemalloc.start()
    try:
        K.mmd_test(X, Y, estimator="selected", n_resamples=200, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    estimate = spec.estimated_memory(4000, 4, 200)
    assert peak < estimate < 8 * 4000**2 / 2, (peak / 2**20, estimate / 2**20)
