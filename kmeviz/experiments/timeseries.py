"""Size and power of the time-series tests beside the i.i.d. ones on serially dependent
data (``timeseries_size_table``, ``timeseries_power_table``): the tables of
``docs/results/timeseries_calibration.txt``.

Example
-------
>>> table = timeseries_size_table(ns=(60,), phis=(0.5,), n_repeats=3, rng=0)
>>> sorted(set(table["problem"]))
['AR(1) pair', 'RWM chain', 'two stretches']
"""

from __future__ import annotations

from functools import partial
from types import SimpleNamespace

import pandas as pd

from ..distributions.series import (
    independent_ar1_pair,
    lagged_dependence,
    random_walk_metropolis,
    stretches,
)
from ..distributions.targets import NormalTarget
from ..gof.ksd_tests import ksd_test
from ..independence.tests import hsic_test
from ..timeseries.serial import serial_dependence
from ..twosample.mmd_tests import mmd_test
from .runners import Progress, rejection_rates

#: the independence tests of the tables: (label, hsic_test keywords)
HSIC_TESTS = {
    "biased/dependent-wild-bootstrap": {"null": "dependent-wild-bootstrap"},
    "biased/shift": {"null": "shift"},
    "max-lag/shift": {"estimator": "max-lag", "null": "shift"},
    "biased/permutation (i.i.d.)": {"null": "permutation", "rows": "iid"},
    "biased/gamma (i.i.d.)": {"null": "gamma", "rows": "iid"},
}
#: the block permutation nulls (DcorrX's, Mehta et al. 2019), with the lag search's shift
#: test beside them: ``docs/results/block_permutation_calibration.txt``
BLOCK_TESTS = {
    "biased/block-permutation": {"null": "block-permutation"},
    "max-lag/block-permutation": {"estimator": "max-lag", "null": "block-permutation"},
    "max-lag/shift": {"estimator": "max-lag", "null": "shift"},
}
MMD_TESTS_TS = {
    "biased/dependent-wild-bootstrap": {"null": "dependent-wild-bootstrap"},
    "biased/permutation (i.i.d.)": {"null": "permutation", "rows": "iid"},
}
KSD_TESTS_TS = {
    "full/dependent-wild-bootstrap": {"null": "dependent-wild-bootstrap"},
    "full/wild-bootstrap (i.i.d.)": {"rows": "iid"},
}
#: replicates of every simulated null in the tables
RESAMPLES = 300


def _hsic(options, data, *, alpha, rng):
    return hsic_test(*data, alpha=alpha, rng=rng, n_resamples=RESAMPLES, **options)


def _mmd(options, data, *, alpha, rng):
    return mmd_test(*data, alpha=alpha, rng=rng, n_resamples=RESAMPLES, **options)


def _ksd(options, data, *, alpha, rng):
    return ksd_test(data, NormalTarget([0.0]), alpha=alpha, rng=rng,
                    n_resamples=RESAMPLES, **options)


def _check(family, data, *, alpha, rng):
    """The serial-dependence check as a 'test' that rejects when it fires."""
    samples = {"X": data} if family == "gof" else dict(zip("XY", data, strict=True))
    return SimpleNamespace(reject=serial_dependence(samples, family=family).fired)


def _pair(n, phi, rng):
    return independent_ar1_pair(n, phi, rng=rng)


def _stretches(n, phi, rng):
    return stretches(n, phi, rng=rng)


def _chain(n, step, rng):
    return random_walk_metropolis(n, step, rng=rng)


def _lagged(n, lag, strength, rng):
    return lagged_dependence(n, lag, strength, rng=rng)


def _table(problem, setting, sampler, runs, n_repeats, alpha, rng, progress, executor):
    table = rejection_rates(sampler, runs, n_repeats=n_repeats, alpha=alpha, rng=rng,
                            progress=progress, executor=executor)
    return table.assign(problem=problem, **setting)


def timeseries_size_table(*, ns=(300, 1000), phis=(0.0, 0.5, 0.9), step: float = 0.5,
                          n_repeats: int = 500, alpha: float = 0.05, rng=None,
                          progress: Progress = None, executor=None,
                          hsic_tests: dict | None = None,
                          families=("independence", "two-sample", "gof")) -> pd.DataFrame:
    """Type-I error on serially dependent data: independent AR(1) pairs (HSIC), two
    stretches of one AR(1) series (MMD), and a random-walk Metropolis chain against its
    own N(0, 1) target (KSD, ``step``), with the i.i.d. tests beside the time-series
    ones and how often the serial-dependence check fires ("serial check fired"); the
    ``families`` chosen, ``hsic_tests`` (label -> ``hsic_test`` keywords, default
    ``HSIC_TESTS``) for independence.

    Returns
    -------
    DataFrame
        ``rejection_rates``' columns (95 % Clopper–Pearson intervals) with ``problem``,
        ``n`` and ``phi`` (the chain's rows: ``phi`` NaN, ``step`` set).
    """
    parts = []
    for n in ns:
        for phi in phis:
            setting = {"n": n, "phi": phi}
            if "independence" in families:
                runs = {label: partial(_hsic, o)
                        for label, o in (hsic_tests or HSIC_TESTS).items()}
                runs["serial check fired"] = partial(_check, "independence")
                parts.append(_table("AR(1) pair", setting, partial(_pair, n, phi), runs,
                                    n_repeats, alpha, rng, progress, executor))
            if "two-sample" in families:
                runs = {label: partial(_mmd, o) for label, o in MMD_TESTS_TS.items()}
                runs["serial check fired"] = partial(_check, "two-sample")
                parts.append(_table("two stretches", setting, partial(_stretches, n, phi),
                                    runs, n_repeats, alpha, rng, progress, executor))
        if "gof" not in families:
            continue
        runs = {label: partial(_ksd, o) for label, o in KSD_TESTS_TS.items()}
        runs["serial check fired"] = partial(_check, "gof")
        parts.append(_table("RWM chain", {"n": n, "step": step}, partial(_chain, n, step),
                            runs, n_repeats, alpha, rng, progress, executor))
    return pd.concat(parts, ignore_index=True)


def timeseries_power_table(*, n: int = 300, lags=(1, 3), strength: float = 1.0,
                           n_repeats: int = 200, alpha: float = 0.05, rng=None,
                           progress: Progress = None, executor=None,
                           hsic_tests: dict | None = None,
                           chain: bool = True) -> pd.DataFrame:
    """Power on the lagged dependence Y_t = strength · cos(2 X_{t−k}) + noise (HSIC's
    time-series tests, ``hsic_tests`` as in ``timeseries_size_table``), and with
    ``chain`` of the chain KSD test against N(0, 1) when the chain targets N(0, 2²)."""
    parts = []
    for lag in lags:
        runs = {label: partial(_hsic, o) for label, o in (hsic_tests or HSIC_TESTS).items()
                if "i.i.d." not in label}
        parts.append(_table("lagged dependence", {"n": n, "lag": lag},
                            partial(_lagged, n, lag, strength), runs, n_repeats, alpha, rng,
                            progress, executor))
    if not chain:
        return pd.concat(parts, ignore_index=True)
    runs = {"full/dependent-wild-bootstrap": partial(_ksd, KSD_TESTS_TS[
        "full/dependent-wild-bootstrap"])}
    parts.append(_table("RWM chain of N(0, 2²)", {"n": n},
                        partial(_wide_chain, n), runs, n_repeats, alpha, rng, progress,
                        executor))
    return pd.concat(parts, ignore_index=True)


def _wide_chain(n, rng):
    return random_walk_metropolis(n, 1.0, target_scale=2.0, rng=rng)
