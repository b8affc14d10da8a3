"""MMDAggInc, HSICAggInc and KSDAggInc (Schrab, Kim, Guedj & Gretton 2022) against slow
obvious implementations of their incomplete U-statistics and wild bootstraps, the
complete statistics they become at R = n − 1, and their size.

Tolerances: the band engine sums the same float64 terms as the loops below in another
order (BLAS blocks), so values agree to a few ulps of the largest term: 1e-12 relative to
the largest |value|. The identity with the complete tests is the same sums in other
tiles: 1e-12 relative too.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from scipy import stats

import kmeviz as K
from kmeviz.gof.incomplete import ksdagginc_values
from kmeviz.incomplete import band_forms, design_pairs, design_size, incomplete_signs
from kmeviz.independence.incomplete import hsicagginc_values
from kmeviz.twosample.incomplete import mmdagginc_values

RTOL = 1e-12


def gaussian(A, B, kernel):
    return np.exp(-((A - B) ** 2).sum(axis=1) / (2.0 * kernel.bandwidth**2))


def slow_mmd_h(X, Y, kernel, i, j):
    return (gaussian(X[i], X[j], kernel) + gaussian(Y[i], Y[j], kernel)
            - gaussian(X[i], Y[j], kernel) - gaussian(Y[i], X[j], kernel))


def slow_values(h_rows, signs, i, j):
    """Σ_D s_i s_j h / |D| for every row of h_rows (K, |D|) and column of signs."""
    return np.stack([(h[:, None] * signs[i] * signs[j]).sum(axis=0) for h in h_rows]) / i.size


@pytest.fixture
def samples():
    rng = np.random.default_rng(0)
    return rng.normal(size=(90, 3)), rng.normal(0.3, 1.0, size=(90, 3)), rng


@pytest.mark.parametrize("R", [1, 7, 89, 500])
def test_mmdagginc_is_the_mean_of_h_over_the_superdiagonals(samples, R):
    X, Y, rng = samples
    collection = K.mmdagginc_kernels(X, Y)
    signs = incomplete_signs(90, 6, rng)
    i, j = design_pairs(90, R)
    assert i.size == design_size(90, R) and np.all((j - i >= 1) & (j - i <= R))
    slow = slow_values([slow_mmd_h(X, Y, k, i, j) for k in collection.kernels], signs, i, j)
    fast = mmdagginc_values(X, Y, collection, R, signs)
    np.testing.assert_allclose(fast, slow, rtol=0, atol=RTOL * np.abs(slow).max())


def test_hsicagginc_pairs_the_halves_of_the_rows(samples):
    X, Y, rng = samples
    Y = X[:, :2] + rng.normal(size=(90, 2))
    kernels = K.hsicagg_kernels(X, Y)
    N = 45
    signs = incomplete_signs(N, 5, rng)
    i, j = design_pairs(N, 20)
    rows = [slow_mmd_h(X[:N], X[N:], kx, i, j) * slow_mmd_h(Y[:N], Y[N:], ky, i, j)
            for kx in kernels.x.kernels for ky in kernels.y.kernels]
    slow = slow_values(rows, signs, i, j)
    fast = hsicagginc_values(X, Y, kernels, 20, signs)
    np.testing.assert_allclose(fast, slow, rtol=0, atol=RTOL * np.abs(slow).max())


def test_ksdagginc_averages_the_imq_stein_kernel(samples):
    X, _, rng = samples
    target = K.NormalTarget(np.zeros(3))
    collection = K.ksdagg_kernels(X)
    signs = incomplete_signs(90, 4, rng)
    i, j = design_pairs(90, 30)
    S, d, beta = target.score(X), 3, -0.5
    u = X[i] - X[j]
    r2 = (u**2).sum(axis=1)
    rows = []
    for k in collection.kernels:  # Kalinke et al. Eq. 3 with the IMQ (c² + r²)^β
        b = k.c**2 + r2
        rows.append((S[i] * S[j]).sum(axis=1) * b**beta
                    - ((S[i] - S[j]) * u).sum(axis=1) * 2 * beta * b ** (beta - 1)
                    - 2 * d * beta * b ** (beta - 1)
                    - 4 * beta * (beta - 1) * r2 * b ** (beta - 2))
    slow = slow_values(rows, signs, i, j)
    fast = ksdagginc_values(X, target, collection, 30, signs)
    np.testing.assert_allclose(fast, slow, rtol=0, atol=RTOL * np.abs(slow).max())


def test_all_superdiagonals_give_the_complete_statistics(samples):
    """R = n − 1: MMDAgg's and KSDAgg's U-statistics (their wild bootstrap's first column)."""
    X, Y, _ = samples
    collection = K.mmdagginc_kernels(X, Y)
    complete = K.mmd_test(X, Y, collection, estimator="mmdagg", null="wild-bootstrap",
                          n_resamples=5, rng=0).fitted["values"][:, 0]
    incomplete = K.mmd_test(X, Y, collection, estimator="mmdagginc", superdiagonals=89,
                            n_resamples=5, rng=0).fitted["values"][:, 0]
    np.testing.assert_allclose(incomplete, complete, rtol=0,
                               atol=RTOL * np.abs(complete).max())
    target = K.NormalTarget(np.zeros(3))
    complete = K.ksd_test(X, target, estimator="ksdagg", n_resamples=5,
                          rng=0).fitted["values"][:, 0]
    incomplete = K.ksd_test(X, target, estimator="ksdagginc", superdiagonals=10**6,
                            n_resamples=5, rng=0).fitted["values"][:, 0]
    np.testing.assert_allclose(incomplete, complete, rtol=0,
                               atol=RTOL * np.abs(complete).max())


def test_the_sums_do_not_depend_on_threads_or_block_size(samples):
    X, Y, rng = samples
    collection = K.mmdagginc_kernels(X, Y)
    signs = incomplete_signs(90, 8, rng)
    with K.config_context(n_threads=1):
        one = mmdagginc_values(X, Y, collection, 13, signs)
    with K.config_context(n_threads=2):
        two = mmdagginc_values(X, Y, collection, 13, signs)
    assert np.array_equal(one, two)
    from kmeviz.twosample.incomplete import mmd_h_tiles
    small = band_forms(mmd_h_tiles(X, Y, collection), len(collection), 90, 13, signs,
                       block_rows=5) / design_size(90, 13)
    np.testing.assert_allclose(small, one, rtol=0, atol=RTOL * np.abs(one).max())
    with K.config_context(dtype="float32"):  # the products in float32: 1e-6 relative
        single = mmdagginc_values(X, Y, collection, 13, signs)
    np.testing.assert_allclose(single, one, rtol=0, atol=1e-5 * np.abs(one).max())


def test_a_seed_reproduces_the_test_and_bad_settings_name_themselves(samples):
    X, Y, _ = samples
    a = K.mmd_test(X, Y, estimator="mmdagginc", rng=4)
    b = K.mmd_test(X, Y, estimator="mmdagginc", rng=4)
    assert a.p_value == b.p_value and a.statistic == b.statistic
    table = a.fitted["kernels"]  # one row per kernel, the decision is any kernel's
    assert len(table) == 10 and a.reject == bool(table["reject"].any())
    with pytest.raises(ValueError, match="superdiagonals"):
        K.mmd_test(X, Y, estimator="mmdagginc", superdiagonals=0)
    with pytest.raises(TypeError, match="superdiagonals"):
        K.hsic_test(X, Y, estimator="hsicagginc", superdiagonals=2.5)
    with pytest.raises(ValueError, match="at least 4"):
        K.hsic_test(X[:3], Y[:3], estimator="hsicagginc", rows="iid")
    with pytest.raises(TypeError, match="KernelCollection"):
        K.mmd_test(X, Y, K.GaussianKernel(1.0), estimator="mmdagginc")


def test_unequal_samples_say_which_rows_the_design_left_out(samples):
    """MMDAggInc pairs x_i with y_i: with n_X ≠ n_Y the result and the comparison table
    say how many rows it did not use (the statistic is that of the first N rows)."""
    X, Y, _ = samples
    alone = K.mmd_test(X, Y[:70], estimator="mmdagginc", n_resamples=50, rng=0)
    paired = K.mmd_test(X[:70], Y[:70], alone.kernel, estimator="mmdagginc",
                        n_resamples=50, rng=0)
    assert alone.statistic == paired.statistic and "note" not in paired.fitted
    assert "left out the last 20 rows of X" in alone.fitted["note"]
    table = K.compare_tests(X, Y[:70], tests=["mmdagginc"], n_resamples=50, rng=0)
    assert "left out the last 20 rows of X" in table.note.iloc[0]


def test_memory_is_linear_in_n():
    """At n = 20000 a sample, B1 = B2 = 200: the signs (n × 401 bytes, 8 MB) and one
    block's tiles, not an n × n matrix (3.2 GB) nor the n·R × B product (6 GB)."""
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(20_000, 5)), rng.normal(size=(20_000, 5))
    tracemalloc.start()
    K.mmd_test(X, Y, estimator="mmdagginc", n_resamples=200, rng=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 60e6, peak


def _size(test, sampler, draws: int, n: int) -> int:
    rejections = 0
    for seed in range(draws):
        rng = np.random.default_rng(seed)
        rejections += test(*sampler(n, rng), rng=rng).reject
    return rejections


SIZE_CASES = {
    "mmdagginc": (lambda X, Y, rng: K.mmd_test(X, Y, estimator="mmdagginc", n_resamples=200,
                                               rng=rng),
                  lambda n, rng: (rng.uniform(size=(n, 2)), rng.uniform(size=(n, 2)))),
    "hsicagginc": (lambda X, Y, rng: K.hsic_test(X, Y, estimator="hsicagginc",
                                                 n_resamples=200, rng=rng),
                   lambda n, rng: (rng.uniform(size=(n, 1)), rng.uniform(size=(n, 1)))),
    "ksdagginc": (lambda X, T, rng: K.ksd_test(X, T, estimator="ksdagginc", n_resamples=200,
                                               rng=rng),
                  lambda n, rng: (rng.normal(size=(n, 2)), K.NormalTarget(np.zeros(2)))),
}


@pytest.mark.parametrize("name", list(SIZE_CASES))
def test_the_size_is_at_most_alpha_within_binomial_error(name):
    """60 null draws at n = 200: a level-α test rejects at most 9 of them with
    probability 0.998 (binomial(60, 0.05)); the full run is the slow test below and
    ``kmeviz reproduce agginc``."""
    test, sampler = SIZE_CASES[name]
    assert _size(test, sampler, 60, 200) <= stats.binom(60, 0.05).ppf(0.998)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SIZE_CASES))
def test_the_size_over_500_draws_is_within_its_interval(name):
    """500 null draws: the 99 % Clopper–Pearson interval of the rate reaches up to α
    (a level-corrected test may be conservative, never above α beyond sampling error)."""
    test, sampler = SIZE_CASES[name]
    k = _size(test, sampler, 500, 200)
    assert stats.binomtest(k, 500).proportion_ci(0.99).low <= 0.05


@pytest.mark.parametrize("columns", [2048, 100, 300])
def test_hsicagg_panels_give_every_replicate_of_the_slow_formula(monkeypatch, columns):
    """HSICAgg's panel pass (rows of 256, column chunks) against Σ_{i≠j} ε_i ε_j K̃_ij L̃_ij
    / n² from the full centred Grams, for the observed labelling and every replicate, with
    the same signs; 1e-12 relative (sums of the same terms in another order)."""
    import kmeviz.independence.aggregated as aggregated
    from kmeviz.aggregation import rademacher_columns

    monkeypatch.setattr(aggregated, "PANEL_COLUMNS", columns)
    rng = np.random.default_rng(3)
    X, n = rng.normal(size=(300, 2)), 300
    Y = X[:, :1] + rng.normal(size=(n, 1))
    kernels = K.hsicagg_kernels(X, Y)
    fast = aggregated.hsicagg_wild_bootstrap(X, Y, kernels, 20, np.random.default_rng(7))
    signs = rademacher_columns(n, 40, np.random.default_rng(7))
    H = np.eye(n) - 1.0 / n

    def centred(kernel, Z):
        return H @ kernel.gram(Z, Z) @ H

    slow = []
    for kx in kernels.x.kernels:
        for ky in kernels.y.kernels:
            M = centred(kx, X) * centred(ky, Y)
            np.fill_diagonal(M, 0.0)
            slow.append(np.einsum("ib,ij,jb->b", signs, M, signs) / n**2)
    slow = np.array(slow)
    values = fast.fitted["values"]
    np.testing.assert_allclose(values, slow, rtol=0, atol=RTOL * np.abs(slow).max())


@pytest.mark.parametrize("side", [1, 64, 65, 100, 256, 301])
def test_the_halved_diagonal_form_is_the_whole_quadratic_form(side):
    """``symmetric_form`` (diagonal blocks halved recursively down to 64-side leaves, odd
    sides included) gives vᵀDv of the whole symmetric block for every column (1e-12
    relative: sums of ≤ 301² products in another order)."""
    from kmeviz.independence.aggregated import symmetric_form

    rng = np.random.default_rng(side)
    A = rng.normal(size=(side, side))
    D, V = A + A.T, rng.choice([-1.0, 1.0], size=(side, 7))
    whole = np.einsum("ib,ij,jb->b", V, D, V)
    np.testing.assert_allclose(symmetric_form(D, V), whole, rtol=0,
                               atol=1e-12 * np.abs(D).sum())
