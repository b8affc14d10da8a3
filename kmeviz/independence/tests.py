"""Independence tests (``hsic_test``, ``dhsic_test``): each (estimator, null) pair is one
entry of ``kmeviz.registry.INDEPENDENCE_TESTS`` (or ``JOINT_INDEPENDENCE_TESTS``),
registered below on the function computing it. Nulls of HSIC:

- ``"permutation"``: HSIC of (X, Y[π]) for B permutations π, all from the centred Grams
  held once (``hsic.permuted_hsic``: factors or matrices), never recomputing a kernel;
- ``"gamma"``: Gretton et al. 2008's two-parameter Gamma law of HSIC_b;
- ``"spectral"``: HSIC_b ≈ (1/n) Σ λ_a η_b z²_ab, λ, η the eigenvalues of K̃/n and L̃/n
  (Gretton et al. 2009; Zhang et al. 2011, Thm. 4), simulated;
- ``"normal"`` (block HSIC) and the spectral null of the feature covariances (Nyström,
  RFF HSIC): Zhang et al. 2018, see ``large_scale``; the block test's normal null is
  anti-conservative at small n (measured size 0.096 at n = 100 and 0.092 at 200, 500
  draws: ``kmeviz reproduce hsic-size``; every other test 0.038–0.064);
- HSICAgg's wild bootstrap with MMDAgg's level correction (``aggregated``), and that of
  HSICAggInc's incomplete statistic (``incomplete``). p-values of simulated nulls are
  (1 + #{null ≥ statistic}) / (1 + B).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from .._validation import check_in_interval, check_positive_int
from ..aggregation import AGGREGATED_RESULT
from ..chunked import is_dask_array
from ..incomplete import checked_superdiagonals
from ..kernels.collection import KernelCollection
from ..needs import Needs
from ..registry import (
    INDEPENDENCE_TESTS,
    KERNEL_FLOPS,
    NullsByEstimator,
    Outcome,
)
from ..results import defaults_of, run_registered
from ..timeseries.serial import check_rows
from .aggregated import hsicagg_kernels, hsicagg_wild_bootstrap
from .costs import _pairs, _permutation_work, _spectral_work
from .hsic import (
    KernelPair,
    centred_grams,
    gamma_moments,
    gram_sums,
    hsic_from_sums,
    permutations,
    permuted_hsic,
    spectral_draws,
    statistic_sums,
)
from .large_scale import block_hsic, default_block_size, feature_hsic, nystrom_map, rff_map
from .measures import check_paired, checked_kernel_pair


# -- the registered tests ------------------------------------------------------------------
def _centred_gram_bytes(N, d, B) -> float:
    """Memory of the centred Grams' factors and their products: up to one N × N float64
    matrix (measured: 0.75–1.0 × 8N² at N = 4000–10 000), and B permutations of N."""
    return 8.0 * N * N + 8.0 * N * B


@INDEPENDENCE_TESTS.register("biased", "permutation", cost="quadratic",
                             work=_permutation_work,
                             memory=_centred_gram_bytes,
                             summary="permute Y B times, replicates from the centred Grams")
@INDEPENDENCE_TESTS.register("unbiased", "permutation", cost="quadratic",
                             work=_permutation_work,
                             memory=_centred_gram_bytes,
                             summary="HSIC_u (Song et al. 2012), permutations of Y")
def hsic_permutation(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """HSIC and its permutation null (``hsic.permuted_hsic``)."""
    grams = centred_grams(X, Y, kernel)
    sums = statistic_sums(X, Y, kernel, grams)
    statistic = hsic_from_sums(sums.cross, sums.k1, sums.l1, sums.k_diag, sums.l_diag,
                               estimator)
    values = permuted_hsic(X, Y, kernel, sums, permutations(X.shape[0], n_resamples, rng),
                           estimator, grams)
    return Outcome(float(statistic), null_samples=values,
                   null_params={"factor_ranks": (grams[0].rank, grams[1].rank)},
                   one_pass=False)


@INDEPENDENCE_TESTS.register("biased", "gamma", cost="quadratic",
                             work=lambda N, d, B: 10.0 * _pairs(N, d),
                             summary="Gamma law of HSIC_b (Gretton et al. 2008)")
def hsic_gamma(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """HSIC_b with Gretton et al. 2008's Gamma null (``hsic.gamma_moments``)."""
    sums = gram_sums(X, Y, kernel)
    params = gamma_moments(X, Y, kernel, sums)
    statistic = hsic_from_sums(sums.cross, sums.k1, sums.l1, sums.k_diag, sums.l_diag,
                               "biased")
    return Outcome(float(statistic), null_dist=stats.gamma(params["shape"],
                                                           scale=params["scale"]),
                   null_params=params, one_pass=False)


@INDEPENDENCE_TESTS.register("biased", "spectral", cost="quadratic",
                             work=_spectral_work,
                             memory=_centred_gram_bytes,
                             summary="eigenvalues of the centred Grams (Gretton et al. 2009)")
def hsic_spectral(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """HSIC_b with the spectral null (``hsic.spectral_draws``)."""
    gx, gy = centred_grams(X, Y, kernel)
    sums = statistic_sums(X, Y, kernel, (gx, gy))
    n = X.shape[0]
    lam, eta = gx.eigenvalues() / n, gy.eigenvalues() / n
    statistic = hsic_from_sums(sums.cross, sums.k1, sums.l1, sums.k_diag, sums.l_diag,
                               "biased")
    return Outcome(float(statistic), null_samples=spectral_draws(lam, eta, n, n_resamples, rng),
                   null_params={"eigenvalues_x": lam, "eigenvalues_y": eta}, one_pass=False)


@INDEPENDENCE_TESTS.register("hsicagg", "wild-bootstrap", cost="quadratic",
                             needs=Needs.KERNEL_COLLECTION,
                             work=lambda N, d, B: 25 * (N * N * (0.8 * (2 * B + 1) + 10) + 1e8),
                             memory=lambda N, d, B: 8.0 * N * (2 * B + 1 + 2 * d),
                             summary="HSICAgg: 5 × 5 bandwidth pairs (Schrab et al.'s agginc "
                                     "defaults), wild bootstrap, MMDAgg's level correction; "
                                     "conservative with few draws (size 0.020 at n = 100, "
                                     "0.012 at 200 with B = 199; use B ≥ 1000)",
                             **AGGREGATED_RESULT)
def hsicagg(X, Y, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """HSICAgg, B1 = B2 = ``n_resamples`` (``aggregated``)."""
    return hsicagg_wild_bootstrap(X, Y, kernel, n_resamples, rng)


@INDEPENDENCE_TESTS.register("block", "normal", cost="linear", dask=True,
                             options=("block_size",),
                             work=lambda N, d, B: 80.0 * N * 100 * (2.0 * d + KERNEL_FLOPS),
                             summary="mean of block HSIC_u (Zhang et al. 2018), normal null;"
                                     " anti-conservative at small n (size 0.096 at n = 100, "
                                     "0.092 at 200: docs/results, hsic-size)")
def hsic_block(X, Y, kernel, *, estimator, n_resamples, rng, block_size) -> Outcome:
    """Block HSIC with the normal null of its shuffled blocks (``large_scale``)."""
    n = X.shape[0]
    size = default_block_size(n) if block_size is None else block_size
    if size < 4 or size > n:
        raise ValueError(f"block_size must be in [4, n = {n}], got {size}")
    observed, shuffled = block_hsic(X, Y, kernel, size, rng)
    count, mean, _ = observed
    null_count, _, null_m2 = shuffled
    if count < 2 or null_m2 <= 0:
        raise ValueError(f"block HSIC has {count} block(s) of {size} pairs: the normal null "
                         "needs at least 2 non-degenerate blocks (use more samples or a "
                         "smaller block_size)")
    scale = float(np.sqrt(null_m2 / (null_count - 1) / count))
    return Outcome(mean, null_dist=stats.norm(0.0, scale),
                   null_params={"scale": scale, "block_size": size, "blocks": int(count)},
                   one_pass=False)


def _feature_outcome(map_x, map_y, X, Y, n_resamples, rng, fitted) -> Outcome:
    statistic, lam, eta, n = feature_hsic(map_x, map_y, X, Y)
    return Outcome(statistic, null_samples=spectral_draws(lam, eta, n, n_resamples, rng),
                   null_params={"eigenvalues_x": lam, "eigenvalues_y": eta},
                   fitted=fitted, one_pass=False)


@INDEPENDENCE_TESTS.register("nystrom", "spectral", cost="linear", dask=True,
                             options=("n_landmarks",),
                             work=lambda N, d, B: 2.0 * N * 200 * (2.0 * d + KERNEL_FLOPS + 400)
                             + 1e8 * 4.0 ** max(d - 2, 0),
                             summary="Nyström HSIC (Zhang et al. 2018), spectral null")
def hsic_nystrom(X, Y, kernel, *, estimator, n_resamples, rng, n_landmarks) -> Outcome:
    """Nyström HSIC on m landmarks of each variable (``large_scale.nystrom_map``)."""
    map_x = nystrom_map(kernel.x, X, n_landmarks, rng)
    map_y = nystrom_map(kernel.y, Y, n_landmarks, rng)
    return _feature_outcome(map_x, map_y, X, Y, n_resamples, rng, {})


@INDEPENDENCE_TESTS.register("rff", "spectral", cost="linear", dask=True,
                             options=("n_features",), needs=Needs.SHIFT_INVARIANT_KERNEL,
                             work=lambda N, d, B: 4.0 * N * 512 * (2.0 * d + 520) + 1.5e9,
                             summary="random-Fourier-feature HSIC (Zhang et al. 2018), spectral")
def hsic_rff(X, Y, kernel, *, estimator, n_resamples, rng, n_features) -> Outcome:
    """RFF HSIC with L frequencies per variable (``large_scale.rff_map``)."""
    return _feature_outcome(rff_map(kernel.x, X, n_features, rng),
                            rff_map(kernel.y, Y, n_features, rng), X, Y, n_resamples, rng, {})


#: Estimator -> the nulls that are valid for it (a live view of the registry).
VALID_INDEPENDENCE_NULLS = NullsByEstimator(INDEPENDENCE_TESTS)


def hsic_test(X, Y, *, kernel_x=None, kernel_y=None, estimator: str = "biased",
              null: str | None = None, n_resamples: int = 1000, alpha: float = 0.05,
              block_size: int | None = None, n_landmarks: int | None = None,
              n_features: int = 128, wild_length: float | None = None,
              min_shift: int | None = None, max_lag: int | None = None,
              superdiagonals: int = 200, rows: str = "check", rng=None, **test_options):
    """Kernel independence test of H0: X and Y are independent, with an HSIC statistic.

    Gretton et al. 2005, 2008; Song et al. 2012; Zhang et al. 2018; Albert et al. 2022.

    Parameters
    ----------
    X : array (n, d_X)
    Y : array (n, d_Y)
        Paired with X row by row (dimensions may differ; a 1-D array is one column). X
        and Y may be dask arrays for the entries marked dask.
    kernel_x, kernel_y : Kernel, optional
        Default: a Gaussian kernel at each variable's median heuristic (``result.kernel``
        shows both). For ``estimator="hsicagg"``: ``KernelCollection`` s (default: the
        authors' 5 bandwidths 2^i × median, i = −2…2, per variable).
    estimator : str
        "biased" (HSIC_b), "unbiased" (HSIC_u), "block", "nystrom", "rff" or "hsicagg".
    null : str, optional
        The estimator's first registered null by default (table below).
    n_resamples : int
        B, permutations or simulated replicates (B1 = B2 = B for HSICAgg).
    alpha : float in (0, 1)
    block_size : int, optional
        Block HSIC's block (default min(⌊√n⌋, 100)). Its normal null is asymptotic in the
        number of blocks (size at α = 0.05 over 1000 draws: 9.6 % at n = 200, 7.0 % at
        1000, 6.2 % at 3000). With ``null="block-permutation"``: the blocks' length b (default
        max(⌈√n⌉, 4τ), τ the rows' autocorrelation time, ``timeseries.blocks``).
    n_landmarks : int, optional
        Nyström HSIC's landmarks per variable (default min(n, 200)).
    n_features : int
        RFF HSIC's frequencies per variable (2L features each).
    wild_length : float, optional
        ℓ of the dependent wild bootstrap's multiplier process (default: from the rows'
        lag-1 autocorrelation, ``kmeviz.timeseries.nulls.wild_length``).
    min_shift, max_lag : int, optional
        The shift nulls' shortest circular shift A (default 5 autocorrelation times, at
        least 10) and the lag search's largest lag K (``estimator="max-lag"``; default
        ⌈log n⌉).
    superdiagonals : int
        R, HSICAggInc's superdiagonals of the ⌊n/2⌋ pairs of rows (200, the authors').
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
        ``kernel`` is the ``KernelPair`` (or pair of collections) used.

    {registered tests}

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(-1, 1, size=(200, 1))
    >>> res = hsic_test(x, x**2 + 0.1 * rng.normal(size=(200, 1)), n_resamples=200, rng=0)
    >>> bool(res.reject), bool(abs(np.corrcoef(x[:, 0], x[:, 0]**2)[0, 1]) < 0.2)
    (True, True)
    """
    INDEPENDENCE_TESTS.get(estimator, null)
    B = check_positive_int(n_resamples, "n_resamples")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
    if block_size is not None:
        block_size = check_positive_int(block_size, "block_size", minimum=4)
    if n_landmarks is not None:
        n_landmarks = check_positive_int(n_landmarks, "n_landmarks")
    options = {"block_size": block_size, "n_landmarks": n_landmarks,
               "n_features": check_positive_int(n_features, "n_features"),
               "wild_length": wild_length, "min_shift": min_shift, "max_lag": max_lag,
               "rows": check_rows(rows), "superdiagonals": checked_superdiagonals(superdiagonals),
               "test_options": test_options}
    X, Y = check_paired(X, Y)
    return checked_hsic_test(X, Y, kernel_x, kernel_y, estimator=estimator, null=null,
                             n_resamples=B, alpha=alpha, rng=rng, options=options)


def checked_hsic_test(X, Y, kernel_x, kernel_y, *, estimator: str, null: str | None,
                      n_resamples: int, alpha: float, rng, options: dict | None = None,
                      test_options: dict | None = None):
    """``hsic_test`` on samples and settings already checked (``check_paired``, which
    returns clean float64 arrays): the step ``compare_independence`` calls for each
    test."""
    spec = INDEPENDENCE_TESTS.get(estimator, null)
    chunked = is_dask_array(X) or is_dask_array(Y)
    if chunked and not spec.dask:
        capable = ", ".join(repr(s.estimator) for s in INDEPENDENCE_TESTS.dask_capable())
        raise TypeError(f"estimator={estimator!r} needs the samples in memory (it is "
                        f"{spec.cost} in n); with dask arrays use estimator= {capable} (or "
                        "pass X.compute() and Y.compute())")
    kernel = checked_independence_kernel(kernel_x, kernel_y, spec, X, Y)
    options = options or defaults_of(hsic_test, ("block_size", "n_landmarks", "n_features",
                                                 "wild_length", "min_shift", "max_lag",
                                                 "superdiagonals"))
    if test_options is not None:
        options = {**options, "test_options": test_options}
    return run_registered(spec, (X, Y), kernel, alpha=alpha, rng=rng, options=options,
                          estimator=estimator, n_resamples=n_resamples)


def checked_independence_kernel(kernel_x, kernel_y, spec, X, Y) -> KernelPair:
    """The kernels of test ``spec``: given and checked, or their defaults."""
    if Needs.KERNEL_COLLECTION in spec.needs:
        if kernel_x is None and kernel_y is None:
            return hsicagg_kernels(X, Y)
        if not (isinstance(kernel_x, KernelCollection)
                and isinstance(kernel_y, KernelCollection)):
            raise TypeError(f"estimator={spec.estimator!r} aggregates a KernelCollection for"
                            " each variable: pass both kernel_x and kernel_y, or neither")
        return KernelPair(kernel_x, kernel_y)
    for kernel, name in ((kernel_x, "kernel_x"), (kernel_y, "kernel_y")):
        if isinstance(kernel, KernelCollection):
            raise TypeError(f"a KernelCollection ({name}) is for the aggregated tests; "
                            f"estimator={spec.estimator!r} takes one kernel per variable")
    pair = checked_kernel_pair(kernel_x, kernel_y, X, Y)
    reason = spec.unmet(X, None, pair)
    if reason:
        raise TypeError(f"estimator={spec.estimator!r} {reason}")
    return pair


INDEPENDENCE_TESTS.document(hsic_test)
