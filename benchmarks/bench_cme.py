"""Conditional mean embedding benchmarks: fit + cross-validation, and FISTA."""

from __future__ import annotations

import time

import numpy as np
from scipy import linalg

import kmeviz as K
from kmeviz.conditional import cross_validate

from ._util import print_table


def run(quick: bool = False):
    n = 400 if quick else 2000
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(n, 1))
    Y = np.sin(X) + 0.3 * rng.normal(size=X.shape)
    ky = K.GaussianKernel(0.5)
    t0 = time.perf_counter()
    K.ConditionalMeanEmbedding(K.GaussianKernel(0.5), ky, reg=1e-3).fit(X, Y)
    t_fit = time.perf_counter() - t0
    t0 = time.perf_counter()
    _, best = cross_validate(X, Y, regs=np.logspace(-6, -2, 5), bandwidths=[0.2, 0.35, 0.5,
                             0.7, 1.0], kernel_y=ky, n_folds=5, rng=0)
    t_cv = time.perf_counter() - t0

    Xp, Yp = K.Pendulum().transitions(200, rng=0)
    kx, kyp = K.GaussianKernel(1.0), K.GaussianKernel(1.0)
    cme = K.ConditionalMeanEmbedding(kx, kyp, reg=1e-2).fit(Xp, Yp)
    W = linalg.cho_solve(cme.cho_, np.eye(200))
    rows = [[f"CME fit, n = {n}", t_fit, "-"],
            [f"fit + 5-fold CV over 5 λ × 5 bandwidths, n = {n}", t_cv,
             f"best λ = {best['reg']:.0e}, σ = {best['bandwidth']}"]]
    for gamma in (1e-2, 1e-3):
        t0 = time.perf_counter()
        res = K.sparse_cme(W, cme.gram_x_, kyp(Yp), gamma=gamma, tol=1e-6)
        rows.append([f"FISTA n = 200, γ = {gamma:g}, tol 1e-6", time.perf_counter() - t0,
                     f"{res.n_iter} iterations, {100 * np.count_nonzero(res.M) / res.M.size:.1f}"
                     "% non-zero"])
    print_table("Conditional mean embeddings (targets: CV in a few seconds; FISTA < 1 s)",
                ["step", "seconds", "notes"], rows)
