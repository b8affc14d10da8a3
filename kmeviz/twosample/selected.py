"""A kernel learned on all the data, the learning repeated in every permutation
(``mmd_test(estimator="selected")``).

The split test (``estimator="split"``, Liu et al. 2020) learns its kernel on half of
each sample and tests on the other half: valid, but at n = 300 the half it tests on
has too few points for the learned kernel to win back what the split cost (issue 59:
0.17 against the median heuristic's 0.23 where 2 of 10 coordinates differ). A
permutation test is exact for *any* statistic T(Z, labels) of the pooled sample and its
labels, however T was chosen, as long as every relabelling is scored by the same
procedure (Hemerik & Goeman 2018, "Exact testing with random permutations").
So the kernel may be learned on all the data if each of the B relabellings learns its
own kernel the same way. That is affordable when learning is a choice among kernels
whose Grams do not depend on the labels: one pass of the tile engine then scores every
kernel under every relabelling.

The kernels searched are ARD Gaussians (as ``learn_kernel(kernel="ard")`` learns, after
Liu et al. 2020) restricted to few coordinates: a Gaussian on one coordinate, and on each
pair of coordinates (when d ≤ ``PAIR_DIMENSIONS``),
k_S(x, y) = exp(-Σ_{j∈S} (x_j - y_j)² / (2ℓ_j²)) with ℓ_j the
median |z_j - z'_j| of the pooled sample (label-free). Each is scored by its normalised
unbiased MMD², MMD²_u,S / N̂_S with MMD-FUSE's label-free N̂_S (Biggs, Schrab & Gretton
2023; ``fuse_values``), and the learned kernel is the best-scoring one. As the median
heuristic's kernel is best where the difference is spread over every coordinate, the
test combines the two by Westfall & Young's min-p (1993): each statistic's
permutation p-value p_ref (the ``kernel`` given, default the median heuristic) and
p_sel (the best sparse kernel's score), and the p-value of min(p_ref, p_sel) against
its own permutation distribution, from the same B relabellings. The price of the search
is a factor ≤ 2 in the p-value of the median-heuristic test (Bonferroni's bound on
min-p); docs/results/test_power_selected.csv measures it.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from scipy.spatial.distance import pdist
from scipy.stats import rankdata

from ..config import get_config
from ..kernels.collection import BANDWIDTH_SAMPLES
from ..kernels.engine import cast_prepared, collection_quadratic_forms, prepared_rows
from ..needs import Needs
from ..registry import KERNEL_FLOPS, MMD_TESTS, Outcome
from .power_tests import normalised_mmd2
from .resampling import permutation_assignments

#: pairs of coordinates are searched up to this many coordinates (190 pairs at 20)
PAIR_DIMENSIONS = 20
#: beyond this many coordinates the search over single coordinates is refused
MAX_DIMENSIONS = 100


def coordinate_scales(Z: np.ndarray, rng=0) -> np.ndarray:
    """ℓ_j: the median |z_ij - z_lj| over pairs of a seeded subsample of the pooled
    sample (at most 2 × ``BANDWIDTH_SAMPLES`` points), per coordinate; where half the
    pairs tie (a binary column) the mean non-zero difference; 0 for a constant column."""
    if Z.shape[0] > 2 * BANDWIDTH_SAMPLES:
        Z = Z[np.random.default_rng(rng).choice(Z.shape[0], 2 * BANDWIDTH_SAMPLES,
                                                replace=False)]
    scales = np.zeros(Z.shape[1])
    for j in range(Z.shape[1]):
        gaps = pdist(Z[:, [j]], "cityblock")
        scales[j] = np.median(gaps)
        if scales[j] == 0.0 and np.any(gaps > 0):
            scales[j] = gaps[gaps > 0].mean()
    return scales


def coordinate_subsets(scales: np.ndarray) -> list[tuple[int, ...]]:
    """The coordinate sets searched: each non-constant coordinate, then each pair of them
    when there are at most ``PAIR_DIMENSIONS``."""
    varying = [int(j) for j in np.flatnonzero(scales > 0)]
    subsets = [(j,) for j in varying]
    if len(varying) <= PAIR_DIMENSIONS:
        subsets += list(combinations(varying, 2))
    return subsets


def selection_values(X, Y, reference, U, subsets, scales) -> np.ndarray:
    """Normalised MMD²_u (``normalised_mmd2``) of the reference kernel (row 0) and of the
    Gaussian on each coordinate set of ``subsets`` (rows 1…), for every labelling column of
    U (1 = relabelled X), in one pass of the tile engine: (1 + len(subsets), U.shape[1])."""
    dtype = np.dtype(get_config()["dtype"])
    Z = np.vstack([X, Y])
    prepared = cast_prepared(reference.prepare_validated(Z), dtype)
    scaled = np.zeros_like(Z, dtype=dtype)  # z_j / (√2 ℓ_j): k_S = exp(-Σ_S (a_j - b_j)²)
    varying = scales > 0
    scaled[:, varying] = Z[:, varying] / (np.sqrt(2.0) * scales[varying])

    singles = [S[0] for S in subsets if len(S) == 1]
    reuse = any(len(S) > 1 for S in subsets)  # pairs: each single tile computed once

    def coordinate_tile(j, rows, cols, out):
        np.subtract.outer(scaled[rows, j], scaled[cols, j], out=out)
        np.square(out, out=out)
        return np.exp(np.negative(out, out=out), out=out)

    def shared(rows, cols):
        if not reuse:
            return rows, cols, None
        shape = (rows.stop - rows.start, cols.stop - cols.start)
        tiles = {j: coordinate_tile(j, rows, cols, np.empty(shape, dtype)) for j in singles}
        return rows, cols, tiles

    def kernel_tile(k, parts, out):
        rows, cols, tiles = parts
        if k == 0:
            return reference.tile_into(prepared_rows(prepared, rows),
                                       prepared_rows(prepared, cols), out)
        subset = subsets[k - 1]
        if tiles is None:
            return coordinate_tile(subset[0], rows, cols, out)
        if len(subset) == 1:
            return tiles[subset[0]]
        return np.multiply(tiles[subset[0]], tiles[subset[1]], out=out)

    parts = collection_quadratic_forms(shared, kernel_tile,
                                       1 + len(subsets), Z.shape[0], U, squares=True)
    return normalised_mmd2(*parts, U, X.shape[0], Y.shape[0])


def permutation_p_values(values: np.ndarray) -> np.ndarray:
    """p[k, b] = #{b' : values[k, b'] ≥ values[k, b]} / (B + 1): each labelling's
    permutation p-value among all B + 1 (the observed one included)."""
    return rankdata(-values, method="max", axis=-1) / values.shape[-1]


def reference_and_selected(values: np.ndarray) -> np.ndarray:
    """(p_ref, p_sel) of every labelling: the permutation p-values of the reference
    (row 0) and of the best sparse kernel's score (the maximum of rows 1…); only p_ref
    when no coordinate varies."""
    scores = values[:1] if values.shape[0] == 1 else np.stack([values[0],
                                                                values[1:].max(axis=0)])
    return permutation_p_values(scores)


def min_p(values: np.ndarray) -> np.ndarray:
    """Westfall & Young's min-p for every labelling: min(p_ref, p_sel)."""
    return reference_and_selected(values).min(axis=0)


def _work(N, d, B):
    kernels = 1 + d + (d * (d - 1) // 2 if d <= PAIR_DIMENSIONS else 0)
    return kernels * N * N * (0.5 * (B + 2) + KERNEL_FLOPS) + N * d * 2 * BANDWIDTH_SAMPLES


@MMD_TESTS.register("selected", "permutation", cost="quadratic", work=_work,
                    needs=Needs.COORDINATES,
                    # U twice; 2 threads' tiles; 15 % for the smaller arrays (measured)
                    memory=lambda N, d, B: 9.2 * (2 * N * (B + 2 + d) + 250 * (B + 1) + 2 * (
                        (min(d, PAIR_DIMENSIONS) + 3) * min(N, 512) ** 2
                        + min(N, 512) * (B + 1))),
                    summary="kernel learned on all the data among coordinate kernels, "
                            "relearned in each permutation; min-p with the median kernel",
                    statistic_words="-log10 of min-p: the smaller of the permutation "
                                    "p-values of the kernel given and of the best "
                                    "coordinate kernel, not an MMD²")
def selected_permutation(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """The learned-on-all-data test (module docstring): the statistic is -log₁₀ min(p_ref,
    p_sel) of the observed labelling, its null the same of B relabellings, so the p-value
    is (1 + #{b : min-p_b ≤ min-p_obs}) / (1 + B). ``fitted`` holds the coordinates of the
    kernel learned on the observed labelling, its length scales and normalised MMD²,
    p_ref and p_sel."""
    if kernel.points_are_indices:
        raise TypeError("estimator='selected' builds kernels on the samples' coordinates, "
                        "and these are indices into a precomputed Gram matrix")
    if X.shape[1] > MAX_DIMENSIONS:
        raise ValueError(f"estimator='selected' searches kernels on single coordinates and "
                         f"pairs of them: at most {MAX_DIMENSIONS} columns, got "
                         f"{X.shape[1]} (reduce them first, or use estimator='mmdfuse')")
    scales = coordinate_scales(np.vstack([X, Y]))
    subsets = coordinate_subsets(scales)
    U = permutation_assignments(X.shape[0], Y.shape[0], n_resamples, rng,
                                with_identity=True)
    values = selection_values(X, Y, kernel, U, subsets, scales)
    p = reference_and_selected(values)
    evidence = -np.log10(p.min(axis=0))
    fitted = {"p_reference": float(p[0, 0])}
    if subsets:
        best = int(np.argmax(values[1:, 0]))
        coordinates = subsets[best]
        fitted.update(coordinates=coordinates,
                      lengthscales=tuple(float(scales[j]) for j in coordinates),
                      normalised_mmd2=float(values[1 + best, 0]),
                      p_selected=float(p[1, 0]),
                      note="learned kernel on column(s) "
                           f"{', '.join(map(str, coordinates))} of the samples (from 0)")
    return Outcome(float(evidence[0]), null_samples=evidence[1:],
                   null_params={"n_kernels": 1 + len(subsets)}, fitted=fitted)
