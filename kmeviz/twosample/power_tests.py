"""The three answers to "which kernel?" that test power asks for, registered as
``mmd_test`` estimators:

- ``"split"`` (permutation null): learn the kernel on a training part by the power
  criterion Ĵ (``learn_kernel``; Liu et al. 2020), test with it on the rest. Valid
  because the held-out points never saw the kernel; the price is the points spent on
  learning.
- ``"mmdfuse"`` (permutation null): MMD-FUSE (Biggs, Schrab & Gretton, NeurIPS 2023), no
  split: the soft maximum over a kernel collection of normalised MMD²_u,
  FUSE = (1/λ) log Σ_k π_k exp(λ MMD²_u,k / N̂_k), with λ = √(n(n - 1)) and
  N̂_k = √(Σ_{i≠j} k(z_i, z_j)²) / (n(n - 1)) over the pooled sample (n = min(m, n)).
  N̂_k is invariant to relabelling, so every permutation reuses it. For m = n this is the
  authors' statistic (their code leaves out the 1/λ, which changes no p-value).
- ``"cross"`` (normal null): cross-MMD (Shekhar, Kim & Ramdas, NeurIPS 2022), no
  resampling at all: with each sample split in halves and
  g(z) = mean_j k(z, x_j) - mean_l k(z, y_l) over the second halves,
  x̂MMD² = mean g(X₁) - mean g(Y₁) (their Eq. 2) studentised by
  σ̂² = var g(X₁)/m₁ + var g(Y₁)/n₁ (Eq. 4) is 𝒩(0, 1) under H0.
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.special import logsumexp

from .._validation import check_in_interval
from ..config import get_config
from ..kernels.collection import distance_parts, kernel_from_parts, mmdfuse_kernels
from ..kernels.engine import collection_quadratic_forms, row_block_results
from ..kernels.learned import FeatureKernel
from ..needs import Needs
from ..registry import KERNEL_FLOPS, MMD_TESTS, Outcome, TestOption
from .mmd_tests import exact_permutation
from .power import learn_kernel
from .resampling import _block_sums, _mmd2_from_sums, permutation_assignments

#: kernels in MMD-FUSE's default collection (Laplace and Gaussian, 10 bandwidths each)
FUSE_KERNELS = 20


#: the split test's own option: the share of each sample its kernel is learned on
TRAIN_FRACTION = TestOption(
    "train_fraction", 0.5, "the share of each sample the kernel is learned on (0 to 1); "
    "the test runs on the rest", float,
    lambda value, name: check_in_interval(value, name, 0.0, 1.0))


@MMD_TESTS.register("split", "permutation", cost="quadratic", own_options=(TRAIN_FRACTION,),
                    needs=Needs.GAUSSIAN_KERNEL,
                    work=lambda N, d, B: N * N * (2 * d + KERNEL_FLOPS) * (30 + B / 4),
                    memory=lambda N, d, B: 2.4 * N * N,  # measured 239 MB at N = 10⁴
                    summary="kernel learned by the power criterion on a split (Liu 2020)")
def split_permutation(X, Y, kernel, *, estimator, n_resamples, rng,
                      train_fraction) -> Outcome:
    """Learn the kernel on ``train_fraction`` of each sample (``learn_kernel``: the family
    of ``kernel``, a Gaussian, an ARD Gaussian or a ``FeatureKernel`` on either, started at
    its scales), then the unbiased-MMD² permutation test on the held-out rest."""
    feature_map = None
    if isinstance(kernel, FeatureKernel):
        feature_map, kernel = kernel.feature_map, kernel.base
    learned = learn_kernel(X, Y, kernel=kernel, feature_map=feature_map,
                           train_fraction=train_fraction, rng=rng)
    Xt, Yt = learned.test_samples(X, Y)
    if min(Xt.shape[0], Yt.shape[0]) < 2:
        raise ValueError(f"train_fraction={train_fraction:g} leaves {Xt.shape[0]} and "
                         f"{Yt.shape[0]} points to test on: at least 2 of each are needed")
    outcome = exact_permutation(Xt, Yt, learned.kernel, estimator="unbiased",
                                n_resamples=n_resamples, rng=rng)
    return Outcome(outcome.statistic, null_samples=outcome.null_samples,
                   fitted={"kernel": learned.kernel, "criterion": learned.criterion,
                           "n_train": (len(learned.train[0]), len(learned.train[1])),
                           "n_test": (Xt.shape[0], Yt.shape[0]), "path": learned.path})


def normalised_mmd2(forms, k1, diag, squares, U, m, n) -> np.ndarray:
    """MMD²_u,k / N̂_k of each kernel k and labelling column of U (1 = relabelled X), from a
    pass of ``collection_quadratic_forms`` (uᵀK_k u, K_k 1, diag K_k, Σ K_k²), with
    N̂_k = √(Σ_{i≠j} K_k[i, j]²) / (n(n - 1)), n = min(m, n): MMD-FUSE's label-free
    normaliser (module docstring)."""
    pairs = min(m, n) * (min(m, n) - 1)
    norms = np.sqrt(np.maximum(squares - (diag**2).sum(axis=1), 0.0)) / pairs
    values = np.stack([_mmd2_from_sums(_block_sums(forms[k], U, k1[k], diag[k], k1[k].sum()),
                                       m, n, "unbiased") for k in range(forms.shape[0])])
    return values / np.maximum(norms, np.finfo(float).tiny)[:, None]


def fuse_values(X, Y, collection, U) -> np.ndarray:
    """FUSE of every labelling column of U (0/1, 1 = relabelled X): all kernels' MMD²_u and
    Σ K_k² in one pass of the tile engine (``collection_quadratic_forms``), normalised and
    fused."""
    m, n = X.shape[0], Y.shape[0]
    dtype = np.dtype(get_config()["dtype"])
    Z = np.vstack([X, Y]).astype(dtype, copy=False)
    parts = lambda rows, cols: distance_parts(collection, Z[rows], Z[cols], dtype)  # noqa: E731
    passes = collection_quadratic_forms(
        parts, lambda k, p, out: kernel_from_parts(collection.kernels[k], p, out),
        len(collection), m + n, U, squares=True)
    lam = np.sqrt(min(m, n) * (min(m, n) - 1))
    normalised = lam * normalised_mmd2(*passes, U, m, n)
    return logsumexp(normalised, axis=0, b=np.asarray(collection.weights)[:, None]) / lam


@MMD_TESTS.register("mmdfuse", "permutation", cost="quadratic",
                    needs=Needs.KERNEL_COLLECTION,
                    work=lambda N, d, B: FUSE_KERNELS * N * N * (
                        1.25 * (B + 2) + KERNEL_FLOPS + 2 * d),
                    memory=lambda N, d, B: 8.0 * (N * (B + 2 + d) + FUSE_KERNELS * (B + 1)),
                    summary="MMD-FUSE: soft maximum of normalised MMD² (Biggs et al. 2023)",
                    default_kernel=mmdfuse_kernels,
                    statistic_words="FUSE, the soft maximum (1/λ) log Σ π_k exp(λ MMD²_k / "
                                    "N̂_k) of its normalised MMD², not an MMD²")
def mmdfuse_permutation(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """MMD-FUSE with its permutation null: the observed labelling and B relabellings of the
    pooled sample, every kernel of the collection in one pass."""
    U = permutation_assignments(X.shape[0], Y.shape[0], n_resamples, rng, with_identity=True)
    values = fuse_values(X, Y, kernel, U)
    return Outcome(values[0], null_samples=values[1:], null_params={"n_kernels": len(kernel)},
                   fitted={"collection": kernel})


def cross_terms(X, Y, kernel, rng) -> tuple[np.ndarray, np.ndarray]:
    """g(X₁) and g(Y₁) of cross-MMD on a random halving of each sample, in row blocks of
    the Gram against the second halves, threaded (O(n) memory)."""
    halves = []
    for S in (X, Y):
        order = rng.permutation(S.shape[0])
        cut = S.shape[0] // 2
        halves.append((S[np.sort(order[:cut])], S[np.sort(order[cut:])]))
    (X1, X2), (Y1, Y2) = halves
    second = np.vstack([X2, Y2])
    w = np.concatenate([np.full(X2.shape[0], 1.0 / X2.shape[0]),
                        np.full(Y2.shape[0], -1.0 / Y2.shape[0])])
    prepared = kernel.prepare_validated(second)
    terms = []
    for first in (X1, Y1):  # row blocks of K(first, second) in the engine's threads
        g = np.empty(first.shape[0])
        for rows, values in row_block_results(kernel, first, prepared,
                                              lambda rows, tile, _: (rows, tile @ w)):
            g[rows] = values
        terms.append(g)
    return terms[0], terms[1]


@MMD_TESTS.register("cross", "normal", cost="quadratic",
                    work=lambda N, d, B: (N / 2) ** 2 * (2 * d + KERNEL_FLOPS),
                    memory=lambda N, d, B: 8.0 * N * (d + 2),
                    summary="cross-MMD, studentised; standard normal null (Shekhar 2022)")
def cross_normal(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """Studentised cross-MMD x̂MMD²/σ̂ with its 𝒩(0, 1) null (one-sided)."""
    if min(X.shape[0], Y.shape[0]) < 4:
        raise ValueError("cross-MMD halves each sample and estimates a variance on each "
                         f"half: it needs at least 4 points per sample, got {X.shape[0]} "
                         f"and {Y.shape[0]}")
    gx, gy = cross_terms(X, Y, kernel, rng)
    u = gx.mean() - gy.mean()
    scale = np.sqrt(gx.var() / gx.size + gy.var() / gy.size)
    if not scale > 0:
        raise ValueError("cross-MMD's variance estimate is 0: the kernel is constant on "
                         "these samples (is its bandwidth far too large or too small?)")
    return Outcome(u / scale, null_dist=stats.norm(), null_params={"cross_mmd2": float(u),
                                                                  "scale": float(scale)},
                   one_pass=False)
