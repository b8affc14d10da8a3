"""Conditional mean embeddings as vector-valued kernel ridge regression.

Grünewälder et al. (2012), *Conditional mean embeddings as regressors*: the estimate
μ̂(x) = Σ_i α_i(x) L(y_i, ·) with α(x) = (K + nλI)⁻¹ k_x (Eq. (1)) minimises the
regularised surrogate loss (9); sparse versions solve Eq. (17) by FISTA (Alg. 1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import linalg

from .._validation import (
    check_is_fitted,
    check_positive,
    check_positive_int,
    check_rng,
    check_samples,
)
from ..conditional.sparse import (
    incomplete_cholesky,
)
from ..kernels import GaussianKernel, check_kernel


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

    Parameters
    ----------
    kernel_x, kernel_y : Kernel
        k on the inputs and L on the outputs.
    reg : float
        λ > 0, the ridge of K + nλI.

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
        self.kernel_x, self.kernel_y, self.reg = kernel_x, kernel_y, reg

    def fit(self, X, Y):
        check_kernel(self.kernel_x, "kernel_x")
        check_kernel(self.kernel_y, "kernel_y")
        reg = check_positive(self.reg, "reg")
        X, Y = _check_xy(X, Y)
        n = X.shape[0]
        self.X_, self.Y_ = X, Y
        self.gram_x_ = self.kernel_x.gram(X, X)
        self.cho_ = linalg.cho_factor(self.gram_x_ + n * reg * np.eye(n), lower=True)
        return self

    def _check_fitted(self):
        check_is_fitted(self, "cho_", "fit(X, Y)")

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

    def coefficients(self) -> np.ndarray:
        """W = (K + nλI)⁻¹, the dense coefficient matrix of the embedding (Grünewälder et
        al., Sec. 4: μ̂(x) = Σ_ij W_ij k(x_i, x) φ(y_j) up to the sample's k_x); the
        sparse CME (Eq. 17) approximates it. Shape (n, n)."""
        self._check_fitted()
        return linalg.cho_solve(self.cho_, np.eye(self.X_.shape[0]))

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
