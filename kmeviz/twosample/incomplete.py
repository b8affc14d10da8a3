"""MMDAggInc (Schrab, Kim, Guedj & Gretton 2022, Sec. 3–4; the authors' ``agginc``): MMDAgg
on an incomplete U-statistic, registered as ``mmd_test(estimator="mmdagginc")``.

With N = min(n_X, n_Y) pairs (x_i, y_i) and h_k(i, j) = k(x_i, x_j) + k(y_i, y_j) −
k(x_i, y_j) − k(y_i, x_j), each kernel's statistic is the mean of h_k over the R
superdiagonals of the N × N matrix (``kmeviz.incomplete``), its null the wild bootstrap
of that mean, and the decision MMDAgg's level correction (``kmeviz.aggregation``).
O(K·N·R·B) time, O(N·B) bytes of signs: linear in N at fixed R and B. The collection is
the authors': 10 Gaussian kernels exp(−||x − y||²/λ²) on MMDAgg's L2 bandwidths
(``mmdagginc_kernels``). Where n_X ≠ n_Y the rows beyond N are not used, as the
authors do (the complete MMDAgg permutes instead).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.spatial.distance import cdist

from ..aggregation import AGGREGATED_RESULT, aggregated_outcome
from ..incomplete import DEFAULT_SUPERDIAGONALS, incomplete_signs, incomplete_values
from ..kernels.collection import mmdagginc_kernels
from ..needs import Needs
from ..registry import MMD_TESTS, Outcome


def pair_distances(collection, A: np.ndarray, B: np.ndarray, a2: np.ndarray,
                   b2: np.ndarray) -> dict:
    """The distance tiles between the rows of A and B that the collection's kernels read:
    squared distances as ||a||² + ||b||² − 2a·b (BLAS; clipped at 0), L1 by ``cdist``."""
    parts = {}
    for name in dict.fromkeys(k.distance for k in collection.kernels):
        if name == "sq":
            d2 = np.add.outer(a2, b2)
            d2 -= 2.0 * (A @ B.T)
            parts[name] = np.maximum(d2, 0.0, out=d2)
        else:
            parts[name] = cdist(A, B, "cityblock")
    return parts


def mmd_h_tiles(X, Y, collection):
    """``h_tile(rows, cols)`` of ``band_forms``: h_k(i, j) for every kernel of the
    collection, i in rows, j in cols (see the module)."""
    x, y = ((Z, np.einsum("ij,ij->i", Z, Z)) for Z in (X, Y))

    def h_tile(rows, cols):
        blocks = [pair_distances(collection, A[rows], B[cols], a2[rows], b2[cols])
                  for (A, a2), (B, b2) in ((x, x), (y, y), (x, y), (y, x))]
        out = np.empty((len(collection), rows.stop - rows.start, cols.stop - cols.start))
        work = np.empty(out.shape[1:])
        for k, kernel in enumerate(collection.kernels):
            xx, yy, xy, yx = (parts[kernel.distance] for parts in blocks)
            out[k] = kernel.from_distance(xx, work)
            out[k] += kernel.from_distance(yy, work)
            out[k] -= kernel.from_distance(xy, work)
            out[k] -= kernel.from_distance(yx, work)
        return out

    return h_tile


@MMD_TESTS.register("mmdagginc", "wild-bootstrap", cost="linear",
                    options=("superdiagonals",), needs=Needs.KERNEL_COLLECTION,
                    default_kernel=mmdagginc_kernels,
                    work=lambda N, d, B: 10 * (N / 2) * DEFAULT_SUPERDIAGONALS
                    * (2.6 * (2 * B + 1) + 4 * (2 * d + 40)),
                    memory=lambda N, d, B: N / 2 * (2 * B + 1) + 8.0 * N * d,
                    summary="MMDAggInc: MMDAgg's 10 Gaussian bandwidths on R superdiagonals"
                            " (Schrab et al. 2022), linear time; a little less power",
                    **AGGREGATED_RESULT)
def mmdagginc_wild_bootstrap(X, Y, kernel, *, estimator, n_resamples, rng,
                             superdiagonals) -> Outcome:
    """MMDAggInc, B1 = B2 = ``n_resamples``, on the first N = min(n_X, n_Y) rows."""
    n = min(X.shape[0], Y.shape[0])
    values = mmdagginc_values(X[:n], Y[:n], kernel, superdiagonals,
                              incomplete_signs(n, 2 * n_resamples, rng))
    outcome = aggregated_outcome(values, n_resamples, kernel)
    if X.shape[0] == Y.shape[0]:
        return outcome
    unused = f"{X.shape[0] - n} rows of X" if X.shape[0] > n else f"{Y.shape[0] - n} rows of Y"
    note = (f"the design pairs x_i with y_i: it used the first {n} rows of each sample and "
            f"left out the last {unused} (mmdagg with null='permutation' uses them all)")
    return replace(outcome, fitted={**outcome.fitted, "note": note})


def mmdagginc_values(X, Y, collection, superdiagonals: int, signs) -> np.ndarray:
    """(K, S) statistics and replicates of MMDAggInc for the sign columns ``signs``
    (n, S) (the first column of ones gives the statistics), n_X = n_Y = n."""
    X, Y = (np.ascontiguousarray(Z, dtype=np.float64) for Z in (X, Y))
    return incomplete_values(mmd_h_tiles(X, Y, collection), len(collection), X.shape[0],
                             superdiagonals, signs)
