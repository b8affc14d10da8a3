"""MMDAgg (issue 27, point 4 and 5): kmeviz against a transcription of the authors'
algorithm and against the floor of any exact implementation, measured in one run.
``python -m benchmarks.bench_aggregated [--quick]``.

At n = 500 per sample, d = 10, the 20 kernels of the default collection and
B1 = B2 = 2000:

- **transcription**: the authors' numpy procedure, written here from their description
  (MMDAgg Appendix C, ``mmdagg.np``): the N × N distance matrix, then for every kernel the
  whole N × N Gram, its diagonals zeroed, multiplied by the N × (B1 + B2 + 1) labelling
  matrix, and Σ_i R ∘ (K R);
- **floor**: the 20 products K·V alone (1000 × 1000 by 1000 × 4001), which an exact
  implementation on the joint Gram performs; halved by a symmetric-tile pass (only the
  tiles on or above the diagonal), and for m = n quartered again by working on the n × n
  h-matrix of the paired wild bootstrap, as kmeviz does;
- **kmeviz**: ``mmd_test(X, Y, estimator="mmdagg")`` (the wild bootstrap, m = n) and with
  ``null="permutation"`` (the general path, m ≠ n allowed).

Memory: kmeviz at n = 5000 per sample (tracemalloc peak), against what the authors'
approach holds (two N × N matrices and four N × (B1 + B2 + 1) ones).
"""

from __future__ import annotations

import sys
from functools import partial

import numpy as np
from scipy.spatial.distance import cdist

import kmeviz as K

from ._util import best_time, peak_memory_mb, print_table


def samples(n: int, d: int = 10, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.uniform(0, 1, (n, d)), rng.uniform(0, 1, (n, d)) + 0.02


def transcription(X, Y, collection, B, dtype):
    """The authors' wild bootstrap, all matrices formed (their Appendix C)."""
    n = X.shape[0]
    rng = np.random.default_rng(0)
    R = rng.choice([-1.0, 1.0], size=(2 * B + 1, n))
    R[B] = 1.0
    R = np.concatenate((R.T, -R.T)).astype(dtype)
    Z = np.vstack([X, Y])
    distances = {"l1": cdist(Z, Z, "cityblock"), "l2": cdist(Z, Z, "euclidean")}
    M = np.zeros((len(collection), 2 * B + 1))
    for i, k in enumerate(collection.kernels):
        if isinstance(k, K.LaplaceKernel):
            Kmat = np.exp(-distances["l1"] / k.bandwidth)
        else:
            Kmat = np.exp(-distances["l2"] ** 2 / (2 * k.bandwidth**2))
        Kmat = Kmat.astype(dtype)
        np.fill_diagonal(Kmat, 0)
        np.fill_diagonal(Kmat[:n, n:], 0)
        np.fill_diagonal(Kmat[n:, :n], 0)
        M[i] = np.sum(R * (Kmat @ R), 0)
    return M


def floor(N, B, n_kernels, dtype):
    """The n_kernels products K·V of an N × N Gram by the N × (2B + 1) labellings."""
    rng = np.random.default_rng(0)
    G = rng.random((N, N)).astype(dtype)
    V = rng.choice([-1.0, 1.0], size=(N, 2 * B + 1)).astype(dtype)

    def run():
        for _ in range(n_kernels):
            G @ V
    return run


def speed(n: int, B: int, quick: bool = False) -> None:
    X, Y = samples(n)
    collection = K.mmdagg_kernels(X, Y)
    rows = []
    for dtype in ("float64", "float32"):
        with K.config_context(dtype=dtype):
            t_wild, res = best_time(lambda: K.mmd_test(X, Y, estimator="mmdagg",
                                                       n_resamples=B, rng=0))
            t_perm, _ = best_time(lambda: K.mmd_test(X, Y, estimator="mmdagg",
                                                     null="permutation", n_resamples=B,
                                                     rng=0))
        t_auth, M = best_time(partial(transcription, X, Y, collection, B, np.dtype(dtype)),
                              repeat=2 if quick else 1)
        t_floor, _ = best_time(floor(2 * n, B, len(collection), np.dtype(dtype)), repeat=2)
        if dtype == "float64":  # the transcription computes the same statistics
            ours = res.fitted["values"][:, 0] * (n * (n - 1))
            assert np.allclose(ours, M[:, B], rtol=1e-8), "transcription disagrees"
        rows.append([dtype, t_floor, t_floor / 2, t_auth, t_wild, t_perm,
                     t_auth / t_wild, t_wild / t_floor, t_perm / (t_floor / 2)])
    print_table(f"MMDAgg, n = {n} per sample, d = 10, {len(collection)} kernels, "
                f"B1 = B2 = {B} (seconds; ratios in this run)",
                ["dtype", "floor 20 K·V", "floor / 2 (symmetric)", "authors' transcription",
                 "kmeviz wild (m = n)", "kmeviz permutation", "transcription / kmeviz wild",
                 "kmeviz wild / floor", "kmeviz perm. / half floor"], rows)


def memory(n: int, B: int) -> None:
    X, Y = samples(n, seed=1)
    peak, res = peak_memory_mb(lambda: K.mmd_test(X, Y, estimator="mmdagg", n_resamples=B,
                                                  rng=0))
    N = 2 * n
    authors = (2 * N * N + 4 * N * (2 * B + 1)) * 8 / 2**20
    print_table(f"MMDAgg memory at n = {n} per sample, d = 10, B1 = B2 = {B}",
                ["", "MB"], [["kmeviz peak (tracemalloc)", peak],
                             ["authors' approach: 2 N×N + 4 N×(B1+B2+1) float64", authors],
                             ["kmeviz seconds", res.runtime["total"]]])


def run(quick: bool = False) -> None:
    speed(200 if quick else 500, 200 if quick else 2000, quick)
    memory(1000 if quick else 5000, 200 if quick else 2000)


if __name__ == "__main__":
    run(quick="--quick" in sys.argv)
