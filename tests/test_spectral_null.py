"""The spectral null's leading-eigenvalue route against the full spectrum (issue 29): the
kept eigenvalues, the tail's exact moments and the p-values."""

from __future__ import annotations

import numpy as np
import pytest

import kmeviz as K
from kmeviz.twosample import spectral_eigenvalues, spectral_null
from kmeviz.twosample.spectra import EXACT_MAX, SpectralNull


def _pair(n, d, shift, seed=0):
    rng = np.random.default_rng(seed)
    X, Y = rng.standard_normal((n, d)), rng.standard_normal((n, d)) + shift
    return X, Y, K.GaussianKernel(K.median_heuristic(X, Y))


def _p_value(spectrum, statistic, n, estimator, B=100_000, seed=1):
    rng, hits = np.random.default_rng(seed), 0
    for _ in range(B // 5000):
        hits += int(np.sum(spectrum.draws(n, n, estimator, 5000, rng) >= statistic))
    return (1 + hits) / (1 + B)


@pytest.mark.parametrize("d", [2, 5, 20])
def test_leading_eigenvalues_and_tail_moments_match_the_full_spectrum(d):
    """Ritz values of 3 subspace iterations: the top 20 to 1e-8 relative (a Gaussian
    Gram's spectrum decays fast, so the gap after 100 is large); the tail's sum and sum
    of squares are exact up to rounding (1e-9 of the trace)."""
    X, Y, k = _pair(400, d, 0.0)
    full = spectral_eigenvalues(X, Y, k)[::-1]
    lead = spectral_null(X, Y, k, rank=100)
    assert lead.eigenvalues.shape == (100,)
    np.testing.assert_allclose(lead.eigenvalues[:20], full[:20], rtol=1e-8)
    assert lead.tail_sum == pytest.approx(full.sum() - lead.eigenvalues.sum(),
                                          abs=1e-9 * full.sum())
    assert lead.tail_square_sum == pytest.approx(
        (full**2).sum() - (lead.eigenvalues**2).sum(), abs=1e-9 * (full**2).sum())


@pytest.mark.parametrize("d, shift, rank", [(5, 0.0, 60), (5, 0.15, 60), (2, 0.2, 12),
                                           (20, 0.1, 60)])
def test_truncated_p_values_are_within_0_01_of_the_full_spectrum(d, shift, rank):
    """N = 1200 with few eigenvalues kept (a tail share up to ~20 % of Σλ at d = 20):
    the p-values of both estimators agree within 0.01. With B = 100 000 draws each, the
    Monte Carlo s.d. of the difference is ≤ 0.0023, so 0.01 is 4.4 s.d.; the seeds are
    fixed."""
    X, Y, k = _pair(600, d, shift)
    full = SpectralNull(spectral_eigenvalues(X, Y, k))
    lead = spectral_null(X, Y, k, rank=rank)
    assert lead.truncated
    for estimator in ("biased", "unbiased"):
        stat = K.mmd2(X, Y, k, estimator=estimator)
        assert abs(_p_value(lead, stat, 600, estimator)
                   - _p_value(full, stat, 600, estimator)) <= 0.01


def test_the_tail_keeps_the_null_mean_and_variance():
    """E = c Σλ and Var = 2 c² Σλ² of the full null hold for the truncated draws (5 s.e.)."""
    lam = np.geomspace(1.0, 1e-3, 300)
    lead = SpectralNull(lam[:20], lam[20:].sum(), (lam[20:] ** 2).sum())
    draws = lead.draws(50, 50, "biased", 200_000, np.random.default_rng(0))
    c = 1 / 50 + 1 / 50
    assert abs(draws.mean() - c * lam.sum()) < 5 * draws.std() / np.sqrt(draws.size)
    assert draws.var() == pytest.approx(2 * c**2 * (lam**2).sum(), rel=0.02)
    centred = lead.draws(50, 50, "unbiased", 200_000, np.random.default_rng(1))
    assert abs(centred.mean()) < 5 * centred.std() / np.sqrt(centred.size)


def test_the_test_uses_every_eigenvalue_up_to_the_exact_size_and_the_leading_ones_above():
    small = K.mmd_test(*_pair(EXACT_MAX // 2, 3, 0.0)[:2], estimator="unbiased",
                       null="spectral", n_resamples=99, rng=0)
    assert small.null_params["tail_sum"] == 0.0
    X, Y, k = _pair(EXACT_MAX // 2 + 100, 3, 0.0)
    large = K.mmd_test(X, Y, k, estimator="unbiased", null="spectral", n_resamples=99, rng=0)
    assert large.null_params["tail_sum"] > 0.0
    assert large.null_params["eigenvalues"].shape == (200,)
    again = K.mmd_test(X, Y, k, estimator="unbiased", null="spectral", n_resamples=99, rng=0)
    assert again.p_value == large.p_value  # the sketch is seeded: a function of the data


def test_spectral_null_names_a_bad_rank():
    X, Y, k = _pair(50, 2, 0.0)
    with pytest.raises(ValueError, match="rank"):
        spectral_null(X, Y, k, rank=0)
