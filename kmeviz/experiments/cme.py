"""Grünewälder et al. (2012) Fig. 1: FISTA sparsity path vs incomplete Cholesky ranks on
the pendulum."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import (
    check_rng,
)
from ..conditional.cme import (
    ConditionalMeanEmbedding,
    coefficient_loss_from_alpha,
)
from ..conditional.sparse import (
    incomplete_cholesky,
    kl_norm2,
    low_rank_cme_coefficients,
    sparse_cme,
)
from ..distributions.pendulum import Pendulum
from ..kernels import GaussianKernel


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
    W = cme.coefficients()
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
