"""Conditional mean embeddings as vector-valued kernel ridge regression.

Grünewälder et al. (2012), *Conditional mean embeddings as regressors*: the estimate
μ̂(x) = Σ_i α_i(x) L(y_i, ·) with α(x) = (K + nλI)⁻¹ k_x (Eq. (1)) minimises the
regularised surrogate loss (9); sparse versions solve Eq. (17) by FISTA (Alg. 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import linalg

from ._validation import (
    check_choice,
    check_positive,
    check_positive_int,
    check_real,
    check_rng,
    check_samples,
)
from .kernels import GaussianKernel, check_kernel


def _check_xy(X, Y):
    X = check_samples(X, "X")
    Y = check_samples(Y, "Y")
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"X and Y must have the same number of rows, got {X.shape[0]} "
                         f"and {Y.shape[0]}")
    return X, Y


class ConditionalMeanEmbedding:
    """μ̂(x) = Σ_i α_i(x) L(y_i, ·), α(x) = (K + nλI)⁻¹ k_x (Eq. (1)).

    ``fit`` factorises K + nλI by Cholesky once (never an explicit inverse).

    Examples
    --------
    >>> import numpy as np
    >>> from kmeviz import GaussianKernel
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-3, 3, size=(300, 1)); Y = np.sin(X) + 0.1 * rng.normal(size=X.shape)
    >>> cme = ConditionalMeanEmbedding(GaussianKernel(0.5), GaussianKernel(0.5), reg=1e-3)
    >>> est = cme.fit(X, Y).expectation(Y[:, 0], np.array([[1.0]]))
    >>> bool(abs(est[0] - np.sin(1.0)) < 0.1)
    True
    """

    def __init__(self, kernel_x, kernel_y, *, reg: float):
        self.kernel_x = check_kernel(kernel_x, "kernel_x")
        self.kernel_y = check_kernel(kernel_y, "kernel_y")
        self.reg = check_positive(reg, "reg")

    def fit(self, X, Y):
        X, Y = _check_xy(X, Y)
        n = X.shape[0]
        self.X_, self.Y_ = X, Y
        self.gram_x_ = self.kernel_x.gram(X, X)
        self.cho_ = linalg.cho_factor(self.gram_x_ + n * self.reg * np.eye(n), lower=True)
        return self

    def _check_fitted(self):
        if not hasattr(self, "cho_"):
            raise RuntimeError("ConditionalMeanEmbedding is not fitted; call fit(X, Y) first")

    def _new_inputs(self, X_new):
        X_new = check_samples(X_new, "X_new")
        if X_new.shape[1] != self.X_.shape[1]:
            raise ValueError(f"X_new has dimension {X_new.shape[1]}, X has {self.X_.shape[1]}")
        return X_new

    def weights(self, X_new) -> np.ndarray:
        """α(x) for each row of X_new, shape (n_new, n)."""
        self._check_fitted()
        kx = self.kernel_x.gram(self.X_, self._new_inputs(X_new))  # (n, n_new)
        return linalg.cho_solve(self.cho_, kx).T

    def expectation(self, h_values, X_new) -> np.ndarray:
        """Ê[h(Y) | X = x] = Σ_i α_i(x) h(y_i) from the values h(y_i), shape (n_new, ...)."""
        self._check_fitted()
        h = np.asarray(h_values, dtype=float)
        if h.shape[0] != self.X_.shape[0]:
            raise ValueError(f"h_values must have {self.X_.shape[0]} rows (one per training "
                             f"point), got shape {h.shape}")
        return self.weights(X_new) @ h

    def embedding(self, X_new, Y_grid) -> np.ndarray:
        """μ̂(x)(y) = Σ_i α_i(x) L(y_i, y) on a grid, shape (n_new, n_grid)."""
        self._check_fitted()
        Y_grid = check_samples(Y_grid, "Y_grid")
        return self.weights(X_new) @ self.kernel_y.gram(self.Y_, Y_grid)

    def surrogate_loss(self, X_test, Y_test) -> float:
        """Mean over test pairs of ||L(y, ·) - μ̂(x)||²_L (Eq. (8) divided by the count)."""
        self._check_fitted()
        X_test, Y_test = _check_xy(X_test, Y_test)
        return coefficient_loss_from_alpha(self.weights(X_test), self.kernel_y, self.Y_, Y_test)


def coefficient_loss_from_alpha(alpha, kernel_y, Y_train, Y_test) -> float:
    """mean_t L(y_t, y_t) - 2 α_tᵀ l_t + α_tᵀ L α_t for rows α_t of ``alpha``."""
    return _loss_from_grams(alpha, kernel_y.gram(Y_train, Y_train),
                            kernel_y.gram(Y_train, Y_test), kernel_y.diag(Y_test))


def _loss_from_grams(alpha, L_train, L_cross, diag) -> float:
    quad = np.sum((alpha @ L_train) * alpha, axis=1)
    cross = np.sum(alpha * L_cross.T, axis=1)
    return float(np.mean(diag - 2.0 * cross + quad))


def output_features(kernel_y, Y_train, Y_test, *, tol: float = 1e-13):
    """Features R, R_test with ⟨R_i, R_test_t⟩ = ⟨Pφ(y_i), Pφ(y_t)⟩, P the projection on
    span{φ(y_p)} over the pivots of an incomplete Cholesky of L (residual diagonal below
    ``tol`` × L(y, y)), so R Rᵀ ≈ L to that tolerance at a cost of O(n r²)."""
    L = kernel_y.gram(Y_train, Y_train)
    R, pivots = incomplete_cholesky(L, tol=tol / Y_train.shape[0])
    C = R[pivots]  # lower-triangular factor of L_PP in pivot order
    R_test = linalg.solve_triangular(C, kernel_y.gram(Y_train[pivots], Y_test),
                                     lower=True).T
    return R, R_test


def cross_validate(X, Y, *, regs, bandwidths, kernel_y, n_folds: int = 5,
                   rng=None) -> tuple[pd.DataFrame, dict]:
    """k-fold CV of the held-out surrogate loss (Sec. 3.2) over λ × Gaussian bandwidths of
    kernel_x. Returns a tidy table (reg, bandwidth, mean_loss, std_loss) and the best setting.

    The loss needs only α R = k_test (K + nλI)⁻¹ R for output features L ≈ R Rᵀ
    (``output_features``). When K is numerically low-rank (incomplete Cholesky K ≈ G Gᵀ
    reaches residual 1e-13 per diagonal entry within rank n/4) one thin SVD per fold and
    bandwidth serves every λ; otherwise each (fold, bandwidth, λ) costs one Cholesky.
    """
    X, Y = _check_xy(X, Y)
    n_folds = check_positive_int(n_folds, "n_folds", minimum=2)
    if n_folds > X.shape[0]:
        raise ValueError(f"n_folds={n_folds} exceeds the number of samples {X.shape[0]}")
    regs = [check_positive(r, "reg") for r in regs]
    bandwidths = [check_positive(b, "bandwidth") for b in bandwidths]
    n_all = X.shape[0]
    folds = np.array_split(check_rng(rng).permutation(n_all), n_folds)
    splits = [(np.concatenate(folds[:k] + folds[k + 1:]), folds[k]) for k in range(n_folds)]
    outputs = [output_features(kernel_y, Y[train], Y[test]) + (kernel_y.diag(Y[test]),)
               for train, test in splits]
    losses = {(bw, reg): [] for bw in bandwidths for reg in regs}
    for bw in bandwidths:
        kx = GaussianKernel(bw)
        max_rank = max(1, n_all // 4)
        G, _ = incomplete_cholesky(kx.gram(X, X), rank=max_rank, tol=1e-13 / n_all)
        low_rank = G.shape[1] < max_rank  # stopped by the tolerance, not the rank cap
        for (train, test), (R, R_test, diag) in zip(splits, outputs, strict=True):
            ridge = _low_rank_ridge(G, train, test, R) if low_rank else _cholesky_ridge(
                kx, X, train, test, R)
            for reg in regs:
                alpha_R = ridge(train.size * reg)
                # ||φ(y_t) - Σ_i α_ti φ(y_i)||² with the sum projected on the features
                loss = diag - 2.0 * np.sum(alpha_R * R_test, axis=1) + np.sum(alpha_R**2, 1)
                losses[bw, reg].append(float(np.mean(loss)))
    rows = [{"reg": reg, "bandwidth": bw, "mean_loss": float(np.mean(v)),
             "std_loss": float(np.std(v))} for (bw, reg), v in losses.items()]
    table = pd.DataFrame(rows)
    best = table.loc[table["mean_loss"].idxmin()]
    return table, {"reg": float(best["reg"]), "bandwidth": float(best["bandwidth"])}


def _low_rank_ridge(G, train, test, R):
    """c ↦ k_test (K + cI)⁻¹ R for K = G Gᵀ: with G_train = U S Vᵀ this is
    G_test V diag(s / (s² + c)) Uᵀ R (the part of R orthogonal to U is never reached)."""
    U, s, Vt = linalg.svd(G[train], full_matrices=False)
    left, right = G[test] @ Vt.T, U.T @ R
    return lambda c: (left * (s / (s**2 + c))) @ right


def _cholesky_ridge(kernel, X, train, test, R):
    """c ↦ k_test (K + cI)⁻¹ R by one Cholesky factorisation per c."""
    K_train = kernel.gram(X[train], X[train])
    k_test = kernel.gram(X[test], X[train])

    def solve(c):
        A = K_train.copy()
        A.flat[:: train.size + 1] += c
        # A is symmetric, so A.T is the same matrix in Fortran order: factored in place
        cho = linalg.cho_factor(A.T, lower=True, overwrite_a=True, check_finite=False)
        return k_test @ linalg.cho_solve(cho, R, check_finite=False)

    return solve


@dataclass(frozen=True)
class SparseCMEResult:
    """Coefficients M, the objective after every iteration, and convergence info."""

    M: np.ndarray
    objective_history: np.ndarray
    n_iter: int
    converged: bool


def kl_norm2(A, K, L) -> float:
    """||Σ_ij A_ij K(x_i, ·) L(y_j, ·)||²_{K⊗L} = tr(Aᵀ K A L) (Eq. (16))."""
    return float(np.sum((K @ A) * (A @ L)))


def sparse_cme(W, K, L, *, gamma: float, penalty: str = "l1", tol: float = 1e-9,
               max_iter: int = 5000, init=None) -> SparseCMEResult:
    """Sparse CME coefficients by FISTA with adaptive restart (Alg. 1; Beck & Teboulle 2009).

    Minimises F(M) = tr((M - W)ᵀ K (M - W) L) + γ Ω(M) (Eq. (17)), with Ω = ||M||₁,₁
    (``penalty="l1"``) or the row-wise Σ_i ||M_i,:||₂ (``"l1/l2"``). The gradient
    2K(M - W)L has Lipschitz constant 2||K|| ||L||; the step 1/(2||K|| ||L||) is the
    paper's C = 1/(||K|| ||L||) applied to half the gradient. A step that would increase
    the objective is rejected and the momentum restarted (O'Donoghue & Candès 2015), so
    the objective history is non-increasing. Stops when the relative decrease of F over the
    last 10 iterations is below ``tol``, or after ``max_iter``. With γ = 0 it returns W.
    ``init`` warm-starts from a previous solution (e.g. along a γ path).
    """
    W = np.asarray(W, dtype=float)
    K = np.asarray(K, dtype=float)
    L = np.asarray(L, dtype=float)
    gamma = check_real(gamma, "gamma")
    if gamma < 0:
        raise ValueError(f"gamma must be >= 0, got {gamma}")
    check_choice(penalty, "penalty", ("l1", "l1/l2"))
    n, p = W.shape
    if K.shape != (n, n) or L.shape != (p, p):
        raise ValueError(f"K must be ({n}, {n}) and L ({p}, {p}) for W of shape {W.shape}, "
                         f"got {K.shape} and {L.shape}")
    if gamma == 0:
        return SparseCMEResult(W.copy(), np.array([0.0]), 0, True)
    step = 1.0 / (2.0 * np.linalg.norm(K, 2) * np.linalg.norm(L, 2))

    def penalty_value(M):
        return np.abs(M).sum() if penalty == "l1" else np.linalg.norm(M, axis=1).sum()

    def prox(Z, t):
        if penalty == "l1":
            return np.sign(Z) * np.maximum(np.abs(Z) - t, 0.0)
        norms = np.linalg.norm(Z, axis=1, keepdims=True)
        return Z * np.maximum(1.0 - t / np.maximum(norms, 1e-300), 0.0)

    def sandwich(M):
        return K @ M @ L

    # One K·L sandwich per iteration: K z L gives both F(z) = Σ (K(z - W)L) ∘ (z - W) + γΩ
    # and, by linearity, K y L for the next extrapolated point y.
    KWL = sandwich(W)
    x = np.zeros_like(W) if init is None else np.array(init, dtype=float)
    if x.shape != W.shape:
        raise ValueError(f"init must have shape {W.shape}, got {x.shape}")
    KxL = sandwich(x)
    y, KyL = x, KxL
    theta = 1.0
    history = [float(np.sum((KxL - KWL) * (x - W))) + gamma * penalty_value(x)]
    converged = False
    for it in range(1, max_iter + 1):
        z = prox(y - step * 2.0 * (KyL - KWL), gamma * step)
        KzL = sandwich(z)
        fz = float(np.sum((KzL - KWL) * (z - W))) + gamma * penalty_value(z)
        if fz > history[-1]:
            # adaptive restart (O'Donoghue & Candès 2015): drop the momentum, keep x
            theta, y, KyL = 1.0, x, KxL
            history.append(history[-1])
            continue
        theta_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * theta**2))
        beta = (theta - 1.0) / theta_new
        y, KyL = z + beta * (z - x), KzL + beta * (KzL - KxL)
        x, KxL, theta = z, KzL, theta_new
        history.append(fz)
        # judge progress over 10 iterations (a restart step makes no progress by itself)
        if it > 10 and history[-11] - history[-1] <= tol * max(abs(history[-1]), 1e-300):
            converged = True
            break
    return SparseCMEResult(x, np.asarray(history), it, converged)


def incomplete_cholesky(K, *, rank: int | None = None,
                        tol: float = 1e-10) -> tuple[np.ndarray, np.ndarray]:
    """Pivoted incomplete Cholesky K ≈ G Gᵀ, greedily pivoting on the largest residual
    (the lowest index among residuals within 1e-9 relative of the largest).

    Stops at ``rank`` columns or when the residual trace falls below ``tol`` × tr(K).
    Returns G of shape (n, r) and the pivot indices (r,).
    """
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square matrix, got shape {K.shape}")
    n = K.shape[0]
    rank = n if rank is None else check_positive_int(rank, "rank")
    tol = check_positive(tol, "tol")
    G = np.zeros((n, min(rank, n)))
    diag = np.diag(K).astype(float).copy()
    total = diag.sum()
    pivots = []
    for k in range(min(rank, n)):
        # Near-ties (k(x, x) = 1 for every x at the start) go to the lowest index, so the
        # pivots do not depend on the last bits of round-off, which vary with the CPU.
        p = int(np.flatnonzero(diag >= diag.max() * (1.0 - 1e-9))[0])
        if diag[p] <= tol * total:
            break
        pivots.append(p)
        G[:, k] = (K[:, p] - G[:, :k] @ G[p, :k]) / np.sqrt(diag[p])
        diag -= G[:, k] ** 2
        diag[p] = 0.0
    r = len(pivots)
    return G[:, :r], np.asarray(pivots, dtype=int)


def low_rank_cme_coefficients(K, pivots, reg: float) -> np.ndarray:
    """Coefficients M (nonzero only on pivot rows) of the CME refitted with the Nyström
    kernel K̃ = K_{:,P} K_PP⁻¹ K_{P,:} that incomplete Cholesky builds (Fig. 1 baseline)."""
    n = K.shape[0]
    KnP = K[:, pivots]
    KPP = K[np.ix_(pivots, pivots)]
    Kt = KnP @ linalg.solve(KPP, KnP.T, assume_a="pos")
    W_tilde = linalg.cho_solve(linalg.cho_factor(Kt + n * reg * np.eye(n)), np.eye(n))
    M = np.zeros((n, n))
    M[pivots] = linalg.solve(KPP, KnP.T @ W_tilde, assume_a="pos")
    return M


# -- the pendulum of Sec. 5.1 ------------------------------------------------------------
@dataclass(frozen=True)
class Pendulum:
    """Under-actuated pendulum (Deisenroth et al. 2009): θ = 0 is upright.

    θ̈ = (-μ θ̇ + m g l sin θ + u) / (m l²), integrated by RK4 over one step ``dt``.
    With |u| <= 5 N·m < m g l = 9.81 N·m the torque cannot swing it up directly.
    """

    mass: float = 1.0
    length: float = 1.0
    friction: float = 0.05
    gravity: float = 9.81
    dt: float = 0.05
    max_torque: float = 5.0

    def _deriv(self, theta, omega, u):
        ml2 = self.mass * self.length**2
        acc = (-self.friction * omega + self.mass * self.gravity * self.length * np.sin(theta)
               + u) / ml2
        return omega, acc

    def step(self, theta, omega, u):
        """(θ', ω') after one time step (θ' wrapped to [-π, π])."""
        u = np.clip(u, -self.max_torque, self.max_torque)
        k1 = self._deriv(theta, omega, u)
        k2 = self._deriv(theta + 0.5 * self.dt * k1[0], omega + 0.5 * self.dt * k1[1], u)
        k3 = self._deriv(theta + 0.5 * self.dt * k2[0], omega + 0.5 * self.dt * k2[1], u)
        k4 = self._deriv(theta + self.dt * k3[0], omega + self.dt * k3[1], u)
        theta2 = theta + self.dt / 6.0 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        omega2 = omega + self.dt / 6.0 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        return np.angle(np.exp(1j * theta2)), omega2

    def transitions(self, n: int, rng=None) -> tuple[np.ndarray, np.ndarray]:
        """n uniform states θ ∈ [-π, π], ω ∈ [-7, 7], u ∈ [-5, 5]: inputs
        (sin θ, cos θ, ω, u) and outputs (sin θ', cos θ', ω')."""
        n = check_positive_int(n, "n")
        rng = check_rng(rng)
        th = rng.uniform(-np.pi, np.pi, n)
        om = rng.uniform(-7.0, 7.0, n)
        u = rng.uniform(-self.max_torque, self.max_torque, n)
        th2, om2 = self.step(th, om, u)
        X = np.column_stack([np.sin(th), np.cos(th), om, u])
        Y = np.column_stack([np.sin(th2), np.cos(th2), om2])
        return X, Y

    @staticmethod
    def reward(theta, omega):
        """r(θ, ω) = exp(-θ² - 0.2 ω²)."""
        return np.exp(-np.asarray(theta) ** 2 - 0.2 * np.asarray(omega) ** 2)


def coefficient_test_loss(M, kernel_x, kernel_y, X, Y, X_test, Y_test) -> float:
    """Held-out surrogate loss of μ(x) = Σ_ij M_ij K(x_i, x) L(y_j, ·)."""
    alpha = kernel_x.gram(X_test, X) @ M
    return coefficient_loss_from_alpha(alpha, kernel_y, Y, Y_test)


def sparsity_path(*, n_train: int = 200, n_test: int = 1000, reg: float = 1e-2,
                  bandwidth_x: float = 1.0, bandwidth_y: float = 1.0, gammas=None,
                  ranks=None, tol: float = 1e-7, rng=None, progress=None) -> pd.DataFrame:
    """Grünewälder et al. Fig. 1 on the pendulum: FISTA over a γ path vs incomplete Cholesky.

    For each sparse coefficient matrix M: the percentage of non-zero coefficients, the
    relative error ||M - W||_{K⊗L} / ||W||_{K⊗L} (Eq. (16)) and the held-out surrogate loss
    relative to the dense CME's. FISTA is warm-started along decreasing γ.
    """
    rng = check_rng(rng)
    pend = Pendulum()
    X, Y = pend.transitions(n_train, rng=rng)
    Xt, Yt = pend.transitions(n_test, rng=rng)
    kx, ky = GaussianKernel(bandwidth_x), GaussianKernel(bandwidth_y)
    cme = ConditionalMeanEmbedding(kx, ky, reg=reg).fit(X, Y)
    K, L = cme.gram_x_, ky.gram(Y, Y)
    W = linalg.cho_solve(cme.cho_, np.eye(n_train))
    w_norm = np.sqrt(kl_norm2(W, K, L))
    dense_loss = coefficient_test_loss(W, kx, ky, X, Y, Xt, Yt)
    gammas = np.geomspace(1e-1, 1e-5, 9) if gammas is None else np.sort(gammas)[::-1]
    ranks = np.unique(np.geomspace(2, n_train, 9).astype(int)) if ranks is None else ranks
    rows, M, steps = [], None, len(gammas) + len(ranks)

    def record(method, param, Mhat):
        rows.append({"method": method, "parameter": float(param),
                     "nonzero_pct": 100.0 * np.count_nonzero(Mhat) / Mhat.size,
                     "relative_error": np.sqrt(kl_norm2(Mhat - W, K, L)) / w_norm,
                     "relative_test_error": coefficient_test_loss(Mhat, kx, ky, X, Y, Xt, Yt)
                     / dense_loss})
        if progress is not None:
            progress(len(rows), steps)

    for g in gammas:
        M = sparse_cme(W, K, L, gamma=float(g), tol=tol, init=M).M
        record("FISTA", g, M)
    for r in ranks:
        _, piv = incomplete_cholesky(K, rank=int(r))
        record("incomplete Cholesky", len(piv), low_rank_cme_coefficients(K, piv, reg))
    return pd.DataFrame(rows)
