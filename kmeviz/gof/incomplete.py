"""KSDAggInc (Schrab, Kim, Guedj & Gretton 2022, Sec. 3–4; the authors' ``agginc``): KSDAgg
on an incomplete U-statistic, registered as ``ksd_test(estimator="ksdagginc")``.

Each IMQ base kernel's Stein kernel h_p (Kalinke et al. Eq. 3) is averaged over the R
superdiagonals of the n × n matrix (``kmeviz.incomplete``) — the KSD U-statistic
(Kalinke et al. Eq. 5) on the design's pairs — with the wild bootstrap of that mean as
its null and MMDAgg's level correction over the collection (``kmeviz.aggregation``). The
parts of h_p shared by every base kernel (r², sₓ·s_y, the cross term) are computed once
per block (``stein_parts``). The collection is KSDAgg's (``ksdagg_kernels``: IMQ
(λ² + ||x − y||²)^(−½), λ geometric from 1/d to max(D, 2)/d), which is the authors'
``agginc("ksd")`` kernel exactly. O(K·n·R·B) time, linear in n.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_samples
from ..aggregation import AGGREGATED_RESULT, aggregated_outcome
from ..config import get_config
from ..incomplete import DEFAULT_SUPERDIAGONALS, incomplete_signs, incomplete_values
from ..kernels.engine import prepared_rows
from ..kernels.stein import SteinKernel, stein_parts
from ..needs import Needs
from ..registry import GOF_TESTS, Outcome


def stein_h_tiles(X, target, collection):
    """``h_tile(rows, cols)`` of ``band_forms``: every base kernel's Stein kernel h_p."""
    steins = [SteinKernel(k, target) for k in collection.kernels]
    prepared = steins[0].prepare(X)
    dtype = np.dtype(get_config()["dtype"])
    dim = X.shape[1]

    def h_tile(rows, cols):
        parts = stein_parts(prepared_rows(prepared, rows), prepared_rows(prepared, cols),
                            dtype)
        out = np.empty((len(steins), *parts[0].shape), dtype=dtype)
        for k, stein in enumerate(steins):
            stein.tile_from_parts(*parts, dim, out[k])
        return out

    return h_tile


@GOF_TESTS.register("ksdagginc", "wild-bootstrap", cost="linear", options=("superdiagonals",),
                    needs=Needs.KERNEL_COLLECTION,
                    work=lambda N, d, B: 10 * N * DEFAULT_SUPERDIAGONALS
                    * (2.6 * (2 * B + 1) + 60 + 4 * d),
                    memory=lambda N, d, B: N * (2 * B + 1) + 16.0 * N * d,
                    summary="KSDAggInc: KSDAgg's 10 IMQ bandwidths on R superdiagonals "
                            "(Schrab et al. 2022), linear time; a little less power",
                    **AGGREGATED_RESULT)
def ksdagginc_wild_bootstrap(X, target, kernel, *, n_resamples, rng,
                             superdiagonals) -> Outcome:
    """KSDAggInc, B1 = B2 = ``n_resamples``."""
    X = check_samples(X, "X", min_samples=2)
    values = ksdagginc_values(X, target, kernel, superdiagonals,
                              incomplete_signs(X.shape[0], 2 * n_resamples, rng))
    return aggregated_outcome(values, n_resamples, kernel)


def ksdagginc_values(X, target, collection, superdiagonals: int, signs) -> np.ndarray:
    """(K, S) statistics and replicates of KSDAggInc for the sign columns ``signs``."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    return incomplete_values(stein_h_tiles(X, target, collection), len(collection),
                             X.shape[0], superdiagonals, signs)
