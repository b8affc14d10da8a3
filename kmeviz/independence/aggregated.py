"""HSICAgg: the independence test that aggregates HSIC over a collection of bandwidth pairs
with MMDAgg's level correction (Albert, Laurent, Marrel & Meynaoui 2022; Schrab et al.
2022, the authors' ``agginc``), registered as ``hsic_test(estimator="hsicagg")``.

The collection is the authors' default: Gaussian kernels exp(−||·||²/λ²) with
λ = 2^i · (median distance) for i = −2, …, 2 on each variable (the median of the first
500 rows), all 25 pairs weighted uniformly.

The null is a wild bootstrap of the centred statistic on the full Grams (Chwialkowski,
Sejdinovic & Gretton 2014, Sec. 4): the null agginc uses (Schrab et al. 2022), without
its incomplete U-statistic, where Albert et al. permute. For each pair, with K̃ = HKH and
L̃ = HLH,
the statistic is Σ_{i≠j} K̃_ij L̃_ij / n² (HSIC_b without its diagonal, which no
relabelling changes) and its replicates Σ_{i≠j} ε_i ε_j K̃_ij L̃_ij / n², ε i.i.d.
Rademacher. All 1 + B1 + B2 sign vectors of all 25 pairs are quadratic forms of the
tiles of K̃∘L̃: one pass of the tile engine (``collection_quadratic_forms``).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist, pdist

from ..aggregation import AggregatedNull, rademacher_columns
from ..config import get_config
from ..kernels import GaussianKernel
from ..kernels.collection import BANDWIDTH_SAMPLES, KernelCollection
from ..kernels.engine import run_tasks
from ..registry import Outcome
from .hsic import KernelPair

#: The authors' powers of 2 around the median (``hsic_collection_parameters=(2, -2, 2)``).
POWERS = tuple(range(-2, 3))


def hsicagg_kernels(X, Y) -> KernelPair:
    """The default collection: a ``KernelPair`` of two ``KernelCollection`` of Gaussian
    kernels exp(−||·||²/λ²), λ = 2^i × the median distance of each variable's first 500
    rows, i = −2, …, 2 (the default of Albert et al. 2022's successors, ``agginc``).

    Parameters
    ----------
    X : array (n, d_X)
    Y : array (n, d_Y)

    Returns
    -------
    KernelPair
        Of two ``KernelCollection`` of 5 kernels each.
    """
    collections = []
    for Z, name in ((X, "X"), (Y, "Y")):
        distances = pdist(np.asarray(Z[:BANDWIDTH_SAMPLES], dtype=np.float64))
        distances = distances[distances > 0]
        if distances.size == 0:
            raise ValueError(f"{name} is constant on its first {BANDWIDTH_SAMPLES} rows: "
                             "HSICAgg's bandwidths (multiples of the median distance) are 0")
        median = float(np.median(distances))
        collections.append(KernelCollection(
            [GaussianKernel(2.0**i * median / np.sqrt(2.0)) for i in POWERS]))
    return KernelPair(*collections)


class PairCollection:
    """The K_X × K_Y bandwidth pairs of a ``KernelPair`` of collections, as one collection
    of the aggregation code (labels, weights and scales for its table)."""

    def __init__(self, kernels: KernelPair):
        cx, cy = kernels.x, kernels.y
        self.pairs = [(i, j) for i in range(len(cx)) for j in range(len(cy))]
        self.weights = np.array([cx.weights[i] * cy.weights[j] for i, j in self.pairs])
        self.weights /= self.weights.sum()
        self._scales = (cx.scales(), cy.scales())
        self.labels = tuple(f"σ_X={self._scales[0][i]:.3g}, σ_Y={self._scales[1][j]:.3g}"
                            for i, j in self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def scales(self) -> np.ndarray:
        """σ_X of each pair (the label names both bandwidths)."""
        return np.array([self._scales[0][i] for i, _ in self.pairs])


def _row_means(collection: KernelCollection, Z: np.ndarray) -> np.ndarray:
    """(K, n) row means of each kernel's Gram, in threaded row blocks."""
    config = get_config()
    side = config["tile_rows"]

    def work(start):
        d2 = cdist(Z[start : start + side], Z, "sqeuclidean")
        return np.stack([k.from_distance(d2, np.empty_like(d2)).mean(axis=1)
                         for k in collection.kernels])

    return np.concatenate(run_tasks(work, range(0, Z.shape[0], side), config["n_threads"]),
                          axis=1)


#: Rows of a panel, and the most columns one task multiplies: 256 × 2048 tiles keep the
#: 25 products BLAS-3 calls with a long inner dimension (a 256-row product by 2001 signs
#: ran at 69 GFLOP/s on one core with 256 inner columns, 84 with 2000)
PANEL_ROWS, PANEL_COLUMNS = 256, 2048
#: a diagonal block is halved recursively down to blocks of this side, multiplied whole:
#: n · DIAGONAL_LEAF / 2 entries beyond the half square (n · PANEL_ROWS / 2 unhalved,
#: 13 % more flops at n = 2000)
DIAGONAL_LEAF = 64


def symmetric_form(D: np.ndarray, V: np.ndarray) -> np.ndarray:
    """vᵀDv for every column v of V, D symmetric: the two diagonal halves recursively and
    twice the off-diagonal quarter, so that about half of D is multiplied."""
    t = D.shape[0]
    if t <= DIAGONAL_LEAF:
        return np.einsum("ib,ib->b", V, D @ V)
    h = -(-t // 2 // 32) * 32  # a multiple of 32
    return (symmetric_form(D[:h, :h], V[:h]) + symmetric_form(D[h:, h:], V[h:])
            + 2.0 * np.einsum("ib,ib->b", V[:h], D[:h, h:] @ V[h:]))


def panel_forms(shared, pair_tile, n_pairs: int, n: int, U: np.ndarray, dtype):
    """(uᵀM_p u for every pair p and column u of U, diag M_p) of symmetric n × n pair
    matrices M_p, over the panels on and right of the diagonal: rows I (``PANEL_ROWS``)
    by the columns from I on, in chunks of ``PANEL_COLUMNS``. A panel off the diagonal
    counts twice; the diagonal block's form is ``symmetric_form``'s: one product per pair
    and chunk, and about half the square multiplied (n² / 2 + n · DIAGONAL_LEAF / 2
    entries). Sums in task order (independent of the thread count)."""
    config = get_config()
    U = U.astype(dtype, copy=False)
    width = max(PANEL_COLUMNS, PANEL_ROWS)  # a diagonal block lies in one chunk
    tasks = [(r, c) for r in range(0, n, PANEL_ROWS) for c in range(r, n, width)]

    def work(task):
        r, c = task
        rows, cols = slice(r, min(r + PANEL_ROWS, n)), slice(c, min(c + width, n))
        parts = shared(rows, cols)
        t, w = rows.stop - rows.start, cols.stop - cols.start
        tile = np.empty((t, w), dtype=dtype)
        forms, diag = np.zeros((n_pairs, U.shape[1])), None
        beyond = t if r == c else 0  # the diagonal block's columns, taken apart
        if r == c:
            diag = np.empty((n_pairs, t))
        for p in range(n_pairs):
            T = pair_tile(p, parts, tile)
            if beyond < w:
                forms[p] = 2.0 * np.einsum("ib,ib->b", U[rows],
                                           T[:, beyond:] @ U[c + beyond : cols.stop])
            if r == c:
                diag[p] = np.diagonal(T[:, :t])
                forms[p] += symmetric_form(T[:, :t], U[rows])
        return forms, rows, diag

    forms, diag = np.zeros((n_pairs, U.shape[1])), np.zeros((n_pairs, n))
    for part, rows, d in run_tasks(work, tasks, config["n_threads"]):
        forms += part
        if d is not None:
            diag[:, rows] = d
    return forms, diag


def hsicagg_wild_bootstrap(X, Y, kernels: KernelPair, n_resamples: int, rng):
    """The ``Outcome`` of HSICAgg (see the module), B1 = B2 = ``n_resamples``."""
    n = X.shape[0]
    pairs = PairCollection(kernels)
    cx, cy = kernels.x, kernels.y
    means = [_row_means(cx, X), _row_means(cy, Y)]
    totals = [m.mean(axis=1) for m in means]
    signs = rademacher_columns(n, 2 * n_resamples, rng)
    dtype = np.dtype(get_config()["dtype"])

    def centred_tiles(collection, Z, m, t, rows, cols):
        d2 = cdist(Z[rows], Z[cols], "sqeuclidean")
        return [(k.from_distance(d2, np.empty_like(d2)) - m[a][rows, None]
                 - m[a][None, cols] + t[a]).astype(dtype, copy=False)
                for a, k in enumerate(collection.kernels)]

    def shared(rows, cols):
        return (centred_tiles(cx, X, means[0], totals[0], rows, cols),
                centred_tiles(cy, Y, means[1], totals[1], rows, cols))

    def pair_tile(p, parts, out):
        i, j = pairs.pairs[p]
        return np.multiply(parts[0][i], parts[1][j], out=out)

    forms, diag = panel_forms(shared, pair_tile, len(pairs), n, signs, dtype)
    values = (forms - diag.sum(axis=1, keepdims=True)) / n**2
    return pairs_outcome(values, n_resamples, pairs, kernels)


def pairs_outcome(values: np.ndarray, B1: int, pairs: PairCollection, kernels) -> Outcome:
    """The ``Outcome`` of an aggregated HSIC test from its values (pairs, 1 + B1 + B2):
    the observed labelling, B1 quantile replicates, B2 level-correction ones."""
    null = AggregatedNull(values[:, 0], values[:, 1 : 1 + B1], values[:, 1 + B1 :],
                          pairs.weights, pairs.labels, pairs.scales())
    return Outcome(float(null.statistic()), null_dist=null,
                   null_params={"n_kernels": len(pairs)},
                   fitted={"collection": kernels, "values": values})
