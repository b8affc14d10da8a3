import numpy as np
import pytest

import kmeviz as K
from kmeviz.conditional import (
    ConditionalMeanEmbedding,
    cross_validate,
    incomplete_cholesky,
    kl_norm2,
    sparse_cme,
)
from kmeviz.distributions import Pendulum  # noqa: E402

KX, KY = K.GaussianKernel(0.7), K.GaussianKernel(0.7)


def sine_data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-3, 3, size=(n, 1))
    return X, np.sin(X) + 0.3 * rng.normal(size=X.shape)


def test_weights_equal_the_closed_form(rng):
    X, Y = sine_data(80, 0)
    cme = ConditionalMeanEmbedding(KX, KY, reg=1e-2).fit(X, Y)
    Xn = rng.uniform(-3, 3, size=(7, 1))
    direct = np.linalg.solve(KX(X) + 80 * 1e-2 * np.eye(80), KX(X, Xn)).T
    np.testing.assert_allclose(cme.weights(Xn), direct, atol=1e-10)
    assert cme.weights(Xn).shape == (7, 80)
    np.testing.assert_allclose(cme.expectation(Y[:, 0], Xn), direct @ Y[:, 0], atol=1e-10)
    np.testing.assert_allclose(cme.embedding(Xn, Y[:5]), direct @ KY(Y, Y[:5]), atol=1e-10)


def test_conditional_expectation_error_shrinks_with_n():
    """E[Y | x] = sin x; mean squared error on a grid for a seeded sequence of n."""
    grid = np.linspace(-2.5, 2.5, 101)[:, None]
    errors = []
    for n in (50, 200, 800, 3200):
        X, Y = sine_data(n, n)
        cme = ConditionalMeanEmbedding(KX, KY, reg=1.0 / n).fit(X, Y)
        errors.append(np.mean((cme.expectation(Y[:, 0], grid) - np.sin(grid[:, 0])) ** 2))
    assert all(a > b for a, b in zip(errors, errors[1:], strict=False)), errors


def test_cross_validation_picks_lambda_near_the_held_out_optimum():
    X, Y = sine_data(300, 1)
    Xt, Yt = sine_data(4000, 2)
    regs = np.logspace(-6, 0, 13)
    table, best = cross_validate(X, Y, regs=regs, bandwidths=[0.7], kernel_y=KY, rng=0)
    held_out = [ConditionalMeanEmbedding(KX, KY, reg=r).fit(X, Y).surrogate_loss(Xt, Yt)
                for r in regs]
    assert abs(list(regs).index(best["reg"]) - int(np.argmin(held_out))) <= 1
    assert len(table) == 13 and {"reg", "bandwidth", "mean_loss", "std_loss"} <= set(table)


def slow_cross_validation_losses(X, Y, regs, bandwidths, kernel_y, n_folds, seed):
    """The obvious k-fold loop: refit the CME on each training part, score held-out pairs."""
    folds = np.array_split(np.random.default_rng(seed).permutation(len(X)), n_folds)
    losses = []
    for bw in bandwidths:
        for reg in regs:
            per_fold = []
            for k in range(n_folds):
                train = np.concatenate(folds[:k] + folds[k + 1:])
                cme = ConditionalMeanEmbedding(K.GaussianKernel(bw), kernel_y, reg=reg)
                per_fold.append(cme.fit(X[train], Y[train]).surrogate_loss(X[folds[k]],
                                                                           Y[folds[k]]))
            losses.append(np.mean(per_fold))
    return np.array(losses)


@pytest.mark.parametrize("case", ["low-rank K (1-D inputs)", "full-rank K (pendulum)"])
def test_cross_validation_table_equals_refitting_every_fold(case):
    """The fast CV (one SVD or Cholesky per fold, outputs through features) agrees with
    refitting per fold to 1e-8 relative: the output features drop residuals below 1e-13."""
    if case.startswith("low"):
        X, Y = sine_data(240, 3)
        bandwidths, ky = [0.3, 1.0], K.GaussianKernel(0.5)
    else:
        X, Y = Pendulum().transitions(240, rng=3)
        bandwidths, ky = [0.3], K.GaussianKernel(1.0)
    regs = [1e-5, 1e-3, 1e-1]
    table, _ = cross_validate(X, Y, regs=regs, bandwidths=bandwidths, kernel_y=ky,
                              n_folds=4, rng=7)
    slow = slow_cross_validation_losses(X, Y, regs, bandwidths, ky, 4, 7)
    np.testing.assert_allclose(table["mean_loss"], slow, rtol=1e-8)


@pytest.fixture
def small_problem():
    X, Y = Pendulum().transitions(40, rng=0)
    kx, ky = K.GaussianKernel(1.0), K.GaussianKernel(1.0)
    Kx, L = kx(X), ky(Y)
    W = np.linalg.inv(Kx + 40 * 1e-2 * np.eye(40))  # the reference uses an explicit inverse
    return W, Kx, L


def test_fista_gamma_zero_returns_W(small_problem):
    W, Kx, L = small_problem
    np.testing.assert_array_equal(sparse_cme(W, Kx, L, gamma=0.0).M, W)


def ista_reference(W, Kx, L, gamma, n_iter=60_000):
    step = 1.0 / (2 * np.linalg.norm(Kx, 2) * np.linalg.norm(L, 2))
    M = np.zeros_like(W)
    for _ in range(n_iter):
        Z = M - step * 2 * Kx @ (M - W) @ L
        M = np.sign(Z) * np.maximum(np.abs(Z) - gamma * step, 0)
    return kl_norm2(M - W, Kx, L) + gamma * np.abs(M).sum()


def test_fista_matches_long_run_ista_and_is_monotone(small_problem):
    W, Kx, L = small_problem
    res = sparse_cme(W, Kx, L, gamma=1e-3, tol=1e-12, max_iter=20_000)
    ref = ista_reference(W, Kx, L, 1e-3)
    assert res.objective_history[-1] == pytest.approx(ref, rel=1e-6)
    assert np.all(np.diff(res.objective_history) <= 1e-12 * res.objective_history[0])
    assert 0 < np.count_nonzero(res.M) < W.size


def test_row_sparse_variant_zeroes_whole_rows(small_problem):
    W, Kx, L = small_problem
    res = sparse_cme(W, Kx, L, gamma=2.0, penalty="l1/l2")
    rows = np.abs(res.M).sum(axis=1)
    assert np.any(rows == 0) and np.any(rows > 0)
    assert np.all(np.diff(res.objective_history) <= 1e-12 * res.objective_history[0])


def test_column_sparse_variant_is_the_row_variant_of_the_transposed_problem(small_problem):
    """tr((M - W)ᵀK(M - W)L) = tr((Mᵀ - Wᵀ)ᵀ L (Mᵀ - Wᵀ) K) for symmetric K, L, and
    ||Mᵀ||₂,₁ is the row penalty of Mᵀ: the column variant on (W, K, L) must equal the row
    variant on (Wᵀ, L, K), transposed. Plus its optimality (KKT) conditions."""
    W, Kx, L = small_problem
    gamma = 2.0
    cols = sparse_cme(W, Kx, L, gamma=gamma, penalty="l1/l2-columns", tol=1e-13,
                      max_iter=50_000)
    rows_t = sparse_cme(W.T, L, Kx, gamma=gamma, penalty="l1/l2", tol=1e-13, max_iter=50_000)
    np.testing.assert_allclose(cols.M, rows_t.M.T, atol=1e-6)
    norms = np.linalg.norm(cols.M, axis=0)
    assert np.any(norms == 0) and np.any(norms > 0)  # whole columns dropped, not all
    grad = 2 * Kx @ (cols.M - W) @ L
    active = norms > 0
    # active column j: grad_j + γ M_j / ||M_j|| = 0; inactive: ||grad_j|| <= γ
    np.testing.assert_allclose(grad[:, active] + gamma * cols.M[:, active] / norms[active], 0,
                               atol=1e-4)
    assert np.all(np.linalg.norm(grad[:, ~active], axis=0) <= gamma * (1 + 1e-6))


def test_incomplete_cholesky_reconstructs_K(small_problem):
    _, Kx, _ = small_problem
    G, piv = incomplete_cholesky(Kx)
    np.testing.assert_allclose(G @ G.T, Kx, atol=1e-8)
    G5, piv5 = incomplete_cholesky(Kx, rank=5)
    assert G5.shape == (40, 5) and len(set(piv5)) == 5
    # pivoted residual trace is non-increasing in the rank
    res = [np.trace(Kx - incomplete_cholesky(Kx, rank=r)[0] @ incomplete_cholesky(
        Kx, rank=r)[0].T) for r in (2, 5, 10, 20)]
    assert all(a >= b for a, b in zip(res, res[1:], strict=False))


def test_pendulum_dynamics_and_reward():
    p = Pendulum()
    th, om = p.step(np.array([0.0]), np.array([0.0]), np.array([0.0]))
    assert th[0] == 0.0 and om[0] == 0.0  # upright with no torque is an equilibrium
    th, om = p.step(np.array([0.1]), np.array([0.0]), np.array([0.0]))
    assert th[0] > 0.1 and om[0] > 0  # and an unstable one
    assert p.max_torque < p.mass * p.gravity * p.length  # no direct swing-up
    X, Y = p.transitions(200, rng=0)
    assert X.shape == (200, 4) and Y.shape == (200, 3)
    np.testing.assert_allclose(X[:, 0] ** 2 + X[:, 1] ** 2, 1.0)
    assert Pendulum.reward(0.0, 0.0) == 1.0 and Pendulum.reward(np.pi, 0) < 1e-4


def test_bad_inputs():
    X, Y = sine_data(20, 0)
    for reg in (0.0, -1.0):
        with pytest.raises(ValueError, match="reg must be > 0"):
            ConditionalMeanEmbedding(KX, KY, reg=reg).fit(X, Y)  # validated in fit
    with pytest.raises(ValueError, match="X and Y must have the same number of rows"):
        ConditionalMeanEmbedding(KX, KY, reg=0.1).fit(X, Y[:-1])
    cme = ConditionalMeanEmbedding(KX, KY, reg=0.1).fit(X, Y)
    with pytest.raises(ValueError, match="h_values must have 20 rows"):
        cme.expectation(np.ones(19), X[:2])
    with pytest.raises(ValueError, match="gamma must be >= 0"):
        sparse_cme(np.eye(3), np.eye(3), np.eye(3), gamma=-0.1)
    with pytest.raises(ValueError, match="K must be"):
        sparse_cme(np.eye(3), np.eye(4), np.eye(3), gamma=0.1)
    with pytest.raises(RuntimeError, match="not fitted"):
        ConditionalMeanEmbedding(KX, KY, reg=0.1).weights(X)


def test_sparsity_path_fista_beats_incomplete_cholesky():
    from kmeviz.experiments import sparsity_path

    df = sparsity_path(n_train=60, n_test=200, gammas=[1e-2, 1e-3], ranks=[6, 20], tol=1e-6,
                       rng=0)
    fista = df[df.method == "FISTA"]
    chol = df[df.method == "incomplete Cholesky"]
    assert fista.relative_error.max() < chol.relative_error.min()
    assert set(df.columns) >= {"nonzero_pct", "relative_error", "relative_test_error"}
    assert chol.nonzero_pct.tolist() == [10.0, 100 * 20 / 60]


def test_warm_start_reaches_the_same_objective(small_problem):
    W, Kx, L = small_problem
    cold = sparse_cme(W, Kx, L, gamma=1e-3, tol=1e-12, max_iter=20_000)
    warm_from = sparse_cme(W, Kx, L, gamma=1e-2, tol=1e-9).M
    warm = sparse_cme(W, Kx, L, gamma=1e-3, tol=1e-12, max_iter=20_000, init=warm_from)
    assert warm.objective_history[-1] == pytest.approx(cold.objective_history[-1], rel=1e-6)


def test_coefficients_are_the_inverse_of_the_regularised_gram():
    X, Y = sine_data(30, 1)
    cme = ConditionalMeanEmbedding(KX, KY, reg=0.05).fit(X, Y)
    direct = np.linalg.inv(KX(X) + 30 * 0.05 * np.eye(30))
    np.testing.assert_allclose(cme.coefficients(), direct, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cme.coefficients() @ KX(X, X[:4]), cme.weights(X[:4]).T,
                               rtol=1e-10, atol=1e-12)


def test_sparsity_bands_summarise_the_draws_and_the_path_ends_at_the_dense_cme():
    from kmeviz.experiments.cme import sparsity_bands, sparsity_path

    path = sparsity_path(n_train=40, n_test=100, gammas=[1e-2, 0.0], ranks=[4, 40], tol=1e-6,
                         n_draws=2, rng=1)
    assert sorted(path.draw.unique()) == [0, 1]
    dense = path[(path.method == "FISTA") & (path.parameter == 0.0)]
    assert (dense.nonzero_pct == 100.0).all() and (dense.relative_error == 0.0).all()
    assert np.allclose(dense.relative_test_error, 1.0)
    bands = sparsity_bands(path)
    assert set(bands.measure) == {"relative error (Eq. 16)", "relative test error"}
    one = bands[(bands.method == "FISTA") & (bands.parameter == 1e-2)
                & (bands.measure == "relative error (Eq. 16)")].iloc[0]
    values = path[(path.method == "FISTA") & (path.parameter == 1e-2)].relative_error
    assert one.value == pytest.approx(values.mean()) and one.draws == 2
    assert one.low == values.min() and one.high == values.max()
