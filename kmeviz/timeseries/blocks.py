"""Block permutation of one series against the other, with a lag search: the null of
hyppo's DcorrX/MGCX (Mehta et al. 2019) for HSIC, written from its description.

A replicate keeps X in place and reorders Y's rows by a *circular block permutation*:
rotate Y by a uniform offset, cut it into blocks of b consecutive rows (the last block
shorter when b does not divide n) and put the blocks in a uniformly random order. Every
row is used once, so the permuted Y has Y's marginal exactly, and its serial dependence
within blocks; only the alignment with X (and Y's dependence across the b-row seams) is
broken. The statistic and each replicate are the lag search's max_{|k| ≤ K} HSIC_b(X_t,
Y_{t+k}) (indices mod n; K = 0 is plain HSIC_b), so the search's multiple testing is in
the null (DcorrX sums the lags instead; the maximum keeps the strongest lag's power).

With π a permutation of the rows, the centred Gram of Y_π is L̃[π][:, π], so a replicate
at lag k is (1/n²) Σ_ij K̃_{i−k, j−k} L̃_{π(i) π(j)}: one gather of L̃ per replicate and,
per lag, one pass over a shifted view of K̃ extended by K rows and columns each side.
O(n²) memory, O(B · (2K + 2) · n²) time.

Few blocks make the null too narrow (the permutations' spread is estimated from n/b
blocks of the one series): the result says so below ``FEW_BLOCKS`` blocks.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_rng
from ..budget import check_budget
from .nulls import wild_length

#: the fewest blocks a block permutation accepts (4! = 24 orders, before the offsets)
MIN_BLOCKS = 4
#: fewer blocks than this and the result says its null is too narrow: at n = 300, φ = 0.9
#: (b = 38, 7 blocks) both block tests rejected 10 % of 500 independent AR(1) pairs at
#: α = 0.05, at n = 1000 (26 blocks) 7–8 % (docs/results/block_permutation_calibration.txt)
FEW_BLOCKS = 12
#: the permuted Grams held at once (replicates are computed in batches this size)
BATCH_BYTES = 2**26


def default_block_length(n: int, X, Y) -> int:
    """b = max(⌈√n⌉ (DcorrX's block), ⌈4 τ⌉), τ the integrated autocorrelation time of
    ρ_X · ρ_Y (the decorrelation rate of HSIC's terms, ``nulls.wild_length``), at most
    n / MIN_BLOCKS."""
    tau = wild_length(n, X, Y, scale=4.0, product=True, cap=1.0)
    return int(min(max(math.ceil(math.sqrt(n)), math.ceil(tau)), n // MIN_BLOCKS))


def check_block_length(block: int, n: int) -> int:
    """``block`` if it leaves at least MIN_BLOCKS blocks of n rows, else a ValueError."""
    if n // block < MIN_BLOCKS:
        raise ValueError(
            f"too few rows for the block permutation: n = {n} rows make {n // block} "
            f"blocks of block_size = {block}; it needs at least {MIN_BLOCKS}: more rows "
            f"or a block_size of at most {max(n // MIN_BLOCKS, 1)}")
    return block


def block_order(n: int, block: int, rng) -> np.ndarray:
    """One circular block permutation of range(n) (module docstring)."""
    starts = np.arange(0, n, block)
    order = np.concatenate([np.arange(s, min(s + block, n)) for s in rng.permutation(starts)])
    return (order + rng.integers(n)) % n


def extended(G: np.ndarray, max_lag: int) -> np.ndarray:
    """G with K = ``max_lag`` wrapped rows and columns each side: E[a, b] = G[(a − K) mod
    n, (b − K) mod n], so that E[K − k:K − k + n, K − k:K − k + n] = G shifted by k."""
    n = G.shape[0]
    index = np.arange(-max_lag, n + max_lag) % n
    return G[np.ix_(index, index)]


def lag_search(K_ext: np.ndarray, Ls: np.ndarray, max_lag: int) -> np.ndarray:
    """max_{|k| ≤ K} (1/n²) Σ_ij K̃_{i−k, j−k} L_ij for each L of the stack Ls (R, n, n),
    K̃ as ``extended``. Row i of every lag at once: the 2K + 1 rows K_ext[i + m, m:m + n],
    m = K − k, are one strided view (row stride n + 2K + 1), so each i is one BLAS product
    with the R rows L[:, i]."""
    R, n, _ = Ls.shape
    if max_lag == 0:
        return np.einsum("rij,ij->r", Ls, K_ext) / n**2
    width = n + 2 * max_lag
    step = K_ext.strides[1]
    sums = np.zeros((2 * max_lag + 1, R))
    for i in range(n):
        lags = np.lib.stride_tricks.as_strided(
            K_ext[i:], shape=(2 * max_lag + 1, n), strides=((width + 1) * step, step),
            writeable=False)
        sums += lags @ Ls[:, i, :].T
    return sums.max(axis=0) / n**2


def block_permutation_statistics(Kc: np.ndarray, Lc: np.ndarray, max_lag: int, block: int,
                                 n_resamples: int, rng) -> tuple[float, np.ndarray]:
    """The lag search on (X, Y) and on ``n_resamples`` block permutations of Y (module
    docstring): (statistic, replicates), replicates in batches of at most BATCH_BYTES."""
    K_ext = np.ascontiguousarray(extended(Kc, max_lag))
    statistic = float(lag_search(K_ext, Lc[None], max_lag)[0])
    n, rng = Lc.shape[0], check_rng(rng)
    batch = max(1, min(n_resamples, int(BATCH_BYTES // (8 * n * n))))
    replicates = np.empty(n_resamples)
    for start in range(0, n_resamples, batch):
        check_budget()  # a batch is O(R K n²): the page's time limit reaches here
        stop = min(start + batch, n_resamples)
        Ls = np.empty((stop - start, n, n))
        for r in range(stop - start):
            order = block_order(n, block, rng)
            Ls[r] = Lc[np.ix_(order, order)]
        replicates[start:stop] = lag_search(K_ext, Ls, max_lag)
    return statistic, replicates
