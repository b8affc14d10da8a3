"""``compare_ci``: every registered conditional independence test on one sample, in one
call, with the budget, notes and progress of ``compare_tests``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from .._validation import check_in_interval, check_positive_int, check_rng
from ..chunked import is_dask_array
from ..compare import _compare
from ..independence.compare import pearson_r
from ..independence.measures import check_paired
from ..registry import CONDITIONAL_TESTS
from ..timeseries.serial import check_rows
from .api import DEFAULT_EPSILON, check_conditioning, checked_ci_test, checked_epsilon
from .effect import conditional_effect_size


def compare_ci(X, Y, Z, *, tests="all", epsilon=DEFAULT_EPSILON, alpha: float = 0.05,
               time_budget: float = 10.0, n_resamples: int = 1000, rng=None,
               progress: Callable | None = None, rows: str = "check",
               test_options: dict | None = None) -> pd.DataFrame:
    """Run every registered conditional independence test (``CONDITIONAL_TESTS``) of
    H0: X ⫫ Y | Z, cheapest first within ``time_budget`` seconds; as ``compare_tests``.

    Parameters
    ----------
    X : array (n, d_X)
    Y : array (n, d_Y)
    Z : array (n, d_Z)
        Paired row by row.
    tests, alpha, time_budget, n_resamples, rng, progress, test_options : as
        ``compare_tests``
    rows : {"check", "iid"}
        As ``compare_tests`` (no conditional test for time series is registered yet:
        "time series" is refused).
    epsilon : float, pair or "cv"
        As ``ci_test`` (KCI and Nyström KCI).

    Returns
    -------
    pandas.DataFrame
        One row per test, the columns of ``compare_tests``; ``attrs["effect_size"]`` the
        normalised HSIC of the residuals given Z (``conditional_effect_size``; None with
        ``epsilon="cv"`` or dask arrays); ``attrs["pearson_r"]`` is
        Pearson's correlation of the first columns of X and Y (the marginal, linear
        dependence).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(300, 1))
    >>> x, y = z + 0.5 * rng.normal(size=z.shape), z + 0.5 * rng.normal(size=z.shape)
    >>> table = compare_ci(x, y, z, rng=0)
    >>> bool(table["reject"].any()), table.attrs["pearson_r"] > 0.5
    (False, True)

    (Implements no paper equation: it runs the registered tests of ``ci_test``.)
    """
    # checked and z-scored once (a constant column or too wide a Z: one message, up front)
    if check_rows(rows) == "time series":
        raise ValueError("rows='time series': no conditional-independence test for time "
                         "series is registered yet; use rows='check' (the table then says "
                         "whether the rows are serially dependent) or test independence "
                         "with compare_independence(..., rows='time series')")
    X, Y, Z = check_conditioning(*check_paired(X, Y, Z, names=("X", "Y", "Z")))
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
    options = {"epsilon": checked_epsilon(epsilon), "n_landmarks": None, "n_features": None,
               "eigen_threshold": None}

    def run(spec, rng, own):
        return checked_ci_test(X, Y, Z, None, None, None, spec=spec, n_resamples=n_resamples,
                               alpha=alpha, rng=rng, options={**options, "test_options": own})

    def how(spec):
        return f"kmeviz.ci_test(X, Y, Z, estimator={spec.estimator!r}, null={spec.null!r})"

    seed = rng if isinstance(rng, (int, np.integer)) else None
    rng = check_rng(rng)
    table = _compare(CONDITIONAL_TESTS, tests, run, lambda spec: None, how, X.shape[0],
                     X.shape[1] + Y.shape[1] + Z.shape[1], n_resamples, alpha, time_budget,
                     rng, progress, {"n": X.shape[0]}, rows=rows,
                     samples={"X": X, "Y": Y, "Z": Z}, test_options=test_options)
    table.attrs["pearson_r"] = pearson_r(X, Y)
    # drawn after the tests' seeds, so that no row changes with it
    effect_rng = np.random.default_rng(rng.integers(2**63, size=2))
    eps = options["epsilon"]
    table.attrs["effect_size"] = (None if isinstance(eps, str) or any(
        is_dask_array(V) for V in (X, Y, Z)) else
        conditional_effect_size(X, Y, Z, epsilon=eps, rng=effect_rng))
    table.attrs["seed"] = seed
    return table
