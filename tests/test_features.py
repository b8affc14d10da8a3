import numpy as np
import pytest
import scipy.linalg

import kmeviz as K


def butterflies(a):
    """The textbook in-place butterfly transform of one vector (slow, obvious)."""
    a, h = a.copy(), 1
    while h < a.size:
        for i in range(0, a.size, 2 * h):
            for j in range(i, i + h):
                a[j], a[j + h] = a[j] + a[j + h], a[j] - a[j + h]
        h *= 2
    return a


def test_fwht_equals_hadamard_matrix(rng):
    """One Sylvester block (n ≤ 64) and products of two (128, 2048 = 2⁶ · 2⁵) against
    the matrix; three blocks (2¹³) against the butterflies. Sums of ±entries of N(0, 1)
    values in another order: 1e-12 absolute (ulp of sums of at most 2¹³ terms ≈ 1e-13)."""
    for n in (1, 2, 8, 64, 128, 2048):
        A = rng.normal(size=(3, n))
        np.testing.assert_allclose(K.fwht(A), A @ scipy.linalg.hadamard(n), atol=1e-12)
    A = rng.normal(size=(2, 2, 2**13))
    np.testing.assert_allclose(K.fwht(A)[1, 0], butterflies(A[1, 0]), atol=1e-11)
    assert K.fwht(A).shape == A.shape
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


@pytest.mark.parametrize("dim", [2, 5])
def test_fastfood_frequencies_are_le_et_al_dense_product(dim):
    """Each block of frequencies is S H G Π H B / (σ √D) (Le et al. 2013, Eq. 7; the
    authors' FastfoodPara), built here with dense matrices from the fitted B, Π, G and S,
    restricted to the first d of the D padded columns: equal to round-off."""
    k = K.GaussianKernel(1.5)
    ff = K.FastfoodFeatures(k, 20, rng=3).fit(np.zeros((1, dim)))
    D = ff.padded_dim_
    H = scipy.linalg.hadamard(D)
    blocks = []
    for B, perm, G, S in zip(ff.signs_, ff.permutations_, ff.gaussians_, ff.scales_,
                             strict=True):
        Pi = np.eye(D)[perm]  # (Π v)[i] = v[perm[i]]
        blocks.append(np.diag(S) @ H @ np.diag(G) @ Pi @ H @ np.diag(B) / (1.5 * np.sqrt(D)))
    dense = np.vstack(blocks)[:20, :dim]
    np.testing.assert_allclose(ff.frequencies_, dense, rtol=1e-12, atol=1e-12)


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


@pytest.mark.parametrize("kernel", [K.GaussianKernel(1.0), K.LaplaceKernel(1.0),
                                    K.IMQKernel()], ids=lambda k: type(k).__name__)
def test_quasi_monte_carlo_frequencies_have_the_law_and_less_error(kernel):
    """Scrambled Sobol/Halton frequencies through p(ω)'s inverse CDF: each coordinate has
    the law of the i.i.d. draws (two-sample KS against 20000 of them), and FastMMD's error
    against the exact MMD² shrinks (RMS over 40 seeds; measured 3-8x, asserted 2x)."""
    from scipy import stats

    quasi = kernel.quasi_frequencies(2048, 3, rng=1)
    iid = kernel.sample_frequencies(20_000, 3, rng=2)
    for j in range(3):
        assert stats.ks_2samp(quasi[:, j], iid[:, j]).pvalue > 0.001
    g = np.random.default_rng(0)
    X, Y = g.normal(size=(300, 2)), g.normal(0.3, 1.0, size=(300, 2))
    exact = K.mmd2(X, Y, kernel)

    def rms(sampling):
        errors = [K.mmd2_fastmmd(X, Y, kernel, n_features=256, sampling=sampling, rng=r)
                  - exact for r in range(40)]
        return np.sqrt(np.mean(np.square(errors)))

    assert rms("sobol") < rms("iid") / 2 and rms("halton") < rms("iid") / 2


def test_quasi_monte_carlo_options_are_checked():
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match="sampling"):
        K.RandomFourierFeatures(K.GaussianKernel(1.0), 8, sampling="grid").fit(X)
    with pytest.raises(ValueError, match="fourier"):
        K.mmd2_fastmmd(X, X + 1, K.GaussianKernel(1.0), features="fastfood", sampling="sobol")
    with pytest.raises(ValueError, match="method"):
        K.GaussianKernel(1.0).quasi_frequencies(8, 2, method="lattice")
