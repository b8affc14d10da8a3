import numpy as np
import pytest
import scipy.linalg

import kmeviz as K


def test_fwht_equals_hadamard_matrix(rng):
    for n in (1, 2, 8, 64):
        A = rng.normal(size=(3, n))
        np.testing.assert_allclose(K.fwht(A), A @ scipy.linalg.hadamard(n), atol=1e-12)
    with pytest.raises(ValueError, match="power-of-two"):
        K.fwht(np.ones(6))


def test_fastfood_projection_is_a_linear_map_with_gaussian_rows(rng):
    k = K.GaussianKernel(2.0)
    X = rng.normal(size=(20, 5))
    ff = K.FastfoodFeatures(k, 3000, rng=0).fit(X)
    V = ff.frequencies_
    assert V.shape == (3000, 5)
    np.testing.assert_allclose(ff.projections(X), X @ V.T, atol=1e-10)
    # rows ~ N(0, σ⁻² I) restricted to 5 of the 8 padded coordinates: per-coordinate
    # variance 1/σ² = 0.25 (standard error of a variance of 3000 draws ≈ 0.0065)
    np.testing.assert_allclose(V.var(axis=0), 0.25, atol=0.04)


def kernel_error(features, k, X):
    Z = features.transform(X)
    return np.abs(Z @ Z.T - k(X)).mean()


@pytest.mark.parametrize("dim", [3, 16, 50])
def test_fastfood_kernel_error_comparable_to_fourier(dim, rng):
    """Mean |z(x)'z(y) - k(x, y)| at L = 1024 over 5 seeds: Fastfood within 1.5x of RFF."""
    k = K.GaussianKernel(np.sqrt(dim))
    X = rng.normal(size=(60, dim))
    rff = np.mean(
        [kernel_error(K.RandomFourierFeatures(k, 1024, rng=s).fit(X), k, X) for s in range(5)]
    )
    ff = np.mean([kernel_error(K.FastfoodFeatures(k, 1024, rng=s).fit(X), k, X) for s in range(5)])
    assert ff < 1.5 * rff
    assert rff < 0.03


def test_fastfood_only_for_gaussian():
    with pytest.raises(TypeError, match="Gaussian"):  # validated in fit (estimator convention)
        K.FastfoodFeatures(K.LaplaceKernel(1.0), 16).fit(np.zeros((3, 2)))
