"""Sparse conditional mean embeddings (Grünewälder et al. 2012, Sec. 5): FISTA on the
ℓ1 (or row-wise or column-wise ℓ1/ℓ2) penalised fit of Eq. (17), and incomplete Cholesky
as the low-rank alternative."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from .._validation import (
    check_choice,
    check_positive,
    check_positive_int,
    check_real,
)


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


#: Ω of Eq. (17): entrywise ℓ1, row-wise ℓ2,1, column-wise ℓ2,1.
PENALTIES = ("l1", "l1/l2", "l1/l2-columns")


def sparse_cme(W, K, L, *, gamma: float, penalty: str = "l1", tol: float = 1e-9,
               max_iter: int = 5000, init=None) -> SparseCMEResult:
    """Sparse CME coefficients by FISTA with adaptive restart (Alg. 1; Beck & Teboulle 2009).

    Minimises F(M) = tr((M - W)ᵀ K (M - W) L) + γ Ω(M) (Eq. (17)), with Ω = ||M||₁,₁
    (``penalty="l1"``), the row-wise ||M||₂,₁ = Σ_i ||M_i,:||₂ (``"l1/l2"``: drops input
    points x_i) or the column-wise ||Mᵀ||₂,₁ = Σ_j ||M_:,j||₂ (``"l1/l2-columns"``: drops
    output points y_j), the two group penalties of Sec. 5. The gradient
    2K(M - W)L has Lipschitz constant 2||K|| ||L||; the step 1/(2||K|| ||L||) is the
    paper's C = 1/(||K|| ||L||) applied to half the gradient. A step that would increase
    the objective is rejected and the momentum restarted (O'Donoghue & Candès 2015), so
    the objective history is non-increasing. Stops when the relative decrease of F over the
    last 10 iterations is below ``tol``, or after ``max_iter``. With γ = 0 it returns W.
    ``init`` warm-starts from a previous solution (e.g. along a γ path).

    Scale of γ: Alg. 1 steps along K(Q - W)L, half the gradient of F, and soft-thresholds
    at γ_A C, so it minimises ½ tr(...) + γ_A Ω, i.e. Eq. (17) with γ = 2 γ_A. Here γ is
    Eq. (17)'s own: Alg. 1 run with γ_A gives ``sparse_cme(..., gamma=2 * γ_A)``.

    Parameters
    ----------
    W : array (n, n)
        The coefficients of the (dense) CME to sparsify.
    K, L : arrays (n, n)
        The input and output Gram matrices.
    gamma : float
        γ ≥ 0 of Eq. (17).
    penalty : {"l1", "l1/l2", "l1/l2-columns"}
    tol : float
    max_iter : int
    init : array (n, n), optional
        Warm start.

    Returns
    -------
    SparseCMEResult
        ``M``, the objective history, iterations and the fraction of non-zeros.
    """
    W = np.asarray(W, dtype=float)
    K = np.asarray(K, dtype=float)
    L = np.asarray(L, dtype=float)
    gamma = check_real(gamma, "gamma")
    if gamma < 0:
        raise ValueError(f"gamma must be >= 0, got {gamma}")
    check_choice(penalty, "penalty", PENALTIES)
    n, p = W.shape
    if K.shape != (n, n) or L.shape != (p, p):
        raise ValueError(f"K must be ({n}, {n}) and L ({p}, {p}) for W of shape {W.shape}, "
                         f"got {K.shape} and {L.shape}")
    if gamma == 0:
        return SparseCMEResult(W.copy(), np.array([0.0]), 0, True)
    step = 1.0 / (2.0 * np.linalg.norm(K, 2) * np.linalg.norm(L, 2))

    axis = 1 if penalty == "l1/l2" else 0  # the groups: rows, or columns

    def penalty_value(M):
        return np.abs(M).sum() if penalty == "l1" else np.linalg.norm(M, axis=axis).sum()

    def prox(Z, t):
        if penalty == "l1":
            return np.sign(Z) * np.maximum(np.abs(Z) - t, 0.0)
        norms = np.linalg.norm(Z, axis=axis, keepdims=True)
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

    The baseline of Grünewälder et al. 2012, Sec. 5.1 and Fig. 1.

    Parameters
    ----------
    K : array (n, n)
        Symmetric positive semi-definite.
    rank : int, optional
        Largest number of columns (default n).
    tol : float
        Stop when the residual trace is below ``tol`` × tr(K).

    Returns
    -------
    G : array (n, r)
    pivots : array of int (r,)
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
