"""Conditional mean embedding benchmarks: fit + cross-validation, and FISTA."""

from __future__ import annotations

import time

import numpy as np
from scipy import linalg

import kmeviz as K
from kmeviz.conditional import cross_validate

from ._util import print_table


def refit_every_fold(X, Y, regs, bandwidths, kernel_y, *, n_folds, seed):
    """The obvious k-fold CV: fit a CME on each training part and score the held-out part."""
    folds = np.array_split(np.random.default_rng(seed).permutation(len(X)), n_folds)
    losses = []
    for bw in bandwidths:
        for reg in regs:
            cme = K.ConditionalMeanEmbedding(K.GaussianKernel(bw), kernel_y, reg=reg)
            losses.append(np.mean([
                cme.fit(np.delete(X, f, 0), np.delete(Y, f, 0)).surrogate_loss(X[f], Y[f])
                for f in folds]))
    return np.array(losses)


def run(quick: bool = False):
    n = 400 if quick else 2000
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(n, 1))
    Y = np.sin(X) + 0.3 * rng.normal(size=X.shape)
    ky = K.GaussianKernel(0.5)
    t0 = time.perf_counter()
    K.ConditionalMeanEmbedding(K.GaussianKernel(0.5), ky, reg=1e-3).fit(X, Y)
    t_fit = time.perf_counter() - t0
    regs, bandwidths = np.logspace(-6, -2, 5), [0.2, 0.35, 0.5, 0.7, 1.0]
    t0 = time.perf_counter()
    table, best = cross_validate(X, Y, regs=regs, bandwidths=bandwidths, kernel_y=ky,
                                 n_folds=5, rng=0)
    t_cv = time.perf_counter() - t0
    t0 = time.perf_counter()
    slow = refit_every_fold(X, Y, regs, bandwidths, ky, n_folds=5, seed=0)
    t_slow = time.perf_counter() - t0
    agreement = np.max(np.abs(table["mean_loss"] - slow) / slow)

    Xp, Yp = K.Pendulum().transitions(200, rng=0)
    kx, kyp = K.GaussianKernel(1.0), K.GaussianKernel(1.0)
    cme = K.ConditionalMeanEmbedding(kx, kyp, reg=1e-2).fit(Xp, Yp)
    W = linalg.cho_solve(cme.cho_, np.eye(200))
    rows = [[f"CME fit, n = {n}", t_fit, "-"],
            [f"5-fold CV over 5 λ × 5 bandwidths, n = {n}", t_cv,
             f"best λ = {best['reg']:.0e}, σ = {best['bandwidth']}"],
            [f"fit + CV, total, n = {n}", t_fit + t_cv, "target: a few seconds"],
            ["baseline: refit a CME per fold and setting (125 fits)", t_slow,
             f"{t_slow / t_cv:.0f}× slower; losses agree to {agreement:.0e} relative"]]
    for gamma in (1e-2, 1e-3):
        t0 = time.perf_counter()
        res = K.sparse_cme(W, cme.gram_x_, kyp(Yp), gamma=gamma, tol=1e-6)
        seconds = time.perf_counter() - t0
        rows.append([f"FISTA n = 200, γ = {gamma:g}, tol 1e-6", seconds,
                     f"{res.n_iter} iterations ({1e3 * seconds / res.n_iter:.2f} ms each), "
                     f"{100 * np.count_nonzero(res.M) / res.M.size:.1f}% non-zero"])
    print_table("Conditional mean embeddings (targets: CV in a few seconds; FISTA < 1 s)",
                ["step", "seconds", "notes"], rows)
