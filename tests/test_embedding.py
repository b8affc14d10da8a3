import numpy as np
import pytest

import kmeviz as K
from kmeviz.distributions import GaussianMixture
from kmeviz.embeddings import (
    EmpiricalKME,
    GreedyDeterminantKME,
    KernelHerding,
    NystromKME,
    UniformSubsampleKME,
    greedy_determinant_landmarks,
)

KERNEL = K.GaussianKernel(1.5)


@pytest.fixture
def mixture():
    rng = np.random.default_rng(0)
    return GaussianMixture(rng.normal(0, 2, size=(3, 2)), [0.5, 1.0, 2.0], [0.2, 0.3, 0.5])


def test_all_points_as_landmarks_gives_the_empirical_embedding(rng):
    X = rng.normal(size=(80, 2))
    ny = NystromKME(KERNEL, landmarks=np.arange(80)).fit(X)
    emp = EmpiricalKME(KERNEL).fit(X)
    Z = rng.normal(size=(50, 2))
    np.testing.assert_allclose(ny.evaluate(Z), emp.evaluate(Z), atol=1e-8)
    assert ny.distance(emp) < 1e-6  # a difference of squares near 1: sqrt(1e-12)
    np.testing.assert_array_equal(ny.landmarks_, X)


def test_weights_equal_a_direct_least_squares_projection(rng):
    """Coordinates of φ(x_i) from a Cholesky factor of the full Gram; project by lstsq."""
    X = rng.normal(size=(60, 2))
    idx = np.array([3, 7, 11, 20, 41, 59, 7])  # with a repeat, as with replacement
    ny = NystromKME(KERNEL, landmarks=idx).fit(X)
    G = np.linalg.cholesky(KERNEL(X) + 1e-12 * np.eye(60))  # rows: coordinates of φ(x_i)
    alpha = np.linalg.lstsq(G[idx].T, G.mean(axis=0), rcond=None)[0]
    # the projection Σ α_j φ(x̃_j) is unique even if α is not (repeated landmark)
    np.testing.assert_allclose(G[idx].T @ ny.weights_, G[idx].T @ alpha, atol=1e-6)
    # α solves the normal equations K_m α = β; the pivoted Cholesky puts the repeated
    # landmark's weight on one copy (a generalized inverse, not the minimum-norm one)
    K_m = KERNEL(X[idx])
    np.testing.assert_allclose(K_m @ ny.weights_, ny.mean_map_, atol=1e-9)
    assert np.count_nonzero(ny.weights_[[1, 6]]) == 1
    np.testing.assert_allclose(ny.weights_[[1, 6]].sum(), alpha[[1, 6]].sum(), atol=1e-6)


def test_streaming_does_not_change_the_weights(rng):
    X = rng.normal(size=(500, 3))
    a = NystromKME(KERNEL, 40, rng=1).fit(X)
    b = NystromKME(KERNEL, 40, rng=1, working_memory=8 * 40 * 7).fit(X)
    np.testing.assert_allclose(a.weights_, b.weights_, rtol=1e-10)
    np.testing.assert_array_equal(a.landmark_indices_, b.landmark_indices_)


def test_landmark_schemes(rng):
    X = rng.normal(size=(30, 2))
    with_rep = NystromKME(KERNEL, 200, rng=0).fit(X)
    assert with_rep.landmark_indices_.size == 200  # with replacement, m > n is fine
    without = NystromKME(KERNEL, 30, replace=False, rng=0).fit(X)
    assert sorted(without.landmark_indices_) == list(range(30))


def test_closed_form_norm_and_error_match_monte_carlo(mixture):
    """Closed form vs 10⁶ Monte Carlo draws: within 3 standard errors (App. G)."""
    pts = mixture.sample(15, rng=3)
    w = np.random.default_rng(4).dirichlet(np.ones(15))
    exact2 = mixture.embedding_error(pts, w, KERNEL) ** 2
    n = 1_000_000
    Z1, Z2 = mixture.sample(n, rng=5), mixture.sample(n, rng=6)
    f = KERNEL.paired(Z1, Z2) - 2.0 * (KERNEL.gram(Z1, pts) @ w) + w @ KERNEL(pts) @ w
    se = f.std() / np.sqrt(n)
    assert abs(f.mean() - exact2) < 3 * se
    g = KERNEL.gram(Z1[:200_000], pts)  # μ(x) itself, at the points
    np.testing.assert_allclose(mixture.embedding(pts, KERNEL), g.mean(axis=0), atol=4e-3)


def test_nystrom_beats_uniform_subsample_and_approaches_empirical(mixture):
    X = mixture.sample(3000, rng=1)
    emp = mixture.error_of(EmpiricalKME(KERNEL).fit(X))
    ny = np.mean([mixture.error_of(NystromKME(KERNEL, 150, rng=s).fit(X)) for s in range(3)])
    unif = np.mean([mixture.error_of(UniformSubsampleKME(KERNEL, 150, rng=s).fit(X))
                    for s in range(3)])
    herd = mixture.error_of(KernelHerding(KERNEL, 150, rng=0).fit(X))
    greedy = mixture.error_of(GreedyDeterminantKME(KERNEL, 150).fit(X))
    assert ny < 1.1 * emp < unif
    assert herd < unif and greedy < 1.1 * emp  # Chatalic et al. Fig. 1: "similarly"


def test_greedy_determinant_landmarks_maximise_the_determinant_step_by_step(rng):
    """Against the obvious greedy: at each step the row that maximises det K_S of the
    chosen rows plus it, by slogdet of every candidate set (ties cannot occur with
    continuous data). Then the weights are Nyström's on those landmarks."""
    X = rng.normal(size=(40, 3))
    fast = [int(j) for j in greedy_determinant_landmarks(KERNEL, X, 8)]
    chosen = []
    for step in range(8):
        logdets = np.array([np.linalg.slogdet(KERNEL.gram(X[chosen + [j]],
                                                          X[chosen + [j]]))[1]
                            if j not in chosen else -np.inf for j in range(40)])
        # the first pick is a tie (k(x, x) = 1 for every row, to round-off: which row the
        # slow greedy's argmax takes depends on the machine's last bits), so a pick
        # within 1e-9 of the best log-determinant is the greedy's choice
        assert logdets[fast[step]] >= logdets.max() - 1e-9, (step, fast, logdets.max())
        chosen.append(fast[step])
    assert fast[0] == 0  # the tie goes to the first row
    est = GreedyDeterminantKME(KERNEL, 8).fit(X)
    ny = NystromKME(KERNEL, landmarks=fast).fit(X)
    np.testing.assert_allclose(est.weights_, ny.weights_, rtol=1e-12)
    # duplicated rows are spanned: the greedy stops at the distinct ones
    assert greedy_determinant_landmarks(KERNEL, np.repeat(X[:3], 4, axis=0), 10).size == 3


def test_bad_inputs(rng):
    X = rng.normal(size=(10, 2))
    with pytest.raises(ValueError, match="n_landmarks must be >= 1"):
        NystromKME(KERNEL, 0).fit(X)
    with pytest.raises(ValueError, match="n_landmarks=11 exceeds n=10 without replacement"):
        NystromKME(KERNEL, 11, replace=False).fit(X)
    with pytest.raises(ValueError, match=r"landmarks must be indices in \[0, 9\]"):
        NystromKME(KERNEL, landmarks=[0, 10]).fit(X)
    with pytest.raises(TypeError, match="integer indices"):
        NystromKME(KERNEL, landmarks=[0.5, 1.0]).fit(X)
    with pytest.raises(ValueError, match="mixture weights must sum to 1"):
        GaussianMixture([[0.0], [1.0]], [1.0, 1.0], [0.5, 0.6])
    with pytest.raises(ValueError, match="variances must be finite and > 0"):
        GaussianMixture([[0.0]], [0.0], [1.0])
    with pytest.raises(TypeError, match="GaussianKernel"):
        GaussianMixture([[0.0]], [1.0], [1.0]).squared_norm(K.LaplaceKernel(1.0))
    with pytest.raises(RuntimeError, match="not fitted"):
        NystromKME(KERNEL, 3).evaluate(X)
    with pytest.raises(ValueError, match="n_landmarks=11 exceeds n=10"):
        GreedyDeterminantKME(KERNEL, 11).fit(X)
    with pytest.raises(TypeError, match="needs n_landmarks"):
        GreedyDeterminantKME(KERNEL).fit(X)


def test_nystrom_mmd_approaches_exact_mmd(rng):
    X, Y = rng.normal(size=(800, 2)), rng.normal(0.5, 1.0, size=(600, 2))
    exact = np.sqrt(K.mmd2(X, Y, KERNEL))
    approx = np.sqrt(K.mmd2_nystrom(X, Y, KERNEL, n_landmarks=120, rng=0))
    assert approx == pytest.approx(exact, rel=0.02)
    full = np.sqrt(K.mmd2_nystrom(X[:50], Y[:40], KERNEL, n_landmarks=400, n_landmarks_y=400,
                                  rng=0))
    assert full == pytest.approx(np.sqrt(K.mmd2(X[:50], Y[:40], KERNEL)), rel=1e-3)


def test_random_feature_embedding_error_is_exact_in_feature_space(mixture):
    """Closed-form E z(X) vs a 10⁶-sample Monte Carlo mean: 3.5 s.e. per coordinate
    (32 coordinates, so a ≈1.5% family-wise false-alarm rate)."""
    from kmeviz.embeddings import RandomFeatureKME

    big = mixture.sample(1_000_000, rng=9)
    rff = RandomFeatureKME(KERNEL, 16, rng=0).fit(big)
    Z = rff.features_.transform(big)
    se = Z.std(axis=0) / np.sqrt(len(big))
    gap = np.abs(Z.mean(axis=0) - mixture.mean_features(rff.features_))
    assert np.all(gap < 3.5 * se + 1e-12)
    small = RandomFeatureKME(KERNEL, 2000, rng=1).fit(mixture.sample(400, rng=2))
    err = mixture.error_of(small)
    emp = mixture.error_of(EmpiricalKME(KERNEL).fit(mixture.sample(400, rng=2)))
    assert err == pytest.approx(emp, rel=0.25)  # many features: close to the H-error


def test_psd_inverse_factor_is_a_generalized_inverse(rng):
    """K RᵀR K = K and R K Rᵀ = I on a rank-deficient Gram (80 landmarks drawn with
    replacement from 50 points), and RᵀR = K⁻¹ when K is well conditioned."""
    from kmeviz.embeddings.kme import psd_inverse_factor

    X = rng.normal(size=(50, 2))
    K_m = KERNEL(X[rng.integers(0, 50, 80)])
    R = psd_inverse_factor(K_m)
    assert R.shape[0] <= 50 and R.shape[1] == 80
    np.testing.assert_allclose(K_m @ R.T @ R @ K_m, K_m, atol=1e-10)
    np.testing.assert_allclose(R @ K_m @ R.T, np.eye(R.shape[0]), atol=1e-6)
    well = KERNEL(X[:5] * 10.0)  # far-apart points: K close to I
    np.testing.assert_allclose(psd_inverse_factor(well).T @ psd_inverse_factor(well),
                               np.linalg.inv(well), rtol=1e-10, atol=1e-12)
    assert psd_inverse_factor(np.zeros((3, 3))).shape == (0, 3)


def test_landmarks_for_empirical_accuracy_matches_the_dense_computation(rng):
    """The streamed search equals the same search on the dense Gram (what the effective
    dimension app computed before): ||μ̂||² = mean G, ||P_m μ̂||² = αᵀ K_m α."""
    from kmeviz.embeddings import landmarks_for_empirical_accuracy

    X = rng.normal(size=(300, 2))
    G, n = KERNEL(X), 300
    target = np.sqrt(max(np.trace(G) / n - (G.sum() - np.trace(G)) / (n * (n - 1)), 0) / n)
    expected = None
    for m in np.unique(np.geomspace(2, n, 40).astype(int)):
        ny = NystromKME(KERNEL, int(m), rng=4).fit(X)
        if np.sqrt(max(G.mean() - ny.weights_ @ KERNEL(ny.landmarks_) @ ny.weights_, 0)) \
                <= target:
            expected = int(m)
            break
    m, value = landmarks_for_empirical_accuracy(X, KERNEL, rng=4)
    assert expected is not None and m == expected
    assert value == pytest.approx(target, rel=1e-10)
    with pytest.raises(ValueError, match="X"):
        landmarks_for_empirical_accuracy(X[:1], KERNEL)
