import numpy as np
import pytest

import kmeviz as K
from kmeviz.results import p_value_from_samples, threshold_from_samples
from kmeviz.twosample import simulate_spectral_null
from kmeviz.twosample.nulls import gamma_null_params, simulate_spectral, spectral_eigenvalues
from kmeviz.twosample.resampling import (
    nystrom_landmark_factor,
    packed_permutation_assignments,
    permutation_assignments,
    permutation_mmd2,
    streamed_feature_mmd2,
)

KERNEL = K.GaussianKernel(1.0)


def permutation_fastmmd2(features, m, U):
    """The in-memory reference: ||mean F_X - mean F_Y||² for every assignment column of U,
    with the whole N × p feature matrix and N × B assignments at once."""
    S = features.T @ U
    total = features.sum(axis=0)[:, None]
    n = features.shape[0] - m
    return np.sum((S / m - (total - S) / n) ** 2, axis=0)


@pytest.fixture
def pair(rng):
    return rng.normal(size=(37, 2)), rng.normal(0.2, 1.0, size=(29, 2))


@pytest.mark.parametrize("estimator", ["biased", "unbiased"])
def test_batched_permutations_equal_a_loop(pair, estimator):
    X, Y = pair
    U = permutation_assignments(37, 29, 50, np.random.default_rng(3))
    Z = np.vstack([X, Y])
    loop = [K.mmd2(Z[u == 1], Z[u == 0], KERNEL, estimator=estimator) for u in U.T]
    batched = permutation_mmd2(X, Y, KERNEL, U, estimator=estimator, working_memory=8 * 66 * 7)
    np.testing.assert_allclose(batched, loop, rtol=1e-12, atol=1e-14)
    assert np.all(U.sum(axis=0) == 37)


def test_batched_fastmmd_permutations_equal_a_loop(pair):
    X, Y = pair
    Z = np.vstack([X, Y])
    rff = K.RandomFourierFeatures(KERNEL, 64, rng=1).fit(Z)
    U = permutation_assignments(37, 29, 40, np.random.default_rng(4))
    loop = [K.mmd2_fastmmd(Z[u == 1], Z[u == 0], KERNEL, frequencies=rff.frequencies_)
            for u in U.T]
    np.testing.assert_allclose(permutation_fastmmd2(rff.transform(Z), 37, U), loop,
                               rtol=1e-10, atol=1e-14)


def test_packed_assignments_are_the_same_draws():
    U = permutation_assignments(150, 170, 300, np.random.default_rng(9))
    packed = packed_permutation_assignments(150, 170, 300, np.random.default_rng(9))
    assert packed.shape == (320, 38) and packed.dtype == np.uint8
    np.testing.assert_array_equal(np.unpackbits(packed, axis=1, count=300), U)


def test_streamed_feature_permutations_equal_the_in_memory_pass(pair):
    """Row blocks of 7 (not a divisor of 37 or 66) against the whole feature matrix."""
    X, Y = pair
    Z = np.vstack([X, Y])
    F = K.RandomFourierFeatures(KERNEL, 32, rng=1).fit(Z).transform(Z)
    U = permutation_assignments(37, 29, 45, np.random.default_rng(4), with_identity=True)
    packed = packed_permutation_assignments(37, 29, 45, np.random.default_rng(4))
    observed, values = streamed_feature_mmd2(lambda sl: F[sl], 37, 29, packed, 45,
                                             rows_per_block=7)
    expected = permutation_fastmmd2(F, 37, U)
    np.testing.assert_allclose(observed, expected[0], rtol=1e-12)
    np.testing.assert_allclose(values, expected[1:], rtol=1e-12, atol=1e-16)


def test_the_streamed_pass_holds_one_features_by_resamples_matrix():
    """Its memory is the p × B sums and blocks (issue 45: the sums' temporaries held 2–4
    such matrices, 1.1 GB at 8192 features and B = 5000; now 0.49 GB): the traced peak is
    under 1.25 times the p × B sums and one block's N_block × B relabellings, in floats
    (here one block of 500 rows; before the fix, 80 MB against this bound's 22 MB)."""
    import tracemalloc

    N, p, B = 500, 4096, 500
    F = np.random.default_rng(0).normal(size=(N, p))
    packed = packed_permutation_assignments(250, 250, B, np.random.default_rng(1))
    tracemalloc.start()
    try:
        streamed_feature_mmd2(lambda sl: F[sl], 250, 250, packed, B)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    bound = 1.25 * 8 * (p * B + N * B)
    assert peak < bound, f"{peak / 2**20:.1f} MB against {bound / 2**20:.1f} MB"


@pytest.mark.parametrize("estimator, null", [(e, n) for e, ns in K.VALID_NULLS.items()
                                             for n in ns])
def test_every_valid_pair_is_seeded_and_consistent(pair, estimator, null):
    X, Y = pair
    if K.Needs.EQUAL_SIZES in K.MMD_TESTS.get(estimator, null).needs:  # pearson, wild
        X = X[: Y.shape[0]]
    spec = K.MMD_TESTS.get(estimator, null)
    kernel = None if spec.needs & (K.Needs.KERNEL_COLLECTION | K.Needs.NO_KERNEL) else KERNEL
    a = K.mmd_test(X, Y, kernel, estimator=estimator, null=null, n_resamples=99, rng=7)
    b = K.mmd_test(X, Y, kernel, estimator=estimator, null=null, n_resamples=99, rng=7)
    assert a.statistic == b.statistic and a.p_value == b.p_value
    if a.null_samples is not None:
        np.testing.assert_array_equal(a.null_samples, b.null_samples)
        assert a.null_samples.shape == (99,)
        assert a.p_value == p_value_from_samples(a.statistic, a.null_samples)
    assert 0 < a.p_value <= 1
    assert a.reject == (a.p_value <= a.alpha) == (a.statistic > a.threshold)
    assert (a.estimator, a.null) == (estimator, null)


def test_statistic_matches_the_estimators(pair):
    X, Y = pair
    assert K.mmd_test(X, Y, KERNEL, n_resamples=9, rng=0).statistic == pytest.approx(
        K.mmd2(X, Y, KERNEL), rel=1e-12)
    res = K.mmd_test(X, Y, KERNEL, estimator="unbiased", null="spectral", rng=0)
    assert res.statistic == pytest.approx(K.mmd2(X, Y, KERNEL, estimator="unbiased"))
    assert K.mmd_test(X, Y, KERNEL, estimator="linear", null="normal").statistic == (
        pytest.approx(K.mmd2_linear(X, Y, KERNEL)))
    assert K.mmd_test(X, Y, KERNEL, estimator="block", null="normal").statistic == (
        pytest.approx(K.mmd2_block(X, Y, KERNEL)))


def test_a_null_value_equal_in_theory_counts_as_a_tie_in_float32():
    """MMD² does not depend on the order of the rows, but float32 tiles summed in another
    order differ in the last bits (here by 3e-7 relative): without a tie tolerance the
    p-value of a statistic against its own reordered value would be 1/2, not 1."""
    X, Y = K.blobs_two_sample(700, rng=0)
    with K.config_context(dtype="float32"):
        same = K.mmd2(X, Y, KERNEL)
        reordered = [K.mmd2(X[r.permutation(700)], Y[r.permutation(700)], KERNEL)
                     for r in map(np.random.default_rng, range(8))]
        statistic = max(reordered)  # above ``same`` in its last bits, on any CPU seen
        assert same < statistic and statistic / same - 1 < 1e-6  # equal in theory
        assert p_value_from_samples(statistic, np.array([same])) == 1.0
        assert p_value_from_samples(statistic, np.array([same]), rtol=0.0) == 0.5
    # float64: 100 ulps of 2.2e-16; a genuine difference of 1e-9 relative is no tie
    assert p_value_from_samples(1.0, np.array([1.0 - 1e-9])) == 0.5
    assert p_value_from_samples(1.0, np.array([1.0 - 1e-15])) == 1.0


def test_p_value_and_threshold_conventions():
    null = np.arange(1.0, 20.0)  # B = 19
    assert p_value_from_samples(19.5, null) == pytest.approx(1 / 20)
    assert p_value_from_samples(19.0, null) == pytest.approx(2 / 20)
    assert p_value_from_samples(0.0, null) == 1.0
    assert threshold_from_samples(null, 0.05) == 19.0  # reject only above the maximum
    assert threshold_from_samples(null, 0.10) == 18.0
    assert threshold_from_samples(null, 0.01) == np.inf  # B too small for this alpha


def test_gamma_and_spectral_moments_agree_with_permutation_null(rng):
    """All three target the same H0 law of MMD²_b; their means agree within 4%."""
    X, Y = rng.normal(size=(150, 2)), rng.normal(size=(110, 2))
    g = gamma_null_params(X, Y, KERNEL)
    lam = spectral_eigenvalues(X, Y, KERNEL)
    c = 1 / 150 + 1 / 110
    assert g["shape"] * g["scale"] == pytest.approx(c * lam.sum(), rel=1e-8)
    assert g["shape"] * g["scale"] ** 2 == pytest.approx(2 * c**2 * (lam**2).sum(), rel=1e-8)
    perm = K.mmd_test(X, Y, KERNEL, n_resamples=3000, rng=1).null_samples
    assert perm.mean() == pytest.approx(g["shape"] * g["scale"], rel=0.04)
    sim = simulate_spectral(lam, 150, 110, "biased", 20000, np.random.default_rng(0))
    assert sim.mean() == pytest.approx(c * lam.sum(), rel=0.02)
    assert perm.var() == pytest.approx(g["shape"] * g["scale"] ** 2, rel=0.15)


def test_power_against_a_mean_shift(rng):
    X, Y = rng.normal(size=(200, 2)), rng.normal(0.6, 1.0, size=(200, 2))
    for est, null in [("biased", "permutation"), ("biased", "gamma"), ("unbiased", "spectral"),
                      ("fastmmd", "permutation"), ("block", "normal")]:
        assert K.mmd_test(X, Y, KERNEL, estimator=est, null=null, rng=0).p_value < 0.01, est


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"n_resamples": 0}, ValueError, "n_resamples must be >= 1"),
    ({"n_resamples": 1.5}, TypeError, "n_resamples must be an integer"),
    ({"alpha": 0.0}, ValueError, "alpha must lie in the open interval"),
    ({"alpha": 1.0}, ValueError, "alpha must lie in the open interval"),
    ({"alpha": -0.1}, ValueError, "alpha"),
    ({"alpha": "0.05"}, TypeError, "alpha must be a real number"),
    ({"estimator": "linear", "null": "permutation"}, ValueError,
     "null='permutation' is not valid for estimator='linear'; valid nulls are normal"),
    ({"estimator": "unbiased", "null": "gamma"}, ValueError, "not valid for estimator"),
    ({"estimator": "fastmmd", "null": "spectral"}, ValueError, "not valid"),
    ({"features": "fastfud"}, ValueError, "features must be one of"),
    ({"estimator": "nystroem"}, ValueError, "estimator must be one of"),
    ({"null": "pearcon"}, ValueError, "null must be one of"),
])
def test_bad_test_arguments(pair, kwargs, exc, match):
    X, Y = pair
    with pytest.raises(exc, match=match):
        K.mmd_test(X, Y, KERNEL, **kwargs)


def test_bad_samples_for_the_test(pair):
    X, Y = pair
    with pytest.raises(ValueError, match="same dimension"):
        K.mmd_test(X, np.ones((10, 3)), KERNEL)
    with pytest.raises(ValueError, match="Y needs at least 2"):
        K.mmd_test(X, Y[:1], KERNEL)
    with pytest.raises(TypeError, match="shift-invariant"):
        K.mmd_test(X, Y, K.Kernel(), estimator="fastmmd")
    with pytest.raises(ValueError, match="needs at least 2"):
        K.mmd_test(X[:3], Y[:3], KERNEL, estimator="linear", null="normal")


@pytest.mark.parametrize("estimator, null", [("biased", "permutation"), ("biased", "gamma"),
                                             ("block", "normal")])
def test_at_level_equals_rerunning_with_that_alpha(pair, estimator, null):
    X, Y = pair
    base = K.mmd_test(X, Y, KERNEL, estimator=estimator, null=null, n_resamples=99,
                      alpha=0.05, rng=3)
    for alpha in (0.01, 0.2, 0.5):
        direct = K.mmd_test(X, Y, KERNEL, estimator=estimator, null=null, n_resamples=99,
                            alpha=alpha, rng=3)
        moved = base.at_level(alpha)
        assert (moved.threshold, moved.reject, moved.alpha) == (
            direct.threshold, direct.reject, direct.alpha)
    with pytest.raises(ValueError, match="alpha"):
        base.at_level(1.5)


def test_nystrom_test_statistic_is_projected_mmd(pair):
    """With every pooled point as a landmark the Nyström statistic is the exact MMD²_b."""
    X, Y = pair
    Z = np.vstack([X, Y])
    L, R = nystrom_landmark_factor(Z, KERNEL, 2000, np.random.default_rng(0))
    F = KERNEL.gram(Z, L) @ R.T
    np.testing.assert_allclose(F @ F.T, KERNEL(Z), atol=1e-6)
    res = K.mmd_test(X, Y, KERNEL, estimator="pooled-nystrom", n_landmarks=2000,
                     n_resamples=49, rng=0)
    assert res.statistic == pytest.approx(K.mmd2(X, Y, KERNEL), rel=1e-5)


def test_public_spectral_null_draws_what_the_test_uses():
    lam = np.array([0.5, 0.2, 0.05])
    public = simulate_spectral_null(lam, 30, 40, estimator="unbiased", n_resamples=200, rng=3)
    np.testing.assert_array_equal(
        public, simulate_spectral(lam, 30, 40, "unbiased", 200, np.random.default_rng(3)))
    # E[(1/m + 1/n) Σ λ z²] = (1/m + 1/n) Σ λ; 4 s.e. of the mean of 20 000 draws
    draws = simulate_spectral_null(lam, 30, 40, n_resamples=20_000, rng=4)
    se = draws.std() / np.sqrt(draws.size)
    assert abs(draws.mean() - (1 / 30 + 1 / 40) * lam.sum()) < 4 * se
    with pytest.raises(ValueError, match="eigenvalues"):
        simulate_spectral_null([[1.0]], 3, 3)
    with pytest.raises(ValueError, match="estimator"):
        simulate_spectral_null(lam, 3, 3, estimator="linear")


def test_permutation_assignments_are_uniform_subsets():
    """Every column marks exactly m points; each point is marked with probability m/N
    and each pair with m(m-1)/(N(N-1)) (the laws of a uniform m-subset). Tolerance: 4.5
    binomial standard errors, a false-alarm chance below 1e-4 over the 36 + 630 cells
    (Bonferroni); a marginal off by 0.02 (4.5 s.e. = 0.015 here) fails."""
    m, n, B = 12, 24, 20_000
    U = permutation_assignments(m, n, B, np.random.default_rng(5))
    assert U.shape == (m + n, B) and np.all(U.sum(axis=0) == m)
    N = m + n
    p1, p2 = m / N, m * (m - 1) / (N * (N - 1))
    single = U.mean(axis=1)
    assert np.all(np.abs(single - p1) < 4.5 * np.sqrt(p1 * (1 - p1) / B))
    pairs = (U @ U.T / B)[np.triu_indices(N, 1)]
    assert np.all(np.abs(pairs - p2) < 4.5 * np.sqrt(p2 * (1 - p2) / B))


def test_an_engine_pass_inside_an_engine_worker_runs_there():
    """A test started from an engine worker (as a repeat loop might) finishes instead of
    waiting for the pool it occupies."""
    from kmeviz.kernels.engine import run_tasks

    X, Y = np.random.default_rng(0).normal(size=(2, 200, 2))
    with K.config_context(n_threads=2, tile_rows=64):
        p = run_tasks(lambda s: K.mmd_test(X, Y, KERNEL, n_resamples=300, rng=s).p_value,
                      range(4), 2)
        direct = [K.mmd_test(X, Y, KERNEL, n_resamples=300, rng=s).p_value for s in range(4)]
    assert p == direct


def test_pearson_null_moments_match_monte_carlo_under_h0():
    """The H0 variance and third moment of MMD²_u (Gretton et al. 2012a) against 6000
    fresh null draws (m = 30, N(0, 1)): variance within 12% (MC s.e. ≈ 4%), third moment
    within 30% (MC s.e. ≈ 10%); the formula's values are averaged over 200 samples."""
    from kmeviz.twosample.nulls import pearson_null_moments

    kernel, m, g = K.GaussianKernel(1.0), 30, np.random.default_rng(0)
    draws = np.array([K.mmd2(g.normal(size=(m, 1)), g.normal(size=(m, 1)), kernel,
                             estimator="unbiased") for _ in range(6000)])
    moments = [pearson_null_moments(g.normal(size=(m, 1)), g.normal(size=(m, 1)), kernel)
               for _ in range(200)]
    variance = np.mean([mo["variance"] for mo in moments])
    third = np.mean([mo["skewness"] * mo["variance"] ** 1.5 for mo in moments])
    assert np.mean(draws**2) == pytest.approx(variance, rel=0.12)
    assert np.mean(draws**3) == pytest.approx(third, rel=0.30)
    res = K.mmd_test(g.normal(size=(m, 1)), g.normal(1.0, 1.0, size=(m, 1)), kernel,
                     estimator="unbiased", null="pearson")
    assert res.null == "pearson" and res.reject and res.threshold > 0
    with pytest.raises(ValueError, match="equal size"):
        K.mmd_test(np.zeros((5, 1)), np.ones((6, 1)), kernel, estimator="unbiased",
                   null="pearson")


def test_wild_bootstrap_null_equals_a_loop_over_signs(rng):
    """The wild bootstrap of the biased MMD² (n_X = n_Y): its statistic is ``mmd2`` and each
    replicate is (1/n²) Σ_ij ε_i ε_j h_ij for Rademacher signs ε, here against a dense h
    with the same signs (the generator is consumed the same way)."""
    X, Y = rng.normal(size=(40, 2)), rng.normal(0.3, 1.0, size=(40, 2))
    res = K.mmd_test(X, Y, KERNEL, null="wild-bootstrap", n_resamples=25, rng=7)
    assert res.statistic == pytest.approx(K.mmd2(X, Y, KERNEL), rel=1e-12)
    signs = np.random.default_rng(7).choice((-1.0, 1.0), size=(40, 25))
    Kxy = KERNEL(X, Y)
    H = KERNEL(X, X) + KERNEL(Y, Y) - Kxy - Kxy.T
    np.testing.assert_allclose(res.null_samples, np.einsum("ib,ij,jb->b", signs, H, signs)
                               / 40**2, rtol=1e-10)
    with pytest.raises(ValueError, match="equal size"):
        K.mmd_test(X, Y[:30], KERNEL, null="wild-bootstrap")


def test_type_one_error_of_the_wild_bootstrap_bounded():
    """P = Q: 200 draws of n = 50 at α = 0.05 reject at most 19 times (the upper end of the
    99.9% binomial interval is 0.086; a permutation-like test sits near 0.05)."""
    rejections = sum(K.mmd_test(g.normal(size=(50, 2)), g.normal(size=(50, 2)), KERNEL,
                                null="wild-bootstrap", n_resamples=199, rng=g).reject
                     for g in (np.random.default_rng([5, k]) for k in range(200)))
    assert 2 <= rejections <= 19
