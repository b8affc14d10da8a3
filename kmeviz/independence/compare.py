"""``compare_independence``: every registered independence test on one paired sample, in
one call, with the budget, notes and progress of ``compare_tests``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from .._validation import check_in_interval, check_positive_int, check_rng
from ..chunked import is_dask_array
from ..compare import _compare
from ..registry import INDEPENDENCE_TESTS
from .effect import dependence_effect_size
from .measures import check_paired, checked_kernel_pair
from .tests import checked_hsic_test


def compare_independence(X, Y, *, kernel_x=None, kernel_y=None, tests="all",
                         alpha: float = 0.05, time_budget: float = 10.0,
                         n_resamples: int = 1000, rng=None,
                         progress: Callable | None = None,
                         rows: str = "check", test_options: dict | None = None
                         ) -> pd.DataFrame:
    """Run every registered independence test (``INDEPENDENCE_TESTS``) of H0: X and Y are
    independent, cheapest first within ``time_budget`` seconds; as ``compare_tests``.

    Parameters
    ----------
    X : array (n, d_X)
    Y : array (n, d_Y)
        Paired row by row.
    kernel_x, kernel_y : Kernel, optional
        Default: Gaussian at each variable's median heuristic, the same pair for every
        single-kernel test (HSICAgg uses its own collection and its note says so).
    tests, alpha, time_budget, n_resamples, rng, progress, rows, test_options : as
        ``compare_tests``
        (``rows="time series"``: the dependent wild bootstrap and the shift tests)

    Returns
    -------
    pandas.DataFrame
        One row per test, the columns of ``compare_tests``; ``attrs["kernel"]`` is the
        ``KernelPair``, ``attrs["effect_size"]`` the normalised HSIC with its interval
        (``dependence_effect_size``; None for dask arrays) and ``attrs["pearson_r"]``
        Pearson's correlation of the first columns (the linear dependence HSIC goes
        beyond).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(-1, 1, size=(300, 1))
    >>> table = compare_independence(x, x**2, rng=0)
    >>> bool(table["reject"].all()), abs(table.attrs["pearson_r"]) < 0.2
    (True, True)

    (Implements no paper equation: it runs the registered tests of ``hsic_test``.)
    """
    X, Y = check_paired(X, Y)  # checked once: the tests take them as they are
    kernels = checked_kernel_pair(kernel_x, kernel_y, X, Y)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)

    def run(spec, rng, options):
        own = spec.needs.builds_own_kernel
        return checked_hsic_test(X, Y, None if own else kernels.x, None if own else kernels.y,
                                 estimator=spec.estimator, null=spec.null,
                                 n_resamples=n_resamples, alpha=alpha, rng=rng,
                                 test_options=options)

    def how(spec):
        return (f"kmeviz.hsic_test(X, Y, estimator={spec.estimator!r}, "
                f"null={spec.null!r})")

    seed = rng if isinstance(rng, (int, np.integer)) else None
    rng = check_rng(rng)
    table = _compare(INDEPENDENCE_TESTS, tests, run,
                     lambda spec: spec.unmet(X, None, kernels), how, X.shape[0],
                     X.shape[1] + Y.shape[1], n_resamples, alpha, time_budget, rng, progress,
                     {"kernel": kernels, "n": X.shape[0]}, rows=rows,
                     samples={"X": X, "Y": Y}, test_options=test_options)
    table.attrs["seed"] = seed
    in_memory = not (is_dask_array(X) or is_dask_array(Y))
    if in_memory:
        table.attrs["pearson_r"] = pearson_r(X, Y)
    # drawn after the tests' seeds, so that no row changes with it
    effect_rng = np.random.default_rng(rng.integers(2**63, size=2))
    table.attrs["effect_size"] = (dependence_effect_size(
        X, Y, kernel_x=kernels.x, kernel_y=kernels.y, rng=effect_rng) if in_memory else None)
    return table


def pearson_r(X, Y) -> float:
    """Pearson's correlation of the first columns of X and Y (NaN if one is constant)."""
    x, y = np.asarray(X)[:, 0], np.asarray(Y)[:, 0]
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])
