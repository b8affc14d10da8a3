"""What every hypothesis test returns: one ``TestResult`` with a fixed schema.

``mmd_test`` (two-sample) and ``ksd_test`` (goodness of fit) both return it, with the
same fields whatever the statistic and the null, so apps and runners never special-case
a test.
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import stats

from ._validation import check_in_interval

#: The keys ``TestResult.runtime`` always has.
RUNTIME_KEYS = ("statistic", "null", "total")


@dataclass(frozen=True)
class TestResult:
    """Outcome of a hypothesis test.

    Attributes
    ----------
    statistic : float
    p_value : float
        (1 + #{null >= statistic}) / (1 + B) for a simulated null, the survival function
        of an analytic one.
    threshold : float
        Reject H0 when ``statistic > threshold`` (equivalently ``p_value <= alpha``).
    reject : bool
    alpha : float
    null_samples : array (B,) or None
        Simulated null statistics (None for the analytic Gamma and normal nulls).
    method : str
        The statistic: an MMD estimator (``"biased"``, ``"linear"``, ...) or a KSD test
        method (``"full"``, ``"nystrom"``, ``"linear"``, ``"fssd"``).
    null : str
        How the null was obtained: ``"permutation"``, ``"gamma"``, ``"spectral"``,
        ``"normal"``, ``"wild-bootstrap"``, ``"nystrom-bootstrap"`` or
        ``"chi-square-mixture"``.
    null_params : dict
        Parameters of the null only: Gamma ``shape``/``scale``, normal ``scale``, spectral
        ``eigenvalues``; empty for resampling nulls.
    runtime : dict
        Seconds: ``statistic``, ``null`` and ``total``. When one pass computes both (a
        permutation or bootstrap pass that includes the identity), ``statistic`` and
        ``null`` are NaN and ``total`` is the pass.
    fitted : dict
        What the test fitted on the data and a user may reuse: a Nyström test's
        ``landmarks`` (indices into the sample) and ``weights`` α; empty otherwise.

    (Implements no paper equation: the common result of ``mmd_test`` and ``ksd_test``.)
    """

    __test__ = False  # not a pytest test class

    statistic: float
    p_value: float
    threshold: float
    reject: bool
    alpha: float
    null_samples: np.ndarray | None
    method: str
    null: str
    null_params: dict = field(default_factory=dict)
    runtime: dict = field(default_factory=dict)
    fitted: dict = field(default_factory=dict)

    def __post_init__(self):
        missing = set(RUNTIME_KEYS) - set(self.runtime)
        if missing:
            raise ValueError(f"runtime must have the keys {RUNTIME_KEYS}, missing {missing}")

    @property
    def estimator(self) -> str:
        """Deprecated name of ``method``."""
        warn_deprecated("TestResult.estimator", "TestResult.method")
        return self.method

    def null_distribution(self):
        """The frozen scipy distribution of an analytic null (Gamma, Pearson III or normal),
        else None."""
        if self.null == "gamma":
            return stats.gamma(self.null_params["shape"], scale=self.null_params["scale"])
        if self.null == "pearson":
            return stats.pearson3(self.null_params["skewness"], loc=self.null_params["mean"],
                                  scale=np.sqrt(self.null_params["variance"]))
        if self.null == "normal":
            return stats.norm(0.0, self.null_params["scale"])
        return None

    def at_level(self, alpha: float) -> TestResult:
        """The same test at another level α: only the threshold and decision change."""
        alpha = check_in_interval(alpha, "alpha", 0.0, 1.0)
        if self.null_samples is not None:
            threshold = threshold_from_samples(self.null_samples, alpha)
        else:
            threshold = float(self.null_distribution().isf(alpha))
        return replace(self, alpha=alpha, threshold=threshold,
                       reject=bool(self.p_value <= alpha))


def simulated_result(statistic, null_samples, alpha, *, method, null, runtime, fitted=None,
                     null_params=None) -> TestResult:
    """A ``TestResult`` whose null is a sample of B replicates."""
    p = p_value_from_samples(statistic, null_samples)
    return TestResult(float(statistic), p, threshold_from_samples(null_samples, alpha),
                      bool(p <= alpha), alpha, null_samples, method, null, null_params or {},
                      runtime, fitted or {})


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


def normal_result(terms, alpha, *, method, runtime) -> TestResult:
    """A ``TestResult`` for the mean of i.i.d. summands with its asymptotic normal null
    (linear-time MMD, B-test, linear KSD), given the summands or their ``Moments``.
    Degenerate summands raise ValueError."""
    count, mean, m2 = terms if isinstance(terms, Moments) else Moments.of(terms)
    if count < 2:
        raise ValueError(f"the {method} statistic has {count} summand(s); "
                         "the normal null needs at least 2 (use more samples)")
    scale = math.sqrt(m2 / (count - 1) / count)
    if scale == 0.0:
        raise ValueError(f"the {method} summands are all equal: the normal null is degenerate")
    statistic, null = float(mean), stats.norm(0.0, scale)
    p = float(null.sf(statistic))
    return TestResult(statistic, p, float(null.isf(alpha)), bool(p <= alpha), alpha, None,
                      method, "normal", {"scale": scale}, runtime)


def one_pass_runtime(seconds: float) -> dict:
    """``runtime`` of a test whose statistic and null come from one shared pass."""
    return {"statistic": math.nan, "null": math.nan, "total": seconds}


def p_value_from_samples(statistic: float, null_samples: np.ndarray) -> float:
    """(1 + #{null >= statistic}) / (1 + B).

    Exact (valid at every B) only when the statistic and the null replicates are
    exchangeable under H0, as for permutations; for the wild and Nyström bootstraps of
    KSD (Kalinke et al. Eqs. 9–11) and simulated asymptotic nulls it is asymptotically
    valid only."""
    return (1.0 + np.count_nonzero(null_samples >= statistic)) / (1.0 + null_samples.size)


def threshold_from_samples(null_samples: np.ndarray, alpha: float) -> float:
    """The value t with ``statistic > t`` ⟺ p-value <= alpha (inf if B is too small)."""
    k = int(np.floor(alpha * (null_samples.size + 1) + 1e-12)) - 1
    if k < 0:
        return float("inf")
    return float(np.sort(null_samples)[::-1][k])


_WARNED: set[str] = set()


def warn_deprecated(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn once per process that ``old`` is deprecated in favour of ``new``; the warning
    points at the user's line (``stacklevel`` frames up from here)."""
    if old not in _WARNED:
        _WARNED.add(old)
        warnings.warn(f"{old} is deprecated and will be removed in the next release; "
                      f"use {new}", DeprecationWarning, stacklevel=stacklevel)


def renamed_argument(old_name: str, old_value, new_name: str, new_value, default):
    """The value of a renamed keyword argument (both default to None in the signature),
    warning once when the old name is used. Call it from the public function itself."""
    if old_value is None:
        return default if new_value is None else new_value
    caller = sys._getframe(1).f_code.co_name
    caller = type(sys._getframe(1).f_locals["self"]).__name__ if caller == "__init__" \
        else caller
    if new_value is not None:
        raise TypeError(f"{caller}: give {new_name}= only ({old_name}= is its deprecated "
                        "name)")
    warn_deprecated(f"{caller}({old_name}=...)", f"{new_name}=", stacklevel=4)
    return old_value
