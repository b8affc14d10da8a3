"""HSICAggInc (Schrab, Kim, Guedj & Gretton 2022, Sec. 3–4; the authors' ``agginc``):
HSICAgg on an incomplete U-statistic, registered as ``hsic_test(estimator="hsicagginc")``.

The sample is split into halves, N = ⌊n/2⌋: z_i = (x_i, y_i) and z'_i = (x_{N+i},
y_{N+i}). HSIC is the MMD-like U-statistic of h(i, j) = h_X(i, j) · h_Y(i, j) with
h_X(i, j) = k(x_i, x_j) + k(x'_i, x'_j) − k(x_i, x'_j) − k(x'_i, x_j) (and h_Y alike), a
kernel of order 2 in the N pairs (z_i, z'_i); each of the 25 bandwidth pairs' statistic
is the mean of h over the R superdiagonals (``kmeviz.incomplete``), its null the wild
bootstrap of that mean, the decision MMDAgg's level correction over the 25 pairs
(``kmeviz.aggregation``). The collection is HSICAgg's (``hsicagg_kernels``: Gaussian
kernels exp(−||·||²/λ²), λ = 2^i × median, i = −2…2, per variable), the authors'.
O(25·N·R·B) time, linear in n. Where n is odd the last row is not used, as the authors do.
"""

from __future__ import annotations

import numpy as np

from ..aggregation import AGGREGATED_RESULT
from ..incomplete import DEFAULT_SUPERDIAGONALS, incomplete_signs, incomplete_values
from ..needs import Needs
from ..registry import INDEPENDENCE_TESTS, Outcome
from ..twosample.incomplete import mmd_h_tiles
from .aggregated import PairCollection, pairs_outcome


def hsic_h_tiles(X, Y, kernels, pairs: PairCollection):
    """``h_tile(rows, cols)`` of ``band_forms``: h_X(i, j) · h_Y(i, j) of every bandwidth
    pair (see the module)."""
    N = X.shape[0] // 2
    tiles_x = mmd_h_tiles(X[:N], X[N : 2 * N], kernels.x)
    tiles_y = mmd_h_tiles(Y[:N], Y[N : 2 * N], kernels.y)

    def h_tile(rows, cols):
        hx, hy = tiles_x(rows, cols), tiles_y(rows, cols)
        out = np.empty((len(pairs), *hx.shape[1:]))
        for p, (i, j) in enumerate(pairs.pairs):
            np.multiply(hx[i], hy[j], out=out[p])
        return out

    return h_tile


@INDEPENDENCE_TESTS.register("hsicagginc", "wild-bootstrap", cost="linear",
                             options=("superdiagonals",), needs=Needs.KERNEL_COLLECTION,
                             work=lambda N, d, B: 25 * (N / 2) * DEFAULT_SUPERDIAGONALS
                             * (2.6 * (2 * B + 1) + 0.4 * (2 * d + 40)),
                             memory=lambda N, d, B: N / 2 * (2 * B + 1) + 8.0 * N * d,
                             summary="HSICAggInc: HSICAgg's 5 × 5 bandwidth pairs on R "
                                     "superdiagonals of the halves' pairs (Schrab et al. "
                                     "2022), linear time; a little less power",
                             **AGGREGATED_RESULT)
def hsicagginc_wild_bootstrap(X, Y, kernel, *, estimator, n_resamples, rng,
                              superdiagonals) -> Outcome:
    """HSICAggInc, B1 = B2 = ``n_resamples``."""
    N = X.shape[0] // 2  # hsic_test's check_paired asks for n ≥ 4
    pairs = PairCollection(kernel)
    values = hsicagginc_values(X, Y, kernel, superdiagonals,
                               incomplete_signs(N, 2 * n_resamples, rng))
    return pairs_outcome(values, n_resamples, pairs, kernel)


def hsicagginc_values(X, Y, kernels, superdiagonals: int, signs) -> np.ndarray:
    """(K_X·K_Y, S) statistics and replicates of HSICAggInc for the sign columns
    ``signs`` (⌊n/2⌋, S), pairs in ``PairCollection`` order (i_X major)."""
    X, Y = (np.ascontiguousarray(Z, dtype=np.float64) for Z in (X, Y))
    pairs = PairCollection(kernels)
    return incomplete_values(hsic_h_tiles(X, Y, kernels, pairs), len(pairs),
                             X.shape[0] // 2, superdiagonals, signs)
