"""Grünewälder et al. (2012) Fig. 1: FISTA sparsity path vs incomplete Cholesky ranks on
the pendulum."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from .._validation import check_positive_int, check_rng
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
from ..experiments.runners import run_trials, trial_seeds
from ..kernels import GaussianKernel


def coefficient_test_loss(M, kernel_x, kernel_y, X, Y, X_test, Y_test) -> float:
    """Held-out surrogate loss of μ(x) = Σ_ij M_ij K(x_i, x) L(y_j, ·)."""
    alpha = kernel_x.gram(X_test, X) @ M
    return coefficient_loss_from_alpha(alpha, kernel_y, Y, Y_test)


def sparsity_path(*, n_train: int = 200, n_test: int = 1000, reg: float = 1e-2,
                  bandwidth_x: float = 1.0, bandwidth_y: float = 1.0, gammas=None,
                  ranks=None, tol: float = 1e-7, n_draws: int = 1, rng=None, progress=None,
                  executor=None) -> pd.DataFrame:
    """Grünewälder et al. Fig. 1 on the pendulum: FISTA over a γ path vs incomplete Cholesky.

    For each sparse coefficient matrix M: the percentage of non-zero coefficients, the
    relative error ||M - W||_{K⊗L} / ||W||_{K⊗L} (Eq. (16)) and the held-out surrogate loss
    relative to the dense CME's. FISTA is warm-started along decreasing γ (default 10⁻¹ to
    10⁻⁶, then γ = 0, whose minimiser is W itself: the paper's right end, 100 %). Each draw
    of training and test data (``n_draws``; one draw comes from ``rng`` itself) is one
    trial with the whole path and every rank (``run_trials``, so ``executor`` runs the
    draws in parallel, with the same table). Columns: draw, method, parameter,
    nonzero_pct, relative_error, relative_test_error.
    """
    rng = check_rng(rng)
    n_draws = check_positive_int(n_draws, "n_draws")
    gammas = (np.append(np.geomspace(1e-1, 1e-6, 11), 0.0) if gammas is None
              else np.sort(gammas)[::-1])
    ranks = np.unique(np.geomspace(2, n_train, 9).astype(int)) if ranks is None else ranks
    settings = (n_train, n_test, reg, bandwidth_x, bandwidth_y)
    items = [("FISTA", tuple(float(g) for g in gammas), tol)] + [
        ("incomplete Cholesky", int(r), None) for r in ranks]
    # one draw comes from rng itself (the table of earlier versions), more from child seeds
    draws = [(0, rng)] if n_draws == 1 else list(enumerate(trial_seeds(rng, n_draws)))
    trials = run_trials(partial(_path_trial, settings, items), draws, executor=executor,
                        progress=progress)
    return pd.DataFrame([row for rows in trials for row in rows])


def _path_trial(settings, items, draw) -> list[dict]:
    """Every method of ``sparsity_path`` on one draw of the pendulum data."""
    index, seed = draw
    n_train, n_test, reg, bandwidth_x, bandwidth_y = settings
    rng = np.random.default_rng(seed)
    pend = Pendulum()
    X, Y = pend.transitions(n_train, rng=rng)
    Xt, Yt = pend.transitions(n_test, rng=rng)
    problem = _PathProblem(X, Y, Xt, Yt, GaussianKernel(bandwidth_x),
                           GaussianKernel(bandwidth_y), reg)
    return [{"draw": index, **row} for item in items for row in problem.rows(item)]


#: the two panels of Grünewälder et al. Fig. 1
SPARSITY_MEASURES = {"relative_error": "relative error (Eq. 16)",
                     "relative_test_error": "relative test error"}


def sparsity_bands(path: pd.DataFrame) -> pd.DataFrame:
    """``sparsity_path``'s draws summarised for Fig. 1's two panels: per method, parameter
    and measure, the mean % non-zero, the mean of the measure and its range over the
    draws. Columns: method, parameter, nonzero_pct, measure, value, low, high, draws."""
    frames = []
    for column, label in SPARSITY_MEASURES.items():
        grouped = path.groupby(["method", "parameter"], sort=False)
        table = grouped.agg(nonzero_pct=("nonzero_pct", "mean"), value=(column, "mean"),
                            low=(column, "min"), high=(column, "max"),
                            draws=(column, "size")).reset_index()
        frames.append(table.assign(measure=label))
    columns = ["method", "parameter", "nonzero_pct", "measure", "value", "low", "high",
               "draws"]
    return pd.concat(frames, ignore_index=True)[columns]


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
