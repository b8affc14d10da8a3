"""kmeviz's own tests beyond the four papers as named reproductions (``FIGURES``): the
size and power of the independence tests (HSIC: Gretton et al. 2008; HSICAgg: Schrab et
al. 2022) and of the conditional-independence tests (KCI: Zhang et al. 2011, Eq. 11;
RCIT and RCoT: Strobl et al. 2019), each a table of rejection rates with Clopper–Pearson
intervals that the results page (``docs/results/README.md``) quotes.

The independence tests are the registered i.i.d. ones (the time-series tests have their
own notebook, 13), run as ``independence_size_table`` runs them.
"""

from __future__ import annotations

from functools import partial

import pandas as pd

from ..conditional_independence.api import ci_test
from ..distributions.causal import causal_structure
from ..distributions.dependence import sinusoid
from ..registry import CONDITIONAL_TESTS
from .independence import _hsic_run, _independent_uniforms, _tests
from .runners import rejection_rates


def _ci_run(estimator, null, data, *, alpha, rng):
    return ci_test(*data, estimator=estimator, null=null, alpha=alpha, rng=rng)


def _sinusoid(n, ell, rng):
    return sinusoid(n, ell, rng=rng)


def _structure(name, n, rng):
    return causal_structure(name, n, rng=rng)


def _hsic_tests(*, hsicagg_small_b: bool = False) -> dict:
    """The i.i.d. tests (``selected_tests``' "all") at B = 199, HSICAgg at
    ``AGGREGATED_RESAMPLES``, and, with ``hsicagg_small_b``, HSICAgg at B = 199 too (its
    size there, for the registry's summary: a level-corrected wild bootstrap is
    conservative with few draws)."""
    tests = _tests("all", 199)
    if hsicagg_small_b:
        tests["hsicagg/wild-bootstrap, B = 199"] = partial(_hsic_run, "hsicagg",
                                                           "wild-bootstrap", 199)
    return tests


def _ci_tests() -> dict:
    return {spec.name: partial(_ci_run, spec.estimator, spec.null)
            for spec in CONDITIONAL_TESTS}


def _rates(sampler, tests, n_repeats, rng, progress, executor, **columns) -> pd.DataFrame:
    df = rejection_rates(sampler, tests, n_repeats=n_repeats, level=0.99, rng=rng,
                         progress=progress, executor=executor)
    df = df.rename(columns={df.columns[0]: "test"})
    for position, (name, value) in enumerate(columns.items()):
        df.insert(position, name, value)
    return df


def hsic_size(quick, rng, progress=None, executor=None) -> pd.DataFrame:
    """Type-I error of each i.i.d. independence test at n = 100 and 200 (500 draws)."""
    frames = [_rates(partial(_independent_uniforms, n), _hsic_tests(hsicagg_small_b=True),
                     10 if quick else 500, rng, progress, executor, n=n)
              for n in ((60,) if quick else (100, 200))]
    return pd.concat(frames, ignore_index=True)


def hsic_sinusoid(quick, rng, progress=None, executor=None) -> pd.DataFrame:
    """Power of each i.i.d. independence test on the sinusoid against ℓ (n = 200,
    100 draws), the benchmark of Albert et al. 2022 and of notebook 10 §5."""
    frames = [_rates(partial(_sinusoid, 60 if quick else 200, ell), _hsic_tests(),
                     5 if quick else 100, rng, progress, executor, frequency=ell)
              for ell in ((1, 4) if quick else (1, 2, 3, 4))]
    return pd.concat(frames, ignore_index=True)


def ci_size_power(quick, rng, progress=None, executor=None) -> pd.DataFrame:
    """Each conditional-independence test's rejection rate on the sine chain (H0 true:
    the size) and the sine collider (H0 false: the power) against n (200 draws)."""
    frames = [_rates(partial(_structure, structure, n), _ci_tests(), 5 if quick else 200,
                     rng, progress, executor, structure=structure, n=n)
              for structure in ("chain", "collider")
              for n in ((60,) if quick else (100, 200, 400))]
    return pd.concat(frames, ignore_index=True)
