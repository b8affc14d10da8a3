"""An effect size to quote beside a p-value: the MMD itself, ‖μ̂_X − μ̂_Y‖ in the kernel's
RKHS, with a bootstrap interval.

A p-value says whether the samples differ; with many rows a negligible difference
rejects. The MMD says how much: it is the distance between the two mean embeddings on the
kernel's own scale (for a Gaussian kernel, 0 for equal distributions and at most √2), so
it compares across data sets read with the same kernel. The estimate is
√max(MMD²_u, 0), from the unbiased MMD² of Gretton et al. 2012 (Eq. (3)): the biased one
is positive even for equal distributions (its diagonal terms), and so would be its
bootstrap, whose resamples repeat rows. The interval resamples the rows of each sample
and recomputes the unbiased statistic on the distinct rows of each resample (a weighted
U-statistic), a percentile bootstrap; a lower end clipped at 0 reads "no difference
excluded". Above ``BOOTSTRAP_ROWS`` rows per sample the interval is computed on a seeded
subsample of that many rows, which makes it wider than the full data's, never narrower.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import check_in_interval, check_positive_int, check_rng, check_samples
from ..kernels import check_kernel
from ..kernels.defaults import default_mmd_kernel
from .mmd import mmd2

#: rows of each sample the bootstrap interval reads at most (its Gram: 4 · 10⁶ values)
BOOTSTRAP_ROWS = 1000


@dataclass(frozen=True)
class EffectSize:
    """The MMD of two samples with its bootstrap interval.

    Parameters
    ----------
    mmd : float
        √max(MMD²_u, 0) on all rows.
    low, high : float
        The percentile bootstrap interval at ``level``.
    level : float
    n_resamples : int
    rows : pair of int
        Rows of X and Y the interval resampled.
    sizes : pair of int
        Rows of X and Y (``rows`` is smaller when the interval read a subsample).

    (Gretton et al. 2012, Eq. (3), and the percentile bootstrap.)
    """

    mmd: float
    low: float
    high: float
    level: float
    n_resamples: int
    rows: tuple
    sizes: tuple

    #: What the value means, for a reader of the table.
    meaning = ("the distance between the two mean embeddings on the kernel's scale (0 for "
               "equal distributions, at most √2 for a Gaussian kernel)")

    def columns(self) -> dict:
        """The exported columns (``export_table``)."""
        return {"effect_mmd": self.mmd, "effect_low": self.low, "effect_high": self.high,
                "effect_level": self.level}

    def __str__(self) -> str:
        sub = (f"; on {self.rows[0]} + {self.rows[1]} of the rows, so wider than the "
               "full data's" if self.rows != self.sizes else "")
        return (f"MMD = {self.mmd:.4g} [{self.low:.4g}, {self.high:.4g}] "
                f"({self.level:.0%} bootstrap interval{sub})")


def mmd_effect_size(X, Y, kernel=None, *, level: float = 0.95, n_resamples: int = 200,
                    rng=None, unbiased_mmd2: float | None = None) -> EffectSize:
    """The MMD ‖μ̂_X − μ̂_Y‖ = √max(MMD²_u, 0) (Gretton et al. 2012, Eq. (3)) and its
    percentile bootstrap interval (see the module docstring).

    Parameters
    ----------
    X : array (m, d)
    Y : array (n, d)
    kernel : Kernel, optional
        Default: the Gaussian kernel at the median heuristic, as ``mmd_test``.
    level : float in (0, 1)
    n_resamples : int
    rng : Generator, int or None
    unbiased_mmd2 : float, optional
        MMD²_u of X and Y with ``kernel`` when a test computed it already (the full Gram
        pass is then not repeated).

    Returns
    -------
    EffectSize
    """
    X = check_samples(X, "X", min_samples=2)
    Y = check_samples(Y, "Y", min_samples=2)
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"X and Y must have the same number of columns, got {X.shape[1]} "
                         f"and {Y.shape[1]}")
    level = check_in_interval(level, "level", 0.0, 1.0)
    n_resamples = check_positive_int(n_resamples, "n_resamples", minimum=10)
    kernel = check_kernel(default_mmd_kernel(X, Y) if kernel is None else kernel)
    rng = check_rng(rng)
    if unbiased_mmd2 is None:
        unbiased_mmd2 = mmd2(X, Y, kernel, estimator="unbiased")
    value = math.sqrt(max(float(unbiased_mmd2), 0.0))
    Xs, Ys = (S if len(S) <= BOOTSTRAP_ROWS else S[rng.choice(len(S), BOOTSTRAP_ROWS,
                                                               replace=False)]
              for S in (X, Y))
    boot = bootstrap_mmd(kernel(Xs, Xs), kernel(Ys, Ys), kernel(Xs, Ys), n_resamples, rng)
    tail = (1.0 - level) / 2.0
    boot = boot[~np.isnan(boot)]  # tiny samples: resamples of one repeated row left out
    low, high = np.quantile(boot, [tail, 1.0 - tail]) if boot.size else (math.nan,) * 2
    return EffectSize(value, float(low), float(high), level, n_resamples,
                      (len(Xs), len(Ys)), (len(X), len(Y)))


def bootstrap_mmd(Kxx, Kyy, Kxy, n_resamples: int, rng) -> np.ndarray:
    """√max(MMD²_u, 0) of ``n_resamples`` resamples of the rows of each sample, from the
    Gram matrices, with no loop over resamples. A resample is multinomial weights w
    (summing to 1) on the rows; its within-sample term is the weighted U-statistic
    (wᵀKw − Σ w_i² K_ii) / (1 − Σ w_i²), which leaves out the pairs of a row with
    itself, as MMD²_u does (Gretton et al. 2012, Eq. (3)); NaN for a resample of one
    repeated row (it has no such pair; only with a handful of rows)."""
    m, n = Kxy.shape

    def within(W, Kss):  # NaN for a resample that repeats one row only (no pair)
        distinct = 1.0 - np.einsum("bi,bi->b", W, W)
        quadratic = np.einsum("bi,bi->b", W @ Kss, W) - (W * W) @ np.diag(Kss)
        return np.divide(quadratic, distinct, out=np.full_like(distinct, np.nan),
                         where=distinct > 1e-12)

    Wx = rng.multinomial(m, np.full(m, 1.0 / m), size=n_resamples) / m
    Wy = rng.multinomial(n, np.full(n, 1.0 / n), size=n_resamples) / n
    squared = within(Wx, Kxx) + within(Wy, Kyy) - 2.0 * np.einsum("bi,bi->b", Wx @ Kxy, Wy)
    return np.sqrt(np.maximum(squared, 0.0), where=~np.isnan(squared),
                   out=np.full_like(squared, np.nan))
