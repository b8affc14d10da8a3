"""Nyström KME additions of issue 16: the two-mixture closed form (MMD-error curves) and
the finite-data distribution of the real-data Fig. 2, each against an independent check."""

import numpy as np
import pytest

import kmeviz as K
from kmeviz.distributions import EmpiricalDistribution, GaussianMixture, nyc_taxi
from kmeviz.experiments.nystrom import nystrom_mmd_error_vs_m


def test_mixture_inner_product_is_the_gaussian_convolution_closed_form():
    """For X ~ N(a, s₁), Y ~ N(b, s₂) in 1-D and k = exp(-(x-y)²/2τ²):
    E k(X, Y) = τ/√(τ² + s₁ + s₂) · exp(-(a - b)²/(2(τ² + s₁ + s₂)))."""
    a, b, s1, s2, tau = 0.3, -1.1, 0.5, 2.0, 0.8
    first = GaussianMixture(np.array([[a]]), [s1])
    second = GaussianMixture(np.array([[b]]), [s2])
    v = tau**2 + s1 + s2
    expected = tau / np.sqrt(v) * np.exp(-((a - b) ** 2) / (2 * v))
    assert first.inner(second, K.GaussianKernel(tau)) == pytest.approx(expected, rel=1e-12)
    assert first.inner(first, K.GaussianKernel(tau)) == first.squared_norm(K.GaussianKernel(tau))


def test_empirical_distribution_errors_match_dense_sums(rng):
    points = rng.normal(size=(300, 2))
    data, k = EmpiricalDistribution(points), K.GaussianKernel(0.7)
    G = k(points, points)
    assert data.squared_norm(k) == pytest.approx(G.mean(), rel=1e-12)
    Z, w = points[:40] + 0.1, rng.uniform(size=40) / 40
    dense = G.mean() - 2 * w @ k(Z, points).mean(axis=1) + w @ k(Z, Z) @ w
    assert data.embedding_error(Z, w, k) == pytest.approx(np.sqrt(dense), rel=1e-10)
    assert set(map(tuple, data.sample(500, rng=0))) <= set(map(tuple, points))


def test_nyc_taxi_is_real_standardised_data():
    X = nyc_taxi()
    assert X.shape == (8784, 3)
    np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(X.std(axis=0), 1.0, rtol=1e-12)


def test_mmd_error_curve_exact_mmd_matches_a_large_sample_estimate():
    """The closed-form MMD of the runner against the unbiased MMD² of 3000 + 3000 draws
    (its standard error is a few per cent of MMD² here: 10 % allowed on MMD); the
    Nyström error at m = n/2 is within 30 % of the empirical one (same n, same rate)."""
    df = nystrom_mmd_error_vs_m((400,), ms=np.array([200]), n_repeats=2, rng=3)
    first, second = df.attrs["mixtures"]
    X, Y = first.sample(3000, rng=1), second.sample(3000, rng=2)
    estimate = K.mmd2(X, Y, K.GaussianKernel(df.attrs["bandwidth"]), estimator="unbiased")
    assert np.sqrt(estimate) == pytest.approx(df.attrs["mmd"], rel=0.1)
    emp = df[df.estimator == "empirical"].mean_error.iloc[0]
    nys = df[df.estimator == "nystrom"].mean_error.iloc[0]
    assert nys == pytest.approx(emp, rel=0.3)
