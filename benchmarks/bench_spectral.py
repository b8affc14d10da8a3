"""The spectral null (issue 29, point 4): ``mmd_test(null="spectral")`` against a bare LAPACK
eigenvalue call on the same centred Gram, in the same run, and the p-values of the
leading-eigenvalue route against the full spectrum.

``python -m benchmarks.bench_spectral [--quick] [--full-large]``: ``--full-large`` also
computes the full spectrum at N = 20 000 (a 3.2 GB Gram and several minutes of LAPACK)
to compare p-values there.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import linalg

import kmeviz as K
from kmeviz.twosample.spectra import SpectralNull, exact_centred_eigenvalues

from ._util import best_time, print_table

#: (pooled N, dimension, mean shift of Y): H0, a near-threshold and a clear alternative
CASES = ((5, 0.0), (5, 0.04), (2, 0.08), (20, 0.05), (20, 0.0))
#: at N = 20 000 (each full spectrum takes minutes): H0 and a near-threshold shift
LARGE_CASES = ((5, 0.0), (5, 0.02))


def _data(N, d, shift, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N // 2, d))
    Y = rng.standard_normal((N // 2, d)) + shift
    return X, Y, K.GaussianKernel(K.median_heuristic(X, Y))


def p_value(spectrum: SpectralNull, statistic, m, n, estimator, B=100_000, seed=1) -> float:
    """The simulated p-value of ``statistic`` with B draws in chunks (memory stays small)."""
    rng, hits = np.random.default_rng(seed), 0
    for _ in range(B // 5000):
        hits += int(np.sum(spectrum.draws(m, n, estimator, 5000, rng) >= statistic))
    return (1 + hits) / (1 + B)


def speed(N=6000, d=5):
    """Seconds of the full test (unbiased, spectral null) against bare LAPACK on its Gram."""
    X, Y, k = _data(N, d, 0.0)
    t_test, res = best_time(lambda: K.mmd_test(X, Y, k, estimator="unbiased",
                                               null="spectral", rng=0), repeat=2)
    Z = np.vstack([X, Y])
    Kz = k.gram(Z, Z)
    row = Kz.mean(axis=1)
    centred = (Kz - row[:, None] - row[None, :] + row.mean()) / N
    t0 = time.perf_counter()
    linalg.eigvalsh(centred, overwrite_a=True, check_finite=False)
    t_lapack = time.perf_counter() - t0
    return [[f"mmd_test unbiased/spectral, N = {N}, d = {d}", t_test, t_test / t_lapack],
            ["bare LAPACK eigvalsh of the same centred Gram (no vectors)", t_lapack, 1.0]]


def agreement(N, full_large: bool, cases=CASES):
    """|p(leading 200 + tail) − p(full spectrum)| over ``cases`` at pooled size N."""
    rows = []
    for d, shift in cases:
        X, Y, k = _data(N, d, shift)
        Z, m, n = np.vstack([X, Y]), N // 2, N - N // 2
        t0 = time.perf_counter()
        truncated = K.twosample.spectral_null(X, Y, k, rank=200)
        t_trunc = time.perf_counter() - t0
        full = None
        if full_large or N <= 8000:
            lam = exact_centred_eigenvalues(Z, k)
            full = SpectralNull(lam[lam > 1e-12 * lam.max()])
        for estimator in ("biased", "unbiased"):
            stat = K.mmd2(X, Y, k, estimator=estimator)
            p_t = p_value(truncated, stat, m, n, estimator)
            p_f = p_value(full, stat, m, n, estimator) if full is not None else float("nan")
            rows.append([N, d, shift, estimator, truncated.tail_sum / (
                truncated.tail_sum + truncated.eigenvalues.sum()), p_f, p_t, abs(p_t - p_f),
                t_trunc])
    return rows


def run(quick: bool = False, full_large: bool = False):
    print_table("Spectral null: the whole test against a bare LAPACK eigenvalue call on the "
                "same Gram (same run; target ≤ 3 s and ≤ 1.5× LAPACK)",
                ["what", "seconds", "× LAPACK"], speed(3000 if quick else 6000))
    rows = agreement(3000 if quick else 6000, full_large)
    if full_large:
        rows += agreement(20_000, full_large, LARGE_CASES)
    print_table("Spectral null p-values: leading 200 eigenvalues + Gamma tail with exact "
                "moments, against the full spectrum (B = 100 000 draws each; target ≤ 0.01)",
                ["N", "d", "shift", "estimator", "tail share of Σλ", "p full", "p leading 200",
                 "|difference|", "spectrum s"], rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_spectral")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--full-large", action="store_true")
    args = parser.parse_args()
    run(args.quick, args.full_large)
