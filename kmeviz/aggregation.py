"""The level correction and decision of the aggregated tests (MMDAgg, KSDAgg), shared by
``mmd_test(estimator="mmdagg")`` and ``ksd_test(estimator="ksdagg")``.

Given, for each kernel λ of a collection with weights w_λ, the observed statistic and
B1 + B2 simulated ones (permutations or a wild bootstrap), the test (Schrab et al.,
MMDAgg Sec. 3.5, Alg. 1; KSDAgg Alg. 1):

- q_λ(u) is the (1 - u w_λ)-quantile of kernel λ's B1 simulated values and the observed
  one: the ⌈(B1 + 1)(1 - u w_λ)⌉-th smallest;
- u_α is the largest u (bisection, B3 = 50 steps, on [0, min 1/w_λ]) such that at most a
  fraction α of the B2 other replicates have some λ above q_λ(u);
- the test rejects when some kernel's statistic exceeds q_λ(u_α), i.e. when its p-value
  p_λ = #{B1 values and observed ≥ observed} / (B1 + 1) is ≤ u_α w_λ.

kmeviz reports that decision as one ``TestResult``: the statistic is max_λ w_λ / p_λ,
its p-value the fraction of the B2 replicates whose own max_λ w_λ / p_λ is at least as
large (the test rejects exactly when that fraction is ≤ α), and
``fitted["kernels"]`` the per-kernel table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .registry import Outcome

#: Bisection steps of the level correction (B3 of the papers).
BISECTION_STEPS = 50


@dataclass(frozen=True)
class AggregatedNull:
    """The simulated values of an aggregated test and its level correction.

    Parameters
    ----------
    observed : array (K,)
        Each kernel's statistic.
    first : array (K, B1)
        The replicates the quantiles are read from.
    second : array (K, B2)
        The replicates that estimate the level correction.
    weights : array (K,)
    labels : list of str
        One name per kernel, for the table.
    scales : array (K,)
        Each kernel's bandwidth (σ, or the IMQ's c), for the table and plots.

    Attributes
    ----------
    pooled : array (K, B1 + 1)
        Each kernel's B1 replicates and its observed value, sorted: what the quantiles
        and p-values are read from.

    (MMDAgg Alg. 1 / KSDAgg Alg. 1, steps 2–3.)
    """

    observed: np.ndarray
    first: np.ndarray
    second: np.ndarray
    weights: np.ndarray
    labels: tuple
    scales: np.ndarray
    pooled: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        # the observed value is one of the B1 + 1 the quantiles are read from
        object.__setattr__(self, "pooled",
                           np.sort(np.column_stack([self.first, self.observed]), axis=1))

    @property
    def sizes(self) -> tuple[int, int]:
        """(B1, B2)."""
        return self.first.shape[1], self.second.shape[1]

    def quantiles(self, u: float) -> np.ndarray:
        """q_λ(u) for every kernel: the ⌈(B1 + 1)(1 - u w_λ)⌉-th smallest value."""
        B1 = self.sizes[0]
        index = np.ceil((B1 + 1) * (1.0 - u * self.weights)).astype(int) - 1
        return self.pooled[np.arange(self.pooled.shape[0]), np.clip(index, 0, B1)]

    def level_correction(self, alpha: float) -> float:
        """u_α: the largest u with at most a fraction α of the B2 replicates above some
        q_λ(u), by ``BISECTION_STEPS`` bisection steps on [0, min 1/w_λ]."""
        low, high = 0.0, float(np.min(1.0 / self.weights))
        for _ in range(BISECTION_STEPS):
            u = (low + high) / 2.0
            exceed = np.any(self.second > self.quantiles(u)[:, None], axis=0)
            if np.count_nonzero(exceed) / self.sizes[1] <= alpha:
                low = u
            else:
                high = u
        return low

    def p_values(self, values: np.ndarray | None = None) -> np.ndarray:
        """Per-kernel p-values #{B1 values and observed ≥ v} / (B1 + 1) of ``values``
        ((K,) or (K, B)); the observed statistics by default."""
        values = self.observed if values is None else values
        B1 = self.sizes[0]
        column = values.reshape(values.shape[0], -1)
        counts = np.stack([B1 + 1 - np.searchsorted(row, v, side="left")
                           for row, v in zip(self.pooled, column, strict=True)])
        return (counts / (B1 + 1)).reshape(values.shape)

    def statistic(self, values: np.ndarray | None = None) -> np.ndarray | float:
        """max_λ w_λ / p_λ of the observed values (or of each column of ``values``):
        the test rejects when p_λ ≤ u_α w_λ for some λ, i.e. when this is ≥ 1/u_α."""
        p = self.p_values(values)
        with np.errstate(divide="ignore"):
            ratio = np.where(p > 0, self.weights.reshape(-1, *[1] * (p.ndim - 1))
                             / np.where(p > 0, p, 1.0), np.inf)
        return ratio.max(axis=0)

    @property
    def saturation(self) -> float:
        """The largest value the statistic can take, (B1 + 1) max_λ w_λ (every p_λ is at
        least 1/(B1 + 1) for the observed labelling): a large observed statistic sits
        there, so the statistic is a level-corrected score, not an MMD²."""
        return float((self.sizes[0] + 1) * np.max(self.weights))

    def replicates(self) -> np.ndarray:
        """The B2 simulated values of the statistic under H0 (a replicate beyond all B1
        quantile replicates of some kernel is set to ``saturation``): the null that
        ``sf`` and ``isf`` read, for a histogram."""
        return np.minimum(self.statistic(self.second), self.saturation)

    def sf(self, t: float) -> float:
        """The fraction of the B2 replicates whose statistic is ≥ t."""
        return float(np.mean(self.statistic(self.second) >= t))

    def isf(self, alpha: float) -> float:
        """1/u_α (one ulp below): the statistic rejects at level α when it exceeds this."""
        u = self.level_correction(alpha)
        # one ulp below 1/u_α: "reject when statistic > threshold" also when p_λ/w_λ = u_α
        return float("inf") if u == 0.0 else float(np.nextafter(1.0 / u, 0.0))

    def kernel_table(self, alpha: float) -> pd.DataFrame:
        """One row per kernel at level α: kernel, scale, weight, statistic, quantile
        q_λ(u_α), p_value, threshold u_α w_λ and reject."""
        u = self.level_correction(alpha)
        quantiles = self.quantiles(u)
        return pd.DataFrame({"kernel": list(self.labels), "scale": self.scales,
                             "weight": self.weights, "statistic": self.observed,
                             "quantile": quantiles, "p_value": self.p_values(),
                             "threshold": u * self.weights,
                             "reject": self.observed > quantiles})


def rademacher_columns(n: int, B: int, rng) -> np.ndarray:
    """(n, B + 1) float64 signs: a column of ones (the observed labelling), then B columns
    of i.i.d. Rademacher signs, drawn as bytes and written in place (no second n × B
    float array; a wild bootstrap's memory at n = 5000, B = 4000 is these 160 MB)."""
    signs = np.empty((n, B + 1))
    signs[:, 0] = 1.0
    np.multiply(rng.integers(0, 2, size=(n, B), dtype=np.int8), 2.0, out=signs[:, 1:])
    signs[:, 1:] -= 1.0
    return signs


def kernel_labels(collection) -> tuple[str, ...]:
    """'Gaussian σ=0.71'-style names of a collection's kernels."""
    return tuple(f"{type(k).__name__.removesuffix('Kernel')} "
                 f"{'c' if hasattr(k, 'c') else 'σ'}={scale:.3g}"
                 for k, scale in zip(collection.kernels, collection.scales(), strict=True))


def aggregated_null(values: np.ndarray, B1: int, collection) -> AggregatedNull:
    """The ``AggregatedNull`` of simulated values (K, 1 + B1 + B2): the observed
    labelling first, then the B1 quantile replicates, then the B2 others."""
    return AggregatedNull(values[:, 0], values[:, 1 : 1 + B1], values[:, 1 + B1 :],
                          np.asarray(collection.weights), kernel_labels(collection),
                          collection.scales())


def aggregated_outcome(values: np.ndarray, B1: int, collection) -> Outcome:
    """The registered tests' ``Outcome`` of an aggregated test from its simulated values
    (``aggregated_null``): the statistic max_λ w_λ / p_λ, the null that decides it, and
    the values in ``fitted``."""
    null = aggregated_null(values, B1, collection)
    return Outcome(float(null.statistic()), null_dist=null,
                   null_params={"n_kernels": len(collection)},
                   fitted={"collection": collection, "values": values})


def describe_aggregated_null(result) -> str:
    """The printout's words on an aggregated null: kernels, B1 and B2."""
    first, second = result.null_dist.sizes
    return f"{result.null_params['n_kernels']} kernels, B1 = {first}, B2 = {second}"


def aggregated_resample_counts(result) -> dict:
    """B1 (the quantiles) as ``n_resamples``, B2 (the level correction) as
    ``n_resamples_correction``."""
    first, second = result.null_dist.sizes
    return {"n_resamples": int(first), "n_resamples_correction": int(second)}


def aggregated_kernels_at_level(result, alpha: float) -> dict:
    """``fitted["kernels"]``: the per-kernel table at level α."""
    return {"kernels": result.null_dist.kernel_table(alpha)}


#: What an aggregated test (MMDAgg, KSDAgg) adds to its ``TestResult``: its registry hooks
AGGREGATED_RESULT = {"describe_null": describe_aggregated_null,
                     "resample_counts": aggregated_resample_counts,
                     "fitted_at_level": aggregated_kernels_at_level}
