"""An effect size to quote beside an independence test's p-value: the normalised HSIC,
with a jackknife interval.

A p-value of 10⁻⁸⁵ on 442 rows says that X and Y depend, not how strongly. The
normalised HSIC

    R = HSIC_u(X, Y) / √(HSIC_u(X, X) · HSIC_u(Y, Y))

is a kernel analogue of distance correlation (Székely & Rizzo 2014 use the same
U-centring for the bias-corrected distance correlation): the cosine between the two
samples' U-centred Gram matrices, 0 for independent variables whatever n, and 1 when Y
is a function of X that the kernels read the same way (Y = X). With characteristic
kernels its population value is 0 exactly under independence. HSIC_u is the unbiased
estimator of Song et al. 2012 (Eq. 5): the inner product of U-centred Grams divided by
n(n − 3), so R is centred at 0 under independence, where the biased ratio (the centred
kernel alignment) is positive at every n. R is read on the kernels' scale: it is not a
correlation of values and does not say which way Y moves with X, and two values compare
only when read with kernels of the same kind.

The interval is the jackknife's: θ ± z·SE from the n leave-one-out values of R, all of
them in O(n²) (the U-centred sums of a sample without row k follow from the full sums
and row k). Under dependence the jackknife is consistent; under independence R is a
degenerate U-statistic, whose jackknife variance errs on the large side, so the interval
holds 0 at least as often as its level says. Above ``MAX_ROWS`` rows the value and the
interval are computed on a seeded subsample of that many rows (wider, never narrower).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from .._validation import check_in_interval, check_rng
from .measures import check_paired, checked_kernel_pair

#: Rows the effect size reads at most (its Grams: 2 · 10⁶ values).
MAX_ROWS = 1000


@dataclass(frozen=True)
class DependenceEffect:
    """The normalised HSIC of paired samples with its jackknife interval.

    Parameters
    ----------
    value : float
        R clipped to [0, 1] (a negative estimate reads "no dependence seen").
    low, high : float
        The jackknife interval at ``level``, clipped to [0, 1].
    level : float
    rows : int
        The rows read (smaller than ``size`` when subsampled).
    size : int
        The rows of the sample.
    estimate : float
        R before clipping.

    (Song et al. 2012, Eq. 5, normalised; the jackknife interval.)
    """

    value: float
    low: float
    high: float
    level: float
    rows: int
    size: int
    estimate: float

    @classmethod
    def clipped(cls, estimate, low, high, level, rows, size):
        """The effect with R and its interval clipped to R's range [0, 1]."""
        def clip(v):
            return v if math.isnan(v) else min(max(v, 0.0), 1.0)
        return cls(clip(estimate), clip(low), clip(high), level, rows, size, estimate)

    #: What the value means, for a reader of the table.
    meaning = ("a kernel analogue of distance correlation: 0 for "
               "independent variables, 1 when Y is X read by the same kernel; on the "
               "kernels' scale, not a correlation of values")

    def columns(self) -> dict:
        """The exported columns (``export_table``)."""
        return {"effect_normalised_hsic": self.value, "effect_low": self.low,
                "effect_high": self.high, "effect_level": self.level}

    def __str__(self) -> str:
        sub = (f"; on {self.rows} of the {self.size} rows, so wider than the full data's"
               if self.rows != self.size else "")
        return (f"normalised HSIC = {self.value:.3g} [{self.low:.3g}, {self.high:.3g}] "
                f"({self.level:.0%} jackknife interval{sub})")


def u_centred(K: np.ndarray) -> np.ndarray:
    """The U-centred Gram K̂ (Székely & Rizzo 2014, Def. 1): zero diagonal and
    K̂_ij = K_ij − r_i/(n−2) − r_j/(n−2) + T/((n−1)(n−2)) off it, with r the row sums
    and T the total of K with its diagonal set to 0; ⟨K̂, L̂⟩/(n(n−3)) = HSIC_u."""
    n = K.shape[0]
    Kbar = np.array(K, dtype=float)
    np.fill_diagonal(Kbar, 0.0)
    rows = Kbar.sum(axis=1)
    out = Kbar - (rows[:, None] + rows[None, :]) / (n - 2) + rows.sum() / ((n - 1) * (n - 2))
    np.fill_diagonal(out, 0.0)
    return out


def u_centred_inner(cross, k_total, l_total, row_products, n):
    """⟨K̂, L̂⟩ = Σ K̄∘L̄ + T_K T_L/((n−1)(n−2)) − 2 rᵀs/(n−2) from the sums of the Grams
    with zero diagonals (Song et al. 2012, Eq. 5 times n(n − 3)); arrays broadcast."""
    return (cross + k_total * l_total / ((n - 1) * (n - 2))
            - 2.0 * row_products / (n - 2))


def _inner_and_left_out(K: np.ndarray, L: np.ndarray) -> tuple[float, np.ndarray]:
    """⟨K̂, L̂⟩ of the sample, and of the sample without row k for every k, in O(n²).

    With K̄, L̄ the Grams with zero diagonals, r = K̄1, s = L̄1, T_K, T_L their totals:
    ⟨K̂, L̂⟩ = Σ K̄∘L̄ + T_K T_L/((n−1)(n−2)) − 2 rᵀs/(n−2) (Song et al. 2012, Eq. 5
    times n(n − 3)). Without row k every sum loses row and column k:
    Σ K̄∘L̄ − 2 d_k with d = (K̄∘L̄)1; T_K − 2 r_k; and rᵀs − (L̄r)_k − (K̄s)_k + d_k − r_k s_k.
    """
    n = K.shape[0]
    Kbar, Lbar = np.array(K, dtype=float), np.array(L, dtype=float)
    np.fill_diagonal(Kbar, 0.0)
    np.fill_diagonal(Lbar, 0.0)
    r, s = Kbar.sum(axis=1), Lbar.sum(axis=1)
    d = np.einsum("ij,ij->i", Kbar, Lbar)
    cross, tk, tl, rs = d.sum(), r.sum(), s.sum(), r @ s

    left_out = u_centred_inner(cross - 2.0 * d, tk - 2.0 * r, tl - 2.0 * s,
                     rs - Lbar @ r - Kbar @ s + d - r * s, n - 1)
    return float(u_centred_inner(cross, tk, tl, rs, n)), left_out


def _ratio(xy, xx, yy):
    with np.errstate(invalid="ignore", divide="ignore"):
        return xy / np.sqrt(np.maximum(xx, 0.0) * np.maximum(yy, 0.0))


def normalised_hsic_from_grams(K, L, *, level: float = 0.95) -> tuple[float, float, float]:
    """(R, low, high) from the Gram matrices of paired samples (see the module
    docstring); low and high unclipped, NaN when a Gram has no variation."""
    n = K.shape[0]
    (xy, xy_k), (xx, xx_k), (yy, yy_k) = (_inner_and_left_out(A, B)
                                          for A, B in ((K, L), (K, K), (L, L)))
    value = float(_ratio(xy, xx, yy))
    left_out = _ratio(xy_k, xx_k, yy_k)
    if not np.isfinite(value) or not np.all(np.isfinite(left_out)):
        return value, math.nan, math.nan
    se = math.sqrt((n - 1) / n * np.sum((left_out - left_out.mean()) ** 2))
    z = float(norm.ppf(0.5 + level / 2.0))
    return value, value - z * se, value + z * se


def dependence_effect_size(X, Y, *, kernel_x=None, kernel_y=None, level: float = 0.95,
                           rng=None) -> DependenceEffect:
    """The normalised HSIC R = HSIC_u(X, Y)/√(HSIC_u(X, X) HSIC_u(Y, Y)) of paired
    samples and its jackknife interval (see the module docstring).

    Parameters
    ----------
    X : array (n, d_X)
    Y : array (n, d_Y)
        Paired row by row, n ≥ 6.
    kernel_x, kernel_y : Kernel, optional
        Default: a Gaussian kernel at each variable's median heuristic, as ``hsic_test``.
    level : float in (0, 1)
    rng : Generator, int or None
        Draws the subsample above ``MAX_ROWS`` rows.

    Returns
    -------
    DependenceEffect

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(300, 1))
    >>> strong = dependence_effect_size(x, x**2)
    >>> none = dependence_effect_size(x, rng.normal(size=(300, 1)))
    >>> strong.low > none.high, none.low <= 0.0
    (True, True)

    (Song et al. 2012, Eq. 5, normalised as Székely & Rizzo 2014 do distance covariance.)
    """
    X, Y = check_paired(X, Y, min_samples=6)
    level = check_in_interval(level, "level", 0.0, 1.0)
    kernels = checked_kernel_pair(kernel_x, kernel_y, X, Y)
    rng = check_rng(rng)
    n = X.shape[0]
    if n > MAX_ROWS:
        keep = np.sort(rng.choice(n, MAX_ROWS, replace=False))
        X, Y = X[keep], Y[keep]
    estimate, low, high = normalised_hsic_from_grams(kernels.x(X, X), kernels.y(Y, Y),
                                                     level=level)
    return DependenceEffect.clipped(estimate, low, high, level, X.shape[0], n)
