"""Joint independence of d ≥ 2 variables: dHSIC (Pfister, Bühlmann, Schölkopf & Peters
2018) with its permutation and Gamma nulls, the tests of ``dhsic_test``."""

from __future__ import annotations

import numpy as np
from scipy import stats

from .._validation import check_choice, check_in_interval, check_positive_int
from ..chunked import is_dask_array
from ..kernels import check_kernel
from ..registry import JOINT_INDEPENDENCE_TESTS, Outcome
from ..results import run_registered
from ..timeseries.serial import check_rows
from . import dhsic as _dhsic
from .hsic import permutations
from .measures import check_paired, default_variable_kernel


def _grams(variables, kernel) -> list[np.ndarray]:
    return [k.gram(V, V) for k, V in zip(kernel, variables, strict=True)]


@JOINT_INDEPENDENCE_TESTS.register("dhsic", "permutation", cost="quadratic",
                                   summary="dHSIC (Pfister et al. 2018), variables 2..d permuted")
def dhsic_permutation(variables, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """dHSIC_b with its permutation null (``dhsic.permuted_dhsic``)."""
    grams = _grams(variables, kernel)
    n, d = grams[0].shape[0], len(grams)
    perms = np.stack([permutations(n, n_resamples, rng) for _ in range(d - 1)], axis=1)
    return Outcome(_dhsic.dhsic_statistic(grams),
                   null_samples=_dhsic.permuted_dhsic(grams, perms), one_pass=False)


@JOINT_INDEPENDENCE_TESTS.register("dhsic", "gamma", cost="quadratic",
                                   summary="dHSIC, Gamma law of its degenerate limit")
def dhsic_gamma(variables, kernel, *, estimator, n_resamples, rng) -> Outcome:
    """dHSIC_b with the Gamma null (``dhsic.dhsic_gamma_moments``)."""
    grams = _grams(variables, kernel)
    params = _dhsic.dhsic_gamma_moments(grams)
    return Outcome(_dhsic.dhsic_statistic(grams),
                   null_dist=stats.gamma(params["shape"], scale=params["scale"]),
                   null_params=params, one_pass=False)


def dhsic_test(*variables, kernels=None, null: str = "permutation", n_resamples: int = 1000,
               alpha: float = 0.05, rows: str = "check", rng=None):
    """Test H0: the d ≥ 2 variables are jointly independent, with dHSIC (Pfister et al.
    2018).

    Parameters
    ----------
    *variables : arrays (n, d_k)
        Paired row by row (a 1-D array is one column).
    kernels : sequence of Kernel, optional
        One per variable; default Gaussian at each variable's median heuristic.
    null : {"permutation", "gamma"}
    n_resamples : int
    alpha : float in (0, 1)
    rows : {"check", "iid"}
        "check" (default): before an i.i.d. null, check the rows for serial dependence and
        warn (``SerialDependenceWarning``, ``fitted["note"]``) when it is found; "iid":
        the rows are exchangeable (e.g. a sorted sample), do not check.
    rng : Generator, int or None

    Returns
    -------
    TestResult

    {registered tests}

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a, b, e = rng.normal(size=(3, 300, 1))
    >>> c = np.sign(a * b) * np.abs(e)  # independent of a, and of b, but not of both
    >>> bool(dhsic_test(a, b, c, n_resamples=200, rng=0).reject)
    True
    """
    if len(variables) < 2:
        raise ValueError(f"dhsic_test needs at least 2 variables, got {len(variables)}")
    check_choice(null, "null", JOINT_INDEPENDENCE_TESTS.valid_nulls()["dhsic"])
    spec = JOINT_INDEPENDENCE_TESTS.get("dhsic", null)
    B = check_positive_int(n_resamples, "n_resamples")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
    names = [f"variables[{k}]" for k in range(len(variables))]
    checked = check_paired(*variables, names=names)
    if any(is_dask_array(V) for V in checked):
        raise TypeError("dhsic_test needs the variables in memory (it is quadratic in n); "
                        "pass V.compute() for each")
    if kernels is None:
        kernels = [None] * len(checked)
    if len(kernels) != len(checked):
        raise ValueError(f"kernels must have one kernel per variable ({len(checked)}), got "
                         f"{len(kernels)}")
    chosen = tuple(default_variable_kernel(V, name) if k is None
                   else check_kernel(k, f"kernels[{i}]")
                   for i, (k, V, name) in enumerate(zip(kernels, checked, names, strict=True)))
    return run_registered(spec, (tuple(checked),), chosen, alpha=alpha, rng=rng,
                          options={"rows": check_rows(rows)}, estimator="dhsic",
                          n_resamples=B)



JOINT_INDEPENDENCE_TESTS.document(dhsic_test)
