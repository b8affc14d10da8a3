"""Goodness-of-fit tests H0: Q = P from a sample of Q and the score of P (``ksd_test``).

Each estimator is one entry of the test registry (``kmeviz.registry.GOF_TESTS``),
registered below on the function computing it (Kalinke et al. Sec. 4–5):

- ``"full"``: V-statistic KSD² (Eq. 5) with the wild bootstrap (Eq. 9) — all D replicates
  wᵀ H w / n² come from one streamed pass H W over the Stein Gram, O(D n²) flops in
  matrix products, O(nD + tile) memory.
- ``"nystrom"``: Nyström KSD² (Eq. 8) with the Nyström bootstrap (Eq. 11) computed as
  ||R K_mn w||² / n² for all D sign vectors at once: O(m³ + D n m), never O(D n²).
- ``"linear"``: the linear-time KSD of Liu et al. (2016), mean of h_p over disjoint pairs,
  with its asymptotic normal null.
- ``"fssd"``: FSSD with random test locations (Jitkrittum et al. 2017), U-statistic with
  the simulated null Σ ω_k (Z_k² - 1) / n; ``"fssd-opt"``: locations and Gaussian
  bandwidth chosen on 20 % of the sample by the power criterion, tested on the rest
  (``kmeviz.gof.fssd``).
- ``"rff"``, ``"l1-imq"`` and ``"l2-sechexp"``: random feature Stein discrepancies of
  Huggins & Mackey (2018) — RFF-KSD from a shift-invariant kernel's frequencies (Gauss or
  Cauchy RFF), L1 IMQ from an IMQ kernel, and L2 SechExp from a sech kernel it scales to
  the sample (``kmeviz.gof.features``) — with a simulated normal null.

Bootstrap signs follow the Markov chain of Eq. (10) (flip with probability 1/2), or are
i.i.d. Rademacher (``wild="rademacher"``). p-values are (1 + #{null ≥ stat}) / (1 + D).
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    check_choice,
    check_in_interval,
    check_positive_int,
    check_samples,
)
from ..budget import check_memory
from ..chunked import check_any_samples, check_chunked_samples, is_dask_array
from ..incomplete import checked_superdiagonals
from ..kernels import SteinKernel, checked_score, prepared_rows
from ..kernels.collection import KernelCollection
from ..kernels.defaults import default_gof_kernel
from ..kernels.engine import single_threaded_blas
from ..needs import Needs
from ..registry import GOF_TESTS, Outcome
from ..results import TestResult, defaults_of, normal_outcome, run_registered
from ..timeseries.serial import check_rows
from .features import NULL_COVARIANCES, l1_imq_ksd, l2_sechexp_ksd, rff_ksd
from .fssd import fssd_opt, fssd_rand
from .ksd import default_stein_landmarks, nystrom_stein
from .wild import (  # noqa: F401 - WildSigns and wild_signs are also imported from here
    SIGN_BLOCK_BYTES,
    WILD,
    WildSigns,
    full_wild_bootstrap,
    projected_squares,
    wild_sign_matrix,
    wild_signs,
)


def linear_ksd_terms(stein: SteinKernel, prepared) -> np.ndarray:
    """h_p(x_{2i-1}, x_{2i}) over disjoint consecutive pairs (Liu et al. 2016, Sec. 4)."""
    half = prepared[0].shape[0] // 2
    return stein.paired_prepared(prepared_rows(prepared, slice(0, 2 * half, 2)),
                                 prepared_rows(prepared, slice(1, 2 * half, 2)))


# -- the registered tests: one function per estimator, see kmeviz.registry --------------
@GOF_TESTS.register("full", "wild-bootstrap", cost="quadratic", options=("wild",),
                    needs=Needs.KERNEL_DERIVATIVES,
                    summary="V-statistic KSD² (Eq. 5), wild bootstrap (Eq. 9) in one pass")
def full_ksd(X, target, kernel, *, n_resamples, rng, wild) -> Outcome:
    """V-statistic KSD² and its wild bootstrap, D replicates in one pass over the Stein Gram."""
    stein = SteinKernel(kernel, target)
    prepared = stein.prepare(check_samples(X, "X", min_samples=2))
    n = prepared[0].shape[0]
    check_memory(n * n_resamples + 2 * SIGN_BLOCK_BYTES, "the full KSD test",
                 "n_resamples (D, the bootstrap replicates) or n")
    W = wild_sign_matrix(n, n_resamples, rng, scheme=wild)
    with single_threaded_blas():  # the pass runs in the engine's threads
        statistic, null_samples = full_wild_bootstrap(stein, prepared, W)
    return Outcome(statistic, null_samples=null_samples)


@GOF_TESTS.register("nystrom", "nystrom-bootstrap", cost="linear", dask=True,
                    options=("wild", "n_landmarks", "landmarks"), needs=Needs.KERNEL_DERIVATIVES,
                    summary="Nyström KSD² (Eq. 8), Nyström bootstrap (Eq. 11), O(nm + m³)")
def nystrom_ksd(X, target, kernel, *, n_resamples, rng, wild, n_landmarks,
                landmarks) -> Outcome:
    """Nyström KSD² with the Nyström bootstrap ||R K_mn w||² / n², the signs consumed in the
    same pass as β (``nystrom_stein(..., project=signs)``)."""
    if is_dask_array(X):
        X = check_chunked_samples(X, "X", min_samples=2)
    else:
        X = check_samples(X, "X", min_samples=2)
    n = X.shape[0]
    m = len(landmarks) if landmarks is not None else (
        default_stein_landmarks(n) if n_landmarks is None else n_landmarks)
    # measured (tracemalloc, n = 5000, d = 2, two threads): 183–452 MB for m = 2000 and
    # B = 1000–5000, 190–291 MB for B = 5000 and m = 500–1000: the m × m Stein Gram and
    # its factor, K_mn W summed over blocks, and the engine's tiles
    check_memory(48.0 * m * n_resamples + 56.0 * m * m + 64 * 1024**2,
                 "the Nyström KSD test",
                 "n_resamples (D, the bootstrap replicates) or n_landmarks (m)")
    signs = WildSigns(n_resamples, rng, scheme=wild)  # consumed block by block in the pass
    with single_threaded_blas():  # the pass runs in the engine's threads
        nys = nystrom_stein(X, target, kernel, n_landmarks=n_landmarks, landmarks=landmarks,
                            rng=rng, project=signs)
        null_samples = projected_squares(nys.factor_, nys.projected_) / n**2
    nys.projected_ = None  # an m × D matrix the result need not keep (76 MB at 2000 × 5000)
    return Outcome(nys.squared_norm(), null_samples=null_samples,
                   fitted={"landmarks": nys.landmark_indices_, "weights": nys.weights_,
                           "embedding": nys})


@GOF_TESTS.register("linear", "normal", cost="linear", needs=Needs.KERNEL_DERIVATIVES,
                    summary="linear-time KSD (Liu et al. 2016), normal null")
def linear_ksd(X, target, kernel, *, n_resamples, rng) -> Outcome:
    """Mean of h_p over disjoint pairs with its asymptotic normal null."""
    stein = SteinKernel(kernel, target)
    prepared = stein.prepare(check_samples(X, "X", min_samples=2))
    return normal_outcome(linear_ksd_terms(stein, prepared), "linear")


def _feature_test(run, X, target, kernel, n_locations, n_resamples, rng,
                  null_covariance=None) -> Outcome:
    X = check_samples(X, "X", min_samples=2)
    extra = {} if null_covariance is None else _target_for_null(target, null_covariance)
    statistic, null_samples, *fitted = run(X, checked_score(target, X), kernel, n_locations,
                                           n_resamples, rng, **extra)
    return Outcome(statistic, null_samples=null_samples, fitted=fitted[0] if fitted else {})


@GOF_TESTS.register("fssd", "chi-square-mixture", cost="linear", options=("n_locations",),
                    needs=Needs.KERNEL_DERIVATIVES,
                    summary="FSSD, J random locations (Jitkrittum et al. 2017)")
def fssd_random(X, target, kernel, *, n_resamples, rng, n_locations) -> Outcome:
    """FSSD with random test locations and its simulated Σ ω_k (Z_k² - 1) / n null."""
    return _feature_test(fssd_rand, X, target, kernel, n_locations, n_resamples, rng)


@GOF_TESTS.register("fssd-opt", "chi-square-mixture", cost="linear", options=("n_locations",),
                    needs=Needs.GAUSSIAN_KERNEL,
                    summary="FSSD, locations and bandwidth optimised on 20 % of the sample")
def fssd_optimised(X, target, kernel, *, n_resamples, rng, n_locations) -> Outcome:
    """FSSD-opt: locations and Gaussian bandwidth chosen by the power criterion."""
    return _feature_test(fssd_opt, X, target, kernel, n_locations, n_resamples, rng)


def _target_for_null(target, null_covariance):
    check_choice(null_covariance, "null_covariance", NULL_COVARIANCES)
    if null_covariance != "target":
        return {}
    if not callable(getattr(target, "sample", None)):
        raise TypeError("null_covariance='target' needs a target with a sample(n, rng=) "
                        "method; use null_covariance='sample'")
    return {"target": target}


@GOF_TESTS.register("rff", "feature-normal", cost="linear",
                    options=("n_locations", "null_covariance"),
                    needs=Needs.SHIFT_INVARIANT_KERNEL,
                    summary="RFF-KSD of a shift-invariant kernel (Huggins & Mackey 2018)")
def rff_test(X, target, kernel, *, n_resamples, rng, n_locations, null_covariance) -> Outcome:
    """Random feature Stein discrepancy from a kernel's frequencies, simulated normal null."""
    return _feature_test(rff_ksd, X, target, kernel, n_locations, n_resamples, rng,
                         null_covariance)


@GOF_TESTS.register("l1-imq", "feature-normal", cost="linear",
                    options=("n_locations", "null_covariance"), needs=Needs.L1_IMQ_BASE,
                    summary="L1 IMQ random feature Stein discrepancy (Huggins & Mackey 2018)")
def l1_imq_test(X, target, kernel, *, n_resamples, rng, n_locations,
                null_covariance) -> Outcome:
    """L1 IMQ random feature Stein discrepancy, simulated normal null."""
    return _feature_test(l1_imq_ksd, X, target, kernel, n_locations, n_resamples, rng,
                         null_covariance)


@GOF_TESTS.register("l2-sechexp", "feature-normal", cost="linear",
                    options=("n_locations", "null_covariance"), needs=Needs.OWN_KERNEL,
                    summary="L2 SechExp random feature Stein discrepancy (Huggins & Mackey "
                            "2018)")
def l2_sechexp_test(X, target, kernel, *, n_resamples, rng, n_locations,
                    null_covariance) -> Outcome:
    """L2 SechExp random feature Stein discrepancy (its kernel from the sample), simulated
    normal null."""
    return _feature_test(l2_sechexp_ksd, X, target, kernel, n_locations, n_resamples, rng,
                         null_covariance)


#: The estimators of ``ksd_test``, in registry order.
ESTIMATORS = GOF_TESTS.estimators


def ksd_test(X, target, kernel=None, *, estimator: str = "full", n_resamples: int = 500,
             n_landmarks=None, landmarks=None, alpha: float = 0.05, wild: str = "markov",
             n_locations: int = 10, null_covariance: str = "sample",
             null: str | None = None, wild_length: float | None = None,
             superdiagonals: int = 200, rows: str = "check", rng=None,
             **test_options) -> TestResult:
    """Test H0: the sample X comes from ``target`` (known through ``target.score``).

    Parameters
    ----------
    X : array (n, d)
        A dask array (``kmeviz.chunked``) for ``estimator="nystrom"``.
    target : object with ``score(X)``, the gradient of log p, shape (n, d)
    kernel : Kernel, optional
        Default: ``IMQKernel(c=1, beta=-0.5)`` (Gorham & Mackey 2017's choice; see
        ``kmeviz.kernels.defaults``), for fssd-opt ``GaussianKernel`` at the median
        heuristic of X, and for l1-imq ``IMQKernel(c=4 × median)``, Huggins & Mackey's
        (``result.kernel`` shows it). Otherwise the base kernel: a
        RadialKernel for the Stein kernel (full, nystrom, linear, fssd), a GaussianKernel
        for fssd-opt (its bandwidth is the start), a ShiftInvariantKernel for rff
        (GaussianKernel: Gauss RFF, CauchyKernel: Cauchy RFF), an IMQKernel for l1-imq
        (its c is the construction's c: c' = (1 - γ/6) c/2 and β' follow, so pass the base
        kernel, not ``l1_imq_kernel(X)``, which is already c', β');
        None for l2-sechexp, which builds its kernel from the sample.
    estimator : str
        The statistic, one of the registered estimators (``kmeviz.registry.GOF_TESTS``,
        table below); each has one null.
    n_resamples : int
        D, the number of bootstrap (or simulated) null replicates (default 500; scipy.stats'
        name).
    n_landmarks, landmarks : int, array of int, optional
        The Nyström sample: m (default 4√n) or indices into X.
    alpha : float in (0, 1)
    wild : {"markov", "rademacher"}
        The bootstrap signs.
    n_locations : int
        J: the FSSD test locations or the random features (default 10, the paper's J).
    null_covariance : {"sample", "target"}
        For rff, l1-imq and l2-sechexp: the covariance of the features that the simulated
        null uses, from X or from draws of ``target.sample`` (Huggins & Mackey's choice:
        5000 + 500d, 5000 for l2-sechexp; L1 IMQ needs it to hold its level).
    null : str, optional
        The estimator's first registered null by default; ``"dependent-wild-bootstrap"``
        (``estimator="full"``) for a Markov chain's output: signs that flip with
        probability (1 − e^{−1/ℓ})/2 (Chwialkowski et al. 2016).
    wild_length : float, optional
        That ℓ (default: from the rows' lag-1 autocorrelation).
    superdiagonals : int
        R of ``estimator="ksdagginc"``: the superdiagonals of its incomplete U-statistic
        (default 200, the authors').
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
        ``estimator`` as given and its registered ``null``; fssd-opt's ``fitted`` holds the
        chosen ``locations``, ``bandwidth`` and the ``train``/``test`` indices; a Nyström
        test's ``fitted`` holds its ``landmarks``, the ``weights`` α = K_mm⁻β (for
        ``stein_witness``) and the fitted ``embedding`` (a ``NystromKME`` of the Stein
        kernel; ``evaluate`` is the witness).

    {registered tests}

    Examples
    --------
    >>> import numpy as np
    >>> from kmeviz import IMQKernel, NormalTarget
    >>> X = np.random.default_rng(1).laplace(scale=1 / np.sqrt(2), size=(1000, 2))
    >>> res = ksd_test(X, NormalTarget(np.zeros(2)), IMQKernel(), estimator="nystrom", rng=0)
    >>> bool(res.reject)
    True
    """
    GOF_TESTS.get(estimator, null)  # a ValueError naming the choices, before the data
    X = check_any_samples(X, "X", min_samples=2)
    check_choice(wild, "wild", WILD)
    D = check_positive_int(n_resamples, "n_resamples")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
    options = {"wild": wild, "n_landmarks": n_landmarks, "landmarks": landmarks,
               "n_locations": n_locations, "null_covariance": null_covariance,
               "wild_length": wild_length, "rows": check_rows(rows),
               "superdiagonals": checked_superdiagonals(superdiagonals),
               "test_options": test_options}
    return checked_ksd_test(X, target, kernel, estimator=estimator, n_resamples=D,
                            alpha=alpha, rng=rng, options=options, null=null)


def checked_ksd_test(X, target, kernel, *, estimator: str, n_resamples: int, alpha: float,
                     rng, options: dict | None = None, null: str | None = None,
                     test_options: dict | None = None) -> TestResult:
    """``ksd_test`` on a sample and settings already checked (``check_any_samples``,
    ``n_resamples``, ``alpha``, ``wild``): the step below the public entry points, which
    validate once (``compare_gof`` calls it for each of its tests)."""
    spec = GOF_TESTS.get(estimator, null)
    if is_dask_array(X) and not spec.dask:
        capable = " or ".join(f"ksd_test(estimator={s.estimator!r})"
                              for s in GOF_TESTS.dask_capable())
        reason = ("is exact and quadratic in n, so it" if spec.cost != "linear"
                  else "is not written for chunks yet and")
        raise TypeError(f"X is a dask array, but ksd_test(estimator={estimator!r}) {reason} "
                        f"needs the sample in memory. For data that does not fit, use "
                        f"{capable} or ksd2_nystrom; for data that does, pass X.compute().")
    if kernel is None:
        kernel = default_gof_kernel(X, spec.needs)
    elif (Needs.KERNEL_COLLECTION in spec.needs) != isinstance(kernel, KernelCollection):
        raise TypeError(f"ksd_test(estimator={estimator!r}) takes "
                        + ("a KernelCollection (default kmeviz.ksdagg_kernels(X))"
                           if Needs.KERNEL_COLLECTION in spec.needs else
                           "one base kernel (a KernelCollection is for estimator='ksdagg')")
                        + f", got {kernel!r}")
    unmet = spec.unmet(X, kernel=kernel)
    if unmet:
        raise TypeError(f"ksd_test(estimator={estimator!r}) {unmet}")
    options = options or defaults_of(ksd_test, ("wild", "n_landmarks", "landmarks",
                                                "n_locations", "null_covariance",
                                                "wild_length", "superdiagonals"))
    if test_options is not None:
        options = {**options, "test_options": test_options}
    return run_registered(spec, (X, target), kernel, alpha=alpha, rng=rng, options=options,
                          n_resamples=n_resamples)


