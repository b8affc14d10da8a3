"""Size and power of the independence tests over repeated draws (``rejection_rates``).

Example
-------
>>> table = independence_size_table(n=60, n_repeats=5, tests=["biased/gamma"], rng=0)
>>> list(table["test"])
['biased/gamma']
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from .._validation import check_positive_int
from ..compare import selected_tests
from ..distributions.dependence import sinusoid
from ..independence.tests import hsic_test
from ..needs import Needs
from ..registry import INDEPENDENCE_TESTS
from .runners import Progress, rejection_rates


def _hsic_run(estimator, null, n_resamples, data, *, alpha, rng):
    return hsic_test(*data, estimator=estimator, null=null, n_resamples=n_resamples,
                     alpha=alpha, rng=rng)


def _independent_uniforms(n, rng):
    return rng.uniform(-np.pi, np.pi, size=(n, 1)), rng.uniform(-np.pi, np.pi, size=(n, 1))


#: B1 = B2 of HSICAgg in the tables: with 25 bandwidth pairs and B1 = 199 its corrected
#: per-pair level falls below the p-value resolution 1/(B1 + 1) and it is conservative
#: (1.3 % at α = 5 %, n = 100, 300 draws); at 1000, 4.3 %.
AGGREGATED_RESAMPLES = 1000


def _tests(tests, n_resamples) -> dict:
    return {spec.name: partial(_hsic_run, spec.estimator, spec.null,
                               AGGREGATED_RESAMPLES if Needs.KERNEL_COLLECTION in spec.needs
                               else n_resamples)
            for spec in selected_tests(INDEPENDENCE_TESTS, tests)}


def independence_size_table(*, n: int = 200, n_repeats: int = 500, tests="all",
                            n_resamples: int = 199, alpha: float = 0.05, level: float = 0.99,
                            rng=None, progress: Progress = None) -> pd.DataFrame:
    """Type-I error of each registered independence test (``INDEPENDENCE_TESTS``) on
    independent X, Y ~ U[−π, π] (the sinusoid at ℓ = 0), default kernels, with the
    ``level`` Clopper–Pearson interval of each rate (column ``within_interval``: α in
    it). B = 199 makes the permutation tests exact at α = 0.05 (HSICAgg:
    ``AGGREGATED_RESAMPLES``).

    Returns
    -------
    DataFrame
        ``rejection_rates``' columns, with ``test`` for its label.
    """
    check_positive_int(n, "n", minimum=4)
    df = rejection_rates(partial(_independent_uniforms, n), _tests(tests, n_resamples),
                         n_repeats=n_repeats, alpha=alpha, level=level, rng=rng,
                         progress=progress)
    df = df.rename(columns={df.columns[0]: "test"})
    df["within_interval"] = (df["ci_low"] <= alpha) & (alpha <= df["ci_high"])
    return df


def sinusoid_power_table(*, frequencies=(1, 2, 4), n: int = 200, n_repeats: int = 100,
                         tests="all", n_resamples: int = 199, alpha: float = 0.05,
                         rng=None, progress: Progress = None) -> pd.DataFrame:
    """Power of each test on the sinusoid p ∝ 1 + sin(ℓx) sin(ℓy) (Albert et al. 2022,
    Sejdinovic et al. 2013) at each frequency ℓ: a row per (ℓ, test)."""
    frames = []
    for ell in frequencies:
        df = rejection_rates(lambda rng, ell=ell: sinusoid(n, ell, rng=rng),
                             _tests(tests, n_resamples), n_repeats=n_repeats, alpha=alpha,
                             rng=rng, progress=progress)
        df = df.rename(columns={df.columns[0]: "test"})
        df.insert(0, "frequency", ell)
        frames.append(df)
    return pd.concat(frames, ignore_index=True)
