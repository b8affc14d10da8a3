"""Exact MMD, FastMMD and Fastfood benchmarks (issue: foundation / FastMMD slice)."""

from __future__ import annotations

from functools import partial

import numpy as np

import kmeviz as K

from ._util import best_time, peak_memory_mb, print_table


def naive_mmd2(X, Y, sigma):
    """The obvious full-matrix numpy version: one (m+n)² Gram, a'Ka."""
    Z = np.vstack([X, Y])
    sq = (Z**2).sum(axis=1)
    D2 = sq[:, None] + sq[None, :] - 2.0 * Z @ Z.T
    Kz = np.exp(-D2 / (2.0 * sigma**2))
    a = np.concatenate([np.full(len(X), 1.0 / len(X)), np.full(len(Y), -1.0 / len(Y))])
    return float(a @ Kz @ a)


def exact_vs_naive(n=10_000, d=16, n_memory=30_000):
    X, Y = K.uniform_boxes_two_sample(n, dim=d, rng=0)
    sigma = K.median_heuristic(X, Y, rng=0)
    k = K.GaussianKernel(sigma)
    t_naive, v_naive = best_time(lambda: naive_mmd2(X, Y, sigma), repeat=1)
    t_ours, v_ours = best_time(lambda: K.mmd2(X, Y, k), repeat=3)
    Xm, Ym = K.uniform_boxes_two_sample(n_memory, dim=d, rng=1)
    mem, _ = peak_memory_mb(lambda: K.mmd2(Xm, Ym, k))
    t_mem, _ = best_time(lambda: K.mmd2(Xm, Ym, k), repeat=1)
    print_table(
        f"Exact biased MMD², Gaussian kernel, d = {d} (target: >= 8x naive; < 300 MB at n = 3e4)",
        [
            "n per sample",
            "naive full-matrix (s)",
            "kmeviz tiled (s)",
            "speed-up",
            "|difference|",
            "peak extra memory (MB)",
        ],
        [
            [n, t_naive, t_ours, t_naive / t_ours, abs(v_naive - v_ours), "-"],
            [n_memory, "-", t_mem, "-", "-", mem],
        ],
    )


def fastmmd_vs_exact(n=100_000, d=16):
    X, Y = K.uniform_boxes_two_sample(n, dim=d, rng=2)
    k = K.GaussianKernel(K.median_heuristic(X, Y, rng=0))
    t_exact, exact = best_time(lambda: K.mmd2(X, Y, k), repeat=1)
    rows = []
    for L in (128, 1024):
        for method in ("fourier", "fastfood"):
            for dtype in ("float64", "float32"):
                with K.config_context(dtype=dtype):
                    t, _ = best_time(partial(K.mmd2_fastmmd, X, Y, k, n_features=L,
                                             features=method, rng=0))
                    errs = [abs(K.mmd2_fastmmd(X, Y, k, n_features=L, features=method, rng=s)
                                - exact) / exact for s in range(5)]
                rows.append([L, method, dtype, t, t_exact / t, float(np.mean(errs))])
    print_table(
        f"FastMMD vs exact biased MMD² at n = {n} per sample, d = {d} "
        f"(exact, float64: {t_exact:.2f} s, MMD² = {exact:.4f}; target: L = 128 Fourier "
        "≥ 1000× faster than exact at n = 1e5)",
        ["L", "method", "trig dtype", "time (s)", "speed-up vs exact",
         "mean rel. error of MMD² (5 seeds)"],
        rows,
    )


def _fwht_by_levels(A):
    """The earlier transform, the baseline: one numpy pass over pairs per level, each
    building its result with ``np.stack``."""
    n, lead, h = A.shape[-1], A.shape[:-1], 1
    while h < n:
        pairs = A.reshape(*lead, n // (2 * h), 2, h)
        a, b = pairs[..., 0, :], pairs[..., 1, :]
        A = np.stack((a + b, a - b), axis=-2)
        h *= 2
    return A.reshape(*lead, n)


def fwht_vs_levels(rows=20_000, sizes=(16, 64, 256, 1024, 4096)):
    """``fwht`` (Kronecker blocks through BLAS) against the level-by-level baseline on
    ``rows`` rows of each length, in the same run."""
    rng = np.random.default_rng(0)
    out = []
    for n in sizes:
        A = rng.normal(size=(max(1, rows * 16 // n), n))
        t_new, new = best_time(partial(K.fwht, A))
        t_old, old = best_time(partial(_fwht_by_levels, A))
        out.append([n, A.shape[0], t_old, t_new, t_old / t_new,
                    float(np.abs(new - old).max() / np.abs(old).max())])
    print_table("Walsh–Hadamard transform: fwht against one numpy pass per level (np.stack)",
                ["length", "rows", "by levels (s)", "fwht (s)", "speed-up",
                 "max |difference| / max |value|"], out)


def fastfood_vs_dense(n=2_000, dims=(64, 256, 1024, 4096)):
    rows = []
    rng = np.random.default_rng(0)
    for d in dims:
        X = rng.uniform(size=(n, d))
        k = K.GaussianKernel(np.sqrt(d / 6))
        L = d  # one Fastfood block
        dense = K.RandomFourierFeatures(k, L, rng=0).fit(X)
        fast = K.FastfoodFeatures(k, L, rng=0).fit(X)
        t_dense, _ = best_time(partial(dense.projections, X))
        t_fast, _ = best_time(partial(fast.projections, X))
        dense_params = dense.frequencies_.size
        fast_params = (
            fast.signs_.size + fast.permutations_.size + fast.gaussians_.size + fast.scales_.size
        )
        rows.append(
            [
                d,
                L,
                t_dense,
                t_fast,
                t_dense / t_fast,
                dense_params * 8 / 2**20,
                fast_params * 8 / 2**20,
            ]
        )
    print_table(
        f"Fastfood vs dense random Fourier features: projections of n = {n} points, L = d",
        [
            "d",
            "L",
            "dense (s)",
            "Fastfood (s)",
            "dense/Fastfood time",
            "dense params (MB)",
            "Fastfood params (MB)",
        ],
        rows,
    )


def fastfood_vs_fourier_mmd(n=10_000, cases=((1024, 8192), (16, 128)), seeds=3):
    """FastMMD-Fastfood against FastMMD-Fourier end to end (``mmd2_fastmmd``, biased), in
    Fig. 7's settings: n points per sample of FastMMD's uniform boxes, L frequencies;
    trigonometric functions in float64 (the default) and float32; relative errors
    against the exact MMD² over ``seeds`` frequency draws."""
    rows = []
    for d, L in cases:
        X, Y = K.uniform_boxes_two_sample(n, dim=d, rng=2)
        k = K.GaussianKernel(K.median_heuristic(X, Y, rng=0))
        exact = K.mmd2(X, Y, k)
        for dtype in ("float64", "float32"):
            with K.config_context(dtype=dtype):
                times, errors = {}, {}
                for method in ("fourier", "fastfood"):
                    times[method], _ = best_time(partial(K.mmd2_fastmmd, X, Y, k, n_features=L,
                                                         features=method, rng=0), repeat=2)
                    errors[method] = np.mean([abs(K.mmd2_fastmmd(
                        X, Y, k, n_features=L, features=method, rng=s) - exact) / exact
                        for s in range(seeds)])
            rows.append([d, L, dtype, times["fourier"], times["fastfood"],
                         times["fourier"] / times["fastfood"], errors["fourier"],
                         errors["fastfood"]])
    print_table(f"FastMMD-Fastfood vs FastMMD-Fourier, n = {n} per sample (Fig. 7 settings; "
                "target: Fastfood ≥ 1.5× faster at d = 1024, L = 8192)",
                ["d", "L", "trig dtype", "Fourier (s)", "Fastfood (s)",
                 "Fourier/Fastfood time", f"Fourier rel. error ({seeds} draws)",
                 f"Fastfood rel. error ({seeds} draws)"], rows)


def run(quick: bool = False):
    if quick:
        exact_vs_naive(n=2_000, n_memory=5_000)
        fastmmd_vs_exact(n=4_000)
        fwht_vs_levels(rows=2_000, sizes=(16, 256))
        fastfood_vs_dense(n=500, dims=(64, 256))
        fastfood_vs_fourier_mmd(n=1_000, cases=((256, 1024),), seeds=1)
    else:
        exact_vs_naive()
        fastmmd_vs_exact()
        fwht_vs_levels()
        fastfood_vs_dense()
        fastfood_vs_fourier_mmd()
