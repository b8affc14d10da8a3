"""Two-sample tests (``mmd_test``): each (estimator, null) pair is one entry of the test
registry (``kmeviz.registry.MMD_TESTS``), registered below on the function computing it.

Nulls:

- ``"permutation"``: relabel the pooled sample B times. All replicates are one
  streamed pass over the joint Gram, K @ U for a batch U of assignment vectors
  (exact MMD), or Fᵀ U for the n × 2L random-feature matrix F (FastMMD + bootstrap,
  FastMMD Sec. 4.5). Never a Python loop over replicates.
- ``"gamma"``: two-parameter Gamma moment match of MMD²_b under H0 (Gretton et al.
  2012), moments from the centred joint Gram in O(N²).
- ``"pearson"``: Pearson type III fitted to the H0 mean, variance and skewness of MMD²_u
  (Gretton et al. 2012a; FastMMD Fig. 8b), equal sample sizes, O(N³).
- ``"spectral"``: MMD² ≈ (1/m + 1/n) Σ_l λ_l (z_l² [- 1]) with λ_l the eigenvalues of
  the centred joint Gram / N (Gretton et al. 2009); simulated.
- ``"normal"``: the asymptotic normal null of the linear-time and B-test statistics,
  with the variance estimated from their independent summands.

p-values of simulated nulls are (1 + #{null ≥ statistic}) / (1 + B).
"""

from __future__ import annotations

import time
from functools import partial

import numpy as np
from scipy import linalg, stats

from .._validation import (
    check_choice,
    check_in_interval,
    check_positive_int,
    check_rng,
)
from ..chunked import check_any_pair, concatenate_rows, is_dask_array, row_chunk_sums, take_rows
from ..config import get_config
from ..embeddings.kme import draw_landmarks, psd_inverse_factor
from ..kernels import check_kernel, symmetric_quadratic_forms, tile_side
from ..kernels.engine import column_sums, gram_pass, run_tasks
from ..registry import MMD_TESTS, Outcome
from ..results import TestResult, normal_outcome, result_from_outcome
from .mmd import (
    FASTMMD_FEATURES,
    block_moments,
    block_terms,
    linear_moments,
    linear_terms,
    mmd2,
    random_features,
)
from .nulls import (
    gamma_null_params,
    pearson_null,
    simulate_spectral,
    spectral_eigenvalues,
)


def permutation_assignments(m: int, n: int, n_permutations: int, rng, *,
                            with_identity: bool = False) -> np.ndarray:
    """(m + n, B) 0/1 matrix; column b marks the points relabelled as X in replicate b
    (with ``with_identity``, (m + n, B + 1) with the observed labelling first).

    Each replicate draws m + n i.i.d. uniform keys and marks the m smallest: a uniformly
    random m-subset, as a shuffle gives, at a third of the cost of shuffling row by row.
    Replicates are drawn in fixed chunks of 128, each from its own generator seeded by
    ``rng``, in the engine's threads, so the draws do not depend on the thread count.
    A tie at the m-th key (probability about N² 2⁻⁵⁴ per replicate) is redrawn.
    Returned in Fortran order in the configured dtype, so no copy is made later."""
    N, chunk = m + n, 128
    starts = range(0, n_permutations, chunk)
    seeds = rng.integers(0, 2**63, size=len(starts))
    U = np.empty((N, n_permutations + with_identity), dtype=get_config()["dtype"], order="F")
    if with_identity:
        U[:, 0] = np.arange(N) < m

    def draw(task):
        start, seed = task
        child = np.random.default_rng(seed)
        keys = child.random((min(chunk, n_permutations - start), N))
        while True:
            kth = np.partition(keys, m - 1, axis=1)[:, m - 1 : m]
            chosen = keys <= kth
            tied = np.flatnonzero(np.count_nonzero(chosen, axis=1) != m)
            if tied.size == 0:
                first = start + with_identity
                U[:, first : first + keys.shape[0]] = chosen.T
                return
            keys[tied] = child.random((tied.size, N))

    run_tasks(draw, zip(starts, seeds, strict=True), get_config()["n_threads"])
    return U


def _block_sums(s_xx, U, row_sums, trace_rows, total):
    """S_XX, S_YY, S_XY and the two traces for each assignment column of U, given
    S_XX(u) = uᵀKu."""
    # 1ᵀ K u and the traces in float64 (0/1 columns are exact in any dtype; a mixed-dtype
    # product would leave BLAS)
    vectors = np.stack([row_sums, trace_rows])
    step = 256

    def product(start):  # column chunks in the engine's threads, each cast in cache
        return vectors @ U[:, start : start + step].astype(np.float64, copy=False)

    k1u, tr_x = np.hstack(run_tasks(product, range(0, U.shape[1], step),
                                    get_config()["n_threads"]))
    s_xy = k1u - s_xx
    s_yy = total - 2.0 * k1u + s_xx
    return s_xx, s_yy, s_xy, tr_x, trace_rows.sum() - tr_x


def _mmd2_from_sums(sums, m, n, estimator):
    s_xx, s_yy, s_xy, tr_x, tr_y = sums
    if estimator == "biased":
        return s_xx / m**2 + s_yy / n**2 - 2.0 * s_xy / (m * n)
    return ((s_xx - tr_x) / (m * (m - 1)) + (s_yy - tr_y) / (n * (n - 1))
            - 2.0 * s_xy / (m * n))


def permutation_mmd2(X, Y, kernel, U, *, estimator="biased",
                     working_memory: int | None = None) -> np.ndarray:
    """Exact MMD² for every assignment column of U in one pass over the joint Gram.

    S_XX(u) = uᵀKu for all columns at once, from the tiles on or above the diagonal (the
    tile engine); memory is O(tiles + N·B), the Gram is never stored whole.
    """
    Z = np.vstack([X, Y])
    s_xx, row_sums, diag = symmetric_quadratic_forms(kernel, Z, U,
                                                     side=tile_side(working_memory))
    sums = _block_sums(s_xx, U, row_sums, diag, row_sums.sum())
    return _mmd2_from_sums(sums, X.shape[0], Y.shape[0], estimator)


def nystrom_features(Z: np.ndarray, kernel, n_landmarks, rng) -> np.ndarray:
    """F = K_{Z,L} Rᵀ for m landmarks L drawn from Z, RᵀR a generalized inverse of K_L
    (``psd_inverse_factor``): F Fᵀ is the Nyström Gram.

    Then ||mean F_X - mean F_Y||² = ||P_m(μ̂_X - μ̂_Y)||², the squared Nyström MMD with
    the projection P_m onto the span of the pooled landmarks (Chatalic et al., Sec. 5).
    """
    L = Z[draw_landmarks(Z.shape[0], n_landmarks, None, True, rng)]
    return kernel.gram(Z, L) @ psd_inverse_factor(kernel.gram(L, L)).T


def permutation_fastmmd2(features: np.ndarray, m: int, U) -> np.ndarray:
    """Biased MMD² ||mean F_X - mean F_Y||² for every assignment column of U.

    F is the N × 2L random-feature matrix (FastMMD Alg. 2) or the N × m Nyström
    feature matrix.
    """
    S = features.T @ U  # (2L, B): feature sums of the relabelled X
    total = features.sum(axis=0)[:, None]
    n = features.shape[0] - m
    return np.sum((S / m - (total - S) / n) ** 2, axis=0)


def nystrom_spectral(X, Y, kernel, n_landmarks, rng, B: int) -> tuple[float, np.ndarray,
                                                                          np.ndarray]:
    """(squared Nyström MMD, draws of its spectral null, the null's eigenvalues) in one
    pass over the samples, O(N m r + m³) time and O(m²) memory (X, Y numpy or dask).

    With the features F = K_{Z,L} Rᵀ of the pooled landmarks (``nystrom_features``), the
    statistic ||mean F_X - mean F_Y||² is the biased MMD² of the Nyström Gram F Fᵀ, so the
    spectral null of Gretton et al. (2009) applies to it: (1/m + 1/n) Σ_l λ_l z_l², where
    the eigenvalues of the centred Nyström Gram / N are those of the pooled feature
    covariance Fᵀ H F / N (r × r), accumulated as Σ F and Fᵀ F over row blocks.
    """
    m, n = X.shape[0], Y.shape[0]
    idx = draw_landmarks(m + n, n_landmarks, None, True, rng)
    if is_dask_array(X):
        L = take_rows(concatenate_rows(X, Y), idx)
    else:
        L = np.vstack([X, Y])[idx]
    R = psd_inverse_factor(kernel.gram(L, L))
    (sum_x, gram_x), (sum_y, gram_y) = (feature_moments(kernel, Z, L, R) for Z in (X, Y))
    diff = sum_x / m - sum_y / n
    mean = (sum_x + sum_y) / (m + n)
    cov = (gram_x + gram_y) / (m + n) - np.outer(mean, mean)
    lam = linalg.eigvalsh((cov + cov.T) / 2.0)
    lam = lam[lam > 1e-12 * max(lam.max(), 1e-300)]
    return float(diff @ diff), simulate_spectral(lam, m, n, "biased", B, rng), lam


def feature_moments(kernel, Z, L: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Σ_i F_i, Fᵀ F) of the Nyström features F = K(Z, L) Rᵀ, streamed over row blocks of
    a clean sample or summed over the chunks of a dask array."""
    if is_dask_array(Z):
        return row_chunk_sums(partial(_chunk_feature_moments, kernel, L, R), Z)
    return _chunk_feature_moments(kernel, L, R, 0, Z)


def _chunk_feature_moments(kernel, L, R, start, Z):
    def reduce(sl, block, _):
        F = block @ R.T
        return column_sums(F), F.T @ F

    total, gram = np.zeros(R.shape[0]), np.zeros((R.shape[0], R.shape[0]))
    for s, g in gram_pass(kernel, Z, L, reduce):
        total += s
        gram += g
    return total, gram




# -- the registered tests: one function per (estimator, null), see kmeviz.registry -------
EXACT = "exact MMD² over all pairs (Gretton et al. 2012, Eq. 2 / Lemma 6)"


@MMD_TESTS.register("unbiased", "permutation", cost="quadratic",
                    summary="relabel the pooled sample B times, one pass over the Gram")
@MMD_TESTS.register("biased", "permutation", cost="quadratic",
                    summary="relabel the pooled sample B times, one pass over the Gram")
def exact_permutation(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """Exact MMD² and its permutation null, all replicates in one pass (``permutation_mmd2``)."""
    U = permutation_assignments(X.shape[0], Y.shape[0], n_resamples, rng, with_identity=True)
    values = permutation_mmd2(X, Y, kernel, U, estimator=estimator)
    return Outcome(values[0], null_samples=values[1:])


@MMD_TESTS.register("biased", "gamma", cost="quadratic",
                    summary="Gamma moment match of MMD²_b under H0 (Gretton et al. 2012)")
def exact_gamma(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """Biased MMD² with the two-parameter Gamma null (``nulls.gamma_null_params``)."""
    params = gamma_null_params(X, Y, kernel)
    return Outcome(mmd2(X, Y, kernel, estimator=estimator),
                   null_dist=stats.gamma(params["shape"], scale=params["scale"]),
                   null_params=params, one_pass=False)


@MMD_TESTS.register("unbiased", "spectral", cost="cubic",
                    summary="eigenvalues of the centred Gram (Gretton et al. 2009), simulated")
@MMD_TESTS.register("biased", "spectral", cost="cubic",
                    summary="eigenvalues of the centred Gram (Gretton et al. 2009), simulated")
def exact_spectral(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """Exact MMD² with the spectral null Σ λ_l (z_l² [- 1]) (``nulls.spectral_eigenvalues``)."""
    lam = spectral_eigenvalues(X, Y, kernel)
    samples = simulate_spectral(lam, X.shape[0], Y.shape[0], estimator, n_resamples, rng)
    return Outcome(mmd2(X, Y, kernel, estimator=estimator), null_samples=samples,
                   null_params={"eigenvalues": lam}, one_pass=False)


@MMD_TESTS.register("unbiased", "pearson", cost="cubic", needs=("equal sample sizes",),
                    summary="Pearson III fitted to three H0 moments (FastMMD Fig. 8b)")
def exact_pearson(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """Unbiased MMD² with the Pearson curve null (``nulls.pearson_null``)."""
    dist, moments = pearson_null(X, Y, kernel)
    return Outcome(mmd2(X, Y, kernel, estimator=estimator), null_dist=dist,
                   null_params=moments, one_pass=False)


@MMD_TESTS.register("linear", "normal", cost="linear", dask=True,
                    summary="linear-time MMD² (Gretton et al. 2012, Sec. 6), normal null")
def linear_normal(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """Linear-time MMD² with its asymptotic normal null (summands or their moments)."""
    terms = linear_moments(X, Y, kernel) if is_dask_array(X) else linear_terms(X, Y, kernel)
    return normal_outcome(terms, "linear")


@MMD_TESTS.register("block", "normal", cost="linear", dask=True, options=("block_size",),
                    summary="B-test: mean of block MMD²_u (Zaremba et al. 2013), normal null")
def block_normal(X, Y, kernel, *, estimator, n_resamples, rng, block_size) -> Outcome:
    """B-test with its asymptotic normal null."""
    terms = (block_moments if is_dask_array(X) else block_terms)(X, Y, kernel, block_size)
    return normal_outcome(terms, "block")


@MMD_TESTS.register("fastmmd", "permutation", cost="linear",
                    options=("features", "n_features"), needs=("shift-invariant kernel",),
                    summary="FastMMD-Fourier or -Fastfood + bootstrap (FastMMD Sec. 4.5)")
def fastmmd_permutation(X, Y, kernel, *, estimator, n_resamples, rng, features,
                        n_features) -> Outcome:
    """FastMMD (biased, Alg. 2) with the permutation null of its N × 2L feature matrix."""
    Z = np.vstack([X, Y])
    F = random_features(kernel, Z, n_features=n_features, features=features,
                        rng=rng).transform(Z)
    return _feature_permutation(F, X.shape[0], Y.shape[0], n_resamples, rng)


@MMD_TESTS.register("nystrom", "permutation", cost="linear", options=("n_landmarks",),
                    summary="squared Nyström MMD on pooled landmarks, permutation null")
def nystrom_permutation(X, Y, kernel, *, estimator, n_resamples, rng, n_landmarks) -> Outcome:
    """Squared pooled-landmark Nyström MMD with the permutation null of its features."""
    F = nystrom_features(np.vstack([X, Y]), kernel, n_landmarks, rng)
    return _feature_permutation(F, X.shape[0], Y.shape[0], n_resamples, rng)


@MMD_TESTS.register("nystrom", "spectral", cost="linear", dask=True, options=("n_landmarks",),
                    summary="squared Nyström MMD, spectral null of the m × m feature covariance")
def nystrom_spectral_null(X, Y, kernel, *, estimator, n_resamples, rng,
                          n_landmarks) -> Outcome:
    """Squared pooled-landmark Nyström MMD with its spectral null (``nystrom_spectral``)."""
    statistic, samples, lam = nystrom_spectral(X, Y, kernel, n_landmarks, rng, n_resamples)
    return Outcome(statistic, null_samples=samples, null_params={"eigenvalues": lam},
                   one_pass=False)


def _feature_permutation(F, m, n, B, rng) -> Outcome:
    U = permutation_assignments(m, n, B, rng, with_identity=True)
    values = permutation_fastmmd2(F, m, U)
    return Outcome(values[0], null_samples=values[1:])


#: Estimator -> the nulls that are valid for it (read from the registry).
VALID_NULLS = MMD_TESTS.valid_nulls()


def mmd_test(X, Y, kernel, *, estimator: str = "biased", null: str = "permutation",
             n_resamples: int = 1000, alpha: float = 0.05, features: str = "fourier",
             n_features: int = 256, block_size: int | None = None,
             n_landmarks: int | None = None, rng=None) -> TestResult:
    """Kernel two-sample test of H0: P = Q with an MMD² statistic and a null distribution.

    Gretton et al. 2012 (JMLR), Sec. 4–6; FastMMD Sec. 4.5 for the nulls of Fig. 8b.

    Parameters
    ----------
    X : array (m, d)
    Y : array (n, d)
    kernel : Kernel
        Shift-invariant for ``estimator="fastmmd"``.
    estimator : str
        The statistic: "biased", "unbiased", "linear", "block", "fastmmd" or "nystrom"
        (squared Nyström MMD with landmarks drawn from the pooled sample).
    null : str
        How the null is obtained. The valid (estimator, null) pairs are the entries of
        ``kmeviz.registry.MMD_TESTS`` (``VALID_NULLS``; table below); other pairs raise
        ValueError. X and Y may be dask arrays (``kmeviz.chunked``) for the entries
        marked dask.
    n_resamples : int
        B, the number of permutation (or spectral simulation) replicates (default 1000;
        scipy.stats' name).
    alpha : float in (0, 1)
    features : {"fourier", "fastfood"}
        The random features of the FastMMD estimator (FastMMD-Fourier or -Fastfood).
    n_features : int
        L for the FastMMD estimator.
    block_size : int, optional
        B-test block size (default floor(sqrt(n))).
    n_landmarks : int, optional
        m for the Nyström estimator (default ceil(√N log √N), N = m + n).
    rng : Generator, int or None

    Returns
    -------
    TestResult
        ``estimator`` and ``null`` as run; ``runtime`` has ``statistic``, ``null`` and
        ``total`` (NaN for the first two when one permutation pass computes both).

    Notes
    -----
    The registered tests (``print(kmeviz.registry.MMD_TESTS.markdown())``):

    {table}

    Examples
    --------
    >>> import numpy as np
    >>> from kmeviz import GaussianKernel
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(100, 2)), rng.normal(1.0, 1.0, size=(100, 2))
    >>> res = mmd_test(X, Y, GaussianKernel(1.0), n_resamples=200, rng=0)
    >>> bool(res.reject), res.p_value == 1 / 201  # no permutation reaches the statistic
    (True, True)
    """
    spec = MMD_TESTS.get(estimator, null)
    B = check_positive_int(n_resamples, "n_resamples")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
    X, Y, chunked = check_any_pair(X, Y, min_samples=2)
    if chunked and not spec.dask:
        capable = ", ".join(f"estimator={s.estimator!r} with null={s.null!r}"
                            for s in MMD_TESTS.dask_capable())
        raise TypeError(
            f"estimator={estimator!r} with null={null!r} needs the samples in memory (it is "
            f"{spec.cost} in n, or relabels all N points for each replicate); with dask "
            f"arrays use {capable} (or pass X.compute() and Y.compute())")
    kernel = check_kernel(kernel, shift_invariant="shift-invariant kernel" in spec.needs)
    options = {"features": check_choice(features, "features", FASTMMD_FEATURES),
               "n_features": check_positive_int(n_features, "n_features"),
               "block_size": block_size, "n_landmarks": n_landmarks}
    t0 = time.perf_counter()
    outcome = spec.compute(X, Y, kernel, estimator=estimator, n_resamples=B,
                           rng=check_rng(rng), **{k: options[k] for k in spec.options})
    return result_from_outcome(outcome, spec, alpha, time.perf_counter() - t0)


mmd_test.__doc__ = mmd_test.__doc__.replace(
    "{table}", MMD_TESTS.markdown().replace("\n", "\n    "))
