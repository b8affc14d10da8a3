"""What every hypothesis test returns: one ``TestResult`` with a fixed schema.

``mmd_test`` (two-sample) and ``ksd_test`` (goodness of fit) both return it, with the
same fields whatever the statistic and the null, so apps and runners never special-case
a test.
"""

from __future__ import annotations

import inspect
import math
import time
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import stats

from ._validation import check_in_interval, check_rng
from .config import get_config
from .needs import Needs
from .registry import Outcome, TestSpec
from .timeseries.serial import check_registered, warn_serial

#: The keys ``TestResult.runtime`` always has.
RUNTIME_KEYS = ("statistic", "null", "total")


@dataclass(frozen=True)
class TestResult:
    """Outcome of a hypothesis test.

    Parameters
    ----------
    statistic : float
    p_value : float
        (1 + #{null >= statistic}) / (1 + B) for a simulated null (ties within
        ``tie_tolerance``), the survival function of an analytic one.
    threshold : float
        Reject H0 when ``statistic > threshold`` (equivalently ``p_value <= alpha``).
    reject : bool
    alpha : float
    null_samples : array (B,) or None
        Simulated null statistics (None for the analytic Gamma and normal nulls).
    estimator : str
        The statistic: an MMD estimator (``"biased"``, ``"linear"``, ``"fastmmd"``, ...)
        or a KSD estimator (``"full"``, ``"nystrom"``, ``"linear"``, ``"fssd"``, ...).
    null : str
        How the null was obtained: ``"permutation"``, ``"gamma"``, ``"spectral"``,
        ``"normal"``, ``"wild-bootstrap"``, ``"nystrom-bootstrap"`` or
        ``"chi-square-mixture"``.
    null_params : dict
        Plain numbers (and arrays) of the null only: Gamma ``shape``/``scale``, normal
        ``scale``, spectral ``eigenvalues``, an aggregated test's ``n_kernels``; empty for
        resampling nulls.
    runtime : dict
        Seconds: ``statistic``, ``null`` and ``total``. When one pass computes both (a
        permutation or bootstrap pass that includes the identity), ``statistic`` and
        ``null`` are NaN and ``total`` is the pass.
    fitted : dict
        What the test fitted on the data and a user may reuse: a Nyström test's
        ``landmarks`` (indices into the sample) and ``weights`` α; empty otherwise.
    kernel : Kernel or None
        The kernel the test used (the default one when none was given: its repr shows
        the bandwidth the median heuristic chose).
    null_dist : object or None
        The null's distribution when it is not simulated replicates: a frozen scipy
        distribution (Gamma, Pearson III, normal) or an aggregated test's null
        (``kmeviz.aggregation.AggregatedNull``); None for simulated nulls.
    spec : TestSpec or None
        The registry entry that computed it (``kmeviz.MMD_TESTS``, ``GOF_TESTS``): what
        the test adds to the printout and at another level lives there.

    (Implements no paper equation: the common result of ``mmd_test`` and ``ksd_test``.)
    """

    __test__ = False  # not a pytest test class

    statistic: float
    p_value: float
    threshold: float
    reject: bool
    alpha: float
    null_samples: np.ndarray | None
    estimator: str
    null: str
    null_params: dict = field(default_factory=dict)
    runtime: dict = field(default_factory=dict)
    fitted: dict = field(default_factory=dict)
    kernel: object | None = None
    null_dist: object | None = field(default=None, repr=False, compare=False)
    spec: TestSpec | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        missing = set(RUNTIME_KEYS) - set(self.runtime)
        if missing:
            raise ValueError(f"runtime must have the keys {RUNTIME_KEYS}, missing {missing}")

    def __str__(self) -> str:
        """One line per field that matters; the null samples summarised, not listed."""
        if self.spec is not None and self.spec.describe_null is not None:
            null = f"{self.null} ({self.spec.describe_null(self)})"
        elif self.null_samples is None:
            null = f"{self.null} (analytic)"
        else:
            null = f"{self.null} ({self.null_samples.size} replicates)"
        kernel = "none (the statistic uses no kernel)" if self.kernel is None else \
            repr(self.kernel)
        lines = [f"TestResult: {self.estimator} / {null}",
                 f"  kernel    {kernel}",
                 f"  statistic {self.statistic:.6g}",
                 f"  p-value   {self.p_value:.4g}",
                 f"  decision  {'reject H0' if self.reject else 'keep H0'} at "
                 f"alpha = {self.alpha:g} (threshold {self.threshold:.6g})",
                 f"  runtime   {self.runtime['total']:.3g} s"]
        if "note" in self.fitted:
            lines.append(f"  note      {self.fitted['note']}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"TestResult(estimator={self.estimator!r}, null={self.null!r}, "
                f"statistic={self.statistic:.6g}, p_value={self.p_value:.4g}, "
                f"reject={self.reject}, alpha={self.alpha:g})")

    def to_dict(self, *, null_samples: bool = False) -> dict:
        """The fields as a flat dict of plain values (``runtime_s`` for the total time);
        the null samples only with ``null_samples=True``. Fitted objects are left out.

        Parameters
        ----------
        null_samples : bool
            Include the array of null replicates.

        Returns
        -------
        dict
            ``estimator, null, kernel`` (its repr), ``statistic, p_value, threshold,
            reject, alpha, runtime_s, n_resamples`` (and ``null_samples``).
        """
        out = {"estimator": self.estimator, "null": self.null, "kernel": repr(self.kernel),
               "statistic": float(self.statistic), "p_value": float(self.p_value),
               "threshold": float(self.threshold), "reject": bool(self.reject),
               "alpha": float(self.alpha), "runtime_s": float(self.runtime["total"]),
               **self.resample_counts()}
        if null_samples:
            out["null_samples"] = self.null_samples
        return out

    def resample_counts(self) -> dict:
        """``{"n_resamples": B}`` (0 for an analytic null); an aggregated test's B1 (its
        quantiles) as ``n_resamples`` and B2 (its level correction) as
        ``n_resamples_correction``, the numbers its printout gives."""
        if self.spec is not None and self.spec.resample_counts is not None:
            return self.spec.resample_counts(self)
        return {"n_resamples": 0 if self.null_samples is None else int(self.null_samples.size)}

    def p_value_text(self) -> str:
        """The p-value for a reader: 4 significant digits, and never "0" (a simulated
        p-value of 0 reads "< 1/B" with the number of replicates behind it)."""
        return p_value_text(self.p_value, max(self.resample_counts().values()))

    def null_distribution(self):
        """``null_dist``: the distribution of an analytic or aggregated null, else None."""
        return self.null_dist

    def at_level(self, alpha: float) -> TestResult:
        """The same test at another level α: only the threshold and decision change."""
        alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
        if self.null_samples is not None:
            threshold = threshold_from_samples(self.null_samples, alpha)
        else:
            threshold = float(self.null_distribution().isf(alpha))
        fitted = self.fitted
        if self.spec is not None and self.spec.fitted_at_level is not None:
            fitted = {**fitted, **self.spec.fitted_at_level(self, alpha)}
        return replace(self, alpha=alpha, threshold=threshold, fitted=fitted,
                       reject=bool(self.p_value <= alpha))


class Moments(tuple):
    """(count, mean, M2) of i.i.d. summands, M2 = Σ (t - mean)²; chunks merge exactly as
    one pass would (Chan et al. 1979), so a mean and variance can be summed over chunks."""

    @classmethod
    def of(cls, terms: np.ndarray) -> Moments:
        terms = np.asarray(terms, dtype=np.float64)
        mean = float(terms.mean()) if terms.size else 0.0
        return cls((terms.size, mean, float(np.sum((terms - mean) ** 2))))

    def __add__(self, other: Moments) -> Moments:
        (n_a, mean_a, m2_a), (n_b, mean_b, m2_b) = self, other
        n = n_a + n_b
        if n == 0:
            return self
        delta = mean_b - mean_a
        return Moments((n, mean_a + delta * n_b / n, m2_a + m2_b + delta**2 * n_a * n_b / n))


def normal_null(terms, estimator: str) -> tuple[float, float]:
    """(mean, standard error) of i.i.d. summands or their ``Moments``: the statistic and the
    scale of the asymptotic normal null of the linear-time MMD, B-test and linear KSD.
    Degenerate summands raise ValueError naming the estimator."""
    count, mean, m2 = terms if isinstance(terms, Moments) else Moments.of(terms)
    if count < 2:
        raise ValueError(f"the {estimator} statistic has {count} summand(s); "
                         "the normal null needs at least 2 (use more samples)")
    scale = math.sqrt(m2 / (count - 1) / count)
    if scale == 0.0:
        raise ValueError(f"the {estimator} summands are all equal: the normal null is "
                         "degenerate")
    return float(mean), scale


def normal_outcome(terms, estimator: str) -> Outcome:
    """The ``Outcome`` of a mean of i.i.d. summands with its asymptotic normal null."""
    mean, scale = normal_null(terms, estimator)
    return Outcome(mean, null_dist=stats.norm(0.0, scale), null_params={"scale": scale},
                   one_pass=False)


def result_from_outcome(outcome: Outcome, spec: TestSpec, alpha: float,
                        seconds: float, kernel=None) -> TestResult:
    """The ``TestResult`` of a registered test's ``Outcome`` at level α, run in ``seconds``
    with ``kernel``.
    A statistic that is not finite (a degenerate kernel, e.g. a bandwidth of 1e-300)
    raises ValueError instead of deciding on NaN."""
    statistic = float(outcome.statistic)
    if not math.isfinite(statistic):
        raise ValueError(f"the {spec.estimator} statistic is {statistic}: the kernel is "
                         "degenerate on these samples (is the bandwidth far too small or "
                         "too large for the data's scale?)")
    if outcome.null_samples is not None:
        p_value = p_value_from_samples(statistic, outcome.null_samples)
    else:
        p_value = float(outcome.null_dist.sf(statistic))
    if outcome.one_pass:
        runtime = one_pass_runtime(seconds)
    elif getattr(getattr(outcome.null_dist, "dist", None), "name", "") == "norm":
        # a closed-form normal null: no time of its own
        runtime = {"statistic": seconds, "null": 0.0, "total": seconds}
    else:  # the statistic, then an analytic or simulated null
        runtime = {"statistic": math.nan, "null": math.nan, "total": seconds}
    result = TestResult(statistic, float(p_value), math.nan, False, alpha,
                        outcome.null_samples, spec.estimator, spec.null, outcome.null_params,
                        runtime, outcome.fitted, kernel, outcome.null_dist, spec)
    return result.at_level(alpha)


def defaults_of(fn, names: tuple) -> dict:
    """{name: default} of the keyword arguments ``names`` of ``fn``: a checked step below a
    public entry point takes the entry point's own defaults, written once."""
    parameters = inspect.signature(fn).parameters
    return {name: parameters[name].default for name in names}


def run_registered(spec: TestSpec, samples: tuple, kernel, *, alpha: float, rng,
                   options: dict, **keywords) -> TestResult:
    """The last step shared by ``mmd_test`` and ``ksd_test``: ``spec.compute`` on the
    checked ``samples`` with ``kernel``, the ``keywords`` every test of the registry takes
    and the ``options`` the entry names (and its own options, ``options["test_options"]``,
    checked by ``spec.checked_own_options``), timed, as a ``TestResult`` at level
    ``alpha``."""
    serial = None if getattr(kernel, "points_are_indices", False) else check_registered(
        spec.family, samples, options.get("rows", "check"),
        Needs.ORDERED_ROWS in spec.needs)  # a precomputed Gram's samples are indices
    own = spec.checked_own_options(options.get("test_options"))
    t0 = time.perf_counter()
    outcome = spec.compute(*samples, kernel, rng=check_rng(rng), **keywords,
                           **{k: options[k] for k in spec.options}, **own)
    result = result_from_outcome(outcome, spec, alpha, time.perf_counter() - t0, kernel)
    if serial is None:
        return result
    fitted = {**result.fitted, "serial_dependence": serial}
    if serial.fired:
        warn_serial(serial, stacklevel=4)
        fitted["note"] = "; ".join(filter(None, (result.fitted.get("note"), serial.message)))
    return replace(result, fitted=fitted)


def one_pass_runtime(seconds: float) -> dict:
    """``runtime`` of a test whose statistic and null come from one shared pass."""
    return {"statistic": math.nan, "null": math.nan, "total": seconds}


def p_value_text(p_value: float, n_resamples: int = 0) -> str:
    """``p_value`` to 4 significant digits; 0 (a simulated null none of whose B replicates
    reached the statistic, or an analytic tail below the smallest float) as "< 1/B" or
    "< 1e-300"; NaN as ""."""
    if p_value != p_value:
        return ""
    if p_value > 0:
        return f"{p_value:.4g}"
    return f"< {1.0 / n_resamples:.2g}" if n_resamples else "< 1e-300"


#: A null value within this many ulps (of the tile precision, relative to the statistic)
#: counts as a tie: values equal in theory that differ in the last bits, more often with
#: float32 tiles, count as "at least as large" (scipy.stats.permutation_test: 100 ulps)
TIE_ULPS = 100


def tie_tolerance(dtype=None) -> float:
    """The relative tolerance of a tie: ``TIE_ULPS`` × the machine epsilon of ``dtype``
    (default: the Gram tiles' precision in force, ``kmeviz.get_config()["dtype"]``)."""
    return TIE_ULPS * float(np.finfo(dtype or get_config()["dtype"]).eps)


def p_value_from_samples(statistic: float, null_samples: np.ndarray,
                         rtol: float | None = None) -> float:
    """(1 + #{null ≥ statistic − rtol·|statistic|}) / (1 + B), ``rtol`` the tie
    tolerance (``tie_tolerance()`` by default).

    Exact (valid at every B) only when the statistic and the null replicates are
    exchangeable under H0, as for permutations; for the wild and Nyström bootstraps of
    KSD (Kalinke et al. Eqs. 9–11) and simulated asymptotic nulls it is asymptotically
    valid only."""
    rtol = tie_tolerance() if rtol is None else rtol
    floor = statistic - rtol * abs(statistic)
    return (1.0 + np.count_nonzero(null_samples >= floor)) / (1.0 + null_samples.size)


def threshold_from_samples(null_samples: np.ndarray, alpha: float) -> float:
    """The value t with ``statistic > t`` ⟺ p-value <= alpha, up to the tie tolerance (inf
    if B is too small)."""
    k = int(np.floor(alpha * (null_samples.size + 1) + 1e-12)) - 1
    if k < 0:
        return float("inf")
    return float(np.sort(null_samples)[::-1][k])
