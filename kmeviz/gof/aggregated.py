"""KSDAgg (Schrab, Guedj & Gretton, NeurIPS 2022): the goodness-of-fit test that
aggregates the KSD U-statistics of a collection of IMQ base kernels, registered as
``ksd_test(estimator="ksdagg")``.

The parts of the Stein kernel h_p (Kalinke et al. Eq. 3) that do not depend on the base
kernel (r², sₓ·s_y and the cross term) are computed once per tile of the engine and every
kernel of the collection is applied to them (``SteinKernel.tile_from_parts``); the
observed statistic Σ_{i≠j} h_p(x_i, x_j) / (n(n - 1)) and its B1 + B2 wild bootstrap
replicates Σ_{i≠j} ε_i ε_j h_p(x_i, x_j) / (n(n - 1)), ε i.i.d. Rademacher (KSDAgg
Sec. 3.2), are the quadratic forms of one pass (``collection_quadratic_forms``).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_samples
from ..aggregation import AGGREGATED_RESULT, aggregated_outcome, rademacher_columns
from ..config import get_config
from ..kernels.engine import collection_quadratic_forms, prepared_rows
from ..kernels.stein import SteinKernel, stein_parts
from ..needs import Needs
from ..registry import GOF_TESTS, Outcome

#: Kernels in the default collection.
DEFAULT_KERNELS = 10


@GOF_TESTS.register("ksdagg", "wild-bootstrap", cost="quadratic", needs=Needs.KERNEL_COLLECTION,
                    work=lambda N, d, B: DEFAULT_KERNELS * N * N * (2.0 * B + 60 + 4 * d),
                    memory=lambda N, d, B: 8.0 * N * (2 * B + 1 + 2 * d),
                    summary="KSDAgg: 10 IMQ bandwidths aggregated (Schrab et al. 2022)",
                    **AGGREGATED_RESULT)
def ksdagg_wild_bootstrap(X, target, kernel, *, n_resamples, rng) -> Outcome:
    """KSDAgg with the wild bootstrap, B1 = B2 = n_resamples."""
    X = check_samples(X, "X", min_samples=2)
    n, dim = X.shape
    steins = [SteinKernel(k, target) for k in kernel.kernels]
    dtype = np.dtype(get_config()["dtype"])
    prepared = steins[0].prepare(X)
    signs = rademacher_columns(n, 2 * n_resamples, rng)

    def shared(rows, cols):
        return stein_parts(prepared_rows(prepared, rows), prepared_rows(prepared, cols), dtype)

    def tile(k, parts, out):
        return steins[k].tile_from_parts(*parts, dim, out)

    forms, _, diag = collection_quadratic_forms(shared, tile, len(kernel), n, signs)
    values = (forms - diag.sum(axis=1, keepdims=True)) / (n * (n - 1))
    return aggregated_outcome(values, n_resamples, kernel)
