"""Incomplete U-statistics on R superdiagonals and their wild bootstrap, the engine of the
linear-time aggregated tests MMDAggInc, HSICAggInc and KSDAggInc (Schrab, Kim, Guedj &
Gretton 2022, "Efficient aggregated kernel tests using incomplete U-statistics", Sec. 3;
the authors' ``agginc``).

The design D is the set of pairs (i, i + r), r = 1, …, R, i + r < N: the R superdiagonals
of the N × N matrix of a U-statistic's kernel h, |D| = R·N − R(R + 1)/2 pairs. For every
kernel k of a collection the statistic is Σ_{(i,j)∈D} h_k(i, j) / |D| and its wild
bootstrap replicates Σ_{(i,j)∈D} ε_i ε_j h_k(i, j) / |D|, ε i.i.d. Rademacher (Sec. 3.2);
R ≥ N − 1 gives the complete U-statistic.

Every replicate of every kernel is one product: row block I of t rows meets the columns
J = I + 1, …, I + t + R − 1 in a dense t × (t + R − 1) tile, masked to the band, and the
tiles of all kernels, stacked, are multiplied by the signs ε_J at once (one BLAS-3 call
per block, (t + R − 1)/R of the band's flops); each block's rows are then weighted by
ε_I. Time O(K·N·R·B), memory one block's tiles and the N × (B + 1) signs, held as int8.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._validation import check_positive_int
from .config import get_config
from .kernels.engine import run_tasks

#: The authors' default number of superdiagonals R (``agginc(R=200)``).
DEFAULT_SUPERDIAGONALS = 200

#: Rows of a block: with R = 200 a block's tile is 64 × 263, 1.3 × the band's entries,
#: and the stacked tiles of 10 kernels (640 rows) keep BLAS at its peak (measured: 63
#: GFLOP/s on one core for 500 × 250 × 1001, 66 for 1000 × 300 × 1001)
BLOCK_ROWS = 64


def design_size(n: int, superdiagonals: int) -> int:
    """|D|: the pairs (i, i + r), 1 ≤ r ≤ R, i + r < n (R capped at n − 1)."""
    R = min(superdiagonals, n - 1)
    return R * n - R * (R + 1) // 2


def design_pairs(n: int, superdiagonals: int) -> tuple[np.ndarray, np.ndarray]:
    """The design's (i, j) index arrays, superdiagonal by superdiagonal (r = 1 first): the
    order of ``agginc``'s ``create_indices``, for checks against it. O(|D|) memory: the
    tests never build it."""
    R = min(superdiagonals, n - 1)
    i = np.concatenate([np.arange(n - r) for r in range(1, R + 1)])
    j = np.concatenate([np.arange(r, n) for r in range(1, R + 1)])
    return i, j


def checked_superdiagonals(superdiagonals) -> int:
    """R, a positive int (``TypeError``/``ValueError`` naming ``superdiagonals``)."""
    return check_positive_int(superdiagonals, "superdiagonals", minimum=1)


def incomplete_signs(n: int, B: int, rng) -> np.ndarray:
    """(n, B + 1) int8 signs: a column of ones (the observed statistic), then B columns of
    i.i.d. Rademacher signs (1 byte each: 100 MB at n = 10⁵, B = 1000)."""
    signs = np.empty((n, B + 1), dtype=np.int8)
    signs[:, 0] = 1
    np.multiply(rng.integers(0, 2, size=(n, B), dtype=np.int8), 2, out=signs[:, 1:])
    signs[:, 1:] -= 1
    return signs


def _band_mask(rows: int, superdiagonals: int) -> np.ndarray:
    """Block mask: entry (a, c) of a block starting at row s is the pair (s + a, s + 1 + c),
    in the design when 0 ≤ c − a ≤ R − 1."""
    offset = np.arange(rows + superdiagonals - 1)[None, :] - np.arange(rows)[:, None]
    return (offset >= 0) & (offset < superdiagonals)


def band_forms(h_tile: Callable, n_kernels: int, n: int, superdiagonals: int,
               signs: np.ndarray, *, block_rows: int = BLOCK_ROWS) -> np.ndarray:
    """Σ_{(i,j)∈D} s_i s_j h_k(i, j) for every kernel k and column s of ``signs``.

    Parameters
    ----------
    h_tile : callable
        ``h_tile(rows, cols)`` -> array (n_kernels, len(rows), len(cols)): h_k of every
        pair of a row slice and a column slice (it may be a reused work array).
    n_kernels, n : int
    superdiagonals : int
        R (capped at n − 1).
    signs : array (n, S)
        Any numeric dtype (±1 int8 from ``incomplete_signs``, or another code's signs).

    Returns
    -------
    array (n_kernels, S), float64
        The sums, in block order (independent of the thread count); divide by
        ``design_size`` for the statistics.
    """
    config = get_config()
    dtype = np.dtype(config["dtype"])
    R = min(superdiagonals, n - 1)
    t_max = max(1, min(block_rows, n - 1))
    mask = _band_mask(t_max, R).astype(dtype)

    def work(start):
        rows = slice(start, min(start + t_max, n - 1))
        cols = slice(start + 1, min(start + t_max + R, n))
        t, w = rows.stop - rows.start, cols.stop - cols.start
        tiles = np.asarray(h_tile(rows, cols), dtype=dtype)
        tiles = tiles * mask[:t, :w]
        product = tiles.reshape(n_kernels * t, w) @ signs[cols].astype(dtype)
        weighted = product.reshape(n_kernels, t, -1) * signs[rows].astype(dtype)[None]
        return weighted.sum(axis=1, dtype=np.float64)

    totals = np.zeros((n_kernels, signs.shape[1]))
    for part in run_tasks(work, range(0, n - 1, t_max), config["n_threads"]):
        totals += part
    return totals


def incomplete_values(h_tile, n_kernels: int, n: int, superdiagonals: int,
                      signs: np.ndarray) -> np.ndarray:
    """(K, S) values Σ_D s_i s_j h_k / |D| of every kernel and sign column: the
    statistics (the column of ones) and the wild bootstrap replicates."""
    return band_forms(h_tile, n_kernels, n, superdiagonals, signs) / design_size(
        n, superdiagonals)
