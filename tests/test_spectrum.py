import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kmeviz as K
from kmeviz.embeddings.spectrum import (
    effective_dimension,
    fit_decay,
    gram_spectrum,
    lambda_of_m,
    landmarks_exponential_decay,
    landmarks_polynomial_decay,
    sufficient_landmarks,
)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 10), min_size=1, max_size=40),
       st.floats(1e-6, 1e3), st.floats(1.0001, 100))
def test_effective_dimension_decreasing_and_bounded(sigma, lam, factor):
    sigma = np.array(sigma)
    n1, n2 = effective_dimension(sigma, lam), effective_dimension(sigma, lam * factor)
    assert n2 <= n1 + 1e-12
    rank = np.count_nonzero(sigma)
    assert n1 <= min(rank, sigma.sum() / lam) + 1e-9


def test_effective_dimension_on_a_gram_spectrum(rng):
    ev = gram_spectrum(rng.normal(size=(300, 2)), K.GaussianKernel(1.0))
    lams = np.logspace(-6, 1, 30)
    N = effective_dimension(ev, lams)
    assert N.shape == (30,) and np.all(np.diff(N) < 0)
    assert np.all(N <= np.minimum(np.linalg.matrix_rank(np.diag(ev)), ev.sum() / lams) + 1e-9)
    assert ev.sum() == pytest.approx(1.0)  # tr(K/n) = k(x, x) = 1 for the Gaussian kernel


def test_nystrom_spectrum_matches_exact_leading_eigenvalues(rng):
    X = rng.normal(size=(2500, 2))
    k = K.GaussianKernel(1.0)
    exact = gram_spectrum(X, k)
    approx = gram_spectrum(X, k, max_exact=1000, n_landmarks=600, rng=0)
    np.testing.assert_allclose(approx[:10], exact[:10], rtol=0.02)


def test_decay_fit_recognises_synthetic_spectra():
    i = np.arange(1, 101)
    exp_fit = fit_decay(np.exp(-0.3 * i))
    assert exp_fit.kind == "exponential" and exp_fit.rate == pytest.approx(0.3)
    pol_fit = fit_decay(i ** -2.0)  # σ_i ~ i^{-1/γ} with γ = 1/2
    assert pol_fit.kind == "polynomial" and pol_fit.gamma == pytest.approx(0.5)
    np.testing.assert_allclose(pol_fit.predict(i), i**-2.0, rtol=1e-8)
    np.testing.assert_allclose(exp_fit.predict(i), np.exp(-0.3 * i), rtol=1e-8)


def test_landmark_rules():
    m = sufficient_landmarks(delta=0.05)
    assert m >= 67 * np.log(m / 0.05)  # m satisfies the condition ...
    assert (m - 1) < 67 * np.log((m - 1) / 0.05)  # ... and is the smallest that does
    assert lambda_of_m(100, delta=0.05) == pytest.approx(12 * np.log(2000) / 100)
    assert landmarks_exponential_decay(1e4, delta=0.05) == pytest.approx(100 * np.log(2000))
    assert landmarks_polynomial_decay(1e4, 1.0, delta=0.05) == pytest.approx(
        1e4 * np.log(2e5))


def test_bad_spectrum_inputs():
    with pytest.raises(ValueError, match="lam must be > 0"):
        effective_dimension([1.0, 0.5], 0.0)
    with pytest.raises(ValueError, match="lam must be > 0"):
        effective_dimension([1.0, 0.5], [-1.0, 1.0])
    with pytest.raises(ValueError, match="eigenvalues"):
        effective_dimension([1.0, -0.5], 1.0)
    with pytest.raises(ValueError, match="delta"):
        lambda_of_m(10, delta=1.5)
