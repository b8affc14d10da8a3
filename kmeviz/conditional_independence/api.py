"""``ci_test``: the public conditional independence test, its input checks and defaults."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .._validation import check_in_interval, check_positive, check_positive_int, check_rng
from ..chunked import is_dask_array
from ..conditional.cme import cross_validate
from ..independence.measures import check_paired
from ..independence.tests import hsic_test
from ..kernels import GaussianKernel, check_kernel
from ..registry import CONDITIONAL_TESTS
from ..results import run_registered
from ..timeseries.serial import check_rows
from .kci import DEFAULT_EPSILON, KernelTriple, augmented
from .tests import rcot_kernels  # importing it registers the tests

#: ``ci_test(..., Z=None)`` runs this unconditional test of ``hsic_test`` per estimator.
UNCONDITIONAL = {"kci": ("biased", "gamma"), "nystrom": ("nystrom", "spectral"),
                 "rcit": ("rff", "spectral"), "rcot": ("rff", "spectral")}
#: The ridges λ (ε = nλ) that ``epsilon="cv"`` tries by the CME's cross-validation.
CV_REGS = tuple(10.0 ** np.arange(-7, 0))
#: The options of ``ci_test`` that a registered test may read.
OPTIONS = ("epsilon", "eigen_threshold", "n_landmarks", "n_features")


def standardised(V, name: str):
    """V z-scored column by column (``ddof=1``, as the authors' codes), numpy or dask; a
    constant column is a ValueError naming it."""
    if is_dask_array(V):
        import dask

        mean, std = dask.compute(V.mean(axis=0), V.std(axis=0, ddof=1))
    else:
        mean, std = V.mean(axis=0), V.std(axis=0, ddof=1)
    constant = np.flatnonzero(~(std > 1e-12 * np.maximum(1.0, np.abs(mean))))
    if constant.size:
        which = f"column {constant[0]} of {name}" if V.shape[1] > 1 else name
        raise ValueError(f"{which} is constant: it carries no information (a constant is "
                         f"independent of everything given anything); drop it")
    return (V - mean) / std


def check_conditioning(X, Y, Z):
    """Z's size against n, and the three samples z-scored (``standardised``)."""
    n, d_z = Z.shape
    if 2 * d_z > n:
        raise ValueError(f"Z has {d_z} columns and only {n} rows: a regression on Z needs "
                         f"at least 2 rows per column of Z (n ≥ {2 * d_z}); use fewer "
                         "conditioning columns or more rows")
    return tuple(standardised(V, name) for V, name in ((X, "X"), (Y, "Y"), (Z, "Z")))


def check_in_memory(spec, *samples) -> None:
    """TypeError when a dask sample meets a test that needs the samples in memory."""
    if any(is_dask_array(V) for V in samples) and not spec.dask:
        capable = ", ".join(repr(s.estimator) for s in CONDITIONAL_TESTS.dask_capable())
        raise TypeError(f"estimator={spec.estimator!r} needs the samples in memory (it is "
                        f"{spec.cost} in n); with dask arrays use estimator= {capable}")


def checked_epsilon(epsilon):
    """ε > 0, a pair (ε_X, ε_Y), or "cv"."""
    if isinstance(epsilon, str):
        if epsilon != "cv":
            raise ValueError(f"epsilon must be a number > 0, a pair of them or 'cv', got "
                             f"{epsilon!r}")
        return epsilon
    if np.ndim(epsilon) == 1 and len(epsilon) == 2:
        return tuple(check_positive(e, "epsilon") for e in epsilon)
    eps = check_positive(epsilon, "epsilon")
    return (eps, eps)


def conditional_kernels(kernel_x, kernel_y, kernel_z, spec, X, Y, Z) -> KernelTriple:
    """The given kernels (checked) or the defaults of ``spec`` (its registry entry's
    ``default_kernel(X, Y, Z)``: the authors' empirical Gaussian widths for KCI and
    Nyström KCI, the median heuristic of each (z-scored) variable for RCIT/RCoT, and
    RCoT's for a test that declares none)."""
    defaults = (spec.default_kernel or rcot_kernels)(X, Y, Z)
    given = (kernel_x, kernel_y, kernel_z)
    triple = KernelTriple(*(d if k is None else check_kernel(k, f"kernel_{v}")
                            for k, d, v in zip(given, (defaults.x, defaults.y, defaults.z),
                                               "xyz", strict=True)))
    reason = spec.unmet(X, None, triple)
    if reason:
        raise TypeError(f"estimator={spec.estimator!r} {reason}")
    return triple


def cross_validated_epsilon(X, Y, Z, kernels: KernelTriple, rng) -> tuple[float, float]:
    """(ε_X, ε_Y) = n λ*, λ* the ridge of the CME of Ẍ (and of Y) given Z with the least
    held-out surrogate loss (``kmeviz.conditional.cross_validate``, 5 folds, λ in
    ``CV_REGS``, Z's kernel bandwidth fixed)."""
    if not isinstance(kernels.z, GaussianKernel):
        raise TypeError(f"epsilon='cv' cross-validates the CME with a Gaussian kernel on Z; "
                        f"got kernel_z={kernels.z!r}")
    n = X.shape[0]
    out = []
    for V, kernel in ((augmented(X, Z), kernels.x), (Y, kernels.y)):
        _, best = cross_validate(Z, V, regs=CV_REGS, bandwidths=[kernels.z.bandwidth],
                                 kernel_y=kernel, rng=rng)
        out.append(n * best["reg"])
    return tuple(out)


def ci_test(X, Y, Z=None, *, kernel_x=None, kernel_y=None, kernel_z=None,
            estimator: str = "kci", null: str | None = None, epsilon=DEFAULT_EPSILON,
            eigen_threshold: float | None = None, n_resamples: int = 1000,
            alpha: float = 0.05, n_landmarks: tuple | None = None,
            n_features: tuple | None = None, rows: str = "check", rng=None,
            **test_options):
    """Kernel test of H0: X ⫫ Y | Z (X and Y are independent given Z).

    Zhang, Peters, Janzing & Schölkopf 2011 (KCI); Strobl, Zhang & Visweswaran 2019
    (RCIT, RCoT). Each column is z-scored first; KCI regresses the kernel features of
    Ẍ = (X, Z/2) and of Y on Z by kernel ridge regression (the conditional mean embedding
    of ``kmeviz.conditional``) and tests the residuals' cross-covariance.

    Parameters
    ----------
    X : array (n, d_X)
    Y : array (n, d_Y)
    Z : array (n, d_Z) or None
        Paired row by row (a 1-D array is one column). ``Z=None`` runs the unconditional
        ``hsic_test`` (``UNCONDITIONAL``) and says so in ``result.fitted["note"]``. dask
        arrays are accepted by the entries marked dask.
    kernel_x, kernel_y, kernel_z : Kernel, optional
        On Ẍ = (X, Z/2) (KCI, Nyström; X for RCIT/RCoT), on Y (Ÿ = (Y, Z) for RCIT) and on
        Z, all z-scored. Default: KCI and Nyström, the authors' Gaussian of width
        w(n)·√d_Z (w = 1.2, 0.7, 0.4 for n < 200, < 1200, beyond); RCIT and RCoT, the
        median heuristic of each variable.
    estimator : {"kci", "nystrom", "rcit", "rcot"}
    null : str, optional
        The estimator's first registered null by default (table below).
    epsilon : float, (float, float) or "cv"
        ε of the residual operator R_Z = ε(K̃_Z + εI)⁻¹ (KCI, Nyström): the authors' 10⁻³ by
        default; a pair sets (ε_X, ε_Y); ``"cv"`` picks each as nλ by the CME's
        cross-validation of λ (``kmeviz.conditional.cross_validate``). Too small an ε
        leaves residuals of noise only (power lost); too large an ε does not remove Z
        (the level breaks): notebook 11 measures both.
    eigen_threshold : float, optional
        Drop the eigen-components of K̃_{Ẍ|Z} and K̃_{Y|Z} below this fraction of the
        largest before the null, as the authors' code does with 1e-5 (causal-learn's
        p-values are reproduced with ``eigen_threshold=1e-5``). Default None: the exact
        moments, no eigendecomposition.
    n_resamples : int
        Draws of a simulated (spectral) null.
    alpha : float in (0, 1)
    n_landmarks : (int, int), optional
        Nyström landmarks for (Ẍ and Y, Z); default (30, 100).
    n_features : (int, int), optional
        RCIT/RCoT frequencies for (X and Y, Z), each giving a cos and a sin feature;
        default (3, 50).
    rows : {"check", "iid"}
        "check" (default): before an i.i.d. null, check the rows for serial dependence and
        warn (``SerialDependenceWarning``, ``fitted["note"]``) when it is found; "iid":
        the rows are exchangeable (e.g. a sorted sample), do not check.
    rng : Generator, int or None
    **test_options
        Options of the chosen test alone (``TestOption`` entries of its registration, the
        "options" of ``CONDITIONAL_TESTS``); a TypeError names them for any other keyword.

    Returns
    -------
    TestResult
        ``kernel`` is the ``KernelTriple``; ``fitted["epsilon"]`` the (ε_X, ε_Y) used.

    {registered tests}

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(400, 1))
    >>> x, y = np.sin(z) + 0.3 * rng.normal(size=z.shape), z**2 + 0.3 * rng.normal(size=z.shape)
    >>> bool(ci_test(x, y).reject), bool(ci_test(x, y, z).reject)  # a fork X ← Z → Y
    (True, False)
    """
    spec = CONDITIONAL_TESTS.get(estimator, null)
    B = check_positive_int(n_resamples, "n_resamples")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
    options = {"epsilon": checked_epsilon(epsilon), "n_landmarks": _pair(n_landmarks,
               "n_landmarks"), "n_features": _pair(n_features, "n_features"),
               "eigen_threshold": None if eigen_threshold is None else check_in_interval(
                   eigen_threshold, "eigen_threshold", 0.0, 1.0),
               "rows": check_rows(rows), "test_options": test_options}
    if Z is None:
        return _unconditional(X, Y, kernel_x, kernel_y, spec, B, alpha, rng, rows)
    X, Y, Z = check_paired(X, Y, Z, names=("X", "Y", "Z"))
    check_in_memory(spec, X, Y, Z)  # before the z-scoring pass over a dask sample
    X, Y, Z = check_conditioning(X, Y, Z)
    return checked_ci_test(X, Y, Z, kernel_x, kernel_y, kernel_z, spec=spec,
                           n_resamples=B, alpha=alpha, rng=rng, options=options)


def _pair(value, name):
    if value is None:
        return None
    if np.ndim(value) != 1 or len(value) != 2:
        raise ValueError(f"{name} must be a pair (for X and Y, for Z), got {value!r}")
    return tuple(check_positive_int(v, name) for v in value)


def checked_ci_test(X, Y, Z, kernel_x, kernel_y, kernel_z, *, spec, n_resamples, alpha,
                    rng, options):
    """``ci_test`` on samples checked and z-scored (``check_paired``, then
    ``check_conditioning``; the step ``compare_ci`` calls for each test): chooses the
    kernels and ε, and runs ``spec``."""
    check_in_memory(spec, X, Y, Z)
    kernels = conditional_kernels(kernel_x, kernel_y, kernel_z, spec, X, Y, Z)
    rng = check_rng(rng)
    if options["epsilon"] == "cv":
        if is_dask_array(X):
            raise TypeError("epsilon='cv' needs the samples in memory; pass a number")
        options = {**options, "epsilon": cross_validated_epsilon(X, Y, Z, kernels, rng)}
    return run_registered(spec, (X, Y, Z), kernels, alpha=alpha, rng=rng, options=options,
                          estimator=spec.estimator, n_resamples=n_resamples)


def _unconditional(X, Y, kernel_x, kernel_y, spec, B, alpha, rng, rows):
    estimator, null = UNCONDITIONAL[spec.estimator]
    result = hsic_test(X, Y, kernel_x=kernel_x, kernel_y=kernel_y, estimator=estimator,
                       null=null, n_resamples=B, alpha=alpha, rng=rng, rows=rows)
    note = (f"Z is None: the unconditional test hsic_test(estimator={estimator!r}, "
            f"null={null!r}) was run")
    return replace(result, fitted={**result.fitted, "note": note})


CONDITIONAL_TESTS.document(ci_test)
