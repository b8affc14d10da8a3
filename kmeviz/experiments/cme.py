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
from ..experiments.runners import run_trials
from ..kernels import GaussianKernel


def coefficient_test_loss(M, kernel_x, kernel_y, X, Y, X_test, Y_test) -> float:
    """Held-out surrogate loss of μ(x) = Σ_ij M_ij K(x_i, x) L(y_j, ·)."""
    alpha = kernel_x.gram(X_test, X) @ M
    return coefficient_loss_from_alpha(alpha, kernel_y, Y, Y_test)


def sparsity_path(*, n_train: int = 200, n_test: int = 1000, reg: float = 1e-2,
                  bandwidth_x: float = 1.0, bandwidth_y: float = 1.0, gammas=None,
                  ranks=None, tol: float = 1e-7, rng=None, progress=None,
                  executor=None) -> pd.DataFrame:
    """Grünewälder et al. Fig. 1 on the pendulum: FISTA over a γ path vs incomplete Cholesky.

    For each sparse coefficient matrix M: the percentage of non-zero coefficients, the
    relative error ||M - W||_{K⊗L} / ||W||_{K⊗L} (Eq. (16)) and the held-out surrogate loss
    relative to the dense CME's. FISTA is warm-started along decreasing γ, so the path is
    one trial and each incomplete Cholesky rank another (``run_trials``; ``executor`` runs
    them in parallel, with the same table).
    """
    rng = check_rng(rng)
    pend = Pendulum()
    X, Y = pend.transitions(n_train, rng=rng)
    Xt, Yt = pend.transitions(n_test, rng=rng)
    gammas = np.geomspace(1e-1, 1e-5, 9) if gammas is None else np.sort(gammas)[::-1]
    ranks = np.unique(np.geomspace(2, n_train, 9).astype(int)) if ranks is None else ranks
    problem = _PathProblem(X, Y, Xt, Yt, GaussianKernel(bandwidth_x),
                           GaussianKernel(bandwidth_y), reg)
    items = [("FISTA", [float(g) for g in gammas], tol)] + [
        ("incomplete Cholesky", int(r), None) for r in ranks]
    trials = run_trials(problem.rows, items, executor=executor, progress=progress)
    return pd.DataFrame([row for rows in trials for row in rows])


class _PathProblem:
    """The pendulum data and dense CME of ``sparsity_path``; ``rows(item)`` is one trial."""

    def __init__(self, X, Y, Xt, Yt, kx, ky, reg):
        self.X, self.Y, self.Xt, self.Yt, self.kx, self.ky, self.reg = X, Y, Xt, Yt, kx, ky, reg
        cme = ConditionalMeanEmbedding(kx, ky, reg=reg).fit(X, Y)
        self.K, self.L = cme.gram_x_, ky.gram(Y, Y)
        self.W = cme.coefficients()
        self.w_norm = np.sqrt(kl_norm2(self.W, self.K, self.L))
        self.dense_loss = coefficient_test_loss(self.W, kx, ky, X, Y, Xt, Yt)

    def record(self, method, param, Mhat) -> dict:
        return {"method": method, "parameter": float(param),
                "nonzero_pct": 100.0 * np.count_nonzero(Mhat) / Mhat.size,
                "relative_error": np.sqrt(kl_norm2(Mhat - self.W, self.K, self.L)) / self.w_norm,
                "relative_test_error": coefficient_test_loss(
                    Mhat, self.kx, self.ky, self.X, self.Y, self.Xt, self.Yt) / self.dense_loss}

    def rows(self, item) -> list[dict]:
        method, parameter, tol = item
        if method == "FISTA":  # warm-started along the decreasing γ path
            rows, M = [], None
            for g in parameter:
                M = sparse_cme(self.W, self.K, self.L, gamma=g, tol=tol, init=M).M
                rows.append(self.record("FISTA", g, M))
            return rows
        _, piv = incomplete_cholesky(self.K, rank=parameter)
        return [self.record(method, len(piv),
                            low_rank_cme_coefficients(self.K, piv, self.reg))]
