"""Every registered test on one pair of samples, in one call: ``compare_tests`` (two-sample,
``kmeviz.MMD_TESTS``) and ``compare_gof`` (goodness of fit, ``kmeviz.GOF_TESTS``).

The tests run cheapest first within a time budget. Each test's cost is estimated before
it runs, from its registered ``work`` (about how many floating-point operations it does
at this N, d and B) and one core's speed, measured by a small matrix product on this
thread's CPU clock for each table (the fastest so far counts). What is left of the
budget is the budget less the *estimates* of the tests before, not the time they took,
so that a seeded call gives the same table on an idle and on a busy machine. A test whose
estimate exceeds what is left is not run: its row says so and gives the call that runs
it alone. A test estimated under a second (``FAST_SECONDS``) is never skipped; a test
that runs ``SLOWDOWN_ALLOWED`` times past its share (a machine that busy, or an estimate
that wrong) is stopped at its next tile, and none starts once the table has taken that
many times its budget.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X, Y = rng.normal(size=(200, 3)), rng.normal(0.3, 1.0, size=(200, 3))
>>> table = compare_tests(X, Y, rng=0)
>>> list(table.columns)  # doctest: +NORMALIZE_WHITESPACE
['test', 'estimator', 'null', 'cost', 'statistic', 'p_value', 'p_holm', 'reject',
 'runtime_s', 'note']
>>> len(table) == len(selected_tests(MMD_TESTS, "all"))  # the i.i.d. tests
True
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from ._validation import (
    check_in_interval,
    check_positive_int,
    check_real,
    check_rng,
    check_samples,
)
from .budget import BudgetExceeded, Cancelled, memory_limit, time_budget
from .chunked import check_any_pair, check_chunked_samples, is_dask_array
from .costs import _FASTEST, estimated_seconds, flops_per_second  # noqa: F401
from .gof.ksd_tests import checked_ksd_test
from .kernels import check_kernel
from .kernels.defaults import default_gof_kernel, default_mmd_kernel
from .kernels.engine import single_threaded_blas
from .needs import Needs
from .registry import GOF_TESTS, MMD_TESTS, seed_of_test, selected_tests
from .spec import own_options_of
from .timeseries.serial import (
    check_rows,
    rows_checked,
    serial_dependence,
    warn_serial,
)
from .twosample.effect import mmd_effect_size
from .twosample.mmd_tests import checked_mmd_test
from .twosample.nulls import shared_spectra

#: Tests estimated to take less than this many seconds always run.
FAST_SECONDS = 1.0
#: How many times its share of the budget a test may take on the wall clock before it is
#: stopped (and the table, before no more tests start): a busy machine runs the planned
#: tests slower, not fewer, up to this factor.
SLOWDOWN_ALLOWED = 3.0
#: Tests estimated under this many seconds run with BLAS on one thread: their matrices are
#: too small for BLAS's threads, whose wake-ups made them take 1-5× their time by chance
#: (RFF HSIC at n = 200: 0.019-0.020 s alone, 0.023-0.128 s with BLAS's threads).
SMALL_SECONDS = 0.1
#: Tests estimated to hold more than this many bytes at once are not run.
MEMORY_LIMIT = 2 * 1024**3
#: The columns of the comparison table, in order.
COLUMNS = ("test", "estimator", "null", "cost", "statistic", "p_value", "p_holm", "reject",
           "runtime_s", "note")
#: What the table says of itself: many tests on the same data.
MANY_TESTS = ("{k} tests on the same data: each p-value is valid alone, but the chance that "
              "at least one of them rejects a true H0 is larger than α. Read one test chosen "
              "in advance, or the Holm-adjusted p-values (p_holm), which control that "
              "chance at α.")
#: The statistic column of an aggregated test (MMDAgg, KSDAgg).
AGGREGATED_STATISTIC = ("max over its kernels of weight / p-value, a level-corrected score, "
                        "not an MMD², KSD or HSIC (it saturates at (B1 + 1) · max weight)")


def compare_tests(X, Y, *, kernel=None, tests="all", alpha: float = 0.05,
                  time_budget: float = 10.0, n_resamples: int = 1000, rng=None,
                  progress: Callable | None = None, rows: str = "check",
                  test_options: dict | None = None) -> pd.DataFrame:
    """Run every registered two-sample test (or those named) on X and Y.

    Parameters
    ----------
    X : array (m, d)
    Y : array (n, d)
    kernel : Kernel, optional
        Default ``GaussianKernel(median_heuristic(X, Y))``, as ``mmd_test``; the same kernel
        for every single-kernel test (MMDAgg tests with its own collection, as
        ``mmd_test(estimator="mmdagg")``, and its note says which). A ``PrecomputedKernel``
        runs the tests that only evaluate k.
    tests : "all", or list of str
        Test names ``"estimator/null"`` (``MMD_TESTS``) or estimators (all their nulls).
    alpha : float in (0, 1)
    time_budget : float
        Seconds for the whole comparison (see the module docstring).
    n_resamples : int
        B for the resampling and simulated nulls.
    rng : Generator, int or None
        Each test's stream derives from one draw of ``rng`` and the test's name
        (``seed_of_test``): a row depends neither on which other tests ran nor on which
        are registered.
    progress : callable, optional
        Called with each row (a dict of the table's columns) as its test finishes or is
        skipped, then ``progress(None)`` when all are done.
    rows : {"check", "iid", "time series"}
        "check" (default): run the i.i.d. tests and check the rows for serial dependence
        once (``kmeviz.serial_dependence``); when it is found, a ``SerialDependenceWarning``
        is raised and the note of every i.i.d. test's row says its p-value cannot be
        trusted. "iid": the rows are exchangeable, do not check. "time series": run the
        time-series tests (``Needs.ORDERED_ROWS``) instead of the i.i.d. ones.
    test_options : dict, optional
        {name: value} of options that tests declare as their own (``TestOption``): each
        test that declares one runs with it; a name no test of the table declares is a
        ValueError.

    Returns
    -------
    pandas.DataFrame
        One row per test in registry order, with the columns ``COLUMNS``; ``attrs`` holds
        the ``kernel``, the sizes, ``results`` (test name -> ``TestResult``), ``rows`` and
        ``serial_dependence`` (the ``SerialCheck``, None when not checked).

    (Implements no paper equation: it runs the registered tests, Gretton et al. 2012 and
    the other papers of ``mmd_test``'s table.)
    """
    X, Y, _ = check_any_pair(X, Y, min_samples=2)  # checked once: the tests take them as is
    kernel = check_kernel(default_mmd_kernel(X, Y) if kernel is None else kernel)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)

    def run(spec, rng, options):
        own = spec.needs.builds_own_kernel  # aggregated: its own kernels
        return checked_mmd_test(X, Y, None if own else kernel, estimator=spec.estimator,
                                null=spec.null, n_resamples=n_resamples, alpha=alpha,
                                rng=rng, test_options=options)

    def unmet(spec):
        return spec.unmet(X, Y, kernel)

    def how(spec):
        return (f"kmeviz.mmd_test(X, Y, estimator={spec.estimator!r}, "
                f"null={spec.null!r})")

    seed = rng if isinstance(rng, (int, np.integer)) else None
    rng = check_rng(rng)
    with shared_spectra():
        table = _compare(MMD_TESTS, tests, run, unmet, how, X.shape[0] + Y.shape[0],
                         X.shape[1], n_resamples, alpha, time_budget, rng, progress,
                         {"kernel": kernel, "m": X.shape[0], "n": Y.shape[0]}, rows=rows,
                         samples=None if kernel.points_are_indices else {"X": X, "Y": Y},
                         test_options=test_options)
    # drawn after the tests' seeds, so that no row changes with it
    effect_rng = np.random.default_rng(rng.integers(2**63, size=2))
    table.attrs["seed"] = seed
    # the unbiased MMD² of a test that ran with the table's kernel (the Gram pass is not
    # repeated, and nothing quadratic runs past the budget); None when none ran
    unbiased = [result.statistic for name, result in table.attrs["results"].items()
                if name.startswith("unbiased/")]
    table.attrs["effect_size"] = (
        None if not unbiased or is_dask_array(X) or is_dask_array(Y) else
        mmd_effect_size(X, Y, kernel, rng=effect_rng, unbiased_mmd2=unbiased[0]))
    return table


def compare_gof(X, target, *, kernel=None, tests="all", alpha: float = 0.05,
                time_budget: float = 10.0, n_resamples: int = 500, rng=None,
                progress: Callable | None = None, rows: str = "check",
                test_options: dict | None = None) -> pd.DataFrame:
    """Run every registered goodness-of-fit test (``GOF_TESTS``: full, Nyström and linear
    KSD, FSSD, RFF and L1 IMQ) of H0: X ~ ``target``; as ``compare_tests``.

    Parameters
    ----------
    X : array (n, d)
    target : object with ``score(X)``
    kernel : Kernel, optional
        Default: each test's default of ``ksd_test`` (IMQ c = 1, β = -½; a Gaussian at the
        median heuristic for fssd-opt). A kernel given is used by every test that takes
        it; the others' rows say why not (KSDAgg always tests with its own collection).
    tests, alpha, time_budget, rng, progress, rows, test_options : as ``compare_tests``
    n_resamples : int
        D, the bootstrap or simulated null replicates.

    Returns
    -------
    pandas.DataFrame
        As ``compare_tests``.

    (Implements no paper equation: it runs the registered tests of ``ksd_test``, Kalinke
    et al. and the competitors of their Fig. 1.)
    """
    X = (check_chunked_samples(X, "X", min_samples=2) if is_dask_array(X)
         else check_samples(X, "X", min_samples=2))
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)

    def run(spec, rng, options):
        # aggregated tests and L2 SechExp build their own kernels
        own = spec.needs.builds_own_kernel
        chosen = default_gof_kernel(X, spec.needs) if kernel is None or own else kernel
        return checked_ksd_test(X, target, chosen, estimator=spec.estimator,
                                n_resamples=n_resamples, alpha=alpha, rng=rng,
                                null=spec.null, test_options=options)

    def how(spec):
        return f"kmeviz.ksd_test(X, target, estimator={spec.estimator!r})"

    def unmet(spec):
        return spec.unmet(X, kernel=None if spec.needs.builds_own_kernel else kernel)

    return _compare(GOF_TESTS, tests, run, unmet, how, X.shape[0], X.shape[1],
                    n_resamples, alpha, time_budget, rng, progress,
                    {"kernel": kernel, "n": X.shape[0]}, rows=rows, samples={"X": X},
                    test_options=test_options)


class ResultsByTest(dict):
    """A comparison table's ``attrs["results"]`` (test name -> ``TestResult``), shared by
    every copy of the table: pandas deep-copies ``attrs`` at each column access and each
    copy, and copying every result's null draws cost 0.03 s of a served page's CPU."""

    def __deepcopy__(self, memo):
        return self


def _compare(registry, tests, run, unmet, how, N, d, B, alpha, budget, rng, progress,
             attrs, *, rows: str = "check", samples: dict | None = None,
             test_options: dict | None = None) -> pd.DataFrame:
    alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
    budget = check_real(budget, "time_budget")
    if budget <= 0:
        raise ValueError(f"time_budget must be positive, got {budget}")
    rows = check_rows(rows)
    specs = selected_tests(registry, tests, rows)
    own = own_options_of(specs, test_options)
    serial = None
    if rows == "check" and samples and not any(map(is_dask_array, samples.values())):
        serial = serial_dependence(samples, family=registry.family)
        warn_serial(serial, stacklevel=4)
    seed = rng if isinstance(rng, (int, np.integer)) else None
    rng = check_rng(rng)
    root = int(rng.integers(2**63))
    seeds = {spec.name: seed_of_test(root, spec.name) for spec in specs}
    flops = flops_per_second()  # measured once per table
    estimates = {spec.name: estimated_seconds(spec, N, d, B, flops) for spec in specs}
    by_name, results = {}, {}
    # the smaller of the table's own limit and the caller's memory budget (a served page's)
    memory_allowed = min(MEMORY_LIMIT, memory_limit() or MEMORY_LIMIT)
    start, planned = time.monotonic(), 0.0  # planned: the estimates of the tests run
    for spec in sorted(specs, key=lambda s: estimates[s.name]):
        row = {"test": spec.name, "estimator": spec.estimator, "null": spec.null,
               "cost": spec.cost, "statistic": math.nan, "p_value": math.nan,
               "reject": None, "runtime_s": math.nan, "note": ""}
        left, elapsed = budget - planned, time.monotonic() - start
        estimate = estimates[spec.name]
        memory = spec.estimated_memory(N, d, B)
        reason = unmet(spec)
        if reason:
            row["note"] = f"not run: {reason}"
        elif memory > memory_allowed:
            row["note"] = (f"not run: it would hold about {memory / 1024**2:,.0f} MB at once "
                           f"(limit {memory_allowed / 1024**2:,.0f} MB); it is {spec.cost} "
                           "in N, use a linear-time test or a subsample")
        elif estimate > max(left, FAST_SECONDS):
            row["note"] = (f"not run: estimated {estimate:.3g} s, more than the "
                           f"{max(left, 0.0):.3g} s left of the time budget; run it alone "
                           f"with {how(spec)} or raise time_budget")
        elif estimate > FAST_SECONDS and elapsed > SLOWDOWN_ALLOWED * budget:
            row["note"] = (f"not run: the table has taken {elapsed:.3g} s, more than "
                           f"{SLOWDOWN_ALLOWED:g} × its time budget (a busy machine); run "
                           f"it alone with {how(spec)}")
        else:
            planned += estimate
            limit = SLOWDOWN_ALLOWED * min(max(left, estimate), budget)
            t0 = time.perf_counter()
            try:
                with time_budget(None if estimate <= FAST_SECONDS else
                                 min(limit, SLOWDOWN_ALLOWED * budget - elapsed)), \
                        rows_checked(), (single_threaded_blas() if estimate < SMALL_SECONDS
                                         else contextlib.nullcontext()):
                    result = run(spec, np.random.default_rng(seeds[spec.name]), own[spec.name])
            except Cancelled:
                raise  # nobody wants the rest (the page closed, or a newer request came)
            except BudgetExceeded:
                row["note"] = (f"stopped after {time.perf_counter() - t0:.3g} s at the time "
                               f"budget (estimated {estimate:.3g} s; a test may take "
                               f"{SLOWDOWN_ALLOWED:g} × its share); run it alone with "
                               f"{how(spec)}")
            except MemoryError:
                row["note"] = "not run: out of memory (use a linear-time test or a subsample)"
            except (ValueError, TypeError, NotImplementedError) as exc:
                # bad settings, or a kernel without what the test needs (its derivatives)
                row["note"] = f"not run: {exc or type(exc).__name__}"
            else:
                results[spec.name] = result
                row.update(statistic=result.statistic, p_value=result.p_value,
                           reject=result.reject, runtime_s=result.runtime["total"])
                if Needs.KERNEL_COLLECTION in spec.needs:  # not the table's kernel: say so
                    count = result.null_params["n_kernels"]
                    words = spec.statistic_words or AGGREGATED_STATISTIC
                    row["note"] = "; ".join(filter(None, (
                        f"its own {count} bandwidths: {result.kernel!r}; statistic: {words}",
                        result.fitted.get("note"))))
                elif spec.statistic_words:  # a statistic that is no MMD², KSD or HSIC
                    row["note"] = "; ".join(filter(None, (
                        f"statistic: {spec.statistic_words}", result.fitted.get("note"))))
                if serial is not None and serial.fired and \
                        Needs.ORDERED_ROWS not in spec.needs:
                    row["note"] = "; ".join(filter(None, (serial.note, row["note"])))
        by_name[spec.name] = row
        if progress is not None:
            progress(dict(row))
    if progress is not None:
        progress(None)
    table = pd.DataFrame([by_name[spec.name] for spec in specs], columns=list(COLUMNS))
    table["p_holm"] = holm(table["p_value"].to_numpy(dtype=float))
    ran = int(table["p_value"].notna().sum())
    note = MANY_TESTS.format(k=ran)
    if serial is not None and serial.fired:
        note = f"{note} Serial dependence: {serial.message}."
    table.attrs.update(attrs, alpha=alpha, results=ResultsByTest(results), time_budget=budget,
                       n_resamples=B, seed=seed, note=note, rows=rows,
                       serial_dependence=serial)
    return table


def export_table(table: pd.DataFrame) -> pd.DataFrame:
    """The comparison table as a researcher saves it (the dashboard's download and
    ``kmeviz compare --out``): every column, then what makes it reproducible and
    quotable: the kernel, its bandwidth, α, the seed, B, and the effect size.

    Parameters
    ----------
    table : pandas.DataFrame
        A ``compare_tests`` or ``compare_gof`` table.

    Returns
    -------
    pandas.DataFrame
        Its columns, then ``kernel, bandwidth, alpha, seed, n_resamples`` and
        the effect size's columns: ``effect_mmd`` (two-sample) or ``effect_normalised_hsic``
        (independence), then ``effect_low, effect_high, effect_level`` (NaN without one).
    """
    kernel, effect = table.attrs.get("kernel"), table.attrs.get("effect_size")
    out = table.copy()
    out["kernel"] = "each test's default" if kernel is None else repr(kernel)
    out["bandwidth"] = getattr(kernel, "bandwidth", math.nan)
    out["alpha"] = table.attrs.get("alpha", math.nan)
    out["seed"] = table.attrs.get("seed")
    out["n_resamples"] = table.attrs.get("n_resamples")
    columns = (dict.fromkeys(("effect_mmd", "effect_low", "effect_high", "effect_level"),
                             math.nan) if effect is None else effect.columns())
    for name, value in columns.items():
        out[name] = value
    return out


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (NaN, for a test that did not run, stays NaN):
    rejecting where p_holm ≤ α keeps the chance of any false rejection at most α, for
    any dependence between the tests (Holm 1979)."""
    p = np.asarray(p_values, dtype=float)
    out = np.full_like(p, np.nan)
    ran = np.flatnonzero(~np.isnan(p))
    order = ran[np.argsort(p[ran], kind="stable")]
    k = order.size
    steps = (k - np.arange(k)) * p[order]
    out[order] = np.minimum(np.maximum.accumulate(steps), 1.0)
    return out
