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

import warnings

import numpy as np
from scipy import stats

from .._validation import (
    check_choice,
    check_in_interval,
    check_positive_int,
)
from ..chunked import check_any_pair, is_dask_array
from ..embeddings.kme import default_landmarks
from ..incomplete import checked_superdiagonals
from ..kernels import symmetric_quadratic_forms
from ..kernels.defaults import checked_test_kernel
from ..needs import Needs
from ..registry import KERNEL_FLOPS, MMD_TESTS, RESAMPLE_FLOPS, NullsByEstimator, Outcome
from ..results import TestResult, defaults_of, normal_outcome, run_registered
from ..timeseries.serial import check_rows
from .mmd import (
    FASTMMD_FEATURES,
    block_moments,
    block_terms,
    linear_moments,
    linear_terms,
    mmd2,
    random_features,
)
from .nulls import gamma_null_params, pearson_null, spectral_null
from .resampling import (
    nystrom_landmark_factor,
    nystrom_spectral,
    packed_permutation_assignments,
    permutation_assignments,
    permutation_mmd2,
    streamed_feature_mmd2,
)
from .spectra import DEFAULT_RANK, EXACT_MAX, OVERSAMPLE


def _assignment_bytes(N, d, B) -> float:
    """The N × (B + 1) float64 relabellings of an exact resampling test, and the samples."""
    return 8.0 * N * (B + 1 + d)


# -- the registered tests: one function per (estimator, null), see kmeviz.registry -------
@MMD_TESTS.register("unbiased", "permutation", cost="quadratic", memory=_assignment_bytes,
                    summary="relabel the pooled sample B times, one pass over the Gram")
@MMD_TESTS.register("biased", "permutation", cost="quadratic", memory=_assignment_bytes,
                    summary="relabel the pooled sample B times, one pass over the Gram")
def exact_permutation(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """Exact MMD² and its permutation null, all replicates in one pass (``permutation_mmd2``)."""
    U = permutation_assignments(X.shape[0], Y.shape[0], n_resamples, rng, with_identity=True)
    values = permutation_mmd2(X, Y, kernel, U, estimator=estimator)
    return Outcome(values[0], null_samples=values[1:])


@MMD_TESTS.register("biased", "wild-bootstrap", cost="quadratic", memory=_assignment_bytes,
                    needs=Needs.EQUAL_SIZES,
                    summary="Rademacher signs on the paired h-statistic (Chwialkowski 2014)")
def exact_wild_bootstrap(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """Biased MMD² of paired samples (n_X = n_Y), the V-statistic (1/n²) Σ_ij h(z_i, z_j) with
    h(z_i, z_j) = k(x_i, x_j) + k(y_i, y_j) - k(x_i, y_j) - k(x_j, y_i), and its wild
    bootstrap (Chwialkowski et al. 2014): replicates (1/n²) Σ_ij ε_i ε_j h(z_i, z_j), ε
    i.i.d. Rademacher. With u = [ε; -ε], uᵀ K u over the joint Gram is that double sum, so
    all B replicates and the statistic (ε = 1) are one pass of the tile engine."""
    n = X.shape[0]
    if Y.shape[0] != n:
        raise ValueError("the wild bootstrap pairs x_i with y_i: it needs samples of equal "
                         f"size, got {n} and {Y.shape[0]}")
    signs = np.ones((n, n_resamples + 1))
    signs[:, 1:] = rng.choice((-1.0, 1.0), size=(n, n_resamples))
    forms, _, _ = symmetric_quadratic_forms(kernel, np.vstack([X, Y]),
                                            np.vstack([signs, -signs]))
    values = forms / n**2
    return Outcome(values[0], null_samples=values[1:])


@MMD_TESTS.register("biased", "gamma", cost="quadratic",
                    work=lambda N, d, B: _pairs(N, N, d) + 5000.0 * N * N,
                    memory=lambda N, d, B: 16.0 * N * N,
                    summary="Gamma moment match of MMD²_b under H0 (Gretton et al. 2012)")
def exact_gamma(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """Biased MMD² with the two-parameter Gamma null (``nulls.gamma_null_params``)."""
    params = gamma_null_params(X, Y, kernel)
    return Outcome(mmd2(X, Y, kernel, estimator=estimator),
                   null_dist=stats.gamma(params["shape"], scale=params["scale"]),
                   null_params=params, one_pass=False)


def _spectral_work(N, d, B) -> float:
    """Every eigenvalue by LAPACK up to ``EXACT_MAX`` (its tridiagonal reduction runs at
    matrix-vector speed: ~10 N³ flop-equivalents), else 4 streamed passes of H K H V."""
    if N <= EXACT_MAX:
        return _pairs(N, N, d) + 10.0 * N**3
    return 4.0 * (_pairs(N, N, d) + 2.0 * N * N * (DEFAULT_RANK + OVERSAMPLE))


def _spectral_memory(N, d, B) -> float:
    """The N × N Gram up to ``EXACT_MAX``, else the N × (rank + 20) sketches."""
    return 8.0 * N * N if N <= EXACT_MAX else 8.0 * 4 * N * (DEFAULT_RANK + OVERSAMPLE)


@MMD_TESTS.register("unbiased", "spectral", cost="quadratic", work=_spectral_work,
                    memory=_spectral_memory,
                    summary="eigenvalues of the centred Gram (Gretton et al. 2009), simulated")
@MMD_TESTS.register("biased", "spectral", cost="quadratic", work=_spectral_work,
                    memory=_spectral_memory,
                    summary="eigenvalues of the centred Gram (Gretton et al. 2009), simulated")
def exact_spectral(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """Exact MMD² with the spectral null Σ λ_l (z_l² [- 1]) (``nulls.spectral_null``: every
    eigenvalue up to N = 2500, the leading 200 and the tail's exact moments above)."""
    spectrum = spectral_null(X, Y, kernel)
    samples = spectrum.draws(X.shape[0], Y.shape[0], estimator, n_resamples, rng)
    return Outcome(mmd2(X, Y, kernel, estimator=estimator), null_samples=samples,
                   null_params={"eigenvalues": spectrum.eigenvalues,
                                "tail_sum": spectrum.tail_sum,
                                "tail_square_sum": spectrum.tail_square_sum},
                   one_pass=False)


@MMD_TESTS.register("unbiased", "pearson", cost="cubic", needs=Needs.EQUAL_SIZES,
                    work=lambda N, d, B: _pairs(N, N, d) + 100.0 * N * N + N**3 / 4,
                    memory=lambda N, d, B: 6.0 * N * N,  # measured 0.75 × 8N² at N = 10⁴
                    summary="Pearson III fitted to three H0 moments (FastMMD Fig. 8b)")
def exact_pearson(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """Unbiased MMD² with the Pearson curve null (``nulls.pearson_null``)."""
    dist, moments = pearson_null(X, Y, kernel)
    return Outcome(mmd2(X, Y, kernel, estimator=estimator), null_dist=dist,
                   null_params=moments, one_pass=False)


@MMD_TESTS.register("linear", "normal", cost="linear", dask=True,
                    work=lambda N, d, B: 2 * _pairs(N, 1, d),
                    summary="linear-time MMD² (Gretton et al. 2012, Sec. 6), normal null")
def linear_normal(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """Linear-time MMD² with its asymptotic normal null (summands or their moments)."""
    terms = linear_moments(X, Y, kernel) if is_dask_array(X) else linear_terms(X, Y, kernel)
    return normal_outcome(terms, "linear")


@MMD_TESTS.register("block", "normal", cost="linear", dask=True, options=("block_size",),
                    work=lambda N, d, B: _pairs(N, np.sqrt(N), d),
                    summary="B-test: mean of block MMD²_u (Zaremba et al. 2013), normal null")
def block_normal(X, Y, kernel, *, estimator, n_resamples, rng, block_size) -> Outcome:
    """B-test with its asymptotic normal null."""
    terms = (block_moments if is_dask_array(X) else block_terms)(X, Y, kernel, block_size)
    return normal_outcome(terms, "block")


@MMD_TESTS.register("fastmmd", "permutation", cost="linear",
                    options=("features", "n_features"), needs=Needs.SHIFT_INVARIANT_KERNEL,
                    work=lambda N, d, B: _feature_work(N, 512, 2 * d * 256 + 40 * 512, B),
                    summary="FastMMD-Fourier or -Fastfood + bootstrap (FastMMD Sec. 4.5)")
def fastmmd_permutation(X, Y, kernel, *, estimator, n_resamples, rng, features,
                        n_features) -> Outcome:
    """FastMMD (biased, Alg. 2) with the permutation null of its N × 2L feature matrix,
    the features computed per row block (memory O(N(d + B/8 bytes)), not O(N L))."""
    Z = np.vstack([X, Y])
    transform = random_features(kernel, Z, n_features=n_features, features=features,
                                rng=rng).transform
    return _feature_permutation(lambda sl: transform(Z[sl]), X.shape[0], Y.shape[0],
                                n_resamples, rng)


@MMD_TESTS.register("pooled-nystrom", "permutation", cost="linear",
                    options=("n_landmarks",),
                    work=lambda N, d, B: _feature_work(N, default_landmarks(N),
                                                       _landmark_work(N, d), B),
                    summary="squared Nyström MMD on pooled landmarks, permutation null")
def nystrom_permutation(X, Y, kernel, *, estimator, n_resamples, rng, n_landmarks) -> Outcome:
    """Squared pooled-landmark Nyström MMD with the permutation null of its features,
    computed per row block as for FastMMD."""
    Z = np.vstack([X, Y])
    L, R = nystrom_landmark_factor(Z, kernel, n_landmarks, rng)
    return _feature_permutation(lambda sl: kernel.gram(Z[sl], L) @ R.T, X.shape[0],
                                Y.shape[0], n_resamples, rng)


@MMD_TESTS.register("pooled-nystrom", "spectral", cost="linear", dask=True,
                    options=("n_landmarks",),
                    work=lambda N, d, B: (N * _landmark_work(N, d)
                                          + 10.0 * default_landmarks(N) ** 3),
                    summary="squared Nyström MMD, spectral null of the m × m feature covariance")
def nystrom_spectral_null(X, Y, kernel, *, estimator, n_resamples, rng,
                          n_landmarks) -> Outcome:
    """Squared pooled-landmark Nyström MMD with its spectral null (``nystrom_spectral``)."""
    statistic, samples, lam = nystrom_spectral(X, Y, kernel, n_landmarks, rng, n_resamples)
    return Outcome(statistic, null_samples=samples, null_params={"eigenvalues": lam},
                   one_pass=False)


def _pairs(rows, cols, d) -> float:
    """The work of rows × cols kernel evaluations in d dimensions."""
    return rows * cols * (2.0 * d + KERNEL_FLOPS)


def _feature_work(N, p, per_row, B) -> float:
    """The work of a streamed feature permutation test: N rows of p features at
    ``per_row`` flops each, the B relabellings drawn, then Fᵀ U."""
    return N * (per_row + (2.0 * p + RESAMPLE_FLOPS) * B)


def _landmark_work(N, d) -> float:
    """Per row of the pooled sample: its kernel row against the default m landmarks and
    the product with the m × m factor."""
    m = default_landmarks(N)
    return _pairs(1, m, d) + 2.0 * m * m


def _feature_permutation(features_of, m, n, B, rng) -> Outcome:
    packed = packed_permutation_assignments(m, n, B, rng)
    statistic, values = streamed_feature_mmd2(features_of, m, n, packed, B)
    return Outcome(statistic, null_samples=values)


#: Estimator -> the nulls that are valid for it (a live view of the registry).
VALID_NULLS = NullsByEstimator(MMD_TESTS)


def mmd_test(X, Y, kernel=None, *, estimator: str = "biased", null: str | None = None,
             n_resamples: int = 1000, alpha: float = 0.05, features: str = "fourier",
             n_features: int = 256, block_size: int | None = None,
             n_landmarks: int | None = None,
             wild_length: float | None = None, superdiagonals: int = 200,
             rows: str = "check", rng=None, **test_options) -> TestResult:
    """Kernel two-sample test of H0: P = Q with an MMD² statistic and a null distribution.

    Gretton et al. 2012 (JMLR), Sec. 4–6; FastMMD Sec. 4.5 for the nulls of Fig. 8b.

    Parameters
    ----------
    X : array (m, d)
    Y : array (n, d)
    kernel : Kernel, optional
        Shift-invariant for ``estimator="fastmmd"``; a ``PrecomputedKernel`` for a Gram
        matrix computed elsewhere. Default: ``GaussianKernel(median_heuristic(X, Y))``,
        the median pairwise distance of the pooled sample (``result.kernel`` shows it).
    estimator : str
        The statistic: "biased", "unbiased", "linear", "block", "fastmmd",
        "pooled-nystrom" (the squared distance of the two samples' mean features on m
        landmarks drawn from the pooled sample; not ``mmd2_nystrom``, which fits each
        sample's Nyström embedding on its own landmarks, Chatalic et al. Sec. 5;
        "nystrom" is its deprecated name) or "mmdagg"
        (MMDAgg, Schrab et al. 2023: the unbiased MMD² of a whole collection of kernels,
        ``kernel`` a ``KernelCollection``, default ``mmdagg_kernels(X, Y)``; B1 = B2 =
        ``n_resamples``; ``fitted["kernels"]`` is the per-kernel table). "selected"
        learns a kernel on all the data among Gaussians on single coordinates and
        coordinate pairs, relearns it in every permutation and combines it with
        ``kernel`` by min-p (``kmeviz.twosample.selected``; ``fitted["coordinates"]``).
        "split" learns the kernel by the power criterion on ``train_fraction`` of each
        sample (its own option, default 0.5; ``kernel`` gives the family and the start: a
        ``GaussianKernel``, an ``ARDGaussianKernel`` or a ``FeatureKernel`` on either)
        and tests on the rest; ``fitted["kernel"]`` is the learned kernel.
    null : str, optional
        How the null is obtained. The valid (estimator, null) pairs are the entries of
        ``kmeviz.registry.MMD_TESTS`` (``VALID_NULLS``; table below); other pairs raise
        ValueError. Default: the estimator's first registered null that the samples
        allow ("permutation" for the exact, FastMMD and Nyström estimators, "normal" for
        linear and block; for MMDAgg the wild bootstrap when m = n, else permutations, as
        its authors do). X and Y may be dask arrays (``kmeviz.chunked``) for the entries
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
    wild_length : float, optional
        ℓ of ``null="dependent-wild-bootstrap"``'s multiplier processes (default: from
        the rows' lag-1 autocorrelation, ``kmeviz.timeseries.nulls.wild_length``).
    superdiagonals : int
        R of ``estimator="mmdagginc"``: the superdiagonals of its incomplete U-statistic
        (default 200, the authors'; R ≥ n − 1 is the complete one).
    rows : {"check", "iid"}
        "check" (default): before an i.i.d. null, check the rows for serial dependence and
        warn (``SerialDependenceWarning``, ``fitted["note"]``) when it is found; "iid":
        the rows are exchangeable (e.g. a sorted sample), do not check.
    rng : Generator, int or None
    **test_options
        Options of the chosen test alone (``TestOption`` entries of its registration, the
        "options" of the table below); a TypeError names them for any other keyword.

    Returns
    -------
    TestResult
        ``estimator`` and ``null`` as run; ``runtime`` has ``statistic``, ``null`` and
        ``total`` (NaN for the first two when one permutation pass computes both).

    {registered tests}

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
    spec = MMD_TESTS.get(estimator, null)  # a ValueError naming the choices, before the data
    if "train_fraction" in test_options and not spec.takes("train_fraction"):
        warnings.warn(f"train_fraction is an option of estimator='split' alone (kmeviz 0.3); "
                      f"passed to estimator={estimator!r} it is ignored, as before, and from "
                      "kmeviz 0.5 it raises TypeError", DeprecationWarning, stacklevel=2)
        test_options = {k: v for k, v in test_options.items() if k != "train_fraction"}
    B = check_positive_int(n_resamples, "n_resamples")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
    X, Y, _ = check_any_pair(X, Y, min_samples=2)
    options = {"features": check_choice(features, "features", FASTMMD_FEATURES),
               "n_features": check_positive_int(n_features, "n_features"),
               "block_size": block_size, "n_landmarks": n_landmarks,
               "wild_length": wild_length, "rows": check_rows(rows),
               "superdiagonals": checked_superdiagonals(superdiagonals),
               "test_options": test_options}
    return checked_mmd_test(X, Y, kernel, estimator=estimator, null=null, n_resamples=B,
                            alpha=alpha, rng=rng, options=options)


def checked_mmd_test(X, Y, kernel, *, estimator: str, null: str | None, n_resamples: int,
                     alpha: float, rng, options: dict | None = None,
                     test_options: dict | None = None) -> TestResult:
    """``mmd_test`` on samples and settings already checked (``check_any_pair``,
    ``n_resamples``, ``alpha``, the FastMMD ``options``): the step below the public entry
    points, which validate once (``compare_tests`` calls it for each of its tests)."""
    chunked = is_dask_array(X) or is_dask_array(Y)
    if null is None:
        null = next((n for n in VALID_NULLS[estimator]
                     if Needs.EQUAL_SIZES not in MMD_TESTS.get(estimator, n).needs
                     or X.shape[0] == Y.shape[0]), VALID_NULLS[estimator][0])
    spec = MMD_TESTS.get(estimator, null)
    if chunked and not spec.dask:
        capable = ", ".join(f"estimator={s.estimator!r} with null={s.null!r}"
                            for s in MMD_TESTS.dask_capable())
        raise TypeError(
            f"estimator={estimator!r} with null={null!r} needs the samples in memory (it is "
            f"{spec.cost} in n, or relabels all N points for each replicate); with dask "
            f"arrays use {capable} (or pass X.compute() and Y.compute())")
    kernel = checked_test_kernel(kernel, spec, X, Y)
    options = options or defaults_of(mmd_test, ("features", "n_features", "block_size",
                                                 "n_landmarks",
                                                 "wild_length", "superdiagonals"))
    if test_options is not None:
        options = {**options, "test_options": test_options}
    return run_registered(spec, (X, Y), kernel, alpha=alpha, rng=rng, options=options,
                          estimator=estimator, n_resamples=n_resamples)


