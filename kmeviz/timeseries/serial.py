"""Is the row order informative? A cheap check of serial dependence run before every test
whose null assumes exchangeable (i.i.d.) rows, and the warning it raises.

The rule (``serial_dependence``): on each non-constant column of a sample, the Ljung–Box
portmanteau statistic Q = n (n + 2) Σ_{k ≤ h} ρ̂_k² / (n − k) over the first h = 5 lags
(Ljung & Box 1978), referred to χ²_h; a column is *serially dependent* when that p-value
times the sample's number of columns (Bonferroni) is below ``LEVEL`` = 10⁻⁴ and its
autocorrelations sum positive (Σ_{k ≤ h} ρ̂_k > 0: the variance of a mean grows by
1 + 2 Σ_k ρ_k, so the i.i.d. nulls are too narrow; rows that alternate — the nest
partners of the penguins table, male then female, ρ̂_1 = −0.46 — make them conservative
instead, and are not flagged). One pass over the data per lag, O(h · n · d), far below
any kernel test's own cost. The strict level
keeps false alarms rare on i.i.d. rows (measured in ``docs/results/serial_check.txt``);
an AR(1) column with φ = 0.5 at n = 300 has Q ≈ 100 (p ≈ 10⁻²⁰), far past it.

What fires the warning depends on what the null permutes:

- two-sample and goodness-of-fit tests: any sample serially dependent;
- independence: two variables serially dependent, X *and* Y for HSIC (a permutation of
  Y against X is exact as soon as one of them has exchangeable rows);
- conditional independence: X and Y both.

A column whose rows are sorted (an i.i.d. sample stored in order) looks serially
dependent too: say so with ``rows="iid"``.
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._validation import check_choice

#: what a caller may say of its rows: check them (default), trust them, or test them as
#: time series (the comparisons run the time-series tests instead)
ROWS = ("check", "iid", "time series")
#: the Bonferroni-corrected level of a sample's Ljung–Box tests
LEVEL = 1e-4
#: lags of the portmanteau statistic
LAGS = 5
#: fewer rows are not checked (ρ̂_k is too noisy for a χ² law)
MIN_ROWS = 20


class SerialDependenceWarning(UserWarning):
    """The rows of a sample are serially dependent: an i.i.d. null's p-value cannot be
    trusted (silence it with ``rows="iid"`` when the order is meaningless).

    (Implements no paper equation: the warning of ``serial_dependence``.)
    """


@dataclass(frozen=True)
class SerialCheck:
    """What ``serial_dependence`` found: per sample, its most autocorrelated column.

    Parameters
    ----------
    family : str
        ``"two-sample"``, ``"gof"``, ``"independence"`` or ``"conditional"``.
    samples : dict
        Sample name -> ``{"column", "lag1", "p_value", "dependent"}`` (column index and
        lag-1 autocorrelation of the column with the smallest Ljung–Box p-value, that
        p-value Bonferroni-corrected); a sample with fewer than ``MIN_ROWS`` rows or only
        constant columns has ``dependent = None`` (not checked).
    fired : bool
        Whether the rule of the family fires (module docstring).

    (Implements no paper equation: Ljung & Box 1978's portmanteau test, per column.)
    """

    family: str
    samples: dict
    fired: bool

    @property
    def message(self) -> str:
        """The warning's words: which samples, which columns, and what to do."""
        if not self.fired:
            return ""
        parts = [f"{name} (column {info['column']}, lag-1 autocorrelation "
                 f"{info['lag1']:.2f})" for name, info in self.samples.items()
                 if info["dependent"]]
        return ("rows are serially dependent in " + ", ".join(parts) + f" (Ljung–Box, "
                f"p < {LEVEL:g}): the i.i.d. nulls assume exchangeable rows and their "
                "p-values are too small on time series; use the time-series tests "
                f"({TIME_SERIES_ADVICE[self.family]}), or pass rows='iid' if the row order "
                "means nothing (e.g. a sorted sample)")

    @property
    def note(self) -> str:
        """The comparison table's short note on an i.i.d. test's row."""
        return "p-value not trusted: serially dependent rows (see the table note)" \
            if self.fired else ""


TIME_SERIES_ADVICE = {
    "two-sample": "rows='time series', or mmd_test(null='dependent-wild-bootstrap')",
    "gof": "rows='time series', or ksd_test(null='dependent-wild-bootstrap')",
    "independence": "rows='time series', or hsic_test(null='shift' or "
                    "'dependent-wild-bootstrap')",
    "conditional": "no conditional-independence test for time series yet; test "
                   "independence with rows='time series'",
}


def ljung_box(column: np.ndarray, lags: int = LAGS) -> tuple[float, float, float]:
    """(Q, its χ²_lags p-value, ρ̂_1) of one non-constant column: Ljung & Box 1978, Q =
    n (n + 2) Σ_{k ≤ lags} ρ̂_k² / (n − k), ρ̂_k the sample autocorrelation at lag k."""
    q, p, lag1 = ljung_box_columns(np.asarray(column, dtype=float)[:, None], lags)
    return float(q[0]), float(p[0]), float(lag1[0])


def ljung_box_columns(Z: np.ndarray, lags: int = LAGS, *, sums: bool = False):
    """``ljung_box`` of every column of Z (n, d) at once: arrays (Q, p, ρ̂_1), and with
    ``sums`` Σ_k ρ̂_k too; NaN for a constant column."""
    n = Z.shape[0]
    centred = Z - Z.mean(axis=0)
    energy = np.einsum("ij,ij->j", centred, centred)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = np.stack([np.einsum("ij,ij->j", centred[:-k], centred[k:]) / energy
                        for k in range(1, lags + 1)])
        q = n * (n + 2) * np.sum(rho**2 / (n - np.arange(1, lags + 1))[:, None], axis=0)
    constant = energy <= 1e-12 * np.maximum(1.0, np.abs(Z).max(axis=0)) ** 2 * n
    q[constant] = np.nan
    out = (q, stats.chi2.sf(q, lags), np.where(constant, np.nan, rho[0]))
    return (*out, np.where(constant, np.nan, rho.sum(axis=0))) if sums else out


def _sample_check(Z: np.ndarray) -> dict:
    Z = np.asarray(Z, dtype=float)
    Z = Z[:, None] if Z.ndim == 1 else Z
    if Z.shape[0] < MIN_ROWS or Z.shape[1] == 0:
        return {"column": None, "lag1": np.nan, "p_value": np.nan,
                "dependent": None}
    _, p, lag1, total = ljung_box_columns(Z, sums=True)
    if np.all(np.isnan(p)):
        return {"column": None, "lag1": np.nan, "p_value": np.nan,
                "dependent": None}
    checked = int(np.count_nonzero(~np.isnan(p)))
    # the most significant column among those whose autocorrelations sum positive
    p = np.where(total > 0, p, np.nan) if np.any(total > 0) else np.full_like(p, 1.0)
    j = int(np.nanargmin(p))
    corrected = min(1.0, float(p[j]) * checked)
    return {"column": j, "lag1": float(lag1[j]),
            "p_value": corrected, "dependent": corrected < LEVEL}


FAMILIES = ("two-sample", "gof", "independence", "conditional")


def serial_dependence(samples: dict, *, family: str) -> SerialCheck:
    """Check each sample's rows for serial dependence (module docstring's rule: Ljung &
    Box 1978's portmanteau test on each column, Bonferroni over the columns).

    (Implements no paper equation of the four papers: a check of their i.i.d. nulls'
    assumption.)

    Parameters
    ----------
    samples : dict
        Name -> array (n, d) in row order (``{"X": X, "Y": Y}``).
    family : {"two-sample", "gof", "independence", "conditional"}
        Which rule fires the warning.

    Returns
    -------
    SerialCheck

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> e = rng.normal(size=300)
    >>> ar = np.array([0.0] * 300)
    >>> for t in range(1, 300):
    ...     ar[t] = 0.5 * ar[t - 1] + e[t]
    >>> check = serial_dependence({"X": ar}, family="gof")
    >>> check.fired, round(check.samples["X"]["lag1"], 1)
    (True, 0.5)
    >>> serial_dependence({"X": rng.permutation(ar)}, family="gof").fired
    False
    """
    family = check_choice(family, "family", FAMILIES)
    found = {name: _sample_check(Z) for name, Z in samples.items()}
    flags = [info["dependent"] is True for info in found.values()]
    if family == "conditional":  # X and Y (Z's own order does not break the null alone)
        fired = sum(flags[:2]) == 2
    elif family == "independence":  # two variables at least (dHSIC: of d)
        fired = sum(flags) >= 2
    else:
        fired = any(flags)
    return SerialCheck(family, found, bool(fired))


def check_rows(rows: str) -> str:
    """``rows`` validated: one of ``ROWS``."""
    return check_choice(rows, "rows", ROWS)


#: set while a comparison runs its tests: the comparison checked the rows once already
_CHECKED = contextvars.ContextVar("kmeviz_rows_checked", default=False)


@contextlib.contextmanager
def rows_checked():
    """Within it, single tests do not check rows again (a comparison checked them)."""
    token = _CHECKED.set(True)
    try:
        yield
    finally:
        _CHECKED.reset(token)


def rows_already_checked() -> bool:
    """Whether a comparison around this call checked the rows."""
    return _CHECKED.get()


#: set where the caller shows the check itself (a dashboard's table, the CLI's note)
_QUIET = contextvars.ContextVar("kmeviz_serial_quiet", default=False)


@contextlib.contextmanager
def quiet_serial_warnings():
    """Within it, a check that fires raises no ``SerialDependenceWarning`` (the results
    still carry it): for callers that show the check themselves. A context variable, so
    unlike ``warnings.catch_warnings`` it is safe in threads."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def warn_serial(check: SerialCheck, stacklevel: int = 3) -> None:
    """Raise the ``SerialDependenceWarning`` of a check that fired (not within
    ``quiet_serial_warnings``)."""
    if check.fired and not _QUIET.get():
        warnings.warn(check.message, SerialDependenceWarning, stacklevel=stacklevel)


def samples_of(family: str, samples: tuple) -> dict:
    """The named samples of a registered test's positional ``samples``
    (``run_registered``): (X, Y), (X, target), (X, Y, Z) or ((X_1, …, X_d),)."""
    if family == "gof":
        return {"X": samples[0]}
    if len(samples) == 1 and isinstance(samples[0], tuple):
        return {f"X{i + 1}": v for i, v in enumerate(samples[0])}
    return dict(zip(("X", "Y", "Z"), samples, strict=False))


def check_registered(family: str, samples: tuple, rows: str, ordered: bool):
    """The check a single test makes before its i.i.d. null (None when it is not made: rows
    said "iid", the test is a time-series test, a comparison checked already, or a sample
    is a dask array)."""
    if rows != "check" or ordered or rows_already_checked():
        return None
    named = samples_of(family, samples)
    if any(not isinstance(Z, np.ndarray) for Z in named.values()):
        return None
    return serial_dependence(named, family=family)
