"""MMDAgg (Schrab et al., JMLR 2023): the two-sample test that aggregates the unbiased
MMD² of a whole collection of kernels, registered as ``mmd_test(estimator="mmdagg")``.

All kernels are evaluated per tile of the engine from one distance tile (``distance_parts``)
and all B1 + B2 + 1 labellings of every kernel are quadratic forms of that tile, so the
whole test is one pass (``collection_quadratic_forms``), never a loop over replicates:

- m = n, ``null="wild-bootstrap"`` (the authors' default for equal sizes): with the
  h-matrix H_ij = k(x_i, x_j) + k(y_i, y_j) - k(x_i, y_j) - k(y_i, x_j) (n × n), the
  statistic is Σ_{i≠j} ε_i ε_j H_ij / (n(n - 1)) for Rademacher signs ε (ε = 1 observed):
  MMD²_u of Gretton et al. 2012, Lemma 6, and its wild bootstrap (MMDAgg Sec. 3.2.2).
  Working on the n × n H instead of the 2n × 2n joint Gram takes a quarter of the flops.
- ``null="permutation"``: the unbiased MMD² of the observed labelling and of B1 + B2
  relabellings of the pooled sample (MMDAgg Sec. 3.2.1), from uᵀK u, K1 and diag K.
"""

from __future__ import annotations

import numpy as np

from ..aggregation import AGGREGATED_RESULT, aggregated_outcome, rademacher_columns
from ..config import get_config
from ..kernels.collection import distance_parts, kernel_from_parts
from ..kernels.engine import collection_quadratic_forms, scratch
from ..needs import Needs
from ..registry import KERNEL_FLOPS, MMD_TESTS, Outcome
from .resampling import _block_sums, _mmd2_from_sums, permutation_assignments

#: Kernels in the default collection (Laplace and Gaussian, 10 bandwidths each).
DEFAULT_KERNELS = 20


def _aggregated_work(N, d, B, paired) -> float:
    """Flops of MMDAgg with the default 20 kernels and B1 = B2 = B: the tiles on or above
    the diagonal (10/16 of the square) times the B1 + B2 + 1 labellings, multiply and add
    (2 flops), the per-column reductions, and the kernels of the four blocks of the
    paired h-matrix (n = N/2 rows) or of the pooled Gram."""
    side = N / 2 if paired else N
    return DEFAULT_KERNELS * side * side * (2.5 * (2.0 * B + 1)
                                            + (KERNEL_FLOPS + 2 * d) * (4 if paired else 1))


def _aggregated_memory(N, d, B, paired) -> float:
    """The labellings (N or N/2 rows of 2B + 1), the simulated values and the samples."""
    rows = N / 2 if paired else N
    return 8.0 * (rows * (2 * B + 1) + DEFAULT_KERNELS * (2 * B + 1) * 2 + N * d)


@MMD_TESTS.register("mmdagg", "wild-bootstrap", cost="quadratic",
                    needs=Needs.EQUAL_SIZES | Needs.KERNEL_COLLECTION,
                    work=lambda N, d, B: _aggregated_work(N, d, B, True),
                    memory=lambda N, d, B: _aggregated_memory(N, d, B, True),
                    summary="MMDAgg: 20 Laplace/Gaussian bandwidths aggregated (Schrab 2023)",
                    **AGGREGATED_RESULT)
def mmdagg_wild_bootstrap(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """MMDAgg of paired samples (n_X = n_Y) with the wild bootstrap, B1 = B2 = n_resamples."""
    n = X.shape[0]
    if Y.shape[0] != n:
        raise ValueError("the wild bootstrap pairs x_i with y_i: it needs samples of equal "
                         f"size, got {n} and {Y.shape[0]}; use null='permutation'")
    signs = rademacher_columns(n, 2 * n_resamples, rng)
    dtype = np.dtype(get_config()["dtype"])
    X, Y = X.astype(dtype, copy=False), Y.astype(dtype, copy=False)

    def shared(rows, cols):
        return [distance_parts(kernel, A[rows], B[cols], dtype)
                for A, B in ((X, X), (Y, Y), (X, Y), (Y, X))]

    def h_tile(k, parts, out):
        member = kernel.kernels[k]
        block = scratch("mmdagg.block", out.shape, out.dtype)
        kernel_from_parts(member, parts[0], out)
        out += kernel_from_parts(member, parts[1], block)
        out -= kernel_from_parts(member, parts[2], block)
        out -= kernel_from_parts(member, parts[3], block)
        return out

    forms, _, diag = collection_quadratic_forms(shared, h_tile, len(kernel), n, signs)
    values = (forms - diag.sum(axis=1, keepdims=True)) / (n * (n - 1))
    return aggregated_outcome(values, n_resamples, kernel)


@MMD_TESTS.register("mmdagg", "permutation", cost="quadratic", needs=Needs.KERNEL_COLLECTION,
                    work=lambda N, d, B: _aggregated_work(N, d, B, False),
                    memory=lambda N, d, B: _aggregated_memory(N, d, B, False),
                    summary="MMDAgg: 20 Laplace/Gaussian bandwidths, permutations",
                    **AGGREGATED_RESULT)
def mmdagg_permutation(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """MMDAgg with the permutation null, B1 = B2 = n_resamples relabellings."""
    m, n = X.shape[0], Y.shape[0]
    U = permutation_assignments(m, n, 2 * n_resamples, rng, with_identity=True)
    dtype = np.dtype(get_config()["dtype"])
    Z = np.vstack([X, Y]).astype(dtype, copy=False)
    forms, k1, diag = collection_quadratic_forms(
        lambda rows, cols: distance_parts(kernel, Z[rows], Z[cols], dtype),
        lambda k, parts, out: kernel_from_parts(kernel.kernels[k], parts, out),
        len(kernel), m + n, U)
    values = np.stack([_mmd2_from_sums(_block_sums(forms[k], U, k1[k], diag[k],
                                                   k1[k].sum()), m, n, "unbiased")
                       for k in range(len(kernel))])
    return aggregated_outcome(values, n_resamples, kernel)

