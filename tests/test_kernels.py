import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import kmeviz as K

KERNELS = [K.GaussianKernel(1.3), K.LaplaceKernel(0.7), K.IMQKernel(1.5, -0.4)]


def slow_kernel(kernel, x, y):
    """The textbook formulas, one pair at a time."""
    if isinstance(kernel, K.GaussianKernel):
        return np.exp(-np.sum((x - y) ** 2) / (2 * kernel.bandwidth**2))
    if isinstance(kernel, K.LaplaceKernel):
        return np.exp(-np.sum(np.abs(x - y)) / kernel.bandwidth)
    return (kernel.c**2 + np.sum((x - y) ** 2)) ** kernel.beta


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: type(k).__name__)
def test_gram_matches_pairwise_formula(kernel, small_pair):
    X, Y = small_pair
    expected = np.array([[slow_kernel(kernel, x, y) for y in Y] for x in X])
    np.testing.assert_allclose(kernel(X, Y), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(kernel.paired(X[:9], Y), np.diag(expected[:9]), rtol=1e-12)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: type(k).__name__)
def test_gram_symmetric_psd_and_diagonal(kernel, rng):
    X = rng.normal(size=(40, 2))
    G = kernel(X)
    np.testing.assert_allclose(G, G.T, atol=1e-14)
    assert np.linalg.eigvalsh(G).min() > -1e-10
    np.testing.assert_allclose(np.diag(G), kernel.value_at_zero, rtol=1e-12)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: type(k).__name__)
def test_tiled_sums_match_dense_gram(kernel, rng):
    X, Y = rng.normal(size=(301, 3)), rng.normal(size=(170, 3))
    tiny = 8 * 64 * 64  # force many 64 x 64 tiles, including ragged edges
    total, trace = kernel.gram_sum(X, working_memory=tiny)
    G = kernel(X)
    assert total == pytest.approx(G.sum(), rel=1e-12)
    assert trace == pytest.approx(np.trace(G), rel=1e-12)
    assert kernel.gram_sum(X, Y, working_memory=tiny)[0] == pytest.approx(
        kernel(X, Y).sum(), rel=1e-12
    )
    blocks = np.vstack([b for _, b in kernel.gram_blocks(X, Y, working_memory=tiny)])
    np.testing.assert_allclose(blocks, kernel(X, Y), rtol=1e-13)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: type(k).__name__)
def test_spectral_frequencies_reproduce_kernel(kernel, rng):
    """Bochner: k(x, y) = K(0) E cos(ω'(x - y)); Monte Carlo with 400k draws.

    Standard error of the mean of K(0)cos(.) is at most K(0)/sqrt(4e5) ≈ 1.6e-3,
    so 5 standard errors = 8e-3 is the tolerance.
    """
    X = rng.normal(size=(6, 2)) * 0.8
    W = kernel.sample_frequencies(400_000, 2, rng=7)
    approx = kernel.value_at_zero * np.cos((X[:, None, :] - X[None, :, :]) @ W.T).mean(-1)
    np.testing.assert_allclose(approx, kernel(X), atol=8e-3)


def test_imq_takes_the_authors_beta_below_minus_one(rng):
    """The IMQ kernel of Kalinke et al.'s experiments: β′ = −(d + ½)/(2ξ) with ξ = 4a/(2 + a),
    a = 1/12 (about −48.4 at d = 15), c′ a few median distances. Its values are tiny
    (k(0) = c^{2β} ≈ 1e-96), so each check is relative to k(0): the Gram against the
    formula to 1e-10, positive semi-definite, and Bochner with 400k frequencies to 8e-3
    (5 standard errors of a mean of cosines, as above)."""
    a = 0.25 / 3
    beta = -(15 + 0.5) / (2 * 4 * a / (2 + a))
    kernel = K.IMQKernel(c=10.0, beta=beta)
    assert kernel.beta == pytest.approx(-48.44, abs=0.01)
    X, Y = rng.normal(size=(30, 15)) * 2, rng.normal(size=(20, 15)) * 2
    expected = np.array([[slow_kernel(kernel, x, y) for y in Y] for x in X])
    np.testing.assert_allclose(kernel(X, Y) / kernel.value_at_zero,
                               expected / kernel.value_at_zero, rtol=1e-10)
    assert np.linalg.eigvalsh(kernel(X) / kernel.value_at_zero).min() > -1e-10
    Z = rng.normal(size=(6, 2)) * 2
    W = kernel.sample_frequencies(400_000, 2, rng=7)
    approx = np.cos((Z[:, None, :] - Z[None, :, :]) @ W.T).mean(-1)
    np.testing.assert_allclose(approx, kernel(Z) / kernel.value_at_zero, atol=8e-3)


def test_frequency_sampling_is_seeded():
    k = K.GaussianKernel(2.0)
    np.testing.assert_array_equal(
        k.sample_frequencies(5, 3, rng=1), k.sample_frequencies(5, 3, rng=1)
    )
    assert not np.array_equal(k.sample_frequencies(5, 3, rng=1), k.sample_frequencies(5, 3, rng=2))


def test_median_heuristic_on_known_points():
    X = np.array([[0.0], [1.0], [3.0]])  # distances 1, 2, 3 -> median 2
    assert K.median_heuristic(X) == pytest.approx(2.0)
    Y = np.array([[10.0]])
    assert K.median_heuristic(X, Y) == pytest.approx(np.median([1, 3, 10, 2, 9, 7]))


def test_median_heuristic_subsample_is_seeded(rng):
    X = rng.normal(size=(3000, 2))
    a = K.median_heuristic(X, max_samples=500, rng=3)
    assert a == K.median_heuristic(X, max_samples=500, rng=3)
    assert a == pytest.approx(K.median_heuristic(X), rel=0.1)


@settings(max_examples=40, deadline=None)
@given(
    arrays(
        np.float64, st.tuples(st.integers(2, 12), st.integers(1, 4)), elements=st.floats(-20, 20)
    )
)
def test_gaussian_gram_is_bounded_and_symmetric(X):
    G = K.GaussianKernel(0.5)(X)
    assert np.all((G >= 0) & (G <= 1 + 1e-12))
    np.testing.assert_allclose(G, G.T, atol=1e-15)
